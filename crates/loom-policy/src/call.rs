//! One call, one shape; one decision, made once.
//!
//! A tool describes what a call will touch as a [`CallIntent`], computed from its parsed,
//! typed arguments (see `Tool::describe`). The policy reads only that — never raw JSON
//! keys — and answers with a [`Ruling`]: the decision together with the assessment behind
//! it (risk, reason, the prefix a session grant would cover, whether a person's approval
//! opens the sandbox's network, whether the workspace is snapshotted first). The agent
//! carries the ruling to the approval prompt and to the runner, which decide nothing.

use super::Decision;
use super::commands::{Classification, Risk};
pub use loom_protocol::intent::{
    CallIntent, CommandIntent, GlobalMemory, McpIntent, NetAccess, NetworkIntent, ScheduleIntent,
};

/// What the policy found out about a call, carried with its decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assessment {
    /// The call's risk.
    pub risk: Risk,
    /// Why it has that risk, in words a person reads.
    pub reason: String,
    /// The command prefixes a "for this session" approval would record (`cargo fmt`), or
    /// for an MCP tool its one full name (`mcp__git__status`); `None` when no grant may be
    /// offered (high risk, redirects, nothing to grant).
    pub grant: Option<Vec<Vec<String>>>,
    /// Whether the command uses the network: if a person approves this very call, it runs
    /// with the sandbox's network open.
    pub network: bool,
    /// Whether the workspace is snapshotted before the call, so whatever it does can be
    /// undone: every command not proven read-only.
    pub snapshot: bool,
    /// Whether the command runs outside the sandbox once a person approves it: the model
    /// asked for that, and such a call is never allowed without asking. The one place
    /// this decision is made; the tool only runs in the sandbox it is given.
    pub outside_sandbox: bool,
    /// The command's full classification, for the approval prompt and `loom policy check`.
    pub classification: Option<Classification>,
    /// For a network call: the kind of access and the domain a "for this session" approval
    /// would cover.
    pub domain_grant: Option<(NetAccess, String)>,
}

impl Assessment {
    /// The assessment of a call with no command.
    pub fn plain(risk: Risk, reason: impl Into<String>) -> Assessment {
        Assessment {
            risk,
            reason: reason.into(),
            grant: None,
            network: false,
            snapshot: false,
            outside_sandbox: false,
            classification: None,
            domain_grant: None,
        }
    }

    /// The grant prefixes joined for display (`cargo fmt, npm install`).
    pub fn grant_label(&self) -> Option<String> {
        self.grant.as_ref().map(|ps| {
            ps.iter()
                .map(|p| p.join(" "))
                .collect::<Vec<_>>()
                .join(", ")
        })
    }
}

/// The policy's answer about one call: the decision and what it rests on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ruling {
    /// Run, ask or refuse.
    pub decision: Decision,
    /// The assessment behind it.
    pub assessment: Assessment,
    /// Why it would ask, when no one can answer (headless): `decision` is then the
    /// refusal. A PreToolUse hook's allow may still let the call run, as it would skip the
    /// question with a person there.
    pub unanswered: Option<String>,
}

impl Ruling {
    /// Whether the sandbox's network is opened for this call when it runs: only for a
    /// command that needs the network and that a person approved (`approved_by_person`).
    pub fn opens_network(&self, approved_by_person: bool) -> bool {
        approved_by_person && self.assessment.network
    }

    /// Whether the call runs with no sandbox at all: only a command the model asked to run
    /// outside it, that a person approved (`approved_by_person`).
    pub fn leaves_sandbox(&self, approved_by_person: bool) -> bool {
        approved_by_person
            && self.assessment.outside_sandbox
            && !matches!(self.decision, Decision::Deny { .. })
    }
}
