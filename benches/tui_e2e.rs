//! The real binary in a pseudo-terminal, measured from outside like a person would notice:
//! time to the first frame, resident memory when idle, and the CPU time and peak memory of
//! streaming a 200 KB markdown answer from a local server.
//!
//! Run with `cargo bench --bench tui_e2e` (release build). Prints medians; asserts nothing.

#[path = "../tests/support/mod.rs"]
mod support;
#[path = "shared/terminal.rs"]
mod terminal;

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};
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
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_loom"));
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

fn status_kb(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// User plus system CPU seconds of a process.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or("");
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)
        .ok()
        .flatten()
        .unwrap_or(100) as f64;
    let utime: f64 = fields.get(11).and_then(|v| v.parse().ok()).unwrap_or(0.0);
    let stime: f64 = fields.get(12).and_then(|v| v.parse().ok()).unwrap_or(0.0);
    (utime + stime) / ticks
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

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();

    let mut first_frames = Vec::new();
    let mut idle_rss = Vec::new();
    let (mut idle_anon, mut idle_file) = (Vec::new(), Vec::new());
    for _ in 0..7 {
        let server = rt.block_on(ScriptedServer::start(vec![]));
        let run = spawn(&server.base_url(), home.path(), ws.path());
        let t = run
            .wait_for("Ask Loom", Duration::from_secs(10))
            .expect("first frame");
        first_frames.push(t.as_secs_f64() * 1000.0);
        std::thread::sleep(Duration::from_millis(1500));
        idle_rss.push(status_kb(run.pid(), "VmRSS:") as f64 / 1024.0);
        idle_anon.push(status_kb(run.pid(), "RssAnon:") as f64 / 1024.0);
        idle_file.push(status_kb(run.pid(), "RssFile:") as f64 / 1024.0);
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
    // Split because the two have different causes: the heap (anonymous) and the pages of
    // the executable and libraries that have been touched (file-backed).
    println!(
        "idle resident memory:     median {:.1} MB (heap and stacks {:.1} MB, executable and libraries {:.1} MB)",
        median(idle_rss),
        median(idle_anon),
        median(idle_file)
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
        peak.push(status_kb(run.pid(), "VmHWM:") as f64 / 1024.0);
        after_anon.push(status_kb(run.pid(), "RssAnon:") as f64 / 1024.0);
        after_file.push(status_kb(run.pid(), "RssFile:") as f64 / 1024.0);
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
