//! The `[hooks]` table: the post-tools hooks (`[[hooks.post_tools]]`) and the hooks of
//! Claude Code's events (`[[hooks.PreToolUse]]`, ...), each a command with an optional
//! matcher on tool names and a time limit.

use serde::{Deserialize, Serialize};

use super::{ConfigError, overlay_tables};

/// The `[hooks]` table.
#[derive(Debug, Default, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HooksConfig {
    /// Commands run after a batch of tool calls changed files.
    pub post_tools: Option<Vec<HookConfig>>,
    /// Commands run when a session starts (their output is context for the model).
    #[serde(rename = "SessionStart")]
    pub session_start: Option<Vec<EventHookConfig>>,
    /// Commands run on each prompt before it is sent (they may block it).
    #[serde(rename = "UserPromptSubmit")]
    pub user_prompt_submit: Option<Vec<EventHookConfig>>,
    /// Commands run before a tool call (they may refuse it or ask the person).
    #[serde(rename = "PreToolUse")]
    pub pre_tool_use: Option<Vec<EventHookConfig>>,
    /// Commands run after a tool call, with its result.
    #[serde(rename = "PostToolUse")]
    pub post_tool_use: Option<Vec<EventHookConfig>>,
    /// Commands run when the model ends its turn (they may make it go on).
    #[serde(rename = "Stop")]
    pub stop: Option<Vec<EventHookConfig>>,
    /// Commands run when Loom waits for the person (an approval).
    #[serde(rename = "Notification")]
    pub notification: Option<Vec<EventHookConfig>>,
}

/// One `[[hooks.post_tools]]` entry.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HookConfig {
    /// The command, run with `sh -c` in the workspace.
    pub command: String,
    /// Only run when a changed file matches this glob (e.g. `*.rs`).
    pub glob: Option<String>,
    /// Time limit in seconds (default 60).
    pub timeout_secs: Option<u64>,
}

/// One `[[hooks.EVENT]]` entry of a Claude Code event.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct EventHookConfig {
    /// A regex on tool names (whole name; Claude's names match Loom's equivalents); none,
    /// empty or `*` matches every tool. Only tool events use it.
    pub matcher: Option<String>,
    /// The command, run with `sh -c` in the workspace, the event as JSON on its stdin.
    pub command: String,
    /// Time limit in seconds (default 60).
    pub timeout_secs: Option<u64>,
}

/// One of Claude Code's hook events that Loom runs hooks on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum HookEvent {
    /// A session starts (or resumes): stdout of exit 0 is context for the model.
    SessionStart,
    /// The person sent a prompt, before the model sees it: exit 2 blocks it.
    UserPromptSubmit,
    /// A tool call is about to run: exit 2 or a deny refuses it.
    PreToolUse,
    /// A tool call ran: exit 2 or a block sends the reason to the model.
    PostToolUse,
    /// The model ended its turn: exit 2 or a block makes it go on.
    Stop,
    /// Loom waits for the person (an approval).
    Notification,
}

impl HookEvent {
    /// Its name in config and in the hook's input (`hook_event_name`).
    pub fn name(self) -> &'static str {
        match self {
            HookEvent::SessionStart => "SessionStart",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::Stop => "Stop",
            HookEvent::Notification => "Notification",
        }
    }

    /// Whether the event concerns a tool call (so its hooks' matchers apply).
    pub fn has_tool(self) -> bool {
        matches!(self, HookEvent::PreToolUse | HookEvent::PostToolUse)
    }
}

/// The regex of a hook's `matcher`: `None` (every tool) for empty or `*`, else one the
/// whole tool name must match.
pub fn matcher_regex(pattern: &str) -> Result<Option<regex::Regex>, regex::Error> {
    let pattern = pattern.trim();
    if pattern.is_empty() || pattern == "*" {
        return Ok(None);
    }
    regex::Regex::new(&format!("^(?:{pattern})$")).map(Some)
}

/// The default time limit of a hook, in seconds.
pub const DEFAULT_TIMEOUT_SECS: u64 = 60;

impl HooksConfig {
    /// `b`'s hooks after `a`'s, event by event (hooks add up across layers).
    pub(super) fn overlay(a: HooksConfig, b: HooksConfig) -> HooksConfig {
        fn both<T>(x: Option<Vec<T>>, y: Option<Vec<T>>) -> Option<Vec<T>> {
            overlay_tables(x, y, |mut x, y| {
                x.extend(y);
                x
            })
        }
        HooksConfig {
            post_tools: both(a.post_tools, b.post_tools),
            session_start: both(a.session_start, b.session_start),
            user_prompt_submit: both(a.user_prompt_submit, b.user_prompt_submit),
            pre_tool_use: both(a.pre_tool_use, b.pre_tool_use),
            post_tool_use: both(a.post_tool_use, b.post_tool_use),
            stop: both(a.stop, b.stop),
            notification: both(a.notification, b.notification),
        }
    }

    /// The event hooks of this table, each with its event, in event order.
    pub fn events(&self) -> Vec<(HookEvent, &EventHookConfig)> {
        let lists = [
            (HookEvent::SessionStart, &self.session_start),
            (HookEvent::UserPromptSubmit, &self.user_prompt_submit),
            (HookEvent::PreToolUse, &self.pre_tool_use),
            (HookEvent::PostToolUse, &self.post_tool_use),
            (HookEvent::Stop, &self.stop),
            (HookEvent::Notification, &self.notification),
        ];
        lists
            .into_iter()
            .flat_map(|(event, list)| list.iter().flatten().map(move |h| (event, h)))
            .collect()
    }
}

/// The event hooks in force (after trust), by event.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventHooks {
    /// Each hook with its event, in the order configured.
    pub entries: Vec<(HookEvent, EventHookConfig)>,
}

impl EventHooks {
    /// The event hooks of the merged `[hooks]` table.
    pub fn from_config(hooks: Option<&HooksConfig>) -> EventHooks {
        EventHooks {
            entries: hooks
                .map(|h| {
                    h.events()
                        .into_iter()
                        .map(|(e, c)| (e, c.clone()))
                        .collect()
                })
                .unwrap_or_default(),
        }
    }
}

/// The hooks' globs and matchers: valid, or the first that is not, with where it is.
pub(super) fn check(hooks: Option<&HooksConfig>) -> Result<(), ConfigError> {
    let Some(hooks) = hooks else {
        return Ok(());
    };
    if let Some(bad) = hooks
        .post_tools
        .iter()
        .flatten()
        .find_map(|h| h.glob.as_ref().filter(|g| globset::Glob::new(g).is_err()))
    {
        return Err(ConfigError::Invalid {
            source_name: "hooks.post_tools".into(),
            message: format!("bad glob {bad:?}"),
        });
    }
    for (event, hook) in hooks.events() {
        let invalid = |message: String| ConfigError::Invalid {
            source_name: format!("hooks.{}", event.name()),
            message,
        };
        if hook.command.trim().is_empty() {
            return Err(invalid(
                "`command` is empty; give the command to run".into(),
            ));
        }
        if let Some(m) = &hook.matcher
            && let Err(e) = matcher_regex(m)
        {
            return Err(invalid(format!(
                "matcher {m:?} is not a valid regex ({e}); write e.g. \"Bash|write_file\""
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<HooksConfig, String> {
        toml::from_str(text).map_err(|e| e.to_string())
    }

    #[test]
    fn every_event_parses_under_claude_codes_name_and_layers_add_up() {
        let user = parse(
            "[[PreToolUse]]\nmatcher = \"Bash\"\ncommand = \"a\"\ntimeout_secs = 5\n\
             [[Stop]]\ncommand = \"s\"\n",
        )
        .unwrap();
        let project =
            parse("[[PreToolUse]]\ncommand = \"b\"\n[[Notification]]\ncommand = \"n\"\n").unwrap();
        let merged = HooksConfig::overlay(user, project);
        let events: Vec<(&str, &str)> = merged
            .events()
            .into_iter()
            .map(|(e, h)| (e.name(), h.command.as_str()))
            .collect();
        assert_eq!(
            events,
            [
                ("PreToolUse", "a"),
                ("PreToolUse", "b"),
                ("Stop", "s"),
                ("Notification", "n")
            ]
        );
    }

    #[test]
    fn an_unknown_event_or_key_is_an_error() {
        assert!(parse("[[PreToolUze]]\ncommand = \"a\"\n").is_err());
        assert!(parse("[[PreToolUse]]\ncommand = \"a\"\ntimeout = 3\n").is_err());
    }

    #[test]
    fn a_bad_matcher_or_empty_command_says_where_and_what_to_write() {
        let bad = parse("[[PreToolUse]]\nmatcher = \"Bash(\"\ncommand = \"a\"\n").unwrap();
        let e = check(Some(&bad)).unwrap_err().to_string();
        assert!(
            e.starts_with("hooks.PreToolUse:") && e.contains("not a valid regex"),
            "{e}"
        );
        let empty = parse("[[Stop]]\ncommand = \" \"\n").unwrap();
        let e = check(Some(&empty)).unwrap_err().to_string();
        assert!(e.contains("hooks.Stop") && e.contains("empty"), "{e}");
    }
}
