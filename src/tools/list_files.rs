//! `list_files`: what is in a directory, the way the project sees it.
//!
//! Walks with the `ignore` crate, so `.gitignore` (and `.ignore`) rules apply even outside
//! a git repository, `.git` itself is skipped, and symlinks are not followed out of the
//! workspace. Entries are sorted by path and bounded by `max_results`.

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
        .build();
    let mut entries = Vec::new();
    let mut skipped = 0usize;
    for item in walker {
        if ctx.cancel.is_cancelled() {
            return Err(ToolError::Cancelled);
        }
        let entry = match item {
            Ok(e) => e,
            Err(_) => {
                skipped += 1;
                continue;
            }
        };
        if entry.depth() == 0 {
            continue;
        }
        let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
        let size = if is_dir {
            0
        } else {
            entry.metadata().map(|m| m.len()).unwrap_or(0)
        };
        entries.push(Entry {
            path: conf.display(entry.path()),
            size,
            is_dir,
        });
    }
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    let total = entries.len();
    let truncated = total > max_results;
    entries.truncate(max_results);
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
