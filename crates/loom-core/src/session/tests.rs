//! Tests of the session transcript (moved out of mod.rs to keep it short).

use super::*;
use crate::llm::ToolCall;

fn call(id: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: "read_file".into(),
        arguments: "{}".into(),
    }
}

#[test]
fn write_then_load_roundtrip() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = SessionLog::create(dir.path(), "s1", Path::new("/w"), "m").unwrap();
    log.append(&Record::Message {
        message: Message::user("hello"),
    })
    .unwrap();
    log.append(&Record::Message {
        message: Message::Assistant {
            content: "hi".into(),
            tool_calls: vec![],
        },
    })
    .unwrap();
    let s = load(log.path()).unwrap();
    assert_eq!(s.id, "s1");
    assert_eq!(s.workspace, "/w");
    assert_eq!(s.conversation.len(), 2);
    assert!(s.damage_report().is_none());
}

#[test]
fn truncated_last_line_loads_the_rest_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = SessionLog::create(dir.path(), "s2", Path::new("/w"), "m").unwrap();
    log.append(&Record::Message {
        message: Message::user("one"),
    })
    .unwrap();
    log.append(&Record::Message {
        message: Message::user("two"),
    })
    .unwrap();
    let path = log.path().to_path_buf();
    drop(log);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.truncate(bytes.len() - 7);
    std::fs::write(&path, &bytes).unwrap();
    let s = load(&path).unwrap();
    assert_eq!(s.conversation, vec![Message::user("one")]);
    assert_eq!(s.dropped, vec![3]);
    assert!(s.damage_report().unwrap().contains("line 3"));
    let mut again = SessionLog::reopen(dir.path(), "s2").unwrap();
    again
        .append(&Record::Message {
            message: Message::user("three"),
        })
        .unwrap();
    let s = load(&path).unwrap();
    assert_eq!(
        s.conversation.len(),
        2,
        "the next record starts on its own line"
    );
}

#[test]
fn every_message_can_be_read_back_from_where_load_found_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = SessionLog::create(dir.path(), "s3", Path::new("/w"), "m").unwrap();
    let said = [
        Message::user("before the clear"),
        Message::user("ünïcode first"),
        Message::Assistant {
            content: "calls".into(),
            tool_calls: vec![call("x")],
        },
    ];
    log.append(&Record::Message {
        message: said[0].clone(),
    })
    .unwrap();
    log.append(&Record::Clear { compacted: None }).unwrap();
    for m in &said[1..] {
        log.append(&Record::Message { message: m.clone() }).unwrap();
    }
    let s = load(log.path()).unwrap();
    assert_eq!(s.conversation.len(), 3, "the call gets a made-up result");
    assert_eq!(s.at.len(), s.conversation.len());
    assert!(
        s.at[2].is_none(),
        "the made-up result has no place in the file"
    );
    let file = File::open(log.path()).unwrap();
    for (m, at) in s.conversation.iter().zip(&s.at).take(2) {
        assert_eq!(&read_message(&file, at.unwrap()).unwrap(), m);
    }
    let wrong = MessageAt { offset: 0, len: 10 };
    assert!(
        read_message(&file, wrong).is_err(),
        "a bad place is an error"
    );
}

#[test]
fn unanswered_calls_are_repaired() {
    let mut conv = vec![
        Message::user("go"),
        Message::Assistant {
            content: String::new(),
            tool_calls: vec![call("a"), call("b")],
        },
        Message::Tool {
            tool_call_id: "a".into(),
            name: "read_file".into(),
            content: "{}".into(),
        },
    ];
    assert_eq!(repair(&mut conv), 1);
    crate::llm::message::check_tool_answers(&conv).unwrap();
    assert!(matches!(&conv[3], Message::Tool { tool_call_id, .. } if tool_call_id == "b"));
}

#[test]
fn listing_and_latest() {
    let dir = tempfile::tempdir().unwrap();
    let mut a =
        SessionLog::create(dir.path(), "20260101-000000-aaaa", Path::new("/w1"), "m").unwrap();
    a.append(&Record::Message {
        message: Message::user("first question\nmore"),
    })
    .unwrap();
    let answer = || Record::Message {
        message: Message::Assistant {
            content: "an answer".into(),
            tool_calls: Vec::new(),
        },
    };
    a.append(&answer()).unwrap();
    // The list is newest first by modification time: `a` is made a minute older than the
    // others, whatever the clock's resolution.
    std::fs::File::options()
        .append(true)
        .open(a.path())
        .unwrap()
        .set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(60))
        .unwrap();
    let mut b =
        SessionLog::create(dir.path(), "20260101-000001-bbbb", Path::new("/w2"), "m").unwrap();
    b.append(&Record::Message {
        message: Message::user("other"),
    })
    .unwrap();
    b.append(&answer()).unwrap();
    let mut unanswered =
        SessionLog::create(dir.path(), "20260101-000002-cccc", Path::new("/w1"), "m").unwrap();
    unanswered
        .append(&Record::Message {
            message: Message::user("never answered"),
        })
        .unwrap();
    let l = list(dir.path());
    assert_eq!(l.len(), 2);
    assert_eq!(l[0].workspace, "/w2");
    assert_eq!(l[1].first_prompt, "first question");
    assert_eq!(l[1].title, "first question");
    assert_eq!(l[1].messages, 2);
    assert_eq!(
        latest_for(dir.path(), Path::new("/w1")).as_deref(),
        Some("20260101-000000-aaaa")
    );
    assert!(path_of(dir.path(), "../etc/passwd").is_none());
}

/// The log beside the conversation comes back with it: each call's duration and refusal
/// (by whom, why) by id, the tokens summed, and the last request's tokens since the last
/// clear (how full the context is).
#[test]
fn the_log_of_calls_and_tokens_is_loaded() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = SessionLog::create(dir.path(), "s", Path::new("/w"), "m").unwrap();
    let usage = |p, c| Record::Usage {
        usage: Usage {
            prompt_tokens: p,
            completion_tokens: c,
            ..Usage::default()
        },
    };
    let records = [
        Record::Message {
            message: Message::user("go"),
        },
        usage(100, 10),
        Record::Message {
            message: Message::Assistant {
                content: String::new(),
                tool_calls: vec![call("ran"), call("refused"), call("asked")],
            },
        },
        Record::Approval {
            id: "refused".into(),
            approved: false,
            by: "policy".into(),
            reason: Some("outside the workspace".into()),
        },
        Record::Approval {
            id: "asked".into(),
            approved: false,
            by: "user".into(),
            reason: None,
        },
        Record::Approval {
            id: "ran".into(),
            approved: true,
            by: "user".into(),
            reason: None,
        },
        Record::ToolResult {
            id: "ran".into(),
            name: "read_file".into(),
            success: true,
            files_changed: vec![],
            duration_ms: 1234,
        },
        usage(300, 20),
    ];
    for r in &records {
        log.append(r).unwrap();
    }
    let s = load(log.path()).unwrap();
    assert_eq!(s.calls["ran"].duration_ms, Some(1234));
    assert_eq!(s.calls["ran"].refusal, None);
    let policy = s.calls["refused"].refusal.as_ref().unwrap();
    assert!(!policy.by_person);
    assert_eq!(policy.reason.as_deref(), Some("outside the workspace"));
    assert!(s.calls["asked"].refusal.as_ref().unwrap().by_person);
    assert_eq!(s.calls["asked"].duration_ms, None);
    assert_eq!(
        (s.usage.prompt_tokens, s.usage.completion_tokens),
        (400, 30)
    );
    assert_eq!(s.last_request.prompt_tokens, 300);
    // The same id again, approved this time (a server numbering its calls anew in every
    // answer): the earlier refusal was another call's.
    log.append(&Record::Approval {
        id: "refused".into(),
        approved: true,
        by: "policy".into(),
        reason: None,
    })
    .unwrap();
    assert_eq!(load(log.path()).unwrap().calls["refused"].refusal, None);
    log.append(&Record::Clear { compacted: None }).unwrap();
    let s = load(log.path()).unwrap();
    assert_eq!(s.usage.prompt_tokens, 400, "a clear spent no fewer tokens");
    assert_eq!(
        s.last_request,
        Usage::default(),
        "a clear empties the context"
    );
}

/// Regression: a session resumed after a compaction showed only the compacted copy (the
/// summary as the person's message); everything shown live before it was gone from the
/// screen though the file kept it. Now the messages shown before each compaction load as
/// `earlier`, and the copy's messages (`shown_from`) are the model's only. A later plain
/// clear (`/clear`) starts the screen over.
#[test]
fn what_was_shown_before_a_compaction_loads_beside_the_copy() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = SessionLog::create(dir.path(), "c1", Path::new("/w"), "m").unwrap();
    let mut put = |m: Message| log.append(&Record::Message { message: m }).unwrap();
    put(Message::user("first"));
    put(Message::user("second"));
    let copy = |log: &mut SessionLog, summary: &str| {
        log.append(&Record::Clear { compacted: Some(2) }).unwrap();
        for m in [Message::user(summary), Message::user("understood")] {
            log.append(&Record::Message { message: m }).unwrap();
        }
    };
    copy(&mut log, "[loom] summary one");
    log.append(&Record::Message {
        message: Message::user("third"),
    })
    .unwrap();
    copy(&mut log, "[loom] summary two");
    log.append(&Record::Message {
        message: Message::user("fourth"),
    })
    .unwrap();
    let s = load(log.path()).unwrap();
    let shown: Vec<String> = s
        .earlier
        .iter()
        .map(|e| match e {
            Earlier::Message {
                message: Message::User { content, .. },
                at,
            } => {
                let file = File::open(log.path()).unwrap();
                let back = read_message(&file, at.unwrap()).unwrap();
                assert_eq!(
                    back,
                    Message::user(content.clone()),
                    "read back from its place"
                );
                content.clone()
            }
            Earlier::Compacted => "-- compacted --".into(),
            Earlier::Message { message, .. } => format!("{message:?}"),
        })
        .collect();
    assert_eq!(
        shown,
        [
            "first",
            "second",
            "-- compacted --",
            "third",
            "-- compacted --"
        ]
    );
    assert_eq!(s.shown_from, 2);
    assert_eq!(
        s.conversation,
        [
            Message::user("[loom] summary two"),
            Message::user("understood"),
            Message::user("fourth")
        ],
        "the model goes on from the last copy"
    );

    log.append(&Record::Clear { compacted: None }).unwrap();
    log.append(&Record::Message {
        message: Message::user("after /clear"),
    })
    .unwrap();
    let s = load(log.path()).unwrap();
    assert!(s.earlier.is_empty(), "{:?}", s.earlier);
    assert_eq!(s.shown_from, 0);
    assert_eq!(s.conversation, [Message::user("after /clear")]);
}

/// A clear without a compaction is written as before (`{"t":"clear"}`), so files stay
/// readable by earlier versions; one with a compaction adds its copy's size.
#[test]
fn a_clear_is_written_as_before_unless_a_compaction_made_it() {
    let plain = serde_json::to_string(&Record::Clear { compacted: None }).unwrap();
    assert_eq!(plain, r#"{"t":"clear"}"#);
    let back: Record = serde_json::from_str(r#"{"t":"clear"}"#).unwrap();
    assert_eq!(back, Record::Clear { compacted: None });
    let compacted = serde_json::to_string(&Record::Clear { compacted: Some(3) }).unwrap();
    assert_eq!(compacted, r#"{"t":"clear","compacted":3}"#);
}
