//! `loom-protocol`: what crosses between the agent and its front ends, as plain data that
//! names no other Loom crate but `loom-base`: the agent's ops and events ([`events`]) and
//! what they carry — the approval mode, a command's risk, what a tool call will touch and
//! its kind, token usage, attached images, tool results and each tool's typed result data
//! ([`tool_data`]), MCP status, change summaries, the compaction report and `/memory`
//! commands — and what a front end is handed at start: the conversation's messages, a
//! session read back from its file, what a project config would loosen. The crates that
//! produce them (`loom-shell`, `loom-policy`, `loom-llm`, `loom-core`) re-export them where
//! they were, and `loom exec --json` prints the events' `Serialize`.

// Unsafe code lives in `loom-sandbox` only (issue 27); tests may set variables.
#![cfg_attr(not(test), forbid(unsafe_code))]

pub mod autonomy;
pub mod changes;
pub mod compaction;
pub mod custom_command;
pub mod events;
pub mod image;
pub mod intent;
pub mod lsp;
pub mod mcp;
pub mod memory;
pub mod message;
pub mod notify;
pub mod plan;
pub mod review;
pub mod rewind;
pub mod risk;
pub mod stored;
pub mod tool_data;
pub mod tool_kind;
pub mod tool_result;
pub mod trust;
pub mod usage;
