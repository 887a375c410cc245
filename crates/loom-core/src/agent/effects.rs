//! Effects the runner performs around tool calls: recording a write in the undo journal
//! before it happens, snapshotting the workspace around commands that may write, and
//! resolving which calls can run at all.

use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::state::ProposedCall;
use crate::changelog::Changelog;
use crate::llm::accumulate::AssembledCall;
use crate::protocol::changes::FileLines;
use crate::tools::change::{self, HunkSelection};
use crate::tools::{FileChange, ToolContext, ToolKind, ToolRegistry, ToolResult};

/// Record the changes in the undo journal, then write them; changes that cannot be
/// recorded are not written. The second value says why the journal could not be written,
/// if so.
pub(super) async fn write_with_record(
    registry: &ToolRegistry,
    changes: Vec<FileChange>,
    selection: HunkSelection,
    changelog: Option<Arc<Mutex<Changelog>>>,
    turn: u64,
    id: &str,
    ctx: &ToolContext,
) -> (ToolResult, Option<String>) {
    let Some(changelog) = changelog else {
        return (registry.apply(changes, selection, ctx).await, None);
    };
    let parts = match change::split_selection(&changes, &selection) {
        Ok(parts) => parts,
        Err(e) => return (e.into(), None),
    };
    // What each touched path holds after the write (`None`: gone), in write order.
    let mut entries = Vec::new();
    for (change, part) in changes.iter().zip(parts) {
        let Some(part) = part else { continue };
        let after = (!change.deletes()).then(|| change::content_for(change, &part));
        entries.push((change.path.clone(), change.display_path.clone(), after));
        if let change::ChangeOp::Move { from, from_display } = &change.op {
            entries.push((from.clone(), from_display.clone(), None));
        }
    }
    let (tool, call) = (
        changes.first().map(|c| c.tool.clone()).unwrap_or_default(),
        id.to_string(),
    );
    let log = changelog.clone();
    let recorded = tokio::task::spawn_blocking(move || {
        let mut log = log.lock().map_err(|e| e.to_string())?;
        let mut seqs = Vec::new();
        for (path, display, after) in &entries {
            let after = after.as_deref().map(str::as_bytes);
            match log.record_file(turn, &call, &tool, path, display, after) {
                Ok(seq) => seqs.push((seq, display.clone())),
                Err(e) => {
                    for (seq, _) in seqs {
                        let _ = log.void(seq);
                    }
                    return Err(e.to_string());
                }
            }
        }
        Ok(seqs)
    })
    .await
    .unwrap_or_else(|e| Err(e.to_string()));
    let seqs = match recorded {
        Ok(seqs) => seqs,
        Err(e) => {
            let result = ToolResult::err(format!(
                "could not record the change for undo ({e}); nothing was written"
            ));
            return (result, Some(e));
        }
    };
    let result = registry.apply(changes, selection, ctx).await;
    let mut journal_error = None;
    if !result.success {
        let stays: Vec<String> = result.files_changed.clone();
        journal_error = void_unwritten(changelog, seqs, stays).await;
    }
    (result, journal_error)
}

/// A write failed: what was never written (or was put back) is voided in the journal; a
/// file that `stays` changed after a failed restore keeps its entry, so undo can take it
/// back. Says why the journal could not be written, if so.
async fn void_unwritten(
    changelog: Arc<Mutex<Changelog>>,
    seqs: Vec<(u64, String)>,
    stays: Vec<String>,
) -> Option<String> {
    tokio::task::spawn_blocking(move || {
        let mut log = match changelog.lock() {
            Ok(log) => log,
            Err(e) => return Some(e.to_string()),
        };
        let mut first_error = None;
        for (seq, display) in seqs {
            if stays.contains(&display) {
                continue;
            }
            if let Err(e) = log.void(seq) {
                first_error.get_or_insert(e.to_string());
            }
        }
        first_error
    })
    .await
    .unwrap_or_else(|e| Some(e.to_string()))
}

/// Run a command that may write between two workspace snapshots, so its changes can be
/// undone; the files it changed become the result's `files_changed`. The second value says
/// why the snapshots or the journal failed, if they did; the third counts each changed
/// file's lines (for [`AgentEvent::CommandChanged`](crate::protocol::events::AgentEvent)).
#[allow(clippy::too_many_arguments)]
pub(super) async fn run_with_snapshots(
    registry: &ToolRegistry,
    name: &str,
    args: crate::tools::ToolArgs,
    command: &str,
    changelog: Arc<Mutex<Changelog>>,
    turn: u64,
    id: &str,
    ctx: &ToolContext,
) -> (ToolResult, Option<String>, Vec<FileLines>) {
    let snap = |label: String| {
        let log = changelog.clone();
        tokio::task::spawn_blocking(move || log.lock().map_err(|e| e.to_string())?.snapshot(&label))
    };
    let before = snap(format!("{id}-before"))
        .await
        .unwrap_or_else(|e| Err(e.to_string()));
    let mut result = registry.run(name, &args, ctx).await;
    let before = match before {
        Ok(tree) => tree,
        Err(e) => {
            result.output.push_str(&format!(
                "\nNote: this command's changes cannot be undone ({e})"
            ));
            return (result, Some(e), Vec::new());
        }
    };
    let after = snap(format!("{id}-after"))
        .await
        .unwrap_or_else(|e| Err(e.to_string()));
    let recorded = match after {
        Ok(after) => {
            let (log, command, call) = (changelog.clone(), command.to_string(), id.to_string());
            tokio::task::spawn_blocking(move || {
                let mut log = log.lock().map_err(|e| e.to_string())?;
                let files = log.record_command(turn, &call, &command, &before, &after)?;
                let lines = counted(&log, &files, &before, &after);
                Ok((files, lines))
            })
            .await
            .unwrap_or_else(|e| Err(e.to_string()))
        }
        Err(e) => Err(e),
    };
    match recorded {
        Ok((files, lines)) => {
            if result.files_changed.is_empty() {
                result.files_changed = files.into_iter().map(|c| c.path).collect();
            }
            (result, None, lines)
        }
        Err(e) => {
            result.output.push_str(&format!(
                "\nNote: this command's changes cannot be undone ({e})"
            ));
            (result, Some(e), Vec::new())
        }
    }
}

/// The line counts of the files a command changed; should git fail to count them, each
/// file is still named (with 0/0), so front ends never miss a changed file.
fn counted(
    log: &Changelog,
    files: &[crate::changelog::snapshot::Changed],
    before: &str,
    after: &str,
) -> Vec<FileLines> {
    if files.is_empty() {
        return Vec::new();
    }
    log.line_counts(before, after).unwrap_or_else(|_| {
        files
            .iter()
            .map(|c| FileLines {
                path: c.path.clone(),
                lines_added: 0,
                lines_removed: 0,
                binary: false,
            })
            .collect()
    })
}

/// The agent boundary: every call's arguments are normalised and parsed once, here, into
/// canonical arguments and the tool's description of what the call touches. A call whose
/// arguments do not parse (or whose tool does not exist) is marked invalid and answered
/// with the error; nothing downstream ever sees its raw arguments.
pub(super) fn resolve_calls(
    calls: Vec<AssembledCall>,
    registry: &ToolRegistry,
) -> Vec<ProposedCall> {
    calls
        .into_iter()
        .map(|c| {
            let kind = registry.kind(&c.call.name).unwrap_or(ToolKind::Read);
            let raw: Value = serde_json::from_str(&c.call.arguments)
                .unwrap_or_else(|_| Value::String(c.call.arguments.clone()));
            let prepared = match c.args_error {
                Some(e) => Err(e),
                None => registry
                    .prepare(&c.call.name, raw)
                    .map_err(|e| e.to_string()),
            };
            match prepared {
                Ok(p) => {
                    let mut call = c.call;
                    // What the conversation (and so the transcript) records is the
                    // call as it may be shown: credentials masked. It runs with `args`.
                    call.arguments = p.shown.to_string();
                    ProposedCall {
                        call,
                        kind,
                        args: p.args,
                        intent: Some(p.intent),
                        invalid: None,
                        note: p.note,
                    }
                }
                // An invalid call never runs; its arguments are what the model wrote,
                // for the front ends to show.
                Err(e) => ProposedCall {
                    call: c.call,
                    kind,
                    args: crate::tools::ToolArgs::untyped(
                        c.raw_arguments.map_or(Value::Null, Value::String),
                    ),
                    intent: None,
                    invalid: Some(e),
                    note: None,
                },
            }
        })
        .collect()
}
