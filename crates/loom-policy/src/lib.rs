//! `loom-policy`: what may be touched and what may run. It knows nothing above it (no agent, no
//! screen): it answers questions about paths, environments and proposed tool calls.
//!
//! [`Policy::decide`] turns a call's [`CallIntent`] (what the tool says the call will
//! touch) into a [`Ruling`]: Allow, Ask or Deny with the assessment behind it, from, in
//! order: what is forbidden outright (never runs, whatever the mode or rules), the autonomy
//! level, persistent rules from config (deny wins), grants made during the session, the
//! hourly action budget, and whether anyone can be asked at all (headless: ask → deny).

// Unsafe code lives in `loom-sandbox` only (issue 27); tests may set variables.
#![cfg_attr(not(test), forbid(unsafe_code))]

pub mod address_guard;
pub mod approvals;
pub mod call;
pub use loom_shell as commands;
pub mod limits;
pub mod mcp;
pub mod network;
pub use loom_base::paths;
pub mod schedule;

#[cfg(test)]
mod grant_offer_tests;
#[cfg(test)]
mod plan_mode_tests;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use approvals::{Grants, RuleAction, Rules};
pub use call::{
    Assessment, CallIntent, CommandIntent, GlobalMemory, McpIntent, NetAccess, NetworkIntent,
    Ruling, ScheduleIntent,
};
use commands::{Classification, CommandContext, Risk, classify};
use limits::ActionBudget;
use paths::ForbiddenRule;

pub use loom_protocol::tool_kind::ToolKind;

pub use loom_protocol::autonomy::Autonomy;

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

/// The refusal the model reads for `what` in plan mode: what plan mode allows and what to
/// do instead, so it finishes its plan rather than trying again.
pub fn plan_mode_refusal(what: &str, why: &str) -> String {
    format!(
        "{what} was refused: Loom is in plan mode, so {why}. Plan mode offers read-only \
         tools only: investigate with them, keep the plan with update_plan and end with it; \
         the person approves the plan before anything is changed"
    )
}

/// The rules in force for a session.
#[derive(Debug, Clone)]
pub struct Policy {
    /// The autonomy level.
    pub autonomy: Autonomy,
    rules: Rules,
    grants: Grants,
    /// Shared by every clone: a session's agents (its delegate sub-agents too) draw on one
    /// hourly budget.
    budget: Arc<Mutex<ActionBudget>>,
    home: Option<PathBuf>,
    protected: Vec<ForbiddenRule>,
    interactive: bool,
    network: network::NetworkRules,
    domains: network::DomainGrants,
    mcp: mcp::McpPolicy,
}

impl Default for Policy {
    fn default() -> Self {
        Policy::new(Autonomy::default())
    }
}

impl Policy {
    /// A policy at the given autonomy level with default rules, budget and protected
    /// paths, for a session where a person can be asked.
    pub fn new(autonomy: Autonomy) -> Policy {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        Policy {
            autonomy,
            rules: Rules::default(),
            grants: Grants::default(),
            budget: Arc::default(),
            protected: ForbiddenRule::defaults(home.as_deref()),
            home,
            interactive: true,
            network: network::NetworkRules::default(),
            domains: network::DomainGrants::default(),
            mcp: mcp::McpPolicy::default(),
        }
    }

    /// Use these rules for network calls (read-only web access, allowed API domains).
    pub fn with_network(mut self, rules: network::NetworkRules) -> Policy {
        self.network = rules;
        self
    }

    /// Use these rules for MCP tools (from the `allow` and `deny` of each server).
    pub fn with_mcp_rules(mut self, rules: mcp::McpRules) -> Policy {
        self.mcp = mcp::McpPolicy::new(rules);
        self
    }

    /// Use these persistent rules.
    pub fn with_rules(mut self, rules: Rules) -> Policy {
        self.rules = rules;
        self
    }

    /// Use this hourly action budget.
    pub fn with_budget(mut self, per_hour: u32) -> Policy {
        self.budget = Arc::new(Mutex::new(ActionBudget::new(per_hour)));
        self
    }

    /// Protect these paths from commands (the same rules the file tools obey).
    pub fn with_protected(mut self, protected: Vec<ForbiddenRule>) -> Policy {
        self.protected = protected;
        self
    }

    /// Nobody can answer approval requests (`loom exec`): what would ask is refused, with
    /// a reason the model can read.
    pub fn headless(mut self) -> Policy {
        self.interactive = false;
        self
    }

    fn command_context(&self, workspace: Option<&Path>, cwd: Option<&str>) -> CommandContext {
        let root = workspace
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("/"));
        let cwd = cwd
            .map(|c| commands::normalize(&root.join(c)))
            .unwrap_or_else(|| root.clone());
        CommandContext {
            workspace: root,
            cwd,
            home: self.home.clone(),
            protected: self.protected.clone(),
        }
    }

    /// Classify a command line run in `cwd` (relative to the workspace).
    pub fn classify(
        &self,
        command: &str,
        workspace: Option<&Path>,
        cwd: Option<&str>,
    ) -> Classification {
        classify(command, &self.command_context(workspace, cwd))
    }

    /// Decide about a call to tool `name` that will do what `intent` says, at time `now`.
    pub fn decide(
        &self,
        name: &str,
        intent: &CallIntent,
        workspace: Option<&Path>,
        now: Instant,
    ) -> Ruling {
        let (decision, assessment) = match intent {
            CallIntent::GlobalMemory(_) => self.decide_global_memory(name),
            CallIntent::Reads(_) => (
                Decision::Allow,
                Assessment::plain(Risk::ReadOnly, "only reads"),
            ),
            CallIntent::Writes(paths) => self.decide_write(name, paths),
            CallIntent::Runs(command) => self.decide_command(command, workspace),
            CallIntent::Network(net) => {
                network::decide(name, net, self.autonomy, &self.network, &self.domains)
            }
            CallIntent::Mcp(_) => self.mcp.decide(name, intent, self.autonomy),
            CallIntent::Schedule(_) => {
                schedule::decide(name, intent, self.autonomy, self.interactive)
            }
        };
        let decision = if decision == Decision::Allow && self.budget().exhausted(now) {
            Decision::Ask {
                reason: format!(
                    "the budget of {} writes and commands per hour is used up, so every action now \
                     needs approval (raise approval.max_actions_per_hour to change this)",
                    self.budget().per_hour()
                ),
            }
        } else {
            decision
        };
        let (decision, unanswered) = match decision {
            Decision::Ask { reason } if !self.interactive => (
                Decision::Deny {
                    reason: refused_headless(&reason),
                },
                Some(reason),
            ),
            other => (other, None),
        };
        Ruling {
            decision,
            assessment,
            unanswered,
        }
    }

    /// Whether a person can be asked (not `loom exec`, a scheduled run or a sub-agent
    /// of one).
    pub fn interactive(&self) -> bool {
        self.interactive
    }

    /// A note kept for every workspace reaches every later session's system prompt, in any
    /// workspace: stored without asking, one prompt injected into one session would speak
    /// in all of them. So it asks, in read-only and supervised mode (and is refused where
    /// no one can answer, as in `loom exec`); full-auto stores it, as the person said
    /// nothing asks. A note for this workspace only asks nothing, in any mode.
    fn decide_global_memory(&self, name: &str) -> (Decision, Assessment) {
        let assessment = Assessment::plain(
            Risk::Medium,
            "keeps a note for every workspace: it is listed in the system prompt of every \
             later session, anywhere",
        );
        let decision = match self.autonomy {
            Autonomy::FullAuto => Decision::Allow,
            Autonomy::ReadOnly | Autonomy::Supervised | Autonomy::Plan => Decision::Ask {
                reason: format!(
                    "{name} in the global scope keeps a note for every workspace, which reaches \
                     every later session's prompt; store it with scope workspace to keep it to \
                     this one"
                ),
            },
        };
        (decision, assessment)
    }

    fn decide_write(&self, name: &str, writes: &[String]) -> (Decision, Assessment) {
        let shown = writes.join(", ");
        let assessment = Assessment::plain(Risk::Medium, format!("changes {shown}"));
        if self.autonomy == Autonomy::Plan {
            let reason = plan_mode_refusal(name, "no files may be changed");
            return (Decision::Deny { reason }, assessment);
        }
        if self.autonomy == Autonomy::ReadOnly {
            let reason = format!(
                "{name} was refused: Loom is in read-only mode, so no files may be changed"
            );
            return (Decision::Deny { reason }, assessment);
        }
        let mut allowed_by_rule = !writes.is_empty();
        let mut ask = None;
        for path in writes {
            let rel = path.trim_start_matches("./");
            match self.rules.for_path(rel) {
                Some((RuleAction::Deny, label)) => {
                    let reason = format!("writing {path} is denied by the rule {label}");
                    return (Decision::Deny { reason }, assessment);
                }
                Some((RuleAction::Ask, label)) => {
                    ask.get_or_insert(format!("the rule {label} asks before writing {path}"));
                    allowed_by_rule = false;
                }
                Some((RuleAction::Allow, _)) => {}
                None => allowed_by_rule = false,
            }
        }
        if let Some(reason) = ask {
            return (Decision::Ask { reason }, assessment);
        }
        let decision = match self.autonomy {
            _ if allowed_by_rule => Decision::Allow,
            Autonomy::FullAuto => Decision::Allow,
            _ if self.grants.writes() => Decision::Allow,
            _ => Decision::Ask {
                reason: "file changes are reviewed before they are written".into(),
            },
        };
        (decision, assessment)
    }

    fn decide_command(
        &self,
        command: &CommandIntent,
        workspace: Option<&Path>,
    ) -> (Decision, Assessment) {
        let c = self.classify(&command.command, workspace, command.cwd.as_deref());
        let outside = command.outside_sandbox;
        let assessment = Assessment {
            risk: c.level,
            reason: c.reason.clone(),
            grant: Grants::offer(&c),
            network: c.uses_network(),
            snapshot: c.level > Risk::ReadOnly,
            outside_sandbox: outside,
            classification: Some(c.clone()),
            domain_grant: None,
        };
        let decision = self.command_decision(&c, outside);
        (decision, assessment)
    }

    fn command_decision(&self, c: &Classification, outside: bool) -> Decision {
        if c.level == Risk::Forbidden {
            return Decision::Deny {
                reason: format!("this command is never allowed: {}", c.reason),
            };
        }
        if let Some((RuleAction::Deny, label)) = self.rules.for_command(c) {
            return Decision::Deny {
                reason: format!("the command is denied by the rule {label}"),
            };
        }
        if self.autonomy == Autonomy::Plan && (c.level != Risk::ReadOnly || outside) {
            return Decision::Deny {
                reason: plan_mode_refusal(
                    "this command",
                    &format!("only read-only commands run, and this one is {}", c.level),
                ),
            };
        }
        if self.autonomy.reads_only() {
            return if c.level == Risk::ReadOnly && !outside {
                Decision::Allow
            } else {
                Decision::Deny {
                    reason: format!(
                        "read-only mode runs only read-only commands, and this one is {}: {}",
                        c.level, c.reason
                    ),
                }
            };
        }
        if outside {
            return Decision::Ask {
                reason: format!(
                    "the model asks to run this outside the sandbox ({} risk: {})",
                    c.level, c.reason
                ),
            };
        }
        match self.rules.for_command(c) {
            Some((RuleAction::Ask, label)) => {
                return Decision::Ask {
                    reason: format!("the rule {label} asks first"),
                };
            }
            Some((RuleAction::Allow, _)) => return Decision::Allow,
            _ => {}
        }
        match (self.autonomy, c.level) {
            (Autonomy::FullAuto, _) => Decision::Allow,
            (_, Risk::ReadOnly | Risk::Low) => Decision::Allow,
            (_, Risk::Medium) if self.grants.covers(c) => Decision::Allow,
            (_, level) => Decision::Ask {
                reason: format!("{level} risk: {}", c.reason),
            },
        }
    }

    /// The hourly budget (a panic elsewhere while it was held leaves its count usable).
    fn budget(&self) -> MutexGuard<'_, ActionBudget> {
        self.budget.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Count one executed write, command or change to scheduled jobs against the hourly
    /// budget.
    pub fn record_action(&mut self, kind: ToolKind, now: Instant) {
        if kind.is_mutating() || kind == ToolKind::Schedule {
            self.budget().record(now);
        }
    }

    /// Whether the session grant `ruling` offers (`a` in the TUI) would let this command run
    /// without asking: the most a PreToolUse hook's `allow` may stand in for. An ask rule,
    /// the used-up hourly budget or leaving the sandbox still ask with the grant made, so
    /// they still ask here; anything but a command the policy asks about is `false`.
    pub fn grant_would_allow(
        &self,
        name: &str,
        intent: &CallIntent,
        workspace: Option<&Path>,
        now: Instant,
        ruling: &Ruling,
    ) -> bool {
        let asks = matches!(ruling.decision, Decision::Ask { .. }) || ruling.unanswered.is_some();
        if !matches!(intent, CallIntent::Runs(_)) || ruling.assessment.grant.is_none() || !asks {
            return false;
        }
        let mut granted = self.clone();
        granted.grant(ToolKind::Execute, &ruling.assessment);
        granted.decide(name, intent, workspace, now).decision == Decision::Allow
    }

    /// Remember a session-wide approval for calls like the one assessed; returns what was
    /// granted, in words for the person.
    pub fn grant(&mut self, kind: ToolKind, assessment: &Assessment) -> String {
        match kind {
            ToolKind::Write => {
                self.grants.grant_writes();
                "File edits will be applied without asking for the rest of this session.".into()
            }
            ToolKind::Execute => match &assessment.grant {
                Some(prefixes) => {
                    self.grants.grant_prefixes(prefixes);
                    format!(
                        "Commands starting with {} will run without asking for the rest of this session.",
                        prefixes
                            .iter()
                            .map(|p| format!("`{}`", p.join(" ")))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }
                None => "Approved once: no session grant is given for high-risk commands.".into(),
            },
            ToolKind::Network => match &assessment.domain_grant {
                Some((access, domain)) => {
                    self.domains.grant(*access, domain);
                    format!(
                        "{} calls to {domain} will run without asking for the rest of this session.",
                        access.tool()
                    )
                }
                None => "Approved once.".into(),
            },
            ToolKind::Mcp => self.mcp.grant(assessment),
            _ => "Approved once.".into(),
        }
    }

    /// For callers where the person typing is the approver (`loom tool run`, configured
    /// hooks): the reason a call is refused outright, if it is (forbidden commands, deny
    /// rules).
    pub fn refusal(
        &self,
        name: &str,
        intent: &CallIntent,
        workspace: Option<&Path>,
    ) -> Option<String> {
        let full = Policy {
            autonomy: Autonomy::FullAuto,
            budget: Arc::new(Mutex::new(ActionBudget::new(u32::MAX))),
            interactive: true,
            ..self.clone()
        };
        match full
            .decide(name, intent, workspace, Instant::now())
            .decision
        {
            Decision::Deny { reason } => Some(reason),
            _ => None,
        }
    }
}

/// The refusal of a call that would ask (`reason`) where no one can answer: `loom exec`,
/// a scheduled run. Said the same way whether the policy or a PreToolUse hook asked.
fn refused_headless(reason: &str) -> String {
    format!(
        "{reason}, and no one can approve it in headless mode (rerun with --approval \
         full-auto to allow it)"
    )
}

#[cfg(test)]
#[path = "policy_tests.rs"]
mod tests;
