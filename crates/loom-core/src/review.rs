//! The diffs and the prompt of `/review` and `loom review` (issue 28): the uncommitted
//! changes of a workspace, a branch's changes since its merge base, or one commit's change,
//! as git shows them (through Loom's hardened git, with no external diff or textconv
//! program), and the prompt that asks the model for findings on them, each with its
//! `file:line` and severity. The agent runs the read-only turn (agent/runner/review.rs).

use std::path::Path;

use thiserror::Error;

use crate::protocol::review::ReviewTarget;

/// The most bytes of diff the prompt carries; a longer diff is cut, and the prompt says so.
pub const MAX_DIFF_BYTES: usize = 200 * 1024;

/// Why there is nothing to review.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum ReviewError {
    /// The workspace is not in a git repository (or git could not run).
    #[error("cannot review: {0}; /review looks at the changes of a git repository")]
    Git(String),
    /// The repository looks tampered with, so Loom runs no git in it.
    #[error("cannot review: {0}")]
    Tampered(String),
    /// The repository has no commit to compare with.
    #[error(
        "nothing to review against: this repository has no commit yet; commit once, then \
         /review shows the changes since"
    )]
    NoCommit,
    /// No file differs from the last commit and none is new.
    #[error("nothing to review: no file differs from HEAD and no new file is untracked")]
    NothingToReview,
    /// A branch or commit name that could be read as an option, or is not a name at all.
    #[error("cannot review: {0:?} is not a branch or commit name; give one like main or a1b2c3d")]
    BadRef(String),
    /// No commit has that name.
    #[error(
        "cannot review: no commit or branch named {0:?} in this repository (see git log / git branch)"
    )]
    UnknownRef(String),
    /// The range holds no change.
    #[error("nothing to review: no file differs ({0})")]
    EmptyRange(String),
}

/// The diff of `target` in `workspace`.
pub fn diff_for(workspace: &Path, target: &ReviewTarget) -> Result<String, ReviewError> {
    match target {
        ReviewTarget::Uncommitted => uncommitted_diff(workspace),
        ReviewTarget::Base(branch) => {
            let tip = resolve(workspace, branch)?;
            let base = run_git(workspace, &["merge-base", &tip, "HEAD"]).map_err(|e| match e {
                ReviewError::Git(why) if why == "git failed" => {
                    ReviewError::Git(format!("{branch} and HEAD have no commit in common"))
                }
                other => other,
            })?;
            let mut diff = run_git(
                workspace,
                &[DIFF, NO_EXT, NO_TEXTCONV, NO_COLOR, base.trim(), "--"],
            )?;
            diff.push_str(&untracked_diff(workspace)?);
            non_empty(diff, target)
        }
        ReviewTarget::Commit(rev) => {
            let sha = resolve(workspace, rev)?;
            let diff = run_git(
                workspace,
                &[
                    "show",
                    NO_EXT,
                    NO_TEXTCONV,
                    NO_COLOR,
                    "--format=commit %H%n%n%B",
                    &sha,
                    "--",
                ],
            )?;
            // A commit that changes no file shows only its header.
            if !diff.contains("\ndiff --git ") {
                return Err(ReviewError::EmptyRange(target.to_string()));
            }
            Ok(diff)
        }
    }
}

const DIFF: &str = "diff";
const NO_EXT: &str = "--no-ext-diff";
const NO_TEXTCONV: &str = "--no-textconv";
const NO_COLOR: &str = "--no-color";

/// The full commit id `name` stands for, checked as a name first (no option, no range,
/// nothing git would read as anything but a revision).
fn resolve(workspace: &Path, name: &str) -> Result<String, ReviewError> {
    let bad = name.is_empty()
        || name.starts_with('-')
        || name.contains("..")
        || name
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == ':');
    if bad {
        return Err(ReviewError::BadRef(name.to_string()));
    }
    let spec = format!("{name}^{{commit}}");
    match run_git(
        workspace,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            &spec,
        ],
    ) {
        Ok(sha) if !sha.trim().is_empty() => Ok(sha.trim().to_string()),
        Ok(_) => Err(ReviewError::UnknownRef(name.to_string())),
        Err(ReviewError::Git(why)) if why == "git failed" => {
            Err(ReviewError::UnknownRef(name.to_string()))
        }
        Err(e) => Err(e),
    }
}

/// The output of Loom's hardened git with `args` in `workspace`, or its first error line.
fn run_git(workspace: &Path, args: &[&str]) -> Result<String, ReviewError> {
    if let Some(why) = crate::gitcmd::tampered(workspace) {
        return Err(ReviewError::Tampered(why));
    }
    let out = crate::gitcmd::git_in(workspace)
        .args(args)
        .output()
        .map_err(|e| ReviewError::Git(format!("git did not run: {e}")))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let first = stderr.lines().next().unwrap_or("git failed").trim();
        return Err(ReviewError::Git(first.to_string()));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `diff`, or why there is nothing to review in `target`.
fn non_empty(diff: String, target: &ReviewTarget) -> Result<String, ReviewError> {
    if diff.trim().is_empty() {
        return Err(ReviewError::EmptyRange(target.to_string()));
    }
    Ok(diff)
}

/// The uncommitted changes (staged and not) of tracked files in `workspace`, against
/// `HEAD`, as a unified diff without colour or external diff programs, followed by the
/// files git does not track yet and does not ignore (new work is often not added yet).
pub fn uncommitted_diff(workspace: &Path) -> Result<String, ReviewError> {
    let mut diff = run_git(
        workspace,
        &[DIFF, NO_EXT, NO_TEXTCONV, NO_COLOR, "HEAD", "--"],
    )
    .map_err(|e| match e {
        ReviewError::Git(why) if why.contains("'HEAD'") => ReviewError::NoCommit,
        other => other,
    })?;
    diff.push_str(&untracked_diff(workspace)?);
    if diff.trim().is_empty() {
        return Err(ReviewError::NothingToReview);
    }
    Ok(diff)
}

/// The most bytes of one untracked file shown whole; a larger one is named, not shown.
const MAX_UNTRACKED_FILE: u64 = 64 * 1024;

/// The files of `workspace` that git neither tracks nor ignores, each as a new file's
/// diff, until the diff passes [`MAX_DIFF_BYTES`]. They are read beneath the workspace
/// (no link followed); a link, a binary file or one over [`MAX_UNTRACKED_FILE`] is named
/// with why it is not shown.
fn untracked_diff(workspace: &Path) -> Result<String, ReviewError> {
    let listed = run_git(
        workspace,
        &["ls-files", "-z", "--others", "--exclude-standard", "--"],
    )?;
    let beneath = crate::base::beneath::Beneath::open(workspace)
        .map_err(|e| ReviewError::Git(format!("cannot open the workspace: {e}")))?;
    let prefix = run_git(workspace, &["rev-parse", "--show-prefix"])?;
    let mut out = String::new();
    for rel in listed.split('\0').filter(|p| !p.is_empty()) {
        if out.len() > MAX_DIFF_BYTES {
            out.push_str("(more untracked files not shown)\n");
            break;
        }
        let shown = format!("{}{rel}", prefix.trim());
        out.push_str(&new_file_diff(&beneath, Path::new(rel), &shown));
    }
    Ok(out)
}

/// The diff that adds the file `rel` (shown as `shown`), or a line naming it when its
/// text cannot be shown.
fn new_file_diff(beneath: &crate::base::beneath::Beneath, rel: &Path, shown: &str) -> String {
    let header = format!("diff --git a/{shown} b/{shown}\nnew file (untracked)\n");
    let text = match beneath.read_regular(rel, MAX_UNTRACKED_FILE) {
        Ok(Some((bytes, _))) if !bytes.contains(&0) => String::from_utf8(bytes).ok(),
        Ok(Some(_)) => return format!("{header}(binary file, not shown)\n"),
        Ok(None) => return String::new(),
        Err(e) => return format!("{header}(not shown: {e})\n"),
    };
    let Some(text) = text else {
        return format!("{header}(not UTF-8 text, not shown)\n");
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut out = format!(
        "{header}--- /dev/null\n+++ b/{shown}\n@@ -0,0 +1,{} @@\n",
        lines.len()
    );
    for line in lines {
        out.push('+');
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The message that asks the model to review `diff`: findings only, each on one line as
/// `path:line: severity: what is wrong and why`, most severe first.
pub fn prompt(diff: &str) -> String {
    prompt_for(&ReviewTarget::Uncommitted, diff, "")
}

/// [`prompt`] for the changes of `target`, with what the person asked to look at in
/// particular (`focus`, may be empty).
pub fn prompt_for(target: &ReviewTarget, diff: &str, focus: &str) -> String {
    let mut end = diff.len().min(MAX_DIFF_BYTES);
    while !diff.is_char_boundary(end) {
        end -= 1;
    }
    let (shown, cut) = (&diff[..end], end < diff.len());
    let mut text = format!(
        "[Loom] Review {target} below as a careful senior reviewer. You are in \
         read-only mode: read files for context if you need to, change nothing.\n\
         Report findings only (bugs, security problems, missing error handling, broken \
         tests, unclear code), most severe first, one per line in this form:\n\
         path:line: severity: what is wrong and why\n\
         where severity is critical, high, medium, low or info and line is a line of the new file. \
         If you find nothing worth changing, say \"no findings\".\n"
    );
    if !focus.trim().is_empty() {
        text.push_str(&format!("Pay particular attention to: {}\n", focus.trim()));
    }
    text.push_str("\n```diff\n");
    text.push_str(shown);
    if !shown.ends_with('\n') {
        text.push('\n');
    }
    text.push_str("```\n");
    if cut {
        text.push_str(&format!(
            "(the diff was cut at {MAX_DIFF_BYTES} bytes; review what is shown)\n"
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use std::process::Command;

    use super::*;

    fn git(dir: &Path, args: &[&str]) {
        let ok = Command::new("git")
            .current_dir(dir)
            .args(["-c", "user.name=t", "-c", "user.email=t@e"])
            .args(args)
            .output()
            .unwrap()
            .status
            .success();
        assert!(ok, "git {args:?}");
    }

    #[test]
    fn a_directory_outside_git_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let err = uncommitted_diff(dir.path()).unwrap_err();
        assert!(matches!(err, ReviewError::Git(_)), "{err:?}");
        assert!(err.to_string().contains("git repository"), "{err}");
    }

    #[test]
    fn a_repository_without_a_commit_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q"]);
        let err = uncommitted_diff(dir.path()).unwrap_err();
        assert_eq!(err, ReviewError::NoCommit);
        assert!(err.to_string().contains("no commit yet"), "{err}");
    }

    #[test]
    fn a_clean_repository_has_nothing_to_review_and_a_change_is_shown() {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q"]);
        std::fs::write(dir.path().join("a.rs"), "fn a() {}\n").unwrap();
        git(dir.path(), &["add", "a.rs"]);
        git(dir.path(), &["commit", "-q", "-m", "a"]);
        assert_eq!(
            uncommitted_diff(dir.path()),
            Err(ReviewError::NothingToReview)
        );
        std::fs::write(dir.path().join("a.rs"), "fn a() { panic!() }\n").unwrap();
        let diff = uncommitted_diff(dir.path()).unwrap();
        assert!(diff.contains("+fn a() { panic!() }"), "{diff}");
        let asked = prompt(&diff);
        assert!(asked.contains("path:line: severity:"), "{asked}");
        assert!(asked.contains("read-only mode"), "{asked}");
        assert!(asked.contains(&diff), "{asked}");
        assert!(!asked.contains("was cut"), "{asked}");
    }

    /// New files not yet added are part of the uncommitted changes: text shown whole,
    /// a binary file and a link named without their contents (the link's target, outside
    /// the workspace, is never read), an ignored file left out.
    #[test]
    fn untracked_files_are_reviewed_and_links_are_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q"]);
        std::fs::write(dir.path().join("a.rs"), "fn a() {}\n").unwrap();
        std::fs::write(dir.path().join(".gitignore"), "*.log\n").unwrap();
        git(dir.path(), &["add", "a.rs", ".gitignore"]);
        git(dir.path(), &["commit", "-q", "-m", "a"]);
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/new.rs"), "fn new() {\n    todo()\n}\n").unwrap();
        std::fs::write(dir.path().join("blob.bin"), b"\x00\x01\x02").unwrap();
        std::fs::write(dir.path().join("debug.log"), "ignored\n").unwrap();
        let secret = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(secret.path(), "SECRET-OUTSIDE\n").unwrap();
        std::os::unix::fs::symlink(secret.path(), dir.path().join("link.txt")).unwrap();
        let diff = uncommitted_diff(dir.path()).unwrap();
        assert!(
            diff.contains("+++ b/src/new.rs\n@@ -0,0 +1,3 @@\n+fn new() {\n+    todo()\n+}\n"),
            "{diff}"
        );
        assert!(
            diff.contains(
                "diff --git a/blob.bin b/blob.bin\nnew file (untracked)\n(binary file, not shown)"
            ),
            "{diff}"
        );
        assert!(diff.contains("a/link.txt"), "{diff}");
        assert!(!diff.contains("SECRET-OUTSIDE"), "{diff}");
        assert!(!diff.contains("debug.log"), "{diff}");
    }

    /// A repository with `main` at commit "a" and branch `topic` one commit further ("b"),
    /// checked out.
    fn two_branches() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q", "-b", "main"]);
        std::fs::write(dir.path().join("a.rs"), "fn a() {}\n").unwrap();
        git(dir.path(), &["add", "a.rs"]);
        git(dir.path(), &["commit", "-q", "-m", "a"]);
        git(dir.path(), &["checkout", "-q", "-b", "topic"]);
        std::fs::write(dir.path().join("b.rs"), "fn b() {}\n").unwrap();
        git(dir.path(), &["add", "b.rs"]);
        git(dir.path(), &["commit", "-q", "-m", "b"]);
        dir
    }

    #[test]
    fn a_base_branch_reviews_the_branch_and_the_working_tree_since_the_merge_base() {
        let dir = two_branches();
        // main moves on after topic left it: its change is not topic's to review.
        git(dir.path(), &["checkout", "-q", "main"]);
        std::fs::write(dir.path().join("m.rs"), "fn m() {}\n").unwrap();
        git(dir.path(), &["add", "m.rs"]);
        git(dir.path(), &["commit", "-q", "-m", "m"]);
        git(dir.path(), &["checkout", "-q", "topic"]);
        std::fs::write(dir.path().join("a.rs"), "fn a() { todo!() }\n").unwrap();
        let base = ReviewTarget::Base("main".into());
        let diff = diff_for(dir.path(), &base).unwrap();
        assert!(diff.contains("+fn b() {}"), "the branch's commit: {diff}");
        assert!(
            diff.contains("+fn a() { todo!() }"),
            "the working tree: {diff}"
        );
        assert!(
            !diff.contains("m.rs"),
            "main's own change is left out: {diff}"
        );
        git(dir.path(), &["checkout", "-q", "--", "a.rs"]);
        git(dir.path(), &["checkout", "-q", "main"]);
        std::fs::remove_file(dir.path().join("b.rs")).ok();
        assert!(matches!(
            diff_for(dir.path(), &base),
            Err(ReviewError::EmptyRange(_))
        ));
    }

    #[test]
    fn a_commit_reviews_its_own_change_and_a_root_commit_works() {
        let dir = two_branches();
        let diff = diff_for(dir.path(), &ReviewTarget::Commit("HEAD".into())).unwrap();
        assert!(
            diff.contains("+fn b() {}") && !diff.contains("a.rs"),
            "{diff}"
        );
        let root = diff_for(dir.path(), &ReviewTarget::Commit("main".into())).unwrap();
        assert!(
            root.contains("+fn a() {}") && root.contains("\n\na\n"),
            "{root}"
        );
        let parent = diff_for(dir.path(), &ReviewTarget::Commit("HEAD~1".into())).unwrap();
        assert_eq!(parent, root);
        git(
            dir.path(),
            &["commit", "-q", "--allow-empty", "-m", "empty"],
        );
        assert!(matches!(
            diff_for(dir.path(), &ReviewTarget::Commit("HEAD".into())),
            Err(ReviewError::EmptyRange(_))
        ));
    }

    #[test]
    fn option_like_and_unknown_names_are_refused_before_git_reads_them() {
        let dir = two_branches();
        for name in [
            "--output=/tmp/x",
            "-p",
            "",
            "main..topic",
            "HEAD:a.rs",
            "a b",
        ] {
            for target in [
                ReviewTarget::Commit(name.into()),
                ReviewTarget::Base(name.into()),
            ] {
                let err = diff_for(dir.path(), &target).unwrap_err();
                assert_eq!(err, ReviewError::BadRef(name.into()), "{target:?}");
            }
        }
        let err = diff_for(dir.path(), &ReviewTarget::Commit("nope".into())).unwrap_err();
        assert_eq!(err, ReviewError::UnknownRef("nope".into()));
        assert!(
            err.to_string().contains("no commit or branch named"),
            "{err}"
        );
        let outside = tempfile::tempdir().unwrap();
        let err = diff_for(outside.path(), &ReviewTarget::Base("main".into())).unwrap_err();
        assert!(matches!(err, ReviewError::Git(_)), "{err:?}");
    }

    #[test]
    fn a_textconv_driver_planted_in_the_repository_does_not_run() {
        let dir = two_branches();
        let marker = dir.path().join("ran");
        let config = format!("diff.x.textconv=sh -c 'touch {}; cat' --", marker.display());
        git(
            dir.path(),
            &[
                "config",
                "diff.x.textconv",
                config.split_once('=').unwrap().1,
            ],
        );
        std::fs::write(dir.path().join(".gitattributes"), "*.rs diff=x\n").unwrap();
        std::fs::write(dir.path().join("b.rs"), "fn b() { 1 }\n").unwrap();
        diff_for(dir.path(), &ReviewTarget::Uncommitted).unwrap();
        diff_for(dir.path(), &ReviewTarget::Commit("HEAD".into())).unwrap();
        diff_for(dir.path(), &ReviewTarget::Base("main".into())).unwrap();
        assert!(!marker.exists(), "the textconv program ran");
    }

    #[test]
    fn a_diff_over_the_limit_is_cut_on_a_char_boundary_and_said_so() {
        // Byte MAX_DIFF_BYTES falls inside an "é": slicing there would panic.
        let diff = format!("a{}", "é".repeat(MAX_DIFF_BYTES));
        let asked = prompt(&diff);
        assert!(asked.contains("the diff was cut at"), "cut is said");
        assert!(asked.len() < MAX_DIFF_BYTES + 2_000, "{}", asked.len());
    }
}
