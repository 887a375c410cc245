//! Tests of prompt marks and forks.

use super::*;
use crate::llm::ToolCall;
use crate::session::load;

fn answer(text: &str) -> Record {
    Record::Message {
        message: Message::Assistant {
            content: text.into(),
            tool_calls: Vec::new(),
        },
    }
}

/// A session of three prompts (the second followed by a Loom note, which is a user
/// message but not a prompt), each answered.
fn three_prompts(dir: &Path) -> PathBuf {
    let mut log = SessionLog::create(dir, "orig", Path::new("/w"), "m").unwrap();
    for (i, text) in ["one", "two", "three"].iter().enumerate() {
        log.append(&Record::Message {
            message: Message::user(*text),
        })
        .unwrap();
        log.append(&Record::Prompt {
            seq: 1 + i as u64 * 10,
        })
        .unwrap();
        if i == 1 {
            log.append(&Record::Message {
                message: Message::user("[Loom] a note"),
            })
            .unwrap();
        }
        log.append(&answer(&format!("answer {text}"))).unwrap();
    }
    log.path().to_path_buf()
}

#[test]
fn prompts_are_the_marked_user_messages_only() {
    let dir = tempfile::tempdir().unwrap();
    let s = load(&three_prompts(dir.path())).unwrap();
    assert_eq!(
        s.prompts,
        vec![
            PromptMark { index: 0, seq: 1 },
            PromptMark { index: 2, seq: 11 },
            PromptMark { index: 5, seq: 21 },
        ]
    );
}

/// Marks are found by where their message is in the file, so a repaired call inserted
/// before a prompt does not shift them onto another message.
#[test]
fn marks_follow_their_message_through_repair() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = SessionLog::create(dir.path(), "r", Path::new("/w"), "m").unwrap();
    log.append(&Record::Message {
        message: Message::user("first"),
    })
    .unwrap();
    log.append(&Record::Prompt { seq: 1 }).unwrap();
    log.append(&Record::Message {
        message: Message::Assistant {
            content: String::new(),
            tool_calls: vec![ToolCall {
                id: "c".into(),
                name: "bash".into(),
                arguments: "{}".into(),
            }],
        },
    })
    .unwrap();
    log.append(&Record::Message {
        message: Message::user("second"),
    })
    .unwrap();
    log.append(&Record::Prompt { seq: 4 }).unwrap();
    let s = load(log.path()).unwrap();
    assert_eq!(s.repaired, 1);
    assert_eq!(s.prompts[1], PromptMark { index: 3, seq: 4 });
    assert_eq!(typed_text(&s.conversation[3]), "second");
}

#[test]
fn a_clear_or_a_stray_mark_leaves_no_prompt_behind() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = SessionLog::create(dir.path(), "c", Path::new("/w"), "m").unwrap();
    log.append(&Record::Message {
        message: Message::user("gone"),
    })
    .unwrap();
    log.append(&Record::Prompt { seq: 1 }).unwrap();
    log.append(&Record::Clear { compacted: None }).unwrap();
    log.append(&answer("not a prompt")).unwrap();
    log.append(&Record::Prompt { seq: 2 }).unwrap();
    let s = load(log.path()).unwrap();
    assert!(s.prompts.is_empty(), "{:?}", s.prompts);
}

#[test]
fn fork_at_a_prompt_keeps_what_came_before_and_leaves_the_original_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = three_prompts(dir.path());
    let before = std::fs::read(&path).unwrap();
    let source = load(&path).unwrap();
    let (id, fork_path) = fork(dir.path(), &source, Some(2)).unwrap();
    assert_ne!(id, "orig");
    assert_eq!(std::fs::read(&path).unwrap(), before, "byte-identical");
    let forked = load(&fork_path).unwrap();
    assert_eq!(forked.id, id);
    assert_eq!(forked.workspace, "/w");
    assert_eq!(forked.conversation, source.conversation[..2].to_vec());
    assert_eq!(forked.prompts, vec![PromptMark { index: 0, seq: 1 }]);
    let text = std::fs::read_to_string(&fork_path).unwrap();
    assert!(
        text.contains(r#""t":"forked","from":"orig","prompt":2"#),
        "{text}"
    );

    let (_, whole) = fork(dir.path(), &source, None).unwrap();
    let whole = load(&whole).unwrap();
    assert_eq!(whole.conversation, source.conversation);
    assert_eq!(whole.prompts.len(), 3);
}

#[test]
fn fork_of_a_prompt_that_is_not_there_says_which_are() {
    let dir = tempfile::tempdir().unwrap();
    let source = load(&three_prompts(dir.path())).unwrap();
    let files = || std::fs::read_dir(dir.path()).unwrap().count();
    let n = files();
    for bad in [0, 4] {
        let err = fork(dir.path(), &source, Some(bad)).unwrap_err();
        assert!(err.contains("from 1 to 3"), "{err}");
    }
    assert_eq!(files(), n, "no file is created");
    let empty = LoadedSession::default();
    let err = fork(dir.path(), &empty, Some(1)).unwrap_err();
    assert!(err.contains("no prompts"), "{err}");
}

#[test]
fn fork_specs() {
    assert_eq!(parse_fork_spec("abc").unwrap(), ("abc".into(), None));
    assert_eq!(parse_fork_spec("a@b@3").unwrap(), ("a@b".into(), Some(3)));
    for bad in ["abc@", "abc@0", "abc@x", "@2", ""] {
        assert!(parse_fork_spec(bad).is_err(), "{bad}");
    }
}
