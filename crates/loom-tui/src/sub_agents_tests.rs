//! Sub-agents on screen: their calls nest under the delegate row, their approval prompts
//! name them, and the person's answer goes back wrapped for the sub-agent.

use serde_json::json;

use super::snapshot_tests::{app, text};
use crate::protocol::events::{AgentEvent, ApprovalAnswer, ApprovalPreview, UserOp};
use crate::protocol::tool_result::ToolResult;

fn call(id: &str, name: &str, args: serde_json::Value) -> AgentEvent {
    AgentEvent::ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: args,
        intent: None,
    }
}

fn sub(parent: &str, event: AgentEvent) -> AgentEvent {
    AgentEvent::SubAgent {
        parent_id: parent.into(),
        event: Box::new(event),
    }
}

#[test]
fn sub_agent_calls_nest_under_their_delegate_row() {
    let (mut app, _rx) = app("dark");
    app.on_agent_event(call("d1", "delegate", json!({"task": "read the docs"})));
    app.on_agent_event(call("d2", "delegate", json!({"task": "read the code"})));
    app.on_agent_event(sub("d1", call("c1", "read_file", json!({"path": "a.md"}))));
    app.on_agent_event(sub("d2", call("c1", "read_file", json!({"path": "b.rs"}))));
    app.on_agent_event(sub(
        "d1",
        call("c9", "delegate", json!({"task": "list docs"})),
    ));
    app.on_agent_event(sub(
        "d1",
        sub("c9", call("c1", "list_files", json!({"path": "docs"}))),
    ));
    app.on_agent_event(sub(
        "d1",
        AgentEvent::ToolResult {
            id: "c1".into(),
            name: "read_file".into(),
            result: ToolResult::ok("# docs"),
            duration_ms: 3,
        },
    ));
    let ids: Vec<&str> = app.tools.rows.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["d1", "d1/c1", "d1/c9", "d1/c9/c1", "d2", "d2/c1"]);
    assert!(
        app.tools.rows[1].result.is_some(),
        "the result found its nested row"
    );
    assert!(
        app.tools.rows[5].result.is_none(),
        "the same id of another sub-agent is apart"
    );
    insta::assert_snapshot!(text(&mut app, 100, 34));
}

#[test]
fn a_sub_agents_approval_names_it_and_the_answer_is_routed_back() {
    let (mut app, mut rx) = app("dark");
    app.on_agent_event(call("d1", "delegate", json!({"task": "tidy"})));
    app.on_agent_event(sub(
        "d1",
        sub("d7", call("w1", "bash", json!({"command": "cargo fmt"}))),
    ));
    app.on_agent_event(sub(
        "d1",
        sub(
            "d7",
            AgentEvent::ApprovalRequested {
                id: "w1".into(),
                name: "bash".into(),
                reason: "formatting changes files".into(),
                preview: ApprovalPreview::Command {
                    command: "cargo fmt".into(),
                    cwd: ".".into(),
                    risk: crate::protocol::risk::Risk::Medium,
                    risk_reason: "rewrites source files".into(),
                    grant_offered: false,
                    grant_prefix: None,
                    network: false,
                    outside_sandbox: false,
                },
            },
        ),
    ));
    let screen = text(&mut app, 120, 30);
    assert!(
        screen.contains("rewrites source files — asked by the sub-agent of d7"),
        "{screen}"
    );
    super::snapshot_tests::answer_key(&mut app, 'y');
    let mut sent = Vec::new();
    while let Ok(op) = rx.try_recv() {
        sent.push(op);
    }
    let expected = UserOp::ToSubAgent {
        parent_id: "d1".into(),
        inner: Box::new(UserOp::ToSubAgent {
            parent_id: "d7".into(),
            inner: Box::new(UserOp::Approve {
                id: "w1".into(),
                answer: ApprovalAnswer::Approve,
            }),
        }),
    };
    assert!(sent.contains(&expected), "{sent:#?}");
}
