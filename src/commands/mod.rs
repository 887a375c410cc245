//! Handlers for the subcommands that are not the TUI or `exec`: each prints to stdout and
//! returns the process exit code.

pub mod cron;
pub mod mcp;
pub mod mcp_server;
pub mod memory;
pub mod models;
pub mod policy;
pub mod sessions;
pub mod tool;
pub mod trust;
