//! Developer tools: shells, interpreters, git, package managers, build and test tools,
//! judged by their subcommands.

use super::super::parse::Word;
use super::super::{Place, Risk};
use super::nested_shell;
use super::{Judgement, State, is_flag, judge, skip_options};

pub(super) fn shell(name: &str, args: &[Word], state: &State, depth: usize) -> Judgement {
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

pub(super) fn interpreter(name: &str, args: &[Word], state: &State, _depth: usize) -> Judgement {
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

pub(super) fn sub<'a>(args: &'a [Word], valued: &[&str]) -> (Option<&'a str>, &'a [Word]) {
    let rest = skip_options(args, valued);
    match rest.first() {
        Some(w) => (Some(w.text.as_str()), &rest[1..]),
        None => (None, rest),
    }
}

pub(super) fn with_prefix(mut j: Judgement, prefix: Vec<String>) -> Judgement {
    j.prefix = prefix;
    j
}

pub(super) fn git(args: &[Word], state: &State) -> Judgement {
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

pub(super) fn cargo(args: &[Word]) -> Judgement {
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

pub(super) fn js_packages(name: &str, args: &[Word]) -> Judgement {
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

pub(super) fn lang_packages(name: &str, args: &[Word]) -> Judgement {
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

pub(super) fn go(args: &[Word]) -> Judgement {
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

pub(super) fn build_tool(name: &str, args: &[Word]) -> Judgement {
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

pub(super) fn system_packages(name: &str, args: &[Word]) -> Judgement {
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
