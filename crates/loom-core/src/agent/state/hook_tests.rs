//! The machine's side of hooks: Stop hooks that make the model go on (capped), and a
//! prompt's context from UserPromptSubmit hooks.

use super::*;

fn answer(text: &str) -> Event {
    Event::LlmFinished {
        text: text.into(),
        calls: Vec::new(),
        usage: Usage::default(),
        stop: Stop::Complete,
    }
}

fn turn_ended(actions: &[Action]) -> bool {
    actions
        .iter()
        .any(|a| matches!(a, Action::Emit(AgentEvent::TurnComplete { .. })))
}

fn stop_hooks(actions: &[Action]) -> Option<bool> {
    actions.iter().find_map(|a| match a {
        Action::RunStopHooks { stop_hook_active } => Some(*stop_hook_active),
        _ => None,
    })
}

#[test]
fn without_stop_hooks_a_final_answer_ends_the_turn_at_once() {
    let mut m = Machine::new(Limits::default());
    m.step(Event::Submit("hi".into()));
    let out = m.step(answer("done"));
    assert!(turn_ended(&out) && stop_hooks(&out).is_none());
}

#[test]
fn a_blocking_stop_hook_makes_the_model_go_on_until_the_cap() {
    let mut m = Machine::new(Limits::default());
    m.set_stop_hooks(true);
    m.step(Event::Submit("fix it".into()));
    let out = m.step(answer("done"));
    assert_eq!(stop_hooks(&out), Some(false), "first stop: not yet active");
    assert!(!turn_ended(&out));
    assert_eq!(m.phase(), Phase::PostToolsHook);
    for round in 0..STOP_HOOK_CAP {
        let out = m.step(Event::StopHooksFinished {
            block: Some("tests fail".into()),
        });
        assert!(has_call(&out), "round {round}: the model is asked again");
        let last = m.conversation().last().unwrap();
        assert!(
            matches!(last, Message::User { content, .. } if content.contains("tests fail")),
            "{last:?}"
        );
        let out = m.step(answer("done now"));
        assert_eq!(
            stop_hooks(&out),
            Some(true),
            "stop_hook_active after a block"
        );
    }
    let out = m.step(Event::StopHooksFinished {
        block: Some("tests fail".into()),
    });
    assert!(turn_ended(&out), "the cap ends the turn");
    assert!(!has_call(&out));
    assert!(out.iter().any(|a| matches!(a,
        Action::Emit(AgentEvent::Notice { message }) if message.contains("times"))));
    // The next turn starts with a fresh count.
    m.step(Event::Submit("again".into()));
    assert_eq!(stop_hooks(&m.step(answer("ok"))), Some(false));
    assert!(turn_ended(
        &m.step(Event::StopHooksFinished { block: None })
    ));
}

fn has_call(actions: &[Action]) -> bool {
    actions.iter().any(|a| matches!(a, Action::CallLlm { .. }))
}

#[test]
fn an_interrupt_during_stop_hooks_ends_the_turn_and_their_late_answer_is_ignored() {
    let mut m = Machine::new(Limits::default());
    m.set_stop_hooks(true);
    m.step(Event::Submit("x".into()));
    m.step(answer("done"));
    let out = m.step(Event::Interrupt {
        partial_text: String::new(),
    });
    assert!(out.contains(&Action::CancelTools) && turn_ended(&out));
    let out = m.step(Event::StopHooksFinished {
        block: Some("late".into()),
    });
    assert!(out.is_empty(), "{out:?}");
    assert_eq!(m.phase(), Phase::Idle);
}

#[test]
fn a_prompts_hook_context_follows_it_also_when_queued() {
    let mut m = Machine::new(Limits::default());
    m.step(Event::SubmitWithContext {
        input: "first".into(),
        context: Some("ctx one".into()),
    });
    m.step(Event::SubmitWithContext {
        input: "second".into(),
        context: Some("ctx two".into()),
    });
    m.step(answer("answered"));
    let texts: Vec<&str> = m
        .conversation()
        .iter()
        .filter_map(|msg| match msg {
            Message::User { content, .. } => Some(content.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(texts, ["first", "ctx one", "second", "ctx two"]);
}

#[test]
fn a_blocked_prompt_comes_back_unsent_between_turns_and_is_dropped_mid_turn() {
    let mut m = Machine::new(Limits::default());
    let out = m.step(Event::PromptBlocked {
        input: "my password".into(),
        reason: "no passwords".into(),
    });
    assert!(m.conversation().is_empty());
    assert!(out.iter().any(|a| matches!(a,
        Action::Emit(AgentEvent::Error { message }) if message.contains("no passwords"))));
    assert!(out.iter().any(|a| matches!(a,
        Action::Emit(AgentEvent::TurnComplete { end: TurnEnd::Failed, unsent, .. })
            if unsent == &["my password".to_string()])));
    m.step(Event::Submit("work".into()));
    let out = m.step(Event::PromptBlocked {
        input: "queued secret".into(),
        reason: "no".into(),
    });
    assert!(!turn_ended(&out), "a running turn goes on");
    assert_eq!(m.phase(), Phase::CallingLlm);
}
