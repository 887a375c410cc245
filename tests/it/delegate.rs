//! `delegate` through the real binary: a sub-agent built like the top agent reads files and
//! answers, its events carry `parent_id` in the JSONL, its write is refused in supervised
//! exec, nesting stops at depth 2, and Ctrl+C ends its running command.

use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::AsyncBufReadExt;

use crate::exec::{exec, loom_command};
use crate::support::{self, ScriptedServer};

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(".gitignore"), ".home/\n").unwrap();
    std::fs::write(dir.path().join("a.txt"), "alpha says 1\n").unwrap();
    std::fs::write(dir.path().join("b.txt"), "beta says 2\n").unwrap();
    dir
}

fn tool_names(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_sub_agent_reads_two_files_and_the_parent_gets_its_summary() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[(
            "d1",
            "delegate",
            r#"{"task": "Read a.txt and b.txt and say what they say."}"#,
        )]),
        support::calls_openai(&[
            ("s1", "read_file", r#"{"path": "a.txt"}"#),
            ("s2", "read_file", r#"{"path": "b.txt"}"#),
        ]),
        support::text_reply("a.txt says 1 and b.txt says 2."),
        support::text_reply("The files say 1 and 2."),
    ])
    .await;
    let run = exec(dir.path(), &server, "supervised", "what do the files say?").await;
    assert_eq!(run.code, 0, "{}\n{:#?}", run.stderr, run.events);

    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    let sub = &requests[1];
    assert_eq!(
        tool_names(sub),
        ["read_file", "list_files", "search_files", "bash"],
        "read-only tools by default"
    );
    let system = sub["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("You are a sub-agent (depth 1)"), "{system}");
    assert_eq!(
        sub["messages"][1]["content"], "Read a.txt and b.txt and say what they say.",
        "the sub-agent sees only its task"
    );
    assert_eq!(sub["messages"].as_array().unwrap().len(), 2);

    let nested_calls: Vec<&Value> = run
        .of_type("tool_call")
        .into_iter()
        .filter(|e| e["parent_id"] == "d1")
        .collect();
    assert_eq!(nested_calls.len(), 2, "{:#?}", run.events);
    assert_eq!(nested_calls[0]["name"], "read_file");
    let nested_results: Vec<&Value> = run
        .of_type("tool_result")
        .into_iter()
        .filter(|e| e["parent_id"] == "d1")
        .collect();
    assert_eq!(nested_results.len(), 2);
    assert!(nested_results.iter().all(|r| r["success"] == true));
    let nested_answer = run
        .of_type("assistant_message")
        .into_iter()
        .find(|e| e["parent_id"] == "d1")
        .expect("the sub-agent's answer, nested");
    assert_eq!(nested_answer["text"], "a.txt says 1 and b.txt says 2.");
    let top_results: Vec<&Value> = run
        .of_type("tool_result")
        .into_iter()
        .filter(|e| e.get("parent_id").is_none())
        .collect();
    assert_eq!(top_results.len(), 1);
    let delegate = top_results[0];
    assert_eq!(delegate["name"], "delegate");
    assert_eq!(
        delegate["data"]["files_read"],
        serde_json::json!(["a.txt", "b.txt"])
    );
    let order: Vec<usize> = [nested_calls[0], delegate]
        .iter()
        .map(|e| run.events.iter().position(|x| x == *e).unwrap())
        .collect();
    assert!(
        order[0] < order[1],
        "nested events come before the delegate's result"
    );

    let answered = &support::tool_messages(&requests[3])[0];
    assert_eq!(answered.0, "d1");
    let output = answered.1["output"].as_str().unwrap();
    assert!(
        output.starts_with("a.txt says 1 and b.txt says 2.")
            && output.contains("Files it looked at: a.txt, b.txt"),
        "{output}"
    );
    let top_done = run
        .of_type("turn_completed")
        .into_iter()
        .filter(|e| e.get("parent_id").is_none())
        .count();
    assert_eq!(top_done, 1);

    // The sub-agent's own conversation is kept, beside the session, not listed as one.
    let sessions = dir.path().join(".home/.local/share/loom/sessions");
    let top: Vec<_> = std::fs::read_dir(&sessions)
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .collect();
    assert_eq!(top.len(), 1, "one session file");
    let id = top[0]
        .path()
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .to_string();
    let transcript = std::fs::read_to_string(sessions.join(&id).join("sub-1-d1.jsonl"))
        .expect("the sub-agent's transcript");
    assert!(
        transcript.contains("Read a.txt and b.txt and say what they say.")
            && transcript.contains("a.txt says 1 and b.txt says 2.")
            && transcript.contains("\"s2\""),
        "its task, its calls and its answer: {transcript}"
    );
    let listed = crate::exec::loom_in(dir.path(), &["sessions"]).await;
    assert!(!listed.1.contains("sub-1-d1"), "{}", listed.1);
    let removed = crate::exec::loom_in(dir.path(), &["sessions", "rm", &id]).await;
    assert_eq!(removed.0, 0, "{}", removed.2);
    assert!(!sessions.join(&id).exists(), "removed with its session");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_sub_agents_write_is_denied_in_supervised_exec() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[(
            "d1",
            "delegate",
            r#"{"task": "Create c.txt saying 3.", "tools": ["read_file", "write_file"]}"#,
        )]),
        support::calls_openai(&[("w1", "write_file", r#"{"path": "c.txt", "content": "3\n"}"#)]),
        support::text_reply("I could not write c.txt: it was refused."),
        support::text_reply("The write was refused."),
    ])
    .await;
    let run = exec(dir.path(), &server, "supervised", "make c.txt").await;
    assert_eq!(run.code, 0, "{}\n{:#?}", run.stderr, run.events);
    assert!(!dir.path().join("c.txt").exists(), "nothing was written");
    let requests = server.requests();
    assert_eq!(tool_names(&requests[1]), ["read_file", "write_file"]);
    let denial = run
        .of_type("approval")
        .into_iter()
        .find(|e| e["parent_id"] == "d1" && e["id"] == "w1")
        .expect("the sub-agent's write was judged");
    assert_eq!(denial["decision"], "denied");
    assert!(
        denial["reason"].as_str().unwrap().contains("headless"),
        "{denial}"
    );
    let refused = &support::tool_messages(&requests[2])[0].1;
    assert_eq!(refused["success"], false, "{refused}");
}

#[tokio::test(flavor = "multi_thread")]
async fn sub_agents_nest_at_most_two_levels() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        // The top agent delegates, and lets its sub-agent delegate too.
        support::calls_openai(&[(
            "d1",
            "delegate",
            r#"{"task": "Find out what a.txt says.", "tools": ["read_file", "delegate"]}"#,
        )]),
        // Depth 1 asks for a sub-agent that could delegate again: refused.
        support::calls_openai(&[(
            "d2",
            "delegate",
            r#"{"task": "Read a.txt.", "tools": ["read_file", "delegate"]}"#,
        )]),
        // Depth 1 asks for a plain one.
        support::calls_openai(&[(
            "d3",
            "delegate",
            r#"{"task": "Read a.txt.", "tools": ["read_file"]}"#,
        )]),
        // Depth 2 has no delegate tool, but tries anyway.
        support::calls_openai(&[("d4", "delegate", r#"{"task": "Read it for me."}"#)]),
        support::text_reply("a.txt says 1."),
        support::text_reply("It says 1."),
        support::text_reply("a.txt says 1, two levels down."),
    ])
    .await;
    let run = exec(dir.path(), &server, "supervised", "what does a.txt say?").await;
    assert_eq!(run.code, 0, "{}\n{:#?}", run.stderr, run.events);
    let requests = server.requests();
    assert_eq!(requests.len(), 7, "no third level was started");
    assert!(tool_names(&requests[1]).contains(&"delegate".to_string()));
    assert_eq!(
        tool_names(&requests[3]),
        ["read_file"],
        "depth 2 is offered no delegate"
    );
    let result = |id: &str| {
        run.of_type("tool_result")
            .into_iter()
            .find(|e| e["id"] == id)
            .unwrap_or_else(|| panic!("no result for {id}: {:#?}", run.events))
            .clone()
    };
    let d2 = result("d2");
    assert_eq!(d2["parent_id"], "d1");
    assert!(
        d2["error"]
            .as_str()
            .unwrap()
            .contains("nest at most 2 levels"),
        "{d2}"
    );
    let d4 = result("d4");
    assert_eq!(
        d4["parent_id"], "d3",
        "a depth-2 event names its own parent"
    );
    assert!(
        d4["error"]
            .as_str()
            .unwrap()
            .contains("unknown tool `delegate`"),
        "{d4}"
    );
    assert_eq!(result("d3")["success"], true);
    assert_eq!(result("d1")["success"], true);
}

/// Whether a process whose command line is exactly `argv` is alive.
fn running(argv: &[&str]) -> bool {
    let wanted: Vec<u8> = argv
        .iter()
        .flat_map(|a| [a.as_bytes(), b"\0"].concat())
        .collect();
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .any(|e| std::fs::read(e.path().join("cmdline")).is_ok_and(|c| c == wanted))
}

#[tokio::test(flavor = "multi_thread")]
async fn interrupting_ends_the_sub_agents_running_command() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("d1", "delegate", r#"{"task": "Wait a while."}"#)]),
        support::calls_openai(&[("s1", "bash", r#"{"command": "sleep 47.25"}"#)]),
        support::text_reply("never reached"),
        support::text_reply("never reached"),
    ])
    .await;
    let home = dir.path().join(".home");
    std::fs::create_dir_all(&home).unwrap();
    let mut child = loom_command(&home)
        .args(["exec", "--json", "--approval", "supervised", "--model", "m"])
        .arg("--base-url")
        .arg(server.base_url())
        .arg("-C")
        .arg(dir.path())
        .arg("wait")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let saw_call = tokio::time::timeout(Duration::from_secs(30), async {
        while let Ok(Some(line)) = lines.next_line().await {
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["type"] == "tool_call" && v["name"] == "bash" && v["parent_id"] == "d1" {
                return true;
            }
        }
        false
    })
    .await
    .unwrap_or(false);
    assert!(saw_call, "the sub-agent proposed its command");
    let argv = ["sleep", "47.25"];
    let started = Instant::now();
    while !running(&argv) && started.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(running(&argv), "the sub-agent's command runs");
    let pid = nix::unistd::Pid::from_raw(child.id().unwrap() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).unwrap();
    let status = tokio::time::timeout(Duration::from_secs(15), child.wait())
        .await
        .expect("loom exits after the interrupt")
        .unwrap();
    assert_eq!(status.code(), Some(130));
    let gone = Instant::now();
    while running(&argv) && gone.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!running(&argv), "the sub-agent's command was ended");
    // Regression: the sub-agent's last events came after its parent's turn had ended, and
    // `loom exec` stopped printing there; its command's result and the end of its turn
    // were only in its transcript.
    let mut after = Vec::new();
    while let Ok(Some(line)) = lines.next_line().await {
        after.push(serde_json::from_str::<Value>(&line).unwrap());
    }
    let of_sub = |kind: &str| {
        after
            .iter()
            .any(|v| v["type"] == kind && v["parent_id"] == "d1")
    };
    assert!(of_sub("tool_result"), "{after:#?}");
    assert!(of_sub("turn_completed"), "{after:#?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn several_delegates_of_one_response_run_at_once() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[
            ("d1", "delegate", r#"{"task": "Wait, then say one."}"#),
            ("d2", "delegate", r#"{"task": "Wait, then say two."}"#),
        ]),
        // Each sub-agent gets one of these two (whichever asks first), then an answer.
        support::calls_openai(&[("w", "bash", r#"{"command": "sleep 2"}"#)]),
        support::calls_openai(&[("w", "bash", r#"{"command": "sleep 2"}"#)]),
        support::text_reply("done waiting"),
        support::text_reply("done waiting"),
        support::text_reply("Both waited."),
    ])
    .await;
    let run = exec(dir.path(), &server, "supervised", "wait twice").await;
    assert_eq!(run.code, 0, "{}\n{:#?}", run.stderr, run.events);
    let position = |kind: &str, parent: &str| {
        run.events
            .iter()
            .position(|e| e["type"] == kind && e["parent_id"] == parent)
            .unwrap_or_else(|| panic!("no {kind} of {parent}: {:#?}", run.events))
    };
    let first_result = position("tool_result", "d1").min(position("tool_result", "d2"));
    assert!(
        position("tool_call", "d1") < first_result && position("tool_call", "d2") < first_result,
        "both sub-agents had started their command before either finished: {:#?}",
        run.events
    );
    let results = support::tool_messages(&server.requests()[5]);
    assert_eq!(results.len(), 2);
    assert!(
        results.iter().all(|(_, r)| r["success"] == true),
        "{results:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_interrupt_cancels_the_sub_agents_command_while_loom_runs_on() {
    use loom::agent::{AgentEvent, UserOp};
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("d1", "delegate", r#"{"task": "Wait a while."}"#)]),
        support::calls_openai(&[("s1", "bash", r#"{"command": "sleep 48.75"}"#)]),
    ])
    .await;
    let mut agent = crate::agent::start_agent(dir.path(), &server, "supervised");
    agent
        .ops
        .send(UserOp::Submit {
            text: "wait".into(),
            images: Vec::new(),
        })
        .unwrap();
    let argv = ["sleep", "48.75"];
    let started = Instant::now();
    while !running(&argv) && started.elapsed() < Duration::from_secs(20) {
        tokio::time::sleep(Duration::from_millis(50)).await;
        while let Ok(e) = agent.events.try_recv() {
            if let AgentEvent::ApprovalRequested { .. } = e {
                panic!("a read-only command needs no approval: {e:?}");
            }
        }
    }
    assert!(running(&argv), "the sub-agent's command runs");
    agent.ops.send(UserOp::Interrupt).unwrap();
    let gone = Instant::now();
    while running(&argv) && gone.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        !running(&argv),
        "the interrupt reached the sub-agent's command"
    );
    assert!(!agent.task.is_finished(), "the agent itself goes on");
    let _ = agent.ops.send(UserOp::Shutdown);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_person_approves_a_sub_agents_write_through_the_parent() {
    use loom::agent::{AgentEvent, ApprovalAnswer, UserOp};
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[(
            "d1",
            "delegate",
            r#"{"task": "Create c.txt saying 3.", "tools": ["write_file"]}"#,
        )]),
        support::calls_openai(&[("w1", "write_file", r#"{"path": "c.txt", "content": "3\n"}"#)]),
        support::text_reply("Wrote c.txt."),
        support::text_reply("The sub-agent wrote c.txt."),
    ])
    .await;
    let mut agent = crate::agent::start_agent(dir.path(), &server, "supervised");
    agent
        .ops
        .send(UserOp::Submit {
            text: "make c.txt".into(),
            images: Vec::new(),
        })
        .unwrap();
    let mut asked = false;
    let mut delegate_result = None;
    loop {
        let event = tokio::time::timeout(Duration::from_secs(20), agent.events.recv())
            .await
            .expect("the turn goes on")
            .expect("the agent runs");
        match event {
            AgentEvent::SubAgent { parent_id, event } => {
                if let AgentEvent::ApprovalRequested { id, .. } = *event {
                    assert_eq!((parent_id.as_str(), id.as_str()), ("d1", "w1"));
                    asked = true;
                    agent
                        .ops
                        .send(UserOp::ToSubAgent {
                            parent_id,
                            inner: Box::new(UserOp::Approve {
                                id,
                                answer: ApprovalAnswer::Approve,
                            }),
                        })
                        .unwrap();
                }
            }
            AgentEvent::ApprovalRequested { id, .. } => {
                panic!("the delegate call itself needs no approval ({id})")
            }
            AgentEvent::ToolResult { id, result, .. } if id == "d1" => {
                delegate_result = Some(result)
            }
            AgentEvent::TurnComplete { .. } => break,
            _ => {}
        }
    }
    assert!(asked, "the person was asked about the sub-agent's write");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("c.txt")).unwrap(),
        "3\n"
    );
    let result = delegate_result.expect("the delegate call's result");
    assert!(result.success, "{result:?}");
    assert_eq!(result.files_changed, ["c.txt"]);
    let _ = agent.ops.send(UserOp::Shutdown);
}

/// Regression: a sub-agent numbered its turns from 1, and so did a resumed session, so
/// `undo --turn` after a delegate in a resumed session also took back the first run's
/// changes. Turns now go on from the journal's last, and a sub-agent's changes belong to
/// its parent's turn.
#[tokio::test(flavor = "multi_thread")]
async fn undoing_a_turn_takes_back_its_sub_agents_changes_and_nothing_older() {
    let dir = workspace();
    let first = ScriptedServer::start(vec![
        support::calls_openai(&[(
            "w1",
            "write_file",
            r#"{"path": "one.txt", "content": "1\n"}"#,
        )]),
        support::text_reply("wrote a"),
    ])
    .await;
    let run = exec(dir.path(), &first, "full-auto", "write a").await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let id = run.events[0]["session_id"].as_str().unwrap().to_string();

    let second = ScriptedServer::start(vec![
        support::calls_openai(&[(
            "d1",
            "delegate",
            r#"{"task": "Create two.txt saying 2.", "tools": ["write_file"]}"#,
        )]),
        support::calls_openai(&[(
            "w2",
            "write_file",
            r#"{"path": "two.txt", "content": "2\n"}"#,
        )]),
        support::text_reply("wrote b"),
        support::text_reply("b is written"),
    ])
    .await;
    let out = loom_command(&dir.path().join(".home"))
        .args(["exec", "--json", "--model", "m", "--approval", "full-auto"])
        .args(["--resume", &id, "--base-url", &second.base_url(), "-C"])
        .arg(dir.path())
        .arg("now b")
        .output()
        .await
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        dir.path().join("two.txt").exists(),
        "the sub-agent wrote two.txt"
    );

    let (code, _, err) = crate::exec::loom_in(dir.path(), &["undo", "--turn", "--yes"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(
        !dir.path().join("two.txt").exists(),
        "the sub-agent's write is undone"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("one.txt")).unwrap(),
        "1\n",
        "the first run's turn is not touched"
    );
}
