//! `search_files`: regex search across the workspace with ripgrep's own libraries.
//!
//! `ignore` walks the tree in parallel (respecting `.gitignore`, skipping `.git`), one
//! `grep-searcher` per thread reads files (binary files skipped at the first NUL), and a
//! small sink collects matches with their context. Results come back sorted by path in
//! ripgrep's `path:line:text` form (context lines as `path-line-text`, `--` between groups).

use std::io;
use std::path::Path;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use grep_regex::RegexMatcherBuilder;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use ignore::WalkState;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{CallIntent, ToolContext, ToolError, ToolKind, ToolResult, TypedTool};
use crate::base::text::floor_char_boundary;
use crate::policy::paths::Access;
use crate::protocol::tool_data::SearchData;

/// Default cap on matching lines returned.
pub const DEFAULT_MAX_RESULTS: usize = 200;
/// Hard cap on matching lines, whatever the model asks.
pub const MAX_RESULTS_CAP: usize = 5000;
/// Longest line text shown; longer lines are cut (minified files would flood the model).
const MAX_LINE_CHARS: usize = 300;
/// Most context lines allowed on each side.
const MAX_CONTEXT: usize = 10;

/// Arguments of `search_files`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchFilesArgs {
    /// The regex, e.g. `fn\s+main`.
    pub pattern: String,
    /// File or directory to search (default: the root).
    pub path: Option<String>,
    /// Only files matching this glob, e.g. `*.rs`.
    pub glob: Option<String>,
    /// Ignore case.
    pub case_insensitive: Option<bool>,
    /// Lines around each match (at most 10).
    pub context_lines: Option<usize>,
    /// Most matching lines (default 200).
    pub max_results: Option<usize>,
}

/// The `search_files` tool.
pub struct SearchFiles;

const DESCRIPTION: &str = "Search file contents with a regular expression (ripgrep \
syntax), respecting .gitignore. Output lines: `path:line:text` for matches, `path-line-text` for \
context.";

#[async_trait]
impl TypedTool for SearchFiles {
    type Args = SearchFilesArgs;
    fn name(&self) -> &'static str {
        "search_files"
    }
    fn description(&self) -> &'static str {
        DESCRIPTION
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }
    fn intent(&self, a: &SearchFilesArgs) -> Result<CallIntent, ToolError> {
        Ok(CallIntent::reads([a
            .path
            .clone()
            .unwrap_or_else(|| ".".into())]))
    }
    fn default_timeout(&self) -> Duration {
        Duration::from_secs(30)
    }
    async fn run(&self, args: Arc<SearchFilesArgs>, ctx: &ToolContext) -> ToolResult {
        let ctx = ctx.clone();
        super::blocking("search_files", move || search(&args, &ctx))
            .await
            .unwrap_or_else(ToolResult::from)
    }
}

/// One line of output for a file: a match or a context line, or a group break.
#[derive(Debug, Clone)]
enum Hit {
    Match(u64, String),
    Context(u64, String),
    Break,
}

/// Collects one file's hits.
struct Collect<'a> {
    hits: Vec<Hit>,
    matches: usize,
    budget: &'a AtomicUsize,
}

fn line_text(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end_matches(['\n', '\r']);
    if text.chars().count() > MAX_LINE_CHARS {
        let cut = floor_char_boundary(text, MAX_LINE_CHARS);
        format!("{}… [line cut at {MAX_LINE_CHARS} chars]", &text[..cut])
    } else {
        text.to_string()
    }
}

impl Sink for Collect<'_> {
    type Error = io::Error;

    fn matched(&mut self, _s: &Searcher, m: &SinkMatch<'_>) -> Result<bool, io::Error> {
        let first = m.line_number().unwrap_or(0);
        for (i, line) in m.lines().enumerate() {
            self.hits
                .push(Hit::Match(first + i as u64, line_text(line)));
            self.matches += 1;
        }
        let before = self
            .budget
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |b| b.checked_sub(1))
            .unwrap_or(0);
        Ok(before > 1)
    }

    fn context(&mut self, _s: &Searcher, c: &SinkContext<'_>) -> Result<bool, io::Error> {
        self.hits.push(Hit::Context(
            c.line_number().unwrap_or(0),
            line_text(c.bytes()),
        ));
        Ok(true)
    }

    fn context_break(&mut self, _s: &Searcher) -> Result<bool, io::Error> {
        self.hits.push(Hit::Break);
        Ok(true)
    }
}

fn search(args: &SearchFilesArgs, ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    let conf = ctx.confinement()?;
    let given = args.path.as_deref().unwrap_or(".");
    let target = conf.resolve(given, Access::Read)?;
    if !target.exists() {
        return Err(ToolError::NotFound(given.to_string()));
    }
    let max_results = args
        .max_results
        .unwrap_or(DEFAULT_MAX_RESULTS)
        .clamp(1, MAX_RESULTS_CAP);
    let matcher = matcher(args)?;
    let walk = walker(&target, args.glob.as_deref(), conf.root())?;
    let root = conf.root().to_path_buf();
    let scan = Scan {
        matcher,
        context: args.context_lines.unwrap_or(0).min(MAX_CONTEXT),
        results: Mutex::new(Vec::new()),
        budget: AtomicUsize::new(max_results + 1),
        files_searched: AtomicUsize::new(0),
        cancel: ctx.cancel.clone(),
        beneath: Arc::new(
            crate::base::beneath::Beneath::open(&root).map_err(|e| ToolError::io(given, &e))?,
        ),
        root,
    };
    scan.run(walk);
    if ctx.cancel.is_cancelled() {
        return Err(ToolError::Cancelled);
    }
    let mut results = scan.results.into_inner().unwrap_or_default();
    results.sort_by(|a, b| a.0.cmp(&b.0));
    let total_matches: usize = results.iter().map(|r| r.2).sum();
    let truncated = total_matches > max_results;
    let shown = render(&results, max_results);
    let mut out = shown.text;
    if shown.matches == 0 {
        out.push_str(&format!("No matches for /{}/", args.pattern));
        if args.glob.is_some() {
            out.push_str(" in files matching the glob");
        }
        out.push('\n');
    } else if truncated {
        out.push_str(&format!(
            "[results truncated at {max_results} matches; narrow the pattern, path or glob, or raise max_results]\n"
        ));
    }
    Ok(ToolResult::ok(out).with(&SearchData {
        matches: shown.matches as u64,
        files_with_matches: shown.files as u64,
        files_searched: scan.files_searched.load(Ordering::Relaxed) as u64,
        truncated,
    }))
}

/// The pattern as a matcher, or an error that says how to match it literally.
fn matcher(args: &SearchFilesArgs) -> Result<grep_regex::RegexMatcher, ToolError> {
    RegexMatcherBuilder::new()
        .case_insensitive(args.case_insensitive.unwrap_or(false))
        .line_terminator(Some(b'\n'))
        .build(&args.pattern)
        .map_err(|e| {
            ToolError::InvalidArguments(format!(
                "pattern is not a valid regular expression: {e}; escape special characters \
                 like ( [ {{ . * with a backslash to match them literally"
            ))
        })
}

/// The walk of `target`: hidden files in, `.git` out, links not followed, only files
/// matching `glob` (relative to `root`) when one is given.
fn walker(
    target: &Path,
    glob: Option<&str>,
    root: &Path,
) -> Result<ignore::WalkBuilder, ToolError> {
    let mut walk = ignore::WalkBuilder::new(target);
    walk.hidden(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|e| e.file_name() != ".git");
    if let Some(glob) = glob {
        let invalid = |e: ignore::Error| {
            ToolError::InvalidArguments(format!("glob {glob:?} is not valid: {e}"))
        };
        let mut overrides = ignore::overrides::OverrideBuilder::new(root);
        overrides.add(glob).map_err(invalid)?;
        walk.overrides(overrides.build().map_err(invalid)?);
    }
    Ok(walk)
}

/// One file's hits: its path as shown, its lines, and how many of them matched.
type FileHits = (String, Vec<Hit>, usize);

/// One search as the walk's threads share it: what to look for, where, and what they found.
struct Scan {
    matcher: grep_regex::RegexMatcher,
    /// Context lines on each side of a match.
    context: usize,
    results: Mutex<Vec<FileHits>>,
    /// Matches still wanted (one more than shown, to know when results were cut).
    budget: AtomicUsize,
    files_searched: AtomicUsize,
    cancel: tokio_util::sync::CancellationToken,
    root: std::path::PathBuf,
    beneath: Arc<crate::base::beneath::Beneath>,
}

impl Scan {
    /// Search every file of `walk` in parallel, until the budget is spent or the call is
    /// cancelled.
    fn run(&self, walk: ignore::WalkBuilder) {
        walk.build_parallel().run(|| {
            let mut searcher = SearcherBuilder::new()
                .binary_detection(BinaryDetection::quit(0))
                .line_number(true)
                .before_context(self.context)
                .after_context(self.context)
                .build();
            Box::new(move |entry| {
                if self.cancel.is_cancelled() || self.budget.load(Ordering::Relaxed) == 0 {
                    return WalkState::Quit;
                }
                if let Ok(entry) = entry
                    && entry.file_type().is_some_and(|t| t.is_file())
                {
                    self.search_file(&mut searcher, entry.path());
                }
                WalkState::Continue
            })
        });
    }

    /// Search the file at `path` and keep its hits.
    fn search_file(&self, searcher: &mut Searcher, path: &Path) {
        // Opened beneath the workspace: a directory swapped for a symlink during the
        // walk, or a file swapped for a FIFO, is skipped rather than followed.
        let Ok(rel) = path.strip_prefix(&self.root) else {
            return;
        };
        let Ok((file, _)) = self.beneath.open_regular(rel) else {
            return;
        };
        self.files_searched.fetch_add(1, Ordering::Relaxed);
        let mut sink = Collect {
            hits: Vec::new(),
            matches: 0,
            budget: &self.budget,
        };
        if searcher
            .search_file(&self.matcher, &file, &mut sink)
            .is_ok()
            && sink.matches > 0
        {
            let shown = relative(&self.root, path);
            if let Ok(mut r) = self.results.lock() {
                r.push((shown, sink.hits, sink.matches));
            }
        }
    }
}

/// The hits as ripgrep prints them, at most `max_results` matching lines.
struct Shown {
    text: String,
    /// Matching lines shown.
    matches: usize,
    /// Files with a matching line shown.
    files: usize,
}

/// `results` (sorted by path) in ripgrep's form: `path:line:text`, context lines as
/// `path-line-text`, `--` between groups and files; stops after `max_results` matches.
fn render(results: &[FileHits], max_results: usize) -> Shown {
    let mut out = String::new();
    let mut shown_matches = 0usize;
    let mut files_with_matches = 0usize;
    'files: for (path, hits, _) in results {
        if shown_matches >= max_results {
            break;
        }
        if files_with_matches > 0 {
            out.push_str("--\n");
        }
        files_with_matches += 1;
        for hit in hits {
            match hit {
                Hit::Match(n, text) => {
                    if shown_matches >= max_results {
                        break 'files;
                    }
                    shown_matches += 1;
                    out.push_str(&format!("{path}:{n}:{text}\n"));
                }
                Hit::Context(n, text) => out.push_str(&format!("{path}-{n}-{text}\n")),
                Hit::Break => out.push_str("--\n"),
            }
        }
    }
    Shown {
        text: out,
        matches: shown_matches,
        files: files_with_matches,
    }
}

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::Tool;
    use serde_json::json;

    fn ws() -> (tempfile::TempDir, ToolContext) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join("target")).unwrap();
        std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
        std::fs::write(root.join("src/a.rs"), "fn main() {\n    todo();\n}\n").unwrap();
        std::fs::write(root.join("src/b.py"), "def main():\n    TODO = 1\n").unwrap();
        std::fs::write(root.join("target/gen.rs"), "todo();\n").unwrap();
        std::fs::write(root.join("blob.bin"), b"todo\0\x01\x02").unwrap();
        let ctx = ToolContext::for_workspace(root).unwrap();
        (dir, ctx)
    }

    #[tokio::test]
    async fn finds_matches_sorted_skipping_ignored_and_binary() {
        let (_d, ctx) = ws();
        let r = SearchFiles.execute(json!({"pattern": "todo"}), &ctx).await;
        assert!(r.success, "{r:?}");
        assert_eq!(r.output, "src/a.rs:2:    todo();\n");
        let r = SearchFiles
            .execute(json!({"pattern": "todo", "case_insensitive": true}), &ctx)
            .await;
        assert_eq!(
            r.output,
            "src/a.rs:2:    todo();\n--\nsrc/b.py:2:    TODO = 1\n"
        );
        assert_eq!(r.data.unwrap()["files_with_matches"], 2);
    }

    #[tokio::test]
    async fn glob_path_and_context() {
        let (_d, ctx) = ws();
        let r = SearchFiles
            .execute(json!({"pattern": "main", "glob": "*.py"}), &ctx)
            .await;
        assert_eq!(r.output, "src/b.py:1:def main():\n");
        let r = SearchFiles
            .execute(
                json!({"pattern": "todo", "path": "src/a.rs", "context_lines": 1}),
                &ctx,
            )
            .await;
        assert_eq!(
            r.output,
            "src/a.rs-1-fn main() {\nsrc/a.rs:2:    todo();\nsrc/a.rs-3-}\n"
        );
    }

    #[tokio::test]
    async fn max_results_bounds_output() {
        let dir = tempfile::tempdir().unwrap();
        let text: String = (0..500).map(|i| format!("hit {i}\n")).collect();
        std::fs::write(dir.path().join("many.txt"), text).unwrap();
        let ctx = ToolContext::for_workspace(dir.path()).unwrap();
        let r = SearchFiles
            .execute(json!({"pattern": "hit", "max_results": 10}), &ctx)
            .await;
        assert_eq!(r.output.matches("many.txt:").count(), 10);
        assert!(r.output.contains("truncated at 10"));
        assert_eq!(r.data.unwrap()["truncated"], true);
    }

    #[tokio::test]
    async fn long_lines_are_cut() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("min.js"),
            format!("{}needle{}\n", "x".repeat(5000), "y".repeat(5000)),
        )
        .unwrap();
        let ctx = ToolContext::for_workspace(dir.path()).unwrap();
        let r = SearchFiles
            .execute(json!({"pattern": "needle"}), &ctx)
            .await;
        assert!(r.output.len() < 500, "{}", r.output.len());
        assert!(r.output.contains("line cut"));
    }

    #[tokio::test]
    async fn errors_and_no_matches() {
        let (_d, ctx) = ws();
        let r = SearchFiles.execute(json!({"pattern": "fn("}), &ctx).await;
        assert!(r.error.unwrap().contains("not a valid regular expression"));
        let r = SearchFiles
            .execute(json!({"pattern": "x", "glob": "a{"}), &ctx)
            .await;
        assert!(r.error.unwrap().contains("glob"));
        let r = SearchFiles
            .execute(json!({"pattern": "x", "path": "../"}), &ctx)
            .await;
        assert!(r.error.unwrap().contains("outside the workspace"));
        let r = SearchFiles
            .execute(json!({"pattern": "x", "path": "nope"}), &ctx)
            .await;
        assert!(r.error.unwrap().contains("does not exist"));
        let r = SearchFiles
            .execute(json!({"pattern": "zzz_not_here"}), &ctx)
            .await;
        assert!(r.success);
        assert!(r.output.starts_with("No matches"));
        let r = SearchFiles.execute(json!({}), &ctx).await;
        assert!(r.error.unwrap().contains("missing field `pattern`"));
    }

    #[tokio::test]
    async fn finds_a_needle_at_the_end_of_a_ten_megabyte_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut text = "filler line without the word\n".repeat(360_000);
        text.push_str("the needle is here\n");
        assert!(text.len() > 10_000_000);
        std::fs::write(dir.path().join("big.log"), &text).unwrap();
        let ctx = ToolContext::for_workspace(dir.path()).unwrap();
        let r = SearchFiles
            .execute(json!({"pattern": "needle"}), &ctx)
            .await;
        assert_eq!(r.output, "big.log:360001:the needle is here\n");
    }

    #[tokio::test]
    async fn unicode_and_crlf() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("u.txt"),
            "première ligne\r\n日本語のテキスト\r\n",
        )
        .unwrap();
        let ctx = ToolContext::for_workspace(dir.path()).unwrap();
        let r = SearchFiles.execute(json!({"pattern": "日本"}), &ctx).await;
        assert_eq!(r.output, "u.txt:2:日本語のテキスト\n");
    }
}
