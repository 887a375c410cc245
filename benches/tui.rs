//! The TUI's hot paths, in-process: a frame (and a keystroke followed by a frame) with a
//! 10,000-message transcript, and streaming a 200 KB markdown answer through the UI with
//! frames drawn as the loop would draw them.
//!
//! Run with `cargo bench --bench tui`. The real binary's first frame, idle memory and the
//! whole streaming path are measured by `cargo bench --bench tui_e2e`.

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use crossterm::event::{KeyCode, KeyEvent};
use loom::agent::{AgentEvent, Phase};
use loom::policy::Autonomy;
use loom::tui::app::{App, StatusInfo};
use loom::tui::theme::{ColorDepth, Theme};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn app() -> App {
    loom::tui::highlight::load_now();
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    std::mem::forget(rx);
    let status = StatusInfo {
        model: "bench".into(),
        phase: Phase::Idle,
        usage: Default::default(),
        last_prompt: 0,
        context_window: None,
        autonomy: Autonomy::Supervised,
        edits_allowed: false,
        auto_commit: false,
        sandbox: "workspace-write".into(),
        workspace: "~/bench".into(),
        session_id: "bench".into(),
        mcp: Vec::new(),
        lsp: Vec::new(),
        card: Default::default(),
    };
    App::new(Theme::fallback(ColorDepth::TrueColor), status, tx)
}

/// About 200 KB of the markdown models write: prose, lists, code, tables.
pub fn markdown_200k() -> String {
    let mut s = String::new();
    let mut i = 0;
    while s.len() < 200_000 {
        s.push_str(&format!(
            "## Step {i}\n\nWe change **`module_{i}`** so that it *handles* the edge case; see [the docs](https://example.com/{i}).\n\n\
             - first point about item {i}\n- second point with `code` inline\n  - nested detail\n\n\
             ```rust\nfn handle_{i}(input: &str) -> Result<usize, Error> {{\n    let n = input.trim().parse::<usize>()?;\n    Ok(n * {i})\n}}\n```\n\n\
             | case | before | after |\n|---|---|---|\n| {i} | fails | works |\n\n"
        ));
        i += 1;
    }
    s
}

fn bench_big_transcript(c: &mut Criterion) {
    let mut app = app();
    for i in 0..5_000 {
        app.on_agent_event(AgentEvent::UserMessage {
            text: format!("question number {i}: why does it fail?"),
            queued: false,
        });
        app.on_agent_event(AgentEvent::TextDelta {
            text: format!("Because **{i}** is odd.\n\n- check `x_{i}`\n- then retry\n\n```sh\ncargo test case_{i}\n```\n"),
        });
        app.on_agent_event(AgentEvent::AssistantMessage {
            text: String::new(),
        });
    }
    let mut term = Terminal::new(TestBackend::new(200, 50)).unwrap();
    term.draw(|f| app.draw(f)).unwrap();
    let mut group = c.benchmark_group("tui_10k_messages");
    group.measurement_time(Duration::from_secs(8));
    group.bench_function("frame", |b| {
        b.iter(|| term.draw(|f| app.draw(f)).unwrap().area)
    });
    group.bench_function("keystroke to frame", |b| {
        b.iter(|| {
            app.composer.take();
            app.on_key(KeyEvent::from(KeyCode::Char('x')));
            term.draw(|f| app.draw(f)).unwrap().area
        })
    });
    group.finish();
}

fn bench_streaming(c: &mut Criterion) {
    let doc = markdown_200k();
    let chunks: Vec<&str> = {
        let mut v = Vec::new();
        let mut start = 0;
        while start < doc.len() {
            let mut end = (start + 40).min(doc.len());
            while !doc.is_char_boundary(end) {
                end += 1;
            }
            v.push(&doc[start..end]);
            start = end;
        }
        v
    };
    let mut group = c.benchmark_group("tui_stream_200kb_markdown");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(15));
    group.bench_function("deltas of 40 bytes, a frame every 8 deltas", |b| {
        b.iter(|| {
            let mut app = app();
            let mut term = Terminal::new(TestBackend::new(160, 45)).unwrap();
            app.on_agent_event(AgentEvent::StateChanged {
                phase: Phase::CallingLlm,
            });
            for (n, chunk) in chunks.iter().enumerate() {
                app.on_agent_event(AgentEvent::TextDelta {
                    text: (*chunk).to_string(),
                });
                if n % 8 == 0 {
                    term.draw(|f| app.draw(f)).unwrap();
                }
            }
            app.on_agent_event(AgentEvent::AssistantMessage {
                text: String::new(),
            });
            term.draw(|f| app.draw(f)).unwrap().area
        })
    });
    group.finish();
}

criterion_group!(benches, bench_big_transcript, bench_streaming);
criterion_main!(benches);
