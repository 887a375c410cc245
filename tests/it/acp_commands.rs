//! `loom acp`'s custom slash commands end to end (the client of `acp.rs` against the real
//! binary): the workspace's `.loom/commands/*.md` are advertised with their argument hints,
//! a prompt naming one sends its expanded body to the model, and every way a command can
//! fail to start still ends its prompt (an unknown name is an ordinary prompt; a command
//! whose file went away is an error; a cancel is `cancelled`).

use std::path::Path;
use std::time::Duration;

use agent_client_protocol::v1::schema::{
    AvailableCommandInput, CancelNotification, ContentBlock, PromptRequest, SessionUpdate,
    StopReason, TextContent, ToolCallStatus,
};

use crate::acp::{Acp, Seen, agent_text};
use crate::support::{self, Reply, ScriptedServer};

/// A workspace with the custom command `/review` (its argument hint `FILE`).
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let commands = dir.path().join(".loom/commands");
    std::fs::create_dir_all(&commands).unwrap();
    std::fs::write(
        commands.join("review.md"),
        "---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $ARGUMENTS closely.\n",
    )
    .unwrap();
    dir
}

/// The custom commands of the last command list the client was sent, with their hints.
fn advertised(seen: &Seen) -> Vec<(String, String, Option<String>)> {
    let last = seen.updates.iter().rev().find_map(|u| match u {
        SessionUpdate::AvailableCommandsUpdate(c) => Some(c),
        _ => None,
    });
    last.map(|c| {
        c.available_commands
            .iter()
            .map(|c| {
                let hint = c.input.as_ref().map(|i| match i {
                    AvailableCommandInput::Unstructured(u) => u.hint.clone(),
                    _ => String::new(),
                });
                (c.name.clone(), c.description.clone(), hint)
            })
            .collect()
    })
    .unwrap_or_default()
}

/// Wait (at most a minute) until `/review` is advertised.
async fn until_advertised(acp: &Acp) {
    acp.until("the custom commands to be advertised", |s| {
        advertised(s).iter().any(|(n, _, _)| n == "review")
    })
    .await;
}

/// The text of the last user message of a request to the model.
fn last_user_text(request: &serde_json::Value) -> String {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or("")
        .to_string()
}

async fn start(dir: &Path, server: &ScriptedServer) -> (Acp, String) {
    let acp = Acp::start(dir, server, &["allow_once"]).await;
    let session = acp.new_session(dir).await;
    (acp, session)
}

/// `/undo` and the workspace's `/review` (with its description and hint) are advertised,
/// and `/review src/a.rs` sends the expanded body to the model as the turn's prompt.
#[tokio::test]
async fn custom_commands_are_advertised_and_run_with_their_expanded_prompt() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![support::text_reply("Looks fine.")]).await;
    let (acp, session) = start(dir.path(), &server).await;
    until_advertised(&acp).await;
    acp.seen(|s| {
        assert_eq!(
            advertised(s),
            [
                (
                    "undo".into(),
                    "Take back Loom's last file change (as `loom undo`)".into(),
                    None
                ),
                ("review".into(), "Review a file".into(), Some("FILE".into())),
            ]
        );
    });
    let r = acp
        .prompt(&session, "/review src/a.rs")
        .await
        .expect("prompt");
    assert_eq!(r.stop_reason, StopReason::EndTurn);
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(last_user_text(&requests[0]), "Review src/a.rs closely.");
    acp.seen(|s| assert!(agent_text(s).contains("Looks fine.")));
    acp.close().await;
}

/// A `/name` that is no command is an ordinary prompt: sent to the model as written, and
/// the prompt ends with the model's answer.
#[tokio::test]
async fn an_unknown_slash_name_is_sent_as_a_prompt() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![support::text_reply("No such thing.")]).await;
    let (acp, session) = start(dir.path(), &server).await;
    until_advertised(&acp).await;
    let r = acp.prompt(&session, "/nosuch do it").await.expect("prompt");
    assert_eq!(r.stop_reason, StopReason::EndTurn);
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(last_user_text(&requests[0]), "/nosuch do it");
    acp.close().await;
}

/// Regression: a command the agent cannot run (its file was deleted after it was
/// advertised) ends the prompt with the agent's reason instead of leaving it waiting for a
/// turn that never starts; nothing reaches the model.
#[tokio::test]
async fn a_command_that_is_not_sent_ends_its_prompt_with_the_reason() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![]).await;
    let (acp, session) = start(dir.path(), &server).await;
    until_advertised(&acp).await;
    std::fs::remove_file(dir.path().join(".loom/commands/review.md")).unwrap();
    let e = acp
        .prompt(&session, "/review a.rs")
        .await
        .expect_err("the command is refused");
    let data = e.data.map(|d| d.to_string()).unwrap_or_default();
    assert!(data.contains("no custom command /review"), "{data}");
    assert!(server.requests().is_empty());
    acp.close().await;
}

/// A cancel during a command's turn (the model streaming its answer) ends it `cancelled`.
#[tokio::test]
async fn cancel_during_a_commands_turn_ends_it_cancelled() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![Reply::EndlessDeltas("more ".into())]).await;
    let (acp, session) = start(dir.path(), &server).await;
    until_advertised(&acp).await;
    let pending = acp.cx.send_request(PromptRequest::new(
        session.clone(),
        vec![ContentBlock::Text(TextContent::new("/review a.rs"))],
    ));
    acp.until("the command's answer to stream", |s| {
        agent_text(s).contains("more")
    })
    .await;
    acp.cx
        .send_notification(CancelNotification::new(session))
        .unwrap();
    let r = tokio::time::timeout(Duration::from_secs(60), pending.block_task())
        .await
        .expect("the prompt ends after a cancel")
        .expect("prompt");
    assert_eq!(r.stop_reason, StopReason::Cancelled);
    assert_eq!(
        last_user_text(&server.requests()[0]),
        "Review a.rs closely."
    );
    acp.close().await;
}

/// Regression: a cancel while the command is still being expanded (its `` !`command` ``
/// running) stops it before anything is sent, and the prompt ends `cancelled`.
#[tokio::test]
async fn cancel_while_a_command_expands_ends_it_cancelled() {
    let dir = workspace();
    std::fs::write(
        dir.path().join(".loom/commands/slow.md"),
        "Waited: !`sleep 30`\n",
    )
    .unwrap();
    let server = ScriptedServer::start(vec![]).await;
    let (acp, session) = start(dir.path(), &server).await;
    until_advertised(&acp).await;
    let pending = acp.cx.send_request(PromptRequest::new(
        session.clone(),
        vec![ContentBlock::Text(TextContent::new("/slow"))],
    ));
    acp.until("the command's !`sleep` to run", |s| {
        s.updates.iter().any(|u| {
            matches!(u, SessionUpdate::ToolCallUpdate(c)
                if c.fields.status == Some(ToolCallStatus::InProgress))
        })
    })
    .await;
    acp.cx
        .send_notification(CancelNotification::new(session))
        .unwrap();
    let r = tokio::time::timeout(Duration::from_secs(60), pending.block_task())
        .await
        .expect("the prompt ends after a cancel")
        .expect("prompt");
    assert_eq!(r.stop_reason, StopReason::Cancelled);
    assert!(server.requests().is_empty(), "nothing was sent");
    acp.close().await;
}
