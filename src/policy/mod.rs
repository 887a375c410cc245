//! Policy: what may be touched and what may run. It knows nothing above it (no agent, no
//! screen): it answers questions about paths, environments and proposed tool calls.
//!
//! [`Policy::decide`] turns a proposed call into [`Decision::Allow`], [`Decision::Ask`] or
//! [`Decision::Deny`]. The agent suspends on Ask until a person answers; a Deny goes back
//! to the model as a tool result explaining the refusal.

pub mod env;
pub mod paths;
pub mod sandbox;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::Path;

/// What a tool does to the world. Defined here, not in `tools`, because it is what the
/// policy judges; `tools` re-exports it.
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
}

impl ToolKind {
    /// Whether a successful call may have changed the workspace.
    pub fn is_mutating(self) -> bool {
        matches!(self, ToolKind::Write | ToolKind::Execute)
    }
}

/// How much Loom may do without asking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Autonomy {
    /// Reads only: no writes, no commands beyond read-only ones, no network.
    ReadOnly,
    /// Reads run; writes and commands ask.
    #[default]
    Supervised,
    /// Nothing asks; what the policy forbids outright stays forbidden.
    FullAuto,
}

impl Autonomy {
    /// The name used in flags, config and `/approval`.
    pub fn as_str(self) -> &'static str {
        match self {
            Autonomy::ReadOnly => "read-only",
            Autonomy::Supervised => "supervised",
            Autonomy::FullAuto => "full-auto",
        }
    }

    /// Parse a flag or config value.
    pub fn parse(s: &str) -> Option<Autonomy> {
        match s.trim() {
            "read-only" | "readonly" => Some(Autonomy::ReadOnly),
            "supervised" => Some(Autonomy::Supervised),
            "full-auto" | "full" | "auto" => Some(Autonomy::FullAuto),
            _ => None,
        }
    }
}

impl std::fmt::Display for Autonomy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the policy says about one proposed call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    /// Run it.
    Allow,
    /// Ask a person first.
    Ask {
        /// Why a person is asked, in words they understand.
        reason: String,
    },
    /// Refuse it; the reason goes to the model.
    Deny {
        /// Why it was refused.
        reason: String,
    },
}

/// The rules in force for a session.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    /// The autonomy level.
    pub autonomy: Autonomy,
    /// The person said "stop asking for edits in this session".
    writes_granted: bool,
}

/// How a command looks to the policy, for an approval prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandAssessment {
    /// Risk level name.
    pub level: String,
    /// Why, in words.
    pub reason: String,
    /// The prefix a session grant would cover, when one may be offered.
    pub grant_prefix: Option<String>,
}

impl Policy {
    /// A policy at the given autonomy level with default rules.
    pub fn new(autonomy: Autonomy) -> Policy {
        Policy {
            autonomy,
            writes_granted: false,
        }
    }

    /// Remember a session-wide approval for calls like this one; returns what was granted.
    pub fn grant(&mut self, name: &str, kind: ToolKind, args: &Value) -> String {
        let _ = args;
        match kind {
            ToolKind::Write => {
                self.writes_granted = true;
                "File edits will be applied without asking for the rest of this session.".into()
            }
            _ => format!("{name}: approved once (no session grant applies to this kind of call)"),
        }
    }

    /// Describe a command for an approval prompt.
    pub fn assess_command(&self, command: &str, workspace: Option<&Path>) -> CommandAssessment {
        let _ = (command, workspace);
        CommandAssessment {
            level: "unclassified".into(),
            reason: "commands are approved before they run".into(),
            grant_prefix: None,
        }
    }

    /// Decide about a call to tool `name` of `kind` with `args`, in a workspace rooted at
    /// `workspace` (used to judge commands' paths).
    pub fn decide(
        &self,
        name: &str,
        kind: ToolKind,
        args: &Value,
        workspace: Option<&Path>,
    ) -> Decision {
        let _ = (args, workspace);
        if kind == ToolKind::Write && self.writes_granted && self.autonomy != Autonomy::ReadOnly {
            return Decision::Allow;
        }
        match (kind, self.autonomy) {
            (ToolKind::Read, _) => Decision::Allow,
            (_, Autonomy::FullAuto) => Decision::Allow,
            (ToolKind::Write, Autonomy::ReadOnly) => Decision::Deny {
                reason: format!(
                    "{name} was refused: Loom is in read-only mode, so no files may be changed"
                ),
            },
            (ToolKind::Execute, Autonomy::ReadOnly) => Decision::Deny {
                reason: format!(
                    "{name} was refused: Loom is in read-only mode, so commands may not run"
                ),
            },
            (ToolKind::Network, Autonomy::ReadOnly) => Decision::Deny {
                reason: format!(
                    "{name} was refused: Loom is in read-only mode, so the network is off"
                ),
            },
            (ToolKind::Write, Autonomy::Supervised) => Decision::Ask {
                reason: "file changes are reviewed before they are written".into(),
            },
            (ToolKind::Execute, Autonomy::Supervised) => Decision::Ask {
                reason: "commands are approved before they run".into(),
            },
            (ToolKind::Network, Autonomy::Supervised) => Decision::Ask {
                reason: "network access is approved first".into(),
            },
        }
    }

    /// For callers where the person typing is the approver (`loom tool run`): the reason a
    /// call is refused outright, if it is.
    pub fn refusal(&self, name: &str, args: &Value, workspace: Option<&Path>) -> Option<String> {
        let _ = (name, args, workspace);
        None
    }
}
