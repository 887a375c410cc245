//! What a tool does to the world, the kind the policy judges and the front ends show.

use serde::{Deserialize, Serialize};

/// What a tool does to the world. The policy judges it and the front ends show it;
/// `loom-policy` and `tools` re-export it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    /// Only reads the workspace.
    Read,
    /// Changes files in the workspace.
    Write,
    /// Runs a program.
    Execute,
    /// Talks to the network.
    Network,
    /// Calls a tool of a Model Context Protocol server: whatever it does, Loom cannot see.
    Mcp,
    /// Adds or removes a scheduled job: work that runs later with nobody at the keyboard.
    Schedule,
}

impl ToolKind {
    /// Whether a successful call may have changed the workspace (an MCP tool may, like a
    /// command).
    pub fn is_mutating(self) -> bool {
        matches!(self, ToolKind::Write | ToolKind::Execute | ToolKind::Mcp)
    }
}
