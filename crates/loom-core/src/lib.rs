//! `loom-core`: everything an agent session is made of above the model client and the
//! policy — tools, the stores (sessions, the undo journal, memory, scheduled jobs), hooks,
//! MCP, configuration, the agent itself and the composition root that builds one for every
//! front end.
//!
//! The lower crates are re-exported under the names their modules had before the
//! workspace split (`base`, `llm`, `policy`, …), so `crate::policy::…` reads the same in
//! every layer.

// Unsafe code lives in `loom-sandbox` only (issue 27); tests may set variables.
#![cfg_attr(not(test), forbid(unsafe_code))]

pub mod agent;
pub mod changelog;
pub mod compose;
pub mod config;
pub mod cron;
pub mod custom_commands;
pub mod hooks;
pub mod mcp;
pub mod memory;
pub mod review;
pub mod session;
pub mod setup;
pub mod tools;

pub use loom_base as base;
pub use loom_base::{gitcmd, lockfile, printable, private, secrets};
pub use loom_llm as llm;
pub use loom_lsp as lsp;
pub use loom_policy as policy;
pub use loom_protocol as protocol;
