//! `loom-protocol`: what crosses between the agent and its front ends, as plain data that
//! names no other Loom crate but `loom-base`: the agent's ops and events ([`events`]) and
//! what they carry — the approval mode, a command's risk, what a tool call will touch and
//! its kind, token usage, attached images, tool results, MCP status, change summaries, the
//! compaction report and `/memory` commands. The crates that produce them (`loom-shell`,
//! `loom-policy`, `loom-llm`, `loom-core`) re-export them where they were, and
//! `loom exec --json` prints the events' `Serialize`.

// Unsafe code lives in `loom-sandbox` only (issue 27); tests may set variables.
#![cfg_attr(not(test), forbid(unsafe_code))]

pub mod autonomy;
pub mod changes;
pub mod compaction;
pub mod events;
pub mod image;
pub mod intent;
pub mod lsp;
pub mod mcp;
pub mod memory;
pub mod risk;
pub mod tool_kind;
pub mod tool_result;
pub mod usage;
