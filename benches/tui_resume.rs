//! A resumed session of 1,000, 10,000 and 100,000 messages, measured from outside through a
//! pseudo-terminal of 120×40 like a person would notice: the first screen (launch until the
//! last message is drawn), keystroke → frame in the message box right after, scrolling to
//! the top (Ctrl+Home until the first message shows) and back, and resident memory.
//!
//! The sessions are generated in a temporary data directory: questions, answers with code
//! blocks, `bash` calls with their output and `edit_file` calls whose results carry diffs,
//! and the log records a real session has between them (about one per message).
//!
//! Run with `cargo bench --bench tui_resume` (release build). `LOOM_RESUME_SIZES=1000,10000`
//! picks the sizes, `LOOM_RESUME_RUNS=3` the runs per size, `LOOM_BIN` another build of
//! `loom` to compare with. Prints medians; asserts nothing. The first screen's CPU time
//! (all threads, until the last message is drawn) is less sensitive to a busy machine than
//! its wall time.

#[path = "../tests/support/mod.rs"]
mod support;
// Shared with tui_e2e, which also waits for the process to settle.
#[allow(dead_code)]
#[path = "shared/process.rs"]
mod process;
#[path = "shared/terminal.rs"]
mod terminal;

use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use loom::llm::{Message, ToolCall};
use loom::session::Record;
use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use process::{cpu_seconds, median, resident};
use serde_json::json;
use support::ScriptedServer;

const ROWS: u16 = 40;
const COLS: u16 = 120;

/// A request's usage record, as the agent writes one after each answer.
fn usage(i: usize) -> Record {
    Record::Usage {
        usage: loom::llm::Usage {
            prompt_tokens: 2_000 + i as u64,
            completion_tokens: 150,
            ..Default::default()
        },
    }
}

/// Write a session of `n` messages with the log records the agent writes around them
/// (each prompt's mark, each request's usage, each call's approval and result, each turn's
/// end); returns its id and the file's size in bytes.
fn generate(sessions: &Path, n: usize) -> (String, u64) {
    let id = format!("bench-{n}");
    std::fs::create_dir_all(sessions).unwrap();
    let path = sessions.join(format!("{id}.jsonl"));
    let mut out = BufWriter::new(std::fs::File::create(&path).unwrap());
    let mut line = |r: &Record| {
        serde_json::to_writer(&mut out, r).unwrap();
        out.write_all(b"\n").unwrap();
    };
    line(&Record::Session {
        id: id.clone(),
        started_at: "2026-11-27T07:00:00Z".into(),
        workspace: "/bench".into(),
        model: "bench-model".into(),
        title: None,
    });
    let mut written = 0;
    let mut i = 0;
    while written < n {
        let first = if i == 0 { "FIRST-MESSAGE " } else { "" };
        let mut ex = vec![Record::Message {
            message: Message::user(format!(
                "{first}Question {i}: why does `parse_{i}` fail on empty input, and can you fix it?"
            )),
        }];
        ex.push(Record::Prompt { seq: i as u64 });
        let (call, result) = if i % 2 == 0 {
            let id = format!("call-bash-{i}");
            let stdout: String = (0..12)
                .map(|k| format!("test module_{i}::case_{k} ... ok\n"))
                .collect();
            (
                ToolCall {
                    id: id.clone(),
                    name: "bash".into(),
                    arguments: json!({"command": format!("cargo test parse_{i}")}).to_string(),
                },
                Message::Tool {
                    tool_call_id: id,
                    name: "bash".into(),
                    content: json!({
                        "success": true,
                        "output": stdout,
                        "data": {"stdout": stdout, "stderr": "", "exit_code": 0, "duration_ms": 1200},
                    })
                    .to_string(),
                },
            )
        } else {
            let id = format!("call-edit-{i}");
            let diff = format!(
                "--- a/src/parse_{i}.rs\n+++ b/src/parse_{i}.rs\n@@ -10,7 +10,9 @@\n fn parse_{i}(input: &str) -> Result<Ast, Error> {{\n-    let first = input.chars().next().unwrap();\n+    let Some(first) = input.chars().next() else {{\n+        return Err(Error::Empty);\n+    }};\n     match first {{\n         '(' => list(input),\n         _ => atom(input),\n"
            );
            (
                ToolCall {
                    id: id.clone(),
                    name: "edit_file".into(),
                    arguments: json!({"path": format!("src/parse_{i}.rs"), "old": "let first = input.chars().next().unwrap();", "new": "let Some(first) = input.chars().next() else { return Err(Error::Empty); };"}).to_string(),
                },
                Message::Tool {
                    tool_call_id: id,
                    name: "edit_file".into(),
                    content: json!({
                        "success": true,
                        "output": diff,
                        "files_changed": [format!("src/parse_{i}.rs")],
                    })
                    .to_string(),
                },
            )
        };
        let (call_id, tool) = (call.id.clone(), call.name.clone());
        ex.push(usage(i));
        ex.push(Record::Message {
            message: Message::Assistant {
                content: format!(
                    "The **first character** is taken with `unwrap()`, which panics on empty input {i}.\n\n```rust\nfn parse_{i}(input: &str) -> Result<Ast, Error> {{\n    let first = input.chars().next().unwrap();\n    match first {{\n        '(' => list(input),\n        _ => atom(input),\n    }}\n}}\n```\n\nI will change it and run the tests."
                ),
                tool_calls: vec![call],
            },
        });
        ex.push(Record::Approval {
            id: call_id.clone(),
            approved: true,
            by: "policy".into(),
            reason: None,
        });
        ex.push(Record::ToolResult {
            id: call_id,
            name: tool,
            success: true,
            files_changed: Vec::new(),
            duration_ms: 1200,
        });
        ex.push(Record::Message { message: result });
        ex.push(usage(i));
        let so_far = written
            + ex.iter()
                .filter(|r| matches!(r, Record::Message { .. }))
                .count();
        let last = if so_far + 1 >= n { " LAST-MESSAGE" } else { "" };
        ex.push(Record::Message {
            message: Message::Assistant {
                content: format!(
                    "Fixed in `src/parse_{i}.rs`:\n\n- empty input now returns `Error::Empty`\n- the tests pass\n\n```rust\nassert_eq!(parse_{i}(\"\"), Err(Error::Empty));\n```\n\nDone with step {i}.{last}"
                ),
                tool_calls: Vec::new(),
            },
        });
        ex.push(Record::TurnEnd { end: "done".into() });
        for r in &ex {
            if matches!(r, Record::Message { .. }) {
                if written == n {
                    break;
                }
                written += 1;
            }
            line(r);
        }
        i += 1;
    }
    out.flush().unwrap();
    drop(out);
    (id, std::fs::metadata(&path).unwrap().len())
}

struct Running {
    parser: Arc<Mutex<vt100::Parser>>,
    writer: Arc<Mutex<Box<dyn Write + Send>>>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
    _master: Box<dyn portable_pty::MasterPty + Send>,
    started: Instant,
}

fn spawn(base_url: &str, home: &Path, ws: &Path, session: &str) -> Running {
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: ROWS,
            cols: COLS,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let bin = std::env::var("LOOM_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_loom").into());
    let mut cmd = CommandBuilder::new(bin);
    cmd.args(["--model", "bench-model", "--base-url", base_url, "--resume"]);
    cmd.arg(session);
    cmd.arg("-C");
    cmd.arg(ws);
    cmd.env("HOME", home);
    cmd.env("XDG_DATA_HOME", home.join("data"));
    cmd.env("XDG_CONFIG_HOME", home.join("config"));
    cmd.env("TERM", "xterm-256color");
    let started = Instant::now();
    let child = pair.slave.spawn_command(cmd).unwrap();
    drop(pair.slave);
    let (parser, writer) = terminal::attach(pair.master.as_ref(), ROWS, COLS);
    Running {
        parser,
        writer,
        child,
        _master: pair.master,
        started,
    }
}

impl Running {
    /// Wait until `needle` is on screen; how long since `since`.
    fn wait_for(&self, needle: &str, since: Instant, limit: Duration) -> Option<Duration> {
        loop {
            if self
                .parser
                .lock()
                .unwrap()
                .screen()
                .contents()
                .contains(needle)
            {
                return Some(since.elapsed());
            }
            if since.elapsed() > limit {
                return None;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
    }

    fn send(&self, bytes: &[u8]) {
        let mut w = self.writer.lock().unwrap();
        w.write_all(bytes).unwrap();
        w.flush().unwrap();
    }

    fn pid(&self) -> u32 {
        self.child.process_id().unwrap()
    }

    fn stop(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One run's figures.
struct Figures {
    first_screen_ms: f64,
    first_screen_cpu_ms: f64,
    key_ms: f64,
    key_late_ms: f64,
    top_ms: f64,
    back_ms: f64,
    rss_mb: f64,
    anon_mb: f64,
    file_mb: f64,
    peak_mb: f64,
}

/// Type `keys` one at a time after what `typed` holds (the message box's text), each
/// waited for on screen; the median latency.
fn type_keys(run: &Running, typed: &mut String, keys: &str) -> f64 {
    let mut times = Vec::new();
    for k in keys.chars() {
        // A fast typist's pace: each key comes after the last frame's pacing interval
        // (8 ms), as a person's keys do, so what is measured is the key's own cost.
        std::thread::sleep(Duration::from_millis(30));
        typed.push(k);
        let t = Instant::now();
        run.send(k.to_string().as_bytes());
        let d = run
            .wait_for(typed, t, Duration::from_secs(120))
            .expect("the key is drawn");
        times.push(d.as_secs_f64() * 1000.0);
    }
    median(times)
}

fn measure(rt: &tokio::runtime::Runtime, home: &Path, ws: &Path, id: &str) -> Figures {
    let server = rt.block_on(ScriptedServer::start(vec![]));
    let run = spawn(&server.base_url(), home, ws, id);
    let first = run
        .wait_for("LAST-MESSAGE", run.started, Duration::from_secs(300))
        .expect("the first screen shows the last message");
    let first_cpu = cpu_seconds(run.pid());
    // Right away, while highlighting may still be loading: what typing feels like at once.
    // The first keys make the message box's text unique on screen.
    let mut typed = String::new();
    type_keys(&run, &mut typed, "Zq9");
    let key_ms = type_keys(&run, &mut typed, "qwertyuiopasdfghjklz");
    std::thread::sleep(Duration::from_millis(1500));
    let key_late_ms = type_keys(&run, &mut typed, "QWERTYUIOPASDFGHJKLZ");
    let rss = resident(run.pid());
    // Ctrl+Home: to the first message (the message box has text, so Ctrl is needed).
    let t = Instant::now();
    run.send(b"\x1b[1;5H");
    let top = run
        .wait_for("FIRST-MESSAGE", t, Duration::from_secs(300))
        .expect("the top shows the first message");
    // The top's frame may still be arriving: the bottom is measured from a screen that
    // no longer shows it.
    while run
        .parser
        .lock()
        .unwrap()
        .screen()
        .contents()
        .contains("LAST-MESSAGE")
    {
        std::thread::sleep(Duration::from_micros(200));
    }
    std::thread::sleep(Duration::from_millis(30));
    let t = Instant::now();
    run.send(b"\x1b[1;5F");
    let back = run
        .wait_for("LAST-MESSAGE", t, Duration::from_secs(300))
        .expect("the bottom shows the last message again");
    std::thread::sleep(Duration::from_millis(300));
    let peak_mb = resident(run.pid()).peak;
    run.stop();
    Figures {
        first_screen_ms: first.as_secs_f64() * 1000.0,
        first_screen_cpu_ms: first_cpu * 1000.0,
        key_ms,
        key_late_ms,
        top_ms: top.as_secs_f64() * 1000.0,
        back_ms: back.as_secs_f64() * 1000.0,
        rss_mb: rss.total,
        anon_mb: rss.anon,
        file_mb: rss.file,
        peak_mb,
    }
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let sizes: Vec<usize> = std::env::var("LOOM_RESUME_SIZES")
        .unwrap_or_else(|_| "1000,10000,100000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let runs: usize = std::env::var("LOOM_RESUME_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let sessions = home.path().join("data").join("loom").join("sessions");
    println!(
        "resumed session, {COLS}×{ROWS}, medians of {runs} run(s)\n\
         | messages | file | first screen | its CPU | key → frame (at once) | key → frame (after 1.5 s) | scroll to top | back to bottom | RSS (anon + file) | peak RSS |\n\
         |---|---|---|---|---|---|---|---|---|---|"
    );
    for n in sizes {
        let (id, bytes) = generate(&sessions, n);
        let all: Vec<Figures> = (0..runs)
            .map(|_| measure(&rt, home.path(), ws.path(), &id))
            .collect();
        let m = |f: fn(&Figures) -> f64| median(all.iter().map(f).collect());
        println!(
            "| {n} | {:.1} MB | {:.0} ms | {:.0} ms | {:.2} ms | {:.2} ms | {:.1} ms | {:.1} ms | {:.1} MB ({:.1} + {:.1}) | {:.1} MB |",
            bytes as f64 / 1e6,
            m(|f| f.first_screen_ms),
            m(|f| f.first_screen_cpu_ms),
            m(|f| f.key_ms),
            m(|f| f.key_late_ms),
            m(|f| f.top_ms),
            m(|f| f.back_ms),
            m(|f| f.rss_mb),
            m(|f| f.anon_mb),
            m(|f| f.file_mb),
            m(|f| f.peak_mb),
        );
    }
}
