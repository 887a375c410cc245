//! The `--json` lines are the `Serialize` of the event types: each event's line has the
//! type and keys docs/exec.md lists (the form the hand-written schema before it printed),
//! new keys only where the doc names them.

use serde_json::{Value, json};

use super::{SessionInfo, to_json};
use crate::agent::{AgentEvent, DecidedBy, TurnEnd};
use crate::llm::Usage;
use crate::tools::{CallIntent, ToolResult};

/// `actual` has every key of `expected` with its value, and no other key but `added`.
fn assert_line(actual: &Value, expected: &Value, added: &[&str]) {
    let (a, e) = (actual.as_object().unwrap(), expected.as_object().unwrap());
    for (key, value) in e {
        assert_eq!(a.get(key), Some(value), "key {key:?} of {actual}");
    }
    let extra: Vec<&str> = a
        .keys()
        .map(String::as_str)
        .filter(|k| !e.contains_key(*k))
        .collect();
    assert_eq!(extra, added, "new keys of {actual}");
}

fn line(event: &AgentEvent) -> Value {
    to_json(event).unwrap_or_else(|| panic!("{event:?} is printed"))
}

#[test]
fn session_started_has_its_keys_and_a_notice_only_when_there_is_one() {
    let mut info = SessionInfo {
        session_id: "s1".into(),
        model: "m".into(),
        workspace: "/w".into(),
        provider: "configured".into(),
        sandbox: "off".into(),
        notice: None,
    };
    let expected = json!({
        "type": "session_started", "session_id": "s1", "model": "m", "workspace": "/w",
        "provider": "configured", "sandbox": "off",
    });
    assert_line(&serde_json::to_value(&info).unwrap(), &expected, &[]);
    info.notice = Some("no sandbox".into());
    let mut with_notice = expected;
    with_notice["notice"] = json!("no sandbox");
    assert_line(&serde_json::to_value(&info).unwrap(), &with_notice, &[]);
}

#[test]
fn a_tool_call_names_what_it_touches_and_leaves_touches_out_without_an_intent() {
    let call = AgentEvent::ToolCall {
        id: "c1".into(),
        name: "read_file".into(),
        arguments: json!({"path": "a.txt"}),
        intent: Some(Box::new(CallIntent::reads(["a.txt".to_string()]))),
    };
    assert_line(
        &line(&call),
        &json!({
            "type": "tool_call", "id": "c1", "name": "read_file",
            "arguments": {"path": "a.txt"}, "touches": {"kind": "read", "reads": ["a.txt"]},
        }),
        &[],
    );
    let invalid = AgentEvent::ToolCall {
        id: "c2".into(),
        name: "read_file".into(),
        arguments: json!("{not json"),
        intent: None,
    };
    assert_line(
        &line(&invalid),
        &json!({"type": "tool_call", "id": "c2", "name": "read_file", "arguments": "{not json"}),
        &[],
    );
}

#[test]
fn an_approval_says_its_decision_in_a_word() {
    for (approved, word, reason) in [
        (true, "approved", None),
        (false, "denied", Some("read-only".to_string())),
    ] {
        let event = AgentEvent::Approval {
            id: "c1".into(),
            approved,
            by: DecidedBy::Policy,
            reason: reason.clone(),
        };
        assert_line(
            &line(&event),
            &json!({
                "type": "approval", "id": "c1", "decision": word, "by": "policy",
                "reason": reason,
            }),
            &[],
        );
    }
}

#[test]
fn a_tool_result_has_every_key_even_empty_ones() {
    let ok = AgentEvent::ToolResult {
        id: "c1".into(),
        name: "bash".into(),
        result: ToolResult::ok("hi"),
        duration_ms: 7,
    };
    assert_line(
        &line(&ok),
        &json!({
            "type": "tool_result", "id": "c1", "name": "bash", "success": true,
            "output": "hi", "error": null, "data": null, "files_changed": [], "duration_ms": 7,
        }),
        &[],
    );
    let mut failed = ToolResult::err("no such file");
    failed.data = Some(json!({"exit_code": 1}));
    failed.files_changed = vec!["a.txt".into()];
    let failed = AgentEvent::ToolResult {
        id: "c2".into(),
        name: "bash".into(),
        result: failed,
        duration_ms: 0,
    };
    assert_line(
        &line(&failed),
        &json!({
            "type": "tool_result", "id": "c2", "name": "bash", "success": false,
            "output": "", "error": "no such file", "data": {"exit_code": 1},
            "files_changed": ["a.txt"], "duration_ms": 0,
        }),
        &[],
    );
}

#[test]
fn a_completed_turn_has_its_end_and_all_usage_keys_and_the_unsent_messages() {
    let event = AgentEvent::TurnComplete {
        usage: Usage {
            prompt_tokens: 10,
            completion_tokens: 2,
            estimated: false,
            cached_prompt_tokens: 0,
        },
        end: TurnEnd::RoundCap,
        unsent: Vec::new(),
        unsent_images: Vec::new(),
    };
    assert_line(
        &line(&event),
        &json!({
            "type": "turn_completed", "end": "round_cap",
            "usage": {"prompt_tokens": 10, "completion_tokens": 2, "estimated": false},
        }),
        &["unsent"],
    );
}

#[test]
fn the_other_printed_events_have_their_keys() {
    let cases = [
        (
            AgentEvent::AssistantMessage { text: "hi".into() },
            json!({"type": "assistant_message", "text": "hi"}),
        ),
        (
            AgentEvent::Retry {
                attempt: 2,
                max_attempts: 3,
                reason: "503".into(),
                wait_ms: 500,
            },
            json!({
                "type": "retry", "attempt": 2, "max_attempts": 3, "reason": "503",
                "wait_ms": 500,
            }),
        ),
        (
            AgentEvent::Error {
                message: "boom".into(),
            },
            json!({"type": "error", "message": "boom"}),
        ),
        (
            AgentEvent::HookResult {
                name: "auto-commit".into(),
                success: true,
                output: "ok".into(),
                duration_ms: 3,
            },
            json!({
                "type": "hook_result", "name": "auto-commit", "success": true,
                "output": "ok", "duration_ms": 3,
            }),
        ),
        (
            AgentEvent::Notice {
                message: "note".into(),
            },
            json!({"type": "notice", "message": "note"}),
        ),
        (
            AgentEvent::Compacted {
                before_tokens: 900,
                after_tokens: 300,
                trimmed_results: 2,
                trimmed_calls: 1,
                summarized_messages: 4,
                summary_failed: None,
            },
            json!({
                "type": "compacted", "before_tokens": 900, "after_tokens": 300,
                "trimmed_results": 2, "trimmed_calls": 1, "summarized_messages": 4,
                "summary_failed": null,
            }),
        ),
        (
            AgentEvent::McpStatus {
                servers: Vec::new(),
            },
            json!({"type": "mcp_status", "servers": []}),
        ),
        (
            AgentEvent::ContextWindow {
                tokens: 32_768,
                source: "config".into(),
            },
            json!({"type": "context_window", "tokens": 32_768, "source": "config"}),
        ),
    ];
    for (event, expected) in cases {
        assert_line(&line(&event), &expected, &[]);
    }
}

#[test]
fn a_sub_agents_event_is_printed_as_itself_with_its_nearest_delegate_call() {
    let message = AgentEvent::AssistantMessage {
        text: "done".into(),
    };
    let once = AgentEvent::SubAgent {
        parent_id: "d1".into(),
        event: Box::new(message.clone()),
    };
    assert_line(
        &line(&once),
        &json!({"type": "assistant_message", "text": "done", "parent_id": "d1"}),
        &[],
    );
    let twice = AgentEvent::SubAgent {
        parent_id: "d1".into(),
        event: Box::new(AgentEvent::SubAgent {
            parent_id: "d2".into(),
            event: Box::new(message),
        }),
    };
    assert_line(
        &line(&twice),
        &json!({"type": "assistant_message", "text": "done", "parent_id": "d2"}),
        &[],
    );
}

#[test]
fn deltas_and_state_changes_are_left_out_also_from_a_sub_agent() {
    let delta = AgentEvent::TextDelta { text: "h".into() };
    assert_eq!(to_json(&delta), None);
    let wrapped = AgentEvent::SubAgent {
        parent_id: "d1".into(),
        event: Box::new(delta),
    };
    assert_eq!(to_json(&wrapped), None);
    assert_eq!(
        to_json(&AgentEvent::StateChanged {
            phase: crate::agent::Phase::Idle
        }),
        None
    );
}

#[test]
fn the_events_read_back_from_their_lines() {
    let events = [
        AgentEvent::Approval {
            id: "c1".into(),
            approved: false,
            by: DecidedBy::User,
            reason: Some("no".into()),
        },
        AgentEvent::ToolResult {
            id: "c1".into(),
            name: "bash".into(),
            result: ToolResult::err("exit 1"),
            duration_ms: 4,
        },
        AgentEvent::TurnComplete {
            usage: Usage::default(),
            end: TurnEnd::Done,
            unsent: vec!["later".into()],
            unsent_images: Vec::new(),
        },
    ];
    for event in events {
        let text = serde_json::to_string(&event).unwrap();
        let back: AgentEvent = serde_json::from_str(&text).unwrap();
        assert_eq!(back, event, "{text}");
    }
}
