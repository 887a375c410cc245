//! Hot paths of the tool system: `search_files` over a large generated tree, `list_files`
//! over a 100,000-file tree, and `edit_file` (edit + diff + atomic write) on a 10 MB file.
//!
//! Run with `cargo bench --bench tools`. When ripgrep is installed, both search and listing
//! are first compared with `rg` on the same tree (issue 26's targets: `search_files` within
//! 1.1x of `rg`, the full `list_files` listing within 1.3x of `rg --files`). What is compared:
//! - the same tree, the same ignore rules (`.gitignore` outside a repository too, hidden
//!   files included, `.git` skipped) and the same threads (both walk on one thread per core,
//!   at most 12: `ignore`'s default and ripgrep's);
//! - the tool called directly (not through the registry, whose output budget would cut
//!   the result) against `rg` run as a process whose whole output is read, so `rg`'s side
//!   includes starting a process and writing its output through a pipe;
//! - `rg --files` lists files; `list_files` lists the same files, plus their directories
//!   (1,051 more entries), and gives each file's size, which takes one `stat` per file
//!   that `rg --files` never makes;
//! - `search_files` against `rg -n` printing the same `path:line:text` lines.
//!
//! The listing's floors are timed against `rg --files` too: the stat of every file alone,
//! and `ignore`'s parallel walker (what `list_files` is built on) with `list_files`' rules
//! and threads keeping nothing, alone and with a stat per file. The last is the least any
//! sized listing on that walker costs.
//!
//! Each side runs 11 times, alternating (the machine may be shared; alternating keeps both
//! under the same load), and the medians of wall-clock time are compared, with the CPU time
//! each used (mean per run, from the kernel's 10 ms clock ticks; less noisy under load).
//!
//! To search the tree by hand, set `LOOM_BENCH_KEEP=1`: the tree's path is printed.

use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use loom::tools::list_files::ListFiles;
use loom::tools::search_files::SearchFiles;
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
    for (name, pattern, hits) in [
        ("regex, 4000 hits", r"fn [a-z]+_17\(", 4000),
        ("literal, no hits", "this_is_not_anywhere", 0),
    ] {
        let args = json!({"pattern": pattern, "max_results": 5000});
        let ours = || {
            let r = rt.block_on(SearchFiles.execute(args.clone(), &ctx));
            assert!(r.success, "{r:?}");
            assert_eq!(r.data.unwrap()["matches"], hits);
        };
        if rg_search(dir.path(), pattern).is_none() {
            eprintln!("{NO_RG}");
            break;
        }
        assert_eq!(
            rg_search(dir.path(), pattern),
            Some(hits),
            "rg finds the same"
        );
        let theirs = || {
            rg_search(dir.path(), pattern);
        };
        compare(&format!("search_files ({name})"), "rg -n", ours, theirs).print(Some(1.1));
    }
    let mut group = c.benchmark_group("search_files");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(10));
    group.bench_function("4000 files, regex, 4000 hits", |b| {
        b.iter(|| {
            let r = rt.block_on(registry.execute_as_person(
                "search_files",
                json!({"pattern": r"fn [a-z]+_17\(", "max_results": 5000}),
                &ctx,
            ));
            assert!(r.success);
        })
    });
    group.bench_function("4000 files, literal, no hits", |b| {
        b.iter(|| {
            let r = rt.block_on(registry.execute_as_person(
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

const NO_RG: &str = "\n!!!!! ripgrep (rg) is not installed: the tools are NOT compared with rg \
                     (install it, e.g. `apt-get install ripgrep`) !!!!!\n";

/// The flags that give `rg` the ignore rules of `list_files` and `search_files`:
/// `.gitignore` outside a repository too, hidden files included, `.git` skipped.
const RG_RULES: [&str; 4] = ["--hidden", "--no-require-git", "-g", "!.git"];

/// Run `rg` with `args` in `root`; the number of lines it printed, `None` when ripgrep is
/// not installed.
fn rg(root: &Path, args: &[&str]) -> Option<usize> {
    let out = std::process::Command::new("rg")
        .args(RG_RULES)
        .args(args)
        .current_dir(root)
        .output()
        .ok()?;
    // 1 is "nothing found".
    assert!(
        out.status.success() || out.status.code() == Some(1),
        "rg failed: {out:?}"
    );
    Some(out.stdout.iter().filter(|b| **b == b'\n').count())
}

/// `rg --files` on `root`: how many files it lists.
fn rg_files(root: &Path) -> Option<usize> {
    rg(root, &["--files"])
}

/// `rg -n PATTERN` on `root` (`path:line:text` lines, as `search_files` gives): how many
/// matching lines.
fn rg_search(root: &Path, pattern: &str) -> Option<usize> {
    rg(root, &["-n", "-e", pattern])
}

/// The sizes of all files under `root` but those in `target/`, each stat-ed relative to its
/// open directory (`DirEntry::metadata` is an `fstatat` there, as `list_files` sizes files),
/// on one thread: the cost of sizing a listing, with nothing else.
fn stat_every_file(root: &Path) -> u64 {
    let mut total = 0;
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                if entry.file_name() != "target" {
                    dirs.push(entry.path());
                }
            } else {
                total += entry.metadata().unwrap().len();
            }
        }
    }
    total
}

/// `ignore`'s parallel walk of `root` with `list_files`' rules and threads, keeping nothing:
/// with `stat`, each file is also stat-ed in the walking thread (a sized listing with no
/// strings, no sort and no JSON). What the walker `list_files` is built on costs by itself.
fn bare_parallel_walk(root: &Path, stat: bool) -> usize {
    let seen = std::sync::atomic::AtomicUsize::new(0);
    ignore::WalkBuilder::new(root)
        .hidden(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|e| e.file_name() != ".git")
        .build_parallel()
        .run(|| {
            let seen = &seen;
            Box::new(move |entry| {
                if let Ok(entry) = entry {
                    if stat && !entry.file_type().is_some_and(|t| t.is_dir()) {
                        std::hint::black_box(std::fs::symlink_metadata(entry.path()).ok());
                    }
                    seen.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                ignore::WalkState::Continue
            })
        });
    seen.into_inner()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// CPU time used so far by this process and by its waited-for children, in ms, from
/// `/proc/self/stat` (clock ticks of 10 ms).
fn cpu_ms() -> (f64, f64) {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    // Fields after the command's name: state is field 3, utime 14 ... cstime 17.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<f64> = rest
        .split_whitespace()
        .skip(11)
        .take(4)
        .map(|v| v.parse().unwrap())
        .collect();
    ((f[0] + f[1]) * 10.0, (f[2] + f[3]) * 10.0)
}

/// Two sides run alternately: medians of wall-clock ms, and mean CPU ms per run.
struct Comparison {
    what: String,
    against: &'static str,
    ours: f64,
    theirs: f64,
    ours_cpu: f64,
    theirs_cpu: f64,
}

const RUNS: usize = 11;

fn compare(
    what: &str,
    against: &'static str,
    mut ours: impl FnMut(),
    mut theirs: impl FnMut(),
) -> Comparison {
    let (mut wall_ours, mut wall_theirs) = (Vec::new(), Vec::new());
    let (mut cpu_ours, mut cpu_theirs) = (0.0, 0.0);
    for _ in 0..RUNS {
        let (before, _) = cpu_ms();
        let t = Instant::now();
        ours();
        wall_ours.push(t.elapsed().as_secs_f64() * 1000.0);
        cpu_ours += cpu_ms().0 - before;
        let (_, before) = cpu_ms();
        let t = Instant::now();
        theirs();
        wall_theirs.push(t.elapsed().as_secs_f64() * 1000.0);
        cpu_theirs += cpu_ms().1 - before;
    }
    Comparison {
        what: what.to_string(),
        against,
        ours: median(wall_ours),
        theirs: median(wall_theirs),
        ours_cpu: cpu_ours / RUNS as f64,
        theirs_cpu: cpu_theirs / RUNS as f64,
    }
}

impl Comparison {
    fn print(&self, target: Option<f64>) {
        let target = target.map_or(String::new(), |t| format!(" (target <= {t}x)"));
        println!(
            "{} {:.1} ms vs {} {:.1} ms: {:.2}x{target}; CPU per run {:.0} ms vs {:.0} ms: \
             {:.2}x",
            self.what,
            self.ours,
            self.against,
            self.theirs,
            self.ours / self.theirs,
            self.ours_cpu,
            self.theirs_cpu,
            self.ours_cpu / self.theirs_cpu,
        );
    }
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

    // The comparison issue 26 asks for (see the top of this file for what is compared).
    match rg_files(dir.path()) {
        None => eprintln!("{NO_RG}"),
        Some(files) => {
            assert_eq!(files, 100_001, "rg sees the same files");
            let theirs = || {
                rg_files(dir.path());
            };
            let ours = || {
                list(&all);
            };
            let what = format!("list_files (all {listed} entries, sized)");
            compare(&what, "rg --files", ours, theirs).print(Some(1.3));
            // The part of that no listing with sizes can avoid: one stat per file.
            let sizing = || {
                stat_every_file(dir.path());
            };
            let what = "floor: stat of every file alone (1 thread, no ignore rules, no sort)";
            compare(what, "rg --files", sizing, theirs).print(None);
            // What the walker the issue prescribes costs with nothing kept: alone, and with
            // the stat per file that sizes need (in the walking threads, no second pass).
            assert_eq!(
                bare_parallel_walk(dir.path(), false),
                listed + 1,
                "the root too"
            );
            let what = "floor: ignore's parallel walk alone (same rules and threads, nothing kept)";
            let walk = || {
                bare_parallel_walk(dir.path(), false);
            };
            compare(what, "rg --files", walk, theirs).print(None);
            let what = "floor: ignore's parallel walk + a stat per file (nothing kept)";
            let walk = || {
                bare_parallel_walk(dir.path(), true);
            };
            compare(what, "rg --files", walk, theirs).print(None);
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
            let r = rt.block_on(registry.execute_as_person(
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
