//! `@path`: a file (or, for `dir/`, a listing) read for the person's next message through
//! the same tools and policy as the model's reads — `read_file` and `list_files` — so the
//! workspace confinement, forbidden paths, symlink and special-file refusals and size
//! limits hold for attachments as they do for the model.

use std::time::Instant;

use serde_json::json;

use super::{Internal, Runner};
use crate::agent::events::AgentEvent;
use crate::policy::Decision;
use crate::protocol::tool_data::{ListData, ReadFileData};
use crate::tools::ToolResult;

/// Most bytes of a file attached to a message.
pub const ATTACH_BYTES: usize = 32 * 1024;
/// Most entries of an attached listing.
pub const ATTACH_ENTRIES: usize = 500;

impl Runner {
    /// Read `path` for an attachment and answer with [`AgentEvent::Attachment`].
    pub(super) fn attach(&mut self, path: String) {
        let name = format!("@{path}");
        let listing = path.ends_with('/');
        let (tool, args) = if listing {
            let dir = path.trim_end_matches('/');
            let dir = if dir.is_empty() { "." } else { dir };
            let args = json!({"path": dir, "recursive": true, "max_depth": 3,
                "max_results": ATTACH_ENTRIES});
            ("list_files", args)
        } else {
            (
                "read_file",
                json!({"path": path, "max_bytes": ATTACH_BYTES}),
            )
        };
        let refuse = |runner: &mut Runner, message: String| {
            runner.emit(AgentEvent::Attachment {
                name: name.clone(),
                result: Err(message),
            });
        };
        let prepared = match self.work.registry.prepare(tool, args) {
            Ok(p) => p,
            Err(e) => return refuse(self, e.to_string()),
        };
        let workspace = self.work.ctx.workspace.as_deref().map(|c| c.root());
        let ruling = self
            .work
            .policy
            .decide(tool, &prepared.intent, workspace, Instant::now());
        if let Decision::Deny { reason } = ruling.decision {
            return refuse(self, reason);
        }
        let registry = self.work.registry.clone();
        let ctx = self.work.ctx.clone();
        let tx = self.internal_tx.clone();
        tokio::spawn(async move {
            let result = registry.run(tool, &prepared.args, &ctx).await;
            let result = if listing {
                listing_text(&result)
            } else {
                file_text(&result)
            };
            let _ = tx.send(Internal::Applied(AgentEvent::Attachment { name, result }));
        });
    }
}

/// `read_file`'s numbered lines, with a note when the file goes on.
fn file_text(result: &ToolResult) -> Result<String, String> {
    if !result.success {
        return Err(result
            .error
            .clone()
            .unwrap_or_else(|| result.output.clone()));
    }
    let mut text = result.output.clone();
    let data = result.data_as::<ReadFileData>();
    if let Some(data) = data.filter(|d| d.truncated) {
        let shown = data.end_line;
        let total = (data.total_lines)
            .map(|t| format!(" of {t}"))
            .unwrap_or_default();
        text.push_str(&format!(
            "[… cut: lines 1-{shown}{total} shown ({} KiB limit); read_file shows the rest]",
            ATTACH_BYTES / 1024
        ));
    }
    Ok(text)
}

/// `list_files`' entries, one path a line, directories ending in `/`.
fn listing_text(result: &ToolResult) -> Result<String, String> {
    if !result.success {
        return Err(result
            .error
            .clone()
            .unwrap_or_else(|| result.output.clone()));
    }
    let entries = (result.data_as::<ListData>())
        .map(|d| d.entries)
        .unwrap_or_default();
    let mut text: String = entries
        .iter()
        .map(|e| {
            let slash = if e.is_dir { "/" } else { "" };
            format!("{}{slash}\n", e.path)
        })
        .collect();
    text.push_str(&format!("[{}]", result.output));
    Ok(text)
}
