//! What crosses between the agent and its front ends, as plain data that names no other
//! Loom crate but `loom-base`. The agent's events and ops still live in `agent::events` of
//! the root crate; what they carry moves here piece by piece until they can follow (issue 27).

// Unsafe code lives in `loom-sandbox` only (issue 27); tests may set variables.
#![cfg_attr(not(test), forbid(unsafe_code))]

pub mod changes;
pub mod compaction;
pub mod mcp;
pub mod memory;
