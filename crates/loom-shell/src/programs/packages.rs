//! Package managers: the system's (`apt`, `dnf`, `pacman`, `brew`, …), JavaScript's
//! (`npm`, `yarn`, `pnpm`, `bun`) and the languages' (`pip`, `uv`, `poetry`, `conda`,
//! `gem`, …), judged by their subcommand.
//!
//! The subcommand is only trusted when nothing before it could have taken it as a value:
//! `dnf -x list install pkg` excludes `list` and installs `pkg`, so an option Loom does
//! not know before the subcommand makes the call "installs". Reading commands that ask
//! the network (`npm view`, `brew info`, `dnf list`) are low and use the network;
//! reading a credential (`npm config get …:_authToken`) is high; "read" subcommands that
//! write (`uv tree` locks the project, `poetry env remove`) are medium.

use super::super::Risk;
use super::super::parse::Word;
use super::dev::{interpreter, with_prefix};
use super::{Judgement, State, is_flag, judge, program};

/// Options that take no value and may come before a system package manager's subcommand.
const BOOLEAN_BEFORE_SUB: &[&str] = &[
    "-q",
    "-qq",
    "-y",
    "--yes",
    "--quiet",
    "-v",
    "--verbose",
    "-C",
    "--cacheonly",
    "--assumeno",
    "--no-pager",
    "--noconfirm",
    "--color=never",
    "--color=always",
];

/// The subcommand of a system package manager, or `None` when an option before it is
/// one Loom does not know (it may take the next word as its value).
fn system_subcommand(args: &[Word]) -> Option<&str> {
    for w in args {
        if !is_flag(w) {
            return Some(w.text.as_str());
        }
        if !BOOLEAN_BEFORE_SUB.contains(&w.text.as_str()) {
            return None;
        }
    }
    Some("")
}

/// `pacman`: an operation flag decides; only queries (`-Q…`, `-Ss`, `-Si`, `-Sl`, `-Sg`,
/// `-F` searches) read, and any other operation anywhere in the call changes the system.
fn pacman(args: &[Word]) -> Judgement {
    let installs = judge(Risk::High, "`pacman` installs or removes system packages").net();
    let Some(op) = args.first().and_then(|w| w.text.strip_prefix('-')) else {
        return installs;
    };
    let reads = match op.chars().next() {
        Some('Q') => true,
        Some('S') => {
            let rest = &op[1..];
            !rest.is_empty()
                && rest.chars().all(|c| "silgqv".contains(c))
                && rest.contains(['s', 'i', 'l', 'g'])
        }
        Some('F') => op[1..].chars().all(|c| "slxqo".contains(c)),
        Some('V') | Some('h') => op.len() == 1,
        _ => false,
    };
    let another_op = args[1..].iter().any(|w| {
        let t = w.text.as_str();
        matches!(
            t,
            "--sync" | "--remove" | "--upgrade" | "--database" | "--files" | "--deptest"
        ) || (t.starts_with('-')
            && !t.starts_with("--")
            && t[1..].contains(['S', 'R', 'U', 'D', 'F', 'y', 'u']))
    });
    if reads && !another_op && args.iter().all(|w| !w.dynamic) {
        judge(Risk::ReadOnly, "`pacman` only queries packages")
    } else {
        installs
    }
}

/// Options that change a package manager's configuration for the call (`apt -o
/// APT::Update::Pre-Invoke::=CMD`, `dnf --setopt`, another config file or root).
fn sets_configuration(name: &str, t: &str) -> bool {
    let options: &[&str] = match name {
        "apt" | "apt-get" | "apt-cache" => &["-o", "--option", "-c", "--config-file"],
        "dnf" | "yum" => &[
            "--setopt",
            "-c",
            "--config",
            "--installroot",
            "--pluginpath",
        ],
        "zypper" => &["-c", "--config", "--root", "-R"],
        "apk" => &["-p", "--root", "--repositories-file", "-X", "--repository"],
        _ => &[],
    };
    options.iter().any(|o| {
        t == *o
            || (o.starts_with("--") && t.starts_with(&format!("{o}=")))
            || (!o.starts_with("--") && t.len() > 2 && t.starts_with(o))
    })
}

/// System package managers: listing and searching read (some over the network); any
/// other subcommand, or one Loom cannot be sure of, installs or removes packages.
pub(super) fn system_packages(name: &str, args: &[Word]) -> Judgement {
    if name == "pacman" {
        return pacman(args);
    }
    let installs = judge(
        Risk::High,
        format!("`{name}` installs or removes system packages"),
    )
    .net();
    if args.iter().any(|w| w.dynamic) {
        return installs;
    }
    if let Some(w) = args.iter().find(|w| sets_configuration(name, &w.text)) {
        return judge(
            Risk::High,
            format!(
                "{name} {} changes its configuration, which can name programs it runs",
                w.text
            ),
        )
        .net();
    }
    if name == "nix-env" {
        return if args
            .iter()
            .any(|w| matches!(w.text.as_str(), "-q" | "--query"))
            && !args
                .iter()
                .any(|w| matches!(w.text.as_str(), "-i" | "--install" | "-e" | "--uninstall"))
        {
            judge(Risk::ReadOnly, "`nix-env -q` lists packages")
        } else {
            installs
        };
    }
    let Some(sub) = system_subcommand(args) else {
        return installs;
    };
    let local = judge(
        Risk::ReadOnly,
        format!("{name} {sub} only reads package information"),
    );
    let refreshes = judge(
        Risk::Low,
        format!("{name} {sub} reads package information, refreshing it over the network"),
    )
    .net();
    let cache_only = args
        .iter()
        .any(|w| matches!(w.text.as_str(), "-C" | "--cacheonly"));
    match (name, sub) {
        ("apt", "list" | "search" | "show" | "policy" | "showsrc" | "depends" | "rdepends")
        | (
            "apt-cache",
            "search" | "show" | "showpkg" | "showsrc" | "policy" | "madison" | "depends"
            | "rdepends" | "pkgnames" | "stats",
        )
        | ("apk", "info" | "search" | "list" | "policy")
        | ("brew", "list" | "ls" | "deps" | "uses" | "config" | "leaves" | "--prefix")
        | ("snap", "list" | "version" | "connections")
        | ("flatpak", "list" | "info" | "search")
        | ("port", "installed" | "search" | "info" | "list" | "contents" | "deps") => local,
        ("dnf" | "yum", "list" | "search" | "info" | "repolist" | "provides" | "deplist") => {
            if cache_only {
                local
            } else {
                refreshes
            }
        }
        ("zypper", "search" | "se" | "info" | "if" | "packages" | "repos" | "lr")
        | ("brew", "info" | "search" | "desc" | "outdated")
        | ("snap", "info" | "find")
        | ("flatpak", "remote-ls") => refreshes,
        _ => installs,
    }
}

/// Whether an npm-style configuration key names a credential.
fn credential_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    [
        "auth", "token", "password", "_pass", "secret", "otp", "certfile", "keyfile",
    ]
    .iter()
    .any(|c| k.contains(c))
}

/// `npm`, `yarn`, `pnpm`, `bun`: judged by their subcommand.
pub(super) fn js_packages(name: &str, args: &[Word]) -> Judgement {
    let rest = skip_js_options(args);
    let sub = rest
        .first()
        .map(|w| w.text.as_str())
        .unwrap_or(if name == "yarn" { "install" } else { "" });
    let after = rest.get(1..).unwrap_or(&[]);
    let j = match sub {
        "" | "-v" | "--version" | "help" | "ls" | "list" | "why" | "prefix" | "root" | "bin" => {
            judge(Risk::ReadOnly, format!("{name} {sub} only reads"))
        }
        "view" | "info" | "show" | "v" | "search" | "s" | "find" | "outdated" => judge(
            Risk::Low,
            format!("{name} {sub} asks the package registry over the network"),
        )
        .net(),
        "config" | "get"
            if sub == "get"
                || after
                    .first()
                    .is_some_and(|w| matches!(w.text.as_str(), "get" | "list" | "ls")) =>
        {
            config_get(name, sub, after)
        }
        "config" | "set" => judge(
            Risk::High,
            format!("{name} config changes settings that can run programs (script-shell)"),
        ),
        "test" | "t" | "run" | "run-script" | "start" | "build" | "lint" | "typecheck" | "tsc"
        | "jest" | "vitest" => project_script(name, sub, after),
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
        _ if name == "yarn" || name == "pnpm" || name == "bun" => {
            judge(Risk::Low, format!("{name} {sub} runs a project script"))
        }
        _ => judge(
            Risk::Medium,
            format!("`{name} {sub}` is not a command Loom knows"),
        ),
    };
    if j.prefix.is_empty() {
        with_prefix(j, vec![name.to_string(), sub.to_string()])
    } else {
        j
    }
}

/// `npm config get KEY`, `npm get KEY`, `npm config list`: only reads, unless a key
/// printed is a registry credential (or only known at run time).
fn config_get(name: &str, sub: &str, after: &[Word]) -> Judgement {
    let keys = if sub == "get" {
        after
    } else {
        after.get(1..).unwrap_or(&[])
    };
    match keys
        .iter()
        .find(|w| !is_flag(w) && (w.dynamic || credential_key(&w.text)))
    {
        Some(key) => judge(
            Risk::High,
            format!(
                "{name} config get {} prints a registry credential",
                key.text
            ),
        ),
        None => judge(Risk::ReadOnly, format!("{name} config only reads")),
    }
}

/// `npm test`, `npm run NAME`, ...: a project script, whose grant covers the script's
/// name for `run`.
fn project_script(name: &str, sub: &str, after: &[Word]) -> Judgement {
    let script = if matches!(sub, "run" | "run-script") {
        after.first().map(|w| w.text.clone())
    } else {
        None
    };
    let mut j = judge(Risk::Low, format!("{name} {sub} runs a project script"));
    if let Some(s) = script {
        j.prefix = vec![name.to_string(), sub.to_string(), s];
    }
    j
}

fn skip_js_options(args: &[Word]) -> &[Word] {
    let mut i = 0;
    while let Some(w) = args.get(i) {
        match w.text.as_str() {
            "--prefix" | "-C" | "--dir" | "--cwd" | "--filter" | "-w" | "--workspace" => i += 2,
            "--silent" | "-s" | "--quiet" | "-q" | "--workspaces" | "--if-present"
            | "--recursive" | "-r" => i += 1,
            t if t.starts_with("--prefix=")
                || t.starts_with("--workspace=")
                || t.starts_with("--filter=") =>
            {
                i += 1
            }
            _ => break,
        }
    }
    &args[i.min(args.len())..]
}

/// `env` of poetry and conda: listing and showing read; the rest changes environments.
fn env_subcommand(name: &str, rest: &[Word]) -> Judgement {
    let action = rest.iter().find(|w| !is_flag(w)).map(|w| w.text.as_str());
    let writes_file = rest
        .iter()
        .any(|w| matches!(w.text.as_str(), "-f" | "--file") || w.text.starts_with("--file="));
    match action {
        Some("list" | "info") | None => judge(Risk::ReadOnly, format!("{name} env only reads")),
        Some("export") if !writes_file => judge(Risk::ReadOnly, format!("{name} env only reads")),
        Some(a) => judge(
            Risk::Medium,
            format!("{name} env {a} creates, changes or removes an environment"),
        ),
    }
}

/// `pip`, `uv`, `poetry`, `conda`, `pipx`, `gem`, … judged by their subcommand.
pub(super) fn lang_packages(name: &str, args: &[Word]) -> Judgement {
    let mut i = 0;
    while let Some(w) = args.get(i) {
        match w.text.as_str() {
            "--python" | "-p" | "--directory" | "--project" => i += 2,
            "-q" | "--quiet" | "-v" | "--verbose" | "--no-cache" | "--offline" | "--frozen"
            | "--locked" => i += 1,
            _ => break,
        }
    }
    let first = args.get(i).map(|w| w.text.as_str());
    let rest = args.get(i + 1..).unwrap_or(&[]);
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
        "env" if matches!(name, "poetry" | "conda" | "mamba") => env_subcommand(name, rest),
        "tree"
            if name == "uv"
                && !args
                    .iter()
                    .any(|w| matches!(w.text.as_str(), "--frozen" | "--locked")) =>
        {
            judge(
                Risk::Medium,
                "uv tree locks the project first, writing uv.lock (add --frozen to only read)",
            )
            .net()
        }
        "run" if name == "pipx" => {
            judge(Risk::Medium, "pipx run downloads a package and runs it").net()
        }
        "" | "list" | "show" | "freeze" | "check" | "--version" | "help" | "info" | "outdated"
        | "tree"
            if rest.iter().all(|w| !w.text.starts_with("--target")) =>
        {
            judge(Risk::ReadOnly, format!("{name_shown} {sub} only reads"))
        }
        "run" | "exec" | "test" => judge(
            Risk::Low,
            format!("{name_shown} {sub} runs a project command"),
        ),
        "install" | "uninstall" | "add" | "remove" | "sync" | "lock" | "update" | "upgrade"
        | "download" | "venv" | "build" | "inject" | "search" => judge(
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

/// Whether a word names a script file rather than a project script (`bun ./x.ts`).
fn script_path(text: &str) -> bool {
    text.contains('/')
        || [".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tsx", ".jsx"]
            .iter()
            .any(|e| text.ends_with(e))
}

/// `uv run CMD`, `poetry run CMD`, `bundle exec CMD`: the command is judged as well; so
/// are JavaScript runtimes started through a package manager (`yarn node -e CODE`, `bun
/// -e CODE`, `bun ./x.ts`), as the interpreter they are.
pub(super) fn runs_in_env(
    name: &str,
    args: &[Word],
    state: &mut State,
    depth: usize,
) -> Option<Judgement> {
    if matches!(name, "npm" | "yarn" | "pnpm" | "bun") {
        let rest = skip_js_options(args);
        let first = rest.first()?;
        if matches!(first.text.as_str(), "exec" | "x" | "dlx") {
            let label = format!("{name} {}", first.text);
            return Some(super::package_runners::runs_package(
                &label,
                &rest[1..],
                state,
                depth,
            ));
        }
        if first.text == "node" {
            return Some(with_prefix(
                interpreter("node", &rest[1..], state, depth),
                vec![name.to_string(), "node".into()],
            ));
        }
        if name == "bun" {
            let evaluates = matches!(first.text.as_str(), "-e" | "--eval" | "-p" | "--print")
                || first.text.starts_with("--eval=")
                || first.text.starts_with("--print=");
            let script = if first.text == "run" {
                rest.get(1)
            } else {
                Some(first)
            };
            if evaluates || script.is_some_and(|w| !is_flag(w) && script_path(&w.text)) {
                let start = usize::from(first.text == "run");
                return Some(with_prefix(
                    interpreter("bun", &rest[start..], state, depth),
                    vec!["bun".into()],
                ));
            }
        }
    }
    let mut sub_at = args.iter().position(|w| !is_flag(w))?;
    // `uv tool run X` is `uvx X`.
    if name == "uv"
        && args[sub_at].text == "tool"
        && args.get(sub_at + 1).is_some_and(|w| w.text == "run")
    {
        sub_at += 1;
    }
    let sub = args[sub_at].text.as_str();
    let runs = match name {
        "uv" | "poetry" | "pipenv" | "conda" | "mamba" | "pdm" | "hatch" | "rye" => sub == "run",
        "bundle" => sub == "exec",
        "pipx" => sub == "run",
        _ => false,
    };
    if !runs {
        return None;
    }
    let rest = &args[sub_at + 1..];
    let start = rest
        .iter()
        .position(|w| !is_flag(w) || w.text == "--")
        .unwrap_or(rest.len());
    let inner = if rest.get(start).is_some_and(|w| w.text == "--") {
        &rest[start + 1..]
    } else {
        &rest[start..]
    };
    let base = lang_packages(name, args);
    if inner.is_empty() {
        return Some(base);
    }
    let j = base.worst(program(inner, state, depth, false));
    Some(with_prefix(j, vec![name.to_string(), sub.to_string()]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(name: &str, line: &str) -> Risk {
        let args: Vec<Word> = line.split_whitespace().map(Word::literal).collect();
        system_packages(name, &args).level
    }

    #[test]
    fn a_subcommand_is_trusted_only_when_no_option_could_have_taken_it() {
        assert_eq!(level("dnf", "-x list install evil"), Risk::High);
        assert_eq!(level("dnf", "-C list installed"), Risk::ReadOnly);
        assert_eq!(level("dnf", "list installed"), Risk::Low);
        assert_eq!(level("apt", "-q list --installed"), Risk::ReadOnly);
        assert_eq!(level("apt", "-o Dir=x list"), Risk::High);
        assert_eq!(level("apt", "show -o APT::x=y curl"), Risk::High);
        assert_eq!(level("dnf", "list --setopt=pluginpath=/tmp"), Risk::High);
        assert_eq!(level("pacman", "-Qi bash"), Risk::ReadOnly);
        assert_eq!(level("pacman", "-Sl"), Risk::ReadOnly);
        assert_eq!(level("pacman", "-Ss x -S y"), Risk::High);
        assert_eq!(level("pacman", "-Syu --ignore list"), Risk::High);
        assert_eq!(level("nix-env", "-q"), Risk::ReadOnly);
        assert_eq!(level("nix-env", "-iA nixpkgs.x"), Risk::High);
        assert!(credential_key("//registry.npmjs.org/:_authToken"));
        assert!(!credential_key("registry"));
    }
}
