//! What crosses between the agent and its front ends, as plain data that names nothing
//! above [`crate::base`]: the seed of the `loom-protocol` crate (issue 27). The agent's
//! events and ops still live in `agent::events`; what they carry moves here piece by piece
//! until they can follow.

pub mod changes;
pub mod compaction;
pub mod mcp;
pub mod memory;
