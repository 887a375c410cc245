//! What each program does: the rule table behind [`super::classify`].
//!
//! One function per family of programs, each returning a [`Judgement`]. Wrappers (`sudo`,
//! `env`, `timeout`, `xargs`, ...) are peeled off first; `sh -c` and `eval` strings are
//! classified recursively. Paths are judged with [`super::place`] against the workspace,
//! following `cd` through the command line.

use super::parse::{SimpleCommand, Word};
use super::{CommandContext, Place, Risk, Segment, basename, classify_nested, display, place};

/// Classification state carried across the segments of one command line.
pub struct State {
    ctx: CommandContext,
    cwd_unknown: bool,
}

impl State {
    /// Start at the context's working directory.
    pub fn new(ctx: CommandContext) -> State {
        State {
            ctx,
            cwd_unknown: false,
        }
    }

    fn place(&self, word: &Word) -> Place {
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
struct Judgement {
    level: Risk,
    reason: String,
    prefix: Vec<String>,
    argv: Vec<String>,
    network: bool,
    nested: Vec<Segment>,
}

fn judge(level: Risk, reason: impl Into<String>) -> Judgement {
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
    fn net(mut self) -> Judgement {
        self.network = true;
        self
    }
    /// Raise to `other` if it is worse.
    fn worst(self, other: Judgement) -> Judgement {
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

fn redirects(cmd: &SimpleCommand, state: &State) -> Judgement {
    let mut j = judge(Risk::ReadOnly, "reads only");
    for r in cmd.redirects.iter().filter(|r| r.writes()) {
        j = j.worst(write_to(&state.place(&r.target), &r.target.text, "writes"));
    }
    j
}

/// The risk of writing (or deleting, per `verb`) at `p`.
fn write_to(p: &Place, shown: &str, verb: &str) -> Judgement {
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

fn is_flag(w: &Word) -> bool {
    w.text.starts_with('-') && w.text.len() > 1 && !w.dynamic
}

/// Whether a short flag letter or a long flag is present.
fn has_flag(args: &[Word], short: char, long: &str) -> bool {
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

fn operands(args: &[Word]) -> Vec<&Word> {
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

const NETWORK_CLIENTS: &[&str] = &[
    "curl", "wget", "ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat", "socat", "telnet",
    "ftp", "tftp", "aria2c", "http", "https", "xh", "lynx", "w3m", "links", "mosh", "rclone", "gh",
    "glab", "aws", "gcloud", "az",
];
const READ_ONLY: &[&str] = &[
    "ls",
    "ll",
    "dir",
    "cat",
    "head",
    "tail",
    "wc",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "ag",
    "ack",
    "pwd",
    "echo",
    "printf",
    "which",
    "whereis",
    "type",
    "file",
    "stat",
    "du",
    "df",
    "tree",
    "less",
    "more",
    "cut",
    "tr",
    "diff",
    "cmp",
    "comm",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "date",
    "printenv",
    "whoami",
    "id",
    "uname",
    "true",
    "false",
    "test",
    "[",
    "[[",
    "seq",
    "jq",
    "yq",
    "nl",
    "fold",
    "fmt",
    "column",
    "paste",
    "join",
    "expand",
    "unexpand",
    "rev",
    "tac",
    "od",
    "hexdump",
    "xxd",
    "md5sum",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "b2sum",
    "cksum",
    "base64",
    "base32",
    "export",
    "alias",
    "unalias",
    "set",
    "unset",
    "shift",
    "exit",
    "return",
    "read",
    "local",
    "declare",
    "typeset",
    ":",
    "man",
    "help",
    "info",
    "ps",
    "free",
    "uptime",
    "w",
    "who",
    "nproc",
    "lscpu",
    "lsblk",
    "tput",
    "clear",
    "sleep",
    "wait",
    "yes",
    "zcat",
    "bzcat",
    "xzcat",
    "zgrep",
    "strings",
    "nm",
    "objdump",
    "readelf",
    "ldd",
    "hostname",
    "env",
    "getconf",
    "locale",
    "tty",
    "groups",
    "shopt",
    "ulimit",
    "umask",
    "trap",
    "hash",
    "history",
    "jobs",
    "dirs",
    "uniq",
    "sort",
    "dig",
    "nslookup",
    "host",
    "cal",
    "bc",
    "expr",
    "numfmt",
    "shuf",
    "look",
    "locate",
    "lsof",
    "pgrep",
    "pstree",
    "top",
    "htop",
    "vmstat",
    "iostat",
    "tldr",
    "fd",
    "fdfind",
    "bat",
    "batcat",
    "exa",
    "eza",
    "delta",
    "sqlite3",
];
const FORMATTERS_WRITING: &[&str] = &["rustfmt", "gofmt", "black", "isort", "autopep8", "yapf"];
const BUILD_TEST: &[&str] = &[
    "cmake",
    "ninja",
    "meson",
    "bazel",
    "bazelisk",
    "mvn",
    "mvnw",
    "gradle",
    "gradlew",
    "ant",
    "dotnet",
    "swift",
    "zig",
    "ctest",
    "tox",
    "nox",
    "pytest",
    "py.test",
    "jest",
    "vitest",
    "mocha",
    "rspec",
    "phpunit",
    "tsc",
    "mypy",
    "pyright",
    "shellcheck",
    "hadolint",
    "gcc",
    "g++",
    "cc",
    "c++",
    "clang",
    "clang++",
    "rustc",
    "javac",
    "java",
    "kotlinc",
    "scalac",
    "ghc",
    "stack",
    "cabal",
    "mix",
    "elixir",
    "erlc",
    "luac",
    "nim",
    "crystal",
    "dune",
    "opam",
    "sbt",
    "lein",
    "clj",
    "flake8",
    "pylint",
    "golangci-lint",
    "staticcheck",
    "tflint",
    "cargo-nextest",
    "just",
    "task",
    "nextest",
    "ruff",
    "eslint",
    "prettier",
    "rubocop",
    "clang-format",
    "stylua",
    "biome",
];
const DISK_DESTROYERS: &[&str] = &[
    "mkfs",
    "mke2fs",
    "mkswap",
    "wipefs",
    "fdisk",
    "sfdisk",
    "cfdisk",
    "parted",
    "sgdisk",
    "gdisk",
    "mkdosfs",
    "mkntfs",
    "blkdiscard",
];
const POWER: &[&str] = &["shutdown", "reboot", "halt", "poweroff"];
const INFRA: &[&str] = &[
    "docker",
    "podman",
    "kubectl",
    "helm",
    "terraform",
    "tofu",
    "ansible",
    "ansible-playbook",
    "vagrant",
    "nerdctl",
    "minikube",
    "kind",
];
const SYSTEM_ADMIN: &[&str] = &[
    "useradd",
    "userdel",
    "usermod",
    "passwd",
    "chpasswd",
    "groupadd",
    "groupdel",
    "visudo",
    "iptables",
    "ip6tables",
    "nft",
    "ufw",
    "sysctl",
    "modprobe",
    "insmod",
    "rmmod",
    "swapon",
    "swapoff",
    "losetup",
    "crontab",
    "at",
    "batch",
    "chroot",
    "setcap",
    "chattr",
    "launchctl",
    "service",
];
const PACKAGE_MANAGERS: &[&str] = &[
    "apt", "apt-get", "dnf", "yum", "pacman", "apk", "brew", "snap", "flatpak", "zypper", "port",
    "emerge", "nix-env",
];
const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "ash", "busybox",
];

/// Classify `words` (program first). `extra_dynamic`: an xargs-style unknown argument list
/// is appended at run time.
fn program(words: &[Word], state: &mut State, depth: usize, extra_dynamic: bool) -> Judgement {
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
fn skip_options<'a>(args: &'a [Word], valued: &[&str]) -> &'a [Word] {
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

fn nested(text: &str, state: &State, depth: usize, via: &str) -> Judgement {
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

fn nested_shell(code: &Word, state: &State, depth: usize) -> Judgement {
    if code.dynamic {
        judge(Risk::High, "runs a shell command built at run time")
    } else {
        nested(&code.text, state, depth, "the shell")
    }
}

fn shell(name: &str, args: &[Word], state: &State, depth: usize) -> Judgement {
    let c = args.iter().position(|w| {
        w.text == "-c"
            || (w.text.starts_with('-') && !w.text.starts_with("--") && w.text.contains('c'))
    });
    if let Some(i) = c {
        return match args.get(i + 1) {
            Some(code) => nested_shell(code, state, depth),
            None => judge(Risk::Medium, format!("`{name} -c` without a command")),
        };
    }
    match args.iter().find(|w| !is_flag(w)) {
        Some(script) => judge(Risk::Medium, format!("runs the script {}", script.text)),
        None => judge(
            Risk::Medium,
            format!("`{name}` runs commands from its input"),
        ),
    }
}

fn interpreter(name: &str, args: &[Word], state: &State, _depth: usize) -> Judgement {
    if args
        .iter()
        .any(|w| matches!(w.text.as_str(), "--version" | "-V" | "--help" | "-h"))
    {
        return judge(Risk::ReadOnly, "prints version or help");
    }
    if let Some(i) = args.iter().position(|w| w.text == "-m") {
        let module = args.get(i + 1).map(|w| w.text.as_str()).unwrap_or("");
        let rest = args.get(i + 2..).unwrap_or(&[]);
        let mut j = match module {
            "pytest" | "unittest" | "mypy" | "pyflakes" | "pylint" | "flake8" | "compileall"
            | "doctest" => judge(Risk::Low, format!("runs {module}")),
            "pip" => lang_packages("pip", rest),
            "black" | "isort" | "autopep8" => {
                judge(Risk::Medium, format!("{module} rewrites files"))
            }
            "http.server" => judge(Risk::Medium, "starts a web server").net(),
            "venv" | "virtualenv" => judge(Risk::Medium, "creates a virtual environment"),
            "json.tool" | "tokenize" | "pydoc" => judge(Risk::ReadOnly, format!("runs {module}")),
            _ => judge(Risk::Medium, format!("runs the module {module}")),
        };
        j.prefix = vec![name.to_string(), "-m".into(), module.to_string()];
        return j;
    }
    if args
        .iter()
        .any(|w| matches!(w.text.as_str(), "-c" | "-e" | "--eval" | "-E" | "-p"))
    {
        return judge(
            Risk::Medium,
            format!("runs inline {name} code, which can do anything"),
        );
    }
    match args.iter().find(|w| !is_flag(w)) {
        Some(script) => {
            let where_ = match state.place(script) {
                Place::Inside(_) => "from the workspace",
                _ => "from outside the workspace",
            };
            judge(
                Risk::Medium,
                format!("runs the script {} {where_}", script.text),
            )
        }
        None => judge(Risk::Low, format!("starts {name} with no input")),
    }
}

fn writes(args: &[Word], state: &State, verb: &str, floor: Risk, extra_dynamic: bool) -> Judgement {
    let mut j = judge(floor, format!("{verb} files"));
    let ops = operands(args);
    if ops.is_empty() && extra_dynamic {
        return judge(Risk::High, format!("{verb} files chosen at run time"));
    }
    for w in ops {
        j = j.worst(write_to(&state.place(w), &w.text, verb));
    }
    j
}

fn rm(name: &str, args: &[Word], state: &State, extra_dynamic: bool) -> Judgement {
    let recursive = has_flag(args, 'r', "recursive") || has_flag(args, 'R', "recursive");
    let ops = operands(args);
    if ops.is_empty() {
        return if extra_dynamic {
            judge(
                Risk::High,
                format!("`{name}` deletes files chosen at run time (xargs)"),
            )
        } else {
            judge(Risk::ReadOnly, format!("`{name}` with nothing to delete"))
        };
    }
    let mut j = judge(Risk::Medium, "deletes files in the workspace");
    for w in ops {
        let here = match state.place(w) {
            Place::SystemRoot(s) if recursive => judge(
                Risk::Forbidden,
                format!("rm -r of {s} would delete everything on it"),
            ),
            Place::WorkspaceRoot if recursive => judge(
                Risk::Forbidden,
                "rm -r of the workspace root would delete the whole project",
            ),
            Place::Device(d) => judge(Risk::Forbidden, format!("deletes the device /dev/{d}")),
            Place::Inside(_) if recursive => judge(
                Risk::High,
                format!("rm -r deletes the directory tree {}", w.text),
            ),
            Place::Inside(_) | Place::WorkspaceRoot => {
                judge(Risk::Medium, format!("deletes {}", w.text))
            }
            Place::Harmless => judge(Risk::ReadOnly, "deletes nothing real"),
            Place::SystemRoot(s) => judge(Risk::High, format!("deletes {s}")),
            Place::Outside(p) => judge(
                Risk::High,
                format!("deletes outside the workspace ({})", p.display()),
            ),
            Place::Unknown => judge(
                Risk::High,
                format!("deletes {}, a path only known at run time", w.text),
            ),
        };
        j = j.worst(here);
    }
    j
}

fn perms(name: &str, args: &[Word], state: &State) -> Judgement {
    let recursive = has_flag(args, 'R', "recursive");
    let mut j = judge(
        Risk::High,
        format!("`{name}` changes ownership or permissions"),
    );
    for w in operands(args) {
        if let Place::SystemRoot(s) | Place::Device(s) = state.place(w)
            && recursive
        {
            j = j.worst(judge(
                Risk::Forbidden,
                format!("{name} -R on {s} breaks the whole system"),
            ));
        }
    }
    j
}

fn dd(args: &[Word], state: &State) -> Judgement {
    for w in args {
        if let Some(target) = w.text.strip_prefix("of=") {
            let word = Word {
                text: target.to_string(),
                dynamic: w.dynamic,
                glob: false,
                inner: Vec::new(),
            };
            return write_to(&state.place(&word), target, "writes")
                .worst(judge(Risk::Medium, "dd writes a file"));
        }
    }
    judge(Risk::Low, "dd copies data to its output")
}

fn find(args: &[Word], state: &mut State, depth: usize) -> Judgement {
    let start = args
        .iter()
        .position(|w| w.text.starts_with('-') || w.text == "(" || w.text == "!")
        .unwrap_or(args.len());
    let roots = &args[..start];
    let mut j = judge(Risk::ReadOnly, "find only lists files");
    let mut i = start;
    while i < args.len() {
        match args[i].text.as_str() {
            "-delete" => {
                let mut d = judge(Risk::High, "find -delete deletes every matching file");
                for r in roots {
                    if let Place::SystemRoot(s) = state.place(r) {
                        d = d.worst(judge(
                            Risk::Forbidden,
                            format!("find {s} -delete would delete everything"),
                        ));
                    }
                    if let Place::Outside(p) = state.place(r) {
                        d = d.worst(judge(
                            Risk::High,
                            format!("deletes files outside the workspace ({})", p.display()),
                        ));
                    }
                }
                j = j.worst(d);
            }
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let end = args[i + 1..]
                    .iter()
                    .position(|w| w.text == ";" || w.text == "+")
                    .map(|p| i + 1 + p)
                    .unwrap_or(args.len());
                let inner = program(&args[i + 1..end], state, depth, true);
                j = j.worst(
                    judge(Risk::Medium, "find -exec runs a command on every match").worst(inner),
                );
                i = end;
            }
            "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                if let Some(target) = args.get(i + 1) {
                    j = j.worst(write_to(&state.place(target), &target.text, "writes"));
                }
            }
            _ => {}
        }
        i += 1;
    }
    j
}

fn sed(args: &[Word], state: &State) -> Judgement {
    let in_place = args.iter().any(|w| {
        w.text == "-i"
            || w.text.starts_with("--in-place")
            || (w.text.starts_with("-i") && !w.text.starts_with("--"))
            || (w.text.starts_with('-')
                && !w.text.starts_with("--")
                && w.text.contains('i')
                && w.text.len() <= 4)
    });
    let ops = operands(args);
    if in_place {
        let mut j = judge(Risk::Medium, "sed -i edits files in place");
        for w in ops.iter().skip(1) {
            j = j.worst(write_to(&state.place(w), &w.text, "edits"));
        }
        return j;
    }
    let script = ops.first().map(|w| w.text.as_str()).unwrap_or("");
    let writes_or_runs = script.split([';', '\n', '{', '}']).any(|cmd| {
        let c = cmd.trim_start_matches(|ch: char| {
            ch.is_ascii_digit() || ch == ',' || ch == '$' || ch.is_whitespace()
        });
        let c = if c.starts_with('/') {
            c.splitn(3, '/').nth(2).unwrap_or("").trim_start()
        } else {
            c
        };
        c.starts_with('w')
            || c.starts_with('W')
            || c.starts_with('e')
            || c.contains("/w ")
            || c.ends_with("/e")
    });
    if writes_or_runs {
        judge(Risk::Medium, "the sed script writes files or runs commands")
    } else {
        judge(Risk::ReadOnly, "sed only prints")
    }
}

fn awk(args: &[Word], _state: &State) -> Judgement {
    if args
        .iter()
        .any(|w| w.text == "-i" || w.text.starts_with("inplace"))
    {
        return judge(Risk::Medium, "awk edits files in place");
    }
    let program = args
        .iter()
        .find(|w| !is_flag(w))
        .map(|w| w.text.as_str())
        .unwrap_or("");
    if program.contains("system(")
        || program.contains("print >")
        || program.contains("printf >")
        || program.contains("| \"")
        || program.contains("|&")
        || program.contains(">>")
    {
        judge(
            Risk::Medium,
            "the awk program runs commands or writes files",
        )
    } else {
        judge(Risk::ReadOnly, "awk only prints")
    }
}

fn tar(args: &[Word]) -> Judgement {
    let modes: String = args
        .iter()
        .take(1)
        .map(|w| w.text.trim_start_matches('-').to_string())
        .chain(
            args.iter()
                .filter(|w| w.text.starts_with('-') && !w.text.starts_with("--"))
                .map(|w| w.text[1..].to_string()),
        )
        .collect();
    if modes.contains('t') || args.iter().any(|w| w.text == "--list") {
        judge(Risk::ReadOnly, "tar lists an archive")
    } else if modes.contains('x') || args.iter().any(|w| w.text == "--extract") {
        judge(Risk::Medium, "tar extracts files")
    } else {
        judge(Risk::Medium, "tar writes an archive")
    }
}

fn sub<'a>(args: &'a [Word], valued: &[&str]) -> (Option<&'a str>, &'a [Word]) {
    let rest = skip_options(args, valued);
    match rest.first() {
        Some(w) => (Some(w.text.as_str()), &rest[1..]),
        None => (None, rest),
    }
}

fn with_prefix(mut j: Judgement, prefix: Vec<String>) -> Judgement {
    j.prefix = prefix;
    j
}

fn git(args: &[Word], state: &State) -> Judgement {
    let mut i = 0;
    let mut high = None;
    while i < args.len() {
        let t = args[i].text.as_str();
        match t {
            "-c" | "--config-env" => {
                high = Some(
                    "git -c can set options such as core.pager or core.sshCommand that run arbitrary commands",
                );
                i += 2;
            }
            "-C" | "--namespace" => i += 2,
            "--git-dir" | "--work-tree" | "--exec-path" => {
                high = Some("points git at another repository or program");
                i += if t.contains('=') { 1 } else { 2 };
            }
            _ if t.starts_with("--git-dir=")
                || t.starts_with("--work-tree=")
                || t.starts_with("--exec-path=") =>
            {
                high = Some("points git at another repository or program");
                i += 1;
            }
            _ if t.starts_with('-') => i += 1,
            _ => break,
        }
    }
    let sub = args.get(i).map(|w| w.text.as_str()).unwrap_or("");
    let rest = args.get(i + 1..).unwrap_or(&[]);
    let has = |f: &str| {
        rest.iter()
            .any(|w| w.text == f || w.text.starts_with(&format!("{f}=")))
    };
    let plain_args: Vec<&str> = rest
        .iter()
        .filter(|w| !is_flag(w))
        .map(|w| w.text.as_str())
        .collect();
    let j = match sub {
        "" => judge(Risk::ReadOnly, "git with no subcommand prints help"),
        "status" | "diff" | "log" | "show" | "blame" | "rev-parse" | "ls-files" | "grep"
        | "describe" | "shortlog" | "reflog" | "whatchanged" | "cat-file" | "ls-tree"
        | "show-ref" | "merge-base" | "name-rev" | "count-objects" | "rev-list"
        | "for-each-ref" | "ls-remote-local" | "check-ignore" | "var" | "version" | "help"
        | "annotate" | "difftool-list" => {
            if has("--output") || has("--ext-diff") || has("-O") || has("--open-files-in-pager") {
                judge(
                    Risk::Medium,
                    "this git option writes a file or runs an external program",
                )
            } else {
                judge(Risk::ReadOnly, format!("git {sub} only reads"))
            }
        }
        "branch" | "tag" | "remote" | "stash" | "worktree" | "notes" => {
            let listing = (plain_args.is_empty() && sub != "stash")
                || matches!(plain_args.first().copied(), Some("list" | "show" | "-v"))
                || (!rest.is_empty() && sub != "stash")
                    && rest.iter().all(|w| {
                        matches!(
                            w.text.as_str(),
                            "-a" | "-r"
                                | "-v"
                                | "-vv"
                                | "--list"
                                | "-l"
                                | "--all"
                                | "--verbose"
                                | "--merged"
                                | "--no-merged"
                                | "--contains"
                        )
                    });
            if listing && sub != "worktree" {
                judge(Risk::ReadOnly, format!("git {sub} lists"))
            } else if sub == "remote"
                && matches!(plain_args.first().copied(), Some("update" | "prune"))
            {
                judge(Risk::Medium, "fetches from a remote").net()
            } else {
                judge(Risk::Medium, format!("git {sub} changes repository state"))
            }
        }
        "config" => {
            if has("--global") || has("--system") {
                judge(
                    Risk::High,
                    "changes git configuration outside the workspace",
                )
            } else if has("--get")
                || has("--list")
                || has("-l")
                || has("--get-all")
                || has("--get-regexp")
                || plain_args.len() <= 1
            {
                judge(Risk::ReadOnly, "reads git configuration")
            } else {
                judge(Risk::Medium, "changes the repository's git configuration")
            }
        }
        "push" => judge(Risk::High, "git push publishes commits to a remote").net(),
        "fetch" | "pull" | "clone" | "submodule" | "lfs" => {
            judge(Risk::Medium, format!("git {sub} fetches from a remote")).net()
        }
        "reset" if has("--hard") => {
            judge(Risk::High, "git reset --hard discards uncommitted changes")
        }
        "clean"
            if rest
                .iter()
                .any(|w| w.text.starts_with('-') && w.text.contains('f')) =>
        {
            judge(Risk::High, "git clean -f deletes untracked files")
        }
        "checkout" | "restore"
            if plain_args.contains(&".") || (has("--") && !plain_args.is_empty()) =>
        {
            judge(
                Risk::High,
                format!("git {sub} of paths discards uncommitted changes"),
            )
        }
        "filter-branch" | "filter-repo" | "gc" | "prune" | "update-ref" | "replace" => {
            judge(Risk::High, format!("git {sub} rewrites or prunes history"))
        }
        "daemon" | "send-email" | "request-pull" | "http-backend" | "instaweb" => {
            judge(Risk::High, format!("git {sub} uses the network")).net()
        }
        _ => judge(Risk::Medium, format!("git {sub} changes repository state")),
    };
    let _ = state;
    let j = with_prefix(j, vec!["git".into(), sub.to_string()]);
    match high {
        Some(reason) => j.worst(with_prefix(
            judge(Risk::High, reason),
            vec!["git".into(), sub.to_string()],
        )),
        None => j,
    }
}

fn cargo(args: &[Word]) -> Judgement {
    let (sub, _) = sub(args, &["--config", "-Z", "--color", "--manifest-path"]);
    let sub = sub.unwrap_or("");
    if sub.starts_with('+') {
        return cargo(&args[1..]);
    }
    let j = match sub {
        "" | "--version" | "-V" | "version" | "help" | "metadata" | "tree" | "pkgid"
        | "locate-project" | "verify-project" | "read-manifest" => {
            judge(Risk::ReadOnly, "cargo only reads")
        }
        "build" | "b" | "check" | "c" | "test" | "t" | "bench" | "clippy" | "doc" | "d" | "run"
        | "r" | "nextest" | "miri" | "expand" | "llvm-cov" | "criterion" => judge(
            Risk::Low,
            format!("cargo {sub} builds or tests the project"),
        ),
        "fmt" | "fix" | "clean" | "new" | "init" | "generate-lockfile" | "vendor" | "package" => {
            judge(
                Risk::Medium,
                format!("cargo {sub} writes files in the workspace"),
            )
        }
        "add" | "remove" | "rm" | "update" | "install" | "uninstall" | "fetch" | "search"
        | "info" => judge(
            Risk::Medium,
            format!("cargo {sub} changes dependencies or installs programs"),
        )
        .net(),
        "publish" | "login" | "logout" | "owner" | "yank" => {
            judge(Risk::High, format!("cargo {sub} publishes to crates.io")).net()
        }
        _ => judge(
            Risk::Medium,
            format!("cargo {sub} is a cargo plugin Loom does not know"),
        ),
    };
    with_prefix(j, vec!["cargo".into(), sub.to_string()])
}

fn js_packages(name: &str, args: &[Word]) -> Judgement {
    let (sub, rest) = sub(
        args,
        &[
            "--prefix",
            "-C",
            "--dir",
            "--cwd",
            "--filter",
            "-w",
            "--workspace",
        ],
    );
    let sub = sub.unwrap_or(if name == "yarn" { "install" } else { "" });
    let j = match sub {
        "" | "-v" | "--version" | "help" | "ls" | "list" | "view" | "info" | "outdated" | "why"
        | "config" | "prefix" | "root" | "bin" => {
            judge(Risk::ReadOnly, format!("{name} {sub} only reads"))
        }
        "test" | "t" | "run" | "run-script" | "start" | "build" | "lint" | "typecheck" | "tsc"
        | "jest" | "vitest" => {
            let script = if matches!(sub, "run" | "run-script") {
                rest.first().map(|w| w.text.clone())
            } else {
                None
            };
            let mut j = judge(Risk::Low, format!("{name} {sub} runs a project script"));
            if let Some(s) = script {
                j.prefix = vec![name.to_string(), sub.to_string(), s];
            }
            j
        }
        "install" | "i" | "ci" | "add" | "remove" | "rm" | "uninstall" | "un" | "update" | "up"
        | "upgrade" | "dedupe" | "prune" | "link" | "rebuild" | "audit" => judge(
            Risk::Medium,
            format!("{name} {sub} installs packages (their install scripts run)"),
        )
        .net(),
        "exec" | "x" | "dlx" | "create" | "init" => judge(
            Risk::Medium,
            format!("{name} {sub} downloads and runs a package"),
        )
        .net(),
        "publish" | "adduser" | "login" | "logout" | "deprecate" | "unpublish" | "owner"
        | "access" | "token" | "dist-tag" => judge(
            Risk::High,
            format!("{name} {sub} publishes to or changes the registry"),
        )
        .net(),
        _ => judge(Risk::Low, format!("{name} {sub} runs a project script")),
    };
    if j.prefix.is_empty() {
        with_prefix(j, vec![name.to_string(), sub.to_string()])
    } else {
        j
    }
}

fn lang_packages(name: &str, args: &[Word]) -> Judgement {
    let (first, rest) = sub(args, &["--python", "-p", "--directory"]);
    let (sub, name_shown) = if name == "uv" && first == Some("pip") {
        (
            rest.iter()
                .find(|w| !is_flag(w))
                .map(|w| w.text.as_str())
                .unwrap_or(""),
            "uv pip".to_string(),
        )
    } else {
        (first.unwrap_or(""), name.to_string())
    };
    let j = match sub {
        "" | "list" | "show" | "freeze" | "check" | "--version" | "help" | "info" | "search"
        | "outdated" | "tree" | "env" | "config" => {
            judge(Risk::ReadOnly, format!("{name_shown} {sub} only reads"))
        }
        "run" | "test" | "exec" => judge(
            Risk::Low,
            format!("{name_shown} {sub} runs a project command"),
        ),
        "install" | "uninstall" | "add" | "remove" | "sync" | "lock" | "update" | "upgrade"
        | "download" | "venv" | "build" | "inject" => judge(
            Risk::Medium,
            format!("{name_shown} {sub} installs or changes packages"),
        )
        .net(),
        "publish" | "upload" | "push" | "yank" | "owner" => {
            judge(Risk::High, format!("{name_shown} {sub} publishes packages")).net()
        }
        _ => judge(
            Risk::Medium,
            format!("{name_shown} {sub} may change packages"),
        ),
    };
    with_prefix(j, vec![name.to_string(), sub.to_string()])
}

fn go(args: &[Word]) -> Judgement {
    let (sub, rest) = sub(args, &["-C"]);
    let sub = sub.unwrap_or("");
    let j = match sub {
        "" | "version" | "env" | "list" | "doc" | "help" => {
            judge(Risk::ReadOnly, format!("go {sub} only reads"))
        }
        "build" | "test" | "vet" | "run" => {
            judge(Risk::Low, format!("go {sub} builds or tests the project"))
        }
        "fmt" | "generate" | "fix" => judge(
            Risk::Medium,
            format!("go {sub} writes files in the workspace"),
        ),
        "mod"
            if rest
                .first()
                .is_some_and(|w| matches!(w.text.as_str(), "graph" | "why" | "verify")) =>
        {
            judge(Risk::ReadOnly, "go mod only reads")
        }
        "get" | "install" | "mod" | "work" | "clean" => judge(
            Risk::Medium,
            format!("go {sub} changes modules or installs programs"),
        )
        .net(),
        _ => judge(
            Risk::Medium,
            format!("go {sub} is not a go command Loom knows"),
        ),
    };
    with_prefix(j, vec!["go".into(), sub.to_string()])
}

fn build_tool(name: &str, args: &[Word]) -> Judgement {
    let writes = match name {
        "prettier" => args
            .iter()
            .any(|w| matches!(w.text.as_str(), "--write" | "-w")),
        "eslint" | "stylua" | "biome" => args
            .iter()
            .any(|w| w.text.starts_with("--fix") || w.text == "--write" || w.text == "format"),
        "ruff" => {
            args.first().is_some_and(|w| w.text == "format")
                && !args
                    .iter()
                    .any(|w| w.text == "--check" || w.text == "--diff")
                || args.iter().any(|w| w.text == "--fix")
        }
        "rubocop" => args.iter().any(|w| {
            matches!(
                w.text.as_str(),
                "-a" | "-A" | "--autocorrect" | "--autocorrect-all"
            )
        }),
        "clang-format" => args.iter().any(|w| w.text == "-i"),
        _ => false,
    };
    if writes {
        judge(Risk::Medium, format!("`{name}` rewrites files"))
    } else {
        judge(
            Risk::Low,
            format!("`{name}` builds, tests or checks the project"),
        )
    }
}

fn system_packages(name: &str, args: &[Word]) -> Judgement {
    let (sub, _) = sub(args, &[]);
    match sub.unwrap_or("") {
        "list" | "search" | "show" | "info" | "policy" | "madison" | "-Q" | "-Ss" | "-Si"
        | "-Qi" | "-Ql" => judge(
            Risk::ReadOnly,
            format!("{name} only reads package information"),
        ),
        _ => judge(
            Risk::High,
            format!("`{name}` installs or removes system packages"),
        )
        .net(),
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
