//! Readable colours, checked on the screen itself: every built-in theme at every colour
//! depth renders the states a person meets (welcome, an answer with code, tool calls, a
//! diff review, a command approval, notices, the narrow layout, help), and every glyph
//! drawn is measured against the background it is drawn on.
//!
//! `contrast::pairs` names the theme's roles; this catches what a list of roles cannot:
//! colours Loom does not choose (the syntax theme's) and styles the terminal decides
//! (faint text), wherever they end up on screen.

use std::collections::BTreeMap;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use serde_json::json;

use super::app::{App, Focus};
use super::contrast::{NON_TEXT, TEXT, ratio, rgb, terminal};
use super::snapshot_tests::{app, awaiting_diff, ev};
use super::theme::{BUILTIN, ColorDepth, Theme};
use crate::protocol::events::{AgentEvent, ApprovalPreview, Phase, TurnEnd};
use crate::protocol::tool_result::ToolResult;
use crate::protocol::usage::Usage;

const DEPTHS: [ColorDepth; 3] = [
    ColorDepth::TrueColor,
    ColorDepth::Ansi256,
    ColorDepth::Ansi16,
];

/// An app showing `theme` at `depth`, before anything happens in it.
fn themed(theme: &str, depth: ColorDepth) -> App {
    let (mut app, _rx) = app(theme);
    app.set_theme(Theme::load(theme, depth).unwrap());
    app
}

fn draw(app: &mut App, w: u16, h: u16) -> Buffer {
    let now = app.now;
    app.tick(now);
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| app.draw(f)).unwrap();
    term.backend().buffer().clone()
}

fn user(app: &mut App, text: &str) {
    ev(
        app,
        AgentEvent::UserMessage {
            text: text.into(),
            queued: false,
        },
    );
}

fn answer_with_code(app: &mut App) {
    user(app, "Add a greeting function");
    let answer = "## Plan\n\nI'll add `greet` to **src/lib.rs** (see [the docs](https://example.com)):\n\n\
        > quoted advice\n\n```rust\n// Greets someone by name.\npub fn greet(name: &str) -> String {\n    \
        let n = 42; /* a number */\n    format!(\"Hello, {name}! {n}\")\n}\n```\n\n\
        | a | b |\n|---|---|\n| 1 | 2 |\n\nDone.\n";
    ev(
        app,
        AgentEvent::TextDelta {
            text: answer.into(),
        },
    );
    ev(
        app,
        AgentEvent::TurnComplete {
            usage: Usage::default(),
            end: TurnEnd::Done,
            unsent: vec![],
            unsent_images: Vec::new(),
        },
    );
}

fn tool(app: &mut App, id: &str, name: &str, result: Option<ToolResult>) {
    ev(
        app,
        AgentEvent::ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: json!({ "command": "cargo test", "path": "Cargo.toml" }),
            intent: None,
        },
    );
    ev(app, AgentEvent::ToolStarted { id: id.into() });
    if let Some(result) = result {
        ev(
            app,
            AgentEvent::ToolResult {
                id: id.into(),
                name: name.into(),
                result,
                duration_ms: 12,
            },
        );
    }
}

/// Calls that succeeded, failed and still run, with the failed one selected in the focused
/// tools pane (its marks on the selection's background).
fn tool_calls(app: &mut App) {
    user(app, "run the tests");
    ev(
        app,
        AgentEvent::StateChanged {
            phase: Phase::ExecutingTools,
        },
    );
    tool(app, "c1", "read_file", Some(ToolResult::ok("[package]\n")));
    tool(
        app,
        "c2",
        "bash",
        Some(ToolResult::err("exit 101: 2 tests failed")),
    );
    tool(app, "c3", "bash", None);
    app.focus = Focus::Tools;
    app.on_key(crossterm::event::KeyEvent::from(
        crossterm::event::KeyCode::Up,
    ));
}

fn command_approval(app: &mut App) {
    user(app, "clean the build");
    ev(
        app,
        AgentEvent::StateChanged {
            phase: Phase::AwaitingApproval,
        },
    );
    let command = "rm -rf target && curl -o x.tgz https://example.com/x.tgz # fetch";
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
            reason: "high risk".into(),
            preview: ApprovalPreview::Command {
                command: command.into(),
                cwd: ".".into(),
                risk: crate::protocol::risk::Risk::High,
                risk_reason: "rm -r deletes the directory tree target".into(),
                grant_offered: false,
                grant_prefix: None,
                network: true,
                outside_sandbox: true,
            },
        },
    );
}

fn notices(app: &mut App) {
    user(app, "hello");
    ev(
        app,
        AgentEvent::Retry {
            attempt: 2,
            max_attempts: 5,
            reason: "the model server answered 429: slow down".into(),
            wait_ms: 1500,
        },
    );
    ev(
        app,
        AgentEvent::Error {
            message: "the model server answered 400: model not found".into(),
        },
    );
    app.submit("/theme");
}

/// Every screen the audit looks at: a name, how to reach it, and its size.
type Scene = (&'static str, fn(&mut App), u16, u16);

/// Commands that printed coloured output (a yellow warning reads on white too), and a
/// command box waiting while the message box has the keys.
fn command_output(app: &mut App) {
    user(app, "build it");
    for (id, out) in [
        (
            "o1",
            "\x1b[33mwarning:\x1b[0m unused\n\x1b[1;32mok\x1b[0m\n\x1b[90mdone\x1b[0m\n",
        ),
        (
            "o2",
            "\x1b[31merror\x1b[0m: \x1b[38;5;244mgrey\x1b[0m \x1b[38;2;250;250;210mpale\x1b[0m\n",
        ),
    ] {
        ev(
            app,
            AgentEvent::ToolCall {
                id: id.into(),
                name: "bash".into(),
                arguments: json!({ "command": "cargo build" }),
                intent: None,
            },
        );
        ev(
            app,
            AgentEvent::ToolResult {
                id: id.into(),
                name: "bash".into(),
                result: ToolResult::ok("exit code 0").with_data(json!({
                    "exit_code": 0, "stdout": out, "stderr": "", "duration_ms": 5,
                })),
                duration_ms: 5,
            },
        );
    }
    app.layers.last_key = Some(std::time::Instant::now());
    command_approval(app);
}

const SCENES: &[Scene] = &[
    ("command output and a waiting box", command_output, 100, 30),
    ("welcome", |_| {}, 100, 24),
    ("answer with code", answer_with_code, 100, 30),
    ("tool calls", tool_calls, 100, 24),
    ("diff review", awaiting_diff, 120, 40),
    ("command approval", command_approval, 100, 24),
    ("notices", notices, 100, 24),
    ("narrow layout", answer_with_code, 60, 20),
    ("help", |app| app.submit("/help"), 100, 30),
];

/// Box-drawing glyphs are borders (3:1); so is anything in the theme's dim colour.
fn minimum(symbol: &str, fg: Color, theme: &Theme) -> f64 {
    let border = symbol
        .chars()
        .all(|c| ('\u{2500}'..='\u{257f}').contains(&c));
    if border || fg == theme.dim {
        NON_TEXT
    } else {
        TEXT
    }
}

/// What falls short on `buf`, one line per (fg, bg, minimum) with the text it covers.
/// Reversed cells need nothing special: the ratio of two colours has no direction.
fn audit(buf: &Buffer, theme: &Theme) -> Vec<String> {
    let term = terminal(theme.id.background);
    let mut short: BTreeMap<String, String> = BTreeMap::new();
    let area = buf.area;
    for y in area.top()..area.bottom() {
        for x in area.left()..area.right() {
            let cell = &buf[(x, y)];
            let symbol = cell.symbol();
            if symbol.trim().is_empty() {
                continue;
            }
            let (fg, bg) = (cell.fg, cell.bg);
            let problem = if fg == Color::Reset && bg != Color::Reset {
                Some(format!(
                    "the terminal's own foreground on the theme's {bg:?}: any contrast"
                ))
            } else if cell.modifier.contains(Modifier::DIM) {
                Some(format!(
                    "faint (DIM) {fg:?} on {bg:?}: the terminal picks it"
                ))
            } else {
                let min = minimum(symbol, fg, theme);
                match (rgb(fg, term, false), rgb(bg, term, true)) {
                    (Some(f), Some(b)) if ratio(f, b) >= min => None,
                    (Some(f), Some(b)) => Some(format!(
                        "{fg:?} on {bg:?} is {:.2}:1, needs {min}",
                        ratio(f, b)
                    )),
                    _ => Some(format!("{fg:?} on {bg:?}: no known RGB value")),
                }
            };
            if let Some(p) = problem {
                let text = short.entry(p).or_default();
                if text.chars().count() < 40 {
                    text.push_str(symbol);
                }
            }
        }
    }
    short
        .into_iter()
        .map(|(problem, text)| format!("{problem} ({text:?})"))
        .collect()
}

/// Regression (issue 11): what the screen draws, not only what the theme names, must be
/// readable — the workspace path (dim on the status line), syntax colours on code and
/// diff backgrounds, the composer's placeholder — in every built-in theme and depth.
#[test]
fn every_glyph_on_every_screen_is_readable_in_every_builtin_theme_and_depth() {
    let mut failures = Vec::new();
    for (name, _) in BUILTIN {
        for depth in DEPTHS {
            for (scene, reach, w, h) in SCENES {
                let mut app = themed(name, depth);
                reach(&mut app);
                let buf = draw(&mut app, *w, *h);
                for f in audit(&buf, &app.theme) {
                    failures.push(format!("{name} {depth:?} {scene}: {f}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The audit itself can fail: light grey on white, faint text and a dark-on-dark path
/// are each caught and named.
#[test]
fn the_audit_names_what_falls_short() {
    let theme = Theme::load("light", ColorDepth::TrueColor).unwrap();
    let mut buf = Buffer::empty(ratatui::layout::Rect::new(0, 0, 20, 3));
    let grey = ratatui::style::Style::default().fg(Color::Gray);
    buf.set_string(0, 0, "awaiting approval", grey);
    buf.set_string(
        0,
        1,
        "placeholder",
        grey.fg(Color::Reset).add_modifier(Modifier::DIM),
    );
    buf.set_string(
        0,
        2,
        "──────",
        ratatui::style::Style::default().fg(theme.border),
    );
    let found = audit(&buf, &theme);
    assert_eq!(found.len(), 2, "{found:#?}");
    let mut status = Buffer::empty(ratatui::layout::Rect::new(0, 0, 12, 1));
    let default_on_tint = ratatui::style::Style::default().bg(theme.selection_bg);
    status.set_string(0, 0, "supervised", default_on_tint);
    let found_status = audit(&status, &theme);
    assert!(
        found_status[0].starts_with("the terminal's own foreground on the theme's"),
        "{found_status:?}"
    );
    assert!(found[0].starts_with("Gray on Reset is 1.26:1, needs 4.5 (\"awaitingapproval\")"));
    assert!(found[1].starts_with("faint (DIM) Reset on Reset"));
    let dark = Theme::load("dark", ColorDepth::TrueColor).unwrap();
    let mut path = Buffer::empty(ratatui::layout::Rect::new(0, 0, 12, 1));
    let dim_on_dim = ratatui::style::Style::default()
        .fg(Color::DarkGray)
        .bg(dark.selection_bg);
    path.set_string(0, 0, "~/src/demo", dim_on_dim);
    assert_eq!(audit(&path, &dark).len(), 1);
}

/// Every colour of every built-in theme's syntax theme, on every background code is drawn
/// on (the page, code blocks, added and removed lines, changed words), reads after
/// [`legible`] at every depth; a colour that already reads is left as it is.
#[test]
fn every_syntax_colour_is_made_legible_on_every_code_background() {
    use super::contrast::legible;
    use ratatui::style::Style;
    let syntaxes = syntect::highlighting::ThemeSet::load_defaults();
    let mut failures = Vec::new();
    for (name, _) in BUILTIN {
        for depth in DEPTHS {
            let theme = Theme::load(name, depth).unwrap();
            let term = terminal(theme.id.background);
            let syntax = &syntaxes.themes[&theme.id.syntax];
            let colours = syntax
                .scopes
                .iter()
                .filter_map(|item| item.style.foreground)
                .chain(syntax.settings.foreground);
            for c in colours {
                let fg = super::theme::adapt(Color::Rgb(c.r, c.g, c.b), depth, false);
                for bg in [
                    Color::Reset,
                    theme.markdown.code_bg,
                    theme.diff.added_bg,
                    theme.diff.removed_bg,
                    theme.diff.added_emphasis,
                    theme.diff.removed_emphasis,
                ] {
                    let before = Style::default().fg(fg).bg(bg);
                    let after = legible(before, &theme);
                    let measure = |s: Style| {
                        let f = rgb(s.fg.unwrap_or(Color::Reset), term, false);
                        let b = rgb(bg, term, true);
                        f.zip(b).map(|(f, b)| ratio(f, b)).unwrap_or(0.0)
                    };
                    let (r0, r1) = (measure(before), measure(after));
                    if r1 < TEXT || (r0 >= TEXT && after != before) {
                        failures.push(format!(
                            "{name} {depth:?}: {fg:?} on {bg:?} ({r0:.2}:1) became {:?} ({r1:.2}:1)",
                            after.fg
                        ));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Regression (issue 11): a program's 256-colour output was shown light grey (ANSI 7) on
/// any terminal short of true colour, near-invisible on a light one. It keeps its colour
/// on 256-colour terminals and takes the nearest of the 16 on the others.
#[test]
fn command_output_in_256_colours_is_not_turned_light_grey() {
    use super::ansi::{parse, themed};
    let text = "\x1b[38;5;27mblue\x1b[0m";
    let fg = |depth| {
        let theme = Theme::load("light", depth).unwrap();
        themed(&parse(text)[0], &theme).spans[0].style.fg
    };
    assert_eq!(fg(ColorDepth::Ansi256), Some(Color::Indexed(27)));
    assert_eq!(fg(ColorDepth::Ansi16), Some(Color::Blue));
    assert_eq!(fg(ColorDepth::TrueColor), Some(Color::Indexed(27)));
}

/// Each row as runs of one style, `[fg/bg modifiers] text`, blank runs left out: a colour
/// that regresses (light grey on white, faint text) shows in the snapshot.
fn runs(buf: &Buffer) -> String {
    let area = buf.area;
    let mut out = String::new();
    for y in area.top()..area.bottom() {
        let mut row: Vec<(String, String)> = Vec::new();
        for x in area.left()..area.right() {
            let cell = &buf[(x, y)];
            let mut key = format!("{:?}/{:?}", cell.fg, cell.bg);
            if !cell.modifier.is_empty() {
                key.push_str(&format!(" {:?}", cell.modifier));
            }
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

/// Regression (issue 11): the light theme with a command waiting for approval on a
/// 16-colour terminal, where hex colours fall back to named ones and the light grey
/// (ANSI 7) once drew borders, dim text and "awaiting approval" on white.
#[test]
fn the_light_theme_with_a_command_approval_in_sixteen_colours() {
    let mut app = themed("light", ColorDepth::Ansi16);
    command_approval(&mut app);
    let buf = draw(&mut app, 100, 24);
    assert_eq!(audit(&buf, &app.theme), Vec::<String>::new());
    let screen = runs(&buf);
    for grey in ["[Gray/Reset", "[White/Reset", "DIM"] {
        assert!(!screen.contains(grey), "{grey} on a light theme: {screen}");
    }
    insta::assert_snapshot!(screen);
}
