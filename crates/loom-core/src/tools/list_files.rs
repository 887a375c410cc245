//! `list_files`: what is in a directory, the way the project sees it.
//!
//! Walks with the `ignore` crate, so `.gitignore` (and `.ignore`) rules apply even outside
//! a git repository, `.git` itself is skipped, and symlinks are not followed out of the
//! workspace. Entries are sorted by path and bounded by `max_results`.
//!
//! The walk is `ignore`'s parallel one, and the cap applies while walking: each thread
//! keeps only the `max_results` paths that sort first, so memory and sorting are bounded by
//! the cap however large the tree, and the answer is the same whatever order the threads
//! find entries in (the first entries by path bytes, as a full sort would give). Only the
//! files returned are stat-ed, for their sizes; whether an entry is a directory comes from
//! the directory listing itself. How that is kept cheap is [`list_walk`]'s business.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{CallIntent, ToolContext, ToolError, ToolKind, ToolResult, TypedTool, list_walk};
use crate::base::beneath::Beneath;
use crate::policy::paths::Access;

/// Default depth of a recursive listing.
pub const DEFAULT_MAX_DEPTH: usize = 10;
/// Default cap on entries returned.
pub const DEFAULT_MAX_RESULTS: usize = 1000;

/// Arguments of `list_files`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListFilesArgs {
    /// Relative to the workspace root (default: the root).
    pub path: Option<String>,
    /// List subdirectories' contents too.
    pub recursive: Option<bool>,
    /// Depth of a recursive listing.
    pub max_depth: Option<usize>,
    /// Most entries (default 1000).
    pub max_results: Option<usize>,
}

/// One listed entry: the shape of each object in the result's `entries`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// Path relative to the workspace root.
    pub path: String,
    /// Size in bytes (0 for directories).
    pub size: u64,
    /// Whether it is a directory.
    pub is_dir: bool,
}

/// The `list_files` tool.
pub struct ListFiles;

const DESCRIPTION: &str = "List a directory, sorted, respecting .gitignore. recursive \
descends (up to max_depth, default 10). Returns entries {path, size, is_dir}.";

#[async_trait]
impl TypedTool for ListFiles {
    type Args = ListFilesArgs;
    fn name(&self) -> &'static str {
        "list_files"
    }
    fn description(&self) -> &'static str {
        DESCRIPTION
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }
    fn intent(&self, a: &ListFilesArgs) -> Result<CallIntent, ToolError> {
        Ok(CallIntent::reads([a
            .path
            .clone()
            .unwrap_or_else(|| ".".into())]))
    }
    fn default_timeout(&self) -> Duration {
        Duration::from_secs(30)
    }
    async fn run(&self, args: Arc<ListFilesArgs>, ctx: &ToolContext) -> ToolResult {
        let ctx = ctx.clone();
        super::blocking("list_files", move || list(&args, &ctx))
            .await
            .unwrap_or_else(ToolResult::from)
    }
}

fn list(args: &ListFilesArgs, ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    let conf = ctx.confinement()?;
    let given = args.path.as_deref().unwrap_or(".");
    let dir = conf.resolve(given, Access::Read)?;
    let shown = conf.display(&dir);
    let meta = std::fs::metadata(&dir).map_err(|e| ToolError::io(given, &e))?;
    if !meta.is_dir() {
        return Err(ToolError::NotDirectory(shown));
    }
    let recursive = args.recursive.unwrap_or(false);
    let depth = if recursive {
        args.max_depth.unwrap_or(DEFAULT_MAX_DEPTH).max(1)
    } else {
        1
    };
    let max_results = args.max_results.unwrap_or(DEFAULT_MAX_RESULTS);
    if max_results == 0 {
        return Err(ToolError::InvalidArguments(
            "max_results must be at least 1".into(),
        ));
    }
    let beneath = Beneath::open(conf.root()).map_err(|e| ToolError::io(given, &e))?;
    let walker = ignore::WalkBuilder::new(&dir)
        .hidden(false)
        .require_git(false)
        .follow_links(false)
        .max_depth(Some(depth))
        .filter_entry(|e| e.file_name() != ".git")
        .build_parallel();
    let Some((found, total, skipped)) =
        list_walk::walk(walker, conf.root(), max_results, &ctx.cancel)
    else {
        return Err(ToolError::Cancelled);
    };
    let truncated = total > max_results;
    let entries = list_walk::to_json(found, &beneath);
    let mut output = format!(
        "{} entr{} under {shown}{}",
        entries.len(),
        if entries.len() == 1 { "y" } else { "ies" },
        if recursive { " (recursive)" } else { "" }
    );
    if truncated {
        output.push_str(&format!(
            "; truncated: {total} exist, raise max_results or list a subdirectory"
        ));
    }
    if skipped > 0 {
        output.push_str(&format!("; {skipped} unreadable entries skipped"));
    }
    if total == 0 {
        output.push_str(" (the directory is empty or everything in it is ignored)");
    }
    // Built by hand so that the (possibly 100,000) entries move in rather than being
    // serialised again.
    let mut data = Map::with_capacity(3);
    data.insert("path".into(), Value::String(shown));
    data.insert("entries".into(), Value::Array(entries));
    data.insert("truncated".into(), Value::Bool(truncated));
    Ok(ToolResult::ok(output).with_data(Value::Object(data)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::Tool;
    use serde_json::json;

    fn ws() -> (tempfile::TempDir, ToolContext) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src/deep/deeper")).unwrap();
        std::fs::create_dir_all(root.join(".git/objects")).unwrap();
        std::fs::create_dir_all(root.join("target")).unwrap();
        std::fs::write(root.join(".gitignore"), "target/\n*.log\n").unwrap();
        std::fs::write(root.join("src/main.rs"), "fn main() {}\n").unwrap();
        std::fs::write(root.join("src/deep/deeper/x.rs"), "").unwrap();
        std::fs::write(root.join("target/out"), "bin").unwrap();
        std::fs::write(root.join("debug.log"), "log").unwrap();
        std::fs::write(root.join("README.md"), "# hi").unwrap();
        let ctx = ToolContext::for_workspace(root).unwrap();
        (dir, ctx)
    }

    fn paths(r: &ToolResult) -> Vec<String> {
        r.data.as_ref().unwrap()["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["path"].as_str().unwrap().to_string())
            .collect()
    }

    #[tokio::test]
    async fn lists_children_sorted_respecting_gitignore() {
        let (_d, ctx) = ws();
        let r = ListFiles.execute(json!({}), &ctx).await;
        assert!(r.success, "{r:?}");
        assert_eq!(paths(&r), vec![".gitignore", "README.md", "src"]);
        let e = &r.data.unwrap()["entries"][1];
        assert_eq!(
            (e["size"].as_u64(), e["is_dir"].as_bool()),
            (Some(4), Some(false))
        );
    }

    /// The data is built by hand (the entries move in, not serialised again), so this
    /// checks it is exactly the typed `ListData` every reader takes it as.
    #[tokio::test]
    async fn the_hand_built_data_reads_as_list_data() {
        use crate::protocol::tool_data::{ListData, ListEntry};
        let (_d, ctx) = ws();
        let r = ListFiles.execute(json!({}), &ctx).await;
        let data: ListData = r.data_as().expect("list_files' data is ListData");
        let entry = |path: &str, size, is_dir| ListEntry {
            path: path.into(),
            size,
            is_dir,
        };
        assert_eq!(
            data,
            ListData {
                path: ".".into(),
                entries: vec![
                    entry(".gitignore", 14, false),
                    entry("README.md", 4, false),
                    entry("src", 0, true),
                ],
                truncated: false,
            }
        );
        assert_eq!(serde_json::to_value(&data).unwrap(), r.data.unwrap());
    }

    #[tokio::test]
    async fn recursive_and_depth() {
        let (_d, ctx) = ws();
        let r = ListFiles
            .execute(json!({"path": "src", "recursive": true}), &ctx)
            .await;
        assert_eq!(
            paths(&r),
            vec![
                "src/deep",
                "src/deep/deeper",
                "src/deep/deeper/x.rs",
                "src/main.rs"
            ]
        );
        let r = ListFiles
            .execute(
                json!({"path": "src", "recursive": true, "max_depth": 1}),
                &ctx,
            )
            .await;
        assert_eq!(paths(&r), vec!["src/deep", "src/main.rs"]);
    }

    #[tokio::test]
    async fn max_results_truncates() {
        let (_d, ctx) = ws();
        let r = ListFiles
            .execute(json!({"recursive": true, "max_results": 2}), &ctx)
            .await;
        assert_eq!(paths(&r).len(), 2);
        assert_eq!(r.data.as_ref().unwrap()["truncated"], true);
        assert!(r.output.contains("truncated"));
        let r = ListFiles.execute(json!({"max_results": 0}), &ctx).await;
        assert!(!r.success);
    }

    #[tokio::test]
    async fn errors() {
        let (_d, ctx) = ws();
        let r = ListFiles.execute(json!({"path": "README.md"}), &ctx).await;
        assert!(r.error.unwrap().contains("is a file"));
        let r = ListFiles.execute(json!({"path": "nope"}), &ctx).await;
        assert!(r.error.unwrap().contains("does not exist"));
        let r = ListFiles.execute(json!({"path": ".."}), &ctx).await;
        assert!(r.error.unwrap().contains("outside the workspace"));
        let r = ListFiles.execute(json!({"recursive": "yes"}), &ctx).await;
        assert!(r.error.unwrap().contains("invalid type"));
    }

    #[tokio::test]
    async fn unicode_names_are_listed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("日本.txt"), "x").unwrap();
        std::fs::write(dir.path().join("émoji🎉.md"), "").unwrap();
        let ctx = ToolContext::for_workspace(dir.path()).unwrap();
        let r = ListFiles.execute(json!({}), &ctx).await;
        assert_eq!(paths(&r), vec!["émoji🎉.md", "日本.txt"]);
    }

    #[tokio::test]
    async fn empty_directory() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ToolContext::for_workspace(dir.path()).unwrap();
        let r = ListFiles.execute(json!({}), &ctx).await;
        assert!(r.success);
        assert!(r.output.contains("empty"));
    }

    /// The cap applies while walking (issue 26): a capped listing is the first entries of
    /// the full listing by path, the same on every run whatever order the threads walk
    /// in, and says how many exist. `a-b` sorts before `a/b` as the shown paths do.
    #[tokio::test]
    async fn the_cap_keeps_the_first_entries_by_path_while_walking() {
        let dir = tempfile::tempdir().unwrap();
        for d in 0..30 {
            let sub = dir.path().join(format!("d{d:02}"));
            std::fs::create_dir(&sub).unwrap();
            for f in 0..20 {
                std::fs::write(sub.join(format!("f{f:02}.txt")), "x".repeat(f)).unwrap();
            }
        }
        std::fs::create_dir(dir.path().join("a")).unwrap();
        std::fs::write(dir.path().join("a/b"), "").unwrap();
        std::fs::write(dir.path().join("a-b"), "").unwrap();
        let ctx = ToolContext::for_workspace(dir.path()).unwrap();
        let full = ListFiles
            .execute(json!({"recursive": true, "max_results": 100_000}), &ctx)
            .await;
        let all = paths(&full);
        assert_eq!(all.len(), 30 * 21 + 3);
        let mut sorted = all.clone();
        sorted.sort();
        assert_eq!(all, sorted);
        assert_eq!(&all[..3], ["a", "a-b", "a/b"]);
        assert_eq!(full.data.as_ref().unwrap()["truncated"], false);
        for cap in [1usize, 7, 100, all.len() - 1] {
            for _ in 0..3 {
                let r = ListFiles
                    .execute(json!({"recursive": true, "max_results": cap}), &ctx)
                    .await;
                assert_eq!(paths(&r), all[..cap], "cap {cap}");
                assert_eq!(r.data.as_ref().unwrap()["truncated"], true);
                let exist = format!("truncated: {} exist", all.len());
                assert!(r.output.contains(&exist), "{}", r.output);
            }
        }
        let r = ListFiles
            .execute(json!({"path": "d03", "max_results": 3}), &ctx)
            .await;
        let sizes: Vec<u64> = r.data.as_ref().unwrap()["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["size"].as_u64().unwrap())
            .collect();
        assert_eq!(
            sizes,
            [0, 1, 2],
            "returned files are stat-ed for their sizes"
        );
    }

    /// A listing large enough to be stat-ed on several threads keeps its order and gives
    /// every file its own size.
    #[tokio::test]
    async fn a_large_listing_is_sized_in_order() {
        let dir = tempfile::tempdir().unwrap();
        for f in 0..2500 {
            std::fs::write(dir.path().join(format!("f{f:04}")), "x".repeat(f % 7)).unwrap();
        }
        let ctx = ToolContext::for_workspace(dir.path()).unwrap();
        let r = ListFiles.execute(json!({"max_results": 5000}), &ctx).await;
        let entries = r.data.as_ref().unwrap()["entries"].as_array().unwrap();
        assert_eq!(entries.len(), 2500);
        for (f, e) in entries.iter().enumerate() {
            assert_eq!(e["path"], format!("f{f:04}"));
            assert_eq!(e["size"].as_u64(), Some((f % 7) as u64), "f{f:04}");
        }
    }

    #[tokio::test]
    async fn symlinks_out_are_listed_not_followed() {
        let (d, ctx) = ws();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "s").unwrap();
        std::os::unix::fs::symlink(outside.path(), d.path().join("src/link")).unwrap();
        let r = ListFiles
            .execute(json!({"path": "src", "recursive": true}), &ctx)
            .await;
        let ps = paths(&r);
        assert!(ps.contains(&"src/link".to_string()));
        assert!(!ps.iter().any(|p| p.contains("secret")));
    }

    /// The listing as it was computed before the walk kept entries itself: every entry of
    /// a one-thread walk with the same rules, sorted by full path bytes, cut at `cap`,
    /// files sized by `symlink_metadata` on their whole path. Returns those entries and how
    /// many exist.
    fn reference(ctx: &ToolContext, given: &str, depth: usize, cap: usize) -> (Vec<Entry>, usize) {
        let conf = ctx.confinement().unwrap();
        let dir = conf.resolve(given, Access::Read).unwrap();
        let mut all: Vec<(std::path::PathBuf, bool)> = ignore::WalkBuilder::new(&dir)
            .hidden(false)
            .require_git(false)
            .follow_links(false)
            .max_depth(Some(depth))
            .filter_entry(|e| e.file_name() != ".git")
            .build()
            .filter_map(Result::ok)
            .filter(|e| e.depth() > 0)
            .map(|e| {
                let is_dir = e.file_type().is_some_and(|t| t.is_dir());
                (e.into_path(), is_dir)
            })
            .collect();
        all.sort_by(|a, b| {
            a.0.as_os_str()
                .as_encoded_bytes()
                .cmp(b.0.as_os_str().as_encoded_bytes())
        });
        let total = all.len();
        all.truncate(cap);
        let entries = all
            .into_iter()
            .map(|(path, is_dir)| Entry {
                path: conf.display(&path),
                size: if is_dir {
                    0
                } else {
                    std::fs::symlink_metadata(&path).map_or(0, |m| m.len())
                },
                is_dir,
            })
            .collect();
        (entries, total)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

        /// Invariant: on any tree (names that sort around `/`, ignore rules, a name that is
        /// not UTF-8, a symlink, sometimes 600 more entries for the threads to share),
        /// listing any directory at any depth and cap gives exactly the entries, order,
        /// sizes, JSON shape, `truncated` flag and "N exist" note of the plain reference
        /// above.
        #[test]
        fn the_listing_equals_a_plain_sorted_walk(
            items in proptest::collection::vec(
                ("[ab][ab.-]?(/[ab][ab.-]?){0,3}", proptest::option::of(0usize..6)),
                0..40,
            ),
            rules in proptest::sample::subsequence(vec!["a-", "b/", "*.", "!b.", "a/b", "aa"], 0..3),
            odd_name in proptest::bool::ANY,
            wide in proptest::bool::ANY,
            link in proptest::bool::ANY,
            in_sub in proptest::bool::ANY,
            recursive in proptest::bool::ANY,
            depth in 1usize..5,
            cap in 1usize..60,
        ) {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path();
            std::fs::create_dir_all(root.join(".git")).unwrap();
            std::fs::write(root.join(".git/HEAD"), "ref").unwrap();
            std::fs::write(root.join(".gitignore"), rules.join("\n")).unwrap();
            for (path, size) in &items {
                let at = root.join(path);
                // A path through an existing file cannot be made; the tree simply lacks it.
                let _ = match size {
                    None => std::fs::create_dir_all(&at),
                    Some(n) => at
                        .parent()
                        .map_or(Ok(()), std::fs::create_dir_all)
                        .and_then(|()| std::fs::write(&at, "x".repeat(*n))),
                };
            }
            if odd_name {
                use std::os::unix::ffi::OsStrExt;
                let name = std::ffi::OsStr::from_bytes(b"b\xff");
                std::fs::write(root.join(name), "odd").unwrap();
            }
            if wide {
                // Enough directories that the walk's threads share them, so their sorted
                // runs must be merged.
                for d in 0..30 {
                    let sub = root.join(format!("b-{d:02}"));
                    std::fs::create_dir_all(&sub).unwrap();
                    for f in 0..20 {
                        std::fs::write(sub.join(format!("f{f:02}")), "x".repeat(f)).unwrap();
                    }
                }
            }
            if link {
                // Generated names use only `a`, `b`, `.` and `-`: this one is free.
                std::os::unix::fs::symlink("a/b", root.join("ln")).unwrap();
            }
            let ctx = ToolContext::for_workspace(root).unwrap();
            let given = match items.iter().find(|(p, s)| s.is_none() && root.join(p).is_dir()) {
                Some((p, _)) if in_sub => p.clone(),
                _ => ".".to_string(),
            };
            let args = ListFilesArgs {
                path: Some(given.clone()),
                recursive: Some(recursive),
                max_depth: Some(depth),
                max_results: Some(cap),
            };
            let r = list(&args, &ctx).unwrap();
            let depth = if recursive { depth } else { 1 };
            let (want, total) = reference(&ctx, &given, depth, cap);
            let data = r.data.as_ref().unwrap();
            proptest::prop_assert_eq!(&data["entries"], &serde_json::to_value(&want).unwrap());
            proptest::prop_assert_eq!(&data["truncated"], &Value::Bool(total > cap));
            if total > cap {
                let exist = format!("truncated: {total} exist");
                proptest::prop_assert!(r.output.contains(&exist), "{}", r.output);
            }
        }
    }
}
