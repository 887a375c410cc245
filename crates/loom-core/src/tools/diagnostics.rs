//! `diagnostics`: the language server's current errors and warnings of one file, or of
//! every file the servers were given (issue 30), and the lines a write's result gains from
//! them. Offered only while language-server diagnostics are on; waits for a starting server
//! at most the configured bound.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{CallIntent, FileChange, ToolContext, ToolError, ToolKind, ToolResult, TypedTool};
use crate::policy::paths::Access;
use loom_lsp::Written;

/// Arguments of `diagnostics`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiagnosticsArgs {
    /// A file (default: all files seen).
    pub path: Option<String>,
}

/// The `diagnostics` tool.
pub struct Diagnostics;

const DESCRIPTION: &str = "Language-server errors and warnings of a file (or of all files seen).";

#[async_trait]
impl TypedTool for Diagnostics {
    type Args = DiagnosticsArgs;
    fn name(&self) -> &'static str {
        "diagnostics"
    }
    fn description(&self) -> &'static str {
        DESCRIPTION
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }
    fn intent(&self, a: &DiagnosticsArgs) -> Result<CallIntent, ToolError> {
        Ok(CallIntent::reads([a
            .path
            .clone()
            .unwrap_or_else(|| ".".into())]))
    }
    fn default_timeout(&self) -> Duration {
        // The server's bound is enforced inside; this only guards against a bug.
        Duration::from_secs(300)
    }
    async fn run(&self, args: Arc<DiagnosticsArgs>, ctx: &ToolContext) -> ToolResult {
        match diagnose(&args, ctx).await {
            Ok(r) => r,
            Err(e) => e.into(),
        }
    }
}

async fn diagnose(args: &DiagnosticsArgs, ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    let conf = ctx.confinement()?;
    let Some(lsp) = &ctx.lsp else {
        return Err(ToolError::Other(
            "language-server diagnostics are off here (`lsp = false`, or no server is \
             configured or on PATH); run the project's checker with bash instead"
                .into(),
        ));
    };
    let Some(given) = &args.path else {
        return Ok(ToolResult::ok(lsp.diagnostics(None).await));
    };
    let path = conf.resolve(given, Access::Read)?;
    let shown = conf.display(&path);
    let meta = std::fs::metadata(&path).map_err(|e| ToolError::io(given, &e))?;
    if meta.is_dir() {
        return Err(ToolError::Other(format!(
            "{shown} is a directory; give a file, or no path for every file seen"
        )));
    }
    let text = lsp.diagnostics(Some(&path)).await;
    if text.starts_with("no language server") {
        return Err(ToolError::Other(format!(
            "{text}; add an [lsp.NAME] table for its language, or run its checker with bash"
        )));
    }
    Ok(ToolResult::ok(text))
}

/// After a successful write of `changes`, add the diagnostics it introduced (or why
/// there are none to tell) to `result`. Waits at most the configured bound; never turns
/// the result into a failure.
pub async fn after_write(ctx: &ToolContext, changes: &[FileChange], result: &mut ToolResult) {
    let Some(lsp) = &ctx.lsp else { return };
    if !result.success || changes.is_empty() {
        return;
    }
    let written: Vec<Written> = changes
        .iter()
        .map(|c| Written {
            path: c.path.clone(),
            old: c.old.clone(),
            // What is on disk now: with a hunk selection only part of `c.new` was written.
            new: (!c.deletes())
                .then(|| std::fs::read_to_string(&c.path).ok())
                .flatten(),
        })
        .collect();
    if let Some(text) = lsp.check_edit(&written).await {
        if !result.output.is_empty() && !result.output.ends_with('\n') {
            result.output.push('\n');
        }
        result.output.push_str(&text);
    }
}

/// Start the servers of the files a write will change, in the background, so their first
/// diagnostics are ready sooner (called when the change is previewed).
pub fn warm(ctx: &ToolContext, changes: &[FileChange]) {
    if let Some(lsp) = &ctx.lsp {
        for c in changes {
            lsp.warm(&c.path);
        }
    }
}
