//! Which repository git uses, and whose configuration that is.
//!
//! git reads the configuration of the repository it finds from its working directory,
//! and even "reading" commands run programs named there: `git status` and `git diff` run
//! `core.fsmonitor`, `git show` and `git log -p` run `diff.*.textconv` drivers. The
//! workspace's own repository is the person's; but a repository nested inside the
//! workspace (an untracked checkout, a vendored tree, a bare `x.git` directory committed
//! to the project) comes with whatever configuration it was given, so `git -C nested
//! status` in read-only mode ran its `core.fsmonitor`. Git run inside such a repository,
//! or in a directory only known at run time, asks.

use std::path::Path;

use super::super::Risk;
use super::super::place::normalize;
use super::{Judgement, State, judge};

/// The verdict on running git in `dir` (absolute): medium when git would find a
/// repository nested inside the workspace, or when the directory is only known at run
/// time; read-only otherwise (a directory outside the workspace is judged elsewhere).
pub(super) fn repository_in(dir: &Path, state: &State) -> Judgement {
    if state.cwd_unknown {
        return judge(
            Risk::Medium,
            "git runs in a directory only known at run time, which may hold a repository \
             whose configuration (core.fsmonitor, textconv drivers) runs programs",
        )
        .ungrantable();
    }
    let workspace = &state.ctx.workspace;
    let dir = normalize(dir);
    if !dir.starts_with(workspace) {
        return judge(Risk::ReadOnly, "outside the workspace");
    }
    for at in dir.ancestors() {
        if at == workspace.as_path() {
            break;
        }
        let bare =
            at.join("HEAD").is_file() && at.join("objects").is_dir() && at.join("refs").is_dir();
        if at.join(".git").exists() || bare {
            return judge(
                Risk::Medium,
                format!(
                    "git runs in {}, a repository nested in the workspace whose configuration \
                     (core.fsmonitor, textconv drivers) can run programs",
                    at.display()
                ),
            )
            .ungrantable();
        }
    }
    judge(Risk::ReadOnly, "the workspace's own repository")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CommandContext;

    /// Round 2: `git -C nested status` ran the nested repository's `core.fsmonitor` in
    /// read-only mode.
    #[test]
    fn nested_and_bare_repositories_in_the_workspace_ask() {
        let dir = tempfile::tempdir().unwrap();
        let ws = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(ws.join(".git")).unwrap();
        std::fs::create_dir_all(ws.join("src/deep")).unwrap();
        std::fs::create_dir_all(ws.join("vendor/lib/.git")).unwrap();
        std::fs::create_dir_all(ws.join("x.git/objects")).unwrap();
        std::fs::create_dir_all(ws.join("x.git/refs")).unwrap();
        std::fs::write(ws.join("x.git/HEAD"), "ref: refs/heads/main\n").unwrap();
        let state = State::new(CommandContext {
            workspace: ws.clone(),
            cwd: ws.clone(),
            home: None,
            protected: Vec::new(),
        });
        let level = |d: &str| repository_in(&ws.join(d), &state).level;
        assert_eq!(level(""), Risk::ReadOnly);
        assert_eq!(level("src/deep"), Risk::ReadOnly);
        assert_eq!(level("vendor/lib"), Risk::Medium);
        assert_eq!(level("vendor/lib/src"), Risk::Medium);
        assert_eq!(level("x.git"), Risk::Medium);
    }
}
