//! The screen a daily user meets every hour (issue 25), in the real binary in a
//! pseudo-terminal: command output where people read it, approvals answered only on
//! purpose, paging by the pane that scrolls, the light theme on a light terminal, copying
//! inside a real tmux, and the resume picker; and highlighting that loads only when code
//! is first shown (issue 26).

use crate::support::ScriptedServer;
use crate::tui::{Tui, workspace};

/// Regression (issue 25): the Details pane dropped the first line of every command's
/// output (`!echo a; echo b` showed only `b`, a one-line output nothing), and the chat had
/// only a row per call, so the output could be read nowhere. Now the chat shows the last
/// lines under the row, and the Details pane every line.
#[tokio::test(flavor = "multi_thread")]
async fn the_first_line_of_a_commands_output_shows_in_the_chat_and_in_details() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![]).await;
    let mut tui = Tui::start(dir.path(), &server, 140, 40);
    tui.wait_for("Ask Loom").await;
    tui.type_line("!echo first-line; echo second-line").await;
    tui.wait_for("└ exit 0").await;
    // The Details pane may draw the output a frame after the chat's row: wait for it.
    let screen = tui.wait_for("││second-line").await;
    let lines: Vec<&str> = screen.lines().collect();
    let chat = |needle: &str| lines.iter().any(|l| l.contains(&format!("│ {needle}")));
    assert!(
        chat("first-line") && chat("second-line"),
        "both lines under the command's row:\n{screen}"
    );
    // The wide layout's Details pane shows the newest call: its lines start right after
    // the pane's border.
    let details = |needle: &str| lines.iter().any(|l| l.contains(&format!("││{needle}")));
    assert!(
        details("first-line") && details("second-line"),
        "both lines in the Details pane:\n{screen}"
    );
    tui.type_line("!echo only-line").await;
    let screen = tui.wait_for("│ only-line").await;
    assert!(screen.contains("││only-line"), "{screen}");
    tui.quit().await;
}

/// The model's reply, held until the test lets it go on (the box appears when it says).
fn held(
    reply: crate::support::Reply,
    gate: &std::sync::Arc<tokio::sync::Notify>,
) -> crate::support::Reply {
    let crate::support::Reply::Stream(frames) = reply else {
        unreachable!("a scripted call streams")
    };
    let mut held = vec![crate::support::Frame::Until(gate.clone())];
    held.extend(frames);
    crate::support::Reply::Stream(held)
}

/// Regression (issue 25): typing "also add a test" as a command box appeared answered it:
/// the `a` allowed the command's prefix for the session and the command ran. Keys typed in
/// the 500 ms before a box appears go on to the message box, the box waits (saying so), and
/// only Tab brings the keys to it.
#[tokio::test(flavor = "multi_thread")]
async fn typing_as_a_command_box_appears_answers_nothing() {
    let dir = workspace();
    let gate = std::sync::Arc::new(tokio::sync::Notify::new());
    let server = ScriptedServer::start(vec![
        held(
            crate::support::calls_openai(&[(
                "b1",
                "bash",
                r#"{"command": "touch made-by-loom.txt"}"#,
            )]),
            &gate,
        ),
        crate::support::text_reply("Done."),
    ])
    .await;
    let mut tui = Tui::start(dir.path(), &server, 140, 40);
    tui.wait_for("Ask Loom").await;
    tui.type_line("make the file").await;
    tui.wait_for("thinking").await;
    let typed = "also add a test, and a second one after it";
    for (i, c) in typed.chars().enumerate() {
        if i == 5 {
            gate.notify_one();
        }
        tui.send(&c.to_string());
        tokio::time::sleep(std::time::Duration::from_millis(40)).await;
    }
    let screen = tui.wait_for("Run this command? (waiting)").await;
    assert!(
        screen.contains(typed),
        "every key went to the message box:\n{screen}"
    );
    assert!(screen.contains("Tab answers this"), "{screen}");
    assert!(!dir.path().join("made-by-loom.txt").exists(), "nothing ran");
    assert_eq!(server.requests().len(), 1, "the model was not answered");
    // Tab brings the keys to the box, on purpose; `y` now runs it.
    tui.send("\t");
    tui.wait_for("y run · n refuse · a allow for session").await;
    tui.send("y");
    tui.wait_for("Done.").await;
    assert!(dir.path().join("made-by-loom.txt").exists());
    tui.quit().await;
}

/// Regression (issue 25): `Tab` then `y` ran the command, though docs/keys.md says Tab
/// reaches the message box: every key went to the box. Now Tab moves between the box and
/// the message box, and what is typed there stays there.
#[tokio::test(flavor = "multi_thread")]
async fn tab_takes_the_keys_to_the_message_box_and_back() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        crate::support::calls_openai(&[("b1", "bash", r#"{"command": "touch made.txt"}"#)]),
        crate::support::text_reply("Refused, fine."),
    ])
    .await;
    let mut tui = Tui::start(dir.path(), &server, 140, 40);
    tui.wait_for("Ask Loom").await;
    tui.type_line("make the file").await;
    tui.wait_for("allow `touch` for this session").await;
    tui.send("\t");
    tui.wait_for("Run this command? (waiting)").await;
    tui.send("y");
    tui.send("a");
    // What is typed after Tab is in the message box, and nothing ran.
    let screen = tui.wait_for("│ya").await;
    assert!(!dir.path().join("made.txt").exists(), "{screen}");
    assert!(screen.contains("Run this command? (waiting)"), "{screen}");
    tui.send("\t");
    tui.wait_for("Tab message box").await;
    tui.send("n");
    tui.wait_for("Tell the model why").await;
    tui.send("\r");
    tui.wait_for("Refused, fine.").await;
    assert!(!dir.path().join("made.txt").exists());
    tui.quit().await;
}

/// The numbers N of the removed `old N` lines the screen shows, top to bottom.
fn old_lines(screen: &str) -> Vec<usize> {
    screen
        .lines()
        .filter_map(|l| {
            let at = l.find("- old ")?;
            let digits: String = l[at + 6..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse().ok()
        })
        .collect()
}

/// Wait until the review shows a first `old` line other than `not`, drawn whole (the
/// numbers run without a gap and two reads in a row agree: a frame can reach the pty in
/// pieces), and return the numbers shown.
async fn scrolled_from(tui: &Tui, not: usize) -> Vec<usize> {
    let start = std::time::Instant::now();
    let mut last: Vec<usize> = Vec::new();
    loop {
        let shown = old_lines(&tui.screen());
        let whole = shown.windows(2).all(|w| w[1] == w[0] + 1);
        if whole && shown == last && shown.first().is_some_and(|f| *f != not) {
            return shown;
        }
        last = shown;
        assert!(
            start.elapsed() < std::time::Duration::from_secs(10),
            "the review did not scroll:\n{}",
            tui.screen()
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// Regression (issue 25): PgUp/PgDn in the review used the chat's page size: at 80×24 each
/// PgDn moved a 3,000-line diff by one line; at 120×40 it jumped 34 rows of a 22-row pane,
/// skipping 12. A page is now the rows the review shows: the line after the last one shown
/// comes first, none skipped, and PgUp goes back exactly.
#[tokio::test(flavor = "multi_thread")]
async fn page_down_in_the_review_moves_by_the_review_panes_height() {
    for (cols, rows) in [(80, 24), (120, 40)] {
        let dir = workspace();
        let old: String = (1..=1500).map(|i| format!("old {i}\n")).collect();
        let new: String = (1..=1500).map(|i| format!("new {i}\n")).collect();
        std::fs::write(dir.path().join("big.txt"), &old).unwrap();
        let args = serde_json::json!({"path": "big.txt", "content": new}).to_string();
        let server = ScriptedServer::start(vec![crate::support::calls_openai(&[(
            "w1",
            "write_file",
            &args,
        )])])
        .await;
        let mut tui = Tui::start(dir.path(), &server, cols, rows);
        tui.wait_for("Ask Loom").await;
        tui.type_line("rewrite it").await;
        tui.wait_for("Review the change").await;
        let first = scrolled_from(&tui, 0).await;
        tui.send("\x1b[6~");
        let second = scrolled_from(&tui, first[0]).await;
        assert_eq!(
            second[0],
            first.last().unwrap() + 1,
            "{cols}x{rows}: PgDn shows the line after the last one shown:\n{}",
            tui.screen()
        );
        tui.send("\x1b[6~");
        let third = scrolled_from(&tui, second[0]).await;
        assert_eq!(third[0], second.last().unwrap() + 1, "{cols}x{rows}");
        assert_eq!(third.len(), second.len(), "{cols}x{rows}: a page is a page");
        tui.send("\x1b[5~");
        let back = scrolled_from(&tui, third[0]).await;
        assert_eq!(back, second, "{cols}x{rows}: PgUp goes back exactly");
        tui.quit().await;
    }
}

/// A terminal colour as RGB on a white terminal (VS Code's light defaults, the palette the
/// theme tests use), as text (`false`) or background (`true`).
fn on_white(color: vt100::Color, background: bool) -> Option<(u8, u8, u8)> {
    use ratatui::style::Color;
    const NAMED: [Color; 16] = [
        Color::Black,
        Color::Red,
        Color::Green,
        Color::Yellow,
        Color::Blue,
        Color::Magenta,
        Color::Cyan,
        Color::Gray,
        Color::DarkGray,
        Color::LightRed,
        Color::LightGreen,
        Color::LightYellow,
        Color::LightBlue,
        Color::LightMagenta,
        Color::LightCyan,
        Color::White,
    ];
    let color = match color {
        vt100::Color::Default => Color::Reset,
        vt100::Color::Idx(i) if i < 16 => NAMED[i as usize],
        vt100::Color::Idx(i) => Color::Indexed(i),
        vt100::Color::Rgb(r, g, b) => Color::Rgb(r, g, b),
    };
    loom::tui::contrast::rgb(color, loom::tui::contrast::LIGHT, background)
}

/// What on the screen falls short on a white terminal: 4.5:1 for text, 3:1 for borders and
/// the theme's dim colour; and no text in the terminal's own colour on a colour Loom chose.
fn audit_on_white(tui: &Tui) -> Vec<String> {
    use loom::tui::contrast::{NON_TEXT, TEXT, ratio};
    let light =
        loom::tui::theme::Theme::load("light", loom::tui::theme::ColorDepth::Ansi256).unwrap();
    let dim = match light.dim {
        ratatui::style::Color::Indexed(i) => vt100::Color::Idx(i),
        other => panic!("the light theme's dim colour at 256 colours is {other:?}"),
    };
    let mut short = std::collections::BTreeMap::<String, String>::new();
    for (text, fg, bg) in tui.cells() {
        let border = text.chars().all(|c| ('\u{2500}'..='\u{257f}').contains(&c));
        let min = if border || fg == dim { NON_TEXT } else { TEXT };
        let problem = if fg == vt100::Color::Default && bg != vt100::Color::Default {
            Some(format!("the terminal's foreground on {bg:?}"))
        } else {
            match (on_white(fg, false), on_white(bg, true)) {
                (Some(f), Some(b)) if ratio(f, b) >= min => None,
                (Some(f), Some(b)) => Some(format!(
                    "{fg:?} on {bg:?} is {:.2}:1, needs {min}",
                    ratio(f, b)
                )),
                _ => Some(format!("{fg:?} on {bg:?}: unknown colour")),
            }
        };
        if let Some(p) = problem {
            let seen = short.entry(p).or_default();
            if seen.chars().count() < 30 {
                seen.push_str(&text);
            }
        }
    }
    short
        .into_iter()
        .map(|(p, text)| format!("{p} ({text:?})"))
        .collect()
}

/// Regression (issue 25): with no theme named, Loom drew its dark theme on a white
/// terminal (the status line at 1.65:1). It asks the terminal for its background: a reply
/// of white picks the light theme, and every glyph of the screens met in a first session
/// (welcome, a command's coloured output, an answer with code, a command waiting for
/// approval) reads on white. A terminal that does not answer gets the dark theme, which
/// this audit fails on white: the check can fail, and the answer is what decides.
#[tokio::test(flavor = "multi_thread")]
async fn a_white_background_reply_picks_the_light_theme_and_every_glyph_reads() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        crate::support::text_reply(
            "## Plan\n\nRun `make` in **src**:\n\n```rust\nfn main() { let n = 42; }\n```\n",
        ),
        crate::support::calls_openai(&[("b1", "bash", r#"{"command": "touch made.txt"}"#)]),
    ])
    .await;
    let mut tui = Tui::start_on(
        dir.path(),
        &server,
        120,
        40,
        &[],
        &[],
        Some("rgb:ffff/ffff/ffff"),
    );
    tui.wait_for("Ask Loom").await;
    let check = |tui: &Tui, scene: &str| {
        let failures = audit_on_white(tui);
        assert!(
            failures.is_empty(),
            "{scene} on a white terminal:\n{}\n{}",
            failures.join("\n"),
            tui.screen()
        );
    };
    check(&tui, "welcome");
    tui.type_line("!printf '\\033[33mwarning:\\033[0m unused\\n\\033[32mok\\033[0m\\n'")
        .await;
    tui.wait_for("└ exit 0").await;
    check(&tui, "command output");
    tui.type_line("plan it").await;
    tui.wait_for("fn main").await;
    tui.wait_for("● ready").await;
    check(&tui, "answer with code");
    tui.type_line("make the file").await;
    tui.wait_for("allow `touch` for this session").await;
    check(&tui, "command approval");
    tui.quit().await;

    let dir = workspace();
    let server = ScriptedServer::start(vec![]).await;
    let tui = Tui::start_on(dir.path(), &server, 120, 40, &[], &[], None);
    tui.wait_for("Ask Loom").await;
    assert!(
        !audit_on_white(&tui).is_empty(),
        "without an answer Loom keeps the dark theme, which does not read on white"
    );
    tui.quit().await;
}

/// A tmux server of the test's own (its own socket, tmux's default options), killed when
/// the test ends however it ends.
struct TmuxServer {
    socket: String,
}

impl TmuxServer {
    fn tmux(&self, args: &[&str]) -> std::process::Output {
        std::process::Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux is installed (.ci/run installs it)")
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p", "-t", "loom"]).stdout)
            .into_owned()
    }

    async fn wait_for(&self, needle: &str) -> String {
        let start = std::time::Instant::now();
        loop {
            let screen = self.screen();
            if screen.contains(needle) {
                return screen;
            }
            assert!(
                start.elapsed() < std::time::Duration::from_secs(20),
                "timed out waiting for {needle:?} in tmux:\n{screen}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }

    fn type_line(&self, text: &str) {
        self.tmux(&["send-keys", "-t", "loom", "-l", text]);
        self.tmux(&["send-keys", "-t", "loom", "Enter"]);
    }
}

impl Drop for TmuxServer {
    fn drop(&mut self) {
        let _ = self.tmux(&["kill-server"]);
    }
}

/// Regression (issue 25): inside tmux 3.3 with its defaults, `/copy` said "copied" but
/// nothing arrived: Loom wrapped OSC 52 in tmux's passthrough, which tmux drops unless
/// `allow-passthrough` is on. Loom runs here inside a real tmux server started with no
/// configuration at all, and what `/copy` copies is in `tmux show-buffer`.
#[tokio::test(flavor = "multi_thread")]
async fn copy_inside_a_real_tmux_with_its_defaults_lands_in_its_paste_buffer() {
    let dir = workspace();
    let answer = "The value is forty-two.\n\n```sh\necho 42\n```\n";
    let server = ScriptedServer::start(vec![crate::support::text_reply(answer)]).await;
    let home = dir.path().join(".home");
    std::fs::create_dir_all(&home).unwrap();
    let tmux = TmuxServer {
        socket: format!("loom-test-{}-{}", std::process::id(), fastrand_suffix()),
    };
    let loom = format!(
        "'{}' --model scripted-model --base-url '{}' -C '{}'",
        env!("CARGO_BIN_EXE_loom"),
        server.base_url(),
        dir.path().display()
    );
    let started = std::process::Command::new("tmux")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("TERM", "xterm-256color")
        .args(["-L", &tmux.socket, "-f", "/dev/null"])
        .args(["new-session", "-d", "-s", "loom", "-x", "120", "-y", "40"])
        .arg(&loom)
        .status()
        .expect("tmux is installed (.ci/run installs it)");
    assert!(started.success());
    let options = tmux.tmux(&["show-options", "-gv", "set-clipboard"]);
    assert_eq!(
        String::from_utf8_lossy(&options.stdout).trim(),
        "external",
        "tmux's default, which ignores a program's own OSC 52"
    );
    tmux.wait_for("Ask Loom").await;
    tmux.type_line("what is the value");
    tmux.wait_for("forty-two").await;
    tmux.type_line("/copy");
    let screen = tmux.wait_for("copied the last answer").await;
    let buffer = tmux.tmux(&["show-buffer"]);
    assert_eq!(
        String::from_utf8_lossy(&buffer.stdout),
        answer,
        "tmux's buffer holds the answer ({})\n{screen}",
        String::from_utf8_lossy(&buffer.stderr)
    );
    assert!(screen.contains("tmux's paste buffer"), "{screen}");
    tmux.type_line("/copy code");
    tmux.wait_for("copied the code block").await;
    let buffer = tmux.tmux(&["show-buffer"]);
    assert_eq!(String::from_utf8_lossy(&buffer.stdout), "echo 42\n");
}

/// A few random letters, so parallel runs do not share a tmux socket.
fn fastrand_suffix() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!("{nanos:x}")
}

/// Issue 26: syntect's sets load only once code is first to be shown, so a session that
/// never shows code does not hold them. The first answer with code is drawn at once (plain
/// while they load) and turns to colour by itself: no key is pressed after the question.
#[tokio::test(flavor = "multi_thread")]
async fn code_turns_to_colour_by_itself_once_highlighting_has_loaded() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![crate::support::text_reply(
        "Here it is:\n\n```rust\nfn main() { let answer = 42; }\n```\n",
    )])
    .await;
    let mut tui = Tui::start(dir.path(), &server, 120, 40);
    tui.wait_for("Ask Loom").await;
    tui.type_line("show me code").await;
    tui.wait_for("let answer = 42").await;
    let start = std::time::Instant::now();
    // Plain code has one colour (two with the block's margin); highlighted Rust has a
    // keyword, a function name, punctuation and a number in colours of their own.
    while tui.row_colours("let answer = 42").len() < 4 {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(20),
            "the code stayed plain ({:?}):\n{}",
            tui.row_colours("let answer = 42"),
            tui.screen()
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    tui.quit().await;
}
