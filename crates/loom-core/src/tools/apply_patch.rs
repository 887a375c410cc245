//! `apply_patch`: several files changed, added, deleted or moved by one patch in Codex's
//! envelope, for models trained to write it (see [`super::patch`] for the format).
//!
//! Unlike Codex, a patch is all or nothing: every file is read and every chunk found before
//! anything is proposed, so a patch that fails anywhere changes nothing, and the person
//! reviews the whole patch as one multi-file diff (per file and per hunk). Adding or moving
//! onto a file that exists is an error rather than an overwrite.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::change::FileChange;
use super::patch::{Chunk, Fuzz, PatchOp, apply_chunks, parse};
use super::{CallIntent, ToolContext, ToolError, ToolKind, ToolResult, TypedTool};
use crate::policy::paths::{Access, Confinement};

/// Arguments of `apply_patch`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApplyPatchArgs {
    /// The whole patch, from `*** Begin Patch` to `*** End Patch`.
    pub input: String,
}

/// The `apply_patch` tool.
pub struct ApplyPatch;

const DESCRIPTION: &str = "Edit files with a patch, all or nothing:\n\
*** Begin Patch\n\
*** Update File: src/app.py\n\
@@ def greet():\n\
-    print(\"Hi\")\n\
+    print(\"Hello\")\n\
*** Add File: docs/notes.md\n\
+first line of the new file\n\
*** Delete File: old.txt\n\
*** End Patch\n\
In an update each change starts with `@@` (optionally a line to find first), then lines of \
context (' ', about 3 around each change), removed ('-') and added ('+'); `*** Move to: PATH` \
after `*** Update File:` renames. Paths are relative to the workspace.";

#[async_trait]
impl TypedTool for ApplyPatch {
    type Args = ApplyPatchArgs;
    fn name(&self) -> &'static str {
        "apply_patch"
    }
    fn description(&self) -> &'static str {
        DESCRIPTION
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Write
    }
    /// Recorded as given: the content is the file's, which the diff in the result, the
    /// change events and the workspace carry anyway; a masked copy would only make the
    /// model's record of its own edit disagree with the file it edits next.
    fn redact(&self, args: &Value) -> Value {
        args.clone()
    }
    fn intent(&self, a: &ApplyPatchArgs) -> Result<CallIntent, ToolError> {
        let patch = parse(&a.input).map_err(|e| ToolError::InvalidArguments(e.to_string()))?;
        let mut writes = Vec::new();
        for op in &patch.ops {
            writes.push(op.path().to_string());
            if let PatchOp::Update {
                move_to: Some(to), ..
            } = op
            {
                writes.push(to.clone());
            }
        }
        Ok(CallIntent::Writes(writes))
    }
    fn default_timeout(&self) -> Duration {
        Duration::from_secs(30)
    }
    async fn run(&self, args: Arc<ApplyPatchArgs>, ctx: &ToolContext) -> ToolResult {
        super::typed::apply_changes("apply_patch", self.changes(args, ctx).await, ctx).await
    }
    async fn changes(
        &self,
        args: Arc<ApplyPatchArgs>,
        ctx: &ToolContext,
    ) -> Option<Result<Vec<FileChange>, ToolError>> {
        let buffers = buffers(&args, ctx).await;
        let ctx = ctx.clone();
        Some(super::blocking("apply_patch", move || preview(&args, &ctx, &buffers)).await)
    }
}

/// The editor's text of each file the patch updates, where an editor holds one (ACP):
/// those sections apply to what the person sees, unsaved changes included.
async fn buffers(args: &ApplyPatchArgs, ctx: &ToolContext) -> HashMap<PathBuf, String> {
    let mut out = HashMap::new();
    if ctx.editor_files.is_none() {
        return out;
    }
    let (Ok(patch), Ok(conf)) = (parse(&args.input), ctx.confinement()) else {
        return out;
    };
    for op in &patch.ops {
        if let PatchOp::Update { .. } = op
            && let Ok((path, _)) = resolve(conf, op.path())
            && let Some(text) = super::editor_files::buffer_text(ctx, &path).await
        {
            out.insert(path, text);
        }
    }
    out
}

/// Every file change the patch makes, or the first reason it cannot be applied. An update
/// applies to the editor's unsaved text of its file when `buffers` has one; its old state
/// stays the disk's, so the stale check and the undo journal see what is really on disk.
fn preview(
    args: &ApplyPatchArgs,
    ctx: &ToolContext,
    buffers: &HashMap<PathBuf, String>,
) -> Result<Vec<FileChange>, ToolError> {
    let patch = parse(&args.input).map_err(|e| ToolError::InvalidArguments(e.to_string()))?;
    let conf = ctx.confinement()?;
    let mut changes = Vec::new();
    let mut targets: Vec<PathBuf> = Vec::new();
    for op in &patch.ops {
        let (path, shown) = resolve(conf, op.path()).map_err(nothing)?;
        let found =
            super::change::read_current_with_mode(conf.root(), &path, &shown).map_err(nothing)?;
        let mode = found.as_ref().map(|(_, m)| *m);
        let current = found.map(|(bytes, _)| bytes);
        let change = match op {
            PatchOp::Add { contents, .. } => {
                if current.is_some() {
                    return Err(nothing(ToolError::Edit(format!(
                        "*** Add File: {shown} already exists; use *** Update File: to change it"
                    ))));
                }
                FileChange::new("apply_patch", path.clone(), shown, None, contents.clone())
            }
            PatchOp::Delete { .. } => {
                let Some(bytes) = current else {
                    return Err(nothing(ToolError::NotFound(shown)));
                };
                FileChange::deletion("apply_patch", path.clone(), shown, &bytes)
            }
            PatchOp::Update {
                move_to, chunks, ..
            } => {
                let Some(bytes) = current else {
                    return Err(nothing(ToolError::NotFound(shown)));
                };
                let unsaved = buffers
                    .get(&path)
                    .filter(|b| b.as_bytes() != bytes.as_slice())
                    .cloned();
                let target = Target {
                    path: path.clone(),
                    shown,
                    bytes,
                    unsaved,
                };
                update(conf, target, move_to.as_deref(), chunks, &mut targets)?
            }
        };
        let mut change = change;
        change.old_mode = mode;
        targets.push(path);
        changes.push(change);
    }
    let mut seen = std::collections::HashSet::new();
    for t in &targets {
        if !seen.insert(t) {
            return Err(ToolError::InvalidArguments(format!(
                "{} is changed twice in the patch; put all changes to a file in one section",
                conf.display(t)
            )));
        }
    }
    let files = changes.len();
    if let Some(first) = changes.first_mut() {
        first.details.files_in_patch = Some(files as u64);
    }
    Ok(changes)
}

/// `e`, saying that nothing was written (a patch applies whole or not at all).
fn nothing(e: ToolError) -> ToolError {
    ToolError::Edit(format!("{e} (the patch was not applied; no file changed)"))
}

/// The file an `*** Update File:` section changes: where it is, as shown, its bytes on
/// disk, and the editor's unsaved text of it when that differs.
struct Target {
    path: PathBuf,
    shown: String,
    bytes: Vec<u8>,
    unsaved: Option<String>,
}

/// The change an `*** Update File:` section makes: its chunks applied to the file's text,
/// written in place or at `move_to` (which must not exist; added to `targets`).
fn update(
    conf: &Confinement,
    file: Target,
    move_to: Option<&str>,
    chunks: &[Chunk],
    targets: &mut Vec<PathBuf>,
) -> Result<FileChange, ToolError> {
    let Target {
        path,
        shown,
        bytes,
        unsaved,
    } = file;
    let text = match &unsaved {
        Some(buffer) => text_of(buffer.as_bytes(), &shown).map_err(nothing)?,
        None => text_of(&bytes, &shown).map_err(nothing)?,
    };
    let updated = apply_chunks(&shown, &text, chunks).map_err(|e| nothing(ToolError::Edit(e)))?;
    let note = (updated.loosest != Fuzz::Exact).then(|| {
        format!(
            "{shown}: some lines matched only {}; context lines keep the \
             file's own text, added lines are as the patch wrote them",
            updated.loosest.describe()
        )
    });
    let change = match move_to {
        Some(to) => {
            let (dest, dest_shown) = resolve(conf, to).map_err(nothing)?;
            if dest == path {
                FileChange::new("apply_patch", path, shown, Some(&bytes), updated.text)
            } else {
                if super::change::read_current(conf.root(), &dest, &dest_shown)
                    .map_err(nothing)?
                    .is_some()
                {
                    return Err(nothing(ToolError::Edit(format!(
                        "*** Move to: {dest_shown} already exists; move to a path that \
                         does not exist"
                    ))));
                }
                targets.push(dest.clone());
                FileChange::new("apply_patch", dest, dest_shown, Some(&bytes), updated.text)
                    .moved_from(path, shown)
            }
        }
        None => FileChange::new("apply_patch", path, shown, Some(&bytes), updated.text),
    };
    let mut change = change;
    change.notes.extend(note);
    if unsaved.is_some() {
        change.notes.push(format!(
            "the patch was applied to the editor's unsaved text of {}, so writing it also \
             saves the editor's unsaved changes there (the diff is against the file on disk)",
            change.display_path
        ));
    }
    Ok(change)
}

fn resolve(conf: &Confinement, given: &str) -> Result<(PathBuf, String), ToolError> {
    let path = conf.resolve(given, Access::Write)?;
    let shown = conf.display(&path);
    Ok((path, shown))
}

fn text_of(bytes: &[u8], shown: &str) -> Result<String, ToolError> {
    let text = std::str::from_utf8(bytes).map_err(|_| {
        ToolError::Edit(format!(
            "{shown} is not valid UTF-8 text, so a patch cannot change it; use write_file"
        ))
    })?;
    if text.contains('\0') {
        return Err(ToolError::Binary(
            shown.to_string(),
            "it contains NUL bytes".into(),
        ));
    }
    Ok(text.to_string())
}

#[cfg(test)]
#[path = "apply_patch_tests.rs"]
mod tests;
