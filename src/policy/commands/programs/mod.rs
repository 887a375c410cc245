//! What each program does: the rule table behind [`super::classify`].
//!
//! One function per family of programs, each returning a [`Judgement`]. Wrappers (`sudo`,
//! `env`, `timeout`, `xargs`, ...) are peeled off first; `sh -c` and `eval` strings are
//! classified recursively. Paths are judged with [`super::place`] against the workspace,
//! following `cd` through the command line.

mod dev;
mod files;
mod tables;

use dev::{
    build_tool, cargo, git, go, interpreter, js_packages, lang_packages, shell, system_packages,
};
use files::{awk, dd, find, perms, rm, sed, tar, writes};
use tables::*;

use super::parse::{SimpleCommand, Word};
use super::{CommandContext, Place, Risk, Segment, basename, classify_nested, display, place};

/// Classification state carried across the segments of one command line.
pub struct State {
    pub(super) ctx: CommandContext,
    pub(super) cwd_unknown: bool,
}

impl State {
    /// Start at the context's working directory.
    pub fn new(ctx: CommandContext) -> State {
        State {
            ctx,
            cwd_unknown: false,
        }
    }

    pub(super) fn place(&self, word: &Word) -> Place {
        if self.cwd_unknown
            && !word.text.starts_with('/')
            && !word.text.starts_with('~')
            && !word.text.starts_with('$')
        {
            return Place::Unknown;
        }
        place(word, &self.ctx)
    }
}

/// The verdict on one program invocation.
#[derive(Debug, Clone)]
pub(super) struct Judgement {
    pub(super) level: Risk,
    pub(super) reason: String,
    pub(super) prefix: Vec<String>,
    pub(super) argv: Vec<String>,
    pub(super) network: bool,
    pub(super) nested: Vec<Segment>,
}

pub(super) fn judge(level: Risk, reason: impl Into<String>) -> Judgement {
    Judgement {
        level,
        reason: reason.into(),
        prefix: Vec::new(),
        argv: Vec::new(),
        network: false,
        nested: Vec::new(),
    }
}

impl Judgement {
    pub(super) fn net(mut self) -> Judgement {
        self.network = true;
        self
    }
    /// Raise to `other` if it is worse.
    pub(super) fn worst(self, other: Judgement) -> Judgement {
        if other.level > self.level {
            Judgement {
                prefix: if other.prefix.is_empty() {
                    self.prefix.clone()
                } else {
                    other.prefix.clone()
                },
                argv: if other.argv.is_empty() {
                    self.argv.clone()
                } else {
                    other.argv.clone()
                },
                network: self.network || other.network,
                nested: [self.nested, other.nested].concat(),
                ..other
            }
        } else {
            Judgement {
                prefix: if self.prefix.is_empty() {
                    other.prefix
                } else {
                    self.prefix
                },
                argv: if self.argv.is_empty() {
                    other.argv
                } else {
                    self.argv
                },
                network: self.network || other.network,
                nested: [self.nested, other.nested].concat(),
                ..self
            }
        }
    }
}

/// Classify one simple command into one or more segments.
pub fn classify_command(cmd: &SimpleCommand, state: &mut State, depth: usize) -> Vec<Segment> {
    let shown = display(cmd);
    let redirect = redirects(cmd, state);
    let j = if cmd.words.is_empty() {
        judge(Risk::ReadOnly, "only sets variables or redirects")
    } else {
        program(&cmd.words, state, depth, false)
    };
    let grantable = redirect.level <= j.level;
    let j = j.worst(redirect);
    let mut out = vec![Segment {
        command: shown,
        level: j.level,
        reason: j.reason,
        prefix: j.prefix,
        network: j.network,
        argv: j.argv,
        grantable,
    }];
    out.extend(j.nested);
    out
}

pub(super) fn redirects(cmd: &SimpleCommand, state: &State) -> Judgement {
    let mut j = judge(Risk::ReadOnly, "reads only");
    for r in cmd.redirects.iter().filter(|r| r.writes()) {
        j = j.worst(write_to(&state.place(&r.target), &r.target.text, "writes"));
    }
    j
}

/// The risk of writing (or deleting, per `verb`) at `p`.
pub(super) fn write_to(p: &Place, shown: &str, verb: &str) -> Judgement {
    match p {
        Place::Harmless => judge(Risk::ReadOnly, "writes to a harmless device"),
        Place::Inside(_) | Place::WorkspaceRoot => {
            judge(Risk::Medium, format!("{verb} {shown} in the workspace"))
        }
        Place::Outside(path) => judge(
            Risk::High,
            format!("{verb} outside the workspace ({})", path.display()),
        ),
        Place::SystemRoot(s) => judge(Risk::High, format!("{verb} {s}")),
        Place::Device(d) => judge(
            Risk::Forbidden,
            format!("{verb} the device /dev/{d}, which can destroy a disk"),
        ),
        Place::Unknown => judge(
            Risk::High,
            format!("{verb} {shown}, a path only known at run time"),
        ),
    }
}

pub(super) fn is_flag(w: &Word) -> bool {
    w.text.starts_with('-') && w.text.len() > 1 && !w.dynamic
}

/// Whether a short flag letter or a long flag is present.
pub(super) fn has_flag(args: &[Word], short: char, long: &str) -> bool {
    args.iter().take_while(|w| w.text != "--").any(|w| {
        if let Some(l) = w.text.strip_prefix("--") {
            !long.is_empty() && (l == long || l.starts_with(&format!("{long}=")))
        } else if let Some(s) = w.text.strip_prefix('-') {
            !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric()) && s.contains(short)
        } else {
            false
        }
    })
}

pub(super) fn operands(args: &[Word]) -> Vec<&Word> {
    let mut out = Vec::new();
    let mut after_dd = false;
    for w in args {
        if !after_dd && w.text == "--" {
            after_dd = true;
            continue;
        }
        if after_dd || !is_flag(w) {
            out.push(w);
        }
    }
    out
}

/// Classify `words` (program first). `extra_dynamic`: an xargs-style unknown argument list
/// is appended at run time.
pub(super) fn program(
    words: &[Word],
    state: &mut State,
    depth: usize,
    extra_dynamic: bool,
) -> Judgement {
    let Some(first) = words.first() else {
        return judge(Risk::ReadOnly, "nothing to run");
    };
    if first.dynamic {
        return judge(
            Risk::High,
            format!(
                "the program name `{}` is only known at run time",
                first.text
            ),
        );
    }
    if !first.text.is_ascii() {
        return judge(
            Risk::High,
            format!(
                "the program name `{}` contains non-ASCII characters and may imitate another command",
                first.text
            ),
        );
    }
    let name = basename(&first.text).to_string();
    let args = &words[1..];
    let prefix1 = vec![name.clone()];
    let mut j = match name.as_str() {
        "" => judge(Risk::High, "an empty program name"),
        // ---- wrappers ----
        "sudo" | "doas" | "run0" => {
            let rest = skip_options(
                args,
                &["-u", "-g", "-h", "-p", "-C", "-U", "-r", "-t", "-D"],
            );
            let inner = program(rest, state, depth, extra_dynamic);
            judge(Risk::High, format!("`{name}` runs the command as root")).worst(inner)
        }
        "su" => {
            let cmd = args
                .iter()
                .position(|w| w.text == "-c")
                .and_then(|i| args.get(i + 1));
            let base = judge(Risk::High, "`su` runs commands as another user");
            match cmd {
                Some(c) => base.worst(nested_shell(c, state, depth)),
                None => base,
            }
        }
        "env" => {
            let mut i = 0;
            while i < args.len() {
                let t = &args[i].text;
                if t == "-u" || t == "--unset" || t == "-C" || t == "--chdir" || t == "-S" {
                    i += 2;
                } else if t.starts_with('-') || (t.contains('=') && !t.starts_with('=')) {
                    i += 1;
                } else {
                    break;
                }
            }
            if i >= args.len() {
                judge(Risk::ReadOnly, "prints the environment")
            } else {
                program(&args[i..], state, depth, extra_dynamic)
            }
        }
        "command" => {
            if args.iter().any(|w| w.text == "-v" || w.text == "-V") {
                judge(Risk::ReadOnly, "looks up a command")
            } else {
                program(skip_options(args, &[]), state, depth, extra_dynamic)
            }
        }
        "builtin" | "exec" | "nohup" | "time" | "setsid" | "unbuffer" | "chronic"
        | "caffeinate" | "flock" | "stdbuf" | "ionice" | "chrt" | "taskset" | "nice" | "watch" => {
            let valued = [
                "-n", "-c", "-t", "-p", "-i", "-o", "-e", "-d", "-w", "-E", "-s", "-k",
            ];
            let rest = skip_options(args, &valued);
            let rest = if name == "flock" || name == "taskset" || name == "chrt" {
                rest.get(1..).unwrap_or(&[])
            } else {
                rest
            };
            if rest.is_empty() {
                judge(Risk::ReadOnly, format!("`{name}` with nothing to run"))
            } else {
                program(rest, state, depth, extra_dynamic)
            }
        }
        "timeout" => {
            let rest = skip_options(args, &["-s", "-k", "--signal", "--kill-after"]);
            program(rest.get(1..).unwrap_or(&[]), state, depth, extra_dynamic)
        }
        "xargs" => {
            let valued = [
                "-n",
                "-I",
                "-i",
                "-P",
                "-d",
                "-L",
                "-s",
                "-a",
                "-E",
                "-e",
                "--max-args",
                "--replace",
                "--max-procs",
                "--delimiter",
                "--arg-file",
            ];
            let rest = skip_options(args, &valued);
            if rest.is_empty() {
                judge(Risk::ReadOnly, "xargs echoes its input")
            } else {
                let inner = program(rest, state, depth, true);
                let floor = judge(Risk::Low, "xargs runs a command on its input");
                floor.worst(inner)
            }
        }
        // ---- shells and eval ----
        s if SHELLS.contains(&s) => shell(&name, args, state, depth),
        "eval" => {
            if args.iter().any(|w| w.dynamic) {
                judge(Risk::High, "`eval` runs a command built at run time")
            } else {
                let text: Vec<&str> = args.iter().map(|w| w.text.as_str()).collect();
                nested(&text.join(" "), state, depth, "eval")
            }
        }
        "source" | "." => judge(Risk::Medium, "runs a script in the current shell"),
        // ---- directories ----
        "cd" | "pushd" => {
            match args.iter().find(|w| !is_flag(w)) {
                None => {
                    if let Some(h) = &state.ctx.home {
                        state.ctx.cwd = h.clone();
                    }
                }
                Some(w) if w.dynamic && !w.text.starts_with("$HOME") => state.cwd_unknown = true,
                Some(w) => match state.place(w) {
                    Place::Inside(p) | Place::Outside(p) => state.ctx.cwd = p,
                    Place::WorkspaceRoot => state.ctx.cwd = state.ctx.workspace.clone(),
                    Place::SystemRoot(_) | Place::Device(_) | Place::Harmless => {
                        state.ctx.cwd = super::normalize(&state.ctx.cwd.join(&w.text))
                    }
                    Place::Unknown => state.cwd_unknown = true,
                },
            }
            judge(Risk::ReadOnly, "changes directory")
        }
        "popd" => {
            state.cwd_unknown = true;
            judge(Risk::ReadOnly, "changes directory")
        }
        // ---- destroyers ----
        d if DISK_DESTROYERS.contains(&d) || d.starts_with("mkfs.") => judge(
            Risk::Forbidden,
            format!("`{name}` formats or repartitions disks"),
        ),
        p if POWER.contains(&p) => judge(
            Risk::Forbidden,
            format!("`{name}` stops or restarts the machine"),
        ),
        "init" | "telinit" if args.iter().any(|w| w.text == "0" || w.text == "6") => {
            judge(Risk::Forbidden, "switches the machine off or restarts it")
        }
        "systemctl" => match args.iter().find(|w| !is_flag(w)).map(|w| w.text.as_str()) {
            Some(
                "poweroff" | "reboot" | "halt" | "kexec" | "suspend" | "hibernate" | "emergency"
                | "rescue",
            ) => judge(Risk::Forbidden, "stops or restarts the machine"),
            Some(
                "status" | "list-units" | "list-unit-files" | "show" | "cat" | "is-active"
                | "is-enabled",
            ) => judge(Risk::ReadOnly, "shows service state"),
            _ => judge(Risk::High, "changes system services"),
        },
        "rm" | "unlink" | "shred" | "srm" => rm(&name, args, state, extra_dynamic),
        "rmdir" => writes(args, state, "removes", Risk::Medium, extra_dynamic),
        "chmod" | "chown" | "chgrp" => perms(&name, args, state),
        "dd" => dd(args, state),
        "kill" | "killall" | "pkill" | "skill" | "xkill" => {
            judge(Risk::High, format!("`{name}` stops running processes"))
        }
        // ---- network ----
        n if NETWORK_CLIENTS.contains(&n) => {
            judge(Risk::High, format!("`{name}` uses the network")).net()
        }
        "ping" | "traceroute" | "mtr" => {
            judge(Risk::Medium, format!("`{name}` sends network probes")).net()
        }
        // ---- admin ----
        i if INFRA.contains(&i) => judge(
            Risk::High,
            format!("`{name}` controls containers or infrastructure"),
        )
        .net(),
        a if SYSTEM_ADMIN.contains(&a) => {
            judge(Risk::High, format!("`{name}` changes system configuration"))
        }
        "mount" | "umount" => {
            if args.is_empty() {
                judge(Risk::ReadOnly, "lists mounts")
            } else {
                judge(Risk::High, "changes mounted filesystems")
            }
        }
        p if PACKAGE_MANAGERS.contains(&p) => system_packages(&name, args),
        // ---- files ----
        "find" => find(args, state, depth),
        "sed" => sed(args, state),
        "awk" | "gawk" | "mawk" | "nawk" => awk(args, state),
        "tee" => writes(args, state, "writes", Risk::ReadOnly, false),
        "cp" => {
            let ops = operands(args);
            match ops.last() {
                Some(dest) if ops.len() >= 2 => {
                    write_to(&state.place(dest), &dest.text, "copies to")
                }
                _ if extra_dynamic => judge(Risk::High, "copies files chosen at run time"),
                _ => judge(Risk::Medium, "copies files"),
            }
            .worst(judge(Risk::Medium, "copies files"))
        }
        "mv" => writes(args, state, "moves", Risk::Medium, extra_dynamic),
        "ln" | "link" => {
            let ops = operands(args);
            match ops.last() {
                Some(dest) if ops.len() >= 2 => write_to(&state.place(dest), &dest.text, "links"),
                _ => judge(Risk::Medium, "creates a link"),
            }
            .worst(judge(Risk::Medium, "creates links"))
        }
        "mkdir" | "touch" | "truncate" | "mkfifo" | "install" | "mktemp" => {
            if name == "mktemp" {
                judge(Risk::Low, "creates a temporary file")
            } else {
                writes(
                    args,
                    state,
                    "creates or changes",
                    Risk::Medium,
                    extra_dynamic,
                )
            }
        }
        "patch" => judge(Risk::Medium, "applies a patch to files"),
        "tar" => tar(args),
        "unzip" | "zip" | "7z" | "unrar" | "split" | "csplit" => {
            judge(Risk::Medium, format!("`{name}` writes files"))
        }
        "gzip" | "gunzip" | "bzip2" | "bunzip2" | "xz" | "unxz" | "zstd" | "unzstd" | "lz4" => {
            if args.iter().any(|w| {
                matches!(
                    w.text.as_str(),
                    "-c" | "-l" | "-t" | "--stdout" | "--list" | "--test"
                )
            }) {
                judge(Risk::ReadOnly, "reads compressed data")
            } else {
                judge(
                    Risk::Medium,
                    format!("`{name}` replaces files with (de)compressed ones"),
                )
            }
        }
        // ---- version control and build tools ----
        "git" => git(args, state),
        "cargo" => cargo(args),
        "npm" | "pnpm" | "yarn" | "bun" => js_packages(&name, args),
        "npx" | "bunx" | "pnpx" => judge(
            Risk::Medium,
            format!("`{name}` downloads and runs a package"),
        )
        .net(),
        "pip" | "pip3" | "uv" | "poetry" | "pipenv" | "conda" | "mamba" | "pipx" | "gem"
        | "bundle" | "composer" => lang_packages(&name, args),
        "go" => go(args),
        "make" | "gmake" => {
            if args.iter().any(|w| {
                matches!(
                    w.text.as_str(),
                    "install" | "uninstall" | "deploy" | "publish" | "release"
                )
            }) {
                judge(
                    Risk::High,
                    "runs an install or deploy recipe that may write outside the workspace",
                )
            } else {
                judge(Risk::Low, "runs the project's make recipes")
            }
        }
        f if FORMATTERS_WRITING.contains(&f) => {
            if args.iter().any(|w| {
                matches!(
                    w.text.as_str(),
                    "--check" | "--diff" | "-l" | "-d" | "--list"
                )
            }) {
                judge(Risk::Low, format!("`{name}` checks formatting"))
            } else {
                judge(Risk::Medium, format!("`{name}` rewrites files"))
            }
        }
        b if BUILD_TEST.contains(&b) => build_tool(&name, args),
        "python" | "python2" | "python3" | "node" | "ruby" | "perl" | "php" | "deno" | "lua"
        | "Rscript" | "julia" => interpreter(&name, args, state, depth),
        r if READ_ONLY.contains(&r) => judge(Risk::ReadOnly, format!("`{name}` only reads")),
        _ if first.text.contains('/') => judge(
            Risk::Medium,
            format!("runs `{}`, a program Loom cannot inspect", first.text),
        ),
        _ => judge(
            Risk::Medium,
            format!("`{name}` is not a program Loom knows, so it may change files"),
        ),
    };
    if j.prefix.is_empty() {
        j.prefix = prefix1;
    }
    if j.argv.is_empty() {
        j.argv = std::iter::once(name)
            .chain(args.iter().map(|w| w.text.clone()))
            .collect();
    }
    j
}

/// Skip leading options (and the values of `valued` options); return the rest.
pub(super) fn skip_options<'a>(args: &'a [Word], valued: &[&str]) -> &'a [Word] {
    let mut i = 0;
    while i < args.len() {
        let t = args[i].text.as_str();
        if t == "--" {
            return &args[i + 1..];
        }
        if !t.starts_with('-') || t == "-" {
            break;
        }
        i += if valued.contains(&t) { 2 } else { 1 };
    }
    args.get(i..).unwrap_or(&[])
}

pub(super) fn nested(text: &str, state: &State, depth: usize, via: &str) -> Judgement {
    let inner = classify_nested(text, &state.ctx, depth + 1);
    let mut j = judge(
        inner.level.max(Risk::ReadOnly),
        format!("{via} runs: {}", inner.reason),
    );
    j.network = inner.uses_network();
    j.prefix = inner
        .segments
        .iter()
        .find(|s| s.level == inner.level)
        .map(|s| s.prefix.clone())
        .unwrap_or_default();
    j.nested = inner.segments;
    j
}

pub(super) fn nested_shell(code: &Word, state: &State, depth: usize) -> Judgement {
    if code.dynamic {
        judge(Risk::High, "runs a shell command built at run time")
    } else {
        nested(&code.text, state, depth, "the shell")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(t: &str) -> Word {
        Word {
            text: t.into(),
            dynamic: false,
            glob: false,
            inner: Vec::new(),
        }
    }

    #[test]
    fn flags_are_found_in_combined_short_options() {
        let args = vec![w("-rf"), w("x")];
        assert!(has_flag(&args, 'r', "recursive"));
        assert!(has_flag(&args, 'f', "force"));
        assert!(!has_flag(&[w("--"), w("-r")], 'r', "recursive"));
        assert!(has_flag(&[w("--recursive")], 'R', "recursive"));
    }

    #[test]
    fn options_are_skipped() {
        let args = vec![w("-u"), w("bob"), w("-E"), w("rm"), w("x")];
        let rest = skip_options(&args, &["-u"]);
        assert_eq!(rest[0].text, "rm");
    }
}
