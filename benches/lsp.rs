//! The latency language-server diagnostics add to an edit (issue 30), with pyright from
//! `.ci/deps/lsp/` (run `.ci/lsp-deps` first).
//!
//! Run with `cargo bench --bench lsp`. A 200-line Python module is edited through
//! `edit_file` (the registry, as a model's call runs) alternately with diagnostics off and
//! on; each edit changes one line, half of them introducing a type error and half fixing
//! it, so every checked edit has a real answer to wait for. The server is started and
//! warmed first (its start is not part of an edit's steady cost); the medians of 21 edits
//! each are compared. `LOOM_BENCH_ROUNDS` changes the count. The unchecked edits go to a
//! copy of the module, so the server only ever sees the edits it checks.

use std::path::Path;
use std::time::{Duration, Instant};

use loom::config::{self, FlagConfig};
use loom::setup;
use loom::tools::{ToolContext, ToolRegistry};
use serde_json::json;

fn module() -> String {
    let mut text = String::from("value: int = 0\n");
    for i in 0..200 {
        text.push_str(&format!(
            "def f_{i}(x: int) -> int:\n    return x * {i} + 1\n\n"
        ));
    }
    text
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

async fn edit(
    registry: &ToolRegistry,
    ctx: &ToolContext,
    path: &str,
    round: usize,
) -> (Duration, String) {
    let (old, new) = if round.is_multiple_of(2) {
        ("value: int = 0", "value: int = \"zero\"")
    } else {
        ("value: int = \"zero\"", "value: int = 0")
    };
    let started = Instant::now();
    let r = registry
        .execute_as_person(
            "edit_file",
            json!({"path": path, "old_str": old, "new_str": new}),
            ctx,
        )
        .await;
    let took = started.elapsed();
    assert!(r.success, "{:?}", r.error);
    (took, r.output)
}

fn main() {
    let server = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(".ci/deps/lsp/node_modules/.bin/pyright-langserver");
    if !server.is_file() {
        eprintln!("SKIPPED: {} is missing; run .ci/lsp-deps", server.display());
        return;
    }
    let rounds: usize = std::env::var("LOOM_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(21);
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("m.py"), module()).unwrap();
    std::fs::write(ws.join("plain.py"), module()).unwrap();
    let file = dir.path().join("config.toml");
    std::fs::write(
        &file,
        format!(
            "lsp_wait_ms = 30000\n[lsp.pyright]\ncommand = {:?}\n",
            server.display().to_string()
        ),
    )
    .unwrap();
    let flags = FlagConfig {
        config_file: Some(file),
        ..FlagConfig::default()
    };
    let config = config::load(&ws, &flags, &|_| None).unwrap();
    let root = std::fs::canonicalize(&ws).unwrap();
    let on = setup::tool_context(&root, &config, "bench").unwrap();
    let off = ToolContext {
        lsp: None,
        ..on.clone()
    };
    let (registry, _) = setup::tool_registry(&config, None, &|_| None);
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let started = Instant::now();
        let (_, first) = edit(&registry, &on, "m.py", 0).await;
        eprintln!(
            "first edit, server start included: {:?}\n{}",
            started.elapsed(),
            first.lines().skip(1).collect::<Vec<_>>().join("\n")
        );
        let _ = edit(&registry, &on, "m.py", 1).await;
        let (mut with, mut without) = (Vec::new(), Vec::new());
        for round in 0..rounds * 2 {
            // Checked edits go to m.py, which the server follows; the others to a copy,
            // so the server never has to catch up with an edit it did not see.
            let checked = round % 4 < 2;
            let (ctx, path) = if checked {
                (&on, "m.py")
            } else {
                (&off, "plain.py")
            };
            let (took, out) = edit(&registry, ctx, path, round).await;
            if checked {
                assert!(out.contains("diagnostics (pyright)"), "{out}");
                with.push(took);
            } else {
                without.push(took);
            }
        }
        let (w, wo) = (median(with), median(without));
        println!(
            "edit_file on a 200-function module, median of {rounds}: {wo:?} without diagnostics, \
             {w:?} with pyright: {:?} added per edit",
            w.saturating_sub(wo)
        );
    });
}
