//! The client's file system (`fs/read_text_file`, `fs/write_text_file`): offered in
//! `initialize`, Loom's reads see the editor's unsaved buffers and its writes are pushed to
//! them; not offered, or failing, the disk is used as before.

use std::collections::HashMap;
use std::path::PathBuf;

use agent_client_protocol::v1::schema::StopReason;

use super::Acp;
use crate::support::{self, Reply, ScriptedServer};

fn read(id: &'static str, path: &str) -> Reply {
    let args = serde_json::json!({ "path": path }).to_string();
    support::calls_openai(&[(id, "read_file", &args)])
}

fn edit(id: &'static str, path: &str, old: &str, new: &str) -> Reply {
    let args = serde_json::json!({"path": path, "old_str": old, "new_str": new}).to_string();
    support::calls_openai(&[(id, "edit_file", &args)])
}

/// What the model was told for its call `id` in request `n` to the model.
fn told(server: &ScriptedServer, n: usize, id: &str) -> String {
    support::tool_messages(&server.requests()[n])
        .into_iter()
        .find(|(call, _)| call == id)
        .map(|(_, result)| result.to_string())
        .unwrap_or_else(|| panic!("no result for {id} in request {n}"))
}

/// A workspace with `a.txt` on disk; its canonical path (the one Loom sends).
fn workspace(on_disk: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), on_disk).unwrap();
    let path = std::fs::canonicalize(dir.path().join("a.txt")).unwrap();
    (dir, path)
}

#[tokio::test]
async fn with_file_access_read_file_returns_the_editors_unsaved_text() {
    let (dir, a) = workspace("disk text\n");
    let server =
        ScriptedServer::start(vec![read("r1", "a.txt"), support::text_reply("Read.")]).await;
    let buffers = HashMap::from([(a.clone(), "unsaved line\n".to_string())]);
    let acp = Acp::start_offering_fs(dir.path(), &server, &[], buffers).await;
    let session = acp.new_session(dir.path()).await;
    let r = acp.prompt(&session, "read a.txt").await.expect("prompt");
    assert_eq!(r.stop_reason, StopReason::EndTurn);
    let result = told(&server, 1, "r1");
    assert!(result.contains("unsaved line"), "{result}");
    assert!(
        !result.contains("disk text"),
        "the disk's text is not shown: {result}"
    );
    acp.seen(|s| {
        assert_eq!(s.fs_reads, std::slice::from_ref(&a));
        assert!(s.fs_writes.is_empty(), "a read writes nothing");
    });
    acp.close().await;
}

#[tokio::test]
async fn an_edit_applies_to_the_buffer_and_the_client_receives_the_new_text() {
    let (dir, a) = workspace("alpha\nbeta\n");
    let server = ScriptedServer::start(vec![
        edit("e1", "a.txt", "beta", "BETA"),
        support::text_reply("Edited."),
    ])
    .await;
    // The editor has a line the disk does not have yet.
    let buffers = HashMap::from([(a.clone(), "alpha\nbeta\ngamma\n".to_string())]);
    let acp = Acp::start_offering_fs(dir.path(), &server, &["allow_once"], buffers).await;
    let session = acp.new_session(dir.path()).await;
    let r = acp.prompt(&session, "edit a.txt").await.expect("prompt");
    assert_eq!(r.stop_reason, StopReason::EndTurn);
    let written = "alpha\nBETA\ngamma\n";
    assert_eq!(
        std::fs::read_to_string(&a).unwrap(),
        written,
        "{}",
        told(&server, 1, "e1")
    );
    acp.seen(|s| {
        assert!(
            s.fs_reads.contains(&a),
            "the buffer was read: {:?}",
            s.fs_reads
        );
        assert_eq!(s.fs_writes, [(a.clone(), written.to_string())]);
    });
    assert!(
        told(&server, 1, "e1").contains("unsaved"),
        "the model is told the editor's unsaved text was edited"
    );
    // The undo journal recorded the disk as it was, so undo restores the saved file.
    let r = acp.prompt(&session, "/undo").await.expect("undo");
    assert_eq!(r.stop_reason, StopReason::EndTurn);
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "alpha\nbeta\n");
    acp.close().await;
}

/// A model given `apply_patch` (Codex-trained models are) patches the editor's unsaved
/// text too: a patch over the saved file would otherwise push text to the editor that
/// drops the person's unsaved lines (regression: apply_patch read the disk only).
#[tokio::test]
async fn a_patch_applies_to_the_buffer_and_keeps_the_editors_unsaved_lines() {
    let (dir, a) = workspace("alpha\nbeta\n");
    let config = dir.path().join(".home/.config/loom");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("config.toml"), "edit_tool = \"apply_patch\"\n").unwrap();
    let patch =
        "*** Begin Patch\n*** Update File: a.txt\n@@\n alpha\n-beta\n+BETA\n*** End Patch\n";
    let args = serde_json::json!({ "input": patch }).to_string();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("p1", "apply_patch", &args)]),
        support::text_reply("Patched."),
    ])
    .await;
    let buffers = HashMap::from([(a.clone(), "alpha\nbeta\ngamma\n".to_string())]);
    let acp = Acp::start_offering_fs(dir.path(), &server, &["allow_once"], buffers).await;
    let session = acp.new_session(dir.path()).await;
    let r = acp.prompt(&session, "patch a.txt").await.expect("prompt");
    assert_eq!(r.stop_reason, StopReason::EndTurn);
    let written = "alpha\nBETA\ngamma\n";
    assert_eq!(
        std::fs::read_to_string(&a).unwrap(),
        written,
        "{}",
        told(&server, 1, "p1")
    );
    acp.seen(|s| assert_eq!(s.fs_writes, [(a.clone(), written.to_string())]));
    assert!(
        told(&server, 1, "p1").contains("unsaved"),
        "the model is told the editor's unsaved text was patched"
    );
    acp.close().await;
}

#[tokio::test]
async fn without_file_access_nothing_is_asked_of_the_client() {
    let (dir, a) = workspace("alpha\nbeta\n");
    let server = ScriptedServer::start(vec![
        read("r1", "a.txt"),
        edit("e1", "a.txt", "beta", "BETA"),
        support::text_reply("Done."),
    ])
    .await;
    let acp = Acp::start(dir.path(), &server, &["allow_once"]).await;
    let session = acp.new_session(dir.path()).await;
    acp.prompt(&session, "read and edit").await.expect("prompt");
    assert!(told(&server, 1, "r1").contains("beta"));
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "alpha\nBETA\n");
    acp.seen(|s| {
        assert!(s.fs_reads.is_empty(), "{:?}", s.fs_reads);
        assert!(s.fs_writes.is_empty(), "{:?}", s.fs_writes);
    });
    acp.close().await;
}

#[tokio::test]
async fn a_client_error_falls_back_to_the_disk_and_outside_paths_are_never_asked() {
    let (dir, a) = workspace("on disk\n");
    std::fs::write(dir.path().join("b.txt"), "b on disk\n").unwrap();
    let server = ScriptedServer::start(vec![
        read("r1", "a.txt"),
        read("r2", "../outside.txt"),
        edit("e1", "b.txt", "b on", "B on"),
        support::text_reply("Done."),
    ])
    .await;
    // The client has no buffer of a.txt or b.txt: its reads fail.
    let acp = Acp::start_offering_fs(dir.path(), &server, &["allow_once"], HashMap::new()).await;
    let session = acp.new_session(dir.path()).await;
    let r = acp.prompt(&session, "read").await.expect("prompt");
    assert_eq!(r.stop_reason, StopReason::EndTurn);
    assert!(
        told(&server, 1, "r1").contains("on disk"),
        "{}",
        told(&server, 1, "r1")
    );
    let outside = told(&server, 2, "r2");
    assert!(outside.contains("error"), "{outside}");
    let b = std::fs::canonicalize(dir.path().join("b.txt")).unwrap();
    assert_eq!(std::fs::read_to_string(&b).unwrap(), "B on disk\n");
    acp.seen(|s| {
        assert_eq!(
            s.fs_reads,
            [a.clone(), b.clone()],
            "only workspace files are asked"
        );
        assert_eq!(s.fs_writes, [(b.clone(), "B on disk\n".to_string())]);
    });
    acp.close().await;
}
