//! The editor's view of the files: a front end whose client holds open buffers (an ACP
//! editor offering `fs/read_text_file` and `fs/write_text_file`) gives the tool context an
//! [`EditorFiles`], so `read_file` and the edit tools see unsaved buffer text, and every
//! file Loom writes is also pushed to the editor's buffer.
//!
//! Loom still writes the disk itself (so the undo journal, the stale-read check and the
//! diagnostics, which read the disk, work as without an editor); the editor is only asked
//! about paths already resolved inside the workspace, each request is bounded by
//! [`EDITOR_TIMEOUT`], and any failure (no buffer, an error, no answer) means the disk.

use std::fmt::Debug;
use std::path::Path;
use std::time::Duration;

use async_trait::async_trait;

use super::{FileChange, ToolContext, ToolResult};

/// How long Loom waits for the editor's answer before it uses the disk.
pub const EDITOR_TIMEOUT: Duration = Duration::from_secs(5);

/// Access to the buffers of the editor driving the session.
#[async_trait]
pub trait EditorFiles: Send + Sync + Debug {
    /// The editor's text of the absolute `path` (its buffer, saved or not), or `None` when
    /// the editor cannot say (it has no such file, does not offer reading, or failed).
    async fn read(&self, path: &Path) -> Option<String>;
    /// Show `content` as the text of the absolute `path` in the editor; whether it could.
    async fn write(&self, path: &Path, content: &str) -> bool;
}

/// The editor's text of `path`, when the context has an editor and `path` is inside the
/// workspace; `None` otherwise or after [`EDITOR_TIMEOUT`].
pub async fn buffer_text(ctx: &ToolContext, path: &Path) -> Option<String> {
    let editor = ctx.editor_files.as_ref()?;
    let root = ctx.workspace.as_ref()?.root();
    if !path.is_absolute() || !path.starts_with(root) {
        return None;
    }
    tokio::time::timeout(EDITOR_TIMEOUT, editor.read(path))
        .await
        .ok()
        .flatten()
}

/// After a successful write of `changes`, push what each written file now holds on disk
/// to the editor, so its open buffers show Loom's change. Never fails the write.
pub async fn push_written(ctx: &ToolContext, changes: &[FileChange], result: &ToolResult) {
    let (Some(editor), Some(conf)) = (&ctx.editor_files, &ctx.workspace) else {
        return;
    };
    if !result.success {
        return;
    }
    for change in changes.iter().filter(|c| !c.deletes()) {
        if !change.path.starts_with(conf.root()) {
            continue;
        }
        let path = change.path.clone();
        let root = change.root.clone();
        let shown = change.display_path.clone();
        let on_disk = tokio::task::spawn_blocking(move || {
            super::change::read_current(&root, &path, &shown)
                .ok()
                .flatten()
                .and_then(|bytes| String::from_utf8(bytes).ok())
        })
        .await
        .ok()
        .flatten();
        if let Some(text) = on_disk {
            let _ = tokio::time::timeout(EDITOR_TIMEOUT, editor.write(&change.path, &text)).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::tools::change::{self, HunkSelection};

    /// An editor that records what it is asked, answers reads with `text` (after `delay`).
    #[derive(Debug, Default)]
    struct Recording {
        text: Option<String>,
        delay: Duration,
        reads: Mutex<Vec<PathBuf>>,
        writes: Mutex<Vec<(PathBuf, String)>>,
    }

    #[async_trait]
    impl EditorFiles for Recording {
        async fn read(&self, path: &Path) -> Option<String> {
            self.reads.lock().unwrap().push(path.to_path_buf());
            tokio::time::sleep(self.delay).await;
            self.text.clone()
        }
        async fn write(&self, path: &Path, content: &str) -> bool {
            let entry = (path.to_path_buf(), content.to_string());
            self.writes.lock().unwrap().push(entry);
            true
        }
    }

    fn ws(editor: &Arc<Recording>) -> (tempfile::TempDir, ToolContext, PathBuf) {
        let d = tempfile::tempdir().unwrap();
        let mut ctx = ToolContext::for_workspace(d.path()).unwrap();
        ctx.editor_files = Some(editor.clone());
        let root = ctx.workspace.as_ref().unwrap().root().to_path_buf();
        (d, ctx, root)
    }

    #[tokio::test]
    async fn a_path_outside_the_workspace_is_never_asked() {
        let editor = Arc::new(Recording {
            text: Some("buffer".into()),
            ..Recording::default()
        });
        let (_d, ctx, root) = ws(&editor);
        assert_eq!(buffer_text(&ctx, Path::new("/etc/passwd")).await, None);
        assert_eq!(buffer_text(&ctx, Path::new("relative.txt")).await, None);
        assert!(editor.reads.lock().unwrap().is_empty());
        let inside = root.join("a.txt");
        assert_eq!(buffer_text(&ctx, &inside).await.as_deref(), Some("buffer"));
        assert_eq!(*editor.reads.lock().unwrap(), [inside]);
    }

    #[tokio::test(start_paused = true)]
    async fn an_editor_that_does_not_answer_in_time_means_the_disk() {
        let editor = Arc::new(Recording {
            text: Some("late".into()),
            delay: EDITOR_TIMEOUT * 2,
            ..Recording::default()
        });
        let (_d, ctx, root) = ws(&editor);
        assert_eq!(buffer_text(&ctx, &root.join("a.txt")).await, None);
        assert_eq!(editor.reads.lock().unwrap().len(), 1, "it was asked");
    }

    #[tokio::test]
    async fn only_a_successful_write_is_pushed_with_what_is_on_disk() {
        let editor = Arc::new(Recording::default());
        let (_d, ctx, root) = ws(&editor);
        let path = root.join("a.txt");
        let c = FileChange::new(
            "edit_file",
            path.clone(),
            "a.txt".into(),
            None,
            "new\n".into(),
        );
        let failed = ToolResult::err("refused");
        push_written(&ctx, std::slice::from_ref(&c), &failed).await;
        assert!(
            editor.writes.lock().unwrap().is_empty(),
            "a failed write is not pushed"
        );
        let done = change::apply(&c, &HunkSelection::All).unwrap();
        push_written(&ctx, std::slice::from_ref(&c), &done).await;
        assert_eq!(
            *editor.writes.lock().unwrap(),
            [(path, "new\n".to_string())]
        );
    }

    #[tokio::test]
    async fn without_an_editor_nothing_is_read_from_one() {
        let d = tempfile::tempdir().unwrap();
        let ctx = ToolContext::for_workspace(d.path()).unwrap();
        let root = ctx.workspace.as_ref().unwrap().root().to_path_buf();
        assert_eq!(buffer_text(&ctx, &root.join("a.txt")).await, None);
    }
}
