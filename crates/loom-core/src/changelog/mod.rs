//! The changelog: every change Loom makes can be taken back.
//!
//! Before a tool writes a file, the file's previous state (content and permissions, or
//! "did not exist") and the state about to be written are recorded in the session's journal
//! in the data dir and synced to disk — so the record survives a crash between record and
//! write. Before a command that may write, the workspace is snapshotted ([`snapshot`]); after
//! it, again, and the difference is recorded.
//!
//! Undo (one change, a whole turn, everything back to a point) restores the previous states,
//! newest first, and refuses when a file no longer holds what Loom left in it (someone edited
//! it since), unless forced. Every undo is planned first, with a diff to show; undo itself
//! is undone by redo.

pub mod snapshot;

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::base::beneath::Beneath;
use crate::base::diff::FileDiff;
use crate::base::files::Fingerprint;
use crate::private::write_atomic;
use crate::protocol::changes::{ChangeSummary, Scope};
use crate::session::append::append_line;
use snapshot::{Changed, Shadow};

/// A file's recorded state (its bytes live in a blob file next to the journal).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileState {
    /// Unix permission bits.
    pub mode: u32,
    /// Fingerprint of the content.
    pub fingerprint: Fingerprint,
}

/// One line of the journal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
enum Line {
    File {
        seq: u64,
        turn: u64,
        call_id: String,
        tool: String,
        path: PathBuf,
        display: String,
        before: Option<FileState>,
        after: Option<FileState>,
    },
    Command {
        seq: u64,
        turn: u64,
        call_id: String,
        command: String,
        before_tree: String,
        after_tree: String,
        files: Vec<(char, String)>,
    },
    Void {
        seq: u64,
    },
    Undo {
        seqs: Vec<u64>,
    },
    Redo {
        seqs: Vec<u64>,
    },
}

impl Line {
    /// The call that made this change, for a change.
    fn call_id(&self) -> Option<&str> {
        match self {
            Line::File { call_id, .. } | Line::Command { call_id, .. } => Some(call_id),
            _ => None,
        }
    }

    fn seq(&self) -> Option<u64> {
        match self {
            Line::File { seq, .. } | Line::Command { seq, .. } => Some(*seq),
            _ => None,
        }
    }

    fn turn(&self) -> Option<u64> {
        match self {
            Line::File { turn, .. } | Line::Command { turn, .. } => Some(*turn),
            _ => None,
        }
    }
}

/// One file operation of an undo or redo.
#[derive(Debug, Clone)]
pub struct Step {
    /// Workspace-relative path.
    pub display: String,
    /// Absolute path.
    pub path: PathBuf,
    /// The state to restore: content and mode, or `None` to delete.
    pub target: Option<(Vec<u8>, u32)>,
    /// The unified diff from the current content to the target.
    pub diff: String,
}

/// What an undo or redo would do, to show before doing it.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The changes it covers.
    pub seqs: Vec<u64>,
    /// File operations, in order.
    pub steps: Vec<Step>,
    /// Files that changed since Loom wrote them (undo would lose that work).
    pub conflicts: Vec<String>,
    /// Whether this is a redo.
    pub redo: bool,
}

impl Plan {
    /// All the diffs, one after another.
    pub fn diff(&self) -> String {
        self.steps
            .iter()
            .map(|s| s.diff.as_str())
            .collect::<Vec<_>>()
            .join("")
    }

    /// Paths touched.
    pub fn files(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for s in &self.steps {
            if !out.contains(&s.display) {
                out.push(s.display.clone());
            }
        }
        out
    }
}

/// One file to restore while planning: path, display name, target state (content and
/// mode, or absent) and the fingerprint the file must have for the change to apply cleanly.
type FileOp = (PathBuf, String, Option<(Vec<u8>, u32)>, Option<Fingerprint>);

/// The journal of one session.
#[derive(Debug)]
pub struct Changelog {
    dir: PathBuf,
    journal: File,
    lines: Vec<Line>,
    undone: std::collections::HashSet<u64>,
    void: std::collections::HashSet<u64>,
    redo_stack: Vec<Vec<u64>>,
    next_seq: u64,
    shadow: Option<Shadow>,
    workspace: PathBuf,
}

/// Largest file whose previous state is kept for undo.
const MAX_RECORDED_BYTES: u64 = crate::base::files::MAX_EDIT_BYTES;

/// How many changes (file writes and commands that changed files) session `session`
/// recorded, read from its journal without opening it for writing; 0 when it has none.
pub fn count_changes(data_dir: &Path, session: &str) -> usize {
    let path = data_dir.join("changes").join(session).join("journal.jsonl");
    let Ok(text) = std::fs::read_to_string(path) else {
        return 0;
    };
    text.lines()
        .filter_map(|l| serde_json::from_str::<Line>(l).ok())
        .filter(|l| match l {
            Line::File { .. } => true,
            Line::Command { files, .. } => !files.is_empty(),
            _ => false,
        })
        .count()
}

impl Changelog {
    /// Open (creating if needed) the journal of `session` under `data_dir`, with snapshots of
    /// `workspace` for commands when git is available.
    pub fn open(data_dir: &Path, session: &str, workspace: &Path) -> std::io::Result<Changelog> {
        let dir = data_dir.join("changes").join(session);
        crate::private::create_dir_all(&dir.join("blobs"))?;
        let path = dir.join("journal.jsonl");
        let mut lines = Vec::new();
        if let Ok(f) = File::open(&path) {
            for line in BufReader::new(f).lines().map_while(Result::ok) {
                if let Ok(l) = serde_json::from_str::<Line>(&line) {
                    lines.push(l);
                }
            }
        }
        let journal = crate::private::options()
            .create(true)
            .append(true)
            .open(&path)?;
        let mut log = Changelog {
            dir,
            journal,
            lines: Vec::new(),
            undone: Default::default(),
            void: Default::default(),
            redo_stack: Vec::new(),
            next_seq: 1,
            shadow: Shadow::open(data_dir, workspace).ok(),
            workspace: std::fs::canonicalize(workspace).unwrap_or_else(|_| workspace.to_path_buf()),
        };
        for l in lines {
            log.replay(l);
        }
        Ok(log)
    }

    /// The highest turn a change was recorded in (0: none). A resumed session numbers its
    /// turns on from here, so `undo --turn` never mixes an old turn with a new one.
    pub fn last_turn(&self) -> u64 {
        self.lines.iter().filter_map(Line::turn).max().unwrap_or(0)
    }

    /// The sequence number the next change will get: a prompt's mark, so a rewind to
    /// just before it undoes the changes from there on.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// How many changes from sequence number `seq` on are in force (not undone, not void,
    /// commands that changed files): what a rewind to that point would undo.
    pub fn live_since(&self, seq: u64) -> usize {
        self.live()
            .into_iter()
            .filter(|l| l.seq().is_some_and(|s| s >= seq))
            .count()
    }

    /// The contents and mode of the workspace file `path`, read beneath the workspace with
    /// no symlink followed (the recorded paths are canonical, so a symlink found now was
    /// not there when the change was recorded); `None` when it does not exist.
    fn read_state(&self, path: &Path) -> std::io::Result<Option<(Vec<u8>, u32)>> {
        let beneath = Beneath::open(&self.workspace)?;
        beneath.read_regular(beneath.relative(path)?, MAX_RECORDED_BYTES)
    }

    fn replay(&mut self, line: Line) {
        match &line {
            Line::File { seq, .. } | Line::Command { seq, .. } => {
                self.next_seq = self.next_seq.max(seq + 1);
                self.redo_stack.clear();
            }
            Line::Void { seq } => {
                self.void.insert(*seq);
            }
            Line::Undo { seqs } => {
                self.undone.extend(seqs);
                self.redo_stack.push(seqs.clone());
            }
            Line::Redo { seqs } => {
                for s in seqs {
                    self.undone.remove(s);
                }
                self.redo_stack.pop();
            }
        }
        self.lines.push(line);
    }

    /// Write one journal line; on failure (a full disk) the journal is cut back to its
    /// last complete line, so it stays readable, and the error is returned.
    fn append(&mut self, line: Line) -> std::io::Result<()> {
        let mut bytes = serde_json::to_vec(&line).map_err(std::io::Error::other)?;
        bytes.push(b'\n');
        append_line(&mut self.journal, &bytes, true)?;
        self.replay(line);
        Ok(())
    }

    fn blob(&self, seq: u64, side: &str) -> PathBuf {
        self.dir.join("blobs").join(format!("{seq}-{side}"))
    }

    /// Whether shell commands can be snapshotted (git is available).
    pub fn can_snapshot(&self) -> bool {
        self.shadow.is_some()
    }

    /// Record that `path` is about to change from what it holds now to `after` (`None`:
    /// about to be deleted). Call before writing; returns the change's sequence number.
    pub fn record_file(
        &mut self,
        turn: u64,
        call_id: &str,
        tool: &str,
        path: &Path,
        display: &str,
        after: Option<&[u8]>,
    ) -> std::io::Result<u64> {
        let seq = self.next_seq;
        let before = self.read_state(path)?;
        let before_state = match &before {
            Some((bytes, mode)) => {
                write_atomic(&self.blob(seq, "before"), bytes)?;
                Some(FileState {
                    mode: *mode,
                    fingerprint: Fingerprint::of(bytes),
                })
            }
            None => None,
        };
        let after_state = match after {
            Some(bytes) => {
                write_atomic(&self.blob(seq, "after"), bytes)?;
                Some(FileState {
                    mode: before.as_ref().map(|(_, m)| *m).unwrap_or(0o644),
                    fingerprint: Fingerprint::of(bytes),
                })
            }
            None => None,
        };
        self.append(Line::File {
            seq,
            turn,
            call_id: call_id.to_string(),
            tool: tool.to_string(),
            path: path.to_path_buf(),
            display: display.to_string(),
            before: before_state,
            after: after_state,
        })?;
        Ok(seq)
    }

    /// Mark a recorded change as never written (the write failed).
    pub fn void(&mut self, seq: u64) -> std::io::Result<()> {
        self.append(Line::Void { seq })
    }

    /// Snapshot the workspace before a command; returns the tree to pass to
    /// [`Changelog::record_command`].
    pub fn snapshot(&self, name: &str) -> Result<String, String> {
        match &self.shadow {
            Some(s) => s.snapshot(name),
            None => Err("git is not available, so shell commands cannot be undone".into()),
        }
    }

    /// Record what a command changed, given the snapshots before and after it. Returns the
    /// changed files (nothing is recorded when none changed).
    pub fn record_command(
        &mut self,
        turn: u64,
        call_id: &str,
        command: &str,
        before_tree: &str,
        after_tree: &str,
    ) -> Result<Vec<Changed>, String> {
        let shadow = self.shadow.as_ref().ok_or("no snapshots")?;
        let files = shadow.changed(before_tree, after_tree)?;
        if files.is_empty() {
            return Ok(files);
        }
        let seq = self.next_seq;
        self.append(Line::Command {
            seq,
            turn,
            call_id: call_id.to_string(),
            command: command.to_string(),
            before_tree: before_tree.to_string(),
            after_tree: after_tree.to_string(),
            files: files.iter().map(|c| (c.status, c.path.clone())).collect(),
        })
        .map_err(|e| e.to_string())?;
        Ok(files)
    }

    /// Lines added and removed per file between two snapshots (what a command changed,
    /// counted for front ends; binary files are marked and count 0).
    pub fn line_counts(
        &self,
        before_tree: &str,
        after_tree: &str,
    ) -> Result<Vec<loom_protocol::changes::FileLines>, String> {
        let shadow = self.shadow.as_ref().ok_or("no snapshots")?;
        shadow.line_counts(before_tree, after_tree)
    }

    /// Every recorded change, oldest first.
    pub fn summaries(&self) -> Vec<ChangeSummary> {
        self.lines
            .iter()
            .filter_map(|l| match l {
                Line::File {
                    seq,
                    turn,
                    tool,
                    display,
                    ..
                } if !self.void.contains(seq) => Some(ChangeSummary {
                    seq: *seq,
                    turn: *turn,
                    tool: tool.clone(),
                    what: display.clone(),
                    undone: self.undone.contains(seq),
                }),
                Line::Command {
                    seq,
                    turn,
                    command,
                    files,
                    ..
                } => Some(ChangeSummary {
                    seq: *seq,
                    turn: *turn,
                    tool: "bash".into(),
                    what: format!(
                        "`{}` changed {}",
                        command,
                        files
                            .iter()
                            .map(|(_, p)| p.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    undone: self.undone.contains(seq),
                }),
                _ => None,
            })
            .collect()
    }

    fn live(&self) -> Vec<&Line> {
        self.lines
            .iter()
            .filter(|l| {
                l.seq()
                    .is_some_and(|s| !self.undone.contains(&s) && !self.void.contains(&s))
            })
            .collect()
    }

    /// Plan what `undo` (of `scope`) or `redo` would do: the one entry point for the TUI's
    /// `/undo` and `loom undo`, which both show the plan before applying it.
    pub fn plan_step(&self, redo: bool, scope: Scope) -> Result<Plan, String> {
        if redo {
            self.plan_redo()
        } else {
            self.plan_undo(scope)
        }
    }

    /// Plan an undo of `scope`.
    pub fn plan_undo(&self, scope: Scope) -> Result<Plan, String> {
        let live = self.live();
        let Some(newest) = live.last() else {
            return Err("there is nothing to undo".into());
        };
        let chosen: Vec<&Line> = match scope {
            // The last change is the last call's: a patch that wrote three files is one
            // change, taken back whole. Its entries are the newest ones in a row with its
            // id and turn (servers that number calls anew in every answer reuse ids).
            Scope::Last => match newest.call_id().filter(|id| !id.is_empty()) {
                Some(call) => {
                    let same = |l: &&&Line| l.call_id() == Some(call) && l.turn() == newest.turn();
                    let mut run: Vec<&Line> = live.iter().rev().take_while(same).copied().collect();
                    run.reverse();
                    run
                }
                None => vec![*newest],
            },
            Scope::Turn => {
                let turn = match newest {
                    Line::File { turn, .. } | Line::Command { turn, .. } => *turn,
                    _ => 0,
                };
                live.iter()
                    .filter(|l| matches!(l, Line::File { turn: t, .. } | Line::Command { turn: t, .. } if *t == turn))
                    .copied()
                    .collect()
            }
            Scope::All => live.clone(),
            Scope::Since(n) => live
                .iter()
                .filter(|l| l.seq().is_some_and(|s| s >= n))
                .copied()
                .collect(),
        };
        if chosen.is_empty() {
            return Err("there is nothing to undo in that range".into());
        }
        self.plan(chosen.into_iter().rev().collect(), false)
    }

    /// Plan a redo of the most recent undo.
    pub fn plan_redo(&self) -> Result<Plan, String> {
        let Some(seqs) = self.redo_stack.last() else {
            return Err("there is nothing to redo".into());
        };
        let chosen: Vec<&Line> = seqs
            .iter()
            .rev()
            .filter_map(|s| self.lines.iter().find(|l| l.seq() == Some(*s)))
            .collect();
        self.plan(chosen, true)
    }

    fn plan(&self, entries: Vec<&Line>, redo: bool) -> Result<Plan, String> {
        // What each file holds once the steps before have run.
        let mut sim: HashMap<PathBuf, Option<Vec<u8>>> = HashMap::new();
        let mut steps = Vec::new();
        let mut conflicts = Vec::new();
        let mut seqs = Vec::new();
        for entry in entries {
            let Some(ops) = self.file_ops(entry, redo)? else {
                continue;
            };
            seqs.push(entry.seq().unwrap_or(0));
            for op in ops {
                if let Some(step) = self.plan_file(&mut sim, op, redo, &mut conflicts)? {
                    steps.push(step);
                }
            }
        }
        Ok(Plan {
            seqs,
            steps,
            conflicts,
            redo,
        })
    }

    /// The files an undo (or, with `redo`, a redo) of `entry` sets, each with the state it
    /// restores and the fingerprint it expects to find; `None` for an entry that changed
    /// no file.
    fn file_ops(&self, entry: &Line, redo: bool) -> Result<Option<Vec<FileOp>>, String> {
        Ok(Some(match entry {
            Line::File {
                seq,
                path,
                display,
                before,
                after,
                ..
            } => {
                let (from, to, to_side) = if redo {
                    (before, after, "after")
                } else {
                    (after, before, "before")
                };
                let target = match to {
                    Some(state) => {
                        let bytes = std::fs::read(self.blob(*seq, to_side))
                            .map_err(|e| format!("the saved copy of {display} is missing: {e}"))?;
                        Some((bytes, state.mode))
                    }
                    None => None,
                };
                vec![(
                    path.clone(),
                    display.clone(),
                    target,
                    from.map(|s| s.fingerprint),
                )]
            }
            Line::Command {
                before_tree,
                after_tree,
                files,
                ..
            } => {
                let shadow = self
                    .shadow
                    .as_ref()
                    .ok_or("git is not available to restore the snapshot")?;
                let (from_tree, to_tree) = if redo {
                    (before_tree, after_tree)
                } else {
                    (after_tree, before_tree)
                };
                let root = shadow.work_tree().to_path_buf();
                files
                    .iter()
                    .map(|(_, p)| {
                        let target = shadow.read(to_tree, p).map(|bytes| {
                            (
                                bytes,
                                if shadow.executable(to_tree, p) {
                                    0o755
                                } else {
                                    0o644
                                },
                            )
                        });
                        let expected = shadow.read(from_tree, p).map(|b| Fingerprint::of(&b));
                        (root.join(p), p.clone(), target, expected)
                    })
                    .collect()
            }
            _ => return Ok(None),
        }))
    }

    /// One file's step of a plan, against what the steps before left (`sim`): `None` when
    /// the file already holds its target; a conflict is noted when it holds neither what
    /// Loom left nor the target.
    fn plan_file(
        &self,
        sim: &mut HashMap<PathBuf, Option<Vec<u8>>>,
        (path, display, target, expected): FileOp,
        redo: bool,
        conflicts: &mut Vec<String>,
    ) -> Result<Option<Step>, String> {
        let current = match sim.get(&path) {
            Some(c) => c.clone(),
            None => self
                .read_state(&path)
                .map_err(|e| format!("{display}: {e}"))?
                .map(|(b, _)| b),
        };
        let current_fp = current.as_deref().map(Fingerprint::of);
        let target_fp = target.as_ref().map(|(b, _)| Fingerprint::of(b));
        if current_fp == target_fp {
            sim.insert(path, current);
            return Ok(None);
        }
        if current_fp != expected {
            conflicts.push(format!(
                "{display} changed since Loom {} it; {} would overwrite those changes",
                if redo { "undid" } else { "wrote" },
                if redo { "redo" } else { "undo" }
            ));
        }
        let old_text = current
            .as_deref()
            .map(String::from_utf8_lossy)
            .unwrap_or_default();
        let new_text = target
            .as_ref()
            .map(|(b, _)| String::from_utf8_lossy(b))
            .unwrap_or_default();
        let old_name = if current.is_some() {
            format!("a/{display}")
        } else {
            "/dev/null".into()
        };
        let new_name = if target.is_some() {
            format!("b/{display}")
        } else {
            "/dev/null".into()
        };
        let diff = FileDiff::compute(&old_text, &new_text).unified(&old_name, &new_name);
        sim.insert(path.clone(), target.as_ref().map(|(b, _)| b.clone()));
        Ok(Some(Step {
            display,
            path,
            target,
            diff,
        }))
    }

    /// Carry out a plan. Refuses when it has conflicts, unless `force`.
    pub fn apply(&mut self, plan: &Plan, force: bool) -> Result<Vec<String>, String> {
        if !plan.conflicts.is_empty() && !force {
            return Err(format!(
                "{}; nothing was changed (force it to overwrite)",
                plan.conflicts.join("; ")
            ));
        }
        let beneath = Beneath::open(&self.workspace).map_err(|e| format!("the workspace: {e}"))?;
        for step in &plan.steps {
            let rel = beneath
                .relative(&step.path)
                .map_err(|e| format!("{}: {e}", step.display))?;
            match &step.target {
                Some((bytes, mode)) => beneath
                    .write_atomic(rel, bytes, Some(*mode))
                    .map_err(|e| format!("{}: {e}", step.display))?,
                None => {
                    beneath
                        .remove_file(rel)
                        .map_err(|e| format!("{}: {e}", step.display))?;
                    // A file the change created may have come with its directories
                    // (`mkdir -p out && …`, a write to a new path): those it leaves empty
                    // go too, up to the first that holds something else.
                    for dir in rel.ancestors().skip(1) {
                        if dir.as_os_str().is_empty()
                            || !beneath.remove_empty_dir(dir).unwrap_or(false)
                        {
                            break;
                        }
                    }
                }
            }
        }
        let line = if plan.redo {
            Line::Redo {
                seqs: plan.seqs.clone(),
            }
        } else {
            Line::Undo {
                seqs: plan.seqs.clone(),
            }
        };
        self.append(line).map_err(|e| e.to_string())?;
        Ok(plan.files())
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
