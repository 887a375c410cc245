//! A multi-file patch on screen: one review with a header per file, per-hunk and per-file
//! choices, and the files written shown together afterwards.

use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent};
use serde_json::json;

use super::snapshot_tests::{app, ev, text};
use crate::base::diff::FileDiff;
use crate::protocol::events::{AgentEvent, ApprovalAnswer, ApprovalPreview, FilePreview, UserOp};

fn preview(path: &str, old: &str, new: &str) -> FilePreview {
    let diff = FileDiff::compute(old, new);
    FilePreview {
        path: path.into(),
        unified: diff.unified(&format!("a/{path}"), &format!("b/{path}")),
        diff,
        creates: false,
        deletes: false,
        moved_from: None,
        notes: vec![],
    }
}

/// A patch changing two places of one file, adding one, deleting one and moving one.
fn awaiting_patch(app: &mut super::app::App) {
    let old: String = (1..=30).map(|i| format!("let v{i} = {i};\n")).collect();
    let new = old
        .replace("let v2 = 2;", "let v2 = 20;")
        .replace("let v28 = 28;", "let v28 = 280;");
    let mut added = preview("src/new.rs", "", "pub fn new() {}\n");
    added.creates = true;
    let mut deleted = preview("old.txt", "bye\n", "");
    deleted.deletes = true;
    let mut moved = preview("docs/guide.md", "", "");
    moved.moved_from = Some("guide.md".into());
    ev(
        app,
        AgentEvent::ToolCall {
            id: "p1".into(),
            name: "apply_patch".into(),
            arguments: json!({"input": "*** Begin Patch\n*** Update File: src/values.rs\n@@\n-a\n+b\n\
                *** Add File: src/new.rs\n+x\n*** Delete File: old.txt\n*** Update File: guide.md\n\
                *** Move to: docs/guide.md\n*** End Patch"}),
            intent: None,
        },
    );
    ev(
        app,
        AgentEvent::ApprovalRequested {
            id: "p1".into(),
            name: "apply_patch".into(),
            reason: "file changes are reviewed before they are written".into(),
            preview: ApprovalPreview::Files {
                files: vec![preview("src/values.rs", &old, &new), added, deleted, moved],
            },
        },
    );
}

#[test]
fn a_patch_awaiting_review_shows_every_file_with_its_header() {
    let (mut app, _rx) = app("dark");
    awaiting_patch(&mut app);
    insta::assert_snapshot!(text(&mut app, 120, 44));
}

#[test]
fn f_leaves_out_a_whole_file_and_enter_sends_the_choice_per_hunk() {
    let (mut app, mut rx) = app("dark");
    awaiting_patch(&mut app);
    // Hunks: values.rs ×2, new.rs, old.txt, the move's empty one. Go to old.txt.
    for _ in 0..3 {
        app.on_key(KeyEvent::from(KeyCode::Char('j')));
    }
    app.on_key(KeyEvent::from(KeyCode::Char('f')));
    // Back to values.rs's second hunk; leave it out too.
    for _ in 0..2 {
        app.on_key(KeyEvent::from(KeyCode::Char('k')));
    }
    app.on_key(KeyEvent::from(KeyCode::Char(' ')));
    insta::assert_snapshot!(text(&mut app, 120, 44));
    app.on_key(KeyEvent::from(KeyCode::Enter));
    let mut sent = None;
    while let Ok(op) = rx.try_recv() {
        if let UserOp::Approve { answer, .. } = op {
            sent = Some(answer);
        }
    }
    assert_eq!(
        sent,
        Some(ApprovalAnswer::ApproveHunks {
            hunks: vec![true, false, true, false, true]
        })
    );
}

#[test]
fn f_on_a_whole_file_left_out_brings_it_back() {
    let (mut app, _rx) = app("dark");
    awaiting_patch(&mut app);
    app.on_key(KeyEvent::from(KeyCode::Char(' ')));
    app.on_key(KeyEvent::from(KeyCode::Char('f')));
    assert_eq!(
        app.details.view.selected[..2],
        [true, true],
        "one hunk off: f turns the file on"
    );
    app.on_key(KeyEvent::from(KeyCode::Char('f')));
    assert_eq!(app.details.view.selected[..2], [false, false]);
}

#[test]
fn the_files_a_patch_wrote_are_shown_together() {
    let (mut app, _rx) = app("dark");
    let a = FileDiff::compute("a\n", "A\n");
    let b = FileDiff::compute("", "b\n");
    for (path, diff, creates) in [("a.txt", a, false), ("b.txt", b, true)] {
        ev(
            &mut app,
            AgentEvent::ChangeApplied {
                id: "p1".into(),
                path: path.into(),
                hunks: Arc::new(diff.hunks),
                creates,
                deleted: false,
                moved_from: None,
            },
        );
    }
    let files = &app.details.diffs["p1"].files;
    assert_eq!(files.len(), 2);
    assert_eq!(app.details.applied, vec!["p1".to_string()]);
    let unified = app.details.diffs["p1"].unified();
    assert!(
        unified.contains("+++ b/a.txt") && unified.contains("--- /dev/null"),
        "{unified}"
    );
}
