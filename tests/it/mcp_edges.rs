//! MCP edges a first session hits (issue 24): no servers configured, a URL that
//! redirects, a call to a tool of a server that failed, a list change sent right after a
//! result, and the call right after a crash. Real `loom` processes against the Python
//! fixture servers in `tests/fixtures/mcp/`, the scripted model server and raw sockets.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::AsyncBufReadExt;

use crate::exec::loom_command;
use crate::mcp::{
    exec_args, exec_events, mcp_list, of_type, quoted, setup, the_server, tool_names, wait_gone,
};
use crate::support::{self, Frame, Reply, ScriptedServer};

/// Issue 24: `loom mcp list` with no server configured is an answer, not a usage error:
/// exit 0, a sentence saying how to add one, and `[]` under `--json`.
#[tokio::test(flavor = "multi_thread")]
async fn mcp_list_with_no_servers_says_so_and_exits_0() {
    let (_dir, ws, home) = setup("");
    let (code, list, stderr) = mcp_list(&home, &ws).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(list.is_empty(), "{list:?}");
    let out = loom_command(&home)
        .args(["mcp", "list", "-C"])
        .arg(&ws)
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("no MCP servers configured") && stdout.contains("[mcp_servers.NAME]"),
        "{stdout}"
    );
}

/// Issue 24: an MCP URL that redirects failed with the SDK's text, which names a Rust type
/// (`Transport [rmcp::transport::worker::WorkerTransport<…>] error`). The status says in
/// plain words that the server redirected and what to change.
#[tokio::test(flavor = "multi_thread")]
async fn an_mcp_url_that_redirects_is_explained_in_plain_words() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let redirector = tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                let mut buf = vec![0u8; 65536];
                let _ = socket.read(&mut buf).await;
                let _ = socket
                    .write_all(
                        b"HTTP/1.1 302 Found\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\
                          Connection: close\r\n\r\n",
                    )
                    .await;
            });
        }
    });
    let config = format!("[mcp_servers.moved]\nurl = \"http://127.0.0.1:{port}/mcp\"\n");
    let (_dir, ws, home) = setup(&config);
    let (code, list, stderr) = mcp_list(&home, &ws).await;
    redirector.abort();
    assert_eq!(code, 1, "{stderr}");
    let reason = list[0]["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("redirect (HTTP 302)") && reason.contains("set its `url`"),
        "{}",
        list[0]
    );
    assert!(
        !reason.contains("rmcp::") && !reason.contains("Transport ["),
        "{reason}"
    );
}

/// Issue 24: calling a tool of a server that failed to start answered "unknown tool". The
/// model reads that the server failed, why (its last stderr line included), and how the
/// person retries.
#[tokio::test(flavor = "multi_thread")]
async fn a_call_to_a_failed_servers_tool_says_why_it_failed() {
    let config = "[mcp_servers.db]\ncommand = \"sh\"\n\
                  args = [\"-c\", \"echo 'no database configured' >&2; exit 3\"]\n";
    let (_dir, ws, home) = setup(config);
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("c1", "mcp__db__query", r#"{"sql": "select 1"}"#)]),
        support::text_reply("done"),
    ])
    .await;
    let (code, events, stderr) = exec_events(&home, exec_args(&ws, &server, "full-auto")).await;
    assert_eq!(code, 0, "{stderr}\n{events:#?}");
    let results = of_type(&events, "tool_result");
    assert_eq!(results[0]["success"], false, "{}", results[0]);
    let err = results[0]["error"].as_str().unwrap();
    assert!(!err.contains("unknown tool"), "{err}");
    assert!(
        err.contains("the MCP server `db` failed") && err.contains("exited with status 3"),
        "{err}"
    );
    assert!(err.contains("no database configured"), "{err}");
    assert!(err.contains("/mcp"), "{err}");
}

/// Every tool a request offers: the names of the schemas it sends and `load_tools`'
/// catalogue of the ones it can load.
fn offered_tools(request: &Value) -> String {
    let catalogue = request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["function"]["name"] == "load_tools")
        .filter_map(|t| t["function"]["description"].as_str())
        .collect::<Vec<_>>()
        .join("\n");
    format!("{:?}\n{catalogue}", tool_names(request))
}

/// Issue 24: a `tools/list_changed` sent right after a call's result was sometimes not
/// seen by the next request (the refresh raced the next request). The call now returns
/// only once the server's messages sent before it are read and any refresh they asked
/// for is done. Repeated, as the race was lost only some of the time.
#[tokio::test(flavor = "multi_thread")]
async fn a_list_change_right_after_a_result_reaches_the_next_request() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp/list_changed.py");
    let config = format!(
        "[mcp_servers.lc]\ncommand = \"python3\"\nargs = [{}]\n",
        quoted(&script)
    );
    let (_dir, ws, home) = setup(&config);
    for run in 0..8 {
        let server = ScriptedServer::start(vec![
            support::calls_openai(&[("c1", "mcp__lc__add_now", "{}")]),
            support::text_reply("done"),
        ])
        .await;
        let (code, events, stderr) = exec_events(&home, exec_args(&ws, &server, "full-auto")).await;
        assert_eq!(code, 0, "{stderr}\n{events:#?}");
        let requests = server.requests();
        // MCP tools are offered on demand: the added tool is either sent whole or named
        // in `load_tools`' catalogue; either way the next request must know it.
        let offered = offered_tools(&requests[1]);
        assert!(
            offered.contains("mcp__lc__added"),
            "run {run}: the next request lacks the added tool: {offered}"
        );
    }
}

/// Issue 24: right after a server crashed, the next call sometimes failed instead of
/// restarting it (the call raced Loom noticing the exit). Killed with no pause before the
/// next call, it is restarted every time; repeated, as the race was lost only sometimes.
#[tokio::test(flavor = "multi_thread")]
async fn the_call_right_after_a_crash_restarts_the_server() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp/list_changed.py");
    let config = format!(
        "[mcp_servers.lc]\ncommand = \"python3\"\nargs = [{}]\n",
        quoted(&script)
    );
    let (_dir, ws, home) = setup(&config);
    let echo = |id: &str, text: &str| {
        support::calls_openai(&[(id, "mcp__lc__echo", &format!(r#"{{"message": "{text}"}}"#))])
    };
    for run in 0..10 {
        let gate = Arc::new(tokio::sync::Notify::new());
        let Reply::Stream(mut second) = echo("c2", "two") else {
            unreachable!()
        };
        second.insert(0, Frame::Until(gate.clone()));
        let server = ScriptedServer::start(vec![
            echo("c1", "one"),
            Reply::Stream(second),
            support::text_reply("done"),
        ])
        .await;
        let mut child = loom_command(&home)
            .args(exec_args(&ws, &server, "full-auto"))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let loom_pid = child.id().unwrap();
        let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let mut results = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(60);
        while let Some(line) = tokio::time::timeout_at(deadline.into(), lines.next_line())
            .await
            .expect("loom finishes in time")
            .unwrap()
        {
            let event: Value = serde_json::from_str(&line).unwrap();
            if event["type"] != "tool_result" {
                continue;
            }
            results.push(event);
            if results.len() == 1 {
                // Kill the server that answered and let the next call go at once.
                let pid = the_server(loom_pid, &script.display().to_string()).await;
                nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                )
                .unwrap();
                gate.notify_one();
                wait_gone(pid).await;
            }
        }
        assert_eq!(child.wait().await.unwrap().code(), Some(0));
        assert_eq!(results.len(), 2, "run {run}: {results:#?}");
        assert_eq!(
            results[1]["success"], true,
            "run {run}: restarted: {}",
            results[1]
        );
        assert_eq!(results[1]["output"], "two", "run {run}");
    }
}

/// The ping that flushes a server's messages after a result is waited for briefly, and a
/// server that leaves it unanswered is not pinged again: three calls, one ping.
#[tokio::test(flavor = "multi_thread")]
async fn a_server_deaf_to_ping_is_pinged_once() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp/list_changed.py");
    let log = tempfile::NamedTempFile::new().unwrap();
    let config = format!(
        "[mcp_servers.lc]\ncommand = \"python3\"\nargs = [{}, {}, \"--deaf-to-ping\"]\n",
        quoted(&script),
        quoted(log.path())
    );
    let (_dir, ws, home) = setup(&config);
    let echo = |id: &str| support::calls_openai(&[(id, "mcp__lc__echo", r#"{"message": "hi"}"#)]);
    let server = ScriptedServer::start(vec![
        echo("c1"),
        echo("c2"),
        echo("c3"),
        support::text_reply("done"),
    ])
    .await;
    let (code, events, stderr) = exec_events(&home, exec_args(&ws, &server, "full-auto")).await;
    assert_eq!(code, 0, "{stderr}\n{events:#?}");
    let results = of_type(&events, "tool_result");
    assert_eq!(results.len(), 3);
    assert!(results.iter().all(|r| r["output"] == "hi"), "{results:#?}");
    let received = std::fs::read_to_string(log.path()).unwrap();
    let pings = received
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|m| m["method"] == "ping")
        .count();
    assert_eq!(pings, 1, "{received}");
}
