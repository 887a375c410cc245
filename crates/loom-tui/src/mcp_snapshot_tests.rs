//! Screens of the MCP client: the approval of an MCP tool call, a server's failure as it
//! reaches the transcript and the status line, and `/mcp`.

use serde_json::json;

use super::snapshot_tests::{app, ev, text};
use crate::protocol::events::ApprovalAnswer;
use crate::protocol::events::{AgentEvent, ApprovalPreview, Phase, UserOp};
use crate::protocol::mcp::{ServerState, ServerStatus};

fn servers() -> Vec<ServerStatus> {
    vec![
        ServerStatus {
            name: "time".into(),
            transport: "stdio".into(),
            target: "uvx mcp-server-time".into(),
            state: ServerState::Ready,
            tools: vec![
                "mcp__time__get_current_time".into(),
                "mcp__time__convert_time".into(),
            ],
            notices: vec!["simplified `convert_time`: inlined its `$ref` definitions".into()],
            stderr: Vec::new(),
        },
        ServerStatus {
            name: "db".into(),
            transport: "stdio".into(),
            target: "db-mcp --readonly".into(),
            state: ServerState::Failed {
                reason: "it exited with status 3 before it answered (the MCP handshake failed: connection closed)".into(),
                restarts_on_next_call: false,
            },
            tools: Vec::new(),
            notices: Vec::new(),
            stderr: vec!["error: DATABASE_URL is not set".into()],
        },
    ]
}

#[test]
fn mcp_tool_approval() {
    let (mut app, mut rx) = app("dark");
    ev(&mut app, AgentEvent::McpStatus { servers: servers() });
    ev(
        &mut app,
        AgentEvent::StateChanged {
            phase: Phase::AwaitingApproval,
        },
    );
    ev(
        &mut app,
        AgentEvent::ToolCall {
            id: "m1".into(),
            name: "mcp__time__convert_time".into(),
            arguments: json!({"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}),
            intent: None,
        },
    );
    ev(
        &mut app,
        AgentEvent::ApprovalRequested {
            id: "m1".into(),
            name: "mcp__time__convert_time".into(),
            reason: "MCP tools are approved before they run (allow it with `allow = [\"convert_time\"]` in [mcp_servers.time])".into(),
            preview: ApprovalPreview::McpTool {
                server: "time".into(),
                tool: "convert_time".into(),
                arguments: serde_json::to_string_pretty(&json!({"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"})).unwrap(),
                read_only_hint: true,
                grant_offered: true,
            },
        },
    );
    let screen = text(&mut app, 120, 30);
    assert!(
        screen.contains("MCP server db: failed"),
        "the failure reached the transcript"
    );
    insta::assert_snapshot!(screen);
    super::snapshot_tests::answer_key(&mut app, 'a');
    let sent = std::iter::from_fn(|| rx.try_recv().ok()).collect::<Vec<_>>();
    assert!(
        sent.contains(&UserOp::Approve {
            id: "m1".into(),
            answer: ApprovalAnswer::ApproveForSession
        }),
        "{sent:?}"
    );
}

/// Issue 24: `/mcp` listed every tool name, so a server with many tools pushed a failed
/// server's reason off screen. The failure comes first, the rest are counts.
#[test]
fn slash_mcp_shows_the_failure_first_however_many_tools_others_have() {
    let (mut app, _rx) = app("dark");
    let mut all = servers();
    all.insert(
        0,
        ServerStatus {
            name: "github".into(),
            transport: "http".into(),
            target: "https://api.githubcopilot.com/mcp/".into(),
            state: ServerState::Ready,
            tools: (0..90)
                .map(|i| format!("mcp__github__a_rather_long_tool_name_{i}"))
                .collect(),
            notices: Vec::new(),
            stderr: Vec::new(),
        },
    );
    ev(&mut app, AgentEvent::McpStatus { servers: all });
    app.command("mcp");
    let screen = text(&mut app, 140, 30);
    assert!(screen.contains("DATABASE_URL is not set"), "{screen}");
    assert!(!screen.contains("a_rather_long_tool_name_"), "{screen}");
    insta::assert_snapshot!(screen);
}

/// `/mcp NAME` lists that server's tools and notes.
#[test]
fn slash_mcp_name_lists_that_servers_tools() {
    let (mut app, _rx) = app("dark");
    ev(&mut app, AgentEvent::McpStatus { servers: servers() });
    app.command("mcp time");
    let screen = text(&mut app, 140, 30);
    assert!(screen.contains("mcp__time__convert_time"), "{screen}");
    insta::assert_snapshot!(screen);
}

#[test]
fn slash_mcp_lists_servers_tools_notes_and_stderr() {
    let (mut app, _rx) = app("dark");
    ev(&mut app, AgentEvent::McpStatus { servers: servers() });
    app.command("mcp");
    let screen = text(&mut app, 140, 30);
    assert!(
        screen.lines().last().unwrap().contains("mcp 1/2 failed"),
        "the status line names the failure"
    );
    insta::assert_snapshot!(screen);
}
