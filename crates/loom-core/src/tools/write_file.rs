//! `write_file`: create a file or replace its whole content.
//!
//! Parent directories are created; the write is atomic and keeps the old file's
//! permissions ([`super::atomic`]); the result carries the bytes written and the diff
//! against what was there before.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::change::FileChange;
use super::{CallIntent, ToolContext, ToolError, ToolKind, ToolResult, TypedTool};
use crate::policy::paths::Access;

/// Arguments of `write_file`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteFileArgs {
    /// Relative to the workspace root.
    pub path: String,
    /// The complete new content.
    pub content: String,
}

/// The `write_file` tool.
pub struct WriteFile;

const DESCRIPTION: &str = "Create a file, or replace all of its content (parent \
directories are created). To change part of a file, use the editing tool.";

#[async_trait]
impl TypedTool for WriteFile {
    fn name(&self) -> &'static str {
        "write_file"
    }
    fn description(&self) -> &'static str {
        DESCRIPTION
    }
    type Args = WriteFileArgs;
    fn kind(&self) -> ToolKind {
        ToolKind::Write
    }
    /// Recorded as given: the content is the file's, which the diff in the result, the
    /// change events and the workspace carry anyway; a masked copy would only make the
    /// model's record of its own edit disagree with the file it edits next.
    fn redact(&self, args: &Value) -> Value {
        args.clone()
    }
    fn intent(&self, a: &WriteFileArgs) -> Result<CallIntent, ToolError> {
        Ok(CallIntent::writes(a.path.clone()))
    }
    fn default_timeout(&self) -> Duration {
        Duration::from_secs(15)
    }
    async fn run(&self, args: Arc<WriteFileArgs>, ctx: &ToolContext) -> ToolResult {
        super::typed::apply_changes("write_file", self.changes(args, ctx).await, ctx).await
    }
    async fn changes(
        &self,
        args: Arc<WriteFileArgs>,
        ctx: &ToolContext,
    ) -> Option<Result<Vec<FileChange>, ToolError>> {
        let ctx = ctx.clone();
        Some(super::blocking("write_file", move || preview(&args, &ctx).map(|c| vec![c])).await)
    }
}

fn preview(args: &WriteFileArgs, ctx: &ToolContext) -> Result<FileChange, ToolError> {
    let conf = ctx.confinement()?;
    let path = conf.resolve(&args.path, Access::Write)?;
    let shown = conf.display(&path);
    let existing = super::change::read_current(conf.root(), &path, &shown)?;
    Ok(FileChange::new(
        "write_file",
        path,
        shown,
        existing.as_deref(),
        args.content.clone(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::Tool;
    use serde_json::json;

    fn ws() -> (tempfile::TempDir, ToolContext) {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ToolContext::for_workspace(dir.path()).unwrap();
        (dir, ctx)
    }

    #[tokio::test]
    async fn creates_with_parents_and_reports_bytes() {
        let (d, ctx) = ws();
        let r = WriteFile
            .execute(json!({"path": "a/b/c.txt", "content": "héllo\n"}), &ctx)
            .await;
        assert!(r.success, "{r:?}");
        assert_eq!(
            std::fs::read_to_string(d.path().join("a/b/c.txt")).unwrap(),
            "héllo\n"
        );
        let data = r.data.unwrap();
        assert_eq!(data["bytes_written"], 7);
        assert_eq!(data["created"], true);
        assert!(
            data["diff"]
                .as_str()
                .unwrap()
                .starts_with("--- /dev/null\n+++ b/a/b/c.txt")
        );
    }

    #[tokio::test]
    async fn overwrites_with_diff() {
        let (d, ctx) = ws();
        std::fs::write(d.path().join("f"), "old\n").unwrap();
        let r = WriteFile
            .execute(json!({"path": "f", "content": "new\n"}), &ctx)
            .await;
        let data = r.data.unwrap();
        assert_eq!(data["created"], false);
        assert!(data["diff"].as_str().unwrap().contains("-old\n+new"));
        assert_eq!(
            std::fs::read_to_string(d.path().join("f")).unwrap(),
            "new\n"
        );
    }

    #[tokio::test]
    async fn empty_content_and_crlf_are_written_verbatim() {
        let (d, ctx) = ws();
        let r = WriteFile
            .execute(json!({"path": "e", "content": ""}), &ctx)
            .await;
        assert!(r.success);
        assert_eq!(std::fs::read(d.path().join("e")).unwrap(), b"");
        WriteFile
            .execute(json!({"path": "c", "content": "a\r\nb\r\n"}), &ctx)
            .await;
        assert_eq!(std::fs::read(d.path().join("c")).unwrap(), b"a\r\nb\r\n");
    }

    #[tokio::test]
    async fn errors() {
        let (d, ctx) = ws();
        std::fs::create_dir(d.path().join("dir")).unwrap();
        let cases = [
            (json!({"path": "dir", "content": "x"}), "is a directory"),
            (
                json!({"path": "/tmp/../etc/x", "content": "x"}),
                "outside the workspace",
            ),
            (json!({"path": "x"}), "missing field `content`"),
            (json!({"path": "x", "content": 5}), "invalid type"),
            (json!({"path": "x\u{0}y", "content": "x"}), "NUL"),
            (
                json!({"path": ".git/HEAD", "content": "x"}),
                "forbidden-path",
            ),
        ];
        for (args, expected) in cases {
            let r = WriteFile.execute(args.clone(), &ctx).await;
            assert!(!r.success);
            let err = r.error.unwrap();
            assert!(err.contains(expected), "{args}: {err}");
        }
    }

    #[tokio::test]
    async fn overwriting_a_binary_file_replaces_it_whole() {
        let (d, ctx) = ws();
        std::fs::write(d.path().join("blob.bin"), [0u8, 159, 146, 150, 1, 2]).unwrap();
        let r = WriteFile
            .execute(json!({"path": "blob.bin", "content": "text now\n"}), &ctx)
            .await;
        assert!(r.success, "{r:?}");
        assert_eq!(
            std::fs::read(d.path().join("blob.bin")).unwrap(),
            b"text now\n"
        );
    }

    #[tokio::test]
    async fn tabs_and_unicode_paths() {
        let (d, ctx) = ws();
        let r = WriteFile
            .execute(
                json!({"path": "文档/说明.md", "content": "\tindented\n"}),
                &ctx,
            )
            .await;
        assert!(r.success, "{r:?}");
        assert_eq!(
            std::fs::read_to_string(d.path().join("文档/说明.md")).unwrap(),
            "\tindented\n"
        );
    }

    #[tokio::test]
    async fn large_content() {
        let (d, ctx) = ws();
        let content = "0123456789abcdef\n".repeat(600_000);
        let r = WriteFile
            .execute(json!({"path": "big", "content": content}), &ctx)
            .await;
        assert!(r.success);
        assert_eq!(
            std::fs::metadata(d.path().join("big")).unwrap().len(),
            17 * 600_000
        );
        assert!(r.data.unwrap()["diff"].as_str().unwrap().len() < 20_000);
    }
}
