//! Workspace snapshots for undoing shell commands, in a shadow git repository.
//!
//! Before a command that may write runs, the workspace's tracked and untracked-not-ignored
//! files are written as a git tree into a private bare repository in Loom's data dir (one
//! per workspace), using its own index file. The user's `.git` — index, branches, stash,
//! config — is never read for writing or touched. Undo restores the files a command changed
//! from the tree taken before it.

use std::path::{Path, PathBuf};
use std::process::Command;

use std::hash::{DefaultHasher, Hash, Hasher};

use loom_protocol::changes::FileLines;

/// A private repository holding snapshots of one workspace.
#[derive(Debug, Clone)]
pub struct Shadow {
    git_dir: PathBuf,
    work_tree: PathBuf,
}

/// One file a command changed: `A`dded, `M`odified or `D`eleted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changed {
    /// Status letter from `git diff --name-status`.
    pub status: char,
    /// Workspace-relative path.
    pub path: String,
}

impl Shadow {
    /// Open (creating if needed) the shadow repository for `workspace` under `data_dir`.
    pub fn open(data_dir: &Path, workspace: &Path) -> Result<Shadow, String> {
        let mut h = DefaultHasher::new();
        workspace.hash(&mut h);
        let name = workspace
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "root".into());
        let git_dir = data_dir
            .join("snapshots")
            .join(format!("{name}-{:016x}.git", h.finish()));
        let shadow = Shadow {
            git_dir,
            work_tree: workspace.to_path_buf(),
        };
        if !shadow.git_dir.join("HEAD").exists() {
            crate::private::create_dir_all(&shadow.git_dir).map_err(|e| e.to_string())?;
            // Git writes the repository's files with this mode whatever the umask (its
            // objects read-only, 0400), and gives directories 0700.
            let out = crate::gitcmd::git()
                .args(["init", "--bare", "--quiet", "--shared=0600"])
                .arg(&shadow.git_dir)
                .output()
                .map_err(|e| format!("git is needed to snapshot the workspace ({e})"))?;
            if !out.status.success() {
                return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
            }
        }
        Ok(shadow)
    }

    fn git(&self) -> Command {
        let mut cmd = crate::gitcmd::git();
        cmd.env("GIT_DIR", &self.git_dir)
            .env("GIT_WORK_TREE", &self.work_tree)
            .env("GIT_INDEX_FILE", self.git_dir.join("loom-index"))
            .args([
                "-c",
                "core.autocrlf=false",
                "-c",
                "core.safecrlf=false",
                "-c",
                "core.hooksPath=/dev/null",
                "-c",
                "core.sharedRepository=0600",
                "-c",
                "advice.addEmbeddedRepo=false",
            ])
            .current_dir(&self.work_tree);
        cmd
    }

    fn run(&self, args: &[&str]) -> Result<Vec<u8>, String> {
        let out = self
            .git()
            .args(args)
            .output()
            .map_err(|e| format!("git: {e}"))?;
        if out.status.success() {
            Ok(out.stdout)
        } else {
            Err(format!(
                "git {}: {}",
                args.first().unwrap_or(&""),
                String::from_utf8_lossy(&out.stderr).trim()
            ))
        }
    }

    /// Snapshot the workspace; returns the tree id, kept reachable under `refs/loom/<name>`.
    pub fn snapshot(&self, name: &str) -> Result<String, String> {
        self.run(&["add", "--all", "."])?;
        let tree = String::from_utf8_lossy(&self.run(&["write-tree"])?)
            .trim()
            .to_string();
        let commit = self
            .run(&["commit-tree", &tree, "-m", name])
            .map(|o| String::from_utf8_lossy(&o).trim().to_string());
        if let Ok(commit) = commit {
            let _ = self.run(&["update-ref", &format!("refs/loom/{name}"), &commit]);
        }
        Ok(tree)
    }

    /// Files that differ between two trees.
    pub fn changed(&self, before: &str, after: &str) -> Result<Vec<Changed>, String> {
        let out = self.run(&["diff", "--name-status", "--no-renames", "-z", before, after])?;
        let fields: Vec<&[u8]> = out.split(|b| *b == 0).filter(|f| !f.is_empty()).collect();
        Ok(fields
            .chunks(2)
            .filter_map(|pair| {
                let status = *pair.first()?.first()? as char;
                let path = String::from_utf8_lossy(pair.get(1)?).into_owned();
                Some(Changed { status, path })
            })
            .collect())
    }

    /// Lines added and removed per file between two trees (`git diff --numstat`).
    pub fn line_counts(&self, before: &str, after: &str) -> Result<Vec<FileLines>, String> {
        let out = self.run(&["diff", "--numstat", "--no-renames", "-z", before, after])?;
        Ok(parse_numstat(&out))
    }

    /// The content of `path` in `tree`, or `None` when it is not there.
    pub fn read(&self, tree: &str, path: &str) -> Option<Vec<u8>> {
        self.run(&["cat-file", "blob", &format!("{tree}:{path}")])
            .ok()
    }

    /// Whether `path` is executable in `tree`.
    pub fn executable(&self, tree: &str, path: &str) -> bool {
        self.run(&["ls-tree", tree, "--", path])
            .map(|o| o.starts_with(b"100755"))
            .unwrap_or(false)
    }

    /// The workspace this shadow snapshots.
    pub fn work_tree(&self) -> &Path {
        &self.work_tree
    }

    /// The repository's location (for messages).
    pub fn git_dir(&self) -> &Path {
        &self.git_dir
    }
}

/// Parse `git diff --numstat --no-renames -z`: one `added<TAB>removed<TAB>path<NUL>` record
/// per file, `-` for both counts of a binary file. A record that does not parse is skipped.
pub fn parse_numstat(out: &[u8]) -> Vec<FileLines> {
    out.split(|b| *b == 0)
        .filter(|r| !r.is_empty())
        .filter_map(|record| {
            let mut parts = record.splitn(3, |b| *b == b'\t');
            let (added, removed) = (parts.next()?, parts.next()?);
            let path = String::from_utf8_lossy(parts.next()?).into_owned();
            if path.is_empty() {
                return None;
            }
            let count = |f: &[u8]| std::str::from_utf8(f).ok()?.parse::<usize>().ok();
            let binary = added == b"-" && removed == b"-";
            let (lines_added, lines_removed) = if binary {
                (0, 0)
            } else {
                (count(added)?, count(removed)?)
            };
            Some(FileLines {
                path,
                lines_added,
                lines_removed,
                binary,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshots_see_changes_and_respect_gitignore() {
        let data = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        std::fs::write(ws.path().join(".gitignore"), "target/\n").unwrap();
        std::fs::write(ws.path().join("a.txt"), "one\n").unwrap();
        std::fs::create_dir(ws.path().join("target")).unwrap();
        std::fs::write(ws.path().join("target/big"), "ignored").unwrap();
        let shadow = Shadow::open(data.path(), ws.path()).unwrap();
        let before = shadow.snapshot("t1").unwrap();
        std::fs::write(ws.path().join("a.txt"), "two\n").unwrap();
        std::fs::write(ws.path().join("b.txt"), "new\n").unwrap();
        std::fs::write(ws.path().join("target/big"), "changed").unwrap();
        let after = shadow.snapshot("t2").unwrap();
        let changed = shadow.changed(&before, &after).unwrap();
        assert_eq!(
            changed,
            vec![
                Changed {
                    status: 'M',
                    path: "a.txt".into()
                },
                Changed {
                    status: 'A',
                    path: "b.txt".into()
                },
            ]
        );
        assert_eq!(shadow.read(&before, "a.txt").unwrap(), b"one\n");
        assert!(shadow.read(&before, "b.txt").is_none());
    }

    /// Counts, a binary file (`-`) as 0/0 marked binary, a path with a tab or newline kept
    /// whole, and records that do not parse skipped.
    #[test]
    fn numstat_records_parse() {
        let out =
            b"2\t1\ta.txt\x00-\t-\timg.png\x000\t3\tdir/odd\tname\nx\x00x\ty\tbad\x00\t\t\x00";
        let lines = parse_numstat(out);
        let row = |path: &str, a, r, binary| FileLines {
            path: path.into(),
            lines_added: a,
            lines_removed: r,
            binary,
        };
        assert_eq!(
            lines,
            vec![
                row("a.txt", 2, 1, false),
                row("img.png", 0, 0, true),
                row("dir/odd\tname\nx", 0, 3, false),
            ]
        );
        assert!(parse_numstat(b"").is_empty());
    }

    /// The shadow counts a command's lines: a new file, an edited one, a deleted one.
    #[test]
    fn line_counts_between_snapshots() {
        let data = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        std::fs::write(ws.path().join("a.txt"), "one\ntwo\nthree\n").unwrap();
        std::fs::write(ws.path().join("gone.txt"), "x\ny\n").unwrap();
        let shadow = Shadow::open(data.path(), ws.path()).unwrap();
        let before = shadow.snapshot("n1").unwrap();
        std::fs::write(ws.path().join("a.txt"), "one\n2\nthree\nfour\n").unwrap();
        std::fs::write(ws.path().join("made.txt"), "a\nb\n").unwrap();
        std::fs::remove_file(ws.path().join("gone.txt")).unwrap();
        let after = shadow.snapshot("n2").unwrap();
        let counts: Vec<(String, usize, usize)> = shadow
            .line_counts(&before, &after)
            .unwrap()
            .into_iter()
            .map(|f| (f.path, f.lines_added, f.lines_removed))
            .collect();
        assert_eq!(
            counts,
            vec![
                ("a.txt".into(), 2, 1),
                ("gone.txt".into(), 0, 2),
                ("made.txt".into(), 2, 0),
            ]
        );
    }
}
