//! Issue 24: a provider's 400 that names a tool's schema ("Invalid schema for function
//! 'read_file': …") is explained in plain words — which tool, what the provider said —
//! and the turn is asked again once without that tool, which stays out of the session's
//! later requests.

use loom::agent::{AgentEvent, ApprovalAnswer, UserOp};

use crate::agent::{run_turn, start_agent};
use crate::support::{self, ScriptedServer};

fn tool_names(request: &serde_json::Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_schema_refusal_drops_that_tool_retries_once_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let said = "Invalid schema for function 'read_file': In context=(), 'additionalProperties' \
                is required to be supplied and to be false.";
    let server = ScriptedServer::start(vec![
        support::status(400, said, None),
        support::text_reply("hello"),
        support::text_reply("again"),
    ])
    .await;
    let mut agent = start_agent(dir.path(), &server, "supervised");
    let events = run_turn(&mut agent, "hi", |_, _| ApprovalAnswer::Approve).await;
    let notices: Vec<&String> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Notice { message } => Some(message),
            _ => None,
        })
        .collect();
    assert!(
        notices.iter().any(
            |m| m.contains("refused the input schema of the `read_file` tool") && m.contains(said)
        ),
        "{notices:?}"
    );
    assert!(
        !events.iter().any(|e| matches!(e, AgentEvent::Error { .. })),
        "{events:?}"
    );
    let requests = server.requests();
    assert!(tool_names(&requests[0]).contains(&"read_file".to_string()));
    let retried = tool_names(&requests[1]);
    assert!(!retried.contains(&"read_file".to_string()), "{retried:?}");
    assert!(
        retried.contains(&"bash".to_string()),
        "only that tool is left out: {retried:?}"
    );
    assert_eq!(
        requests[1]["messages"], requests[0]["messages"],
        "the same turn, asked again"
    );
    run_turn(&mut agent, "once more", |_, _| ApprovalAnswer::Approve).await;
    let later = tool_names(&server.requests()[2]);
    assert!(!later.contains(&"read_file".to_string()), "{later:?}");
    let _ = agent.ops.send(UserOp::Shutdown);
}

/// A 400 that blames no tool is not retried here (it fails as before), and a second
/// refusal after the retry fails the turn: one retry, not a loop.
#[tokio::test(flavor = "multi_thread")]
async fn only_one_retry_and_only_for_a_named_tool() {
    let dir = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![
        support::status(400, "Invalid schema for function 'read_file': bad", None),
        support::status(400, "Invalid schema for function 'bash': bad too", None),
        support::text_reply("never"),
    ])
    .await;
    let mut agent = start_agent(dir.path(), &server, "supervised");
    let events = run_turn(&mut agent, "hi", |_, _| ApprovalAnswer::Approve).await;
    assert_eq!(server.requests().len(), 2, "{events:?}");
    assert!(
        events
            .iter()
            .any(|e| matches!(e, AgentEvent::Error { message } if message.contains("bad too"))),
        "{events:?}"
    );
    let _ = agent.ops.send(UserOp::Shutdown);
}

/// `strict_tools = true` in the config: `loom exec` sends each tool that has a strict form
/// with `strict: true`, every property required and `additionalProperties: false`; without
/// it, no tool is strict.
#[tokio::test(flavor = "multi_thread")]
async fn strict_tools_in_the_config_sends_strict_functions() {
    for (config, strict) in [("strict_tools = true\n", true), ("", false)] {
        let dir = tempfile::tempdir().unwrap();
        let conf = dir.path().join(".home/.config/loom");
        std::fs::create_dir_all(&conf).unwrap();
        std::fs::write(conf.join("config.toml"), config).unwrap();
        let server = ScriptedServer::start(vec![support::text_reply("hi")]).await;
        let run = crate::exec::exec(dir.path(), &server, "supervised", "hi").await;
        assert_eq!(run.code, 0, "{}", run.stderr);
        let request = &server.requests()[0];
        let read = request["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["function"]["name"] == "read_file")
            .unwrap();
        assert_eq!(read["function"]["strict"] == true, strict, "{read}");
        let params = &read["function"]["parameters"];
        assert_eq!(params["additionalProperties"] == false, strict, "{params}");
        if strict {
            assert_eq!(
                params["required"],
                serde_json::json!(["path", "line_range", "max_bytes"])
            );
        }
    }
}
