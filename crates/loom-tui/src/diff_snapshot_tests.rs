//! The applied change as the screen shows it: from the structured diff of what was written,
//! whole however large (issue 11: a big diff was cut to 16 KB and parsed back from text).

use std::sync::Arc;

use serde_json::json;

use super::snapshot_tests::{app, ev, text};
use crate::base::diff::FileDiff;
use crate::protocol::events::AgentEvent;
use crate::protocol::tool_result::ToolResult;

/// Regression (issue 11): after applying a large change the diff pane showed a silently
/// cut diff. 3,000 changed lines arrive structured and are all there, with the count.
#[test]
fn a_large_applied_diff_is_shown_whole() {
    let (mut app, _rx) = app("dark");
    let new: String = (0..3000).map(|i| format!("line {i:04}\n")).collect();
    let diff = FileDiff::compute("", &new);
    ev(
        &mut app,
        AgentEvent::ToolCall {
            id: "w1".into(),
            name: "write_file".into(),
            arguments: json!({"path": "big.txt", "content": "…"}),
            intent: None,
        },
    );
    ev(
        &mut app,
        AgentEvent::ChangeApplied {
            id: "w1".into(),
            path: "big.txt".into(),
            hunks: Arc::new(diff.hunks),
            creates: true,
            deleted: false,
            moved_from: None,
        },
    );
    ev(
        &mut app,
        AgentEvent::ToolResult {
            id: "w1".into(),
            name: "write_file".into(),
            result: ToolResult::ok("Created big.txt (33000 bytes, +3000 -0 lines)")
                .with_data(json!({"diff": "--- /dev/null\n+++ b/big.txt\n@@ … cut @@\n"})),
            duration_ms: 4,
        },
    );
    // Big diffs are laid out in the background; the pane says so until they are ready.
    let mut screen = text(&mut app, 120, 30);
    for _ in 0..200 {
        if !screen.contains("preparing the diff") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
        screen = text(&mut app, 120, 30);
    }
    assert!(screen.contains("+3000 -0 · 3,000 lines"), "{screen}");
    insta::assert_snapshot!(screen);
    // Scrolled to the end, the last line is there: nothing was cut.
    app.focus = super::app::Focus::Details;
    for _ in 0..400 {
        app.on_key(crossterm::event::KeyEvent::from(
            crossterm::event::KeyCode::PageDown,
        ));
    }
    for _ in 0..50 {
        let screen = text(&mut app, 120, 30);
        if screen.contains("line 2999") {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    panic!("the last line never showed: {}", text(&mut app, 120, 30));
}
