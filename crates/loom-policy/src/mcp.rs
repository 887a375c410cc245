//! Deciding about calls to tools of Model Context Protocol servers.
//!
//! An MCP tool is a program Loom cannot look into: its name, description and annotations
//! are whatever the server says. So such calls are their own category, judged by name:
//! a configured `deny` refuses in every mode; a configured `allow` runs without asking in
//! every mode (read-only included: it is the person's explicit word); otherwise supervised
//! mode asks (with "always for this tool", remembered for the session), full-auto runs and
//! read-only refuses. A `readOnlyHint` from the server is shown in the reason, never
//! trusted on its own.

use std::collections::{BTreeMap, BTreeSet};

use super::call::{Assessment, CallIntent};
use super::commands::Risk;
use super::{Autonomy, Decision};

/// The allow and deny lists of one server, as configured.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct ServerRules {
    allow: Vec<String>,
    deny: Vec<String>,
}

/// Rules for MCP tools, per server.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct McpRules {
    servers: BTreeMap<String, ServerRules>,
}

/// What a rule says about one tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpRule {
    /// Run it without asking.
    Allow,
    /// Never run it.
    Deny,
}

/// Whether the configured entry `entry` of server `server` names `tool`: the tool's bare
/// name, its full name (`mcp__SERVER__TOOL`), `*` for every tool, or a prefix ending in `*`.
fn names(entry: &str, server: &str, tool: &str) -> bool {
    let prefix = format!("mcp__{server}__");
    let entry = entry.strip_prefix(&prefix).unwrap_or(entry);
    match entry.strip_suffix('*') {
        Some(start) => tool.starts_with(start),
        None => entry == tool,
    }
}

impl McpRules {
    /// Rules from each server's `(name, allow, deny)`.
    pub fn new<'a>(
        servers: impl IntoIterator<Item = (&'a str, &'a [String], &'a [String])>,
    ) -> McpRules {
        McpRules {
            servers: servers
                .into_iter()
                .map(|(name, allow, deny)| {
                    (
                        name.to_string(),
                        ServerRules {
                            allow: allow.to_vec(),
                            deny: deny.to_vec(),
                        },
                    )
                })
                .collect(),
        }
    }

    /// The rule for `tool` of `server`, if any; deny wins.
    pub fn rule(&self, server: &str, tool: &str) -> Option<McpRule> {
        let rules = self.servers.get(server)?;
        if rules.deny.iter().any(|d| names(d, server, tool)) {
            Some(McpRule::Deny)
        } else if rules.allow.iter().any(|a| names(a, server, tool)) {
            Some(McpRule::Allow)
        } else {
            None
        }
    }
}

/// The MCP part of a session's policy: the configured rules and the tools a person
/// allowed for the rest of the session.
#[derive(Debug, Clone, Default)]
pub struct McpPolicy {
    rules: McpRules,
    granted: BTreeSet<String>,
}

impl McpPolicy {
    /// A policy with these rules and no grants.
    pub fn new(rules: McpRules) -> McpPolicy {
        McpPolicy {
            rules,
            granted: BTreeSet::new(),
        }
    }

    /// Decide about a call to the MCP tool `name` described by `intent`.
    pub fn decide(
        &self,
        name: &str,
        intent: &CallIntent,
        autonomy: Autonomy,
    ) -> (Decision, Assessment) {
        let Some(m) = intent.as_mcp() else {
            let reason = format!("{name} calls an MCP tool but did not say which");
            return (
                Decision::Deny {
                    reason: reason.clone(),
                },
                Assessment::plain(Risk::High, reason),
            );
        };
        let hint = if m.read_only_hint {
            " (the server marks it read-only, which Loom does not take on trust)"
        } else {
            ""
        };
        let mut assessment = Assessment::plain(
            Risk::Medium,
            format!(
                "a tool of the MCP server `{}`: Loom cannot see what it does{hint}",
                m.server
            ),
        );
        let how_to_allow = format!(
            "allow it with `allow = [\"{}\"]` in [mcp_servers.{}]",
            m.tool, m.server
        );
        let decision = match self.rules.rule(&m.server, &m.tool) {
            Some(McpRule::Deny) => Decision::Deny {
                reason: format!(
                    "{name} is denied by the configuration of [mcp_servers.{}]",
                    m.server
                ),
            },
            Some(McpRule::Allow) => Decision::Allow,
            None => match autonomy {
                Autonomy::Plan => Decision::Deny {
                    reason: super::plan_mode_refusal(
                        name,
                        &format!(
                            "MCP tools run only when the configuration allows them ({how_to_allow})"
                        ),
                    ),
                },
                Autonomy::ReadOnly => Decision::Deny {
                    reason: format!(
                        "{name} was refused: read-only mode runs MCP tools only when the \
                         configuration allows them ({how_to_allow})"
                    ),
                },
                Autonomy::FullAuto => Decision::Allow,
                Autonomy::Supervised if self.granted.contains(name) => Decision::Allow,
                Autonomy::Supervised => {
                    assessment.grant = Some(vec![vec![name.to_string()]]);
                    Decision::Ask {
                        reason: format!("MCP tools are approved before they run ({how_to_allow})"),
                    }
                }
            },
        };
        (decision, assessment)
    }

    /// Remember "always for this tool" for the tool the assessment offered; returns what
    /// was granted, in words for the person.
    pub fn grant(&mut self, assessment: &Assessment) -> String {
        let names: Vec<String> = assessment
            .grant
            .iter()
            .flatten()
            .flatten()
            .cloned()
            .collect();
        if names.is_empty() {
            return "Approved once.".into();
        }
        let shown = names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ");
        self.granted.extend(names);
        format!("{shown} will run without asking for the rest of this session.")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{McpIntent, Policy, ToolKind};
    use std::time::Instant;

    fn call(server: &str, tool: &str, read_only: bool) -> CallIntent {
        CallIntent::calls_mcp(McpIntent {
            server: server.into(),
            tool: tool.into(),
            read_only_hint: read_only,
            summary: String::new(),
        })
    }

    fn decide(p: &Policy, server: &str, tool: &str) -> Decision {
        let name = format!("mcp__{server}__{tool}");
        p.decide(&name, &call(server, tool, false), None, Instant::now())
            .decision
    }

    fn rules() -> McpRules {
        let allow = ["status".to_string(), "mcp__git__log".to_string()];
        let deny = ["push".to_string(), "*".to_string()];
        let git_deny = ["push".to_string(), "reset_*".to_string()];
        McpRules::new([
            ("git", &allow[..], &git_deny[..]),
            ("shell", &[][..], &deny[..]),
        ])
    }

    #[test]
    fn each_mode_without_rules() {
        let s = Policy::new(Autonomy::Supervised);
        assert!(matches!(decide(&s, "x", "t"), Decision::Ask { .. }));
        let f = Policy::new(Autonomy::FullAuto);
        assert_eq!(decide(&f, "x", "t"), Decision::Allow);
        let r = Policy::new(Autonomy::ReadOnly);
        match decide(&r, "x", "t") {
            Decision::Deny { reason } => {
                assert!(reason.contains("allow = [\"t\"]"), "{reason}");
                assert!(reason.contains("[mcp_servers.x]"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn deny_beats_allow_in_every_mode_and_allow_opens_even_read_only() {
        for mode in [Autonomy::ReadOnly, Autonomy::Supervised, Autonomy::FullAuto] {
            let p = Policy::new(mode).with_mcp_rules(rules());
            assert_eq!(decide(&p, "git", "status"), Decision::Allow, "{mode}");
            assert_eq!(decide(&p, "git", "log"), Decision::Allow, "full names too");
            assert!(matches!(decide(&p, "git", "push"), Decision::Deny { .. }));
            assert!(matches!(
                decide(&p, "git", "reset_hard"),
                Decision::Deny { .. }
            ));
            assert!(matches!(
                decide(&p, "shell", "anything"),
                Decision::Deny { .. }
            ));
        }
        let p = Policy::new(Autonomy::Supervised).with_mcp_rules(rules());
        assert!(
            matches!(decide(&p, "other", "status"), Decision::Ask { .. }),
            "a rule of one server does not reach another's tool of the same name"
        );
    }

    /// The server's readOnlyHint is shown, never trusted: supervised still asks.
    #[test]
    fn read_only_hint_is_shown_not_trusted() {
        let p = Policy::new(Autonomy::Supervised);
        let r = p.decide("mcp__x__get", &call("x", "get", true), None, Instant::now());
        assert!(matches!(r.decision, Decision::Ask { .. }));
        assert!(
            r.assessment.reason.contains("marks it read-only"),
            "{}",
            r.assessment.reason
        );
        let ro = Policy::new(Autonomy::ReadOnly);
        let r = ro.decide("mcp__x__get", &call("x", "get", true), None, Instant::now());
        assert!(matches!(r.decision, Decision::Deny { .. }));
    }

    #[test]
    fn always_for_this_tool_covers_that_tool_only() {
        let mut p = Policy::new(Autonomy::Supervised);
        let r = p.decide("mcp__x__a", &call("x", "a", false), None, Instant::now());
        assert_eq!(r.assessment.grant_label().as_deref(), Some("mcp__x__a"));
        let msg = p.grant(ToolKind::Mcp, &r.assessment);
        assert!(msg.contains("`mcp__x__a` will run without asking"), "{msg}");
        assert_eq!(decide(&p, "x", "a"), Decision::Allow);
        assert!(matches!(decide(&p, "x", "b"), Decision::Ask { .. }));
    }

    #[test]
    fn headless_refuses_what_would_ask() {
        let p = Policy::new(Autonomy::Supervised).headless();
        match decide(&p, "x", "t") {
            Decision::Deny { reason } => assert!(reason.contains("headless"), "{reason}"),
            other => panic!("{other:?}"),
        }
    }

    /// Since the intent is an enum (issue 27) an MCP call without its MCP part cannot be
    /// built; one that arrives in JSON (a recorded event) is refused as it is read.
    #[test]
    fn a_call_without_its_mcp_part_is_refused() {
        let err = serde_json::from_value::<CallIntent>(serde_json::json!({"kind": "mcp"}))
            .unwrap_err()
            .to_string();
        assert!(err.contains("an MCP call without `mcp`"), "{err}");
        let whole = serde_json::to_value(call("x", "t", false)).unwrap();
        assert_eq!(whole["kind"], "mcp");
        assert_eq!(
            serde_json::from_value::<CallIntent>(whole).unwrap(),
            call("x", "t", false)
        );
    }
}
