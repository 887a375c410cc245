//! Which rules judge a program: the dispatch from a program's name to its family's
//! judge ([`named_program`]), and the floor for a program Loom has no rules for
//! ([`unknown`]).

use super::super::Risk;
use super::super::parse::Word;
use super::super::place::protected;
use super::tables::*;
use super::*;
use loom_base::paths::Access;

/// Judge `words` (program first, known to be a plain name) by the rules of its family.
pub(super) fn named_program(
    words: &[Word],
    state: &mut State,
    depth: usize,
    extra_dynamic: bool,
) -> Judgement {
    let first = &words[0];
    let name = basename(&first.text).to_string();
    let args = &words[1..];
    if let Some(j) = alias(first, args, state, depth) {
        return j;
    }
    if let Some(j) = family(&name, args, state, depth, extra_dynamic) {
        return j;
    }
    if let Some(j) = system_program(&name, args, state, depth, extra_dynamic) {
        return j;
    }
    if let Some(j) = tool_program(&name, args, state, depth, extra_dynamic) {
        return j;
    }
    match readonly::lookup(&name) {
        Some(ro) => read_only_program(&name, &ro, args, state, extra_dynamic),
        None => unknown(&name, first, args, state, depth),
    }
}

/// A name an `alias` earlier in the line defined: judged as what it expands to.
fn alias(first: &Word, args: &[Word], state: &mut State, depth: usize) -> Option<Judgement> {
    let (_, value) = state.aliases.iter().rev().find(|(a, _)| *a == first.text)?;
    // `alias r='rm -rf'` earlier in the line: some shells (dash) run `r ~` as `rm -rf ~`.
    let line = format!("{value} {}", join_words(args));
    let via = format!("the alias {}", first.text);
    Some(
        judge(Risk::Medium, format!("runs the alias {}", first.text))
            .ungrantable()
            .worst(nested(&line, state, depth, &via)),
    )
}

/// The families with their own module that recognise their names themselves (wrappers,
/// builtins, environments, the machine's controls, editors, readers of code on stdin),
/// asked in this order.
fn family(
    name: &str,
    args: &[Word],
    state: &mut State,
    depth: usize,
    extra_dynamic: bool,
) -> Option<Judgement> {
    if let Some(j) = wrappers::wrapper(name, args, state, depth, extra_dynamic) {
        return Some(j);
    }
    if let Some(j) = builtins::builtin(name, args, state, depth) {
        return Some(j);
    }
    if let Some(j) = packages::runs_in_env(name, args, state, depth) {
        return Some(j);
    }
    if let Some(j) = machine::machine(name, args) {
        return Some(j);
    }
    if let Some(j) = editors::editor(name, args, state, depth) {
        return Some(j);
    }
    stdin_code::command_reader(name, args, state, depth)
}

/// Programs that act on the machine, its disks, files, network and system packages (the
/// first half of the dispatch table, in order).
fn system_program(
    name: &str,
    args: &[Word],
    state: &mut State,
    depth: usize,
    extra_dynamic: bool,
) -> Option<Judgement> {
    Some(match name {
        "" => judge(Risk::High, "an empty program name"),
        s if SHELLS.contains(&s) => dev::shell(name, args, state, depth),
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
        "rm" | "unlink" | "shred" | "srm" => files::rm(name, args, state, extra_dynamic),
        "rmdir" => files::writes(args, state, "removes", Risk::Medium, extra_dynamic),
        "chmod" | "chown" | "chgrp" => files::perms(name, args, state),
        "dd" => files::dd(args, state),
        n if NETWORK_CLIENTS.contains(&n) => network_client(name, args, state, depth),
        "ping" | "traceroute" | "mtr" => {
            judge(Risk::Medium, format!("`{name}` sends network probes")).net()
        }
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
        p if PACKAGE_MANAGERS.contains(&p) => packages::system_packages(name, args),
        _ => return None,
    })
}

/// A network client: high, and worse for the local commands it runs (`ssh -o
/// ProxyCommand=...`) or the files `rsync --delete` removes.
fn network_client(name: &str, args: &[Word], state: &mut State, depth: usize) -> Judgement {
    let mut j = judge(Risk::High, format!("`{name}` uses the network")).net();
    for command in remote::local_commands(name, args) {
        j = j.worst(
            nested_shell(&command, state, depth)
                .at_least(Risk::High, format!("`{name}` runs a local command")),
        );
    }
    if name == "rsync" {
        j = j.worst(remote::rsync_deletes(args, state));
    }
    j
}

/// File tools, archives, version control, package and build tools, interpreters (the
/// second half of the dispatch table, in order).
fn tool_program(
    name: &str,
    args: &[Word],
    state: &mut State,
    depth: usize,
    extra_dynamic: bool,
) -> Option<Judgement> {
    Some(match name {
        "find" => find::find(args, state, depth),
        "sed" | "gsed" => sed::sed(name, args, state, depth),
        "awk" | "gawk" | "mawk" | "nawk" => awk::awk(name, args, state),
        "tee" => files::writes(args, state, "writes", Risk::ReadOnly, false),
        "cp" => files::copy(args, state, extra_dynamic),
        "mv" => files::moves(args, state, extra_dynamic),
        "ln" | "link" => files::link(args, state),
        "mkdir" | "touch" | "truncate" | "mkfifo" | "mknod" | "install" => files::writes(
            args,
            state,
            "creates or changes",
            Risk::Medium,
            extra_dynamic,
        ),
        "mktemp" => judge(Risk::Medium, "creates a temporary file"),
        "patch" => judge(Risk::Medium, "applies a patch to files"),
        "tar" => tar::tar(args, state, depth),
        "zip"
            if args
                .iter()
                .any(|w| w.text.starts_with("-TT") || w.text.starts_with("--unzip-command")) =>
        {
            // `-TT CMD` runs CMD to test the archive: never covered by a grant, so the
            // command (an argument) is searched for forbidden ones.
            judge(Risk::Medium, "`zip -TT` runs the command it is given").ungrantable()
        }
        "unzip" | "zip" | "7z" | "unrar" | "split" | "csplit" => {
            judge(Risk::Medium, format!("`{name}` writes files"))
        }
        "gzip" | "gunzip" | "bzip2" | "bunzip2" | "xz" | "unxz" | "zstd" | "unzstd" | "lz4" => {
            files::compress(name, args, state)
        }
        "git" => git::git(args, state, depth),
        "cargo" => build::cargo(args, state),
        "npm" | "pnpm" | "yarn" | "bun" => {
            // `yarn run X`, `bun run X`, `yarn X`: a project script or binary, given words
            // that may be a command.
            let j = packages::js_packages(name, args);
            if j.level < Risk::Forbidden {
                j.worst(forbidden_among(args, state, depth))
            } else {
                j
            }
        }
        "npx" | "bunx" | "pnpx" => package_runners::runs_package(name, args, state, depth),
        "pip" | "pip3" | "uv" | "poetry" | "pipenv" | "conda" | "mamba" | "pipx" | "gem"
        | "bundle" | "composer" => packages::lang_packages(name, args),
        "go" => build::go(args, state, depth),
        "make" | "gmake" => make::make(args, state, depth),
        f if FORMATTERS_WRITING.contains(&f) => build_tools::formatter(name, args),
        b if BUILD_TEST.contains(&b) => build_tools::build_tool(name, args, state, depth),
        "python" | "python2" | "python3" | "node" | "ruby" | "perl" | "php" | "deno" | "lua"
        | "Rscript" | "julia" | "pypy" | "pypy3" | "luajit" | "tsx" | "ts-node" | "R" => {
            dev::interpreter(name, args, state, depth)
        }
        n if n.starts_with("python3.") => dev::interpreter(name, args, state, depth),
        _ => return None,
    })
}

/// A program of the read-only table: judged by its entry, and a tree search (`grep -r`,
/// `rg`, `diff -r`) also by every tree it reads (the working directory when none is
/// named).
fn read_only_program(
    name: &str,
    ro: &readonly::ReadOnly,
    args: &[Word],
    state: &mut State,
    extra_dynamic: bool,
) -> Judgement {
    let mut j = readonly::judge_read_only(name, ro, args, state, extra_dynamic);
    if searches_trees(name, args) {
        let dot = Word::literal(".");
        let mut ops = operands(args);
        // The first operand is the pattern unless one is given as an option;
        // with no path after it the search reads the working directory.
        let pattern_given = has_flag(args, 'e', "regexp") || has_flag(args, 'f', "file");
        if !pattern_given && name != "diff" && name != "colordiff" && ops.len() == 1 {
            ops.push(&dot);
        }
        if ops.is_empty() {
            ops.push(&dot);
        }
        let follows = follows_links(name, args);
        for op in ops {
            j = j.worst(reads_tree(op, state));
            if follows {
                j = j.worst(reads_tree_through_links(op, state));
            }
        }
    }
    j
}

/// A program Loom has no rules for: it may do anything, so it is medium at least; and
/// since it may run its arguments as a command (as `strace`, `fakeroot` or a custom
/// wrapper do), a forbidden command among them makes it forbidden.
fn unknown(name: &str, first: &Word, args: &[Word], state: &State, depth: usize) -> Judgement {
    let base = if first.text.contains('/') {
        judge(
            Risk::Medium,
            format!("runs `{}`, a program Loom cannot inspect", first.text),
        )
    } else {
        judge(
            Risk::Medium,
            format!("`{name}` is not a program Loom knows, so it may change files"),
        )
    };
    let mut j = base;
    for w in args.iter().filter(|w| !is_flag(w)) {
        if let Some(reason) = protected(w, &state.ctx, Access::Read) {
            j = j.at_least(Risk::High, reason);
        }
        if w.text.len() > 1 && w.text.starts_with('@') {
            j = j.worst(readonly::response_file(name, w, state));
        }
    }
    if let Some(disk) = disks::disk_operand(args, state) {
        j = j.worst(disk);
    }
    if state.scan_unknown {
        // A program Loom does not know may run its arguments as code of its own language
        // (`gdb -ex 'python os.system("…")'`, `gnuplot -e 'system("…")'`): a forbidden
        // command quoted in one is forbidden too. Only arguments that call something (a
        // parenthesis, a backquote) are read as code: a JSON body's hundreds of strings
        // are not commands.
        let calls = |w: &&Word| !w.dynamic && (w.text.contains('(') || w.text.contains('`'));
        for w in args.iter().filter(calls) {
            j = j.worst(super::dev::forbidden_in_code(&w.text, state, depth));
        }
        j.worst(forbidden_among(args, state, depth))
    } else {
        j
    }
}
