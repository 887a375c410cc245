//! The real `loom` binary in a pseudo-terminal against the scripted server: keys go in as
//! bytes, the screen comes back through vt100, and the files and the server's recorded
//! requests say what really happened.

use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, MasterPty, PtySize, native_pty_system};
use serde_json::json;

use crate::support::{self, Frame, Reply, ScriptedServer};

pub(crate) struct Tui {
    parser: Arc<Mutex<vt100::Parser>>,
    /// Every byte Loom wrote, for sequences vt100 does not keep (OSC 52).
    raw: Arc<Mutex<Vec<u8>>>,
    writer: Arc<Mutex<Box<dyn Write + Send>>>,
    master: Box<dyn MasterPty + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
}

impl Tui {
    pub(crate) fn start(dir: &Path, server: &ScriptedServer, cols: u16, rows: u16) -> Tui {
        Tui::start_with(dir, server, cols, rows, &[], &[])
    }

    /// Start with extra arguments and environment variables.
    pub(crate) fn start_with(
        dir: &Path,
        server: &ScriptedServer,
        cols: u16,
        rows: u16,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Tui {
        Tui::start_on(dir, server, cols, rows, args, env, None)
    }

    /// Start on a terminal that answers the background question (OSC 11) with `background`
    /// (`rgb:ffff/ffff/ffff`), or stays silent about it (`None`). Either way it answers the
    /// device-attributes question, as every terminal does.
    pub(crate) fn start_on(
        dir: &Path,
        server: &ScriptedServer,
        cols: u16,
        rows: u16,
        args: &[&str],
        env: &[(&str, &str)],
        background: Option<&str>,
    ) -> Tui {
        let background = background.map(str::to_string);
        let pty = native_pty_system();
        let pair = pty
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a pseudo-terminal");
        let home = dir.join(".home");
        std::fs::create_dir_all(&home).unwrap();
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_loom"));
        cmd.args([
            "--model",
            "scripted-model",
            "--base-url",
            &server.base_url(),
            "-C",
        ]);
        cmd.arg(dir);
        cmd.args(args);
        cmd.cwd(dir);
        cmd.env("HOME", &home);
        cmd.env("XDG_CONFIG_HOME", home.join(".config"));
        cmd.env("XDG_DATA_HOME", home.join(".local/share"));
        cmd.env("TERM", "xterm-256color");
        for k in [
            "OPENAI_API_KEY",
            "OPENAI_BASE_URL",
            "LOOM_MODEL",
            "COLORTERM",
        ] {
            cmd.env_remove(k);
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        let child = pair.slave.spawn_command(cmd).expect("loom starts");
        drop(pair.slave);
        let parser = Arc::new(Mutex::new(vt100::Parser::new(
            std::num::NonZeroU16::new(rows).unwrap(),
            std::num::NonZeroU16::new(cols).unwrap(),
            0,
        )));
        let mut reader = pair.master.try_clone_reader().unwrap();
        let writer = Arc::new(Mutex::new(pair.master.take_writer().unwrap()));
        let sink = parser.clone();
        let raw = Arc::new(Mutex::new(Vec::new()));
        let raw_sink = raw.clone();
        let answer = writer.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                raw_sink.lock().unwrap().extend_from_slice(&buf[..n]);
                let mut parser = sink.lock().unwrap();
                parser.process(&buf[..n]);
                // Answer the background and device-attributes questions as a terminal
                // would (Loom asks at start when no theme is named).
                if let Some(bg) = &background
                    && buf[..n].windows(6).any(|w| w == b"\x1b]11;?")
                {
                    let mut w = answer.lock().unwrap();
                    let _ = w.write_all(format!("\x1b]11;{bg}\x1b\\").as_bytes());
                    let _ = w.flush();
                }
                if buf[..n].windows(3).any(|w| w == b"\x1b[c") {
                    let mut w = answer.lock().unwrap();
                    let _ = w.write_all(b"\x1b[?62;22c");
                    let _ = w.flush();
                }
                // Answer "where is the cursor?" as a terminal would (inline mode asks).
                if buf[..n].windows(4).any(|w| w == b"\x1b[6n") {
                    let (row, col) = parser.screen().cursor_position();
                    let reply = format!("\x1b[{};{}R", row + 1, col + 1);
                    let mut w = answer.lock().unwrap();
                    let _ = w.write_all(reply.as_bytes());
                    let _ = w.flush();
                }
            }
        });
        Tui {
            parser,
            raw,
            writer,
            master: pair.master,
            child,
        }
    }

    /// Every cell of the screen that shows something: its text and colours.
    pub(crate) fn cells(&self) -> Vec<(String, vt100::Color, vt100::Color)> {
        let parser = self.parser.lock().unwrap();
        let screen = parser.screen();
        let (rows, cols) = screen.size();
        let mut out = Vec::new();
        for r in 0..rows.get() {
            for c in 0..cols.get() {
                if let Some(cell) = screen.cell(r, c)
                    && !cell.contents().trim().is_empty()
                {
                    out.push((cell.contents().to_string(), cell.fgcolor(), cell.bgcolor()));
                }
            }
        }
        out
    }

    pub(crate) fn screen(&self) -> String {
        self.parser.lock().unwrap().screen().contents()
    }

    /// The distinct foreground colours of the visible glyphs on the first row that shows
    /// `needle` (empty when no row does).
    pub(crate) fn row_colours(&self, needle: &str) -> Vec<vt100::Color> {
        let parser = self.parser.lock().unwrap();
        let screen = parser.screen();
        let cols = screen.size().1.get();
        let Some(row) = screen.rows(0, cols).position(|text| text.contains(needle)) else {
            return Vec::new();
        };
        let mut colours = Vec::new();
        for c in 0..cols {
            if let Some(cell) = screen.cell(row as u16, c)
                && !cell.contents().trim().is_empty()
                && !colours.contains(&cell.fgcolor())
            {
                colours.push(cell.fgcolor());
            }
        }
        colours
    }

    pub(crate) async fn wait_for(&self, needle: &str) -> String {
        self.wait_for_all(&[needle]).await
    }

    /// Wait until one screen shows every one of `needles` (a frame after a resize, say,
    /// rather than a stale one that already had some of them).
    pub(crate) async fn wait_for_all(&self, needles: &[&str]) -> String {
        self.wait_screen(&format!("{needles:?}"), |s| {
            needles.iter().all(|n| s.contains(n))
        })
        .await
    }

    /// Wait (at most 20 s, then fail saying `what`) until the screen satisfies `done`; the
    /// screen it was seen on. The terminal's output has no event to wait on, so the screen
    /// is looked at every 50 ms.
    async fn wait_screen(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if done(&s) {
                return s;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "timed out waiting for {what}; the screen shows:\n{s}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Wait until the screen no longer shows `needle` (a layer closed, say).
    pub(crate) async fn wait_gone(&self, needle: &str) {
        self.wait_screen(&format!("{needle:?} to go"), |s| !s.contains(needle))
            .await;
    }

    pub(crate) fn send(&mut self, keys: &str) {
        let mut w = self.writer.lock().unwrap();
        w.write_all(keys.as_bytes()).unwrap();
        w.flush().unwrap();
    }

    pub(crate) async fn type_line(&mut self, text: &str) {
        self.send(text);
        tokio::time::sleep(Duration::from_millis(100)).await;
        self.send("\r");
    }

    /// Every byte written so far, lossily as text.
    pub(crate) fn raw(&self) -> String {
        String::from_utf8_lossy(&self.raw.lock().unwrap()).into_owned()
    }

    /// Wait until `needle` was written (in any sequence, shown or not).
    pub(crate) async fn wait_for_raw(&self, needle: &str) -> String {
        let start = Instant::now();
        loop {
            let raw = self.raw();
            if raw.contains(needle) {
                return raw;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "timed out waiting for {needle:?} in the output"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Quit with Ctrl+C twice and wait for the process to end; the screen is then the
    /// normal one.
    pub(crate) async fn quit_and_wait(mut self) -> String {
        self.send("\x03");
        tokio::time::sleep(Duration::from_millis(150)).await;
        self.send("\x03");
        let start = Instant::now();
        loop {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(5),
                "loom did not quit on Ctrl+C twice"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        self.wait_for("Resume it with").await
    }

    /// Resize the terminal as a window manager would. The emulator takes its new size
    /// before Loom hears of it, and keeps its lock until then: Loom's first frame at the
    /// new size is then never read into the emulator at the old one (which wrapped that
    /// frame's lines and left them on the screen, as a CI run of
    /// `resize_mid_stream_reflows` showed).
    fn resize(&mut self, cols: u16, rows: u16) {
        let mut parser = self.parser.lock().unwrap();
        parser.screen_mut().set_size(
            std::num::NonZeroU16::new(rows).unwrap(),
            std::num::NonZeroU16::new(cols).unwrap(),
        );
        self.master
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
    }

    pub(crate) async fn quit(mut self) {
        self.send("\x03");
        tokio::time::sleep(Duration::from_millis(150)).await;
        self.send("\x03");
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(5) {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let _ = self.child.kill();
        panic!("loom did not quit on Ctrl+C twice");
    }
}

pub(crate) fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(".gitignore"), ".home/\n").unwrap();
    dir
}

#[tokio::test(flavor = "multi_thread")]
async fn submit_see_the_diff_press_y_and_the_file_changes() {
    let dir = workspace();
    std::fs::write(dir.path().join("hello.py"), "print('hello')\n").unwrap();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[(
            "e1",
            "edit_file",
            r#"{"path": "hello.py", "old_str": "'hello'", "new_str": "'hello, world'"}"#,
        )]),
        support::text_reply("The greeting now says hello, world."),
    ])
    .await;
    let mut tui = Tui::start(dir.path(), &server, 140, 40);
    tui.wait_for("Ask Loom").await;
    tui.type_line("make it greet the world").await;
    tui.wait_for("Review the change").await;
    // The pane's lines may come a read after its title.
    let screen = tui.wait_for("print('hello, world')").await;
    assert!(screen.contains("+ print('hello, world')"), "{screen}");
    // The status line may come a frame after the review (a read can fall between).
    tui.wait_for("waiting for you").await;
    tui.send("y");
    tui.wait_for("The greeting now says hello, world.").await;
    assert_eq!(
        std::fs::read_to_string(dir.path().join("hello.py")).unwrap(),
        "print('hello, world')\n"
    );
    tui.quit().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn press_n_with_a_reason_leaves_the_file_and_tells_the_model() {
    let dir = workspace();
    std::fs::write(dir.path().join("hello.py"), "print('hello')\n").unwrap();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[(
            "e1",
            "edit_file",
            r#"{"path": "hello.py", "old_str": "hello", "new_str": "bye"}"#,
        )]),
        support::text_reply("Understood, leaving it."),
    ])
    .await;
    let mut tui = Tui::start(dir.path(), &server, 140, 40);
    tui.wait_for("Ask Loom").await;
    tui.type_line("change it").await;
    tui.wait_for("Review the change").await;
    tui.send("n");
    tui.wait_for("Tell the model why").await;
    tui.type_line("keep the greeting").await;
    tui.wait_for("Understood, leaving it.").await;
    assert_eq!(
        std::fs::read_to_string(dir.path().join("hello.py")).unwrap(),
        "print('hello')\n"
    );
    let answered = support::tool_messages(&server.requests()[1]);
    let err = answered[0].1["error"].as_str().unwrap();
    assert!(
        err.contains("denied") && err.contains("keep the greeting"),
        "{err}"
    );
    tui.quit().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn approve_one_of_two_hunks() {
    let dir = workspace();
    let original: String = (1..=30).map(|i| format!("line {i}\n")).collect();
    std::fs::write(dir.path().join("list.txt"), &original).unwrap();
    let args = json!({"path": "list.txt", "edits": [
        {"old_str": "line 2\n", "new_str": "LINE TWO\n"},
        {"old_str": "line 27\n", "new_str": "LINE TWENTY-SEVEN\n"}
    ]})
    .to_string();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("e1", "edit_file", &args)]),
        support::text_reply("Applied what you chose."),
    ])
    .await;
    let mut tui = Tui::start(dir.path(), &server, 140, 45);
    tui.wait_for("Ask Loom").await;
    tui.type_line("shout two lines").await;
    tui.wait_for("[x] @@ -24").await;
    tui.send("j");
    tui.wait_for("▶ [x] @@ -24").await;
    tui.send(" ");
    tui.wait_for("[ ] @@ -24").await;
    tui.send("\r");
    tui.wait_for("Applied what you chose.").await;
    let now = std::fs::read_to_string(dir.path().join("list.txt")).unwrap();
    assert_eq!(now, original.replace("line 2\n", "LINE TWO\n"));
    let answered = support::tool_messages(&server.requests()[1]);
    let output = answered[0].1["output"].as_str().unwrap();
    assert!(
        output.contains("only hunk(s) [1] of the 2 proposed"),
        "{output}"
    );
    assert!(output.contains("+1 -1 lines"), "what was written: {output}");
    let data = &answered[0].1["data"];
    // Regression (issue 25): `new_bytes` was the proposal's size (the rejected hunk's
    // bytes included) beside `bytes_written`.
    assert_eq!(data["new_bytes"], serde_json::json!(now.len()), "{data}");
    assert_eq!(data["bytes_written"], data["new_bytes"], "{data}");
    assert_eq!(data["hunks_applied"], serde_json::json!([1]));
    assert_eq!(data["hunks_rejected"], serde_json::json!([2]));
    assert!(data.get("edits_applied").is_none(), "{data}");
    tui.quit().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn approve_a_command() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("b1", "bash", r#"{"command": "touch made-by-loom.txt"}"#)]),
        support::text_reply("Created it."),
    ])
    .await;
    let mut tui = Tui::start(dir.path(), &server, 140, 40);
    tui.wait_for("Ask Loom").await;
    tui.type_line("make the file").await;
    tui.wait_for("Run this command?").await;
    // The box's last line: a screen read while a frame is still arriving can hold its
    // title without the rest.
    let screen = tui.wait_for("allow `touch` for this session").await;
    assert!(
        screen.contains("touch made-by-loom.txt") && screen.contains("risk medium"),
        "{screen}"
    );
    tui.send("y");
    tui.wait_for("Created it.").await;
    assert!(dir.path().join("made-by-loom.txt").exists());
    tui.quit().await;
}

fn slow_answer(text: &str, pause: Duration) -> Reply {
    let mut frames = Vec::new();
    for word in text.split_inclusive(' ') {
        frames.push(Frame::Data(
            json!({"choices": [{"index": 0, "delta": {"content": word}, "finish_reason": null}]})
                .to_string(),
        ));
        frames.push(Frame::Delay(pause));
    }
    frames.push(Frame::Data(
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}).to_string(),
    ));
    frames.push(Frame::Data("[DONE]".into()));
    Reply::Stream(frames)
}

#[tokio::test(flavor = "multi_thread")]
async fn esc_interrupts_mid_stream() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        slow_answer(
            "This answer streams very slowly and will be interrupted before it ends",
            Duration::from_millis(400),
        ),
        support::text_reply("Second turn works."),
    ])
    .await;
    let mut tui = Tui::start(dir.path(), &server, 140, 40);
    tui.wait_for("Ask Loom").await;
    tui.type_line("talk slowly").await;
    tui.wait_for("streams very").await;
    tui.send("\x1b");
    tui.wait_for("interrupted").await;
    let screen = tui.wait_for("● ready").await;
    assert!(!screen.contains("before it ends"), "{screen}");
    tui.type_line("again").await;
    tui.wait_for("Second turn works.").await;
    let second = &server.requests()[1];
    let assistant = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "assistant")
        .unwrap();
    assert!(
        assistant["content"]
            .as_str()
            .unwrap()
            .contains("[interrupted by the user]")
    );
    tui.quit().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn resize_mid_stream_reflows() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![slow_answer(
        "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty THE-END",
        Duration::from_millis(60),
    )])
    .await;
    let mut tui = Tui::start(dir.path(), &server, 140, 40);
    tui.wait_for("Ask Loom").await;
    tui.type_line("count").await;
    tui.wait_for("three").await;
    tui.resize(60, 20);
    let screen = tui.wait_for_all(&["THE-END", "Tab switches"]).await;
    for line in screen.lines() {
        assert!(
            line.chars().count() <= 60,
            "a stale wide line survived: {line:?}"
        );
    }
    tui.resize(140, 40);
    let screen = tui.wait_for("Tools (0)").await;
    assert!(screen.contains("THE-END"), "{screen}");
    tui.quit().await;
}

const LOOSE_PROJECT: &str = "sandbox = \"off\"\n[approval]\nmode = \"full-auto\"\n";

/// A workspace whose `.loom/config.toml` switches the sandbox off and sets full-auto.
fn loose_workspace() -> tempfile::TempDir {
    let dir = workspace();
    std::fs::create_dir_all(dir.path().join(".loom")).unwrap();
    std::fs::write(dir.path().join(".loom/config.toml"), LOOSE_PROJECT).unwrap();
    dir
}

fn trust_store(dir: &Path) -> String {
    std::fs::read_to_string(dir.join(".home/.local/share/loom/trust.json")).unwrap_or_default()
}

/// The status bar: the screen's last non-empty line.
fn status_line(screen: &str) -> String {
    screen
        .lines()
        .rfind(|l| !l.trim().is_empty())
        .unwrap_or("")
        .to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_trust_prompt_lists_what_the_project_loosens_and_t_applies_it() {
    let dir = loose_workspace();
    let server = ScriptedServer::start(vec![]).await;
    let mut tui = Tui::start(dir.path(), &server, 140, 40);
    tui.wait_for("Trust this project's Loom settings?").await;
    // The prompt's keys show once keys typed ahead while Loom started no longer count.
    let screen = tui.wait_for("t trust and apply").await;
    assert!(
        screen.contains("switches the command sandbox off  (sandbox)"),
        "{screen}"
    );
    assert!(
        screen.contains("sets the approval mode to full-auto, which asks less  (approval.mode)"),
        "{screen}"
    );
    assert!(status_line(&screen).contains("supervised"), "{screen}");
    assert_eq!(
        trust_store(dir.path()),
        "",
        "nothing is trusted before the answer"
    );
    tui.send("t");
    let screen = tui.wait_for("│ sandbox off").await;
    let status = status_line(&screen);
    assert!(status.contains("full-auto"), "{status}");
    assert!(!screen.contains("Trust this project"), "{screen}");
    let store = trust_store(dir.path());
    let sha = loom::config::trust::fingerprint(LOOSE_PROJECT.as_bytes());
    assert!(store.contains(&sha), "{store}");
    tui.quit().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn n_at_the_trust_prompt_goes_on_without_the_loosening_settings() {
    let dir = loose_workspace();
    let server = ScriptedServer::start(vec![]).await;
    let mut tui = Tui::start(dir.path(), &server, 200, 40);
    tui.wait_for("t trust and apply").await;
    tui.send("n");
    let screen = tui.wait_for("were ignored").await;
    assert!(!screen.contains("Trust this project"), "{screen}");
    let status = status_line(&screen);
    assert!(status.contains("supervised"), "{status}");
    assert!(!status.contains("sandbox off"), "{status}");
    assert_eq!(trust_store(dir.path()), "");
    tui.quit().await;
}

/// What the person trusts is the file they were shown: one changed while the prompt was
/// open is not trusted by the answer (its loosening lines stay ignored).
#[tokio::test(flavor = "multi_thread")]
async fn a_project_config_changed_behind_the_prompt_is_not_what_gets_trusted() {
    let dir = loose_workspace();
    let server = ScriptedServer::start(vec![]).await;
    let mut tui = Tui::start(dir.path(), &server, 200, 40);
    tui.wait_for("t trust and apply").await;
    let swapped = format!("{LOOSE_PROJECT}network = true\n");
    std::fs::write(dir.path().join(".loom/config.toml"), &swapped).unwrap();
    tui.send("t");
    let screen = tui.wait_for("were ignored").await;
    assert!(screen.contains("network"), "{screen}");
    let status = status_line(&screen);
    assert!(!status.contains("sandbox off"), "{status}");
    assert!(status.contains("supervised"), "{status}");
    let store = trust_store(dir.path());
    assert!(
        store.contains(&loom::config::trust::fingerprint(LOOSE_PROJECT.as_bytes())),
        "the shown file is the trusted one: {store}"
    );
    assert!(
        !store.contains(&loom::config::trust::fingerprint(swapped.as_bytes())),
        "{store}"
    );
    tui.quit().await;
}
