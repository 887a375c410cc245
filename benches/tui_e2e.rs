//! The real binary in a pseudo-terminal, measured from outside like a person would notice:
//! time to the first frame, resident memory when idle, and the CPU time and peak memory of
//! streaming a 200 KB markdown answer from a local server.
//!
//! Run with `cargo bench --bench tui_e2e` (release build); `LOOM_BIN` names another build of
//! `loom` to compare with. Prints medians; asserts nothing. Idle memory is read once the
//! process has settled (no CPU used for half a second, at least 1.5 s after the first frame)
//! and split into anonymous pages (heap, stacks) and file pages (executable, libraries).
//! The file pages depend on the page cache as well as on the code that ran: a fault maps
//! the whole cached folio around it, and folio sizes follow how the file was written (the
//! same executable measured ~1 MB apart as written by the linker, by `cp` and by `strip`).
//! To compare two builds, copy both the same way and pass each as `LOOM_BIN`.

#[path = "shared/process.rs"]
mod process;
#[path = "../tests/support/mod.rs"]
mod support;
#[path = "shared/terminal.rs"]
mod terminal;

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use process::{cpu_seconds, median, resident, settle};
use serde_json::json;
use support::{Frame, Reply, ScriptedServer};

struct Running {
    parser: Arc<Mutex<vt100::Parser>>,
    writer: SharedWriter,
    child: Box<dyn portable_pty::Child + Send + Sync>,
    _master: Box<dyn portable_pty::MasterPty + Send>,
    started: Instant,
}

/// The pty's writer, shared with the thread that answers the terminal's questions.
struct SharedWriter(Arc<Mutex<Box<dyn std::io::Write + Send>>>);

impl std::io::Write for SharedWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.lock().unwrap().flush()
    }
}

fn spawn(base_url: &str, home: &std::path::Path, ws: &std::path::Path) -> Running {
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 45,
            cols: 160,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let bin = std::env::var("LOOM_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_loom").into());
    let mut cmd = CommandBuilder::new(bin);
    cmd.args(["--model", "bench-model", "--base-url", base_url, "-C"]);
    cmd.arg(ws);
    cmd.env("HOME", home);
    cmd.env("XDG_DATA_HOME", home.join("data"));
    cmd.env("XDG_CONFIG_HOME", home.join("config"));
    cmd.env("TERM", "xterm-256color");
    let started = Instant::now();
    let child = pair.slave.spawn_command(cmd).unwrap();
    drop(pair.slave);
    let (parser, writer) = terminal::attach(pair.master.as_ref(), 45, 160);
    let writer = SharedWriter(writer);
    Running {
        parser,
        writer,
        child,
        _master: pair.master,
        started,
    }
}

impl Running {
    fn wait_for(&self, needle: &str, limit: Duration) -> Option<Duration> {
        loop {
            if self
                .parser
                .lock()
                .unwrap()
                .screen()
                .contents()
                .contains(needle)
            {
                return Some(self.started.elapsed());
            }
            if self.started.elapsed() > limit {
                return None;
            }
            std::thread::sleep(Duration::from_micros(500));
        }
    }

    fn pid(&self) -> u32 {
        self.child.process_id().unwrap()
    }

    fn stop(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn markdown_200k() -> String {
    let mut s = String::new();
    let mut i = 0;
    while s.len() < 200_000 {
        s.push_str(&format!(
            "## Step {i}\n\nWe change **`module_{i}`** so that it *handles* the edge case.\n\n- first point about item {i}\n- second point with `code`\n\n```rust\nfn handle_{i}(input: &str) -> usize {{\n    input.len() * {i}\n}}\n```\n\n| case | before | after |\n|---|---|---|\n| {i} | fails | works |\n\n"
        ));
        i += 1;
    }
    s.push_str("STREAM-COMPLETE\n");
    s
}

fn stream_reply(doc: &str) -> Reply {
    let mut frames = Vec::new();
    let bytes = doc.as_bytes();
    let mut start = 0;
    while start < bytes.len() {
        let mut end = (start + 40).min(bytes.len());
        while !doc.is_char_boundary(end) {
            end += 1;
        }
        frames.push(Frame::Data(
            json!({"choices": [{"index": 0, "delta": {"content": &doc[start..end]}, "finish_reason": null}]}).to_string(),
        ));
        start = end;
    }
    frames.push(Frame::Data(
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}).to_string(),
    ));
    frames.push(Frame::Data("[DONE]".into()));
    Reply::Stream(frames)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();

    let mut first_frames = Vec::new();
    let mut idle = Vec::new();
    for _ in 0..7 {
        let server = rt.block_on(ScriptedServer::start(vec![]));
        let run = spawn(&server.base_url(), home.path(), ws.path());
        let t = run
            .wait_for("Ask Loom", Duration::from_secs(10))
            .expect("first frame");
        first_frames.push(t.as_secs_f64() * 1000.0);
        // Idle means nothing left to do: the provider is resolved, the model asked about,
        // and whatever starts in the background has finished.
        let settled = settle(
            run.pid(),
            Duration::from_millis(1500),
            Duration::from_secs(10),
        );
        let r = resident(run.pid());
        println!(
            "  idle run: {:.1} MB resident (anon {:.1}, file {:.1}), {} threads{}",
            r.total,
            r.anon,
            r.file,
            r.threads,
            if settled {
                ""
            } else {
                " (still busy after 10 s)"
            }
        );
        idle.push(r);
        run.stop();
    }
    println!(
        "first frame after launch: median {:.1} ms (of 7: {:?})",
        median(first_frames.clone()),
        first_frames
            .iter()
            .map(|v| format!("{v:.1}"))
            .collect::<Vec<_>>()
    );
    // Split because the two have different causes: the heap and stacks (anonymous) and the
    // pages of the executable and libraries that have been touched (file-backed).
    let m = |f: fn(&process::Resident) -> f64| median(idle.iter().map(f).collect());
    println!(
        "idle resident memory:     median {:.1} MB (heap and stacks {:.1} MB, executable and libraries {:.1} MB; {} threads)",
        m(|r| r.total),
        m(|r| r.anon),
        m(|r| r.file),
        m(|r| r.threads),
    );

    let doc = markdown_200k();
    let mut cpu = Vec::new();
    let mut peak = Vec::new();
    let (mut after_anon, mut after_file) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        let server = rt.block_on(ScriptedServer::start(vec![stream_reply(&doc)]));
        let mut run = spawn(&server.base_url(), home.path(), ws.path());
        run.wait_for("Ask Loom", Duration::from_secs(10))
            .expect("first frame");
        std::thread::sleep(Duration::from_millis(1500));
        let before = cpu_seconds(run.pid());
        run.writer.write_all(b"stream it").unwrap();
        std::thread::sleep(Duration::from_millis(50));
        run.writer.write_all(b"\r").unwrap();
        run.writer.flush().unwrap();
        run.wait_for("STREAM-COMPLETE", Duration::from_secs(60))
            .expect("the stream completes");
        std::thread::sleep(Duration::from_millis(300));
        cpu.push(cpu_seconds(run.pid()) - before);
        let now = resident(run.pid());
        peak.push(now.peak);
        after_anon.push(now.anon);
        after_file.push(now.file);
        run.stop();
    }
    println!(
        "streaming 200 KB markdown: median {:.3} CPU-seconds, peak RSS {:.1} MB",
        median(cpu),
        median(peak)
    );
    // Where the memory is once the answer is complete (the peak itself has no split).
    println!(
        "  resident after it:       heap and stacks {:.1} MB, executable and libraries {:.1} MB",
        median(after_anon),
        median(after_file)
    );
}
