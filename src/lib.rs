//! Loom: a full-screen terminal coding assistant for any OpenAI-compatible model.
//!
//! The `loom` package is the command line and its modes: `loom exec` (headless), the other
//! subcommands, and the wiring that starts a session with `loom-core` and hands it to the
//! full-screen front end (`loom-tui`). The workspace's crates are re-exported under the
//! module names they had before the split, so `loom::agent::…` still names the agent.

// Unsafe code lives in `loom-sandbox` only (issue 27); tests may set variables.
#![cfg_attr(not(test), forbid(unsafe_code))]

pub mod cli;
pub mod commands;
pub mod exec;

pub use loom_acp as acp;
pub use loom_base as base;
pub use loom_base::{gitcmd, lockfile, printable, private, secrets};
pub use loom_core::{
    agent, changelog, compose, config, cron, hooks, lsp, mcp, memory, session, setup, tools,
};
pub use loom_llm as llm;
pub use loom_policy as policy;
pub use loom_protocol as protocol;
pub use loom_tui as tui;
