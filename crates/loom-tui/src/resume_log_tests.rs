//! A resumed session shows what the live screen showed, from the file's log beside the
//! conversation: how long each call ran, which were refused and why, the tokens spent,
//! and an interrupted answer as the answer and the "interrupted" notice (not the mark the
//! model reads).

use std::path::Path;

use serde_json::json;

use super::snapshot_tests::{app, text};
use crate::protocol::events::PERSON_SAID;
use crate::protocol::message::{INTERRUPTED_MARK, Message, ToolCall};
use crate::protocol::usage::Usage;
use loom_core::session::{self, Record, SessionLog};

fn call(id: &str, name: &str, args: serde_json::Value) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: args.to_string(),
    }
}

fn result(id: &str, name: &str, content: serde_json::Value) -> Record {
    Record::Message {
        message: Message::Tool {
            tool_call_id: id.into(),
            name: name.into(),
            content: content.to_string(),
        },
    }
}

fn refusal(id: &str, by: &str, reason: &str) -> Record {
    Record::Approval {
        id: id.into(),
        approved: false,
        by: by.into(),
        reason: Some(reason.into()),
    }
}

fn ran(id: &str, name: &str, success: bool, duration_ms: u64) -> Record {
    Record::ToolResult {
        id: id.into(),
        name: name.into(),
        success,
        files_changed: vec![],
        duration_ms,
    }
}

/// A session as the agent writes it: a prompt, three calls (one ran for 1.2 s, one the
/// policy refused, one the person refused saying why), an answer the person interrupted.
fn write_session(dir: &Path) -> std::path::PathBuf {
    let mut log = SessionLog::create(dir, "logged", Path::new("/w"), "m").unwrap();
    let stdout = "test result: ok\n";
    let refused = json!({"success": false, "output": "", "error": "refused"});
    let records = vec![
        Record::Message {
            message: Message::user("run the tests and tidy up"),
        },
        Record::Message {
            message: Message::Assistant {
                content: "Running them.".into(),
                tool_calls: vec![
                    call("c1", "bash", json!({"command": "cargo test"})),
                    call(
                        "c2",
                        "write_file",
                        json!({"path": "/etc/motd", "content": "x"}),
                    ),
                    call("c3", "delete_file", json!({"path": "old.rs"})),
                ],
            },
        },
        refusal("c2", "policy", "/etc/motd is outside the workspace"),
        refusal(
            "c3",
            "user",
            &format!("{PERSON_SAID}keep old.rs, the docs link to it"),
        ),
        ran("c1", "bash", true, 1234),
        ran("c2", "write_file", false, 0),
        ran("c3", "delete_file", false, 0),
        result(
            "c1",
            "bash",
            json!({"success": true, "output": stdout,
                "data": {"stdout": stdout, "stderr": "", "exit_code": 0, "duration_ms": 1234}}),
        ),
        result("c2", "write_file", refused.clone()),
        result("c3", "delete_file", refused),
        Record::Usage {
            usage: Usage {
                prompt_tokens: 12_000,
                completion_tokens: 400,
                ..Usage::default()
            },
        },
        Record::Message {
            message: Message::Assistant {
                content: format!("The tests pass; now the half-done{INTERRUPTED_MARK}"),
                tool_calls: vec![],
            },
        },
        Record::TurnEnd {
            end: "interrupted".into(),
        },
    ];
    for r in &records {
        log.append(r).unwrap();
    }
    log.path().to_path_buf()
}

#[test]
fn a_resumed_session_shows_its_calls_refusals_tokens_and_interruption_as_they_were() {
    let dir = tempfile::tempdir().unwrap();
    let loaded = session::load(&write_session(dir.path())).unwrap();
    let (mut app, rx) = app("dark");
    std::mem::forget(rx);
    app.start_over(&loaded);
    let screen = text(&mut app, 120, 30);
    assert!(screen.contains("1.2s"), "the call's duration:\n{screen}");
    assert!(!screen.contains("0ms"), "no made-up duration:\n{screen}");
    assert_eq!(
        screen.matches('⊘').count(),
        4,
        "two refused rows, pane and chat:\n{screen}"
    );
    assert!(
        screen.contains("refused: /etc/motd is outside the workspace"),
        "{screen}"
    );
    assert!(screen.contains("you refused it: keep old.rs"), "{screen}");
    assert!(screen.contains("12k tok"), "the tokens spent:\n{screen}");
    assert!(screen.contains("the half-done"), "{screen}");
    assert!(screen.contains("ℹ interrupted"), "{screen}");
    assert!(!screen.contains("[interrupted by the user]"), "{screen}");
    insta::assert_snapshot!(screen);
}

/// Live, too, the chat says why a call was refused: the policy's reason as a warning, and
/// what the person typed after "why not?" (before, only the policy's was shown); a person
/// who said nothing is not quoted.
#[test]
fn a_refusal_says_why_in_the_chat_live() {
    use crate::protocol::events::{AgentEvent, DecidedBy};
    let (mut app, _rx) = app("dark");
    for (id, by, reason) in [
        ("c1", DecidedBy::Policy, "outside the workspace".to_string()),
        ("c2", DecidedBy::User, format!("{PERSON_SAID}not that file")),
        (
            "c3",
            DecidedBy::User,
            "the user denied this call".to_string(),
        ),
    ] {
        app.on_agent_event(AgentEvent::ToolCall {
            id: id.into(),
            name: "delete_file".into(),
            arguments: json!({"path": "a.rs"}),
            intent: None,
        });
        app.on_agent_event(AgentEvent::Approval {
            id: id.into(),
            approved: false,
            by,
            reason: Some(reason),
        });
    }
    let screen = text(&mut app, 100, 24);
    assert!(
        screen.contains("refused: outside the workspace"),
        "{screen}"
    );
    assert!(screen.contains("you refused it: not that file"), "{screen}");
    assert!(!screen.contains("said:"), "{screen}");
    assert_eq!(screen.matches("you refused it").count(), 1, "{screen}");
}
