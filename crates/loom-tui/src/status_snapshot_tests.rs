//! The status line and the command approval at the sizes people use: what Loom is doing
//! (spinner, elapsed time, live tokens, retries), what it wants (keys that survive any
//! width), and a long model id that no longer pushes the mode and sandbox away.

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent};
use serde_json::json;

use super::app::App;
use super::snapshot_tests::{app, ev, text};
use crate::protocol::events::{AgentEvent, ApprovalPreview, Phase, TurnEnd, UserOp};
use crate::protocol::usage::Usage;

fn phase(app: &mut App, phase: Phase) {
    ev(app, AgentEvent::StateChanged { phase });
}

/// Move the screen's clock on, as frames do.
fn later(app: &mut App, ms: u64) {
    app.now += Duration::from_millis(ms);
}

fn last_row(screen: &str) -> &str {
    screen.lines().last().unwrap_or("")
}

fn ask_to_run(app: &mut App, command: &str) {
    phase(app, Phase::AwaitingApproval);
    ev(
        app,
        AgentEvent::ToolCall {
            id: "b1".into(),
            name: "bash".into(),
            arguments: json!({ "command": command }),
            intent: None,
        },
    );
    ev(
        app,
        AgentEvent::ApprovalRequested {
            id: "b1".into(),
            name: "bash".into(),
            reason: "not proven read-only".into(),
            preview: ApprovalPreview::Command {
                command: command.into(),
                cwd: ".".into(),
                risk: crate::protocol::risk::Risk::Medium,
                risk_reason: "python3 runs code".into(),
                grant_offered: true,
                grant_prefix: Some("python3".into()),
                network: false,
                outside_sandbox: false,
            },
        },
    );
}

#[test]
fn the_waiting_spinner_shows_what_the_model_is_doing_and_for_how_long() {
    let (mut app, _rx) = app("dark");
    ev(
        &mut app,
        AgentEvent::UserMessage {
            text: "why does the build fail?".into(),
            queued: false,
        },
    );
    phase(&mut app, Phase::CallingLlm);
    later(&mut app, 4_250);
    insta::assert_snapshot!(text(&mut app, 80, 12));
    let before = last_row(&text(&mut app, 80, 12)).to_string();
    later(&mut app, 100);
    assert_ne!(
        last_row(&text(&mut app, 80, 12)),
        before,
        "the spinner moves between frames"
    );
}

#[test]
fn streamed_tokens_count_live_before_the_server_reports_usage() {
    let (mut app, _rx) = app("dark");
    phase(&mut app, Phase::CallingLlm);
    later(&mut app, 900);
    ev(
        &mut app,
        AgentEvent::TextDelta {
            text: "word ".repeat(1000),
        },
    );
    let row = last_row(&text(&mut app, 120, 10)).to_string();
    assert!(row.contains("answering"), "{row}");
    assert!(
        row.contains("~1.2k tok"),
        "an estimate, marked as one: {row}"
    );
    ev(
        &mut app,
        AgentEvent::Usage {
            usage: Usage {
                prompt_tokens: 3000,
                completion_tokens: 1100,
                ..Usage::default()
            },
        },
    );
    let row = last_row(&text(&mut app, 120, 10)).to_string();
    assert!(row.contains(" 4.1k tok"), "the server's figure: {row}");
    // An interrupted request's tokens are estimated: the sum is marked so from then on
    // (it showed as exact).
    ev(
        &mut app,
        AgentEvent::Usage {
            usage: Usage {
                prompt_tokens: 900,
                completion_tokens: 100,
                estimated: true,
                ..Usage::default()
            },
        },
    );
    let row = last_row(&text(&mut app, 120, 10)).to_string();
    assert!(row.contains("~5.1k tok"), "an estimate in the sum: {row}");
}

#[test]
fn a_retry_counts_down_with_its_attempt() {
    let (mut app, _rx) = app("dark");
    phase(&mut app, Phase::CallingLlm);
    phase(&mut app, Phase::Error);
    ev(
        &mut app,
        AgentEvent::Retry {
            attempt: 2,
            max_attempts: 5,
            reason: "the model server answered 503: loading model".into(),
            wait_ms: 3_000,
        },
    );
    insta::assert_snapshot!(text(&mut app, 80, 12));
    later(&mut app, 1_500);
    assert!(last_row(&text(&mut app, 80, 12)).contains("retrying in 2 s (2/5)"));
}

#[test]
fn a_running_tool_is_named_on_the_status_line() {
    let (mut app, _rx) = app("dark");
    phase(&mut app, Phase::ExecutingTools);
    ev(
        &mut app,
        AgentEvent::ToolCall {
            id: "t1".into(),
            name: "bash".into(),
            arguments: json!({"command": "cargo test"}),
            intent: None,
        },
    );
    ev(&mut app, AgentEvent::ToolStarted { id: "t1".into() });
    later(&mut app, 12_000);
    let row = last_row(&text(&mut app, 100, 12)).to_string();
    assert!(row.contains("running bash 12s"), "{row}");
}

/// A `!command` runs between turns: the hint says Esc stops it, and Esc sends the stop.
#[test]
fn a_running_bang_command_offers_esc_to_stop_it() {
    let (mut app, mut rx) = app("dark");
    ev(
        &mut app,
        AgentEvent::ToolCall {
            id: "shell-1".into(),
            name: "bash".into(),
            arguments: json!({"command": "sleep 600"}),
            intent: None,
        },
    );
    ev(
        &mut app,
        AgentEvent::ToolStarted {
            id: "shell-1".into(),
        },
    );
    later(&mut app, 3_000);
    insta::assert_snapshot!(text(&mut app, 140, 12));
    app.on_key(KeyEvent::from(KeyCode::Esc));
    assert_eq!(rx.try_recv().ok(), Some(UserOp::Interrupt));
}

#[test]
fn a_finished_turn_says_how_long_it_took_and_when_the_first_token_came() {
    let (mut app, _rx) = app("dark");
    phase(&mut app, Phase::CallingLlm);
    later(&mut app, 800);
    ev(
        &mut app,
        AgentEvent::TextDelta {
            text: "Done.".into(),
        },
    );
    later(&mut app, 1_500);
    ev(
        &mut app,
        AgentEvent::AssistantMessage {
            text: "Done.".into(),
        },
    );
    phase(&mut app, Phase::Idle);
    ev(
        &mut app,
        AgentEvent::TurnComplete {
            usage: Usage::default(),
            end: TurnEnd::Done,
            unsent: Vec::new(),
            unsent_images: Vec::new(),
        },
    );
    let screen = text(&mut app, 80, 12);
    assert!(
        screen.contains("took 2.3s · first token after 0.8s"),
        "{screen}"
    );
    assert!(last_row(&screen).contains("● ready"), "{screen}");
}

/// Regression (issue 11): llama-server reports the model file's path as its id, which
/// pushed the approval mode and the sandbox off the status line.
#[test]
fn a_long_model_path_leaves_the_mode_and_sandbox_on_the_status_line() {
    let (mut app, _rx) = app("dark");
    app.status.model =
        "/home/me/models/qwen2.5-coder-14b-instruct-q4_k_m/Qwen2.5-Coder-14B-Instruct-Q4_K_M.gguf"
            .into();
    for width in [60u16, 80, 120] {
        let row = last_row(&text(&mut app, width, 10)).to_string();
        assert!(row.contains("supervised"), "{width}: {row}");
        assert!(row.contains("sandbox"), "{width}: {row}");
        assert!(!row.contains("/home/me"), "{width}: {row}");
    }
    insta::assert_snapshot!(last_row(&text(&mut app, 120, 10)).to_string());
}

#[test]
fn command_approval_keys_stay_visible_at_60x20_and_a_long_command_scrolls() {
    let (mut app, mut rx) = app("dark");
    let command: String = (1..=40)
        .map(|i| format!("python3 -c 'print({i})'\n"))
        .collect();
    ask_to_run(&mut app, &command);
    insta::assert_snapshot!("command_approval_at_60x20", text(&mut app, 60, 20));
    for _ in 0..40 {
        app.on_key(KeyEvent::from(KeyCode::Down));
    }
    let screen = text(&mut app, 60, 20);
    assert!(
        screen.contains("print(40)"),
        "scrolled to the end: {screen}"
    );
    assert!(screen.contains("y run"), "{screen}");
    app.on_key(KeyEvent::from(KeyCode::Enter));
    assert!(
        rx.try_recv().is_err(),
        "Enter does not approve a command (it may be meant for the message box)"
    );
    super::snapshot_tests::answer_key(&mut app, 'y');
    assert!(matches!(rx.try_recv(), Ok(UserOp::Approve { .. })));
}

#[test]
fn a_truncated_answer_offers_to_continue() {
    let (mut app, _rx) = app("dark");
    phase(&mut app, Phase::CallingLlm);
    ev(
        &mut app,
        AgentEvent::TextDelta {
            text: "The three causes are: first, the".into(),
        },
    );
    ev(
        &mut app,
        AgentEvent::Error {
            message: "the answer was cut off by the model's output token limit; ask it to \
                      continue, or raise the server's limit (max_tokens, llama-server -n)"
                .into(),
        },
    );
    phase(&mut app, Phase::Idle);
    ev(
        &mut app,
        AgentEvent::TurnComplete {
            usage: Usage::default(),
            end: TurnEnd::Truncated,
            unsent: Vec::new(),
            unsent_images: Vec::new(),
        },
    );
    assert_eq!(app.composer.text(), super::app::CONTINUE);
    insta::assert_snapshot!(text(&mut app, 80, 16));
}

/// Each row of the screen as runs of one style: `[fg/bg] text`, so a colour that regresses
/// (light grey on white) shows in the snapshot.
fn runs(app: &mut App, w: u16, h: u16) -> String {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    let now = app.now;
    app.tick(now);
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| app.draw(f)).unwrap();
    let buf = term.backend().buffer().clone();
    let mut out = String::new();
    for y in 0..h {
        let mut row: Vec<(String, String)> = Vec::new();
        for x in 0..w {
            let cell = &buf[(x, y)];
            let key = format!("{:?}/{:?}", cell.fg, cell.bg);
            match row.last_mut() {
                Some((k, text)) if *k == key => text.push_str(cell.symbol()),
                _ => row.push((key, cell.symbol().to_string())),
            }
        }
        let line: Vec<String> = row
            .into_iter()
            .filter(|(_, t)| !t.trim().is_empty())
            .map(|(k, t)| format!("[{k}] {}", t.trim()))
            .collect();
        out.push_str(&line.join("  "));
        out.push('\n');
    }
    out
}

/// Regression (issue 11): the light theme drew borders, dim text and the approval badge
/// in ANSI 7 (light grey) on white.
#[test]
fn the_light_theme_with_an_approval() {
    let (mut app, _rx) = app("light");
    super::snapshot_tests::awaiting_diff(&mut app);
    let screen = runs(&mut app, 100, 24);
    assert!(!screen.contains("[Gray/"), "no light grey text: {screen}");
    insta::assert_snapshot!(screen);
}

/// Review finding: on a terminal of 9–10 rows the command box showed none of the command
/// while `y` still approved it. Spacer lines give way first; the command always shows.
#[test]
fn a_tiny_terminal_still_shows_the_command_being_approved() {
    for rows in [8u16, 9, 10, 12] {
        let (mut app, _rx) = app("dark");
        let command: String = (1..=40)
            .map(|i| format!("python3 -c 'print({i})'\n"))
            .collect();
        ask_to_run(&mut app, &command);
        let screen = text(&mut app, 60, rows);
        assert!(screen.contains("$ python3"), "{rows} rows:\n{screen}");
        assert!(screen.contains("y run"), "{rows} rows:\n{screen}");
    }
}

#[test]
fn scrolling_a_command_stops_at_its_end() {
    let (mut app, _rx) = app("dark");
    let command: String = (1..=40)
        .map(|i| format!("python3 -c 'print({i})'\n"))
        .collect();
    ask_to_run(&mut app, &command);
    text(&mut app, 60, 20);
    for _ in 0..100 {
        app.on_key(KeyEvent::from(KeyCode::Down));
    }
    assert!(text(&mut app, 60, 20).contains("print(40)"));
    app.on_key(KeyEvent::from(KeyCode::Up));
    let screen = text(&mut app, 60, 20);
    assert!(
        !screen.contains("print(40)"),
        "one Up moves at once:\n{screen}"
    );
}

/// Regression (issue 25): the key hint was dropped before the tokens and the model —
/// while thinking or answering at 60 and 80 columns, while a delegate ran at 120 — and a
/// command box's hint was cut to `· Es` at 80, though docs/using.md says the keys always stay.
/// Every state keeps its keys, whole or in a shorter form, at every width.
#[test]
fn the_keys_stay_on_the_status_line_at_every_width() {
    let long_model = "/models/Qwen2.5-Coder-32B-Instruct-Q4_K_M.gguf";
    type State = (&'static str, fn(&mut App), &'static str);
    let states: [State; 4] = [
        ("thinking", |app| phase(app, Phase::CallingLlm), "Esc"),
        (
            "answering",
            |app| {
                phase(app, Phase::CallingLlm);
                ev(
                    app,
                    AgentEvent::TextDelta {
                        text: "Here is the plan".into(),
                    },
                );
            },
            "Esc",
        ),
        (
            "a delegate running",
            |app| {
                phase(app, Phase::ExecutingTools);
                ev(
                    app,
                    AgentEvent::ToolCall {
                        id: "d1".into(),
                        name: "delegate".into(),
                        arguments: json!({ "task": "read every module and summarise" }),
                        intent: None,
                    },
                );
                ev(app, AgentEvent::ToolStarted { id: "d1".into() });
            },
            "Esc",
        ),
        (
            "a command box",
            |app| ask_to_run(app, "python3 -c 'print(1)'"),
            "Esc",
        ),
    ];
    for (name, reach, keys) in states {
        for width in [60u16, 80, 120] {
            let (mut app, _rx) = app("dark");
            app.status.model = long_model.into();
            app.status.usage.prompt_tokens = 123_456;
            app.status.last_prompt = 20_000;
            reach(&mut app);
            later(&mut app, 4_000);
            let screen = text(&mut app, width, 24);
            let row = last_row(&screen);
            assert!(row.contains(keys), "{name} at {width}: {row:?}");
            assert!(
                !row.trim_end().ends_with("· Es"),
                "{name} at {width}: {row:?}"
            );
            assert!(row.contains("supervised"), "{name} at {width}: {row:?}");
        }
    }
}

/// `/status` (issue 28) puts one card in the chat with the status line's facts in full:
/// the model and window, tokens, approval mode, sandbox, servers, session and its file,
/// the `AGENTS.md` files loaded, the workspace.
#[test]
fn slash_status_shows_the_sessions_card() {
    let (mut app, _rx) = app("dark");
    app.status.usage.prompt_tokens = 12_400;
    app.status.usage.completion_tokens = 830;
    app.status.last_prompt = 8_192;
    app.status.autonomy = crate::protocol::autonomy::Autonomy::FullAuto;
    app.submit("/status");
    let screen = text(&mut app, 120, 24);
    assert!(screen.contains("model      qwen2.5-coder:14b"), "{screen}");
    assert!(
        screen.contains("context    32768 tokens, last request 8192 (25%)"),
        "{screen}"
    );
    assert!(screen.contains("12400 prompt + 830 completion"), "{screen}");
    assert!(
        screen.contains("file       /data/loom/sessions/20261122-080000-abcd.jsonl"),
        "{screen}"
    );
    assert!(screen.contains("AGENTS.md  AGENTS.md"), "{screen}");
    insta::assert_snapshot!(screen);
}

/// `/status` prices the session's tokens at the current model's `[prices."MODEL"]` and,
/// for a model without prices, says which table to add (issue 28: cost).
#[test]
fn slash_status_shows_the_cost_at_the_configured_price() {
    let (mut app, _rx) = app("dark");
    app.status.usage.prompt_tokens = 12_400;
    app.status.usage.completion_tokens = 830;
    app.status.card.prices.insert(
        "qwen2.5-coder:14b".into(),
        crate::protocol::usage::Price {
            input: 2.5,
            output: 10.0,
            cached_input: None,
        },
    );
    app.submit("/status");
    let screen = text(&mut app, 120, 24);
    assert!(
        screen.contains("cost       $0.0393 (prices from config)"),
        "{screen}"
    );
    insta::assert_snapshot!(screen);
    app.status.model = "beta-13b".into();
    app.submit("/status");
    let screen = text(&mut app, 120, 40);
    assert!(
        screen.contains("cost       no prices: set [prices.\"beta-13b\"]"),
        "{screen}"
    );
}

/// At 60 columns a long session-file path wraps under itself, after its label, not under
/// the label (issue 28: the card's rows hang).
#[test]
fn slash_status_wraps_a_long_file_path_under_its_value_at_60_columns() {
    let (mut app, _rx) = app("dark");
    app.status.card.sessions_dir = Some(std::path::PathBuf::from(
        "/home/someone/.local/share/loom/sessions/with/a/deep/folder",
    ));
    app.submit("/status");
    let screen = text(&mut app, 60, 30);
    let rows: Vec<&str> = screen.lines().collect();
    let file = rows
        .iter()
        .position(|r| r.contains("file       /home/"))
        .expect("the file row");
    let value_column = rows[file].find("/home/").unwrap();
    let next = rows[file + 1];
    let continued = next[value_column..].trim_start();
    assert!(
        next[..value_column]
            .trim_matches(|c| c == ' ' || c == '│')
            .is_empty()
            && !continued.is_empty()
            && !continued.starts_with("AGENTS.md"),
        "the path continues under itself:\n{screen}"
    );
    insta::assert_snapshot!(screen);
}
