//! MCP servers end to end: the real `loom` binary against real third-party servers —
//! `@modelcontextprotocol/server-everything` (npm) and `mcp-server-time` (PyPI), installed
//! pinned into `.ci/deps/` by `.ci/mcp-deps` — and the scripted model server.
//!
//! Without those installs a test prints why and returns; under CI (`CI` set) it fails, so
//! an install that broke is never mistaken for a pass.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::AsyncBufReadExt;

use crate::exec::loom_command;
use crate::support::{self, Frame, Reply, ScriptedServer};

/// Where the pinned servers are.
struct Deps {
    everything: PathBuf,
    time: PathBuf,
}

fn deps(test: &str) -> Option<Deps> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/deps");
    let d = Deps {
        everything: root
            .join("npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
        time: root.join("venv/bin/mcp-server-time"),
    };
    if d.everything.is_file() && d.time.is_file() {
        return Some(d);
    }
    let why = format!(
        "{test}: the MCP test servers are not installed in {} (run .ci/mcp-deps)",
        root.display()
    );
    assert!(std::env::var_os("CI").is_none(), "{why}");
    eprintln!("skipped {why}");
    None
}

pub(crate) fn quoted(p: &Path) -> String {
    format!("{:?}", p.display().to_string())
}

/// A workspace and a home whose user config holds `servers` (TOML).
pub(crate) fn setup(servers: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(home.join(".config/loom")).unwrap();
    std::fs::write(home.join(".config/loom/config.toml"), servers).unwrap();
    (dir, ws, home)
}

fn everything(d: &Deps, name: &str, extra: &str) -> String {
    format!(
        "[mcp_servers.{name}]\ncommand = \"node\"\nargs = [{}, \"stdio\"]\n{extra}\n",
        quoted(&d.everything)
    )
}

pub(crate) fn exec_args(ws: &Path, server: &ScriptedServer, approval: &str) -> Vec<String> {
    vec![
        "exec".into(),
        "--json".into(),
        "--approval".into(),
        approval.into(),
        "--model".into(),
        "scripted-model".into(),
        "--base-url".into(),
        server.base_url(),
        "-C".into(),
        ws.display().to_string(),
        "use the tools".into(),
    ]
}

pub(crate) async fn exec_events(home: &Path, args: Vec<String>) -> (i32, Vec<Value>, String) {
    exec_output(loom_command(home).args(args).output().await.unwrap())
}

fn exec_output(out: std::process::Output) -> (i32, Vec<Value>, String) {
    let events = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    (
        out.status.code().unwrap_or(-1),
        events,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

pub(crate) fn of_type<'a>(events: &'a [Value], t: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == t).collect()
}

pub(crate) fn tool_names(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["function"]["name"].as_str().map(String::from))
        .collect()
}

/// The tools `load_tools`' catalogue lists in `request` (MCP tools are deferred: the model
/// loads the ones it needs, issue 24).
fn catalogued(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| t["function"]["name"] == "load_tools")
        .and_then(|t| t["function"]["description"].as_str())
        .unwrap_or("")
        .lines()
        .filter_map(|l| l.split_once(" — ").map(|(name, _)| name.to_string()))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_list_shows_real_servers_tools_and_why_others_failed() {
    let Some(d) = deps("mcp_list") else { return };
    let config = format!(
        "{}[mcp_servers.time]\ncommand = {}\nargs = [\"--local-timezone\", \"UTC\"]\n\n\
         [mcp_servers.missing]\ncommand = \"/nonexistent/mcp-server\"\n\n\
         [mcp_servers.broken]\ncommand = \"sh\"\nargs = [\"-c\", \"echo 'no database configured' >&2; exit 3\"]\n\n\
         [mcp_servers.off]\ncommand = \"/nonexistent/too\"\nenabled = false\n",
        everything(&d, "ev", ""),
        quoted(&d.time)
    );
    let (_dir, ws, home) = setup(&config);
    let out = loom_command(&home)
        .args(["mcp", "list", "--json", "-C"])
        .arg(&ws)
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let list: Vec<Value> = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{e}: {stdout}\n{}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(
        out.status.code(),
        Some(1),
        "a failed server makes the exit code 1"
    );
    let by = |n: &str| list.iter().find(|s| s["name"] == n).unwrap().clone();
    let ev = by("ev");
    assert_eq!(ev["state"], "ready", "{ev}");
    let ev_tools: Vec<&str> = ev["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        ev_tools.contains(&"mcp__ev__echo") && ev_tools.contains(&"mcp__ev__get-sum"),
        "{ev_tools:?}"
    );
    let time = by("time");
    assert_eq!(time["state"], "ready", "{time}");
    assert!(
        time["tools"]
            .as_array()
            .unwrap()
            .contains(&Value::from("mcp__time__get_current_time"))
    );
    let missing = by("missing");
    assert_eq!(missing["state"], "failed");
    assert!(
        missing["reason"]
            .as_str()
            .unwrap()
            .contains("cannot start `/nonexistent/mcp-server`"),
        "{missing}"
    );
    let broken = by("broken");
    assert_eq!(broken["state"], "failed");
    assert!(
        broken["reason"]
            .as_str()
            .unwrap()
            .contains("exited with status 3"),
        "{broken}"
    );
    assert_eq!(broken["stderr"][0], "no database configured", "{broken}");
    assert_eq!(by("off")["state"], "disabled");
}

/// A model's call with arguments reaches the real server and its answer comes back; a
/// tool the configuration does not allow is refused headless; a server that cannot start
/// is reported and the session goes on.
#[tokio::test(flavor = "multi_thread")]
async fn exec_calls_an_mcp_tool_with_arguments_end_to_end() {
    let Some(d) = deps("exec_calls_an_mcp_tool") else {
        return;
    };
    let config = format!(
        "{}[mcp_servers.broken]\ncommand = \"/nonexistent/mcp-server\"\n",
        everything(&d, "ev", "allow = [\"get-sum\"]")
    );
    let (_dir, ws, home) = setup(&config);
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("c1", "mcp__ev__get-sum", r#"{"a": 2, "b": 40}"#)]),
        support::calls_openai(&[("c2", "mcp__ev__echo", r#"{"message": "hi"}"#)]),
        support::text_reply("The sum is 42."),
    ])
    .await;
    let (code, events, stderr) = exec_events(&home, exec_args(&ws, &server, "supervised")).await;
    assert_eq!(code, 0, "{stderr}\n{events:#?}");
    let requests = server.requests();
    let listed = catalogued(&requests[0]);
    assert!(
        listed.contains(&"mcp__ev__get-sum".to_string()),
        "{listed:?}"
    );
    assert!(tool_names(&requests[0]).contains(&"read_file".to_string()));
    // Called without loading, it ran and was loaded: its schema is sent from then on.
    let first = &requests[1];
    let sum = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "mcp__ev__get-sum")
        .unwrap();
    assert_eq!(sum["function"]["parameters"]["type"], "object");
    assert!(
        sum["function"]["parameters"]["properties"]["a"].is_object(),
        "{sum}"
    );
    let results = of_type(&events, "tool_result");
    assert_eq!(results[0]["name"], "mcp__ev__get-sum");
    assert_eq!(results[0]["success"], true, "{:#?}", results[0]);
    assert!(
        results[0]["output"].as_str().unwrap().contains("42"),
        "{}",
        results[0]
    );
    let calls = of_type(&events, "tool_call");
    assert_eq!(calls[0]["touches"]["kind"], "mcp");
    assert_eq!(calls[0]["touches"]["mcp"]["server"], "ev");
    assert_eq!(results[1]["success"], false);
    let denied = results[1]["error"].as_str().unwrap();
    assert!(
        denied.contains("allow = [\"echo\"]") && denied.contains("headless"),
        "{denied}"
    );
    let tool_messages = support::tool_messages(&requests[1]);
    assert!(
        tool_messages[0].1["output"]
            .as_str()
            .unwrap()
            .contains("42")
    );
    let status = of_type(&events, "mcp_status");
    let last = status.last().expect("an mcp_status event");
    let broken = last["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "broken")
        .unwrap();
    assert_eq!(broken["state"], "failed", "{broken}");
}

/// A call the server never answers ends at the configured call timeout with an error the
/// model can read (the SDK sends `notifications/cancelled`), and the session goes on; when
/// Loom exits, the server's process is gone.
#[tokio::test(flavor = "multi_thread")]
async fn a_hanging_call_times_out() {
    let Some(d) = deps("a_hanging_call_times_out") else {
        return;
    };
    let config = format!(
        "[mcp_servers.ev]\ncommand = \"node\"\nargs = [{}, \"stdio\"]\ncall_timeout_secs = 2\n",
        quoted(&d.everything)
    );
    let (_dir, ws, home) = setup(&config);
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[(
            "c1",
            "mcp__ev__trigger-long-running-operation",
            r#"{"duration": 120, "steps": 120}"#,
        )]),
        support::calls_openai(&[("c2", "mcp__ev__echo", r#"{"message": "still here"}"#)]),
        support::text_reply("It timed out."),
    ])
    .await;
    let started = Instant::now();
    let loom = loom_command(&home)
        .args(exec_args(&ws, &server, "full-auto"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = the_server(loom.id().unwrap(), &d.everything.display().to_string()).await;
    let out = loom.wait_with_output().await.unwrap();
    let (code, events, stderr) = exec_output(out);
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(code, 0, "{stderr}\n{events:#?}");
    let results = of_type(&events, "tool_result");
    let err = results[0]["error"].as_str().unwrap();
    assert!(
        err.contains("did not answer `trigger-long-running-operation` within 2s"),
        "{err}"
    );
    assert!(
        results[0]["duration_ms"].as_u64().unwrap() < 15_000,
        "{}",
        results[0]
    );
    assert_eq!(
        results[1]["success"], true,
        "the server still answers: {}",
        results[1]
    );
    wait_gone(pid).await;
}

fn pid_lines(path: &Path) -> Vec<i32> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// The live processes below `ancestor` whose command line contains `needle`. A server runs
/// in a PID namespace of its own, where its own pid is 1, so tests find it from outside.
fn descendants_running(ancestor: u32, needle: &str) -> Vec<i32> {
    let mut parent_of = std::collections::HashMap::new();
    let mut matching = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().filter_map(Result::ok) {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r.to_string()) else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if let Some(ppid) = fields.get(1).and_then(|p| p.parse::<i32>().ok()) {
            parent_of.insert(pid, ppid);
        }
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if fields.first() != Some(&"Z") && String::from_utf8_lossy(&cmdline).contains(needle) {
            matching.push(pid);
        }
    }
    matching
        .into_iter()
        .filter(|pid| {
            let mut at = *pid;
            while let Some(parent) = parent_of.get(&at).copied() {
                if parent == ancestor as i32 {
                    return true;
                }
                at = parent;
            }
            false
        })
        .collect()
}

/// The one live server below `loom`, waited for.
pub(crate) async fn the_server(loom: u32, needle: &str) -> i32 {
    for _ in 0..400 {
        if let [pid] = descendants_running(loom, needle)[..] {
            return pid;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("no single server process running {needle} below {loom}");
}

pub(crate) async fn wait_gone(pid: i32) {
    for _ in 0..200 {
        if nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_err() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("process {pid} did not go");
}

/// A server killed between two calls is started again on the next call, once per
/// session: killed a second time, it stays down and the model is told why.
#[tokio::test(flavor = "multi_thread")]
async fn a_killed_server_is_restarted_once_on_the_next_call() {
    let Some(d) = deps("a_killed_server_is_restarted_once") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let config = format!(
        "[mcp_servers.ev]\ncommand = \"sh\"\nargs = [\"-c\", \"echo $$ >> {}; exec node {} stdio\"]\n",
        pids.display(),
        d.everything.display()
    );
    let (_dir, ws, home) = setup(&config);
    let first_kill = Arc::new(tokio::sync::Notify::new());
    let second_kill = Arc::new(tokio::sync::Notify::new());
    let echo = |id: &str, text: &str| {
        support::calls_openai(&[(id, "mcp__ev__echo", &format!(r#"{{"message": "{text}"}}"#))])
    };
    let held = |gate: &Arc<tokio::sync::Notify>, reply: Reply| {
        let Reply::Stream(mut frames) = reply else {
            unreachable!()
        };
        frames.insert(0, Frame::Until(gate.clone()));
        Reply::Stream(frames)
    };
    let server = ScriptedServer::start(vec![
        echo("c1", "one"),
        held(&first_kill, echo("c2", "two")),
        held(&second_kill, echo("c3", "three")),
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
    let mut gates = [first_kill.clone(), second_kill.clone()].into_iter();
    let deadline = Instant::now() + Duration::from_secs(90);
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
        if let Some(gate) = gates.next() {
            // Kill the server that answered, then let the model's next call go.
            let pid = the_server(loom_pid, &d.everything.display().to_string()).await;
            nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            )
            .unwrap();
            wait_gone(pid).await;
            // Loom notices the exit (its status says the server failed) before the next
            // call is made.
            loop {
                let line = tokio::time::timeout_at(deadline.into(), lines.next_line())
                    .await
                    .expect("loom reports the exit in time")
                    .unwrap()
                    .expect("loom reports the exit before it ends");
                let status: Value = serde_json::from_str(&line).unwrap();
                if status["type"] == "mcp_status" && status["servers"][0]["state"] == "failed" {
                    break;
                }
            }
            gate.notify_one();
        }
    }
    let status = child.wait().await.unwrap();
    assert_eq!(status.code(), Some(0));
    assert_eq!(results.len(), 3, "{results:#?}");
    assert_eq!(results[0]["success"], true, "{}", results[0]);
    assert_eq!(results[1]["success"], true, "restarted: {}", results[1]);
    assert!(results[1]["output"].as_str().unwrap().contains("two"));
    assert_eq!(results[2]["success"], false);
    let err = results[2]["error"].as_str().unwrap();
    assert!(
        err.contains("killed by signal 9") && err.contains("already restarted once"),
        "{err}"
    );
    assert_eq!(pid_lines(&pids).len(), 2, "started twice, not three times");
}

/// The streamable HTTP transport, against server-everything serving it on 127.0.0.1.
#[tokio::test(flavor = "multi_thread")]
async fn the_streamable_http_transport_reaches_a_local_server() {
    let Some(d) = deps("the_streamable_http_transport") else {
        return;
    };
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut http = tokio::process::Command::new("node")
        .arg(&d.everything)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut err = tokio::io::BufReader::new(http.stderr.take().unwrap()).lines();
    tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(line) = err.next_line().await.unwrap() {
            if line.contains("listening") {
                return;
            }
        }
        panic!("server-everything ended before it listened");
    })
    .await
    .expect("server-everything listens");
    let config = format!(
        "[mcp_servers.web]\nurl = \"http://127.0.0.1:{port}/mcp\"\nheaders = {{ X-Test = \"1\" }}\n"
    );
    let (_dir, ws, home) = setup(&config);
    let out = loom_command(&home)
        .args([
            "mcp",
            "call",
            "web",
            "get-sum",
            "--args",
            r#"{"a": 20, "b": 22}"#,
            "-C",
        ])
        .arg(&ws)
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result: Value = serde_json::from_str(&stdout).unwrap();
    assert!(
        result["output"].as_str().unwrap().contains("42"),
        "{result}"
    );
    let _ = http.kill().await;
}

/// `tools/list_changed`: a tool the server adds mid-session is offered in the next
/// request and can be called.
#[tokio::test(flavor = "multi_thread")]
async fn a_tool_added_by_the_server_is_offered_next() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp/list_changed.py");
    let config = format!(
        "[mcp_servers.lc]\ncommand = \"python3\"\nargs = [{}]\n",
        quoted(&script)
    );
    let (_dir, ws, home) = setup(&config);
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("c1", "mcp__lc__add_tool", "{}")]),
        support::calls_openai(&[("c2", "list_files", r#"{"path": "."}"#)]),
        support::calls_openai(&[("c3", "mcp__lc__added", "{}")]),
        support::text_reply("done"),
    ])
    .await;
    let (code, events, stderr) = exec_events(&home, exec_args(&ws, &server, "full-auto")).await;
    assert_eq!(code, 0, "{stderr}\n{events:#?}");
    let requests = server.requests();
    assert!(!catalogued(&requests[0]).contains(&"mcp__lc__added".to_string()));
    assert!(catalogued(&requests[2]).contains(&"mcp__lc__added".to_string()));
    let results = of_type(&events, "tool_result");
    assert_eq!(results[2]["success"], true, "{}", results[2]);
    assert_eq!(results[2]["output"], "I was added while Loom ran");
}

/// Issue 15: a call given up (its timeout here; Esc drops it the same way) is cancelled at
/// the server with `notifications/cancelled` naming the request.
#[tokio::test(flavor = "multi_thread")]
async fn a_call_given_up_is_cancelled_at_the_server() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp/list_changed.py");
    let log = tempfile::NamedTempFile::new().unwrap();
    let config = format!(
        "[mcp_servers.lc]\ncommand = \"python3\"\nargs = [{}, {}]\ncall_timeout_secs = 2\n",
        quoted(&script),
        quoted(log.path())
    );
    let (_dir, ws, home) = setup(&config);
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("c1", "mcp__lc__hang", "{}")]),
        support::text_reply("it hung"),
    ])
    .await;
    let (code, events, stderr) = exec_events(&home, exec_args(&ws, &server, "full-auto")).await;
    assert_eq!(code, 0, "{stderr}\n{events:#?}");
    let results = of_type(&events, "tool_result");
    assert_eq!(results[0]["success"], false, "{}", results[0]);
    let received: Vec<Value> = std::fs::read_to_string(log.path())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let call = received
        .iter()
        .find(|m| m["method"] == "tools/call" && m["params"]["name"] == "hang")
        .expect("the call reached the server");
    let cancelled = received
        .iter()
        .find(|m| m["method"] == "notifications/cancelled")
        .unwrap_or_else(|| panic!("no cancellation was sent: {received:#?}"));
    assert_eq!(cancelled["params"]["requestId"], call["id"], "{cancelled}");
}

/// Issue 23: everything an MCP server answers goes through the one output budget. A 300 KB
/// file read with its `structuredContent` twin put 320,655 characters into the model's
/// context under `output_budget = 8192`; structured content alone, embedded resources and
/// an error message are bounded the same way, in what the model reads and in the events.
#[tokio::test(flavor = "multi_thread")]
async fn large_mcp_answers_reach_the_model_within_the_output_budget() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp/big_output.py");
    let config = format!(
        "[tools]\noutput_budget = 8192\n\n[mcp_servers.big]\ncommand = \"python3\"\nargs = [{}]\n",
        quoted(&script)
    );
    let (_dir, ws, home) = setup(&config);
    let tools = ["read_big", "structured_only", "big_resource", "big_error"];
    let calls: Vec<(String, String)> = tools
        .iter()
        .map(|t| (format!("c_{t}"), format!("mcp__big__{t}")))
        .collect();
    let calls: Vec<(&str, &str, &str)> = calls
        .iter()
        .map(|(id, name)| (id.as_str(), name.as_str(), "{}"))
        .collect();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&calls),
        support::text_reply("ok"),
    ])
    .await;
    let (code, events, stderr) = exec_events(&home, exec_args(&ws, &server, "full-auto")).await;
    assert_eq!(code, 0, "{stderr}\n{events:#?}");
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{stderr}");
    let messages = requests[1]["messages"].as_array().unwrap();
    let tool_messages: Vec<&Value> = messages.iter().filter(|m| m["role"] == "tool").collect();
    assert_eq!(tool_messages.len(), 4);
    for m in &tool_messages {
        let content = m["content"].as_str().unwrap();
        assert!(
            content.len() <= 8192,
            "{}: {} bytes reached the model",
            m["tool_call_id"],
            content.len()
        );
        assert!(content.contains("omitted"), "{content}");
    }
    let by_id: std::collections::HashMap<String, Value> =
        support::tool_messages(&requests[1]).into_iter().collect();
    let read = &by_id["c_read_big"];
    assert!(
        read["output"].as_str().unwrap().starts_with("line 00000"),
        "{read}"
    );
    assert!(
        read.get("data").is_none(),
        "structured content is not sent twice: {read}"
    );
    let listed = by_id["c_structured_only"]["output"].as_str().unwrap();
    assert!(listed.contains("src/file0000.rs"), "{listed}");
    let resources = by_id["c_big_resource"]["output"].as_str().unwrap();
    assert!(
        resources.starts_with("[resource file:///a.txt]"),
        "{resources}"
    );
    let error = &by_id["c_big_error"];
    assert_eq!(error["success"], false);
    assert!(
        error["error"]
            .as_str()
            .unwrap()
            .starts_with("failed: line 00000")
    );
    for e in of_type(&events, "tool_result") {
        let size = e.to_string().len();
        assert!(
            size <= 8192 + 512,
            "an event carried {size} bytes: {}",
            e["name"]
        );
    }
}

/// `loom mcp list --json -C WS` with this home: exit code and the listed servers.
pub(crate) async fn mcp_list(home: &Path, ws: &Path) -> (i32, Vec<Value>, String) {
    let out = loom_command(home)
        .args(["mcp", "list", "--json", "-C"])
        .arg(ws)
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let list = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"));
    (out.status.code().unwrap_or(-1), list, stderr)
}

/// A module that, run from the workspace, would stand in for the user's server.
const HOSTILE_MODULE: &str = "import pathlib, sys\n\
    pathlib.Path(__file__).with_name('PWNED').write_text('the repository ran its own code')\n\
    sys.exit(1)\n";

/// Issue 23: a user-configured `python3 -m mod` server started in the workspace, so a
/// repository's `mod.py` replaced it. Without a `cwd` in its table it starts in a private
/// directory of its own, with `PYTHONSAFEPATH=1`: the installed module runs, the
/// repository's never does.
#[tokio::test(flavor = "multi_thread")]
async fn a_user_python_server_is_not_replaced_by_a_module_in_the_workspace() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp");
    let config = format!(
        "[mcp_servers.py]\ncommand = \"python3\"\nargs = [\"-m\", \"list_changed\"]\nenv = {{ PYTHONPATH = {}, PYTHONDONTWRITEBYTECODE = \"1\" }}\n",
        quoted(&fixtures)
    );
    let (_dir, ws, home) = setup(&config);
    std::fs::write(ws.join("list_changed.py"), HOSTILE_MODULE).unwrap();
    let (code, list, stderr) = mcp_list(&home, &ws).await;
    assert!(!ws.join("PWNED").exists(), "the workspace's module ran");
    assert_eq!(code, 0, "{stderr}\n{list:?}");
    let server = &list[0];
    assert_eq!(server["state"], "ready", "{server}");
    assert!(
        server["tools"]
            .as_array()
            .unwrap()
            .contains(&Value::from("mcp__py__add_tool")),
        "the installed module answered: {server}"
    );
    let own = home.join(".local/share/loom/mcp/py");
    assert!(own.is_dir(), "it started in its own directory");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&own).unwrap().permissions().mode() & 0o777,
        0o700
    );
}

/// The other side of the decision: a server the trusted project config defines is the
/// repository's own tool and starts in the workspace, importing from it.
#[tokio::test(flavor = "multi_thread")]
async fn a_trusted_project_server_starts_in_the_workspace() {
    let (_dir, ws, home) = setup("");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp");
    std::fs::copy(fixtures.join("list_changed.py"), ws.join("repo_server.py")).unwrap();
    std::fs::create_dir_all(ws.join(".loom")).unwrap();
    std::fs::write(
        ws.join(".loom/config.toml"),
        "[mcp_servers.repo]\ncommand = \"python3\"\nargs = [\"-m\", \"repo_server\"]\n",
    )
    .unwrap();
    let trusted = loom_command(&home)
        .args(["trust", "-C"])
        .arg(&ws)
        .output()
        .await
        .unwrap();
    assert!(
        trusted.status.success(),
        "{}",
        String::from_utf8_lossy(&trusted.stderr)
    );
    let (code, list, stderr) = mcp_list(&home, &ws).await;
    assert_eq!(code, 0, "{stderr}\n{list:?}");
    assert_eq!(list[0]["state"], "ready", "{}", list[0]);
}
