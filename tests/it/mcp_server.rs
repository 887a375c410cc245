//! `loom mcp-server` end to end: the real binary, spoken to over stdio by rmcp's client
//! side (the reference Rust MCP client), with the scripted model server behind it. Each
//! test starts a server in a temporary workspace whose HOME lies outside it.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

use crate::exec::loom_command;
use crate::support::{self, ScriptedServer};

/// A workspace with `greet.py`, and a home beside it (so outside the workspace).
struct Dirs {
    _dir: tempfile::TempDir,
    ws: PathBuf,
    home: PathBuf,
}

fn dirs() -> Dirs {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let ws = root.join("ws");
    let home = root.join("home");
    std::fs::create_dir_all(ws.join("sub")).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(ws.join("greet.py"), "def greet():\n    return 'hello'\n").unwrap();
    Dirs {
        _dir: dir,
        ws,
        home,
    }
}

/// A running `loom mcp-server` and the rmcp client connected to it.
struct Conn {
    client: RunningService<RoleClient, ()>,
    child: tokio::process::Child,
}

impl Conn {
    /// Hang up, and check the server then ends on its own, successfully.
    async fn close(mut self) {
        self.client.cancel().await.unwrap();
        let status = self.child.wait().await.unwrap();
        assert!(status.success(), "{status}");
    }
}

impl std::ops::Deref for Conn {
    type Target = RunningService<RoleClient, ()>;
    fn deref(&self) -> &Self::Target {
        &self.client
    }
}

/// `loom mcp-server` in `d.ws` against `model`, with `extra` flags, as an rmcp client.
async fn connect(d: &Dirs, model: &ScriptedServer, extra: &[&str]) -> Conn {
    let mut child = loom_command(&d.home)
        .arg("mcp-server")
        .args(["--model", "scripted-model", "--base-url", &model.base_url()])
        .args(extra)
        .arg("-C")
        .arg(&d.ws)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("loom starts");
    let stdout = child.stdout.take().unwrap();
    let stdin = child.stdin.take().unwrap();
    let client = ().serve((stdout, stdin)).await.expect("the MCP handshake");
    Conn { client, child }
}

async fn call(client: &Conn, tool: &str, args: Value) -> CallToolResult {
    let params = CallToolRequestParams::new(tool.to_string())
        .with_arguments(args.as_object().cloned().unwrap());
    client.call_tool(params).await.expect("a tool result")
}

fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn structured(r: &CallToolResult) -> &Value {
    r.structured_content.as_ref().expect("structured content")
}

/// The request's messages' text, role by role.
fn conversation(request: &Value) -> Vec<(String, String)> {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap_or("").to_string(),
                m["content"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// `tools/list` offers `loom` and `loom-reply`, with their arguments and the structured
/// output they return.
#[tokio::test(flavor = "multi_thread")]
async fn lists_loom_and_loom_reply() {
    let d = dirs();
    let model = ScriptedServer::start(vec![]).await;
    let client = connect(&d, &model, &[]).await;
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["loom", "loom-reply"]);
    let loom = Value::Object((*tools[0].input_schema).clone());
    assert_eq!(loom["required"], json!(["prompt"]));
    for arg in ["prompt", "cwd", "approval"] {
        assert!(loom["properties"][arg].is_object(), "{arg}: {loom}");
    }
    let reply = Value::Object((*tools[1].input_schema).clone());
    assert_eq!(reply["required"], json!(["sessionId", "prompt"]));
    let output = Value::Object((**tools[0].output_schema.as_ref().unwrap()).clone());
    assert!(output["properties"]["sessionId"].is_object(), "{output}");
    assert!(output["properties"]["changes"].is_object(), "{output}");
    client.close().await;
}

/// In full-auto, `loom` edits the file and reports the change with its line counts; then
/// `loom-reply` continues the same session: the model is sent the earlier turn.
#[tokio::test(flavor = "multi_thread")]
async fn full_auto_edit_is_reported_and_loom_reply_continues_the_session() {
    let d = dirs();
    let model = ScriptedServer::start(vec![
        support::calls_openai(&[(
            "e1",
            "edit_file",
            r#"{"path": "greet.py", "old_str": "'hello'", "new_str": "'hello, world'"}"#,
        )]),
        support::text_reply("I changed the greeting."),
        support::text_reply("It now greets the world."),
    ])
    .await;
    let client = connect(&d, &model, &["--approval", "full-auto"]).await;
    let first = call(
        &client,
        "loom",
        json!({"prompt": "make it greet the world", "approval": "full-auto"}),
    )
    .await;
    assert_eq!(first.is_error, Some(false), "{}", text(&first));
    assert_eq!(text(&first), "I changed the greeting.");
    assert_eq!(
        read(&d.ws.join("greet.py")),
        "def greet():\n    return 'hello, world'\n"
    );
    let out = structured(&first);
    assert_eq!(
        out["changes"],
        json!([{"path": "greet.py", "lines_added": 1, "lines_removed": 1}])
    );
    let id = out["sessionId"].as_str().unwrap().to_string();
    assert!(!id.is_empty());

    let second = call(
        &client,
        "loom-reply",
        json!({"sessionId": id, "prompt": "what does it say now?"}),
    )
    .await;
    assert_eq!(second.is_error, Some(false), "{}", text(&second));
    assert_eq!(text(&second), "It now greets the world.");
    assert_eq!(structured(&second)["sessionId"], json!(id));
    assert_eq!(structured(&second)["changes"], json!([]));
    let requests = model.requests();
    assert_eq!(requests.len(), 3);
    let seen = conversation(&requests[2]);
    let said = |role: &str, text: &str| seen.iter().any(|(r, t)| r == role && t.contains(text));
    assert!(said("user", "make it greet the world"), "{seen:?}");
    assert!(said("assistant", "I changed the greeting."), "{seen:?}");
    assert!(said("user", "what does it say now?"), "{seen:?}");
    client.close().await;
}

/// Files a `bash` command changed are reported with their line counts beside the file
/// tools' writes, summed per file: a new file made by `printf`, a file edited by `sed` and
/// then by `edit_file`.
#[tokio::test(flavor = "multi_thread")]
async fn a_commands_changed_files_are_reported_with_their_counts() {
    let d = dirs();
    let model = ScriptedServer::start(vec![
        support::calls_openai(&[(
            "b1",
            "bash",
            r#"{"command": "printf 'a\\nb\\n' > made.txt"}"#,
        )]),
        support::calls_openai(&[(
            "b2",
            "bash",
            r#"{"command": "sed -i 's/hello/bye/' greet.py"}"#,
        )]),
        support::calls_openai(&[(
            "e1",
            "edit_file",
            r#"{"path": "greet.py", "old_str": "def greet():", "new_str": "def greet():\n    \"\"\"Greets.\"\"\""}"#,
        )]),
        support::text_reply("Made and edited."),
    ])
    .await;
    let client = connect(&d, &model, &["--approval", "full-auto"]).await;
    let r = call(
        &client,
        "loom",
        json!({"prompt": "make a file and say bye", "approval": "full-auto"}),
    )
    .await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    assert_eq!(read(&d.ws.join("made.txt")), "a\nb\n");
    assert_eq!(
        read(&d.ws.join("greet.py")),
        "def greet():\n    \"\"\"Greets.\"\"\"\n    return 'bye'\n"
    );
    assert_eq!(
        structured(&r)["changes"],
        json!([
            {"path": "made.txt", "lines_added": 2, "lines_removed": 0},
            {"path": "greet.py", "lines_added": 2, "lines_removed": 1},
        ])
    );
    client.close().await;
}

/// Supervised (the default): a command that would ask is refused, since nobody can
/// answer; the refusal is the model's tool result, and the turn goes on to its answer.
#[tokio::test(flavor = "multi_thread")]
async fn supervised_refuses_what_would_ask_and_the_model_reads_why() {
    let d = dirs();
    let model = ScriptedServer::start(vec![
        support::calls_openai(&[("b1", "bash", r#"{"command": "touch made-by-bash"}"#)]),
        support::text_reply("I was not allowed to create it."),
    ])
    .await;
    let client = connect(&d, &model, &["--approval", "full-auto"]).await;
    let r = call(&client, "loom", json!({"prompt": "create made-by-bash"})).await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    assert_eq!(text(&r), "I was not allowed to create it.");
    assert_eq!(structured(&r)["changes"], json!([]));
    assert!(!d.ws.join("made-by-bash").exists());
    let answered = support::tool_messages(&model.requests()[1]);
    let error = answered[0].1["error"].as_str().unwrap_or_default();
    assert!(error.contains("no one can approve it"), "{answered:?}");
    client.close().await;
}

/// Every refusal before a turn is the tool's error, saying what to do, and reaches no
/// model: an approval above the server's, a cwd outside its workspace (by `..`, absolute,
/// or missing), bad arguments, an empty prompt and an unknown session. An unknown tool is
/// a protocol error. A `cwd` inside the workspace is where the session works.
#[tokio::test(flavor = "multi_thread")]
async fn refusals_say_why_and_reach_no_model() {
    let d = dirs();
    let model = ScriptedServer::start(vec![]).await;
    let client = connect(&d, &model, &[]).await;
    let home = d.home.display().to_string();
    let cases = [
        (
            "loom",
            json!({"prompt": "x", "approval": "full-auto"}),
            "approval full-auto is above this server's approval mode supervised",
        ),
        (
            "loom",
            json!({"prompt": "x", "cwd": ".."}),
            "outside this server's workspace",
        ),
        (
            "loom",
            json!({"prompt": "x", "cwd": home}),
            "outside this server's workspace",
        ),
        (
            "loom",
            json!({"prompt": "x", "cwd": "gone"}),
            "cannot be opened",
        ),
        (
            "loom",
            json!({"prompt": "x", "cwd": "greet.py"}),
            "is not a directory",
        ),
        ("loom", json!({}), "missing field `prompt`"),
        ("loom", json!({"prompt": 3}), "invalid type"),
        (
            "loom",
            json!({"prompt": "x", "approval": "yolo"}),
            "unknown variant `yolo`",
        ),
        (
            "loom",
            json!({"prompt": "x", "model": "m"}),
            "unknown field `model`",
        ),
        ("loom", json!({"prompt": "  "}), "the prompt is empty"),
        (
            "loom-reply",
            json!({"prompt": "x"}),
            "missing field `sessionId`",
        ),
        (
            "loom-reply",
            json!({"sessionId": "nope", "prompt": "x"}),
            "no session \"nope\"",
        ),
    ];
    for (tool, args, expected) in cases {
        let r = call(&client, tool, args.clone()).await;
        assert_eq!(r.is_error, Some(true), "{tool} {args}: {}", text(&r));
        assert!(text(&r).contains(expected), "{tool} {args}: {}", text(&r));
    }
    let unknown = client
        .call_tool(CallToolRequestParams::new("lum"))
        .await
        .unwrap_err();
    assert!(unknown.to_string().contains("unknown tool"), "{unknown}");
    assert!(model.requests().is_empty());
    client.close().await;
}

/// A `cwd` inside the workspace is the session's directory: its paths are relative to it,
/// and a read-only session there cannot write.
#[tokio::test(flavor = "multi_thread")]
async fn a_cwd_inside_the_workspace_is_the_sessions_directory() {
    let d = dirs();
    std::fs::write(d.ws.join("sub/note.txt"), "in sub\n").unwrap();
    let model = ScriptedServer::start(vec![
        support::calls_openai(&[
            ("r1", "read_file", r#"{"path": "note.txt"}"#),
            ("w1", "write_file", r#"{"path": "new.txt", "content": "x"}"#),
        ]),
        support::text_reply("Read it; could not write."),
    ])
    .await;
    let client = connect(&d, &model, &[]).await;
    let r = call(
        &client,
        "loom",
        json!({"prompt": "read note.txt", "cwd": "sub", "approval": "read-only"}),
    )
    .await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    let answered = support::tool_messages(&model.requests()[1]);
    assert!(answered[0].1.to_string().contains("in sub"), "{answered:?}");
    assert!(answered[1].1["error"].is_string(), "{answered:?}");
    assert!(!d.ws.join("sub/new.txt").exists());
    client.close().await;
}

/// A `loom-reply` to a session a previous server started reopens it from its saved file
/// (the model is sent the earlier turn); a session saved for a directory outside the
/// server's workspace is refused, and its model never called.
#[tokio::test(flavor = "multi_thread")]
async fn loom_reply_reopens_a_saved_session_of_the_workspace_only() {
    let d = dirs();
    let model = ScriptedServer::start(vec![
        support::text_reply("First answer."),
        support::text_reply("Second answer."),
    ])
    .await;
    let first = connect(&d, &model, &[]).await;
    let r = call(&first, "loom", json!({"prompt": "remember the word teal"})).await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    let id = structured(&r)["sessionId"].as_str().unwrap().to_string();
    first.close().await;

    let again = connect(&d, &model, &[]).await;
    let r = call(
        &again,
        "loom-reply",
        json!({"sessionId": id, "prompt": "which word?"}),
    )
    .await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    assert_eq!(text(&r), "Second answer.");
    assert_eq!(structured(&r)["sessionId"], json!(id));
    let seen = conversation(&model.requests()[1]);
    assert!(
        seen.iter()
            .any(|(role, t)| role == "user" && t.contains("remember the word teal")),
        "{seen:?}"
    );
    assert!(
        seen.iter()
            .any(|(role, t)| role == "assistant" && t == "First answer."),
        "{seen:?}"
    );
    again.close().await;

    // The same home, another workspace beside the first: the session is not its own.
    let other = Dirs {
        _dir: tempfile::tempdir().unwrap(),
        ws: d.ws.parent().unwrap().join("other"),
        home: d.home.clone(),
    };
    std::fs::create_dir_all(&other.ws).unwrap();
    let elsewhere = connect(&other, &model, &[]).await;
    let r = call(
        &elsewhere,
        "loom-reply",
        json!({"sessionId": id, "prompt": "x"}),
    )
    .await;
    assert_eq!(r.is_error, Some(true), "{}", text(&r));
    assert!(
        text(&r).contains("outside this server's workspace"),
        "{}",
        text(&r)
    );
    assert_eq!(model.requests().len(), 2);
    elsewhere.close().await;
}

/// Regression: a session saved in a directory inside the workspace that has since become
/// a link to a directory outside it is not reopened there (the stored path was checked as
/// text, then followed).
#[tokio::test(flavor = "multi_thread")]
async fn loom_reply_does_not_follow_a_sessions_directory_that_now_links_outside() {
    let d = dirs();
    std::fs::create_dir_all(d.ws.join("sub")).unwrap();
    let model = ScriptedServer::start(vec![support::text_reply("First answer.")]).await;
    let first = connect(&d, &model, &[]).await;
    let r = call(&first, "loom", json!({"prompt": "hello", "cwd": "sub"})).await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    let id = structured(&r)["sessionId"].as_str().unwrap().to_string();
    first.close().await;

    let outside = tempfile::tempdir().unwrap();
    std::fs::remove_dir_all(d.ws.join("sub")).unwrap();
    std::os::unix::fs::symlink(outside.path(), d.ws.join("sub")).unwrap();
    let again = connect(&d, &model, &[]).await;
    let r = call(
        &again,
        "loom-reply",
        json!({"sessionId": id, "prompt": "go on"}),
    )
    .await;
    assert_eq!(r.is_error, Some(true), "{}", text(&r));
    assert!(
        text(&r).contains("outside this server's workspace"),
        "{}",
        text(&r)
    );
    assert_eq!(model.requests().len(), 1, "no turn ran");
    again.close().await;
}

/// A client that hangs up while a turn runs (the model still streaming) does not keep
/// the server: the turn is interrupted, the session saved, and the server exits cleanly.
#[tokio::test(flavor = "multi_thread")]
async fn hanging_up_mid_turn_interrupts_it_and_the_server_exits() {
    let d = dirs();
    let model = ScriptedServer::start(vec![support::Reply::Endless]).await;
    let conn = connect(&d, &model, &[]).await;
    let params = CallToolRequestParams::new("loom").with_arguments(
        json!({"prompt": "talk forever"})
            .as_object()
            .cloned()
            .unwrap(),
    );
    let peer = conn.peer().clone();
    let pending = tokio::spawn(async move { peer.call_tool(params).await });
    while model.requests().is_empty() {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let Conn { client, mut child } = conn;
    client.cancel().await.unwrap();
    let status = tokio::time::timeout(std::time::Duration::from_secs(60), child.wait())
        .await
        .expect("the server exits after the client hangs up")
        .unwrap();
    assert!(status.success(), "{status}");
    assert!(pending.await.unwrap().is_err());
}

/// The flags that pick a session or attach images mean nothing to the server (each call
/// starts its own session): they are refused, not ignored.
#[tokio::test(flavor = "multi_thread")]
async fn session_flags_are_refused() {
    let d = dirs();
    for flag in [
        &["--continue"][..],
        &["--resume", "abc"],
        &["--image", "x.png"],
    ] {
        let mut args = vec!["mcp-server"];
        args.extend_from_slice(flag);
        let (code, _, stderr) = crate::exec::loom_in(&d.ws, &args).await;
        assert_eq!(code, 2, "{flag:?}: {stderr}");
        assert!(
            stderr.contains(&format!("{} does not apply to `loom mcp-server`", flag[0])),
            "{stderr}"
        );
    }
}

/// Cancelling a call (MCP's `notifications/cancelled`) interrupts its turn while the
/// model still streams, and frees the session: the next `loom-reply` to it is answered.
#[tokio::test(flavor = "multi_thread")]
async fn cancelling_a_call_interrupts_its_turn_and_frees_the_session() {
    use rmcp::model::{CallToolRequest, ClientRequest};
    use rmcp::service::PeerRequestOptions;

    let d = dirs();
    let model = ScriptedServer::start(vec![
        support::text_reply("First."),
        support::Reply::Endless,
        support::text_reply("Third."),
    ])
    .await;
    let conn = connect(&d, &model, &[]).await;
    let r = call(&conn, "loom", json!({"prompt": "one"})).await;
    let id = structured(&r)["sessionId"].as_str().unwrap().to_string();
    let params = CallToolRequestParams::new("loom-reply").with_arguments(
        json!({"sessionId": id, "prompt": "two"})
            .as_object()
            .cloned()
            .unwrap(),
    );
    let handle = conn
        .peer()
        .send_cancellable_request(
            ClientRequest::CallToolRequest(CallToolRequest::new(params)),
            PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    while model.requests().len() < 2 {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    handle.cancel(Some("changed my mind".into())).await.unwrap();
    let third = tokio::time::timeout(
        std::time::Duration::from_secs(60),
        call(
            &conn,
            "loom-reply",
            json!({"sessionId": id, "prompt": "three"}),
        ),
    )
    .await
    .expect("the session is free again");
    assert_eq!(third.is_error, Some(false), "{}", text(&third));
    assert_eq!(text(&third), "Third.");
    let seen = conversation(&model.requests()[2]);
    assert!(
        seen.iter().any(|(r, t)| r == "user" && t == "two"),
        "{seen:?}"
    );
    conn.close().await;
}
