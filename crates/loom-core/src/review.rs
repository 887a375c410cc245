//! The groundwork of `/review` (issue 28): the uncommitted changes of a workspace as git
//! shows them, and the prompt that asks the model for findings on them, each with its
//! `file:line` and severity. Nothing calls it yet: the command that runs a read-only turn
//! with this prompt is still to be built.

use std::path::Path;

use thiserror::Error;

/// The most bytes of diff the prompt carries; a longer diff is cut, and the prompt says so.
pub const MAX_DIFF_BYTES: usize = 200 * 1024;

/// Why there is nothing to review.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum ReviewError {
    /// The workspace is not in a git repository (or git could not run).
    #[error("cannot review: {0}; /review looks at the uncommitted changes of a git repository")]
    Git(String),
    /// The repository looks tampered with, so Loom runs no git in it.
    #[error("cannot review: {0}")]
    Tampered(String),
    /// No tracked file differs from the last commit.
    #[error("nothing to review: no tracked file differs from HEAD (git add new files first)")]
    NothingToReview,
}

/// The uncommitted changes (staged and not) of tracked files in `workspace`, against
/// `HEAD`, as a unified diff without colour or external diff programs.
pub fn uncommitted_diff(workspace: &Path) -> Result<String, ReviewError> {
    if let Some(why) = crate::gitcmd::tampered(workspace) {
        return Err(ReviewError::Tampered(why));
    }
    let out = crate::gitcmd::git()
        .current_dir(workspace)
        .args(["diff", "--no-ext-diff", "--no-color", "HEAD", "--"])
        .output()
        .map_err(|e| ReviewError::Git(format!("git did not run: {e}")))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let first = stderr.lines().next().unwrap_or("git diff failed").trim();
        return Err(ReviewError::Git(first.to_string()));
    }
    let diff = String::from_utf8_lossy(&out.stdout).into_owned();
    if diff.trim().is_empty() {
        return Err(ReviewError::NothingToReview);
    }
    Ok(diff)
}

/// The message that asks the model to review `diff`: findings only, each on one line as
/// `path:line: severity: what is wrong and why`, most severe first.
pub fn prompt(diff: &str) -> String {
    let mut end = diff.len().min(MAX_DIFF_BYTES);
    while !diff.is_char_boundary(end) {
        end -= 1;
    }
    let (shown, cut) = (&diff[..end], end < diff.len());
    let mut text = String::from(
        "Review the uncommitted changes below as a careful senior reviewer. You are in \
         read-only mode: read files for context if you need to, change nothing.\n\
         Report findings only (bugs, security problems, missing error handling, broken \
         tests, unclear code), most severe first, one per line in this form:\n\
         path:line: severity: what is wrong and why\n\
         where severity is high, medium or low and line is a line of the new file. \
         If you find nothing worth changing, say \"no findings\".\n\n```diff\n",
    );
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
        assert!(matches!(err, ReviewError::Git(_)), "{err:?}");
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

    #[test]
    fn a_diff_over_the_limit_is_cut_on_a_char_boundary_and_said_so() {
        // Byte MAX_DIFF_BYTES falls inside an "é": slicing there would panic.
        let diff = format!("a{}", "é".repeat(MAX_DIFF_BYTES));
        let asked = prompt(&diff);
        assert!(asked.contains("the diff was cut at"), "cut is said");
        assert!(asked.len() < MAX_DIFF_BYTES + 2_000, "{}", asked.len());
    }
}
