//! A session resumed after a compaction shows what the live screen showed: the messages
//! before the compaction as they were, a notice where it came, then the rest. The
//! compacted copy the model goes on from (its summary as a user message, the "Understood"
//! answer) and Loom's notes to the model (`[Loom] …`, `[loom] …`) are not shown.

use std::path::Path;

use super::snapshot_tests::{app, text};
use crate::protocol::message::Message;
use loom_core::session::{self, Record, SessionLog};

fn answer(text: &str) -> Message {
    Message::Assistant {
        content: text.into(),
        tool_calls: Vec::new(),
    }
}

/// Regression: resumed after a compaction, the screen began with the summary shown as the
/// person's message and "Understood. I continue from this summary." as the model's, and
/// everything said before it was gone; a retry's `[loom] …` note showed as the person's.
#[test]
fn a_compacted_session_resumes_as_it_was_shown() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = SessionLog::create(dir.path(), "compacted", Path::new("/w"), "m").unwrap();
    let mut put = |r: Record| log.append(&r).unwrap();
    let message = |m: Message| Record::Message { message: m };
    put(message(Message::user("explain the parser")));
    put(message(answer(
        "It is a recursive descent parser over tokens.",
    )));
    put(message(Message::user("and the lexer?")));
    put(message(answer("The lexer splits on whitespace first.")));
    put(Record::Clear { compacted: Some(4) });
    put(message(Message::user(
        "[loom] The earlier part of this conversation was compacted to fit the model's \
         context window. Summary of it:\n\nSUMMARY-NOT-SHOWN",
    )));
    put(message(answer("Understood. I continue from this summary.")));
    put(message(Message::user("and the lexer?")));
    put(message(answer("The lexer splits on whitespace first.")));
    put(message(Message::user("now add tests")));
    put(message(Message::user(
        "[loom] Your previous answer was cut off by a connection problem. NOTE-NOT-SHOWN",
    )));
    put(message(answer("Added three tests.")));
    let loaded = session::load(log.path()).unwrap();
    let (mut app, rx) = app("dark");
    std::mem::forget(rx);
    app.start_over(&loaded);
    let screen = text(&mut app, 100, 30);
    for said in [
        "explain the parser",
        "recursive descent",
        "now add tests",
        "Added three tests.",
        "compacted here",
    ] {
        assert!(screen.contains(said), "{said:?} missing:\n{screen}");
    }
    assert_eq!(
        screen.matches("The lexer splits").count(),
        1,
        "shown once, not again from the copy:\n{screen}"
    );
    for hidden in ["SUMMARY-NOT-SHOWN", "Understood.", "NOTE-NOT-SHOWN"] {
        assert!(!screen.contains(hidden), "{hidden:?} shown:\n{screen}");
    }
    insta::assert_snapshot!(screen);
}
