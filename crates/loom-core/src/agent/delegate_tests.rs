use super::*;
use crate::tools::ToolResult;
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn spec(tools: Option<&[&str]>, parent: Autonomy) -> SubAgentSpec {
    SubAgentSpec {
        depth: 1,
        tools: tools.map(|t| t.iter().map(|s| s.to_string()).collect()),
        max_rounds: 5,
        parent_autonomy: parent,
        label: "sub-agent of d1".into(),
        turn: 1,
        call: "d1".into(),
        task: "look".into(),
    }
}

#[test]
fn the_default_tools_are_read_only_and_a_write_tool_takes_the_parents_mode() {
    let all = ToolRegistry::builtin();
    let (r, autonomy) = sub_registry(&all, &spec(None, Autonomy::FullAuto)).unwrap();
    assert_eq!(r.names(), DEFAULT_TOOLS.to_vec());
    assert_eq!(
        autonomy,
        Autonomy::ReadOnly,
        "bash alone gets read-only commands"
    );
    let (r, autonomy) = sub_registry(
        &all,
        &spec(
            Some(&["read_file", "edit_file", "read_file"]),
            Autonomy::Supervised,
        ),
    )
    .unwrap();
    assert_eq!(r.names(), ["read_file", "edit_file"]);
    assert_eq!(autonomy, Autonomy::Supervised);
}

/// A parent that can only read (read-only or plan mode) cannot give a sub-agent write
/// tools: the call says so, instead of starting a sub-agent whose only tools are refused
/// (in plan mode it was started with no tools at all, and a prompt describing some).
#[test]
fn a_parent_that_only_reads_cannot_give_write_tools() {
    let all = ToolRegistry::builtin();
    for parent in [Autonomy::ReadOnly, Autonomy::Plan] {
        let err =
            sub_registry(&all, &spec(Some(&["read_file", "write_file"]), parent)).unwrap_err();
        assert!(
            err.contains(&format!("in {} mode", parent.as_str()))
                && err.contains("cannot be given `write_file`; leave tools out for"),
            "{err}"
        );
        let (r, autonomy) = sub_registry(&all, &spec(Some(&["read_file"]), parent)).unwrap();
        assert_eq!(r.names(), ["read_file"]);
        assert_eq!(autonomy, Autonomy::ReadOnly);
    }
}

#[test]
fn unknown_empty_and_too_deep_tool_lists_are_errors() {
    let all = ToolRegistry::builtin();
    let err = sub_registry(&all, &spec(Some(&["rm_rf"]), Autonomy::Supervised)).unwrap_err();
    assert!(
        err.contains("unknown tool `rm_rf`") && err.contains("read_file, write_file"),
        "{err}"
    );
    let err = sub_registry(&all, &spec(Some(&[]), Autonomy::Supervised)).unwrap_err();
    assert!(err.contains("tools is empty"), "{err}");
    let mut deep = spec(Some(&["delegate"]), Autonomy::Supervised);
    deep.depth = MAX_DEPTH;
    let err = sub_registry(&all, &deep).unwrap_err();
    assert!(err.contains("at most 2 levels deep"), "{err}");
}

#[test]
fn the_prompt_says_what_a_sub_agent_is_and_may_do() {
    let s = spec(None, Autonomy::Supervised);
    let p = sub_agent_prompt(&s, Autonomy::ReadOnly);
    assert!(
        p.contains("sub-agent (depth 1)") && p.contains("at most 5 rounds"),
        "{p}"
    );
    assert!(p.contains("You can only read"));
    assert!(!sub_agent_prompt(&s, Autonomy::Supervised).contains("You can only read"));
}

struct NoFactory;
impl SubAgentFactory for NoFactory {
    fn sub_agent(self: Arc<Self>, _spec: SubAgentSpec) -> Result<RunnerParts, String> {
        Err("no sub-agents in this test".into())
    }
}

#[tokio::test]
async fn bad_arguments_the_depth_limit_and_a_failed_build_are_results() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::for_workspace(dir.path()).unwrap();
    let tool =
        |depth| DelegateTool::new(Arc::new(NoFactory), Arc::new(SubAgents::default()), depth);
    for (args, expected) in [
        (json!({"task": " "}), "the task is empty"),
        (
            json!({"task": "x", "max_rounds": 0}),
            "max_rounds must be 1 to 30",
        ),
        (
            json!({"task": "x", "max_rounds": 31}),
            "max_rounds must be 1 to 30",
        ),
        (json!({"task": "x", "rounds": 3}), "unknown field `rounds`"),
    ] {
        let err = tool(0).describe(&args).unwrap_err().to_string();
        assert!(err.contains(expected), "{args}: {err}");
        let r = tool(0).execute(args, &ctx).await;
        assert!(r.error.unwrap().contains(expected));
    }
    let r = tool(MAX_DEPTH).execute(json!({"task": "x"}), &ctx).await;
    assert!(r.error.unwrap().contains("nest at most 2 levels"));
    let r = tool(0).execute(json!({"task": "x"}), &ctx).await;
    assert_eq!(r.error.as_deref(), Some("no sub-agents in this test"));
    assert_eq!(
        tool(0).kind(),
        ToolKind::Read,
        "several delegates run at once"
    );
}

fn call(id: &str, path: &str) -> AgentEvent {
    AgentEvent::ToolCall {
        id: id.into(),
        name: "read_file".into(),
        arguments: json!({"path": path}),
        intent: Some(Box::new(CallIntent::reads([path.to_string()]))),
    }
}

fn result(id: &str, ok: bool, changed: &[&str]) -> AgentEvent {
    let r = if ok {
        ToolResult::ok("x")
    } else {
        ToolResult::err("no")
    };
    AgentEvent::ToolResult {
        id: id.into(),
        name: "read_file".into(),
        result: r.with_files(changed.iter().map(|s| s.to_string()).collect()),
        duration_ms: 1,
    }
}

fn usage(tokens: u64) -> AgentEvent {
    AgentEvent::Usage {
        usage: Usage {
            prompt_tokens: tokens,
            completion_tokens: 0,
            estimated: false,
            cached_prompt_tokens: 0,
        },
    }
}

fn done(end: TurnEnd) -> AgentEvent {
    AgentEvent::TurnComplete {
        usage: Usage::default(),
        end,
        unsent: Vec::new(),
        unsent_images: Vec::new(),
    }
}

#[tokio::test]
async fn drive_collects_the_answer_files_and_usage_and_forwards_events() {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let (ops, _ops_rx) = mpsc::unbounded_channel();
    for e in [
        AgentEvent::TextDelta { text: "a".into() },
        call("c1", "a.txt"),
        call("c2", "b.txt"),
        call("c3", "missing.txt"),
        result("c2", true, &["b.txt"]),
        result("c1", true, &[]),
        result("c3", false, &[]),
        usage(100),
        AgentEvent::AssistantMessage {
            text: "a and b agree".into(),
        },
        done(TurnEnd::Done),
        AgentEvent::Notice {
            message: "after the end".into(),
        },
    ] {
        tx.send(e).unwrap();
    }
    let mut forwarded = Vec::new();
    let run = drive(&mut rx, &ops, &CancellationToken::new(), 1000, |e| {
        forwarded.push(e)
    })
    .await;
    assert_eq!(run.answer, "a and b agree");
    assert_eq!(
        run.files_read,
        ["a.txt", "b.txt"],
        "failed reads are not counted"
    );
    assert_eq!(run.files_changed, ["b.txt"]);
    assert_eq!(run.calls, 3);
    assert_eq!(run.usage.prompt_tokens, 100);
    assert_eq!(run.end, Some(TurnEnd::Done));
    assert_eq!(
        forwarded.len(),
        9,
        "deltas are not forwarded; reading stops at the end"
    );
    let r = run.into_result();
    assert!(r.success);
    assert!(r.output.starts_with("a and b agree"));
    assert!(
        r.output.contains("Files it looked at: a.txt, b.txt"),
        "{}",
        r.output
    );
    assert_eq!(r.files_changed, ["b.txt"]);
    assert_eq!(r.data.unwrap()["files_read"], json!(["a.txt", "b.txt"]));
}

#[tokio::test]
async fn spending_the_token_budget_interrupts_the_sub_agent() {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let (ops, mut ops_rx) = mpsc::unbounded_channel();
    tx.send(usage(600)).unwrap();
    tx.send(usage(600)).unwrap();
    tx.send(AgentEvent::AssistantMessage {
        text: "partial".into(),
    })
    .unwrap();
    tx.send(done(TurnEnd::Interrupted)).unwrap();
    let run = drive(&mut rx, &ops, &CancellationToken::new(), 1000, |_| {}).await;
    assert_eq!(ops_rx.try_recv().unwrap(), UserOp::Interrupt);
    assert!(ops_rx.try_recv().is_err(), "interrupted once");
    assert!(run.over_budget);
    let r = run.into_result();
    assert!(r.success, "{r:?}");
    assert!(r.output.contains("budget of 400000 tokens"), "{}", r.output);
}

#[tokio::test]
async fn cancelling_interrupts_the_sub_agent_and_the_call_reports_it() {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let (ops, mut ops_rx) = mpsc::unbounded_channel();
    let cancel = CancellationToken::new();
    cancel.cancel();
    let feeder = tokio::spawn(async move {
        assert_eq!(ops_rx.recv().await, Some(UserOp::Interrupt));
        tx.send(done(TurnEnd::Interrupted)).unwrap();
    });
    let run = drive(&mut rx, &ops, &cancel, 1000, |_| {}).await;
    feeder.await.unwrap();
    assert!(run.cancelled);
    let r = run.into_result();
    assert_eq!(r.error.as_deref(), Some("cancelled by the user"));
}

#[test]
fn round_caps_failures_and_silence_are_explained() {
    let capped = SubRun {
        answer: "so far".into(),
        end: Some(TurnEnd::RoundCap),
        ..SubRun::default()
    };
    let r = capped.into_result();
    assert!(
        r.success && r.output.contains("used all its tool rounds"),
        "{r:?}"
    );
    let failed = SubRun {
        end: Some(TurnEnd::Failed),
        errors: vec!["the server said 500".into()],
        ..SubRun::default()
    };
    let err = failed.into_result().error.unwrap();
    assert!(
        err.contains("the sub-agent failed: the server said 500"),
        "{err}"
    );
    let gone = SubRun::default().into_result().error.unwrap();
    assert!(gone.contains("stopped without answering"), "{gone}");
    let silent = SubRun {
        end: Some(TurnEnd::Done),
        ..SubRun::default()
    };
    assert!(silent.into_result().output.contains("gave no answer"));
}

#[test]
fn ops_reach_only_a_running_sub_agent() {
    let hub = SubAgents::default();
    assert!(!hub.route("d1", UserOp::Interrupt));
    let (tx, mut rx) = mpsc::unbounded_channel();
    hub.register("d1", tx);
    assert!(hub.route("d1", UserOp::Interrupt));
    assert_eq!(rx.try_recv().unwrap(), UserOp::Interrupt);
    hub.unregister("d1");
    assert!(!hub.route("d1", UserOp::Interrupt));
    let (events, mut seen) = mpsc::unbounded_channel();
    hub.attach(events, Autonomy::Supervised);
    hub.forward("d1", AgentEvent::ToolStarted { id: "c".into() });
    assert_eq!(
        seen.try_recv().unwrap(),
        AgentEvent::SubAgent {
            parent_id: "d1".into(),
            event: Box::new(AgentEvent::ToolStarted { id: "c".into() }),
        }
    );
    hub.set_autonomy(Autonomy::FullAuto);
    assert_eq!(hub.autonomy(), Autonomy::FullAuto);
}
