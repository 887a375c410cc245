//! `loom exec --json` end to end: the real binary against the scripted server.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::{self, Reply, ScriptedServer};

pub struct Run {
    pub code: i32,
    pub events: Vec<Value>,
    pub stderr: String,
}

impl Run {
    pub fn of_type(&self, t: &str) -> Vec<&Value> {
        self.events.iter().filter(|e| e["type"] == t).collect()
    }

    /// The `message` of every event of type `t` (notices, errors), in order.
    pub fn messages(&self, t: &str) -> Vec<String> {
        self.of_type(t)
            .iter()
            .map(|e| e["message"].as_str().unwrap_or_default().to_string())
            .collect()
    }
}

/// A command for the `loom` binary isolated from the user's config and environment.
pub fn loom_command(home: &Path) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_loom"));
    cmd.env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("LOOM_MODEL")
        .kill_on_drop(true);
    cmd
}

/// Run `loom ARGS -C DIR` (HOME in `DIR/.home`) and return its exit code, stdout and stderr.
pub async fn loom_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let home = dir.join(".home");
    std::fs::create_dir_all(&home).unwrap();
    let out = loom_command(&home)
        .args(args)
        .arg("-C")
        .arg(dir)
        .output()
        .await
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

pub async fn exec(dir: &Path, server: &ScriptedServer, approval: &str, prompt: &str) -> Run {
    let home = dir.join(".home");
    std::fs::create_dir_all(&home).unwrap();
    let out = loom_command(&home)
        .args([
            "exec",
            "--json",
            "--approval",
            approval,
            "--model",
            "scripted-model",
        ])
        .arg("--base-url")
        .arg(server.base_url())
        .arg("-C")
        .arg(dir)
        .arg(prompt)
        .output()
        .await
        .expect("loom runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let events = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    Run {
        code: out.status.code().unwrap_or(-1),
        events,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("greet.py"),
        "def greet():\n    return 'hello'\n",
    )
    .unwrap();
    std::fs::write(dir.path().join(".gitignore"), ".home/\n").unwrap();
    dir
}

#[tokio::test(flavor = "multi_thread")]
async fn read_edit_answer_changes_the_file() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("call_r", "read_file", r#"{"path": "greet.py"}"#)]),
        support::calls_openai(&[(
            "call_e",
            "edit_file",
            r#"{"path": "greet.py", "old_str": "'hello'", "new_str": "'hello, world'"}"#,
        )]),
        support::text_reply("I changed the greeting."),
    ])
    .await;
    let run = exec(dir.path(), &server, "full-auto", "make it greet the world").await;
    assert_eq!(run.code, 0, "{}\n{:#?}", run.stderr, run.events);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("greet.py")).unwrap(),
        "def greet():\n    return 'hello, world'\n"
    );
    assert_eq!(run.events[0]["type"], "session_started");
    assert_eq!(run.events[0]["model"], "scripted-model");
    let calls = run.of_type("tool_call");
    assert_eq!(calls[0]["name"], "read_file");
    assert_eq!(calls[0]["arguments"]["path"], "greet.py");
    let approvals = run.of_type("approval");
    assert!(
        approvals
            .iter()
            .all(|a| a["decision"] == "approved" && a["by"] == "policy")
    );
    let results = run.of_type("tool_result");
    assert_eq!(results.len(), 2);
    assert!(results.iter().all(|r| r["success"] == true));
    assert_eq!(
        run.of_type("assistant_message")[0]["text"],
        "I changed the greeting."
    );
    let done = run.of_type("turn_completed");
    assert_eq!(done[0]["usage"]["prompt_tokens"], 500);
    assert_eq!(done[0]["usage"]["completion_tokens"], 80);

    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let first = &requests[0];
    assert_eq!(first["model"], "scripted-model");
    assert_eq!(first["stream"], true);
    assert_eq!(first["messages"][0]["role"], "system");
    let system = first["messages"][0]["content"].as_str().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    assert!(system.contains(&root.display().to_string()), "{system}");
    assert_eq!(
        first["messages"][1],
        json!({"role": "user", "content": "make it greet the world"})
    );
    let tools: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    // The core tools are sent; the others are listed in load_tools' catalogue (issue 24).
    let expected = vec![
        "read_file",
        "write_file",
        "edit_file",
        "list_files",
        "search_files",
        "bash",
        "update_plan",
        "load_tools",
    ];
    assert_eq!(tools, expected);
    let catalogue = first["tools"][7]["function"]["description"]
        .as_str()
        .unwrap();
    let mut deferred = vec![
        "web_fetch",
        "http_request",
        "memory_store",
        "memory_recall",
        "memory_forget",
        "cron_add",
        "cron_list",
        "cron_remove",
        "oracle",
        "delegate",
    ];
    // Offered where a Chromium is installed (always on CI; see tests/it/browser.rs).
    if loom::tools::browser::cdp::find(None).is_some() {
        deferred.push("browser");
    }
    for name in deferred {
        assert!(
            catalogue.contains(&format!("\n{name} — ")),
            "{name}: {catalogue}"
        );
    }
    let answered = support::tool_messages(&requests[1]);
    assert_eq!(answered[0].0, "call_r");
    assert!(
        answered[0].1["output"]
            .as_str()
            .unwrap()
            .contains("return 'hello'")
    );
    let answered = support::tool_messages(&requests[2]);
    assert_eq!(answered[1].0, "call_e");
    assert_eq!(answered[1].1["success"], true);
}

#[tokio::test(flavor = "multi_thread")]
async fn parallel_calls_each_get_their_result() {
    let dir = workspace();
    std::fs::write(dir.path().join("b.txt"), "bee\n").unwrap();
    let server = ScriptedServer::start(vec![
        support::calls_interleaved(&[
            ("c1", "read_file", r#"{"path": "greet.py"}"#),
            ("c2", "read_file", r#"{"path": "b.txt"}"#),
            ("c3", "list_files", r#"{}"#),
        ]),
        support::text_reply("Read them."),
    ])
    .await;
    let run = exec(dir.path(), &server, "supervised", "read both").await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let answered = support::tool_messages(&server.requests()[1]);
    let ids: Vec<&str> = answered.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["c1", "c2", "c3"]);
    assert!(answered[1].1["output"].as_str().unwrap().contains("bee"));
}

async fn dialect_reads_file(first: Reply) -> (Run, Vec<(String, Value)>) {
    let dir = workspace();
    let server = ScriptedServer::start(vec![first, support::text_reply("ok")]).await;
    let run = exec(dir.path(), &server, "supervised", "read greet.py").await;
    assert_eq!(run.code, 0, "{}\n{:#?}", run.stderr, run.events);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    (run, support::tool_messages(&requests[1]))
}

#[tokio::test(flavor = "multi_thread")]
async fn llamacpp_dialect() {
    let (_, answered) = dialect_reads_file(support::calls_llamacpp(&[(
        "lc1",
        "read_file",
        r#"{"path":"greet.py"}"#,
    )]))
    .await;
    assert_eq!(answered[0].0, "lc1");
    assert!(
        answered[0].1["output"]
            .as_str()
            .unwrap()
            .contains("def greet")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn ollama_dialect_without_ids() {
    let (run, answered) = dialect_reads_file(support::calls_ollama(&[
        ("read_file", json!({"path": "greet.py"})),
        ("list_files", json!({})),
    ]))
    .await;
    assert_eq!(answered.len(), 2);
    assert_ne!(answered[0].0, answered[1].0, "synthesised ids are distinct");
    let call_ids: Vec<&str> = run
        .of_type("tool_call")
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(call_ids, [answered[0].0.as_str(), answered[1].0.as_str()]);
}

#[tokio::test(flavor = "multi_thread")]
async fn tool_call_written_in_text_runs_and_is_not_prose() {
    let (run, answered) = dialect_reads_file(support::calls_in_text(
        "Let me read it. ",
        "read_file",
        json!({"path": "greet.py"}),
    ))
    .await;
    assert_eq!(answered.len(), 1);
    assert!(
        answered[0].1["output"]
            .as_str()
            .unwrap()
            .contains("def greet")
    );
    let said = run.of_type("assistant_message");
    assert_eq!(said[0]["text"], "Let me read it. ");
    assert!(
        !said
            .iter()
            .any(|m| m["text"].as_str().unwrap().contains("tool_call"))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn bare_json_call_is_recovered() {
    let (run, answered) = dialect_reads_file(support::call_as_bare_json(
        "read_file",
        json!({"path": "greet.py"}),
    ))
    .await;
    assert_eq!(answered.len(), 1);
    assert_eq!(
        run.of_type("assistant_message").len(),
        1,
        "only the final answer is prose"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn rate_limit_then_success_emits_a_retry() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        support::status(429, "slow down", Some("0")),
        support::status(503, "overloaded", None),
        support::text_reply("hello"),
    ])
    .await;
    let run = exec(dir.path(), &server, "supervised", "hi").await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let retries = run.of_type("retry");
    assert_eq!(retries.len(), 2);
    assert_eq!(retries[0]["attempt"], 2);
    assert!(retries[0]["reason"].as_str().unwrap().contains("429"));
    assert!(retries[0]["reason"].as_str().unwrap().contains("slow down"));
    assert_eq!(retries[1]["attempt"], 3);
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_auth_failure_says_how_to_set_the_key() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![support::status(401, "invalid api key", None)]).await;
    let run = exec(dir.path(), &server, "supervised", "hi").await;
    assert_eq!(run.code, 1);
    let msg = run.of_type("error")[0]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        msg.contains("invalid api key") && msg.contains("--api-key-env"),
        "{msg}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn client_errors_are_not_retried() {
    let dir = workspace();
    let server =
        ScriptedServer::start(vec![support::status(400, "model not found: nope", None)]).await;
    let run = exec(dir.path(), &server, "supervised", "hi").await;
    assert_eq!(run.code, 1);
    assert!(run.of_type("retry").is_empty());
    let err = run.of_type("error");
    assert!(
        err[0]["message"]
            .as_str()
            .unwrap()
            .contains("model not found: nope")
    );
    assert_eq!(server.requests().len(), 1);
}

/// A stream cut after text was shown is continued, not failed and not repeated from the
/// start (issue 12): the model gets what it said and is asked to go on.
#[tokio::test(flavor = "multi_thread")]
async fn cut_stream_after_text_is_continued() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        support::cut_after("This answer will be cut somewhere in the middle", 3),
        support::text_reply("…and here is the rest."),
    ])
    .await;
    let run = exec(dir.path(), &server, "supervised", "hi").await;
    assert_eq!(run.code, 0, "{:#?}", run.events);
    let retries = run.of_type("retry");
    assert_eq!(retries.len(), 1);
    assert!(
        retries[0]["reason"].as_str().unwrap().contains("continue"),
        "{retries:?}"
    );
    assert_eq!(server.remaining(), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn cut_stream_before_anything_is_retried() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        support::cut_after("", 0),
        support::text_reply("second time lucky"),
    ])
    .await;
    let run = exec(dir.path(), &server, "supervised", "hi").await;
    assert_eq!(run.code, 0, "{:#?}", run.events);
    assert_eq!(run.of_type("retry").len(), 1);
    assert_eq!(
        run.of_type("assistant_message")[0]["text"],
        "second time lucky"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn invalid_argument_json_reaches_the_model_as_an_error() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("bad", "read_file", r#"{"path": greet.py}"#)]),
        support::text_reply("sorry"),
    ])
    .await;
    let run = exec(dir.path(), &server, "supervised", "read").await;
    assert_eq!(run.code, 0);
    let result = run.of_type("tool_result")[0];
    assert_eq!(result["success"], false);
    assert!(result["error"].as_str().unwrap().contains("not valid JSON"));
    // The event shows what the model wrote (it said "{}", which the conversation keeps
    // so strict servers accept it).
    assert_eq!(
        run.of_type("tool_call")[0]["arguments"],
        r#"{"path": greet.py}"#
    );
    let answered = support::tool_messages(&server.requests()[1]);
    let sent = &server.requests()[1]["messages"][2]["tool_calls"][0]["function"]["arguments"];
    assert_eq!(sent, "{}", "the conversation keeps valid JSON");
    assert_eq!(answered[0].0, "bad");
    assert!(
        answered[0].1["error"]
            .as_str()
            .unwrap()
            .contains("not valid JSON")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_tool_lists_the_real_ones() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("u1", "delete_everything", "{}")]),
        support::text_reply("ok"),
    ])
    .await;
    let run = exec(dir.path(), &server, "full-auto", "go").await;
    assert_eq!(run.code, 0);
    let answered = support::tool_messages(&server.requests()[1]);
    let err = answered[0].1["error"].as_str().unwrap();
    assert!(err.contains("unknown tool `delete_everything`"), "{err}");
    assert!(err.contains("read_file, write_file, edit_file"), "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn supervised_denial_leaves_the_file_untouched() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[(
            "e1",
            "edit_file",
            r#"{"path": "greet.py", "old_str": "hello", "new_str": "bye"}"#,
        )]),
        support::calls_openai(&[("b1", "bash", r#"{"command": "touch made-by-bash"}"#)]),
        support::text_reply("I could not change it."),
    ])
    .await;
    let run = exec(dir.path(), &server, "supervised", "change it").await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("greet.py")).unwrap(),
        "def greet():\n    return 'hello'\n"
    );
    assert!(!dir.path().join("made-by-bash").exists());
    let approvals = run.of_type("approval");
    assert_eq!(approvals.len(), 2);
    for a in approvals {
        assert_eq!(a["decision"], "denied");
        assert_eq!(a["by"], "policy");
        assert!(
            a["reason"]
                .as_str()
                .unwrap()
                .contains("--approval full-auto")
        );
    }
    let answered = support::tool_messages(&server.requests()[1]);
    assert!(answered[0].1["error"].as_str().unwrap().contains("denied"));
}

#[tokio::test(flavor = "multi_thread")]
async fn read_only_denies_writes_and_commands() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[
            ("w", "write_file", r#"{"path": "new.txt", "content": "x"}"#),
            ("b", "bash", r#"{"command": "touch made.txt"}"#),
            ("l", "bash", r#"{"command": "ls"}"#),
            ("r", "read_file", r#"{"path": "greet.py"}"#),
        ]),
        support::text_reply("ok"),
    ])
    .await;
    let run = exec(dir.path(), &server, "read-only", "go").await;
    assert_eq!(run.code, 0);
    assert!(!dir.path().join("new.txt").exists());
    assert!(!dir.path().join("made.txt").exists());
    let answered = support::tool_messages(&server.requests()[1]);
    let write_err = answered[0].1["error"].as_str().unwrap();
    assert!(write_err.contains("read-only"), "{write_err}");
    let denied = answered[1].1["error"].as_str().unwrap();
    assert!(
        denied.contains("read-only mode runs only read-only commands"),
        "{denied}"
    );
    assert_eq!(
        answered[2].1["success"], true,
        "read-only commands still run"
    );
    assert_eq!(answered[3].1["success"], true);
}

#[tokio::test(flavor = "multi_thread")]
async fn tool_round_cap_stops_runaway_loops() {
    let dir = workspace();
    std::fs::create_dir_all(dir.path().join(".loom")).unwrap();
    std::fs::write(
        dir.path().join(".loom/config.toml"),
        "max_tool_rounds = 2\n",
    )
    .unwrap();
    let read = || support::calls_openai(&[("r", "list_files", "{}")]);
    let server =
        ScriptedServer::start(vec![read(), read(), read(), support::text_reply("x")]).await;
    let run = exec(dir.path(), &server, "supervised", "loop").await;
    assert_eq!(run.code, 1);
    let err = run.of_type("error");
    assert!(
        err[0]["message"].as_str().unwrap().contains("2 rounds"),
        "{err:?}"
    );
    assert_eq!(server.requests().len(), 3);
    assert_eq!(run.of_type("turn_completed")[0]["end"], "round_cap");
}

#[tokio::test(flavor = "multi_thread")]
async fn prompt_from_stdin_and_bad_usage() {
    let dir = workspace();
    let home = dir.path().join(".home");
    let server = ScriptedServer::start(vec![support::text_reply("from stdin")]).await;
    let mut child = loom_command(&home)
        .args(["exec", "--json", "--model", "m", "--base-url"])
        .arg(server.base_url())
        .arg("-C")
        .arg(dir.path())
        .arg("-")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use tokio::io::AsyncWriteExt;
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"question on stdin").await.unwrap();
    drop(stdin);
    let out = child.wait_with_output().await.unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        server.requests()[0]["messages"][1]["content"],
        "question on stdin"
    );

    let out = loom_command(&home)
        .args(["exec", "--approval", "sometimes", "hi"])
        .arg("-C")
        .arg(dir.path())
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown approval mode"));
}

#[tokio::test(flavor = "multi_thread")]
async fn human_output_streams_text_to_stdout_and_tools_to_stderr() {
    let dir = workspace();
    let home = dir.path().join(".home");
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("r", "read_file", r#"{"path": "greet.py"}"#)]),
        support::text_reply("All good."),
    ])
    .await;
    let out = loom_command(&home)
        .args(["exec", "--model", "m", "--base-url"])
        .arg(server.base_url())
        .arg("-C")
        .arg(dir.path())
        .arg("look")
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "All good.");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("→ read_file"), "{err}");
    assert!(err.contains("✓ read_file"), "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn models_lists_what_the_server_offers() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![]).await;
    let out = loom_command(&dir.path().join(".home"))
        .args(["models", "--base-url"])
        .arg(server.base_url())
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "* scripted-model"
    );
}

/// Zero-config start: with no base URL and no key, Loom probes the usual local servers
/// and uses the first that answers (here one on LM Studio's port, after Ollama's is found
/// closed), with its first model.
#[tokio::test(flavor = "multi_thread")]
async fn with_nothing_configured_a_local_server_is_found() {
    let Some(server) =
        ScriptedServer::start_on("127.0.0.1:1234", vec![support::text_reply("found you")]).await
    else {
        eprintln!("127.0.0.1:1234 is taken on this machine; skipping the discovery check");
        return;
    };
    if std::net::TcpStream::connect("127.0.0.1:11434").is_ok() {
        eprintln!("an Ollama-like server listens on 11434 here; skipping the discovery check");
        return;
    }
    let dir = workspace();
    let home = dir.path().join(".home");
    let out = loom_command(&home)
        .args(["exec", "--json", "-C"])
        .arg(dir.path())
        .arg("hi")
        .output()
        .await
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let first: Value =
        serde_json::from_str(String::from_utf8_lossy(&out.stdout).lines().next().unwrap()).unwrap();
    assert_eq!(first["model"], "scripted-model");
    assert!(String::from_utf8_lossy(&out.stdout).contains("found you"));
    assert_eq!(server.requests()[0]["model"], "scripted-model");

    let listed = loom_command(&home).arg("models").output().await.unwrap();
    assert_eq!(
        String::from_utf8_lossy(&listed.stdout).trim(),
        "* scripted-model"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_key_and_extra_headers_reach_the_server() {
    let dir = workspace();
    // In the person's own config: a project's headers wait for trust (project_trust.rs).
    let user_config = dir.path().join(".home/.config/loom");
    std::fs::create_dir_all(&user_config).unwrap();
    std::fs::write(
        user_config.join("config.toml"),
        "headers = { \"X-Title\" = \"loom-test\" }\n",
    )
    .unwrap();
    let server = ScriptedServer::start(vec![support::text_reply("ok")]).await;
    let out = loom_command(&dir.path().join(".home"))
        .env("LOOM_TEST_KEY", "sk-test-123")
        .args([
            "exec",
            "--json",
            "--model",
            "m",
            "--api-key-env",
            "LOOM_TEST_KEY",
        ])
        .arg("--base-url")
        .arg(server.base_url())
        .arg("-C")
        .arg(dir.path())
        .arg("hi")
        .output()
        .await
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let headers = &server.request_headers()[0];
    assert_eq!(headers["authorization"], "Bearer sk-test-123");
    assert_eq!(headers["x-title"], "loom-test");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unreachable_server_is_retried_then_reported() {
    let dir = workspace();
    std::fs::create_dir_all(dir.path().join(".loom")).unwrap();
    std::fs::write(dir.path().join(".loom/config.toml"), "max_retries = 2\n").unwrap();
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let out = loom_command(&dir.path().join(".home"))
        .args(["exec", "--json", "--model", "m", "--base-url"])
        .arg(format!("http://127.0.0.1:{port}/v1"))
        .arg("-C")
        .arg(dir.path())
        .arg("hi")
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let events: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let retries = events.iter().filter(|e| e["type"] == "retry").count();
    assert_eq!(retries, 1, "two attempts in all");
    let error = events.iter().find(|e| e["type"] == "error").unwrap();
    let msg = error["message"].as_str().unwrap();
    assert!(
        msg.contains("cannot reach the model server") && msg.contains("gave up after 2 attempts"),
        "{msg}"
    );
}

/// A command that changes files is followed by a `command_changed` event naming each file
/// with its line counts, before the call's `tool_result`; a command that changes nothing
/// sends none.
#[tokio::test(flavor = "multi_thread")]
async fn a_commands_changed_files_reach_json_as_command_changed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("old.txt"), "one\ntwo\n").unwrap();
    std::fs::write(dir.path().join(".gitignore"), ".home/\n").unwrap();
    let make = json!({"command": "printf 'a\\nb\\n' > made.txt && printf 'one\\n' > old.txt"});
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("b1", "bash", &make.to_string())]),
        support::calls_openai(&[("b2", "bash", r#"{"command": "touch old.txt"}"#)]),
        support::text_reply("Done."),
    ])
    .await;
    let run = exec(dir.path(), &server, "full-auto", "make a file").await;
    assert_eq!(run.code, 0, "{}\n{:?}", run.stderr, run.events);
    let changed = run.of_type("command_changed");
    assert_eq!(changed.len(), 1, "{:?}", run.events);
    assert_eq!(changed[0]["id"], "b1");
    assert_eq!(
        changed[0]["files"],
        json!([
            {"path": "made.txt", "lines_added": 2, "lines_removed": 0},
            {"path": "old.txt", "lines_added": 0, "lines_removed": 1},
        ])
    );
    let at = |t: &str, id: &str| {
        run.events
            .iter()
            .position(|e| e["type"] == t && e["id"] == id)
            .unwrap()
    };
    assert!(at("command_changed", "b1") < at("tool_result", "b1"));
}

/// Regression: a server that numbers its calls per response (`call_0` in every answer)
/// gave two calls of a session the same id, and the screen showed the earlier call's
/// output and diff under the later one. A repeated id is replaced by a fresh one, which
/// the events and the model's messages both carry.
#[tokio::test(flavor = "multi_thread")]
async fn a_call_id_the_server_gives_again_is_made_unique() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("call_0", "bash", r#"{"command": "echo first"}"#)]),
        support::calls_openai(&[("call_0", "bash", r#"{"command": "echo second"}"#)]),
        support::text_reply("done"),
    ])
    .await;
    let run = exec(dir.path(), &server, "full-auto", "echo twice").await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let calls: Vec<&str> = run
        .of_type("tool_call")
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(calls, ["call_0", "call_0_2"]);
    let results = run.of_type("tool_result");
    assert_eq!(results[1]["id"], "call_0_2");
    assert_eq!(results[1]["data"]["stdout"], "second\n", "{}", results[1]);
    let last = &server.requests()[2]["messages"];
    let pairs: Vec<(String, String)> = last
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| match m["role"].as_str() {
            Some("assistant") => Some(("call".into(), m["tool_calls"][0]["id"].to_string())),
            Some("tool") => Some(("result".into(), m["tool_call_id"].to_string())),
            _ => None,
        })
        .collect();
    let want: Vec<(String, String)> = [
        ("call", "\"call_0\""),
        ("result", "\"call_0\""),
        ("call", "\"call_0_2\""),
        ("result", "\"call_0_2\""),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(pairs, want);
}
