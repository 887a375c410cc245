//! Approval rules: persistent `[[approval.rules]]` from config, and grants a person gives
//! during a session ("allow `cargo test` for this session").
//!
//! Both match parsed commands by their program prefix (`cargo test`, `npm run build`),
//! never by raw string, so `cargo test; rm -rf src` is not covered by a grant for
//! `cargo test`. Deny wins over ask, ask over allow. Session grants are never given or
//! applied for high-risk or forbidden commands.

use std::collections::BTreeSet;

use globset::{Glob, GlobMatcher};
use serde::Deserialize;

use super::commands::{Classification, Risk};

/// What a rule does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleAction {
    /// Run without asking.
    Allow,
    /// Always ask, even in full-auto.
    Ask,
    /// Never run.
    Deny,
}

/// A rule as written in config.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleConfig {
    /// `allow`, `ask` or `deny`.
    pub action: RuleAction,
    /// A command prefix, e.g. `cargo test` or `git push`.
    pub command: Option<String>,
    /// A glob of workspace paths for file writes, e.g. `src/**` or `*.lock`.
    pub path: Option<String>,
}

#[derive(Debug, Clone)]
enum Matcher {
    Command(Vec<String>),
    Path(GlobMatcher),
}

/// One compiled rule.
#[derive(Debug, Clone)]
pub struct Rule {
    action: RuleAction,
    matcher: Matcher,
    label: String,
}

/// The rules in force.
#[derive(Debug, Clone, Default)]
pub struct Rules {
    rules: Vec<Rule>,
}

impl Rules {
    /// Compile rules from config; an invalid rule is an error naming it.
    pub fn compile(configs: &[RuleConfig]) -> Result<Rules, String> {
        let mut rules = Vec::new();
        for (i, c) in configs.iter().enumerate() {
            let n = i + 1;
            let matcher = match (&c.command, &c.path) {
                (Some(cmd), None) => {
                    let words: Vec<String> = cmd.split_whitespace().map(str::to_string).collect();
                    if words.is_empty() {
                        return Err(format!("approval rule {n}: `command` is empty"));
                    }
                    Matcher::Command(words)
                }
                (None, Some(glob)) => Matcher::Path(
                    Glob::new(glob)
                        .map_err(|e| format!("approval rule {n}: bad path glob {glob:?}: {e}"))?
                        .compile_matcher(),
                ),
                _ => {
                    return Err(format!(
                        "approval rule {n}: give exactly one of `command` (a command prefix) or \
                         `path` (a glob for file writes)"
                    ));
                }
            };
            let label = match (&c.command, &c.path) {
                (Some(cmd), _) => format!("{:?} command {cmd:?}", c.action),
                (_, Some(p)) => format!("{:?} path {p:?}", c.action),
                _ => String::new(),
            }
            .to_lowercase();
            rules.push(Rule {
                action: c.action,
                matcher,
                label,
            });
        }
        Ok(Rules { rules })
    }

    /// The rule outcome for a command: deny if any segment matches a deny rule; ask if any
    /// matches an ask rule; allow if every segment that would need approval (medium and
    /// above, never forbidden) matches an allow rule.
    pub fn for_command(&self, c: &Classification) -> Option<(RuleAction, String)> {
        let matching = |action: RuleAction, seg_words: &[String]| {
            self.rules.iter().find(|r| {
                r.action == action
                    && matches!(&r.matcher, Matcher::Command(words) if seg_words.starts_with(words))
            })
        };
        for action in [RuleAction::Deny, RuleAction::Ask] {
            for seg in &c.segments {
                if let Some(rule) = matching(action, &seg.argv) {
                    return Some((action, rule.label.clone()));
                }
            }
        }
        let needing: Vec<_> = c
            .segments
            .iter()
            .filter(|s| s.level >= Risk::Medium)
            .collect();
        if needing.is_empty() || needing.iter().any(|s| s.level == Risk::Forbidden) {
            return None;
        }
        let mut label = None;
        for seg in needing {
            let rule = matching(RuleAction::Allow, &seg.argv)?;
            label = Some(rule.label.clone());
        }
        label.map(|l| (RuleAction::Allow, l))
    }

    /// The rule outcome for writing the workspace-relative `path`.
    pub fn for_path(&self, path: &str) -> Option<(RuleAction, String)> {
        for action in [RuleAction::Deny, RuleAction::Ask, RuleAction::Allow] {
            if let Some(rule) = self.rules.iter().find(|r| {
                r.action == action && matches!(&r.matcher, Matcher::Path(g) if g.is_match(path))
            }) {
                return Some((action, rule.label.clone()));
            }
        }
        None
    }
}

/// What a person allowed for the rest of the session.
#[derive(Debug, Clone, Default)]
pub struct Grants {
    writes: bool,
    prefixes: BTreeSet<Vec<String>>,
}

impl Grants {
    /// Stop asking for file edits.
    pub fn grant_writes(&mut self) {
        self.writes = true;
    }

    /// Whether edits were granted.
    pub fn writes(&self) -> bool {
        self.writes
    }

    /// The prefixes a grant for this command would record, or `None` when no grant may be
    /// offered (high risk or worse, or nothing that needs one).
    pub fn offer(c: &Classification) -> Option<Vec<Vec<String>>> {
        if c.level >= Risk::High
            || c.segments
                .iter()
                .any(|s| s.level == Risk::Medium && !s.grantable)
        {
            return None;
        }
        let prefixes: Vec<Vec<String>> = c
            .segments
            .iter()
            .filter(|s| s.level == Risk::Medium && !s.prefix.is_empty())
            .map(|s| s.prefix.clone())
            .collect();
        (!prefixes.is_empty()).then_some(prefixes)
    }

    /// Record a grant for this command; returns the prefixes granted.
    pub fn grant_command(&mut self, c: &Classification) -> Option<Vec<Vec<String>>> {
        let prefixes = Grants::offer(c)?;
        self.grant_prefixes(&prefixes);
        Some(prefixes)
    }

    /// Record grants for these prefixes (as [`Grants::offer`] computed them).
    pub fn grant_prefixes(&mut self, prefixes: &[Vec<String>]) {
        self.prefixes.extend(prefixes.iter().cloned());
    }

    /// Whether grants cover this command: nothing high or worse, and every medium segment's
    /// prefix was granted.
    pub fn covers(&self, c: &Classification) -> bool {
        c.level < Risk::High
            && c.segments
                .iter()
                .filter(|s| s.level == Risk::Medium)
                .all(|s| s.grantable && self.prefixes.contains(&s.prefix))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::{CommandContext, classify};
    use std::path::PathBuf;

    fn c(cmd: &str) -> Classification {
        let ctx = CommandContext {
            workspace: PathBuf::from("/w"),
            cwd: PathBuf::from("/w"),
            home: None,
            protected: Vec::new(),
        };
        classify(cmd, &ctx)
    }

    fn rule(action: RuleAction, command: Option<&str>, path: Option<&str>) -> RuleConfig {
        RuleConfig {
            action,
            command: command.map(str::to_string),
            path: path.map(str::to_string),
        }
    }

    #[test]
    fn deny_wins_over_allow() {
        let rules = Rules::compile(&[
            rule(RuleAction::Allow, Some("git"), None),
            rule(RuleAction::Deny, Some("git push"), None),
        ])
        .unwrap();
        assert_eq!(
            rules.for_command(&c("git push origin")).unwrap().0,
            RuleAction::Deny
        );
        assert_eq!(
            rules.for_command(&c("git commit -m x")).unwrap().0,
            RuleAction::Allow
        );
        assert_eq!(
            rules.for_command(&c("git add . && git push")).unwrap().0,
            RuleAction::Deny
        );
    }

    #[test]
    fn allow_needs_every_risky_segment_covered() {
        let rules = Rules::compile(&[rule(RuleAction::Allow, Some("npm install"), None)]).unwrap();
        assert!(rules.for_command(&c("npm install")).is_some());
        assert!(rules.for_command(&c("npm install && touch x")).is_none());
        assert!(rules.for_command(&c("ls && npm install")).is_some());
        assert!(rules.for_command(&c("rm -rf / && npm install")).is_none());
    }

    #[test]
    fn path_rules_and_bad_rules() {
        let rules = Rules::compile(&[
            rule(RuleAction::Deny, None, Some("secrets/**")),
            rule(RuleAction::Allow, None, Some("docs/**")),
        ])
        .unwrap();
        assert_eq!(
            rules.for_path("secrets/key.pem").unwrap().0,
            RuleAction::Deny
        );
        assert_eq!(rules.for_path("docs/a.md").unwrap().0, RuleAction::Allow);
        assert!(rules.for_path("src/a.rs").is_none());
        assert!(Rules::compile(&[rule(RuleAction::Allow, None, None)]).is_err());
        assert!(Rules::compile(&[rule(RuleAction::Allow, Some("x"), Some("y"))]).is_err());
        assert!(Rules::compile(&[rule(RuleAction::Allow, Some("  "), None)]).is_err());
    }

    #[test]
    fn grants_match_parsed_prefixes_not_strings() {
        let mut g = Grants::default();
        assert_eq!(
            g.grant_command(&c("cargo fmt")),
            Some(vec![vec!["cargo".to_string(), "fmt".to_string()]])
        );
        assert!(g.covers(&c("cargo fmt --all")));
        assert!(g.covers(&c("timeout 30 cargo fmt")));
        assert!(!g.covers(&c("cargo fmt; touch x")));
        assert!(!g.covers(&c("cargo add serde")));
        assert!(!g.covers(&c("cargo fmt && rm -rf src")));
    }

    #[test]
    fn no_grants_for_high_risk() {
        let mut g = Grants::default();
        assert!(Grants::offer(&c("git push")).is_none());
        assert!(g.grant_command(&c("rm -rf build")).is_none());
        assert!(!g.covers(&c("rm -rf build")));
        assert!(
            Grants::offer(&c("ls")).is_none(),
            "nothing to grant for read-only commands"
        );
    }
}
