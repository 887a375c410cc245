//! Tests of the pure state machine: scripted flows, and property tests over random event
//! sequences for the guarantees the runner and the front ends rely on.

use super::*;
use crate::llm::message::check_tool_answers;
use proptest::prelude::*;

fn call(id: &str, name: &str, kind: ToolKind) -> ProposedCall {
    ProposedCall {
        call: ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: "{}".into(),
        },
        kind,
        args: serde_json::json!({}).into(),
        intent: Some(match kind {
            ToolKind::Write => crate::tools::CallIntent::Writes(Vec::new()),
            ToolKind::Execute => crate::tools::CallIntent::runs(crate::tools::CommandIntent {
                command: "true".into(),
                cwd: None,
                outside_sandbox: false,
            }),
            _ => crate::tools::CallIntent::reads([]),
        }),
        invalid: None,
        note: None,
    }
}

fn finished(calls: Vec<ProposedCall>) -> Event {
    Event::LlmFinished {
        text: String::new(),
        calls,
        usage: Usage::default(),
        stop: Stop::Complete,
    }
}

fn decides(actions: &[Action]) -> Vec<String> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Decide { id } => Some(id.clone()),
            _ => None,
        })
        .collect()
}

fn has(actions: &[Action], pred: impl Fn(&Action) -> bool) -> bool {
    actions.iter().any(pred)
}

/// A read-kind call (delegate) whose result reports changed files runs the post-tools hooks
/// on them, as a write would.
#[test]
fn a_read_call_that_reports_changed_files_runs_the_hooks() {
    let mut m = Machine::new(Limits::default());
    m.step(Event::Submit("go".into()));
    m.step(finished(vec![call("d1", "delegate", ToolKind::Read)]));
    m.step(Event::Decided {
        id: "d1".into(),
        verdict: Verdict::Allow,
    });
    let a = m.step(Event::ToolFinished {
        id: "d1".into(),
        result: ToolResult::ok("wrote it").with_files(vec!["a.txt".into()]),
        duration_ms: 1,
    });
    assert!(
        has(
            &a,
            |x| matches!(x, Action::RunHooks { files } if files == &["a.txt"])
        ),
        "{a:?}"
    );
    assert_eq!(m.phase(), Phase::PostToolsHook);
}

#[test]
fn simple_answer_ends_the_turn() {
    let mut m = Machine::new(Limits::default());
    let a = m.step(Event::Submit("hi".into()));
    assert!(has(&a, |x| matches!(x, Action::CallLlm { attempt: 1 })));
    assert_eq!(m.phase(), Phase::CallingLlm);
    let a = m.step(Event::LlmFinished {
        text: "hello".into(),
        calls: vec![],
        usage: Usage::default(),
        stop: Stop::Complete,
    });
    assert_eq!(m.phase(), Phase::Idle);
    assert!(has(&a, |x| matches!(
        x,
        Action::Emit(AgentEvent::TurnComplete {
            end: TurnEnd::Done,
            ..
        })
    )));
    assert_eq!(m.conversation().len(), 2);
}

#[test]
fn reads_run_concurrently_writes_one_at_a_time_in_order() {
    let mut m = Machine::new(Limits::default());
    m.step(Event::Submit("go".into()));
    let a = m.step(finished(vec![
        call("r1", "read_file", ToolKind::Read),
        call("r2", "read_file", ToolKind::Read),
        call("w1", "edit_file", ToolKind::Write),
        call("r3", "read_file", ToolKind::Read),
        call("x1", "bash", ToolKind::Execute),
    ]));
    assert_eq!(decides(&a), vec!["r1", "r2"]);
    m.step(Event::Decided {
        id: "r1".into(),
        verdict: Verdict::Allow,
    });
    m.step(Event::Decided {
        id: "r2".into(),
        verdict: Verdict::Allow,
    });
    let a = m.step(Event::ToolFinished {
        id: "r2".into(),
        result: ToolResult::ok("b"),
        duration_ms: 1,
    });
    assert!(decides(&a).is_empty(), "the write waits for r1");
    let a = m.step(Event::ToolFinished {
        id: "r1".into(),
        result: ToolResult::ok("a"),
        duration_ms: 1,
    });
    assert_eq!(decides(&a), vec!["w1"]);
    let a = m.step(Event::Decided {
        id: "w1".into(),
        verdict: Verdict::Ask {
            reason: "diff".into(),
        },
    });
    assert!(has(&a, |x| matches!(x, Action::AskUser { .. })));
    assert_eq!(m.phase(), Phase::AwaitingApproval);
    let a = m.step(Event::Answered {
        id: "w1".into(),
        answer: ApprovalAnswer::Approve,
    });
    assert!(has(
        &a,
        |x| matches!(x, Action::RunTool { id, answer: Some(_) } if id == "w1")
    ));
    assert_eq!(m.phase(), Phase::ExecutingTools);
    let a = m.step(Event::ToolFinished {
        id: "w1".into(),
        result: ToolResult::ok("done").with_files(vec!["a.rs".into()]),
        duration_ms: 2,
    });
    assert_eq!(
        decides(&a),
        vec!["r3"],
        "the read after the write waits for it; the command after waits for the read"
    );
    m.step(Event::Decided {
        id: "r3".into(),
        verdict: Verdict::Allow,
    });
    let a = m.step(Event::ToolFinished {
        id: "r3".into(),
        result: ToolResult::ok("c"),
        duration_ms: 1,
    });
    assert_eq!(decides(&a), vec!["x1"]);
    m.step(Event::Decided {
        id: "x1".into(),
        verdict: Verdict::Deny {
            reason: "no".into(),
        },
    });
    assert_eq!(m.phase(), Phase::PostToolsHook);
    let a = m.step(Event::HooksFinished { messages: vec![] });
    assert!(has(&a, |x| matches!(x, Action::CallLlm { .. })));
    check_tool_answers(m.conversation()).unwrap();
    let order: Vec<&str> = m
        .conversation()
        .iter()
        .filter_map(|msg| match msg {
            Message::Tool { tool_call_id, .. } => Some(tool_call_id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        order,
        vec!["r1", "r2", "w1", "r3", "x1"],
        "results keep the model's order"
    );
}

#[test]
fn retries_are_bounded_and_then_fail() {
    let mut m = Machine::new(Limits {
        max_tool_rounds: 50,
        max_llm_attempts: 3,
        ..Limits::default()
    });
    m.step(Event::Submit("hi".into()));
    let fail = || Event::LlmFailed {
        message: "HTTP 500".into(),
        retryable: true,
        partial_text: String::new(),
        emitted: false,
        retry_after: None,
        overflow: None,
    };
    let a = m.step(fail());
    assert!(has(&a, |x| matches!(
        x,
        Action::ScheduleRetry { attempt: 2, .. }
    )));
    m.step(Event::RetryElapsed);
    let a = m.step(fail());
    assert!(has(&a, |x| matches!(
        x,
        Action::ScheduleRetry { attempt: 3, .. }
    )));
    m.step(Event::RetryElapsed);
    let a = m.step(fail());
    assert!(!has(&a, |x| matches!(x, Action::ScheduleRetry { .. })));
    assert!(has(
        &a,
        |x| matches!(x, Action::Emit(AgentEvent::Error { message }) if message.contains("gave up after 3 attempts"))
    ));
    assert_eq!(m.phase(), Phase::Idle);
}

/// A stream cut after text was shown keeps the text and asks the model to continue from
/// it (issue 12); once the attempts are spent, the turn fails with the text kept.
#[test]
fn cut_stream_after_output_keeps_partial_text_and_continues() {
    let limits = Limits {
        max_tool_rounds: 4,
        max_llm_attempts: 2,
        ..Limits::default()
    };
    let mut m = Machine::new(limits);
    m.step(Event::Submit("hi".into()));
    let cut = |text: &str| Event::LlmFailed {
        message: "cut".into(),
        retryable: true,
        partial_text: text.into(),
        emitted: true,
        retry_after: None,
        overflow: None,
    };
    let a = m.step(cut("half an ans"));
    assert!(has(&a, |x| matches!(x, Action::ScheduleRetry { .. })));
    assert_eq!(
        m.conversation().last(),
        Some(&Message::Assistant {
            content: "half an ans".into(),
            tool_calls: vec![]
        })
    );
    m.step(Event::RetryElapsed);
    assert!(
        matches!(m.conversation().last(), Some(Message::User { content, .. }) if content.contains("Continue exactly")),
        "the instruction goes with the attempt"
    );
    let a = m.step(cut("wer, and"));
    assert!(!has(&a, |x| matches!(x, Action::ScheduleRetry { .. })));
    assert_eq!(m.phase(), Phase::Idle);
    assert_eq!(
        m.conversation().last(),
        Some(&Message::Assistant {
            content: "wer, and".into(),
            tool_calls: vec![]
        })
    );
}

#[test]
fn invalid_calls_get_error_results_without_running() {
    let mut m = Machine::new(Limits::default());
    m.step(Event::Submit("go".into()));
    let mut bad = call("b", "nope", ToolKind::Read);
    bad.invalid = Some("unknown tool `nope`".into());
    let a = m.step(finished(vec![bad]));
    assert!(decides(&a).is_empty());
    assert!(
        has(&a, |x| matches!(x, Action::CallLlm { .. })),
        "straight back to the model"
    );
    check_tool_answers(m.conversation()).unwrap();
}

#[test]
fn round_cap_stops_the_turn_with_answers() {
    let mut m = Machine::new(Limits {
        max_tool_rounds: 1,
        max_llm_attempts: 5,
        ..Limits::default()
    });
    m.step(Event::Submit("go".into()));
    m.step(finished(vec![call("a", "read_file", ToolKind::Read)]));
    m.step(Event::Decided {
        id: "a".into(),
        verdict: Verdict::Allow,
    });
    m.step(Event::ToolFinished {
        id: "a".into(),
        result: ToolResult::ok(""),
        duration_ms: 0,
    });
    let a = m.step(finished(vec![call("b", "read_file", ToolKind::Read)]));
    assert!(has(&a, |x| matches!(
        x,
        Action::Emit(AgentEvent::TurnComplete {
            end: TurnEnd::RoundCap,
            ..
        })
    )));
    assert_eq!(m.phase(), Phase::Idle);
    check_tool_answers(m.conversation()).unwrap();
}

#[test]
fn queued_messages_start_the_next_turn_or_come_back_after_interrupt() {
    let mut m = Machine::new(Limits::default());
    m.step(Event::Submit("one".into()));
    m.step(Event::Submit("two".into()));
    let a = m.step(Event::LlmFinished {
        text: "ok".into(),
        calls: vec![],
        usage: Usage::default(),
        stop: Stop::Complete,
    });
    assert!(
        has(&a, |x| matches!(x, Action::CallLlm { .. })),
        "the queued message is sent"
    );
    m.step(Event::Submit("three".into()));
    let a = m.step(Event::Interrupt {
        partial_text: "par".into(),
    });
    assert!(has(
        &a,
        |x| matches!(x, Action::Emit(AgentEvent::TurnComplete { unsent, .. }) if unsent == &vec!["three".to_string()])
    ));
    assert_eq!(m.phase(), Phase::Idle);
}

/// Regression: a queued message's image was lost when the turn was interrupted (only its
/// text came back to the composer). Its images now come back with it.
#[test]
fn an_interrupt_gives_back_the_images_of_queued_messages() {
    let shot = crate::llm::image::Image {
        name: "screen.png".into(),
        mime: "image/png".into(),
        data: "iVBORw0KGgo=".into(),
    };
    let mut m = Machine::new(Limits::default());
    m.step(Event::Submit("one".into()));
    m.step(Event::Submit(crate::agent::events::UserInput {
        text: "look at this".into(),
        images: vec![shot.clone()],
    }));
    let a = m.step(Event::Interrupt {
        partial_text: String::new(),
    });
    assert!(
        has(&a, |x| matches!(
            x,
            Action::Emit(AgentEvent::TurnComplete { unsent, unsent_images, .. })
                if unsent == &vec!["look at this".to_string()] && unsent_images == &vec![shot.clone()]
        )),
        "{a:#?}"
    );
}

#[test]
fn hunk_answers_with_nothing_selected_are_denials() {
    let mut m = Machine::new(Limits::default());
    m.step(Event::Submit("go".into()));
    m.step(finished(vec![call("w", "edit_file", ToolKind::Write)]));
    m.step(Event::Decided {
        id: "w".into(),
        verdict: Verdict::Ask { reason: "r".into() },
    });
    let a = m.step(Event::Answered {
        id: "w".into(),
        answer: ApprovalAnswer::ApproveHunks {
            hunks: vec![false, false],
        },
    });
    assert!(!has(&a, |x| matches!(x, Action::RunTool { .. })));
}

// ---- property tests ----

/// An abstract event; ids are picked from the live batch so many events are well-formed.
#[derive(Debug, Clone)]
enum Gen {
    Submit,
    Llm(Vec<u8>, u8),
    Fail {
        retryable: bool,
        emitted: bool,
        overflow: bool,
    },
    ContextFull,
    CompactNow,
    Compacted,
    CompactFailed,
    RetryElapsed,
    Decide(usize, u8),
    Answer(usize, u8),
    Finish(usize, bool),
    Hooks,
    Interrupt,
    Clear,
    Shutdown,
    Stale,
}

fn any_event() -> impl Strategy<Value = Gen> {
    prop_oneof![
        2 => Just(Gen::Submit),
        3 => (proptest::collection::vec(0u8..4, 0..4), 0u8..8)
            .prop_map(|(kinds, stop)| Gen::Llm(kinds, stop)),
        2 => (any::<bool>(), any::<bool>(), any::<bool>())
            .prop_map(|(retryable, emitted, overflow)| Gen::Fail { retryable, emitted, overflow }),
        1 => Just(Gen::ContextFull),
        1 => Just(Gen::CompactNow),
        1 => Just(Gen::Compacted),
        1 => Just(Gen::CompactFailed),
        1 => Just(Gen::RetryElapsed),
        4 => (0usize..4, 0u8..4).prop_map(|(i, v)| Gen::Decide(i, v)),
        3 => (0usize..4, 0u8..4).prop_map(|(i, v)| Gen::Answer(i, v)),
        4 => (0usize..4, any::<bool>()).prop_map(|(i, ok)| Gen::Finish(i, ok)),
        1 => Just(Gen::Hooks),
        1 => Just(Gen::Interrupt),
        1 => Just(Gen::Clear),
        1 => Just(Gen::Stale),
        1 => Just(Gen::Shutdown),
    ]
}

fn kind_of(k: u8) -> ToolKind {
    match k {
        0 | 1 => ToolKind::Read,
        2 => ToolKind::Write,
        _ => ToolKind::Execute,
    }
}

struct World {
    m: Machine,
    next_id: u32,
    ran: std::collections::HashSet<String>,
}

impl World {
    fn concrete(&mut self, g: Gen) -> Event {
        let ids: Vec<String> = self.m.batch.iter().map(|s| s.call.id.clone()).collect();
        let pick = |i: usize| {
            ids.get(i % ids.len().max(1))
                .cloned()
                .unwrap_or_else(|| "none".into())
        };
        match g {
            Gen::Submit => Event::Submit("msg".into()),
            Gen::Llm(kinds, stop) => Event::LlmFinished {
                text: "t".into(),
                calls: kinds
                    .into_iter()
                    .map(|k| {
                        self.next_id += 1;
                        let mut c = call(&format!("c{}", self.next_id), "tool", kind_of(k));
                        if k == 3 && self.next_id.is_multiple_of(3) {
                            c.invalid = Some("bad json".into());
                        }
                        c
                    })
                    .collect(),
                usage: Usage::default(),
                stop: match stop {
                    0 => Stop::Length,
                    1 => Stop::ContentFilter,
                    2 => Stop::StreamError {
                        message: "boom".into(),
                    },
                    _ => Stop::Complete,
                },
            },
            Gen::ContextFull => Event::ContextFull,
            Gen::CompactNow => Event::CompactNow,
            Gen::Compacted => Event::Compacted {
                conversation: self.m.conversation().to_vec(),
                report: crate::protocol::compaction::Report::default(),
            },
            Gen::CompactFailed => Event::CompactFailed {
                message: "too big".into(),
            },
            Gen::Fail {
                retryable,
                emitted,
                overflow,
            } => Event::LlmFailed {
                overflow: overflow.then(crate::llm::overflow::Overflow::default),
                message: "x".into(),
                retryable,
                partial_text: if emitted { "p".into() } else { String::new() },
                emitted,
                retry_after: None,
            },
            Gen::RetryElapsed => Event::RetryElapsed,
            Gen::Decide(i, v) => Event::Decided {
                id: pick(i),
                verdict: match v {
                    0 => Verdict::Allow,
                    1 => Verdict::Ask { reason: "r".into() },
                    2 => Verdict::Deny { reason: "d".into() },
                    _ => Verdict::Failed {
                        result: ToolResult::err("f"),
                    },
                },
            },
            Gen::Answer(i, v) => Event::Answered {
                id: pick(i),
                answer: match v {
                    0 => ApprovalAnswer::Approve,
                    1 => ApprovalAnswer::ApproveForSession,
                    2 => ApprovalAnswer::ApproveHunks {
                        hunks: vec![true, false],
                    },
                    _ => ApprovalAnswer::Deny { reason: None },
                },
            },
            Gen::Finish(i, ok) => Event::ToolFinished {
                id: pick(i),
                result: if ok {
                    ToolResult::ok("o")
                } else {
                    ToolResult::err("e")
                },
                duration_ms: 1,
            },
            Gen::Hooks => Event::HooksFinished {
                messages: vec!["hook said".into()],
            },
            Gen::Interrupt => Event::Interrupt {
                partial_text: "part".into(),
            },
            Gen::Clear => Event::Clear,
            Gen::Shutdown => Event::Shutdown,
            Gen::Stale => Event::ToolFinished {
                id: "c0-stale".into(),
                result: ToolResult::ok("late"),
                duration_ms: 1,
            },
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    // Invariants over any sequence of events:
    // - every CallLlm happens with every tool call answered exactly once by its id;
    // - retries are bounded (the attempt number never exceeds the limit);
    // - a call runs at most once, and only while it is in the live batch;
    // - Idle means no open batch; Shutdown always ends in ShuttingDown and stays there;
    // - Interrupt from any non-final state returns to Idle and cancels running tools.
    #[test]
    fn machine_invariants(events in proptest::collection::vec(any_event(), 1..60)) {
        let limits = Limits { max_tool_rounds: 4, max_llm_attempts: 3, ..Limits::default() };
        let mut w = World { m: Machine::new(limits), next_id: 0, ran: Default::default() };
        for g in events {
            let event = w.concrete(g);
            let before = w.m.phase();
            let running_before = w.m.batch.iter().any(|s| s.status == SlotStatus::Running);
            let live: Vec<String> = w.m.batch.iter().map(|s| s.call.id.clone()).collect();
            let is_shutdown = matches!(event, Event::Shutdown);
            let is_interrupt = matches!(event, Event::Interrupt { .. });
            let actions = w.m.step(event);
            for a in &actions {
                match a {
                    Action::CallLlm { attempt } => {
                        prop_assert!(check_tool_answers(w.m.conversation()).is_ok(),
                            "{:?}", check_tool_answers(w.m.conversation()));
                        prop_assert!(*attempt <= limits.max_llm_attempts);
                    }
                    Action::ScheduleRetry { attempt, .. } => prop_assert!(*attempt <= limits.max_llm_attempts),
                    Action::RunTool { id, .. } => {
                        prop_assert!(live.contains(id) || w.m.batch.iter().any(|s| &s.call.id == id));
                        prop_assert!(w.ran.insert(id.clone()), "{id} ran twice");
                    }
                    _ => {}
                }
            }
            if w.m.phase() == Phase::Idle {
                prop_assert!(w.m.batch.is_empty());
            }
            if is_shutdown || before == Phase::ShuttingDown {
                prop_assert_eq!(w.m.phase(), Phase::ShuttingDown);
            }
            if is_interrupt && before != Phase::ShuttingDown {
                prop_assert!(matches!(w.m.phase(), Phase::Idle));
                if running_before {
                    prop_assert!(actions.contains(&Action::CancelTools));
                }
            }
        }
    }

    // Invariant: ShuttingDown is reachable from every state reached by any prefix.
    #[test]
    fn shutdown_reachable_from_every_state(events in proptest::collection::vec(any_event(), 0..40)) {
        let mut w = World { m: Machine::new(Limits::default()), next_id: 0, ran: Default::default() };
        for g in events {
            let e = w.concrete(g);
            w.m.step(e);
            let mut copy = w.m.clone();
            let actions = copy.step(Event::Shutdown);
            prop_assert_eq!(copy.phase(), Phase::ShuttingDown);
            prop_assert!(actions.contains(&Action::Stop) || w.m.phase() == Phase::ShuttingDown);
        }
    }
}

/// Regression (issue 12): calls of a response cut by the token limit ran. None is decided
/// or run, each is answered with why, the incomplete last one is dropped, and the model is
/// asked to go on; a model that keeps being cut stops at the round cap.
#[test]
fn a_length_cut_response_runs_none_of_its_calls_and_asks_the_model_to_go_on() {
    let limits = Limits {
        max_tool_rounds: 2,
        max_llm_attempts: 3,
        ..Limits::default()
    };
    let mut m = Machine::new(limits);
    m.step(Event::Submit("go".into()));
    let cut = |m: &mut Machine| {
        let mut incomplete = call("c9", "read_file", ToolKind::Read);
        incomplete.invalid = Some("arguments are not valid JSON".into());
        m.step(Event::LlmFinished {
            text: String::new(),
            calls: vec![call("c1", "write_file", ToolKind::Write), incomplete],
            usage: Usage::default(),
            stop: Stop::Length,
        })
    };
    let a = cut(&mut m);
    assert!(!has(&a, |x| matches!(
        x,
        Action::Decide { .. } | Action::RunTool { .. }
    )));
    assert!(
        has(&a, |x| matches!(x, Action::CallLlm { .. })),
        "asked to go on"
    );
    assert!(check_tool_answers(m.conversation()).is_ok());
    let answered: Vec<&Message> = m
        .conversation()
        .iter()
        .filter(|x| matches!(x, Message::Tool { .. }))
        .collect();
    assert_eq!(
        answered.len(),
        1,
        "the incomplete call is dropped, not answered"
    );
    cut(&mut m);
    let a = cut(&mut m);
    assert!(has(&a, |x| matches!(
        x,
        Action::Emit(AgentEvent::TurnComplete {
            end: TurnEnd::RoundCap,
            ..
        })
    )));
    assert_eq!(m.phase(), Phase::Idle);
}

#[test]
fn a_cut_text_answer_ends_the_turn_as_truncated() {
    let mut m = Machine::new(Limits::default());
    m.step(Event::Submit("explain".into()));
    let a = m.step(Event::LlmFinished {
        text: "First, the".into(),
        calls: vec![],
        usage: Usage::default(),
        stop: Stop::Length,
    });
    assert!(has(&a, |x| matches!(
        x,
        Action::Emit(AgentEvent::TurnComplete {
            end: TurnEnd::Truncated,
            ..
        })
    )));
    assert!(has(&a, |x| matches!(
        x,
        Action::Emit(AgentEvent::Error { .. })
    )));
}

/// Review finding: a message typed during `/compact` was queued and never sent.
#[test]
fn a_message_typed_during_a_requested_compaction_is_sent_after_it() {
    let mut m = Machine::new(Limits::default());
    m.step(Event::Submit("first".into()));
    m.step(Event::LlmFinished {
        text: "done".into(),
        calls: vec![],
        usage: Usage::default(),
        stop: Stop::Complete,
    });
    let a = m.step(Event::CompactNow);
    assert!(has(&a, |x| matches!(x, Action::Compact)));
    m.step(Event::Submit("second".into()));
    let a = m.step(Event::Compacted {
        conversation: m.conversation().to_vec(),
        report: crate::protocol::compaction::Report::default(),
    });
    assert!(
        has(&a, |x| matches!(x, Action::CallLlm { .. })),
        "the queued message goes"
    );
    assert!(
        matches!(m.conversation().last(), Some(Message::User { content, .. }) if content == "second")
    );

    // Esc during a requested compaction gives typed messages back.
    let mut m = Machine::new(Limits::default());
    m.step(Event::Submit("first".into()));
    m.step(Event::LlmFinished {
        text: "done".into(),
        calls: vec![],
        usage: Usage::default(),
        stop: Stop::Complete,
    });
    m.step(Event::CompactNow);
    m.step(Event::Submit("typed meanwhile".into()));
    let a = m.step(Event::Interrupt {
        partial_text: String::new(),
    });
    assert!(has(&a, |x| matches!(
        x,
        Action::Emit(AgentEvent::TurnComplete { unsent, .. }) if unsent == &["typed meanwhile".to_string()]
    )));
    assert_eq!(m.phase(), Phase::Idle);
}

/// Review finding: Esc while waiting to continue a broken answer left the "continue"
/// instruction in the conversation.
#[test]
fn an_interrupt_before_the_continuation_leaves_no_stale_instruction() {
    let mut m = Machine::new(Limits::default());
    m.step(Event::Submit("hi".into()));
    m.step(Event::LlmFailed {
        message: "cut".into(),
        retryable: true,
        partial_text: "half".into(),
        emitted: true,
        retry_after: None,
        overflow: None,
    });
    m.step(Event::Interrupt {
        partial_text: String::new(),
    });
    assert!(
        !m.conversation().iter().any(
            |x| matches!(x, Message::User { content, .. } if content.contains("Continue exactly"))
        ),
        "{:?}",
        m.conversation()
    );
}

/// A model that refused images gets no more of the tools' images: once they were taken out,
/// a later screenshot's result names its file but attaches nothing.
#[test]
fn after_the_model_refused_images_tools_attach_no_more() {
    let shot = crate::llm::image::Image {
        name: "shot-1.png".into(),
        mime: "image/png".into(),
        data: "iVBORw0KGgo=".into(),
    };
    let run_one = |m: &mut Machine, id: &str| {
        m.step(finished(vec![call(id, "browser", ToolKind::Read)]));
        m.step(Event::Decided {
            id: id.into(),
            verdict: Verdict::Allow,
        });
        m.step(Event::ToolFinished {
            id: id.into(),
            result: ToolResult::ok("saved").with_image(shot.clone()),
            duration_ms: 1,
        });
    };
    let mut m = Machine::new(Limits::default());
    m.step(Event::Submit("look".into()));
    run_one(&mut m, "b1");
    assert!(m.images_only_from_tools());
    assert_eq!(m.strip_images(), vec!["shot-1.png".to_string()]);
    let before = m.conversation().len();
    run_one(&mut m, "b2");
    assert_eq!(
        m.conversation().len(),
        before + 2,
        "the call and its result only"
    );
    assert!(m.conversation().iter().all(|x| match x {
        Message::User { images, .. } => images.is_empty(),
        _ => true,
    }));
    // An image the person attached is not a tool's.
    let mut p = Machine::new(Limits::default());
    p.step(Event::Submit("see".into()));
    if let Some(Message::User { images, .. }) = p.conversation.last_mut() {
        images.push(shot.clone());
    }
    assert!(!p.images_only_from_tools());
}
