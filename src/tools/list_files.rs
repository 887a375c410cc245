//! `list_files`: what is in a directory, the way the project sees it.
//!
//! Walks with the `ignore` crate, so `.gitignore` (and `.ignore`) rules apply even outside
//! a git repository, `.git` itself is skipped, and symlinks are not followed out of the
//! workspace. Entries are sorted by path and bounded by `max_results`.
//!
//! The walk is `ignore`'s parallel one, and the cap applies while walking: each thread
//! keeps only the `max_results` paths that sort first ([`Kept`]), so memory and sorting
//! are bounded by the cap however large the tree, and the answer is the same whatever order
//! the threads find entries in (the first entries by path, as a full sort would give).
//! Only the entries returned are stat-ed, for their sizes; whether an entry is a directory
//! comes from the directory listing itself.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{CallIntent, Tool, ToolContext, ToolError, ToolKind, ToolResult, args};
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

/// One listed entry.
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
impl Tool for ListFiles {
    fn name(&self) -> &'static str {
        "list_files"
    }
    fn description(&self) -> &'static str {
        DESCRIPTION
    }
    fn parameters(&self) -> Value {
        args::schema_for::<ListFilesArgs>()
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }
    fn describe(&self, args: &Value) -> Result<CallIntent, ToolError> {
        let a: ListFilesArgs = args::parse(args.clone())?;
        Ok(CallIntent::reads([a.path.unwrap_or_else(|| ".".into())]))
    }
    fn default_timeout(&self) -> Duration {
        Duration::from_secs(30)
    }
    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolResult {
        let args: ListFilesArgs = match args::parse(args) {
            Ok(a) => a,
            Err(e) => return e.into(),
        };
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
    let walker = ignore::WalkBuilder::new(&dir)
        .hidden(false)
        .require_git(false)
        .follow_links(false)
        .max_depth(Some(depth))
        .filter_entry(|e| e.file_name() != ".git")
        .build_parallel();
    let shared = Mutex::new(Kept::new(max_results));
    walker.visit(&mut Visitors {
        shared: &shared,
        cap: max_results,
        cancel: &ctx.cancel,
    });
    if ctx.cancel.is_cancelled() {
        return Err(ToolError::Cancelled);
    }
    let kept = shared
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let (total, skipped) = (kept.seen, kept.skipped);
    let truncated = total > max_results;
    let entries = with_sizes(kept.into_sorted(), |path| conf.display(path));
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
    Ok(ToolResult::ok(output).with_data(json!({
        "path": shown,
        "entries": entries,
        "truncated": truncated,
    })))
}

/// The entries returned, with their sizes: only these are stat-ed, on as many threads as
/// the walk used (a full listing of a large tree is mostly `lstat` calls otherwise).
fn with_sizes(
    found: Vec<Found>,
    display: impl Fn(&std::path::Path) -> String + Sync,
) -> Vec<Entry> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = found.len().div_ceil(threads).max(1024);
    let entry = |f: &Found| Entry {
        path: display(&f.path),
        size: if f.is_dir {
            0
        } else {
            std::fs::symlink_metadata(&f.path)
                .map(|m| m.len())
                .unwrap_or(0)
        },
        is_dir: f.is_dir,
    };
    if found.len() <= chunk {
        return found.iter().map(entry).collect();
    }
    std::thread::scope(|scope| {
        let parts: Vec<_> = found
            .chunks(chunk)
            .map(|part| scope.spawn(|| part.iter().map(entry).collect::<Vec<_>>()))
            .collect();
        parts
            .into_iter()
            .flat_map(|part| part.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// One entry found by the walk, ordered by its path's bytes (which, under one directory,
/// is the order of the paths as shown).
#[derive(Debug, PartialEq, Eq)]
struct Found {
    path: PathBuf,
    is_dir: bool,
}

impl Ord for Found {
    fn cmp(&self, other: &Self) -> Ordering {
        self.path
            .as_os_str()
            .as_encoded_bytes()
            .cmp(other.path.as_os_str().as_encoded_bytes())
    }
}

impl PartialOrd for Found {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The `cap` entries that sort first among those seen, and how many were seen: the cap
/// applied while walking. A max-heap, so the entry to drop when a smaller one comes is
/// at the top.
#[derive(Debug)]
struct Kept {
    cap: usize,
    heap: BinaryHeap<Found>,
    /// Entries seen (kept or not), for "N exist".
    seen: usize,
    /// Entries the walk could not read.
    skipped: usize,
}

impl Kept {
    fn new(cap: usize) -> Kept {
        Kept {
            cap,
            heap: BinaryHeap::new(),
            seen: 0,
            skipped: 0,
        }
    }

    /// Whether an entry at `path` would be kept (checked before its path is taken).
    fn wants(&self, path: &std::path::Path) -> bool {
        self.heap.len() < self.cap
            || self.heap.peek().is_some_and(|top| {
                path.as_os_str().as_encoded_bytes() < top.path.as_os_str().as_encoded_bytes()
            })
    }

    fn offer(&mut self, found: Found) {
        self.heap.push(found);
        if self.heap.len() > self.cap {
            self.heap.pop();
        }
    }

    /// Take in what another thread kept and counted.
    fn merge(&mut self, other: Kept) {
        self.seen += other.seen;
        self.skipped += other.skipped;
        for found in other.heap {
            if self.wants(&found.path) {
                self.offer(found);
            }
        }
    }

    /// What was kept, by path.
    fn into_sorted(self) -> Vec<Found> {
        self.heap.into_sorted_vec()
    }
}

/// Makes one [`Visitor`] per walking thread; each hands what it kept to `shared` when
/// its thread is done.
struct Visitors<'a> {
    shared: &'a Mutex<Kept>,
    cap: usize,
    cancel: &'a tokio_util::sync::CancellationToken,
}

impl<'s> ignore::ParallelVisitorBuilder<'s> for Visitors<'s> {
    fn build(&mut self) -> Box<dyn ignore::ParallelVisitor + 's> {
        Box::new(Visitor {
            kept: Kept::new(self.cap),
            shared: self.shared,
            cancel: self.cancel,
        })
    }
}

struct Visitor<'a> {
    kept: Kept,
    shared: &'a Mutex<Kept>,
    cancel: &'a tokio_util::sync::CancellationToken,
}

impl ignore::ParallelVisitor for Visitor<'_> {
    fn visit(&mut self, item: Result<ignore::DirEntry, ignore::Error>) -> ignore::WalkState {
        if self.cancel.is_cancelled() {
            return ignore::WalkState::Quit;
        }
        let Ok(entry) = item else {
            self.kept.skipped += 1;
            return ignore::WalkState::Continue;
        };
        if entry.depth() == 0 {
            return ignore::WalkState::Continue;
        }
        self.kept.seen += 1;
        if self.kept.wants(entry.path()) {
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            self.kept.offer(Found {
                path: entry.into_path(),
                is_dir,
            });
        }
        ignore::WalkState::Continue
    }
}

impl Drop for Visitor<'_> {
    fn drop(&mut self) {
        let mine = std::mem::replace(&mut self.kept, Kept::new(0));
        self.shared
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .merge(mine);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    proptest::proptest! {
        /// Invariant: whatever order entries arrive in and however they are split among
        /// threads, what is kept is the `cap` entries that sort first, and every entry is
        /// counted once.
        #[test]
        fn kept_is_the_first_cap_entries_of_any_split(
            names in proptest::collection::vec("[a-c/.-]{1,6}", 0..60),
            cap in 1usize..20,
            threads in 1usize..5,
        ) {
            let mut parts: Vec<Kept> = (0..threads).map(|_| Kept::new(cap)).collect();
            for (i, name) in names.iter().enumerate() {
                let part = &mut parts[i % threads];
                part.seen += 1;
                let path = PathBuf::from(name);
                if part.wants(&path) {
                    part.offer(Found { path, is_dir: false });
                }
            }
            let mut all = Kept::new(cap);
            for part in parts {
                all.merge(part);
            }
            proptest::prop_assert_eq!(all.seen, names.len());
            let kept: Vec<String> = all
                .into_sorted()
                .into_iter()
                .map(|f| f.path.to_string_lossy().into_owned())
                .collect();
            let mut expected = names.clone();
            expected.sort();
            expected.truncate(cap);
            proptest::prop_assert_eq!(kept, expected);
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
}
