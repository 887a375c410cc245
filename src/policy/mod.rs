//! Policy: what may be touched and what may run. It knows nothing above it (no agent, no
//! screen): it answers questions about paths, environments and proposed tool calls.
//!
//! [`Policy::decide`] turns a proposed call into [`Decision::Allow`], [`Decision::Ask`] or
//! [`Decision::Deny`], from, in order: what is forbidden outright (never runs, whatever the
//! mode or rules), the autonomy level, persistent rules from config (deny wins), grants
//! made during the session, and the hourly action budget.

pub mod approvals;
pub mod commands;
pub mod env;
pub mod limits;
pub mod paths;
pub mod sandbox;

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use approvals::{Grants, RuleAction, Rules};
use commands::{Classification, CommandContext, Risk, classify};
use limits::ActionBudget;

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
    /// Reads only: no writes, no network, only read-only commands.
    ReadOnly,
    /// Reads, read-only and build/test commands run; writes and riskier commands ask.
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

/// How a command looks to the policy, for an approval prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandAssessment {
    /// The classification.
    pub classification: Classification,
    /// The prefix a session grant would cover, when one may be offered.
    pub grant_prefix: Option<String>,
}

/// The rules in force for a session.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    /// The autonomy level.
    pub autonomy: Autonomy,
    rules: Rules,
    grants: Grants,
    budget: ActionBudget,
    home: Option<PathBuf>,
}

fn bash_args(args: &Value) -> (Option<&str>, Option<&str>, bool) {
    (
        args.get("command").and_then(Value::as_str),
        args.get("cwd").and_then(Value::as_str),
        args.get("outside_sandbox").and_then(Value::as_bool) == Some(true),
    )
}

impl Policy {
    /// A policy at the given autonomy level with default rules and budget.
    pub fn new(autonomy: Autonomy) -> Policy {
        Policy {
            autonomy,
            home: std::env::var_os("HOME").map(PathBuf::from),
            ..Policy::default()
        }
    }

    /// Use these persistent rules.
    pub fn with_rules(mut self, rules: Rules) -> Policy {
        self.rules = rules;
        self
    }

    /// Use this hourly action budget.
    pub fn with_budget(mut self, per_hour: u32) -> Policy {
        self.budget = ActionBudget::new(per_hour);
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

    /// Decide about a call to tool `name` of `kind` with `args` at time `now`.
    pub fn decide(
        &self,
        name: &str,
        kind: ToolKind,
        args: &Value,
        workspace: Option<&Path>,
        now: Instant,
    ) -> Decision {
        let decision = match kind {
            ToolKind::Read => return Decision::Allow,
            ToolKind::Write => self.decide_write(name, args),
            ToolKind::Execute => self.decide_command(name, args, workspace),
            ToolKind::Network => match self.autonomy {
                Autonomy::ReadOnly => Decision::Deny {
                    reason: format!("{name} was refused: read-only mode has no network access"),
                },
                Autonomy::Supervised => Decision::Ask {
                    reason: "network access is approved first".into(),
                },
                Autonomy::FullAuto => Decision::Allow,
            },
        };
        if decision == Decision::Allow && self.budget.exhausted(now) {
            return Decision::Ask {
                reason: format!(
                    "the budget of {} writes and commands per hour is used up, so every action now \
                     needs approval (raise approval.max_actions_per_hour to change this)",
                    self.budget.per_hour()
                ),
            };
        }
        decision
    }

    fn decide_write(&self, name: &str, args: &Value) -> Decision {
        if self.autonomy == Autonomy::ReadOnly {
            return Decision::Deny {
                reason: format!(
                    "{name} was refused: Loom is in read-only mode, so no files may be changed"
                ),
            };
        }
        let path = args.get("path").and_then(Value::as_str).unwrap_or("");
        let rel = path.trim_start_matches("./");
        match self.rules.for_path(rel) {
            Some((RuleAction::Deny, label)) => {
                return Decision::Deny {
                    reason: format!("writing {path} is denied by the rule {label}"),
                };
            }
            Some((RuleAction::Ask, label)) => {
                return Decision::Ask {
                    reason: format!("the rule {label} asks before writing {path}"),
                };
            }
            Some((RuleAction::Allow, _)) => return Decision::Allow,
            None => {}
        }
        match self.autonomy {
            Autonomy::FullAuto => Decision::Allow,
            _ if self.grants.writes() => Decision::Allow,
            _ => Decision::Ask {
                reason: "file changes are reviewed before they are written".into(),
            },
        }
    }

    fn decide_command(&self, name: &str, args: &Value, workspace: Option<&Path>) -> Decision {
        let (Some(command), cwd, outside) = bash_args(args) else {
            return match self.autonomy {
                Autonomy::ReadOnly => Decision::Deny {
                    reason: format!(
                        "{name} was refused: read-only mode runs only read-only commands"
                    ),
                },
                Autonomy::FullAuto => Decision::Allow,
                Autonomy::Supervised => Decision::Ask {
                    reason: "commands are approved before they run".into(),
                },
            };
        };
        let c = self.classify(command, workspace, cwd);
        if c.level == Risk::Forbidden {
            return Decision::Deny {
                reason: format!("this command is never allowed: {}", c.reason),
            };
        }
        if let Some((RuleAction::Deny, label)) = self.rules.for_command(&c) {
            return Decision::Deny {
                reason: format!("the command is denied by the rule {label}"),
            };
        }
        if self.autonomy == Autonomy::ReadOnly {
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
        match self.rules.for_command(&c) {
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
            (_, Risk::Medium) if self.grants.covers(&c) => Decision::Allow,
            (_, level) => Decision::Ask {
                reason: format!("{level} risk: {}", c.reason),
            },
        }
    }

    /// Count one executed write or command against the hourly budget.
    pub fn record_action(&mut self, kind: ToolKind, now: Instant) {
        if kind.is_mutating() {
            self.budget.record(now);
        }
    }

    /// Remember a session-wide approval for calls like this one; returns what was granted.
    pub fn grant(
        &mut self,
        name: &str,
        kind: ToolKind,
        args: &Value,
        workspace: Option<&Path>,
    ) -> String {
        match kind {
            ToolKind::Write => {
                self.grants.grant_writes();
                "File edits will be applied without asking for the rest of this session.".into()
            }
            ToolKind::Execute => {
                let (Some(command), cwd, _) = bash_args(args) else {
                    return format!("{name}: approved once");
                };
                let c = self.classify(command, workspace, cwd);
                match self.grants.grant_command(&c) {
                    Some(prefixes) => format!(
                        "Commands starting with {} will run without asking for the rest of this session.",
                        prefixes
                            .iter()
                            .map(|p| format!("`{}`", p.join(" ")))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    None => {
                        "Approved once: no session grant is given for high-risk commands.".into()
                    }
                }
            }
            _ => format!("{name}: approved once"),
        }
    }

    /// Describe a command for an approval prompt.
    pub fn assess_command(
        &self,
        command: &str,
        workspace: Option<&Path>,
        cwd: Option<&str>,
    ) -> CommandAssessment {
        let classification = self.classify(command, workspace, cwd);
        let grant_prefix = Grants::offer(&classification).map(|ps| {
            ps.iter()
                .map(|p| p.join(" "))
                .collect::<Vec<_>>()
                .join(", ")
        });
        CommandAssessment {
            classification,
            grant_prefix,
        }
    }

    /// For callers where the person typing is the approver (`loom tool run`): the reason a
    /// call is refused outright, if it is (forbidden commands, deny rules).
    pub fn refusal(&self, name: &str, args: &Value, workspace: Option<&Path>) -> Option<String> {
        let kind = match name {
            "bash" => ToolKind::Execute,
            "write_file" | "edit_file" => ToolKind::Write,
            _ => return None,
        };
        let full = Policy {
            autonomy: Autonomy::FullAuto,
            budget: ActionBudget::new(u32::MAX),
            ..self.clone()
        };
        match full.decide(name, kind, args, workspace, Instant::now()) {
            Decision::Deny { reason } => Some(reason),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approvals::RuleConfig;
    use serde_json::json;

    fn ws() -> PathBuf {
        PathBuf::from("/w")
    }

    fn decide(p: &Policy, kind: ToolKind, args: Value) -> Decision {
        p.decide("tool", kind, &args, Some(&ws()), Instant::now())
    }

    fn bash(cmd: &str) -> Value {
        json!({"command": cmd})
    }

    #[test]
    fn supervised_runs_reads_and_builds_asks_for_the_rest() {
        let p = Policy::new(Autonomy::Supervised);
        assert_eq!(decide(&p, ToolKind::Read, json!({})), Decision::Allow);
        assert_eq!(
            decide(&p, ToolKind::Execute, bash("ls -la")),
            Decision::Allow
        );
        assert_eq!(
            decide(&p, ToolKind::Execute, bash("cargo test")),
            Decision::Allow
        );
        assert!(matches!(
            decide(&p, ToolKind::Execute, bash("touch x")),
            Decision::Ask { .. }
        ));
        assert!(matches!(
            decide(&p, ToolKind::Execute, bash("curl x")),
            Decision::Ask { .. }
        ));
        assert!(matches!(
            decide(&p, ToolKind::Write, json!({"path": "a"})),
            Decision::Ask { .. }
        ));
        assert!(matches!(
            decide(&p, ToolKind::Execute, bash("rm -rf /")),
            Decision::Deny { .. }
        ));
    }

    #[test]
    fn read_only_and_full_auto() {
        let ro = Policy::new(Autonomy::ReadOnly);
        assert_eq!(
            decide(&ro, ToolKind::Execute, bash("git status")),
            Decision::Allow
        );
        assert!(matches!(
            decide(&ro, ToolKind::Execute, bash("cargo build")),
            Decision::Deny { .. }
        ));
        assert!(matches!(
            decide(&ro, ToolKind::Write, json!({"path": "a"})),
            Decision::Deny { .. }
        ));
        assert!(matches!(
            decide(&ro, ToolKind::Network, json!({})),
            Decision::Deny { .. }
        ));
        let fa = Policy::new(Autonomy::FullAuto);
        assert_eq!(
            decide(&fa, ToolKind::Execute, bash("curl x")),
            Decision::Allow
        );
        assert_eq!(
            decide(&fa, ToolKind::Write, json!({"path": "a"})),
            Decision::Allow
        );
        match decide(&fa, ToolKind::Execute, bash("curl x | sh")) {
            Decision::Deny { reason } => assert!(reason.contains("never allowed"), "{reason}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn outside_sandbox_always_asks() {
        let fa = Policy::new(Autonomy::FullAuto);
        let args = json!({"command": "ls", "outside_sandbox": true});
        assert!(matches!(
            decide(&fa, ToolKind::Execute, args),
            Decision::Ask { .. }
        ));
    }

    #[test]
    fn rules_apply_and_deny_wins() {
        let rules = approvals::Rules::compile(&[
            RuleConfig {
                action: RuleAction::Allow,
                command: Some("git".into()),
                path: None,
            },
            RuleConfig {
                action: RuleAction::Deny,
                command: Some("git push".into()),
                path: None,
            },
            RuleConfig {
                action: RuleAction::Ask,
                command: Some("cargo test".into()),
                path: None,
            },
            RuleConfig {
                action: RuleAction::Deny,
                command: None,
                path: Some("*.lock".into()),
            },
        ])
        .unwrap();
        let p = Policy::new(Autonomy::FullAuto).with_rules(rules.clone());
        assert!(matches!(
            decide(&p, ToolKind::Execute, bash("git push")),
            Decision::Deny { .. }
        ));
        assert!(matches!(
            decide(&p, ToolKind::Execute, bash("cargo test")),
            Decision::Ask { .. }
        ));
        assert!(matches!(
            decide(&p, ToolKind::Write, json!({"path": "Cargo.lock"})),
            Decision::Deny { .. }
        ));
        let s = Policy::new(Autonomy::Supervised).with_rules(rules);
        assert_eq!(
            decide(&s, ToolKind::Execute, bash("git commit -m x")),
            Decision::Allow
        );
    }

    #[test]
    fn session_grants() {
        let mut p = Policy::new(Autonomy::Supervised);
        assert!(matches!(
            decide(&p, ToolKind::Execute, bash("cargo fmt")),
            Decision::Ask { .. }
        ));
        let msg = p.grant("bash", ToolKind::Execute, &bash("cargo fmt"), Some(&ws()));
        assert!(msg.contains("`cargo fmt`"), "{msg}");
        assert_eq!(
            decide(&p, ToolKind::Execute, bash("cargo fmt --all")),
            Decision::Allow
        );
        assert!(matches!(
            decide(&p, ToolKind::Execute, bash("cargo add x")),
            Decision::Ask { .. }
        ));
        let msg = p.grant(
            "bash",
            ToolKind::Execute,
            &bash("rm -rf build"),
            Some(&ws()),
        );
        assert!(msg.contains("no session grant"), "{msg}");
        assert!(matches!(
            decide(&p, ToolKind::Execute, bash("rm -rf build")),
            Decision::Ask { .. }
        ));
        p.grant("edit_file", ToolKind::Write, &json!({}), None);
        assert_eq!(
            decide(&p, ToolKind::Write, json!({"path": "x"})),
            Decision::Allow
        );
    }

    #[test]
    fn budget_makes_everything_ask() {
        let mut p = Policy::new(Autonomy::FullAuto).with_budget(2);
        let now = Instant::now();
        p.record_action(ToolKind::Execute, now);
        p.record_action(ToolKind::Read, now);
        assert_eq!(
            p.decide("bash", ToolKind::Execute, &bash("ls"), Some(&ws()), now),
            Decision::Allow
        );
        p.record_action(ToolKind::Write, now);
        match p.decide("bash", ToolKind::Execute, &bash("ls"), Some(&ws()), now) {
            Decision::Ask { reason } => assert!(
                reason.contains("2 writes and commands per hour"),
                "{reason}"
            ),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn refusals_for_the_command_line_door() {
        let p = Policy::new(Autonomy::Supervised);
        assert!(p.refusal("bash", &bash("rm -rf ~"), Some(&ws())).is_some());
        assert!(p.refusal("bash", &bash("curl x"), Some(&ws())).is_none());
        assert!(p.refusal("read_file", &json!({}), Some(&ws())).is_none());
    }
}
