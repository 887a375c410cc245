//! A command's `allowed-tools`, as a filter on its turn: only the listed tools are offered
//! to the model, a call of any other is refused, and `Bash(git add:*)` (a prefix) or
//! `Bash(npm test)` (an exact command) lets `bash` run only matching commands. It only
//! narrows: every call it lets through is still ruled on by the policy in the current
//! approval mode, so nothing is approved that would not have been without it. Claude
//! Code's tool names (`Bash`, `Read`, `Edit`, …) are read as Loom's.

use serde_json::Value;
use std::collections::BTreeSet;

/// What a command's turn may use.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolFilter {
    /// Loom's names of the tools offered.
    tools: BTreeSet<String>,
    /// The commands `bash` may run (`None`: any, when `bash` is listed).
    bash: Option<Vec<BashRule>>,
}

/// Which commands one `Bash(…)` entry allows.
#[derive(Debug, Clone, PartialEq, Eq)]
enum BashRule {
    /// `Bash(git add:*)`: commands starting with `git add`.
    Prefix(String),
    /// `Bash(npm test)`: exactly this command.
    Exact(String),
}

/// Loom's name for a tool of Claude Code's.
fn loom_name(name: &str) -> Option<&'static str> {
    Some(match name {
        "Bash" | "bash" => "bash",
        "Read" | "read_file" => "read_file",
        "Write" | "write_file" => "write_file",
        "Edit" | "MultiEdit" | "edit_file" => "edit_file",
        "Glob" | "LS" | "list_files" => "list_files",
        "Grep" | "search_files" => "search_files",
        "WebFetch" | "web_fetch" => "web_fetch",
        "WebSearch" | "web_search" => "web_search",
        "apply_patch" => "apply_patch",
        "http_request" => "http_request",
        "browser" => "browser",
        "oracle" => "oracle",
        _ => return None,
    })
}

impl ToolFilter {
    /// The filter of an `allowed-tools` list, and the entries it could not use (left out,
    /// so the turn gets fewer tools, never more).
    pub fn parse(entries: &[String]) -> (ToolFilter, Vec<String>) {
        let mut filter = ToolFilter::default();
        let mut problems = Vec::new();
        let mut any_bash = false;
        let mut rules = Vec::new();
        for entry in entries {
            let (tool, pattern) = match entry.split_once('(') {
                Some((t, rest)) => (t.trim(), rest.strip_suffix(')').map(str::trim)),
                None => (entry.trim(), None),
            };
            let Some(name) = loom_name(tool) else {
                problems.push(format!(
                    "allowed-tools: `{entry}` is no tool Loom knows; left out"
                ));
                continue;
            };
            filter.tools.insert(name.to_string());
            match (name, pattern) {
                ("bash", None) => any_bash = true,
                ("bash", Some(p)) => match p.strip_suffix(":*") {
                    Some(prefix) => rules.push(BashRule::Prefix(prefix.trim().to_string())),
                    None => rules.push(BashRule::Exact(p.to_string())),
                },
                (_, Some(p)) => problems.push(format!(
                    "allowed-tools: the pattern `{p}` of {tool} is not enforced (only Bash \
                     patterns are); {tool} is offered, still under the policy"
                )),
                (_, None) => {}
            }
        }
        if !any_bash && !rules.is_empty() {
            filter.bash = Some(rules);
        }
        (filter, problems)
    }

    /// Whether the tool `name` is offered at all.
    pub fn offers(&self, name: &str) -> bool {
        self.tools.contains(name)
    }

    /// Whether a call of `name` with `args` may go on to the policy, or why not.
    pub fn check(&self, name: &str, args: &Value) -> Result<(), String> {
        if !self.offers(name) {
            let list: Vec<&str> = self.tools.iter().map(String::as_str).collect();
            return Err(format!(
                "this command's allowed-tools do not include {name} (only: {})",
                if list.is_empty() {
                    "none".into()
                } else {
                    list.join(", ")
                }
            ));
        }
        let (Some(rules), "bash") = (&self.bash, name) else {
            return Ok(());
        };
        let command = args["command"].as_str().unwrap_or("").trim();
        let fits = |r: &BashRule| match r {
            BashRule::Exact(c) => command == c,
            BashRule::Prefix(p) => {
                command == p
                    || command
                        .strip_prefix(p.as_str())
                        .is_some_and(|rest| rest.starts_with(char::is_whitespace))
            }
        };
        if rules.iter().any(fits) && !chains(command) {
            return Ok(());
        }
        Err(format!(
            "this command's allowed-tools let bash run only: {}",
            rules
                .iter()
                .map(|r| match r {
                    BashRule::Exact(c) => c.clone(),
                    BashRule::Prefix(p) => format!("{p} …"),
                })
                .collect::<Vec<_>>()
                .join(", ")
        ))
    }
}

/// Whether `command` holds more than one command (a `;`, `&&`, `|`, a substitution or a
/// newline), so a prefix would not bound what it runs.
fn chains(command: &str) -> bool {
    command.contains([';', '&', '|', '\n', '`', '>', '<']) || command.contains("$(")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn filter(entries: &[&str]) -> (ToolFilter, Vec<String>) {
        ToolFilter::parse(&entries.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn claude_names_become_looms_and_only_those_are_offered() {
        let (f, problems) = filter(&["Read", "Grep", "Bash(git status:*)"]);
        assert!(problems.is_empty(), "{problems:?}");
        assert!(f.offers("read_file") && f.offers("search_files") && f.offers("bash"));
        assert!(!f.offers("write_file"));
        let refused = f.check("write_file", &json!({})).unwrap_err();
        assert!(refused.contains("do not include write_file"), "{refused}");
    }

    #[test]
    fn bash_patterns_bound_the_commands() {
        let (f, _) = filter(&["Bash(git add:*)", "Bash(npm test)"]);
        assert!(
            f.check("bash", &json!({"command": "git add src/a.rs"}))
                .is_ok()
        );
        assert!(f.check("bash", &json!({"command": "npm test"})).is_ok());
        for bad in [
            "git addx",
            "npm test --all",
            "git add a; rm -rf /",
            "git add $(rm x)",
            "rm -rf /",
        ] {
            assert!(f.check("bash", &json!({"command": bad})).is_err(), "{bad}");
        }
        let (any, _) = filter(&["Bash", "Bash(ls:*)"]);
        assert!(any.check("bash", &json!({"command": "rm x"})).is_ok());
    }

    #[test]
    fn unknown_tools_narrow_further_and_are_reported() {
        let (f, problems) = filter(&["Teleport", "Read(src/**)"]);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(f.offers("read_file"));
        assert!(!f.offers("bash"));
        let (none, _) = filter(&["Teleport"]);
        assert!(
            none.check("read_file", &json!({}))
                .unwrap_err()
                .contains("only: none")
        );
    }
}
