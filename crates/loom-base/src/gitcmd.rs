//! Git as Loom itself runs it (workspace snapshots, auto-commit): never a way for the
//! repository to run code outside the sandbox.
//!
//! A command Loom approved (or the repository as it was cloned) may have planted programs
//! in a repository's configuration; Loom's own git runs unsandboxed, so every git process
//! it starts gets `-c core.fsmonitor=false -c core.hooksPath=/dev/null -c core.pager=cat`,
//! no signature checks (`log.showSignature=false`: `gpg.program`), submodules left alone
//! (`diff.ignoreSubmodules=all`, `diff.submodule=short`: a submodule's own configuration
//! would run its diff programs), no lazy fetch of a partial clone's missing objects
//! (`GIT_NO_LAZY_FETCH=1`: the promisor remote's transport can be a command), no system
//! configuration (`GIT_CONFIG_NOSYSTEM=1`), and a minimal environment (no API keys for
//! whatever git might still start). [`git_in`] also switches off the filter drivers the
//! repository names (a `clean` filter runs on every file a diff or `add` reads), and
//! [`tampered`] refuses a repository whose work tree is elsewhere (`core.worktree`).
//! A leaf module: any layer may use it.

use std::path::Path;
use std::process::Command;

/// Variables git may need: where to find programs, the user's identity and locale.
const PASSED: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TZ",
    "TMPDIR",
    "XDG_CONFIG_HOME",
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
];

/// A `git` command hardened as described above; the caller adds the subcommand.
pub fn git() -> Command {
    let mut cmd = Command::new("git");
    cmd.env_clear();
    for name in PASSED {
        if let Some(v) = std::env::var_os(name) {
            cmd.env(name, v);
        }
    }
    cmd.env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_NO_LAZY_FETCH", "1")
        .args([
            "-c",
            "core.fsmonitor=false",
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "core.pager=cat",
            "-c",
            "core.untrackedCache=false",
            "-c",
            "log.showSignature=false",
            "-c",
            "diff.ignoreSubmodules=all",
            "-c",
            "diff.submodule=short",
        ]);
    cmd
}

/// [`git`] run in the repository at `root`, with every filter driver its configuration
/// names switched off (`clean`, `smudge` and `process` empty, `required` false). The
/// settings go in as `GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n` pairs, so a driver's name
/// is never parsed out of a `name=value` argument.
pub fn git_in(root: &Path) -> Command {
    let mut cmd = git();
    cmd.current_dir(root);
    let mut n = 0;
    for name in filter_names(root) {
        for (key, value) in [
            ("clean", ""),
            ("smudge", ""),
            ("process", ""),
            ("required", "false"),
        ] {
            cmd.env(
                format!("GIT_CONFIG_KEY_{n}"),
                format!("filter.{name}.{key}"),
            )
            .env(format!("GIT_CONFIG_VALUE_{n}"), value);
            n += 1;
        }
    }
    if n > 0 {
        cmd.env("GIT_CONFIG_COUNT", n.to_string());
    }
    cmd
}

/// The filter drivers (`filter.NAME.*`) the configuration seen in `root` names.
fn filter_names(root: &Path) -> Vec<String> {
    let Ok(out) = git()
        .current_dir(root)
        .args([
            "config",
            "--null",
            "--name-only",
            "--get-regexp",
            r"^filter\.",
        ])
        .output()
    else {
        return Vec::new();
    };
    let mut names: Vec<String> = out
        .stdout
        .split(|b| *b == 0)
        .filter_map(|key| {
            let key = String::from_utf8_lossy(key);
            let rest = key.strip_prefix("filter.")?;
            let (name, _) = rest.rsplit_once('.')?;
            Some(name.to_string())
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Why the repository at `root` must not be trusted to run git in, if it looks tampered
/// with: a `.git/commondir` in a main repository points git at another directory's
/// configuration (and the programs it names).
pub fn tampered(root: &Path) -> Option<String> {
    let git_dir = root.join(".git");
    if git_dir.is_dir() && git_dir.join("commondir").exists() {
        return Some(format!(
            "{} exists, which makes git read its configuration from elsewhere; remove it if \
             you did not create it",
            git_dir.join("commondir").display()
        ));
    }
    let worktree = git()
        .current_dir(root)
        .args(["config", "--get", "core.worktree"])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .filter(|w| !w.is_empty())?;
    Some(format!(
        "the repository's core.worktree is {worktree:?}: its work tree is elsewhere, so git \
         would read and show files outside this workspace; unset it if you did not set it"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loom_git_sees_no_secrets_and_neutralises_planted_programs() {
        // SAFETY: tests in this process do not read this variable concurrently.
        unsafe { std::env::set_var("LOOM_GITCMD_TEST_TOKEN", "sk-secret") };
        let cmd = git();
        let envs: Vec<String> = cmd
            .get_envs()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect();
        assert!(!envs.iter().any(|k| k.contains("TOKEN")), "{envs:?}");
        let args: Vec<String> = cmd
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert!(args.contains(&"core.fsmonitor=false".to_string()));
        assert!(args.contains(&"core.hooksPath=/dev/null".to_string()));
    }

    fn run(root: &Path, args: &[&str]) {
        let ok = Command::new("git")
            .current_dir(root)
            .args(["-c", "user.name=t", "-c", "user.email=t@e"])
            .args(args)
            .output()
            .unwrap()
            .status
            .success();
        assert!(ok, "git {args:?}");
    }

    /// A repository with one committed file, `a.txt`, changed since.
    fn repository() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        run(dir.path(), &["init", "-q"]);
        std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
        run(dir.path(), &["add", "a.txt"]);
        run(dir.path(), &["commit", "-q", "-m", "a"]);
        std::fs::write(dir.path().join("a.txt"), "two\n").unwrap();
        dir
    }

    /// Regression (review of issue 28's /review): a `clean` or `process` filter planted in
    /// the repository's configuration ran (unsandboxed) on every file `git diff` read,
    /// including a driver whose name holds `=` and dots.
    #[test]
    fn planted_filter_drivers_do_not_run() {
        let dir = repository();
        let marker = dir.path().join("ran");
        let evil = format!("sh -c 'touch {}; cat'", marker.display());
        for name in ["x", "a=b.c"] {
            for key in ["clean", "process"] {
                run(
                    dir.path(),
                    &["config", &format!("filter.{name}.{key}"), &evil],
                );
            }
        }
        std::fs::write(
            dir.path().join(".gitattributes"),
            "a.txt filter=a=b.c\n* filter=x\n",
        )
        .unwrap();
        let out = git_in(dir.path())
            .args(["diff", "HEAD", "--"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("+two"));
        assert!(!marker.exists(), "a planted filter ran");
    }

    /// Regression (same review): `core.worktree` pointed git at another directory, whose
    /// files a diff would show; such a repository is refused.
    #[test]
    fn a_work_tree_elsewhere_is_refused() {
        let dir = repository();
        assert_eq!(tampered(dir.path()), None);
        run(dir.path(), &["config", "core.worktree", "/"]);
        let why = tampered(dir.path()).expect("refused");
        assert!(why.contains("core.worktree"), "{why}");
    }

    /// Regression (same review): the hardening that needs no repository in view: no
    /// signature program, no submodule diff programs, no lazy fetch.
    #[test]
    fn signatures_submodules_and_lazy_fetches_are_switched_off() {
        let cmd = git();
        let args: Vec<String> = cmd
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        for set in [
            "log.showSignature=false",
            "diff.ignoreSubmodules=all",
            "diff.submodule=short",
        ] {
            assert!(args.contains(&set.to_string()), "{set}: {args:?}");
        }
        assert!(
            cmd.get_envs()
                .any(|(k, v)| k == "GIT_NO_LAZY_FETCH" && v == Some("1".as_ref()))
        );
    }
}
