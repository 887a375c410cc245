//! Rewind and fork (issue 28) through the agent's channels and the real binary, against
//! the scripted server: a rewind restores a file `write_file` changed and one a `bash`
//! command changed, cuts the conversation, and is what a resume sees; a fork leaves the
//! original session file byte-identical; `loom --fork ID@N` starts from prompt N.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use loom::agent::{AgentEvent, AgentHandle, ApprovalAnswer, Runner, UserOp};
use loom::changelog::Changelog;
use loom::compose;
use loom::config::{self, FlagConfig};
use loom::llm::Message;
use loom::session::{self, SessionLog};
use loom::setup::{self, Provider, SessionFiles};

use crate::agent::run_turn;
use crate::exec::loom_command;
use crate::support::{self, ScriptedServer};

const ID: &str = "20260101-000000-rwnd";

/// An agent on `work` whose transcript and journal live in `data` (resumed when
/// `conversation` is given).
fn start(
    work: &Path,
    data: &Path,
    server: &ScriptedServer,
    conversation: Option<Vec<Message>>,
) -> AgentHandle {
    let empty = data.join("empty.toml");
    std::fs::write(&empty, "").unwrap();
    let flags = FlagConfig {
        base_url: Some(server.base_url()),
        model: Some("scripted-model".into()),
        approval: Some("full-auto".into()),
        config_file: Some(empty),
        ..FlagConfig::default()
    };
    let config = config::load(work, &flags, &|_| None).unwrap();
    let root = std::fs::canonicalize(work).unwrap();
    let provider = Provider::Ready {
        settings: loom::llm::ProviderSettings::new(&server.base_url(), "scripted-model"),
        origin: "test".into(),
    };
    let sessions = data.join("sessions");
    let log = match &conversation {
        Some(_) => SessionLog::reopen(&sessions, ID).unwrap(),
        None => SessionLog::create(&sessions, ID, &root, "scripted-model").unwrap(),
    };
    let changelog = Changelog::open(data, ID, &root).unwrap();
    assert!(changelog.can_snapshot(), "git is needed to record commands");
    let files = SessionFiles {
        log: Some(log),
        changelog: Some(Arc::new(Mutex::new(changelog))),
        ..SessionFiles::none()
    };
    let ctx = setup::tool_context(&root, &config, ID).unwrap();
    Runner::spawn(compose::runner_parts(
        &config,
        &provider,
        ctx,
        true,
        conversation.unwrap_or_default(),
        files,
    ))
}

/// The next event that `pick` accepts (others are skipped), within 20 s.
async fn next<T>(agent: &mut AgentHandle, pick: impl Fn(AgentEvent) -> Option<T>) -> T {
    loop {
        let event = tokio::time::timeout(Duration::from_secs(20), agent.events.recv())
            .await
            .expect("the agent answers within 20 s")
            .expect("the agent is alive");
        if let AgentEvent::Error { message } = &event {
            panic!("the agent said: {message}");
        }
        if let Some(t) = pick(event) {
            return t;
        }
    }
}

fn session_file(data: &Path) -> PathBuf {
    data.join("sessions").join(format!("{ID}.jsonl"))
}

/// Three prompts: the first writes a.txt, the second rewrites it and runs a command that
/// writes out.log, the third only talks.
async fn three_turns(agent: &mut AgentHandle) {
    let approve = |_: &str, _: &_| ApprovalAnswer::Approve;
    run_turn(agent, "first", approve).await;
    run_turn(agent, "second", approve).await;
    run_turn(agent, "third", approve).await;
}

fn script() -> Vec<support::Reply> {
    vec![
        support::calls_openai(&[(
            "w1",
            "write_file",
            r#"{"path": "a.txt", "content": "one\n"}"#,
        )]),
        support::text_reply("wrote one"),
        support::calls_openai(&[
            (
                "w2",
                "write_file",
                r#"{"path": "a.txt", "content": "two\n"}"#,
            ),
            ("b1", "bash", r#"{"command": "echo built > out.log"}"#),
        ]),
        support::text_reply("wrote two and built"),
        support::text_reply("just talk"),
        support::text_reply("after the resume"),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn rewind_restores_edits_and_command_changes_and_a_resume_sees_it() {
    let work = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(script()).await;
    let mut agent = start(work.path(), data.path(), &server, None);
    three_turns(&mut agent).await;
    let a = work.path().join("a.txt");
    let log = work.path().join("out.log");
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "two\n");
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "built\n");

    agent.ops.send(UserOp::RewindList).unwrap();
    let prompts = next(&mut agent, |e| match e {
        AgentEvent::RewindPrompts { prompts } => Some(prompts),
        _ => None,
    })
    .await;
    let listed: Vec<(usize, &str, usize)> = prompts
        .iter()
        .map(|p| (p.n, p.text.as_str(), p.changes))
        .collect();
    assert_eq!(
        listed,
        vec![(1, "first", 3), (2, "second", 2), (3, "third", 0)]
    );

    let rewind = |apply| UserOp::Rewind {
        prompt: 2,
        apply,
        force: false,
    };
    agent.ops.send(rewind(false)).unwrap();
    let (diff, files) = next(&mut agent, |e| match e {
        AgentEvent::RewindPlanned { diff, files, .. } => Some((diff, files)),
        _ => None,
    })
    .await;
    assert!(diff.contains("-two") && diff.contains("+one"), "{diff}");
    assert!(diff.contains("-built"), "{diff}");
    assert_eq!(files.len(), 2, "{files:?}");
    assert_eq!(
        std::fs::read_to_string(&a).unwrap(),
        "two\n",
        "a plan changes nothing"
    );

    agent.ops.send(rewind(true)).unwrap();
    let text = next(&mut agent, |e| match e {
        AgentEvent::Rewound { text, .. } => Some(text),
        _ => None,
    })
    .await;
    assert_eq!(text, "second");
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "one\n");
    assert!(!log.exists(), "the command's file is gone");

    // The session file: the rewind recorded, the conversation cut, the old part kept.
    let path = session_file(data.path());
    let raw = std::fs::read_to_string(&path).unwrap();
    assert!(
        raw.contains(r#"{"t":"rewind","prompt":2,"text":"second"}"#),
        "{raw}"
    );
    assert!(
        raw.contains("wrote two and built"),
        "the cut part stays in the file"
    );
    let loaded = session::load(&path).unwrap();
    let users: Vec<String> = loaded
        .conversation
        .iter()
        .filter_map(|m| match m {
            Message::User { content, .. } => Some(content.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(users, vec!["first".to_string()]);
    assert_eq!(loaded.prompts.len(), 1);
    agent.ops.send(UserOp::Shutdown).unwrap();
    let _ = agent.task.await;

    // A resume continues the rewound conversation, and its prompts are marked again.
    let mut agent = start(
        work.path(),
        data.path(),
        &server,
        Some(loaded.conversation.clone()),
    );
    run_turn(&mut agent, "second, differently", |_, _| {
        ApprovalAnswer::Approve
    })
    .await;
    let sent = server.requests().last().cloned().unwrap();
    let contents: Vec<String> = sent["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(contents, vec!["first", "second, differently"]);
    let resumed = session::load(&path).unwrap();
    assert_eq!(resumed.prompts.len(), 2);
    agent.ops.send(UserOp::Shutdown).unwrap();
    let _ = agent.task.await;
}

#[tokio::test(flavor = "multi_thread")]
async fn fork_leaves_the_original_byte_identical_and_a_bad_prompt_is_refused() {
    let work = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(script()).await;
    let mut agent = start(work.path(), data.path(), &server, None);
    three_turns(&mut agent).await;
    let path = session_file(data.path());
    let before = std::fs::read(&path).unwrap();

    agent.ops.send(UserOp::Fork { prompt: Some(2) }).unwrap();
    let id = next(&mut agent, |e| match e {
        AgentEvent::Forked { id, prompt } => {
            assert_eq!(prompt, Some(2));
            Some(id)
        }
        _ => None,
    })
    .await;
    assert_eq!(std::fs::read(&path).unwrap(), before, "byte-identical");
    let fork = session::load(&data.path().join("sessions").join(format!("{id}.jsonl"))).unwrap();
    assert!(matches!(&fork.conversation[0], Message::User { content, .. } if content == "first"));
    assert_eq!(fork.prompts.len(), 1);
    assert_eq!(
        std::fs::read_to_string(work.path().join("a.txt")).unwrap(),
        "two\n",
        "a fork changes no file"
    );

    agent.ops.send(UserOp::Fork { prompt: Some(9) }).unwrap();
    let err = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            if let Some(AgentEvent::Error { message }) = agent.events.recv().await {
                return message;
            }
        }
    })
    .await
    .unwrap();
    assert!(err.contains("from 1 to 3"), "{err}");
    agent.ops.send(UserOp::Shutdown).unwrap();
    let _ = agent.task.await;
}

/// `loom exec --fork ID@2` sends the model the conversation before prompt 2 and the new
/// prompt; the original session file is untouched.
#[tokio::test(flavor = "multi_thread")]
async fn loom_fork_id_at_n_starts_from_that_prompt() {
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join(".gitignore"), ".home/\n").unwrap();
    let home = work.path().join(".home");
    let sessions = home.join(".local/share/loom/sessions");
    let root = std::fs::canonicalize(work.path()).unwrap();
    let mut log = SessionLog::create(&sessions, ID, &root, "scripted-model").unwrap();
    for (prompt, answer) in [("one", "answer one"), ("two", "answer two")] {
        log.append(&session::Record::Message {
            message: Message::user(prompt),
        })
        .unwrap();
        log.append(&session::Record::Prompt { seq: 1 }).unwrap();
        log.append(&session::Record::Message {
            message: Message::Assistant {
                content: answer.into(),
                tool_calls: Vec::new(),
            },
        })
        .unwrap();
    }
    let original = session_file(&home.join(".local/share/loom"));
    let before = std::fs::read(&original).unwrap();
    let server = ScriptedServer::start(vec![support::text_reply("forked answer")]).await;
    let out = loom_command(&home)
        .args(["exec", "--json", "--model", "scripted-model", "--fork"])
        .arg(format!("{ID}@2"))
        .arg("--base-url")
        .arg(server.base_url())
        .arg("-C")
        .arg(work.path())
        .arg("instead of two")
        .output()
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sent = &server.requests()[0];
    let said: Vec<(String, String)> = sent["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] != "system")
        .map(|m| {
            (
                m["role"].as_str().unwrap().to_string(),
                m["content"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let pairs: Vec<(&str, &str)> = said.iter().map(|(r, c)| (r.as_str(), c.as_str())).collect();
    assert_eq!(
        pairs,
        vec![
            ("user", "one"),
            ("assistant", "answer one"),
            ("user", "instead of two")
        ]
    );
    assert_eq!(std::fs::read(&original).unwrap(), before, "byte-identical");
    assert_eq!(
        std::fs::read_dir(&sessions).unwrap().count(),
        2,
        "the fork is a session of its own"
    );

    let bad = loom_command(&home)
        .args(["exec", "--model", "m", "--fork"])
        .arg(format!("{ID}@7"))
        .arg("-C")
        .arg(work.path())
        .arg("x")
        .output()
        .await
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("from 1 to 2"),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
}

/// The whole way through the screen: `Esc Esc` between turns lists the prompts, `Enter`
/// shows the diff, `y` restores the edited file and the command's file, and the prompt is
/// back in the message box.
#[tokio::test(flavor = "multi_thread")]
async fn esc_esc_in_the_tui_rewinds_files_and_gives_the_prompt_back() {
    let dir = tempfile::tempdir().unwrap();
    // Loom's data directory is in the workspace here: left out of its snapshots.
    std::fs::write(dir.path().join(".gitignore"), ".home/\n").unwrap();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[
            (
                "w1",
                "write_file",
                r#"{"path": "a.txt", "content": "one\n"}"#,
            ),
            ("b1", "bash", r#"{"command": "echo built > out.log"}"#),
        ]),
        support::text_reply("done one"),
    ])
    .await;
    let mut tui = crate::tui::Tui::start_with(
        dir.path(),
        &server,
        110,
        32,
        &["--approval", "full-auto"],
        &[],
    );
    tui.type_line("make it").await;
    tui.wait_for("done one").await;
    tui.wait_for("ready").await;
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "one\n"
    );
    assert!(dir.path().join("out.log").exists());
    tui.send("\x1b");
    tokio::time::sleep(Duration::from_millis(100)).await;
    tui.send("\x1b");
    tui.wait_for("Rewind to just before which prompt?").await;
    tui.send("\r");
    let confirm = tui.wait_for("Rewind to before prompt 1").await;
    assert!(confirm.contains("-built"), "{confirm}");
    tui.send("y");
    let screen = tui.wait_for("Rewound to just before prompt 1").await;
    assert!(!dir.path().join("a.txt").exists(), "the edit is undone");
    assert!(
        !dir.path().join("out.log").exists(),
        "the command's file is gone"
    );
    let message_box = screen
        .lines()
        .skip_while(|l| !l.contains("Message"))
        .nth(1)
        .unwrap_or("");
    assert!(message_box.contains("make it"), "{screen}");
    tui.quit_and_wait().await;
}

/// The next error the agent says, within 20 s.
async fn next_error(agent: &mut AgentHandle) -> String {
    tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            match agent.events.recv().await {
                Some(AgentEvent::Error { message }) => return message,
                Some(_) => {}
                None => panic!("the agent stopped"),
            }
        }
    })
    .await
    .expect("an error within 20 s")
}

/// A rewind is refused during a turn, and over a file changed since Loom wrote it unless
/// forced; a session without a file cannot list prompts.
#[tokio::test(flavor = "multi_thread")]
async fn rewind_refuses_during_a_turn_and_over_changed_files_unless_forced() {
    let work = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let release = Arc::new(tokio::sync::Notify::new());
    let mut replies = script();
    replies.insert(
        5,
        support::Reply::Stream(vec![support::Frame::Until(release.clone())]),
    );
    let server = ScriptedServer::start(replies).await;
    let mut agent = start(work.path(), data.path(), &server, None);
    three_turns(&mut agent).await;

    // During a turn (the model's answer held back).
    agent
        .ops
        .send(UserOp::Submit {
            text: "fourth".into(),
            images: Vec::new(),
        })
        .unwrap();
    next(&mut agent, |e| {
        matches!(
            e,
            AgentEvent::StateChanged {
                phase: loom::agent::Phase::CallingLlm
            }
        )
        .then_some(())
    })
    .await;
    agent
        .ops
        .send(UserOp::Rewind {
            prompt: 1,
            apply: true,
            force: false,
        })
        .unwrap();
    let err = next_error(&mut agent).await;
    assert!(err.contains("between turns"), "{err}");
    agent.ops.send(UserOp::Interrupt).unwrap();
    next(&mut agent, |e| {
        matches!(e, AgentEvent::TurnComplete { .. }).then_some(())
    })
    .await;

    // Over a file the person changed since Loom wrote it.
    let a = work.path().join("a.txt");
    std::fs::write(&a, "mine\n").unwrap();
    let rewind = |force| UserOp::Rewind {
        prompt: 1,
        apply: true,
        force,
    };
    agent.ops.send(rewind(false)).unwrap();
    let err = next_error(&mut agent).await;
    assert!(err.contains("a.txt changed since Loom wrote it"), "{err}");
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "mine\n", "untouched");
    agent.ops.send(rewind(true)).unwrap();
    next(&mut agent, |e| {
        matches!(e, AgentEvent::Rewound { .. }).then_some(())
    })
    .await;
    assert!(!a.exists(), "forced: back to before prompt 1");
    agent.ops.send(UserOp::Shutdown).unwrap();
    let _ = agent.task.await;

    // No session file: nothing to list.
    let mut bare = crate::agent::start_agent(work.path(), &server, "supervised");
    bare.ops.send(UserOp::RewindList).unwrap();
    let err = next_error(&mut bare).await;
    assert!(err.contains("not recorded"), "{err}");
}
