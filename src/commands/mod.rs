//! Handlers for the subcommands that are not `exec` (each prints to stdout and returns the
//! process exit code), and the start of the TUI (`tui`), which hands the screen its session.

pub mod cron;
pub mod mcp;
pub mod mcp_server;
pub mod memory;
pub mod models;
pub mod policy;
pub mod review;
pub mod sessions;
pub mod tool;
pub mod trust;
pub mod tui;
