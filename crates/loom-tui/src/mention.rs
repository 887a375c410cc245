//! `@file` mentions: a word starting with `@` in the message box lists the workspace's files
//! and directories that fit (fuzzy, `.gitignore` respected) in the popup above it; `Tab` or
//! `Enter` picks one, which leaves `@path` in the text and asks the agent to read it
//! (through the `read_file` tool and the policy, so forbidden paths, symlinks out of the
//! workspace and special files are refused as they are for the model) and attach it
//! bounded; `@dir/` attaches a listing. The attachment shows as a chip (`attachments.rs`).

use std::path::Path;

use super::app::App;
use super::slash::Suggestion;
use crate::protocol::events::UserOp;

/// Most paths listed for mentions (a bigger workspace is listed in part; type more of
/// the path to narrow it).
pub const MAX_FILES: usize = 20_000;
/// Most suggestions the popup holds.
const SHOWN: usize = 50;

/// The workspace's files and directories (directories ending in `/`), `.gitignore`
/// respected, `.git` left out, sorted, at most [`MAX_FILES`].
pub fn workspace_paths(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let walk = ignore::WalkBuilder::new(root)
        .hidden(false)
        .follow_links(false)
        .filter_entry(|e| e.file_name() != ".git")
        .build();
    for entry in walk.flatten().skip(1) {
        let Ok(rel) = entry.path().strip_prefix(root) else {
            continue;
        };
        let Some(rel) = rel.to_str() else { continue };
        let dir = entry.file_type().is_some_and(|t| t.is_dir());
        out.push(if dir {
            format!("{rel}/")
        } else {
            rel.to_string()
        });
        if out.len() >= MAX_FILES {
            break;
        }
    }
    out.sort();
    // A directory with nothing listable in it attaches nothing: the empty `.loom/` the
    // sandbox keeps as a mount point (so no command can create `.loom/config.toml`), empty
    // build directories. Sorted, a directory's own entries follow it at once.
    let listed = out.clone();
    let mut i = 0;
    out.retain(|p| {
        let next = listed.get(i + 1);
        i += 1;
        !p.ends_with('/') || next.is_some_and(|n| n.starts_with(p.as_str()))
    });
    out
}

impl App {
    /// What follows the `@` of the word at the cursor, when that word is a mention.
    pub(crate) fn mention_query(&self) -> Option<String> {
        let word = self.composer.word_at_cursor();
        let query = word.strip_prefix('@')?;
        (self.draft.workspace_root.is_some() && !query.contains('@')).then(|| query.to_string())
    }

    /// The paths that fit `query`, best first.
    pub(crate) fn mention_suggestions(&self, query: &str) -> Vec<Suggestion> {
        let Some(files) = &self.draft.files else {
            return Vec::new();
        };
        super::fuzzy::best(query, files, SHOWN)
            .into_iter()
            .map(|p| Suggestion {
                line: p.to_string(),
                label: p.to_string(),
                help: if p.ends_with('/') { "a listing" } else { "" }.into(),
            })
            .collect()
    }

    /// List the workspace's files when a mention starts (a bare `@` was just typed), so
    /// files made since the last mention are offered too; the list is kept while the
    /// mention is typed. The walk runs on its own thread, so a big workspace never holds
    /// up a keystroke; the previous listing (if any) is offered until it is done.
    pub(crate) fn load_files_for_mention(&mut self) {
        let Some(query) = self.mention_query() else {
            return;
        };
        let wanted =
            (self.draft.files.is_none() && self.draft.files_pending.is_none()) || query.is_empty();
        if wanted && let Some(root) = self.draft.workspace_root.clone() {
            let (tx, rx) = std::sync::mpsc::channel();
            let spawned = std::thread::Builder::new()
                .name("loom-mention-list".into())
                .spawn(move || {
                    let _ = tx.send(workspace_paths(&root));
                });
            if spawned.is_ok() {
                self.draft.files_pending = Some(rx);
            }
        }
    }

    /// Take a finished listing (called before each frame).
    pub(crate) fn take_listing(&mut self) {
        let Some(rx) = &self.draft.files_pending else {
            return;
        };
        match rx.try_recv() {
            Ok(files) => {
                self.draft.files = Some(files);
                self.draft.files_pending = None;
            }
            Err(std::sync::mpsc::TryRecvError::Empty) => {}
            Err(std::sync::mpsc::TryRecvError::Disconnected) => self.draft.files_pending = None,
        }
    }

    /// Wait for the listing being made (tests, which read the popup right after typing).
    #[cfg(test)]
    pub(crate) fn finish_listing(&mut self) {
        if let Some(rx) = self.draft.files_pending.take()
            && let Ok(files) = rx.recv_timeout(std::time::Duration::from_secs(10))
        {
            self.draft.files = Some(files);
        }
    }

    /// Pick the highlighted path: it replaces the mention, and the agent is asked to attach
    /// it. True when a mention was open.
    pub(crate) fn pick_mention(&mut self) -> bool {
        if self.mention_query().is_none() {
            return false;
        }
        let Some(choice) = self.popup_choice() else {
            return false;
        };
        self.composer
            .replace_word_at_cursor(&format!("@{} ", choice.line));
        self.draft.popup_selected = 0;
        self.send(UserOp::Attach { path: choice.line });
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_listing_respects_gitignore_and_marks_directories() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join("target/debug")).unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
        std::fs::write(root.join("src/main.rs"), "fn main() {}").unwrap();
        std::fs::write(root.join("target/debug/big"), "x").unwrap();
        std::fs::write(root.join(".git/config"), "x").unwrap();
        assert_eq!(workspace_paths(root), [".gitignore", "src/", "src/main.rs"]);
    }

    /// Regression (issue 25): the empty `.loom/` the sandbox keeps as a mount point was
    /// offered by `@` (and would attach an empty listing); empty directories are left out,
    /// one with something in it stays.
    #[test]
    fn empty_directories_are_not_offered() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".loom")).unwrap();
        std::fs::create_dir_all(root.join("out/empty")).unwrap();
        std::fs::write(root.join("out/run.txt"), "x").unwrap();
        std::fs::create_dir_all(root.join(".lo")).unwrap();
        std::fs::write(root.join(".lo/x"), "x").unwrap();
        assert_eq!(
            workspace_paths(root),
            [".lo/", ".lo/x", "out/", "out/run.txt"]
        );
    }
}
