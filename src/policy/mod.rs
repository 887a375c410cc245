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

use crate::tools::ToolKind;

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
}

impl Policy {
    /// A policy at the given autonomy level with default rules.
    pub fn new(autonomy: Autonomy) -> Policy {
        Policy { autonomy }
    }

    /// Decide about a call to tool `name` of `kind` with `args`.
    pub fn decide(&self, name: &str, kind: ToolKind, args: &Value) -> Decision {
        let _ = args;
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
    pub fn refusal(
        &self,
        name: &str,
        args: &Value,
        _ctx: &crate::tools::ToolContext,
    ) -> Option<String> {
        let _ = (name, args);
        None
    }
}
