//! `read_file`: the model's eyes on one file.
//!
//! Lines come back numbered like `cat -n` — the number right-aligned, then a tab, then the
//! line — so the model can cite lines and pick `line_range`s, while the prefix stays
//! clearly separable from the content it must copy into `edit_file`'s `old_str`.
//! CRLF line endings are shown as plain line breaks (and reported in `data`); edit_file
//! maps them back. Binary files are refused; invalid UTF-8 is replaced, not fatal.
//!
//! The file is opened beneath the workspace ([`crate::base::beneath`]: regular files only, no
//! symlink swapped in after the check) and streamed: what is read is what is shown plus a
//! bounded count of the remaining lines, so a huge (or sparse) file costs its output.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use std::io::Read;

use super::{CallIntent, ToolContext, ToolError, ToolKind, ToolResult, TypedTool};
use crate::base::beneath::Beneath;
use crate::policy::paths::Access;
use crate::protocol::tool_data::ReadFileData;

/// Default cap on the file bytes returned.
pub const DEFAULT_MAX_BYTES: u64 = 1024 * 1024;
/// How much of the start of a file is checked for NUL bytes.
const BINARY_SNIFF: usize = 8 * 1024;

/// Arguments of `read_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadFileArgs {
    /// Relative to the workspace root.
    pub path: String,
    /// [start, end], 1-based, inclusive (an end past the last line reads to the end).
    pub line_range: Option<[u64; 2]>,
    /// Most bytes returned (default 1048576).
    pub max_bytes: Option<u64>,
}

/// The `read_file` tool.
pub struct ReadFile;

const DESCRIPTION: &str = "Read a text file. Each output line is its number, a tab, then \
the line: leave the number and tab out of edits. line_range [start, end] reads part of a large file; \
when `truncated`, continue from `next_line`.";

#[async_trait]
impl TypedTool for ReadFile {
    type Args = ReadFileArgs;
    fn name(&self) -> &'static str {
        "read_file"
    }
    fn description(&self) -> &'static str {
        DESCRIPTION
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }
    fn intent(&self, a: &ReadFileArgs) -> Result<CallIntent, ToolError> {
        Ok(CallIntent::reads([a.path.clone()]))
    }
    fn default_timeout(&self) -> Duration {
        Duration::from_secs(10)
    }
    async fn run(&self, args: Arc<ReadFileArgs>, ctx: &ToolContext) -> ToolResult {
        let buffer = match ctx
            .confinement()
            .and_then(|c| Ok(c.resolve(&args.path, Access::Read)?))
        {
            Ok(path) => super::editor_files::buffer_text(ctx, &path).await,
            Err(_) => None,
        };
        let ctx = ctx.clone();
        super::blocking("read_file", move || read(&args, &ctx, buffer))
            .await
            .unwrap_or_else(ToolResult::from)
    }
}

/// Read `args.path` from the disk, or from `buffer`, the editor's text of it, when given.
fn read(
    args: &ReadFileArgs,
    ctx: &ToolContext,
    buffer: Option<String>,
) -> Result<ToolResult, ToolError> {
    let conf = ctx.confinement()?;
    let path = conf.resolve(&args.path, Access::Read)?;
    let shown = conf.display(&path);
    let io = |e: std::io::Error| ToolError::io(&args.path, &e);
    if let Some(text) = buffer {
        return render_text(args, ctx, &shown, text).map_err(|e| match e {
            Rendered::Tool(t) => t,
            Rendered::Io(e) => io(e),
        });
    }
    let beneath = Beneath::open(conf.root()).map_err(io)?;
    let rel = beneath.relative(&path).map_err(io)?;
    let (file, _) = match beneath.open_regular(rel) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::IsADirectory => {
            return Err(ToolError::IsDirectory(shown));
        }
        Err(e) => return Err(io(e)),
    };
    let mut reader = std::io::BufReader::with_capacity(64 * 1024, file);
    let mut head = Vec::with_capacity(BINARY_SNIFF);
    (&mut reader)
        .take(BINARY_SNIFF as u64)
        .read_to_end(&mut head)
        .map_err(io)?;
    if let Some(reason) = binary_reason(&head) {
        return Err(ToolError::Binary(shown, reason));
    }
    let max_bytes = args.max_bytes.unwrap_or(DEFAULT_MAX_BYTES) as usize;
    let budget = max_bytes.min(ctx.limits.output_budget);
    let lines = Lines {
        reader: std::io::Cursor::new(head).chain(reader),
        keep: budget + 1,
        scanned: 0,
        limit: u64::MAX,
        stopped: false,
    };
    render(lines, &shown, args.line_range, budget).map_err(|e| match e {
        Rendered::Tool(t) => t,
        Rendered::Io(e) => io(e),
    })
}

/// Render the editor's `text` of a file shown as `shown`, as a file's lines are.
fn render_text(
    args: &ReadFileArgs,
    ctx: &ToolContext,
    shown: &str,
    text: String,
) -> Result<ToolResult, Rendered> {
    if let Some(reason) = binary_reason(text.as_bytes()) {
        return Err(Rendered::Tool(ToolError::Binary(shown.to_string(), reason)));
    }
    let max_bytes = args.max_bytes.unwrap_or(DEFAULT_MAX_BYTES) as usize;
    let budget = max_bytes.min(ctx.limits.output_budget);
    let lines = Lines {
        reader: std::io::Cursor::new(text.into_bytes()),
        keep: budget + 1,
        scanned: 0,
        limit: u64::MAX,
        stopped: false,
    };
    render(lines, shown, args.line_range, budget)
}

/// Bytes read past the shown lines only to count the file's lines; beyond this the total
/// is reported as a lower bound, so a huge file costs what is shown, not its size.
const COUNT_LIMIT: u64 = 32 * 1024 * 1024;

/// The lines of a stream, each cut to `keep` bytes (the rest of a long line is consumed,
/// never stored), with the bytes consumed so far.
struct Lines<R> {
    reader: R,
    keep: usize,
    scanned: u64,
    /// Stop (as if at the end) once this many bytes were consumed.
    limit: u64,
    /// Whether the limit, not the end of the file, stopped the reading.
    stopped: bool,
}

impl<R: std::io::BufRead> Lines<R> {
    /// The next line without its `\n` (cut to `keep` bytes), or `None` at the end.
    fn next_line(&mut self) -> std::io::Result<Option<Vec<u8>>> {
        let mut line = Vec::new();
        let mut any = false;
        loop {
            if self.scanned >= self.limit {
                self.stopped = true;
                return Ok(None);
            }
            let buf = self.reader.fill_buf()?;
            if buf.is_empty() {
                return Ok(any.then_some(line));
            }
            any = true;
            let (chunk, done) = match buf.iter().position(|b| *b == b'\n') {
                Some(i) => (&buf[..i], Some(i + 1)),
                None => (buf, None),
            };
            let room = self.keep.saturating_sub(line.len());
            line.extend_from_slice(&chunk[..chunk.len().min(room)]);
            let used = done.unwrap_or(buf.len());
            self.reader.consume(used);
            self.scanned += used as u64;
            if done.is_some() {
                return Ok(Some(line));
            }
        }
    }
}

enum Rendered {
    Tool(ToolError),
    Io(std::io::Error),
}

impl From<std::io::Error> for Rendered {
    fn from(e: std::io::Error) -> Self {
        Rendered::Io(e)
    }
}

/// Why `bytes` look binary, if they do.
fn binary_reason(bytes: &[u8]) -> Option<String> {
    let head = &bytes[..bytes.len().min(BINARY_SNIFF)];
    head.contains(&0)
        .then(|| "it contains NUL bytes".to_string())
}

/// The first and last line to show (1-based, both counted) for `range`, and the width of
/// the line numbers; a range that is not valid is refused with an example.
fn line_bounds(range: Option<[u64; 2]>) -> Result<(usize, usize, usize), Rendered> {
    match range {
        None => Ok((1, usize::MAX, 6)),
        Some([s, e]) => {
            if s == 0 || e < s {
                return Err(Rendered::Tool(ToolError::InvalidArguments(format!(
                    "line_range [{s}, {e}] is not valid; lines are 1-based and start <= end, e.g. [1, 50]"
                ))));
            }
            Ok((s as usize, e as usize, e.to_string().len().max(6)))
        }
    }
}

/// Number the lines within `range`, stopping before `budget` bytes of content, then count
/// the rest of the lines up to [`COUNT_LIMIT`] bytes.
fn render<R: std::io::BufRead>(
    mut lines: Lines<R>,
    shown: &str,
    range: Option<[u64; 2]>,
    budget: usize,
) -> Result<ToolResult, Rendered> {
    let (start, end, width) = line_bounds(range)?;
    let mut crlf = false;
    let mut out = String::new();
    let mut used = 0usize;
    let mut last = start.saturating_sub(1);
    let mut truncated = false;
    let mut count = 0usize;
    let mut counted_all = true;
    let mut shown_until: Option<u64> = None;
    while let Some(raw) = lines.next_line()? {
        count += 1;
        let raw = raw
            .strip_suffix(b"\r")
            .inspect(|_| crlf = true)
            .unwrap_or(&raw);
        let i = count;
        if i >= start && i <= end && !truncated {
            let line = String::from_utf8_lossy(raw);
            if used + line.len() + 1 > budget && last >= start {
                truncated = true;
            } else if used + line.len() + 1 > budget {
                // A single line longer than the budget: show its head.
                let cut = crate::base::text::floor_char_boundary(&line, budget.saturating_sub(1));
                out.push_str(&format!("{i:>width$}\t{}\n", &line[..cut]));
                last = i;
                truncated = true;
            } else {
                used += line.len() + 1;
                out.push_str(&format!("{i:>width$}\t{line}\n"));
                last = i;
            }
        }
        if (truncated || i >= end) && shown_until.is_none() {
            shown_until = Some(lines.scanned);
            lines.limit = lines.scanned.saturating_add(COUNT_LIMIT);
        }
    }
    if lines.stopped {
        counted_all = false;
    }
    let total = count;
    if counted_all && start > total.max(1) {
        return Err(Rendered::Tool(ToolError::InvalidArguments(format!(
            "line_range starts at line {start} but {shown} has {total} lines"
        ))));
    }
    let data = ReadFileData {
        path: shown.to_string(),
        start_line: start as u64,
        end_line: last as u64,
        truncated,
        total_lines: counted_all.then_some(total as u64),
        total_lines_at_least: (!counted_all).then_some(total as u64),
        line_endings: crlf.then(|| "crlf".to_string()),
        next_line: truncated.then_some(last as u64 + 1),
    };
    if total == 0 {
        out.push_str("(the file is empty)");
    }
    Ok(ToolResult::ok(out).with(&data))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::Tool;
    use proptest::prelude::*;
    use serde_json::Value;
    use serde_json::json;

    fn ws() -> (tempfile::TempDir, ToolContext) {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ToolContext::for_workspace(dir.path()).unwrap();
        (dir, ctx)
    }

    async fn run(ctx: &ToolContext, args: Value) -> ToolResult {
        ReadFile.execute(args, ctx).await
    }

    /// Strip the `N\t` prefixes, giving back the file's lines.
    fn strip_numbers(output: &str) -> String {
        output
            .lines()
            .map(|l| l.split_once('\t').map(|(_, t)| t).unwrap_or(l))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[tokio::test]
    async fn reads_numbered_lines() {
        let (d, ctx) = ws();
        std::fs::write(d.path().join("a.txt"), "one\ntwo\n").unwrap();
        let r = run(&ctx, json!({"path": "a.txt"})).await;
        assert!(r.success, "{r:?}");
        assert_eq!(r.output, "     1\tone\n     2\ttwo\n");
        let data = r.data.unwrap();
        assert_eq!(data["total_lines"], 2);
        assert_eq!(data["truncated"], false);
    }

    #[tokio::test]
    async fn line_range_selects_and_clamps() {
        let (d, ctx) = ws();
        let text: String = (1..=10).map(|i| format!("l{i}\n")).collect();
        std::fs::write(d.path().join("a.txt"), text).unwrap();
        let r = run(&ctx, json!({"path": "a.txt", "line_range": [3, 4]})).await;
        assert_eq!(strip_numbers(&r.output), "l3\nl4");
        let r = run(&ctx, json!({"path": "a.txt", "line_range": [9, 100]})).await;
        assert_eq!(strip_numbers(&r.output), "l9\nl10");
        let r = run(&ctx, json!({"path": "a.txt", "line_range": [11, 12]})).await;
        assert!(r.error.unwrap().contains("has 10 lines"));
        let r = run(&ctx, json!({"path": "a.txt", "line_range": [0, 2]})).await;
        assert!(r.error.unwrap().contains("1-based"));
        let r = run(&ctx, json!({"path": "a.txt", "line_range": [5, 2]})).await;
        assert!(!r.success);
    }

    #[tokio::test]
    async fn max_bytes_truncates_on_line_boundary() {
        let (d, ctx) = ws();
        let text: String = (1..=100).map(|i| format!("line {i}\n")).collect();
        std::fs::write(d.path().join("a.txt"), text).unwrap();
        let r = run(&ctx, json!({"path": "a.txt", "max_bytes": 30})).await;
        let data = r.data.unwrap();
        assert_eq!(data["truncated"], true);
        assert_eq!(data["next_line"], data["end_line"].as_u64().unwrap() + 1);
        assert_eq!(strip_numbers(&r.output), "line 1\nline 2\nline 3\nline 4");
    }

    #[tokio::test]
    async fn errors_for_directories_missing_and_binary() {
        let (d, ctx) = ws();
        std::fs::create_dir(d.path().join("src")).unwrap();
        let r = run(&ctx, json!({"path": "src"})).await;
        assert!(r.error.unwrap().contains("is a directory, use list_files"));
        let r = run(&ctx, json!({"path": "nope.txt"})).await;
        assert!(r.error.unwrap().contains("does not exist"));
        std::fs::write(d.path().join("img.png"), [0x89, b'P', 0, 1, 2]).unwrap();
        let r = run(&ctx, json!({"path": "img.png"})).await;
        assert!(r.error.unwrap().contains("binary"));
        let r = run(&ctx, json!({"path": "../etc/passwd"})).await;
        assert!(r.error.unwrap().contains("outside the workspace"));
        let r = run(&ctx, json!({})).await;
        assert!(r.error.unwrap().contains("missing field `path`"));
    }

    #[tokio::test]
    async fn empty_crlf_tabs_unicode_and_invalid_utf8() {
        let (d, ctx) = ws();
        std::fs::write(d.path().join("empty"), "").unwrap();
        let r = run(&ctx, json!({"path": "empty"})).await;
        assert!(r.success);
        assert_eq!(r.data.unwrap()["total_lines"], 0);
        std::fs::write(d.path().join("crlf"), "a\r\n\tb\r\n").unwrap();
        let r = run(&ctx, json!({"path": "crlf"})).await;
        assert_eq!(strip_numbers(&r.output), "a\n\tb");
        assert_eq!(r.data.unwrap()["line_endings"], "crlf");
        std::fs::write(d.path().join("u"), "日本語 ✓ 🎉\n").unwrap();
        let r = run(&ctx, json!({"path": "u"})).await;
        assert_eq!(strip_numbers(&r.output), "日本語 ✓ 🎉");
        std::fs::write(d.path().join("latin1"), b"caf\xe9\n").unwrap();
        let r = run(&ctx, json!({"path": "latin1"})).await;
        assert_eq!(strip_numbers(&r.output), "caf\u{fffd}");
    }

    #[tokio::test]
    async fn large_file_is_bounded() {
        let (d, ctx) = ws();
        let line = "x".repeat(99) + "\n";
        std::fs::write(d.path().join("big"), line.repeat(100_000)).unwrap();
        let r = run(&ctx, json!({"path": "big"})).await;
        let data = r.data.unwrap();
        assert_eq!(data["total_lines"], 100_000);
        assert_eq!(data["truncated"], true);
        assert!(r.output.len() <= ctx.limits.output_budget + 20_000);
    }

    #[tokio::test]
    async fn no_workspace_is_an_error_not_a_panic() {
        let (_d, mut ctx) = ws();
        ctx.workspace = None;
        let r = run(&ctx, json!({"path": "a"})).await;
        assert!(r.error.unwrap().contains("no workspace"));
    }

    proptest! {
        // Invariant: what read_file shows, with the number prefixes removed, is the file's
        // text line for line.
        #[test]
        fn read_roundtrip(content in "[a-zA-Z0-9 \t日é]{0,20}(\n[a-zA-Z0-9 \t日é]{0,20}){0,30}") {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            let (d, ctx) = ws();
            std::fs::write(d.path().join("t.txt"), &content).unwrap();
            let r = rt.block_on(run(&ctx, json!({"path": "t.txt"})));
            prop_assert!(r.success);
            let expected: Vec<&str> = content.lines().collect();
            if expected.is_empty() {
                prop_assert_eq!(r.output, "(the file is empty)");
            } else {
                prop_assert_eq!(strip_numbers(&r.output), expected.join("\n"));
            }
        }
    }
}
