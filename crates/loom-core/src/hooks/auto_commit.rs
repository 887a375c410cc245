//! Auto-commit: after a batch that changed files, commit exactly the files Loom's tools
//! changed — never the person's unrelated edits or what they staged themselves.
//!
//! Uses `git commit --only -- PATHS`, which commits those paths and leaves the rest of the
//! index as it was. Repository hooks are skipped (`--no-verify`, and `core.hooksPath` is
//! `/dev/null`) so neither a slow hook nor one a command planted runs; git itself is run
//! hardened ([`crate::gitcmd`]). Failures are reported, never fatal.

use std::path::Path;

use async_trait::async_trait;

use super::{HookOutcome, PostToolsHook};
use crate::tools::ToolContext;

/// The auto-commit hook.
pub struct AutoCommit;

fn git(root: &Path, args: &[&str]) -> Result<String, String> {
    let out = crate::gitcmd::git_in(root)
        .args(args)
        .output()
        .map_err(|e| format!("git: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

/// A one-line conventional message from what happened to each path.
pub fn message(changes: &[(char, String)]) -> String {
    let describe = |(status, path): &(char, String)| {
        let verb = match status {
            'A' | '?' => "add",
            'D' => "remove",
            _ => "update",
        };
        format!("{verb} {path}")
    };
    let full = format!(
        "chore(loom): {}",
        changes.iter().map(describe).collect::<Vec<_>>().join(", ")
    );
    if full.chars().count() <= 72 {
        return full;
    }
    let first = changes.first().map(describe).unwrap_or_default();
    format!(
        "chore(loom): {first} and {} more file(s)",
        changes.len() - 1
    )
}

fn commit(root: &Path, files: &[String]) -> Result<String, String> {
    if let Some(why) = crate::gitcmd::tampered(root) {
        return Err(format!("not committing: {why}"));
    }
    if git(root, &["rev-parse", "--is-inside-work-tree"]).is_err() {
        return Ok("not a git repository; nothing committed".into());
    }
    let mut changes = Vec::new();
    for f in files {
        if git(root, &["check-ignore", "-q", "--", f]).is_ok() {
            continue;
        }
        let status = git(root, &["status", "--porcelain", "--", f])?;
        if let Some(line) = status.lines().next() {
            let code = line.chars().take(2).find(|c| *c != ' ').unwrap_or('M');
            changes.push((code, f.clone()));
        }
    }
    if changes.is_empty() {
        return Ok("nothing to commit".into());
    }
    let paths: Vec<&str> = changes.iter().map(|(_, p)| p.as_str()).collect();
    let mut add = vec!["add", "-A", "--"];
    add.extend(&paths);
    git(root, &add)?;
    let msg = message(&changes);
    let mut args = vec![
        "commit",
        "--no-verify",
        "--quiet",
        "-m",
        &msg,
        "--only",
        "--",
    ];
    args.extend(&paths);
    if let Err(e) = git(root, &args) {
        if !e.contains("user.email") && !e.contains("identity") {
            return Err(e);
        }
        let mut with_id = vec!["-c", "user.name=Loom", "-c", "user.email=loom@localhost"];
        with_id.extend(&args);
        git(root, &with_id)?;
    }
    let hash = git(root, &["rev-parse", "--short", "HEAD"]).unwrap_or_default();
    Ok(format!("committed {}: {msg}", hash.trim()))
}

#[async_trait]
impl PostToolsHook for AutoCommit {
    fn name(&self) -> String {
        "auto-commit".into()
    }

    fn is_auto_commit(&self) -> bool {
        true
    }

    async fn run(&self, files: &[String], ctx: &ToolContext) -> HookOutcome {
        let Some(root) = ctx.workspace.as_ref().map(|c| c.root().to_path_buf()) else {
            return HookOutcome {
                success: true,
                output: "no workspace; nothing committed".into(),
                message_for_model: None,
            };
        };
        let files = files.to_vec();
        let result = tokio::task::spawn_blocking(move || commit(&root, &files))
            .await
            .unwrap_or_else(|e| Err(e.to_string()));
        match result {
            Ok(output) => HookOutcome {
                success: true,
                output,
                message_for_model: None,
            },
            Err(e) => HookOutcome {
                success: false,
                output: format!("auto-commit failed: {e}"),
                message_for_model: None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_short_and_conventional() {
        assert_eq!(
            message(&[('M', "src/a.rs".into()), ('A', "b.rs".into())]),
            "chore(loom): update src/a.rs, add b.rs"
        );
        let many: Vec<(char, String)> =
            (0..20).map(|i| ('M', format!("src/file_{i}.rs"))).collect();
        let m = message(&many);
        assert_eq!(m, "chore(loom): update src/file_0.rs and 19 more file(s)");
    }
}
