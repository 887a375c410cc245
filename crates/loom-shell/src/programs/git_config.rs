//! `git config` and `git -c`: a configuration key that names a program or code for git
//! to run (`core.pager`, `core.fsmonitor`, `core.hooksPath`, `alias.*`, filters,
//! `*.editor`, credential helpers, includes) makes setting it high; keys that only change
//! output are harmless; the rest ask.

use super::super::Risk;
use super::super::parse::Word;
use super::{Judgement, State, judge, nested, reads, writes_at};

/// What setting `key` to `value` makes git write: the `trace2.*Target` keys append git's
/// trace to the file their value names (an absolute path; other values mean standard
/// error, a file descriptor or a socket), so that file is judged as a write.
pub(super) fn config_writes(key: &str, value: &str, state: &State) -> Option<Judgement> {
    let k = key.to_ascii_lowercase();
    if !(k.starts_with("trace2.") && k.ends_with("target")) {
        return None;
    }
    let path = value.trim();
    (path.starts_with('/') || path.starts_with('~')).then(|| {
        writes_at(
            &Word::literal(path),
            state,
            &format!("{key} writes git's trace to"),
        )
    })
}

/// What setting `key` to `value` makes git run, judged as the shell command it is: an
/// alias starting with `!` and the program keys (`core.pager`, `core.sshCommand`, …) run
/// their value through the shell. (The key's own risk is judged by [`config_key`].)
pub(super) fn config_payload(key: &str, value: &str, state: &State, depth: usize) -> Judgement {
    let k = key.to_ascii_lowercase();
    let code = if k.starts_with("alias.") {
        match value.trim_start().strip_prefix('!') {
            Some(shell) => shell.to_string(),
            None => format!("git {value}"),
        }
    } else {
        value.to_string()
    };
    if code.trim().is_empty() {
        return judge(Risk::ReadOnly, "an empty setting");
    }
    nested(&code, state, depth, &format!("the git setting {key}"))
}

/// Why setting the git configuration key `key` is risky, and how much.
#[rustfmt::skip]
pub(super) fn config_key(key: &str) -> (Risk, String) {
    let k = key.to_ascii_lowercase();
    const RUNS_SUFFIX: &[&str] = &[
        ".editor", ".pager", ".program", ".cmd", ".command", ".helper", ".textconv", ".driver",
        ".clean", ".smudge", ".process", ".sshcommand", ".hookspath", ".fsmonitor", ".askpass",
        ".gitproxy", ".path", "receivepack", "uploadpack", "packobjectshook", ".external",
        ".viewer", ".browser", ".insteadof", ".pushinsteadof", ".update", "difffilter", ".proxy",
        ".worktree", ".alternaterefscommand", ".attributesfile", ".excludesfile", ".templatedir",
        ".tunnel", ".vcs", ".httpd", ".template", ".smtpserver", ".tocmd", ".cccmd",
    ];
    const RUNS_PREFIX: &[&str] = &[
        "alias.", "include", "pager.", "filter.", "credential", "gpg", "sequence.", "difftool.",
        "mergetool.", "sendemail.", "ssh.", "protocol.", "uploadpack.", "receive.", "hook.",
        "core.sshcommand", "core.hookspath", "core.fsmonitor",
    ];
    if RUNS_SUFFIX.iter().any(|s| k.ends_with(s)) || RUNS_PREFIX.iter().any(|p| k.starts_with(p)) {
        return (
            Risk::High,
            format!("the git setting {key} names a program or code git will run"),
        );
    }
    const HARMLESS_PREFIX: &[&str] = &[
        "color.", "advice.", "user.", "log.", "column.", "status.", "format.pretty", "init.",
        "pull.", "push.default", "merge.conflictstyle", "rebase.autostash", "rebase.autosquash",
        "core.quotepath", "core.abbrev", "core.autocrlf", "core.eol", "core.filemode",
        "core.ignorecase", "diff.renames", "diff.noprefix", "diff.algorithm", "diff.context",
        "diff.colormoved", "branch.sort", "tag.sort", "fetch.prune", "blame.", "grep.",
        "safe.directory", "commit.verbose", "help.autocorrect", "i18n.", "gui.",
    ];
    if HARMLESS_PREFIX.iter().any(|p| k.starts_with(p)) {
        return (
            Risk::ReadOnly,
            format!("the git setting {key} only changes output"),
        );
    }
    (
        Risk::Medium,
        format!("the git setting {key} is not one Loom knows to be harmless"),
    )
}

/// `git config`: reads are read-only; writes are medium, high for keys that run programs
/// and for the user's or system's configuration.
pub(super) fn config(rest: &[Word], state: &State, depth: usize) -> Judgement {
    let opts = match config_options(rest) {
        Ok(opts) => opts,
        Err(j) => return j,
    };
    let operands = &opts.operands;
    let new_syntax = operands.first().map(|w| w.text.as_str());
    let mut setting: Option<&Word> = None;
    let (write, key) = match new_syntax {
        Some("get" | "list") => (false, None),
        Some("set") => {
            setting = operands.get(2).copied();
            (true, operands.get(1).map(|w| w.text.clone()))
        }
        Some("unset" | "rename-section" | "remove-section") => {
            (true, operands.get(1).map(|w| w.text.clone()))
        }
        Some("edit") => return judge(Risk::High, "git config edit runs an editor"),
        _ => {
            setting = operands.get(1).copied();
            (
                opts.write || operands.len() >= 2,
                operands.first().map(|w| w.text.clone()),
            )
        }
    };
    if !write {
        return match &opts.file {
            Some(f) => reads(f, state),
            None => judge(Risk::ReadOnly, "reads git configuration"),
        };
    }
    config_write(&key.unwrap_or_default(), setting, &opts, state, depth)
}

/// What `git config`'s options say.
struct ConfigOptions<'a> {
    /// `--global` or `--system`: the configuration outside the workspace.
    global: bool,
    /// An option that writes (`--add`, `--unset`, ...).
    write: bool,
    /// The file named by `-f`/`--file`.
    file: Option<Word>,
    /// The words that are not options.
    operands: Vec<&'a Word>,
}

/// Read `git config`'s options; `Err` with the verdict for `--edit`.
fn config_options(rest: &[Word]) -> Result<ConfigOptions<'_>, Judgement> {
    let mut opts = ConfigOptions {
        global: false,
        write: false,
        file: None,
        operands: Vec::new(),
    };
    let mut i = 0;
    while i < rest.len() {
        let t = rest[i].text.as_str();
        match t {
            "--global" | "--system" => opts.global = true,
            "-f" | "--file" => {
                opts.file = rest.get(i + 1).cloned();
                i += 1;
            }
            "--add" | "--unset" | "--unset-all" | "--replace-all" | "--rename-section"
            | "--remove-section" => opts.write = true,
            "-e" | "--edit" => {
                return Err(judge(Risk::High, "git config --edit runs an editor"));
            }
            "--blob" | "--type" | "--default" | "--comment" => i += 1,
            _ if t.starts_with("--file=") => opts.file = Some(Word::literal(&t[7..])),
            _ if t.starts_with('-') => {}
            _ => opts.operands.push(&rest[i]),
        }
        i += 1;
    }
    Ok(opts)
}

/// A `git config` write of `key` (to `setting`, when one is given): judged by the key,
/// the value, and where the configuration lives.
fn config_write(
    key: &str,
    setting: Option<&Word>,
    opts: &ConfigOptions<'_>,
    state: &State,
    depth: usize,
) -> Judgement {
    let (level, reason) = config_key(key);
    let mut j =
        judge(Risk::Medium, "changes the repository's git configuration").at_least(level, reason);
    if let Some(value) = setting
        && !value.dynamic
        && let Some(write) = config_writes(key, &value.text, state)
    {
        j = j.worst(write);
    }
    if level == Risk::High
        && let Some(value) = setting
    {
        j = j.worst(if value.dynamic {
            judge(
                Risk::High,
                format!("sets {key} to a value only known at run time"),
            )
        } else {
            config_payload(key, &value.text, state, depth)
        });
    }
    if opts.global {
        j = j.at_least(
            Risk::High,
            "changes git configuration outside the workspace",
        );
    }
    if let Some(f) = &opts.file {
        j = j.worst(writes_at(f, state, "writes"));
    }
    j
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn program_keys_are_high_and_output_keys_harmless() {
        for key in [
            "core.pager",
            "core.fsmonitor",
            "core.hooksPath",
            "core.sshCommand",
            "alias.co",
            "diff.external",
            "diff.x.textconv",
            "filter.lfs.clean",
            "credential.helper",
            "gpg.program",
            "include.path",
            "includeIf.gitdir:x.path",
            "sequence.editor",
            "pager.log",
            "url.x.insteadOf",
            "imap.tunnel",
            "remote.origin.vcs",
            "instaweb.httpd",
            "commit.template",
            "sendemail.toCmd",
        ] {
            assert_eq!(config_key(key).0, Risk::High, "{key}");
        }
        for key in ["color.ui", "user.name", "log.date", "core.quotePath"] {
            assert_eq!(config_key(key).0, Risk::ReadOnly, "{key}");
        }
        assert_eq!(config_key("something.new").0, Risk::Medium);
    }
}
