use super::*;

use HookEvent::*;

fn ended<'a>(code: i32, stdout: &'a str, stderr: &'a str) -> Ended<'a> {
    Ended {
        exit_code: Some(code),
        timed_out: false,
        stdout,
        stderr,
    }
}

fn effect(event: HookEvent, code: i32, stdout: &str, stderr: &str) -> Effect {
    interpret(event, ended(code, stdout, stderr)).effect
}

#[test]
fn exit_2_blocks_with_stderr_and_ignores_stdout() {
    assert_eq!(
        effect(PreToolUse, 2, r#"{"decision":"approve"}"#, "no rm here\n"),
        Effect::Block("no rm here".into())
    );
    let e = effect(Stop, 2, "", "");
    assert!(
        matches!(&e, Effect::Block(r) if r.contains("Stop hook")),
        "{e:?}"
    );
}

#[test]
fn other_exits_timeouts_and_signals_are_errors_that_do_not_block() {
    assert_eq!(
        effect(PreToolUse, 1, "", "oops"),
        Effect::Failed("exit code 1: oops".into())
    );
    let timed_out = Ended {
        exit_code: None,
        timed_out: true,
        stdout: "",
        stderr: "",
    };
    assert!(
        matches!(interpret(Stop, timed_out).effect, Effect::Failed(m) if m.contains("timed out"))
    );
    let killed = Ended {
        exit_code: None,
        timed_out: false,
        stdout: "",
        stderr: "",
    };
    assert!(matches!(interpret(Stop, killed).effect, Effect::Failed(m) if m.contains("signal")));
}

#[test]
fn plain_stdout_is_context_only_for_session_start_and_prompts() {
    let r = interpret(SessionStart, ended(0, "branch: main\n", ""));
    assert_eq!(
        (r.effect, r.context.as_deref()),
        (Effect::Proceed, Some("branch: main"))
    );
    let r = interpret(UserPromptSubmit, ended(0, "ticket ABC-1", ""));
    assert_eq!(r.context.as_deref(), Some("ticket ABC-1"));
    for event in [PreToolUse, PostToolUse, Stop, Notification] {
        let r = interpret(event, ended(0, "chatter", ""));
        assert_eq!((r.effect, r.context), (Effect::Proceed, None), "{event:?}");
    }
}

#[test]
fn pre_tool_use_permission_decisions() {
    let json = |d: &str| {
        format!(
            r#"{{"hookSpecificOutput":{{"hookEventName":"PreToolUse","permissionDecision":"{d}","permissionDecisionReason":"because"}}}}"#
        )
    };
    assert_eq!(
        effect(PreToolUse, 0, &json("deny"), ""),
        Effect::Block("because".into())
    );
    assert_eq!(
        effect(PreToolUse, 0, &json("ask"), ""),
        Effect::Ask("because".into())
    );
    assert_eq!(effect(PreToolUse, 0, &json("allow"), ""), Effect::Allow);
    assert_eq!(effect(PreToolUse, 0, &json("maybe"), ""), Effect::Proceed);
    assert_eq!(
        effect(PreToolUse, 0, r#"{"decision":"approve","reason":"ok"}"#, ""),
        Effect::Allow
    );
    // A permission decision means nothing for other events.
    assert_eq!(effect(PostToolUse, 0, &json("deny"), ""), Effect::Proceed);
    assert_eq!(
        effect(Stop, 0, r#"{"decision":"approve"}"#, ""),
        Effect::Proceed
    );
}

#[test]
fn decision_block_reason_context_and_system_message() {
    let r = interpret(
        PostToolUse,
        ended(
            0,
            r#"{"decision":"block","reason":"lint failed","systemMessage":"hi","hookSpecificOutput":{"additionalContext":"see lint.log"}}"#,
            "",
        ),
    );
    assert_eq!(r.effect, Effect::Block("lint failed".into()));
    assert_eq!(r.context.as_deref(), Some("see lint.log"));
    assert_eq!(r.system_message.as_deref(), Some("hi"));
    assert_eq!(
        effect(Stop, 0, r#"{"decision":"block"}"#, ""),
        Effect::Block("blocked by a Stop hook".into())
    );
}

#[test]
fn continue_false_blocks_except_for_stop() {
    let json = r#"{"continue":false,"stopReason":"frozen"}"#;
    assert_eq!(
        effect(UserPromptSubmit, 0, json, ""),
        Effect::Block("frozen".into())
    );
    assert_eq!(effect(Stop, 0, json, ""), Effect::Proceed);
}

#[test]
fn input_has_claude_codes_common_fields_then_the_events() {
    let common = Common {
        session_id: "s1".into(),
        transcript_path: Some("/t.jsonl".into()),
        cwd: "/w".into(),
    };
    let mut fields = Map::new();
    fields.insert("prompt".into(), Value::from("hi"));
    let v = input(UserPromptSubmit, &common, fields);
    assert_eq!(
        v,
        serde_json::json!({"session_id": "s1", "transcript_path": "/t.jsonl", "cwd": "/w",
            "hook_event_name": "UserPromptSubmit", "prompt": "hi"})
    );
}
