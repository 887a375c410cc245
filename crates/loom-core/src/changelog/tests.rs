//! Undo and redo against real files, and snapshots against a real git repository.

use super::*;
use std::os::unix::fs::PermissionsExt;
use std::process::Command;

struct Fixture {
    _data: tempfile::TempDir,
    ws: tempfile::TempDir,
    log: Changelog,
}

fn fixture() -> Fixture {
    let data = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let log = Changelog::open(data.path(), "s1", ws.path()).unwrap();
    Fixture {
        _data: data,
        ws,
        log,
    }
}

impl Fixture {
    fn path(&self, rel: &str) -> PathBuf {
        self.ws.path().join(rel)
    }

    /// Record and perform a write the way the runner does.
    fn write(&mut self, turn: u64, rel: &str, content: &[u8]) -> u64 {
        self.write_by(turn, "call", rel, content)
    }

    /// The same, for the call `call`.
    fn write_by(&mut self, turn: u64, call: &str, rel: &str, content: &[u8]) -> u64 {
        let path = self.path(rel);
        let seq = self
            .log
            .record_file(turn, call, "apply_patch", &path, rel, Some(content))
            .unwrap();
        write_atomic(&path, content).unwrap();
        seq
    }
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
}

#[test]
fn edit_then_undo_restores_bytes_and_permissions() {
    let mut f = fixture();
    let p = f.path("run.sh");
    let original = b"#!/bin/sh\r\necho caf\xe9\n".to_vec();
    std::fs::write(&p, &original).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o750)).unwrap();
    f.write(1, "run.sh", b"#!/bin/sh\necho new\n");
    let plan = f.log.plan_undo(Scope::Last).unwrap();
    assert!(plan.conflicts.is_empty());
    assert!(plan.diff().contains("-echo new"), "{}", plan.diff());
    f.log.apply(&plan, false).unwrap();
    assert_eq!(std::fs::read(&p).unwrap(), original);
    assert_eq!(mode(&p), 0o750);
}

#[test]
fn create_then_undo_deletes_and_redo_recreates() {
    let mut f = fixture();
    f.write(1, "new.txt", b"hello\n");
    let plan = f.log.plan_undo(Scope::Last).unwrap();
    assert!(plan.diff().contains("+++ /dev/null"), "{}", plan.diff());
    f.log.apply(&plan, false).unwrap();
    assert!(!f.path("new.txt").exists());
    let redo = f.log.plan_redo().unwrap();
    f.log.apply(&redo, false).unwrap();
    assert_eq!(
        std::fs::read_to_string(f.path("new.txt")).unwrap(),
        "hello\n"
    );
    assert!(f.log.plan_redo().is_err(), "the redo stack is empty again");
}

#[test]
fn undo_refuses_after_a_later_manual_change_unless_forced() {
    let mut f = fixture();
    std::fs::write(f.path("a.txt"), "v1\n").unwrap();
    f.write(1, "a.txt", b"v2\n");
    std::fs::write(f.path("a.txt"), "my own edit\n").unwrap();
    let plan = f.log.plan_undo(Scope::Last).unwrap();
    assert_eq!(plan.conflicts.len(), 1);
    let err = f.log.apply(&plan, false).unwrap_err();
    assert!(err.contains("a.txt changed since Loom wrote it"), "{err}");
    assert_eq!(
        std::fs::read_to_string(f.path("a.txt")).unwrap(),
        "my own edit\n"
    );
    f.log.apply(&plan, true).unwrap();
    assert_eq!(std::fs::read_to_string(f.path("a.txt")).unwrap(), "v1\n");
}

/// Regression (found by a helper): a patch that wrote two files is one change, but
/// `/undo` took back only the last file it wrote. The last change is the last call's,
/// whole; the call before it stays.
#[test]
fn undo_takes_back_every_file_of_the_last_call() {
    let mut f = fixture();
    std::fs::write(f.path("a.txt"), "a0\n").unwrap();
    f.write_by(1, "c1", "first.txt", b"first\n");
    f.write_by(1, "c2", "a.txt", b"a1\n");
    f.write_by(1, "c2", "new.txt", b"new\n");
    let plan = f.log.plan_undo(Scope::Last).unwrap();
    assert_eq!(plan.seqs.len(), 2, "{:?}", plan.seqs);
    f.log.apply(&plan, false).unwrap();
    assert_eq!(std::fs::read_to_string(f.path("a.txt")).unwrap(), "a0\n");
    assert!(!f.path("new.txt").exists());
    assert!(f.path("first.txt").exists(), "the call before stays");
    let redo = f.log.plan_redo().unwrap();
    f.log.apply(&redo, false).unwrap();
    assert_eq!(std::fs::read_to_string(f.path("a.txt")).unwrap(), "a1\n");
    assert!(f.path("new.txt").exists());
    // A server that numbers calls anew in every answer: the same id in an earlier turn
    // is another change.
    f.write_by(2, "c2", "later.txt", b"later\n");
    let plan = f.log.plan_undo(Scope::Last).unwrap();
    assert_eq!(plan.seqs.len(), 1, "{:?}", plan.seqs);
}

#[test]
fn undo_a_turn_of_three_edits() {
    let mut f = fixture();
    std::fs::write(f.path("a.txt"), "0\n").unwrap();
    f.write(1, "other.txt", b"turn one\n");
    f.write(2, "a.txt", b"1\n");
    f.write(2, "a.txt", b"2\n");
    f.write(2, "b.txt", b"b\n");
    let plan = f.log.plan_undo(Scope::Turn).unwrap();
    assert_eq!(plan.seqs.len(), 3);
    f.log.apply(&plan, false).unwrap();
    assert_eq!(std::fs::read_to_string(f.path("a.txt")).unwrap(), "0\n");
    assert!(!f.path("b.txt").exists());
    assert!(f.path("other.txt").exists(), "turn 1 is untouched");
    let listed = f.log.summaries();
    assert_eq!(listed.iter().filter(|c| c.undone).count(), 3);
    let plan = f.log.plan_undo(Scope::All).unwrap();
    assert_eq!(plan.seqs.len(), 1);
}

#[test]
fn a_failed_write_is_not_undone() {
    let mut f = fixture();
    std::fs::write(f.path("a.txt"), "keep\n").unwrap();
    let seq = f
        .log
        .record_file(
            1,
            "c",
            "edit_file",
            &f.path("a.txt"),
            "a.txt",
            Some(b"never"),
        )
        .unwrap();
    f.log.void(seq).unwrap();
    assert!(f.log.plan_undo(Scope::Last).is_err());
}

#[test]
fn the_journal_survives_reopening() {
    let data = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let p = ws.path().join("x.txt");
    {
        let mut log = Changelog::open(data.path(), "s", ws.path()).unwrap();
        log.record_file(1, "c", "write_file", &p, "x.txt", Some(b"data"))
            .unwrap();
        write_atomic(&p, b"data").unwrap();
    }
    let mut log = Changelog::open(data.path(), "s", ws.path()).unwrap();
    let plan = log.plan_undo(Scope::Last).unwrap();
    log.apply(&plan, false).unwrap();
    assert!(!p.exists());
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn shell_changes_are_undone_from_snapshots() {
    let mut f = fixture();
    std::fs::write(f.path("a.txt"), "alpha\nbeta\n").unwrap();
    std::fs::write(f.path("gone.txt"), "delete me\n").unwrap();
    std::fs::write(f.path(".gitignore"), "*.log\n").unwrap();
    std::fs::write(f.path("build.log"), "ignored\n").unwrap();
    let before = f.log.snapshot("s1-1-before").unwrap();
    let status = Command::new("sh")
        .args(["-c", "sed -i 's/beta/BETA/' a.txt && rm gone.txt && echo n > added.txt && echo more >> build.log"])
        .current_dir(f.ws.path())
        .status()
        .unwrap();
    assert!(status.success());
    let after = f.log.snapshot("s1-1-after").unwrap();
    let changed = f
        .log
        .record_command(1, "c9", "sed …", &before, &after)
        .unwrap();
    let paths: Vec<&str> = changed.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(paths, vec!["a.txt", "added.txt", "gone.txt"]);
    let plan = f.log.plan_undo(Scope::Last).unwrap();
    assert!(plan.conflicts.is_empty(), "{:?}", plan.conflicts);
    f.log.apply(&plan, false).unwrap();
    assert_eq!(
        std::fs::read_to_string(f.path("a.txt")).unwrap(),
        "alpha\nbeta\n"
    );
    assert_eq!(
        std::fs::read_to_string(f.path("gone.txt")).unwrap(),
        "delete me\n"
    );
    assert!(!f.path("added.txt").exists());
    assert_eq!(
        std::fs::read_to_string(f.path("build.log")).unwrap(),
        "ignored\nmore\n",
        "ignored files are left alone"
    );
}

/// Regression (issue 25): `/undo` of a command that made a directory and a file in it
/// removed the file and left the empty directory; a directory holding anything else stays.
#[test]
fn undoing_a_command_removes_the_directories_it_made_and_left_empty() {
    let mut f = fixture();
    std::fs::create_dir(f.path("kept")).unwrap();
    std::fs::write(f.path("kept/mine.txt"), "mine\n").unwrap();
    let before = f.log.snapshot("s1-1-before").unwrap();
    let status = Command::new("sh")
        .args([
            "-c",
            "mkdir -p out/deep && echo r > out/deep/run.txt && echo k > kept/new.txt",
        ])
        .current_dir(f.ws.path())
        .status()
        .unwrap();
    assert!(status.success());
    let after = f.log.snapshot("s1-1-after").unwrap();
    f.log
        .record_command(1, "c1", "mkdir …", &before, &after)
        .unwrap();
    let plan = f.log.plan_undo(Scope::Last).unwrap();
    f.log.apply(&plan, false).unwrap();
    assert!(!f.path("out").exists(), "the directories it made are gone");
    assert!(!f.path("kept/new.txt").exists());
    assert_eq!(
        std::fs::read_to_string(f.path("kept/mine.txt")).unwrap(),
        "mine\n",
        "a directory holding something else stays"
    );
    let redo = f.log.plan_redo().unwrap();
    f.log.apply(&redo, false).unwrap();
    assert_eq!(
        std::fs::read_to_string(f.path("out/deep/run.txt")).unwrap(),
        "r\n"
    );
}

#[test]
fn snapshots_leave_the_users_repository_alone() {
    let mut f = fixture();
    let ws = f.ws.path().to_path_buf();
    git(&ws, &["init", "-q", "-b", "main"]);
    std::fs::write(ws.join("a.txt"), "1\n").unwrap();
    git(&ws, &["add", "a.txt"]);
    git(&ws, &["commit", "-qm", "one"]);
    std::fs::write(ws.join("a.txt"), "stashed\n").unwrap();
    git(&ws, &["stash", "-q"]);
    std::fs::write(ws.join("staged.txt"), "s\n").unwrap();
    git(&ws, &["add", "staged.txt"]);
    std::fs::write(ws.join("untracked.txt"), "u\n").unwrap();
    let index_before = std::fs::read(ws.join(".git/index")).unwrap();
    let state = |ws: &Path| {
        (
            git(ws, &["status", "--porcelain"]),
            git(ws, &["stash", "list"]),
            git(ws, &["branch", "-a"]),
            git(ws, &["for-each-ref"]),
        )
    };
    let before_state = state(&ws);
    let t1 = f.log.snapshot("a").unwrap();
    std::fs::write(ws.join("untracked.txt"), "changed\n").unwrap();
    let t2 = f.log.snapshot("b").unwrap();
    f.log.record_command(1, "c", "x", &t1, &t2).unwrap();
    let plan = f.log.plan_undo(Scope::Last).unwrap();
    f.log.apply(&plan, false).unwrap();
    assert_eq!(std::fs::read(ws.join(".git/index")).unwrap(), index_before);
    assert_eq!(state(&ws), before_state);
}
