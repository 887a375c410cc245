//! Keys that once did something other than what the screen said (issue 11), each with the
//! bug it proves fixed.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::app::App;
use super::snapshot_tests::{app, ev, text};
use crate::protocol::events::AgentEvent;

fn key(app: &mut App, code: KeyCode) {
    app.on_key(KeyEvent::from(code));
}

fn ctrl(app: &mut App, code: KeyCode) {
    app.on_key(KeyEvent::new(code, KeyModifiers::CONTROL));
}

/// A transcript long enough to scroll, scrolled up.
fn scrolled(app: &mut App) {
    for i in 0..60 {
        ev(
            app,
            AgentEvent::Notice {
                message: format!("line {i}"),
            },
        );
    }
    text(app, 80, 20);
    app.transcript.scroll_up(20);
    assert!(!app.transcript.following());
}

/// Regression (issue 11): the chat said "End to follow" while End moved the message
/// box's cursor. From an empty message box End follows; with text in it, End moves the
/// cursor and Ctrl+End (which the marker now names) follows.
#[test]
fn end_follows_the_chat_as_the_marker_says() {
    let (mut app, _rx) = app("dark");
    scrolled(&mut app);
    key(&mut app, KeyCode::End);
    assert!(
        app.transcript.following(),
        "an empty message box: End follows"
    );

    scrolled(&mut app);
    app.composer.set_text("fix the bug");
    key(&mut app, KeyCode::Home);
    assert!(!app.transcript.following(), "Home moved the cursor");
    ev(
        &mut app,
        AgentEvent::TextDelta {
            text: "new output".into(),
        },
    );
    assert!(text(&mut app, 80, 20).contains("Ctrl+End to follow"));
    ctrl(&mut app, KeyCode::End);
    assert!(app.transcript.following());
    assert_eq!(app.composer.text(), "fix the bug", "nothing typed was lost");
}

/// Regression (issue 11): "press Ctrl+C again" was appended to the transcript each time.
/// It is a passing hint on the status line.
#[test]
fn the_ctrl_c_hint_is_on_the_status_line_not_in_the_transcript() {
    let (mut app, _rx) = app("dark");
    for _ in 0..3 {
        ctrl(&mut app, KeyCode::Char('c'));
        assert!(!app.outbox.quit, "not yet");
        let screen = text(&mut app, 100, 20);
        assert!(
            screen
                .lines()
                .last()
                .unwrap()
                .contains("Ctrl+C again to quit"),
            "{screen}"
        );
        assert!(!screen.contains("press Ctrl+C again"), "{screen}");
        app.outbox.ctrl_c_at = Some(std::time::Instant::now() - std::time::Duration::from_secs(3));
        assert!(!app.quit_pending(), "the hint passes");
    }
    ctrl(&mut app, KeyCode::Char('c'));
    ctrl(&mut app, KeyCode::Char('c'));
    assert!(app.outbox.quit);
}

#[test]
fn tab_completes_the_highlighted_slash_command() {
    let (mut app, _rx) = app("dark");
    app.composer.set_text("/th");
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.composer.text(), "/theme ");
    app.composer.set_text("/theme hi");
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.composer.text(), "/theme high-contrast");
    app.composer.set_text("/a");
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Tab);
    assert_eq!(
        app.composer.text(),
        "/autocommit ",
        "Down moved the highlight to the second command"
    );
    assert_eq!(app.focus, super::app::Focus::Composer);
    app.composer.set_text("plain words");
    key(&mut app, KeyCode::Tab);
    assert_eq!(
        app.focus,
        super::app::Focus::Chat,
        "without a popup Tab moves on as usual"
    );
}

#[test]
fn enter_on_a_partial_name_runs_the_highlighted_command() {
    let (mut app, _rx) = app("dark");
    for c in "/toke".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    assert!(app.composer.is_empty());
    let screen = text(&mut app, 120, 30);
    assert!(screen.contains("tokens this session"), "{screen}");
}

/// The popup lists what fits as you type, with each command's help, and the argument
/// values after the name (the configured model for `/model`).
#[test]
fn the_slash_popup_filters_as_you_type() {
    let (mut app, _rx) = app("dark");
    key(&mut app, KeyCode::Char('/'));
    let all = text(&mut app, 100, 30);
    assert!(all.contains("/help") && all.contains("this help"), "{all}");
    for c in "th".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    insta::assert_snapshot!("slash_popup_filtered", text(&mut app, 100, 30));
    app.composer.set_text("/model ");
    let models = text(&mut app, 100, 30);
    assert!(models.contains("qwen2.5-coder:14b"), "{models}");
    app.composer.set_text("/approval ");
    insta::assert_snapshot!("slash_popup_values", text(&mut app, 100, 30));
}

/// The table of slash commands in docs/keys.md is the registry's.
#[test]
fn the_keys_page_lists_every_slash_command() {
    let page = include_str!("../../../docs/keys.md");
    for c in super::slash::COMMANDS {
        let row = format!("| `{}` | {} |", c.synopsis().replace('|', "\\|"), c.help);
        assert!(page.contains(&row), "docs/keys.md lacks the row:\n{row}");
    }
}

/// Regression (issue 11): /diff, /undo and /redo overlays left the panes' borders showing
/// against their own (`└└───…┘┘`). No overlay's frame touches a border beneath it.
#[test]
fn overlays_leave_no_pane_borders_against_their_frame() {
    let planned = |redo: bool| AgentEvent::UndoPlanned {
        redo,
        diff: "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,2 +1,1 @@\n pub mod a;\n-pub mod b;\n"
            .into(),
        files: vec!["src/lib.rs".into()],
        conflicts: Vec::new(),
    };
    for (w, h) in [(100u16, 20u16), (80, 24), (60, 20), (200, 50)] {
        for redo in [false, true] {
            let (mut app, _rx) = app("dark");
            ev(&mut app, planned(redo));
            let screen = text(&mut app, w, h);
            for doubled in ["┌┌", "┐┐", "└└", "┘┘", "││"] {
                assert!(
                    !screen.contains(doubled),
                    "{w}x{h} redo={redo}: {doubled}\n{screen}"
                );
            }
            if (w, h) == (100, 20) {
                let name = if redo {
                    "redo_confirmation"
                } else {
                    "undo_confirmation"
                };
                insta::assert_snapshot!(name, screen);
            }
        }
    }
}

/// `!ls` goes to the agent as the person's own command; its result is a tool row and a
/// chip on the message box; Backspace in the empty box drops the chip.
#[test]
fn a_bang_command_becomes_a_tool_row_and_a_chip() {
    let (mut app, mut rx) = app("dark");
    app.submit("!ls src");
    assert_eq!(
        rx.try_recv().unwrap(),
        crate::protocol::events::UserOp::Shell {
            command: "ls src".into()
        }
    );
    let id = format!("{}1", crate::protocol::events::SHELL_ID_PREFIX);
    ev(
        &mut app,
        AgentEvent::ToolCall {
            id: id.clone(),
            name: "bash".into(),
            arguments: serde_json::json!({"command": "ls src"}),
            intent: None,
        },
    );
    ev(&mut app, AgentEvent::ToolStarted { id: id.clone() });
    ev(
        &mut app,
        AgentEvent::ToolResult {
            id,
            name: "bash".into(),
            result: crate::protocol::tool_result::ToolResult {
                success: true,
                output: "exit code 0 in 0.01s; stdout 12 bytes, stderr 0 bytes".into(),
                data: Some(serde_json::json!({"stdout": "lib.rs\nmain.rs\n", "stderr": ""})),
                files_changed: Vec::new(),
                error: None,
                images: Vec::new(),
            },
            duration_ms: 10,
        },
    );
    insta::assert_snapshot!("bang_command_chip", text(&mut app, 100, 24));
    assert_eq!(app.draft.attachments.len(), 1);
    assert_eq!(
        app.draft.attachments[0].text,
        "$ ls src\nlib.rs\nmain.rs\n[exit code 0 in 0.01s; stdout 12 bytes, stderr 0 bytes]"
    );
    key(&mut app, KeyCode::Backspace);
    assert!(app.draft.attachments.is_empty());
}

/// `@` lists the workspace's files that fit; Tab leaves `@path` in the text and asks the
/// agent to attach it.
#[test]
fn an_at_mention_opens_the_file_popup() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src/tui")).unwrap();
    for f in [
        "src/main.rs",
        "src/tui/app.rs",
        "src/tui/view.rs",
        "README.md",
    ] {
        std::fs::write(dir.path().join(f), "x\n").unwrap();
    }
    let (mut app, mut rx) = app("dark");
    app.draft.workspace_root = Some(dir.path().to_path_buf());
    for c in "look at @".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    assert!(app.draft.files.is_none(), "the walk runs off the UI thread");
    app.finish_listing();
    for c in "tuiv".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    insta::assert_snapshot!("mention_popup", text(&mut app, 100, 24));
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.composer.text(), "look at @src/tui/view.rs ");
    assert_eq!(
        rx.try_recv().unwrap(),
        crate::protocol::events::UserOp::Attach {
            path: "src/tui/view.rs".into()
        }
    );
    // A lone `@` sent with Enter is text, not a pick of the first file.
    app.composer.set_text("");
    key(&mut app, KeyCode::Char('@'));
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        rx.try_recv().unwrap(),
        crate::protocol::events::UserOp::Submit {
            text: "@".into(),
            images: Vec::new()
        }
    );
}

/// `/model` without a name opens the list of the server's models, the one in use marked;
/// Enter switches (the agent confirms in one line).
#[test]
fn the_model_picker_lists_the_servers_models() {
    let (mut app, mut rx) = app("dark");
    ev(
        &mut app,
        AgentEvent::Models {
            result: Ok(vec![
                "llama3.1:8b".into(),
                "qwen2.5-coder:14b".into(),
                "qwen2.5-coder:32b".into(),
            ]),
        },
    );
    app.submit("/model");
    insta::assert_snapshot!("model_picker", text(&mut app, 100, 24));
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Enter);
    assert!(app.layers.is_empty());
    assert_eq!(app.status.model, "qwen2.5-coder:32b");
    assert_eq!(
        rx.try_recv().unwrap(),
        crate::protocol::events::UserOp::SetModel {
            model: "qwen2.5-coder:32b".into()
        }
    );
}

/// Issue 16: pasting an image's path (what a terminal pastes for a dragged file) attaches
/// the image to the next message instead of typing the path; the chat shows it as a chip.
#[test]
fn a_pasted_image_path_attaches_the_image_to_the_next_message() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("screen shot.png");
    std::fs::write(&png, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
    let (mut app, mut rx) = app("dark");
    let pasted = format!("'{}'", png.display());
    app.on_paste(&pasted);
    assert!(app.composer.text().is_empty(), "the path is not typed");
    for c in "what is wrong here?".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    let screen = text(&mut app, 100, 24).replace(&dir.path().display().to_string(), "/tmp/x");
    insta::assert_snapshot!("pasted_image_attached", screen);
    key(&mut app, KeyCode::Enter);
    let mut sent = None;
    while let Ok(op) = rx.try_recv() {
        if let crate::protocol::events::UserOp::Submit { text, images } = op {
            sent = Some((text, images));
        }
    }
    let (text, images) = sent.expect("the message was sent");
    assert_eq!(text, "what is wrong here?");
    assert_eq!(images.len(), 1);
    assert_eq!(images[0].name, "screen shot.png");
    assert_eq!(images[0].mime, "image/png");
    assert!(
        app.draft.images.is_empty(),
        "the image went with that message only"
    );

    // A pasted path to something that is not an image says so and attaches nothing.
    let fake = dir.path().join("fake.png");
    std::fs::write(&fake, "text").unwrap();
    app.on_paste(&fake.display().to_string());
    assert!(app.draft.images.is_empty());
    assert!(text_of(&mut app).contains("not a PNG"));
}

fn text_of(app: &mut App) -> String {
    text(app, 100, 24)
}

/// Issue 16: with the mouse taken by Loom (wheel scrolling), pressing on one chat message
/// and releasing on another copies the clean text of those messages: the words as written,
/// without the chat's wrapping, markers or borders.
#[test]
fn a_mouse_selection_copies_the_clean_text_of_the_messages() {
    use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
    let (mut app, _rx) = app("dark");
    let long = "please make the greeting configurable through an environment variable so that \
                deployments can change it without rebuilding";
    ev(
        &mut app,
        AgentEvent::UserMessage {
            text: long.into(),
            queued: false,
        },
    );
    ev(
        &mut app,
        AgentEvent::TextDelta {
            text: "Done: `GREETING` is read at start.\n\n```rust\nlet g = env::var(\"GREETING\");\n```\n"
                .into(),
        },
    );
    ev(
        &mut app,
        AgentEvent::TurnComplete {
            usage: crate::protocol::usage::Usage::default(),
            end: crate::protocol::events::TurnEnd::Done,
            unsent: Vec::new(),
            unsent_images: Vec::new(),
        },
    );
    let before = text(&mut app, 80, 30);
    let row_of = |needle: &str| {
        before
            .lines()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle} not on screen:\n{before}")) as u16
    };
    let (first, last) = (row_of("please make"), row_of("let g ="));
    let mouse = |kind, row| MouseEvent {
        kind,
        column: 5,
        row,
        modifiers: KeyModifiers::NONE,
    };
    app.on_mouse(mouse(MouseEventKind::Down(MouseButton::Left), first));
    app.on_mouse(mouse(MouseEventKind::Up(MouseButton::Left), last));
    let pending = app.outbox.clipboard.take().expect("something was copied");
    // The event loop copies it and says where it went.
    app.copied(
        &pending.what,
        Ok("the terminal's clipboard (OSC 52, if the terminal allows it)".into()),
    );
    let copied = pending.text;
    assert!(
        copied.starts_with(long),
        "one line, unwrapped, no marker: {copied}"
    );
    assert!(
        copied.contains("```rust\nlet g = env::var(\"GREETING\");\n```"),
        "{copied}"
    );
    assert!(!copied.contains('│') && !copied.contains("› "), "{copied}");
    insta::assert_snapshot!("mouse_selection_copied", text(&mut app, 80, 30));
}

/// After an interrupt, a queued message comes back to the message box with its image, as a
/// chip that goes with the text when it is sent again.
#[test]
fn an_interrupted_queue_gives_back_text_and_images() {
    let (mut app, mut rx) = app("dark");
    let shot = crate::protocol::image::Image {
        name: "screen.png".into(),
        mime: "image/png".into(),
        data: "iVBORw0KGgo=".into(),
    };
    ev(
        &mut app,
        AgentEvent::TurnComplete {
            usage: crate::protocol::usage::Usage::default(),
            end: crate::protocol::events::TurnEnd::Interrupted,
            unsent: vec!["look at this".into()],
            unsent_images: vec![shot.clone()],
        },
    );
    assert_eq!(app.composer.text(), "look at this");
    assert_eq!(app.draft.images, vec![shot.clone()]);
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        rx.try_recv().unwrap(),
        crate::protocol::events::UserOp::Submit {
            text: "look at this".into(),
            images: vec![shot]
        }
    );
}

/// Regression (issue 25): modal boxes left fragments of the panes beside them (the tail of
/// "select a tool call to see its details" next to a trust prompt, a pane's corner beside a
/// picker). The rows a box stands on, and one above and below, hold nothing but the box.
#[test]
fn modal_boxes_leave_no_pane_fragments_beside_them() {
    use super::layers::resume_picker::{ResumePicker, SessionItem};
    type Opened = (&'static str, fn(&mut App));
    let boxes: [Opened; 4] = [
        ("Run this command?", |app| {
            ev(
                app,
                AgentEvent::ApprovalRequested {
                    id: "b1".into(),
                    name: "bash".into(),
                    reason: "asks".into(),
                    preview: crate::protocol::events::ApprovalPreview::Command {
                        command: "touch x".into(),
                        cwd: ".".into(),
                        risk: crate::protocol::risk::Risk::Medium,
                        risk_reason: "creates files".into(),
                        grant_offered: true,
                        grant_prefix: Some("touch".into()),
                        network: false,
                        outside_sandbox: false,
                    },
                },
            )
        }),
        ("Trust this project", |app| {
            app.push_question(Box::new(super::layers::trust_prompt::TrustPrompt::new(
                ".loom/config.toml",
                Vec::new(),
            )))
        }),
        ("Resume a session", |app| {
            let item = SessionItem {
                id: "1".into(),
                title: "an old question".into(),
                age: "2d ago".into(),
                messages: 4,
                changes: 0,
                workspace: None,
            };
            app.layers
                .push(Box::new(ResumePicker::with_items(vec![item], false)));
        }),
        ("Help", |app| app.submit("/help")),
    ];
    for (title, open) in boxes {
        for (w, h) in [(60u16, 20u16), (80, 24), (120, 40)] {
            let (mut app, _rx) = app("dark");
            for i in 0..30 {
                ev(
                    &mut app,
                    AgentEvent::Notice {
                        message: format!("a notice that fills the chat pane, line {i}"),
                    },
                );
            }
            open(&mut app);
            let screen = text(&mut app, w, h);
            let rows: Vec<Vec<char>> = screen
                .lines()
                .map(|l| {
                    let mut r: Vec<char> = l.chars().collect();
                    r.resize(w as usize, ' ');
                    r
                })
                .collect();
            let top = rows
                .iter()
                .position(|r| r.iter().collect::<String>().contains(title))
                .unwrap_or_else(|| panic!("{title} at {w}x{h}:\n{screen}"));
            let left = rows[top].iter().position(|c| *c == '┌').unwrap();
            let right = rows[top].iter().rposition(|c| *c == '┐').unwrap();
            let bottom = (top..rows.len())
                .find(|&y| rows[y][left] == '└')
                .unwrap_or_else(|| panic!("{title} at {w}x{h} has no bottom:\n{screen}"));
            let last = (bottom + 1).min(rows.len() - 2);
            for (y, row) in rows
                .iter()
                .enumerate()
                .take(last + 1)
                .skip(top.saturating_sub(1))
            {
                let outside: String = row[..left].iter().chain(&row[right + 1..]).collect();
                assert!(
                    outside.trim().is_empty(),
                    "{title} at {w}x{h}, row {y} has {outside:?} beside the box:\n{screen}"
                );
            }
        }
    }
}
