//! Loom: a full-screen terminal coding assistant for any OpenAI-compatible model.
//!
//! Layers, with arrows pointing one way: front ends (`tui`, `exec`) drive the `agent`, which
//! uses `llm`, `tools` and `hooks`; everything below consults `policy`.

// Unsafe code lives in `loom-sandbox` only (issue 27); tests may set variables.
#![cfg_attr(not(test), forbid(unsafe_code))]

pub mod agent;
pub mod changelog;
pub mod cli;
pub mod commands;
pub mod compose;
pub mod config;
pub mod cron;
pub mod exec;
pub mod hooks;
pub mod mcp;
pub mod memory;
pub mod session;
pub mod setup;
pub mod tools;
pub mod tui;

pub use loom_base as base;
pub use loom_base::{gitcmd, lockfile, printable, private, secrets};
pub use loom_llm as llm;
pub use loom_policy as policy;
pub use loom_protocol as protocol;
