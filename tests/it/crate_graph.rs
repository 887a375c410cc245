//! The workspace's crate graph, read from `cargo metadata`, against the one
//! `docs/architecture.md` allows: a crate may depend (normally, for its build or for its
//! tests) only on the Loom crates its row lists — those listed after "tests only:" for its
//! tests alone (dev-dependencies) —, every crate of the workspace has a row, and every row
//! is a crate. The compiler then keeps each arrow: a module cannot name a
//! crate its manifest does not list.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// Where a row's crates allowed for its tests alone start.
const TESTS_ONLY: &str = "tests only:";

/// The allowed graph: crate -> the Loom crates it may depend on (for its build, or for its
/// tests), from the table in `docs/architecture.md` whose header has "may depend on".
fn allowed_graph(doc: &str) -> BTreeMap<String, BTreeSet<String>> {
    crate_rows(doc)
        .into_iter()
        .map(|(name, cell)| (name, backticked(&cell).into_iter().collect()))
        .collect()
}

/// The crates each row allows for its tests alone: those after "tests only:".
fn tests_only(doc: &str) -> BTreeMap<String, BTreeSet<String>> {
    crate_rows(doc)
        .into_iter()
        .map(|(name, cell)| {
            let after = cell.split_once(TESTS_ONLY).map_or("", |(_, t)| t);
            (name, backticked(after).into_iter().collect())
        })
        .collect()
}

/// The crate table's rows: each crate's name and its "may depend on" cell.
fn crate_rows(doc: &str) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    let mut in_table = false;
    for line in doc.lines() {
        let line = line.trim();
        if line.starts_with('|') && line.contains("may depend on") {
            in_table = true;
            continue;
        }
        if !in_table {
            continue;
        }
        if !line.starts_with('|') {
            break;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let Some(name) = cells.first().and_then(|c| backticked(c).into_iter().next()) else {
            continue;
        };
        rows.push((
            name,
            cells.last().map(|c| c.to_string()).unwrap_or_default(),
        ));
    }
    rows
}

/// The `` `names` `` in a table cell.
fn backticked(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// `cargo metadata --no-deps` of the workspace.
fn metadata(root: &Path) -> serde_json::Value {
    let out = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(root)
        .output()
        .expect("run cargo metadata");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("metadata is JSON")
}

/// The workspace's crates and the workspace crates each depends on (any kind).
fn actual_graph(root: &Path) -> BTreeMap<String, BTreeSet<String>> {
    graph_of(&metadata(root), |_| true)
}

/// The workspace's crates and the workspace crates each depends on to build (normal and
/// build dependencies, not dev-dependencies).
fn build_graph(root: &Path) -> BTreeMap<String, BTreeSet<String>> {
    graph_of(&metadata(root), |d| d["kind"].as_str() != Some("dev"))
}

/// The workspace's crates and the workspace crates each depends on, of the dependencies
/// `keep` keeps.
fn graph_of(
    meta: &serde_json::Value,
    keep: impl Fn(&serde_json::Value) -> bool,
) -> BTreeMap<String, BTreeSet<String>> {
    let packages = meta["packages"].as_array().expect("packages");
    let members: BTreeSet<String> = packages
        .iter()
        .filter_map(|p| p["name"].as_str().map(str::to_string))
        .collect();
    packages
        .iter()
        .map(|p| {
            let deps = p["dependencies"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|d| keep(d))
                .filter_map(|d| d["name"].as_str())
                .filter(|d| members.contains(*d))
                .map(str::to_string)
                .collect();
            (p["name"].as_str().unwrap_or_default().to_string(), deps)
        })
        .collect()
}

#[test]
fn the_crate_graph_is_the_one_the_architecture_page_allows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/architecture.md")).expect("the page");
    let allowed = allowed_graph(&doc);
    let actual = actual_graph(root);
    assert!(actual.len() > 1, "the workspace has crates: {actual:?}");
    let missing: Vec<_> = actual
        .keys()
        .filter(|c| !allowed.contains_key(*c))
        .collect();
    assert!(
        missing.is_empty(),
        "crates with no row in docs/architecture.md's crate table: {missing:?}"
    );
    let gone: Vec<_> = allowed
        .keys()
        .filter(|c| !actual.contains_key(*c))
        .collect();
    assert!(
        gone.is_empty(),
        "rows of docs/architecture.md's crate table that are no crate: {gone:?}"
    );
    let forbidden: Vec<String> = actual
        .iter()
        .flat_map(|(from, deps)| {
            deps.difference(&allowed[from])
                .map(move |to| format!("{from} -> {to}"))
        })
        .collect();
    assert!(
        forbidden.is_empty(),
        "arrows docs/architecture.md does not allow (move what is shared down instead):\n{}",
        forbidden.join("\n")
    );
    let only = tests_only(&doc);
    let built: Vec<String> = build_graph(root)
        .iter()
        .flat_map(|(from, deps)| {
            deps.intersection(&only[from])
                .map(move |to| format!("{from} -> {to}"))
        })
        .collect();
    assert!(
        built.is_empty(),
        "arrows docs/architecture.md allows for tests only, used to build:\n{}",
        built.join("\n")
    );
}

#[test]
fn the_table_reader_takes_names_and_allowed_crates_from_the_crate_table() {
    let doc = "text\n\n| crate | holds | may depend on |\n|---|---|---|\n\
               | `a` | x, `not-a-dep` in prose | — |\n| `b` | y | `a` |\n\nafter\n| `c` | | `a` |\n";
    let graph = allowed_graph(doc);
    assert_eq!(graph.len(), 2, "{graph:?}");
    assert!(graph["a"].is_empty());
    assert_eq!(graph["b"], BTreeSet::from(["a".to_string()]));
    let doc = "| crate | holds | may depend on |\n|---|---|---|\n\
               | `a` | x | — |\n| `b` | y | `a` |\n| `c` | z | `b`; tests only: `a` |\n";
    let (graph, only) = (allowed_graph(doc), tests_only(doc));
    assert_eq!(
        graph["c"],
        BTreeSet::from(["a".to_string(), "b".to_string()])
    );
    assert_eq!(only["c"], BTreeSet::from(["a".to_string()]));
    assert!(only["b"].is_empty());
}

/// A crate left in a cycle of the allowed graph once every crate whose allowed crates are
/// all placed has been placed, bottom up; `None` when the graph has no cycle.
fn a_crate_in_a_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<String> {
    let mut placed = BTreeSet::new();
    loop {
        let next: Vec<&String> = graph
            .iter()
            .filter(|(c, deps)| !placed.contains(*c) && deps.iter().all(|d| placed.contains(d)))
            .map(|(c, _)| c)
            .collect();
        if next.is_empty() {
            return graph.keys().find(|c| !placed.contains(*c)).cloned();
        }
        placed.extend(next.into_iter().cloned());
    }
}

#[test]
fn the_allowed_graph_has_no_cycle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/architecture.md")).expect("the page");
    let allowed = allowed_graph(&doc);
    assert_eq!(a_crate_in_a_cycle(&allowed), None, "{allowed:?}");
    let looped: BTreeMap<String, BTreeSet<String>> = [
        ("a".to_string(), BTreeSet::from(["b".to_string()])),
        ("b".to_string(), BTreeSet::from(["a".to_string()])),
        ("c".to_string(), BTreeSet::new()),
    ]
    .into();
    assert!(
        a_crate_in_a_cycle(&looped).is_some(),
        "the checker sees a loop"
    );
}

/// Only `loom-sandbox` may hold `unsafe` code outside tests: every other crate's roots (its
/// library and binaries) forbid it, so unsafe code elsewhere is a compile error.
#[test]
fn every_crate_but_the_sandbox_forbids_unsafe_code() {
    const FORBID: &str = "#![cfg_attr(not(test), forbid(unsafe_code))]";
    let meta = metadata(Path::new(env!("CARGO_MANIFEST_DIR")));
    let mut roots = 0;
    for package in meta["packages"].as_array().expect("packages") {
        if package["name"] == "loom-sandbox" {
            continue;
        }
        for target in package["targets"].as_array().expect("targets") {
            let kinds = target["kind"].as_array().expect("kinds");
            if !kinds.iter().any(|k| k == "lib" || k == "bin") {
                continue;
            }
            let path = target["src_path"].as_str().expect("a source path");
            let text = std::fs::read_to_string(path).expect("a crate root");
            assert!(text.contains(FORBID), "{path} does not forbid unsafe code");
            roots += 1;
        }
    }
    assert!(roots >= 9, "only {roots} crate roots were checked");
}
