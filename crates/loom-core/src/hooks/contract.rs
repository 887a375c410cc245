//! Claude Code's hook contract: what a hook gets on stdin and how its exit code, stdout
//! and stderr are read. Pure, so every rule is tested without a process.
//!
//! Exit 0 goes on (its stdout, as JSON, may decide; as plain text it is context for the
//! model after `SessionStart` and `UserPromptSubmit`); exit 2 blocks with stderr as the
//! reason; any other exit, a timeout or a hook that cannot run is a non-blocking error the
//! person is shown.

use serde_json::{Map, Value};

use super::event::HookEvent;

/// What a hook run did to the event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Nothing to say: go on.
    Proceed,
    /// `permissionDecision: "allow"` (or `decision: "approve"`): skip asking where Loom's
    /// policy would allow a grant. Never runs what the policy refuses.
    Allow,
    /// `permissionDecision: "ask"`: the person is asked, whatever the policy said.
    Ask(String),
    /// Exit 2, `decision: "block"`, `permissionDecision: "deny"` or `continue: false`.
    Block(String),
    /// A non-blocking error, for the person.
    Failed(String),
}

/// How one hook run ended, as read by the contract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// What it does to the event.
    pub effect: Effect,
    /// Context for the model (`additionalContext`, or plain stdout where it counts).
    pub context: Option<String>,
    /// A message for the person (`systemMessage`).
    pub system_message: Option<String>,
}

/// How a hook process ended.
#[derive(Debug, Clone, Copy)]
pub struct Ended<'a> {
    /// Its exit code (`None`: killed by a signal).
    pub exit_code: Option<i32>,
    /// Whether its time limit passed.
    pub timed_out: bool,
    /// Its stdout.
    pub stdout: &'a str,
    /// Its stderr.
    pub stderr: &'a str,
}

impl Reply {
    fn effect(effect: Effect) -> Reply {
        Reply {
            effect,
            context: None,
            system_message: None,
        }
    }
}

/// The hook's stdin: the event's own `fields` after the fields every event has.
pub fn input(event: HookEvent, common: &Common, fields: Map<String, Value>) -> Value {
    let mut map = Map::new();
    map.insert("session_id".into(), Value::from(common.session_id.clone()));
    map.insert(
        "transcript_path".into(),
        Value::from(common.transcript_path.clone().unwrap_or_default()),
    );
    map.insert("cwd".into(), Value::from(common.cwd.clone()));
    map.insert("hook_event_name".into(), Value::from(event.name()));
    map.extend(fields);
    Value::Object(map)
}

/// What every event's input carries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Common {
    /// The session's id (empty when the session is not recorded).
    pub session_id: String,
    /// The session's transcript file, when recorded.
    pub transcript_path: Option<String>,
    /// The workspace.
    pub cwd: String,
}

/// Read how a hook of `event` ended.
pub fn interpret(event: HookEvent, ended: Ended<'_>) -> Reply {
    let stderr = ended.stderr.trim();
    if ended.timed_out {
        return Reply::effect(Effect::Failed("timed out; the hook was killed".into()));
    }
    match ended.exit_code {
        Some(0) => {}
        Some(2) => {
            let reason = if stderr.is_empty() {
                format!("blocked by a {} hook (exit 2, no message)", event.name())
            } else {
                stderr.to_string()
            };
            return Reply::effect(Effect::Block(reason));
        }
        Some(code) => {
            return Reply::effect(Effect::Failed(with_output(
                format!("exit code {code}"),
                stderr,
            )));
        }
        None => {
            return Reply::effect(Effect::Failed(with_output(
                "killed by a signal".into(),
                stderr,
            )));
        }
    }
    let stdout = ended.stdout.trim();
    match serde_json::from_str::<Value>(stdout) {
        Ok(Value::Object(json)) => from_json(event, &json),
        _ => Reply {
            effect: Effect::Proceed,
            context: (!stdout.is_empty()
                && matches!(event, HookEvent::SessionStart | HookEvent::UserPromptSubmit))
            .then(|| stdout.to_string()),
            system_message: None,
        },
    }
}

fn with_output(status: String, stderr: &str) -> String {
    if stderr.is_empty() {
        status
    } else {
        format!("{status}: {stderr}")
    }
}

/// The JSON output of an exit-0 hook.
fn from_json(event: HookEvent, json: &Map<String, Value>) -> Reply {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
    let specific = json.get("hookSpecificOutput").and_then(Value::as_object);
    let reason = text(json.get("reason"));
    let blocked = |reason: Option<String>| {
        Effect::Block(reason.unwrap_or_else(|| format!("blocked by a {} hook", event.name())))
    };
    let mut effect = match json.get("decision").and_then(Value::as_str) {
        Some("block") => blocked(reason.clone()),
        Some("approve") if event == HookEvent::PreToolUse => Effect::Allow,
        _ => Effect::Proceed,
    };
    if event == HookEvent::PreToolUse
        && let Some(specific) = specific
    {
        let why = text(specific.get("permissionDecisionReason")).or(reason.clone());
        match specific.get("permissionDecision").and_then(Value::as_str) {
            Some("deny") => effect = blocked(why),
            Some("ask") => {
                effect = Effect::Ask(why.unwrap_or_else(|| "a PreToolUse hook asks".into()))
            }
            Some("allow") => effect = Effect::Allow,
            _ => {}
        }
    }
    // `continue: false` stops what the event would do next; for Stop that is stopping,
    // which happens anyway.
    if json.get("continue").and_then(Value::as_bool) == Some(false) && event != HookEvent::Stop {
        effect = blocked(text(json.get("stopReason")).or(reason));
    }
    Reply {
        effect,
        context: specific
            .and_then(|s| text(s.get("additionalContext")))
            .filter(|c| !c.trim().is_empty()),
        system_message: text(json.get("systemMessage")),
    }
}

#[cfg(test)]
#[path = "contract_tests.rs"]
mod tests;
