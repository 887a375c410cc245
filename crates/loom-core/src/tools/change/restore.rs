//! Putting back the files of a multi-file change already written when a later write
//! fails, so a set of changes is written all or nothing.

use super::{ChangeOp, FileChange};
use crate::base::beneath::Beneath;
use crate::tools::ToolError;

/// The error for a set whose write failed with `e` after the changes `written` (latest
/// first) were made: each is put back, and the error says whether that worked or which
/// files stay changed.
pub(super) fn rolled_back<'c>(
    e: &ToolError,
    written: impl Iterator<Item = &'c FileChange>,
) -> ToolError {
    let mut changed = Vec::new();
    let mut failed = Vec::new();
    for done in written {
        if let Err(why) = restore(done) {
            failed.push(why);
            changed.push(done.display_path.clone());
            changed.extend(done.move_source().map(str::to_string));
        }
    }
    if failed.is_empty() {
        return ToolError::Edit(format!(
            "{e}; the files already written were restored, so nothing changed"
        ));
    }
    ToolError::Partial {
        message: format!(
            "{e}; putting back the files already written failed ({}), so these \
             stay changed: {} (/undo or `loom undo` takes them back)",
            failed.join("; "),
            changed.join(", ")
        ),
        changed,
    }
}

/// Undo a change just written: its old text back where it was, its new file gone.
fn restore(change: &FileChange) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("{}: {e}", change.display_path);
    let beneath = Beneath::open(&change.root).map_err(fail)?;
    let here = beneath.relative(&change.path).map_err(fail)?;
    let old = change
        .old_raw
        .as_deref()
        .or(change.old.as_deref().map(str::as_bytes));
    match (&change.op, old) {
        (ChangeOp::Move { from, .. }, Some(old)) => {
            let there = beneath.relative(from).map_err(fail)?;
            beneath
                .write_atomic(there, old, change.old_mode)
                .map_err(fail)?;
            beneath.remove_file(here).map_err(fail)
        }
        (_, Some(old)) => beneath
            .write_atomic(here, old, change.old_mode)
            .map_err(fail),
        (_, None) => beneath.remove_file(here).map_err(fail),
    }
}
