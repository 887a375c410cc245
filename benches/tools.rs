//! Hot paths of the tool system: `search_files` over a large generated tree, `list_files`
//! over a 100,000-file tree (compared with `rg --files` on the same tree when ripgrep is
//! installed; issue 26's target is within 1.3×), and `edit_file` (edit + diff + atomic
//! write) on a 10 MB file.
//!
//! Run with `cargo bench --bench tools`. To compare with ripgrep on the same tree, set
//! `LOOM_BENCH_KEEP=1`; the tree's path is printed, then run
//! `rg -c 'fn [a-z]+_17\(' DIR` with `hyperfine` or `time`.

use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use loom::tools::list_files::ListFiles;
use loom::tools::{Tool, ToolContext, ToolRegistry};
use serde_json::json;

/// 4,000 source files in 200 directories, ~120 lines each (~19 MB), plus an ignored
/// `target/` that must not be searched.
fn generate_tree(root: &Path) {
    std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
    for d in 0..200 {
        let dir = root.join(format!("src/mod_{d}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..20 {
            let mut text = String::with_capacity(5000);
            for l in 0..40 {
                text.push_str(&format!(
                    "fn function_{l}(x: u32) -> u32 {{\n    let y = x * {d} + {f};\n    y + {l}\n}}\n"
                ));
            }
            std::fs::write(dir.join(format!("file_{f}.rs")), text).unwrap();
        }
    }
    std::fs::create_dir_all(root.join("target")).unwrap();
    std::fs::write(
        root.join("target/big.rs"),
        "fn function_17(\n".repeat(100_000),
    )
    .unwrap();
}

fn bench_search(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    generate_tree(dir.path());
    if std::env::var_os("LOOM_BENCH_KEEP").is_some() {
        eprintln!("search tree: {}", dir.path().display());
    }
    let ctx = ToolContext::for_workspace(dir.path()).unwrap();
    let registry = ToolRegistry::builtin();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mut group = c.benchmark_group("search_files");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(10));
    group.bench_function("4000 files, regex, 4000 hits", |b| {
        b.iter(|| {
            let r = rt.block_on(registry.execute(
                "search_files",
                json!({"pattern": r"fn [a-z]+_17\(", "max_results": 5000}),
                &ctx,
            ));
            assert!(r.success);
        })
    });
    group.bench_function("4000 files, literal, no hits", |b| {
        b.iter(|| {
            let r = rt.block_on(registry.execute(
                "search_files",
                json!({"pattern": "this_is_not_anywhere"}),
                &ctx,
            ));
            assert!(r.success);
        })
    });
    group.finish();
    if std::env::var_os("LOOM_BENCH_KEEP").is_some() {
        std::mem::forget(dir);
    }
}

/// 100,000 empty files in 1,000 directories of 100, plus an ignored `target/`.
fn generate_wide_tree(root: &Path) {
    std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
    for d in 0..1000 {
        let dir = root.join(format!("pkg_{:02}/mod_{d}", d % 50));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..100 {
            std::fs::File::create(dir.join(format!("file_{f}.rs"))).unwrap();
        }
    }
    std::fs::create_dir_all(root.join("target/debug")).unwrap();
    for f in 0..1000 {
        std::fs::File::create(root.join(format!("target/debug/obj_{f}.o"))).unwrap();
    }
}

/// `rg --files --hidden --no-require-git` on `root` (the same ignore rules as `list_files`:
/// `.gitignore` outside a repository too, hidden files
/// included as `list_files` includes them); `None` when ripgrep is not installed.
fn rg_files(root: &Path) -> Option<usize> {
    let out = std::process::Command::new("rg")
        .args(["--files", "--hidden", "--no-require-git", "-g", "!.git"])
        .current_dir(root)
        .output()
        .ok()?;
    assert!(out.status.success(), "rg --files failed: {out:?}");
    Some(out.stdout.iter().filter(|b| **b == b'\n').count())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn bench_list(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    generate_wide_tree(dir.path());
    let ctx = ToolContext::for_workspace(dir.path()).unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let all = json!({"recursive": true, "max_results": 1_000_000});
    // The tool itself, not through the registry, whose output budget would cut the listing.
    let list = |args: &serde_json::Value| {
        let r = rt.block_on(ListFiles.execute(args.clone(), &ctx));
        assert!(r.success, "{r:?}");
        r
    };
    let listed = list(&all).data.unwrap()["entries"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(
        listed,
        100_000 + 1000 + 50 + 1,
        "files, their dirs and .gitignore"
    );

    // The comparison issue 26 asks for, as medians of alternating runs (the machine is
    // shared, so alternating keeps both sides under the same load).
    match rg_files(dir.path()) {
        None => eprintln!(
            "\n!!!!! ripgrep (rg) is not installed: list_files is NOT compared with `rg --files` \
             (install it, e.g. `apt-get install ripgrep`) !!!!!\n"
        ),
        Some(files) => {
            assert_eq!(files, 100_001, "rg sees the same files");
            let (mut ours, mut theirs) = (Vec::new(), Vec::new());
            for _ in 0..11 {
                let t = Instant::now();
                list(&all);
                ours.push(t.elapsed().as_secs_f64() * 1000.0);
                let t = Instant::now();
                rg_files(dir.path());
                theirs.push(t.elapsed().as_secs_f64() * 1000.0);
            }
            let (ours, theirs) = (median(ours), median(theirs));
            println!(
                "list_files (all {listed} entries) {ours:.1} ms vs rg --files {theirs:.1} ms: \
                 {:.2}x (target <= 1.3x)",
                ours / theirs
            );
        }
    }

    let mut group = c.benchmark_group("list_files");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    group.bench_function("100k files, recursive, everything", |b| {
        b.iter(|| list(&all))
    });
    group.bench_function("100k files, recursive, default cap 1000", |b| {
        b.iter(|| list(&json!({"recursive": true})))
    });
    if rg_files(dir.path()).is_some() {
        group.bench_function("rg --files on the same tree", |b| {
            b.iter(|| rg_files(dir.path()))
        });
    }
    group.finish();
}

fn bench_edit(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::with_capacity(10_500_000);
    let mut i = 0;
    while text.len() < 10_000_000 {
        text.push_str(&format!(
            "    let value_{i} = compute({i}, \"some text\");\n"
        ));
        i += 1;
    }
    let path = dir.path().join("big.rs");
    std::fs::write(&path, &text).unwrap();
    let ctx = ToolContext::for_workspace(dir.path()).unwrap();
    let registry = ToolRegistry::builtin();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mut group = c.benchmark_group("edit_file");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(10));
    let mut flip = false;
    group.bench_function("10 MB file, one edit, diff and atomic write", |b| {
        b.iter(|| {
            let (old, new) = if flip {
                (
                    "let value_123456 = compute(999",
                    "let value_123456 = compute(123456",
                )
            } else {
                (
                    "let value_123456 = compute(123456",
                    "let value_123456 = compute(999",
                )
            };
            flip = !flip;
            let r = rt.block_on(registry.execute(
                "edit_file",
                json!({"path": "big.rs", "old_str": old, "new_str": new}),
                &ctx,
            ));
            assert!(r.success, "{r:?}");
        })
    });
    group.bench_function("10 MB file, preview only (edit + diff)", |b| {
        b.iter(|| {
            let change = rt
                .block_on(registry.preview(
                    "edit_file",
                    json!({"path": "big.rs", "old_str": "value_5000 =", "new_str": "renamed_5000 ="}),
                    &ctx,
                ))
                .unwrap()
                .unwrap();
            assert_eq!(change[0].diff.hunks.len(), 1);
        })
    });
    group.finish();
}

criterion_group!(benches, bench_search, bench_list, bench_edit);
criterion_main!(benches);
