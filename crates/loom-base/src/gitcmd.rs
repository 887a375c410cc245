//! Git as Loom itself runs it (workspace snapshots, auto-commit): never a way for the
//! repository to run code outside the sandbox.
//!
//! A command Loom approved may have planted `core.fsmonitor`, `core.hooksPath` or a pager
//! in a repository's configuration; Loom's own git runs unsandboxed, so every git process
//! it starts gets `-c core.fsmonitor=false -c core.hooksPath=/dev/null -c core.pager=cat`,
//! no system configuration (`GIT_CONFIG_NOSYSTEM=1`), and a minimal environment (no API
//! keys for whatever git might still start). A leaf module: any layer may use it.

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
        .args([
            "-c",
            "core.fsmonitor=false",
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "core.pager=cat",
            "-c",
            "core.untrackedCache=false",
        ]);
    cmd
}

/// Why the repository at `root` must not be trusted to run git in, if it looks tampered
/// with: a `.git/commondir` in a main repository points git at another directory's
/// configuration (and the programs it names).
pub fn tampered(root: &Path) -> Option<String> {
    let git_dir = root.join(".git");
    (git_dir.is_dir() && git_dir.join("commondir").exists()).then(|| {
        format!(
            "{} exists, which makes git read its configuration from elsewhere; remove it if \
             you did not create it",
            git_dir.join("commondir").display()
        )
    })
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
}
