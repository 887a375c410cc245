//! `apply_patch` on real files: each operation, all-or-nothing failures, and per-file
//! review selections.

use std::fs;

use serde_json::json;

use super::*;
use crate::tools::Tool;
use crate::tools::change::{HunkSelection, apply_all};

fn ws() -> (tempfile::TempDir, ToolContext) {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::for_workspace(dir.path()).unwrap();
    (dir, ctx)
}

fn args(body: &str) -> Value {
    json!({ "input": format!("*** Begin Patch\n{body}*** End Patch\n") })
}

async fn run(ctx: &ToolContext, body: &str) -> ToolResult {
    ApplyPatch.execute(args(body), ctx).await
}

fn read(dir: &tempfile::TempDir, path: &str) -> Option<String> {
    fs::read_to_string(dir.path().join(path)).ok()
}

#[tokio::test]
async fn one_patch_adds_updates_deletes_and_moves() {
    let (d, ctx) = ws();
    fs::write(d.path().join("a.py"), "def f():\n    return 1\n").unwrap();
    fs::write(d.path().join("old.txt"), "bye\n").unwrap();
    fs::write(d.path().join("m.txt"), "one\ntwo\n").unwrap();
    let r = run(
        &ctx,
        "*** Add File: docs/new.md\n+# New\n*** Update File: a.py\n@@ def f():\n-    return 1\n\
         +    return 2\n*** Delete File: old.txt\n*** Update File: m.txt\n*** Move to: sub/m2.txt\n\
         @@\n one\n-two\n+TWO\n",
    )
    .await;
    assert!(r.success, "{r:?}");
    assert_eq!(read(&d, "docs/new.md").as_deref(), Some("# New\n"));
    assert_eq!(
        read(&d, "a.py").as_deref(),
        Some("def f():\n    return 2\n")
    );
    assert_eq!(read(&d, "old.txt"), None);
    assert_eq!(read(&d, "m.txt"), None);
    assert_eq!(read(&d, "sub/m2.txt").as_deref(), Some("one\nTWO\n"));
    for path in ["docs/new.md", "a.py", "old.txt", "sub/m2.txt", "m.txt"] {
        assert!(r.files_changed.contains(&path.to_string()), "{path}: {r:?}");
    }
    let data = r.data.unwrap();
    assert_eq!(data["files"].as_array().unwrap().len(), 4);
    assert_eq!(data["files"][3]["moved_from"], "m.txt");
    assert_eq!(data["files"][2]["deleted"], true);
    assert!(
        r.output.contains("Moved m.txt to sub/m2.txt"),
        "{}",
        r.output
    );
}

#[tokio::test]
async fn a_patch_failing_anywhere_changes_nothing() {
    let (d, ctx) = ws();
    fs::write(d.path().join("a.txt"), "a\n").unwrap();
    fs::write(d.path().join("b.txt"), "b\n").unwrap();
    let r = run(
        &ctx,
        "*** Add File: new.txt\n+x\n*** Update File: a.txt\n-a\n+A\n*** Update File: b.txt\n\
         -not in the file\n+B\n",
    )
    .await;
    assert!(!r.success);
    let err = r.error.unwrap();
    assert!(
        err.contains("b.txt") && err.contains("no file changed"),
        "{err}"
    );
    assert_eq!(read(&d, "a.txt").as_deref(), Some("a\n"));
    assert_eq!(read(&d, "new.txt"), None);
}

#[tokio::test]
async fn adding_or_moving_onto_an_existing_file_is_refused() {
    let (d, ctx) = ws();
    fs::write(d.path().join("a.txt"), "a\n").unwrap();
    fs::write(d.path().join("b.txt"), "b\n").unwrap();
    let r = run(&ctx, "*** Add File: a.txt\n+new\n").await;
    assert!(r.error.unwrap().contains("a.txt already exists"));
    let r = run(&ctx, "*** Update File: a.txt\n*** Move to: b.txt\n").await;
    assert!(r.error.unwrap().contains("b.txt already exists"));
    assert_eq!(read(&d, "a.txt").as_deref(), Some("a\n"));
    assert_eq!(read(&d, "b.txt").as_deref(), Some("b\n"));
}

#[tokio::test]
async fn updating_or_deleting_a_missing_file_is_refused() {
    let (_d, ctx) = ws();
    let r = run(&ctx, "*** Update File: nope.txt\n-a\n+b\n").await;
    assert!(r.error.unwrap().contains("nope.txt does not exist"));
    let r = run(&ctx, "*** Delete File: nope.txt\n").await;
    assert!(r.error.unwrap().contains("nope.txt does not exist"));
}

#[tokio::test]
async fn paths_outside_the_workspace_are_refused() {
    let (_d, ctx) = ws();
    let r = run(&ctx, "*** Add File: ../escape.txt\n+x\n").await;
    assert!(!r.success);
    let r = run(&ctx, "*** Add File: /etc/loom-escape\n+x\n").await;
    assert!(!r.success);
    assert!(!std::path::Path::new("/etc/loom-escape").exists());
}

#[tokio::test]
async fn a_file_reached_twice_through_different_spellings_is_refused() {
    let (d, ctx) = ws();
    fs::write(d.path().join("a.txt"), "a\n").unwrap();
    let r = run(
        &ctx,
        "*** Update File: a.txt\n-a\n+b\n*** Delete File: ./a.txt\n",
    )
    .await;
    assert!(r.error.unwrap().contains("changed twice"));
    assert_eq!(read(&d, "a.txt").as_deref(), Some("a\n"));
}

#[tokio::test]
async fn binary_and_non_utf8_files_are_refused() {
    let (d, ctx) = ws();
    fs::write(d.path().join("bin"), b"a\0b\n").unwrap();
    fs::write(d.path().join("latin1"), b"caf\xe9\n").unwrap();
    let r = run(&ctx, "*** Update File: bin\n-a\n+b\n").await;
    assert!(r.error.unwrap().contains("binary"));
    let r = run(&ctx, "*** Update File: latin1\n-x\n+y\n").await;
    assert!(r.error.unwrap().contains("not valid UTF-8"));
}

#[tokio::test]
async fn a_malformed_patch_is_an_invalid_argument_with_its_line() {
    let (_d, ctx) = ws();
    let r = ApplyPatch
        .execute(
            json!({"input": "*** Begin Patch\n*** Update File: a\n@@\n*x\n*** End Patch"}),
            &ctx,
        )
        .await;
    let err = r.error.unwrap();
    assert!(err.starts_with("invalid arguments: line 4"), "{err}");
}

#[test]
fn the_call_names_every_path_it_writes_including_a_move_destination() {
    let intent = ApplyPatch
        .describe(&args(
            "*** Add File: a\n+x\n*** Update File: b\n*** Move to: c\n",
        ))
        .unwrap();
    assert_eq!(intent.kind(), ToolKind::Write);
    assert_eq!(intent.written_paths(), ["a", "b", "c"]);
    assert!(ApplyPatch.describe(&json!({"input": "nonsense"})).is_err());
}

#[tokio::test]
async fn a_loose_match_is_noted() {
    let (d, ctx) = ws();
    fs::write(d.path().join("q.txt"), "say “hi”\n").unwrap();
    let r = run(
        &ctx,
        "*** Update File: q.txt\n-say \"hi\"\n+say \"hello\"\n",
    )
    .await;
    assert!(r.success, "{r:?}");
    assert!(r.output.contains("typographic"), "{}", r.output);
    assert_eq!(read(&d, "q.txt").as_deref(), Some("say \"hello\"\n"));
}

#[tokio::test]
async fn the_person_may_leave_out_a_whole_file_or_one_hunk() {
    let (d, ctx) = ws();
    let long: String = (1..=40).map(|i| format!("l{i}\n")).collect();
    fs::write(d.path().join("a.txt"), &long).unwrap();
    fs::write(d.path().join("gone.txt"), "x\n").unwrap();
    let changes = ApplyPatch
        .preview_all(
            args(
                "*** Update File: a.txt\n@@\n-l2\n+L2\n@@\n-l30\n+L30\n*** Delete File: gone.txt\n\
                  *** Add File: new.txt\n+n\n",
            ),
            &ctx,
        )
        .await
        .unwrap()
        .unwrap();
    let slots: Vec<usize> = changes.iter().map(FileChange::review_slots).collect();
    assert_eq!(slots, vec![2, 1, 1]);
    // Keep the second hunk of a.txt, refuse the delete, keep the new file.
    let r = apply_all(
        &changes,
        &HunkSelection::Only(vec![false, true, false, true]),
    )
    .unwrap();
    assert_eq!(read(&d, "a.txt").unwrap(), long.replace("l30\n", "L30\n"));
    assert_eq!(read(&d, "gone.txt").as_deref(), Some("x\n"));
    assert_eq!(read(&d, "new.txt").as_deref(), Some("n\n"));
    assert_eq!(r.data.unwrap()["files_rejected"], json!(["gone.txt"]));
    assert!(r.output.contains("1 rejected"), "{}", r.output);
}

#[tokio::test]
async fn a_selection_of_the_wrong_size_is_refused_before_writing() {
    let (d, ctx) = ws();
    fs::write(d.path().join("a.txt"), "a\n").unwrap();
    let changes = ApplyPatch
        .preview_all(
            args("*** Update File: a.txt\n-a\n+b\n*** Add File: n\n+x\n"),
            &ctx,
        )
        .await
        .unwrap()
        .unwrap();
    assert!(apply_all(&changes, &HunkSelection::Only(vec![true])).is_err());
    assert_eq!(read(&d, "a.txt").as_deref(), Some("a\n"));
    assert_eq!(read(&d, "n"), None);
}

/// All or nothing at write time too: a file edited after the preview, or a path that
/// stopped being writable, stops the whole patch before anything is written (a write
/// failing half-way is tested in `change`).
#[tokio::test]
async fn writes_are_all_or_nothing() {
    let (d, ctx) = ws();
    fs::write(d.path().join("a.txt"), "a\n").unwrap();
    fs::write(d.path().join("b.txt"), "b\n").unwrap();
    let changes = ApplyPatch
        .preview_all(
            args("*** Update File: a.txt\n-a\n+A\n*** Update File: b.txt\n-b\n+B\n"),
            &ctx,
        )
        .await
        .unwrap()
        .unwrap();
    fs::write(d.path().join("b.txt"), "edited by the person\n").unwrap();
    let err = apply_all(&changes, &HunkSelection::All).unwrap_err();
    assert!(
        matches!(err, ToolError::Stale(ref p) if p == "b.txt"),
        "{err}"
    );
    assert_eq!(read(&d, "a.txt").as_deref(), Some("a\n"));

    let changes = ApplyPatch
        .preview_all(
            args("*** Update File: a.txt\n-a\n+A\n*** Add File: dir/new.txt\n+n\n"),
            &ctx,
        )
        .await
        .unwrap()
        .unwrap();
    fs::write(d.path().join("dir"), "now a file").unwrap();
    assert!(apply_all(&changes, &HunkSelection::All).is_err());
    assert_eq!(read(&d, "a.txt").as_deref(), Some("a\n"));
}

#[tokio::test]
async fn a_move_is_undone_whole_when_it_cannot_finish() {
    let (d, ctx) = ws();
    fs::write(d.path().join("m.txt"), "m\n").unwrap();
    let changes = ApplyPatch
        .preview_all(args("*** Update File: m.txt\n*** Move to: n.txt\n"), &ctx)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        changes[0].review_slots(),
        1,
        "a pure move can still be chosen"
    );
    fs::write(d.path().join("n.txt"), "appeared").unwrap();
    assert!(apply_all(&changes, &HunkSelection::All).is_err());
    assert_eq!(read(&d, "m.txt").as_deref(), Some("m\n"));
    assert_eq!(read(&d, "n.txt").as_deref(), Some("appeared"));
}

/// Review finding: a move created its destination 0644 (a script lost `+x`).
#[tokio::test]
async fn a_moved_file_keeps_its_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let (d, ctx) = ws();
    let script = d.path().join("run.sh");
    fs::write(&script, "echo hi\n").unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    let r = run(
        &ctx,
        "*** Update File: run.sh\n*** Move to: bin/run.sh\n@@\n-echo hi\n+echo hello\n",
    )
    .await;
    assert!(r.success, "{r:?}");
    let mode = fs::metadata(d.path().join("bin/run.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o755);
}
