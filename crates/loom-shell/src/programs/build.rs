//! Build and test tools: cargo, go, make, formatters and the common build and test
//! programs, judged by their subcommands and by proof of their options.
//!
//! Building and testing the project is low risk (it runs the project's own code, which
//! the person reviewed as it was written); that verdict needs proof too: options outside a
//! tool's table, options that name a program to run (`cargo --config target.x.runner=…`,
//! `go build -toolexec`), write outside the workspace (`-o /etc/x`) or read code from
//! elsewhere (`make -f -`) make the call ask.

use super::super::options::{Spec, Unproven, parse};
use super::super::parse::Word;
use super::super::{Place, Risk};
use super::dev::with_prefix;
use super::{Judgement, State, judge, reads, writes_at};

fn unproven(e: Unproven, program: &str) -> Judgement {
    super::unproven(e, program)
}

#[rustfmt::skip]
const CARGO_COMMON: &[&str] = &[
    "release", "profile=", "package=", "workspace", "all", "exclude=", "lib", "bin=", "bins",
    "example=", "examples", "test=", "tests", "bench=", "benches", "all-targets", "features=",
    "all-features", "no-default-features", "target=", "target-dir=", "jobs=", "keep-going",
    "message-format=", "color=", "frozen", "locked", "offline", "quiet", "verbose", "no-run",
    "no-fail-fast", "doc", "no-deps", "document-private-items", "timings?",
    "future-incompat-report", "ignore-rust-version", "manifest-path=", "fix", "allow-dirty",
    "allow-staged", "allow-no-vcs", "broken-code", "build-plan", "unit-graph", "help", "bins",
    "workspace", "lockfile-path=", "artifact-dir=", "out-dir=", "no-capture", "nocapture",
    "test-threads=", "partition=", "archive-file=", "cargo-profile=", "profile=", "run-ignored=",
    "retries=", "fail-fast", "hide-progress-bar", "status-level=", "final-status-level=",
    "success-output=", "failure-output=", "no-tests=", "filterset=", "workspace-remap=",
];

/// `cargo`: judged by its subcommand, and by proof of its options for builds and tests.
pub(super) fn cargo(args: &[Word], state: &State) -> Judgement {
    let mut i = 0;
    let mut floor = judge(Risk::ReadOnly, "cargo");
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        if w.dynamic {
            return judge(
                Risk::Medium,
                format!("the cargo argument `{t}` is only known at run time"),
            );
        }
        match t {
            _ if t.starts_with('+') => i += 1,
            "-v" | "-vv" | "-q" | "--verbose" | "--quiet" | "--frozen" | "--locked"
            | "--offline" | "--version" | "-V" | "--list" | "-h" | "--help" => {
                if matches!(t, "--version" | "-V" | "--list" | "-h" | "--help") {
                    return judge(Risk::ReadOnly, "cargo only prints");
                }
                i += 1
            }
            "--color" => i += 2,
            "--config" | "-Z" | "-C" => {
                floor = floor.worst(cargo_setting(
                    t,
                    args.get(i + 1).map(|w| w.text.as_str()).unwrap_or(""),
                ));
                i += 2;
            }
            _ if t.starts_with("--config=") || t.starts_with("-Z") || t.starts_with("--color=") => {
                if !t.starts_with("--color=") {
                    floor = floor.worst(cargo_setting(
                        t,
                        t.split_once('=').map(|x| x.1).unwrap_or(&t[2..]),
                    ));
                }
                i += 1;
            }
            _ if t.starts_with('-') => {
                return judge(Risk::Medium, format!("unrecognised option {t} for cargo"));
            }
            _ => break,
        }
    }
    let sub = args.get(i).map(|w| w.text.as_str()).unwrap_or("");
    let rest = args.get(i + 1..).unwrap_or(&[]);
    let j = match sub {
        "" | "version" | "help" => judge(Risk::ReadOnly, "cargo only prints"),
        "metadata" | "tree" | "pkgid" | "locate-project" | "verify-project" | "read-manifest" => {
            let spec = Spec {
                flags: "pieqvd",
                valued: "pef",
                long: long_of(&[
                    "format-version=",
                    "no-deps",
                    "filter-platform=",
                    "depth=",
                    "prefix=",
                    "no-dedupe",
                    "duplicates",
                    "charset=",
                    "format=",
                    "edges=",
                    "invert=",
                    "prune=",
                    "workspace",
                    "message-format=",
                    "offline",
                    "frozen",
                    "locked",
                    "features=",
                    "all-features",
                    "no-default-features",
                    "target=",
                    "manifest-path=",
                    "package=",
                    "quiet",
                    "verbose",
                    "color=",
                    "exclude=",
                    "all-targets",
                    "plain",
                ]),
                numeric: false,
            };
            match parse(&spec, rest, false) {
                Ok(p) => {
                    let mut j = judge(Risk::ReadOnly, format!("cargo {sub} only reads"));
                    for v in p.values(&["--manifest-path"]) {
                        j = j.worst(reads(&v.word(), state));
                    }
                    j
                }
                Err(e) => unproven(e, &format!("cargo {sub}")),
            }
        }
        "build" | "b" | "check" | "c" | "test" | "t" | "bench" | "clippy" | "doc" | "d" | "run"
        | "r" | "nextest" | "miri" | "llvm-cov" | "criterion" => cargo_build(sub, rest, state),
        "fmt" => {
            if rest.iter().any(|w| w.text == "--check") {
                judge(Risk::Low, "cargo fmt --check only checks formatting")
            } else {
                judge(Risk::Medium, "cargo fmt writes files in the workspace")
            }
        }
        "fix" | "clean" | "new" | "init" | "generate-lockfile" | "vendor" | "package" => judge(
            Risk::Medium,
            format!("cargo {sub} writes files in the workspace"),
        ),
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
    with_prefix(j, vec!["cargo".into(), sub.to_string()]).worst(floor)
}

fn long_of(list: &'static [&'static str]) -> &'static [&'static str] {
    list
}

/// A build's output path: fine inside the workspace; high outside it or when it names a
/// protected path (a build writing `.git/hooks/pre-commit`).
pub(super) fn outside_output(w: &Word, state: &State) -> Judgement {
    match state.place(w) {
        Place::Inside(_) | Place::WorkspaceRoot | Place::Harmless => {
            match super::super::place::protected(w, &state.ctx, loom_base::paths::Access::Write) {
                Some(reason) => judge(Risk::High, reason),
                None => judge(Risk::ReadOnly, "writes its output in the workspace"),
            }
        }
        _ => writes_at(w, state, "writes its output to"),
    }
}

/// `cargo --config KEY=VALUE`, `-Z FLAG`, `-C DIR`.
fn cargo_setting(option: &str, value: &str) -> Judgement {
    let key = value
        .split('=')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let runs = [
        "runner",
        "rustc",
        "rustc-wrapper",
        "rustc-workspace-wrapper",
        "linker",
        "rustdoc",
        "rustflags",
        "rustdocflags",
        "alias",
        "credential-provider",
        "global-credential-providers",
        "env",
    ];
    if option.starts_with("--config")
        && (runs
            .iter()
            .any(|r| key.ends_with(r) || key.contains(&format!("{r}.")))
            || value.ends_with(".toml"))
    {
        return judge(
            Risk::High,
            format!("cargo --config {key} names a program or flags cargo will run"),
        );
    }
    judge(
        Risk::Medium,
        format!("cargo {option} {value} changes how cargo builds"),
    )
}

fn cargo_build(sub: &str, rest: &[Word], state: &State) -> Judgement {
    let split = rest
        .iter()
        .position(|w| w.text == "--")
        .unwrap_or(rest.len());
    let (own, passed) = rest.split_at(split);
    let own: Vec<Word> = if sub == "nextest"
        && own
            .first()
            .is_some_and(|w| w.text == "run" || w.text == "list")
    {
        own[1..].to_vec()
    } else {
        own.to_vec()
    };
    let spec = Spec {
        flags: "rqvhE",
        valued: "pFjE",
        long: CARGO_COMMON,
        numeric: false,
    };
    let parsed = match parse(&spec, &own, false) {
        Ok(p) => p,
        Err(e) => return unproven(e, &format!("cargo {sub}")),
    };
    let mut j = judge(
        Risk::Low,
        format!("cargo {sub} builds or tests the project"),
    );
    if parsed.has(&["--fix"]) {
        j = j.at_least(Risk::Medium, format!("cargo {sub} --fix rewrites files"));
    }
    if parsed.has(&["--open"]) {
        j = j.at_least(Risk::Medium, "opens a browser");
    }
    for v in parsed.values(&["--target-dir", "--artifact-dir", "--out-dir"]) {
        j = j.worst(outside_output(&v.word(), state));
    }
    for v in parsed.values(&["--manifest-path"]) {
        if !matches!(state.place(&v.word()), Place::Inside(_)) {
            j = j.at_least(
                Risk::Medium,
                format!("builds the project at {}, outside the workspace", v.text()),
            );
        }
    }
    let passed = passed.get(1..).unwrap_or(&[]);
    if matches!(sub, "test" | "t" | "bench" | "nextest")
        && passed
            .iter()
            .any(|w| w.text == "--logfile" || w.text.starts_with("--logfile="))
    {
        j = j.at_least(Risk::Medium, "the test harness writes a log file");
    }
    j
}

/// `go`: judged by its subcommand; builds and tests by their flags, and `-toolexec`,
/// `-exec` and `-vettool` by the program they run.
pub(super) fn go(args: &[Word], state: &State, depth: usize) -> Judgement {
    let mut i = 0;
    while args.get(i).is_some_and(|w| w.text == "-C") {
        i += 2;
    }
    let sub = args.get(i).map(|w| w.text.as_str()).unwrap_or("");
    let rest = args.get(i + 1..).unwrap_or(&[]);
    let j = match sub {
        "" | "version" | "env" | "doc" | "help"
            if rest.iter().all(|w| w.text != "-w" && w.text != "-u") =>
        {
            judge(Risk::ReadOnly, format!("go {sub} only reads"))
        }
        "list" => go_list(rest, state, depth),
        // `go run example.com/tool@v1`: a module fetched from the network and run.
        "run" | "build" | "test" | "vet"
            if rest
                .iter()
                .any(|w| !w.text.starts_with('-') && w.text.contains('@')) =>
        {
            go_build(
                sub,
                rest,
                state,
                depth,
                judge(
                    Risk::Medium,
                    format!("go {sub} of a module at a version fetches and runs its code"),
                )
                .net(),
            )
        }
        "build" | "test" | "vet" | "run" => go_build(
            sub,
            rest,
            state,
            depth,
            judge(Risk::Low, format!("go {sub} builds or tests the project")),
        ),
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
        "get" | "install" | "mod" | "work" | "clean" | "env" => judge(
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

/// `go list`: its own flags (`-f`, `-json`, `-m`, …) only read, except `-export` and
/// `-compiled`, which compile (so `-toolexec` runs), and `-u`/`-versions`, which ask the
/// module proxy; the build flags it also takes are judged as for `go build`.
fn go_list(rest: &[Word], state: &State, depth: usize) -> Judgement {
    const BOOL: &[&str] = &["-json", "-m", "-e", "-deps", "-test", "-find", "-retracted"];
    let mut base = judge(Risk::ReadOnly, "go list only reads");
    let mut build_flags: Vec<Word> = Vec::new();
    let mut i = 0;
    while i < rest.len() {
        let w = &rest[i];
        i += 1;
        let t = w.text.as_str();
        if !t.starts_with('-') {
            continue;
        }
        let (name, glued) = match t.split_once('=') {
            Some((n, v)) => (
                n.strip_prefix('-')
                    .filter(|n| n.starts_with('-'))
                    .unwrap_or(n),
                Some(v),
            ),
            None => (
                t.strip_prefix('-')
                    .filter(|n| n.starts_with('-'))
                    .unwrap_or(t),
                None,
            ),
        };
        match name {
            _ if BOOL.contains(&name) => {}
            "-compiled" | "-export" => {
                base = base.at_least(Risk::Low, format!("go list {name} compiles the packages"));
            }
            "-u" | "-versions" => {
                base = base
                    .at_least(
                        Risk::Medium,
                        format!("go list {name} asks the module proxy"),
                    )
                    .net();
            }
            "-f" | "-reuse" => {
                let value = match glued {
                    Some(v) => Word::literal(v),
                    None => {
                        i += 1;
                        rest.get(i - 1).cloned().unwrap_or_default()
                    }
                };
                if name == "-reuse" {
                    base = base.worst(reads(&value, state));
                }
            }
            _ => {
                build_flags.push(w.clone());
                if glued.is_none()
                    && let Some(next) = rest.get(i).filter(|n| !n.text.starts_with('-'))
                {
                    build_flags.push(next.clone());
                    i += 1;
                }
            }
        }
    }
    go_build("list", &build_flags, state, depth, base)
}

/// The build flags of `go build`, `test`, `vet`, `run` (and `list`), on top of `base`.
fn go_build(sub: &str, rest: &[Word], state: &State, depth: usize, base: Judgement) -> Judgement {
    let split = rest
        .iter()
        .position(|w| w.text == "-args" || w.text == "--args")
        .unwrap_or(rest.len());
    const BOOL: &[&str] = &[
        "-v",
        "-x",
        "-a",
        "-n",
        "-race",
        "-msan",
        "-asan",
        "-cover",
        "-trimpath",
        "-short",
        "-failfast",
        "-json",
        "-benchmem",
        "-i",
        "-linkshared",
        "-buildvcs",
        "-modcacherw",
        "-work",
    ];
    const VALUED: &[&str] = &[
        "-o",
        "-tags",
        "-ldflags",
        "-gcflags",
        "-asmflags",
        "-mod",
        "-p",
        "-count",
        "-run",
        "-bench",
        "-benchtime",
        "-timeout",
        "-cpu",
        "-parallel",
        "-covermode",
        "-coverpkg",
        "-coverprofile",
        "-cpuprofile",
        "-memprofile",
        "-blockprofile",
        "-mutexprofile",
        "-trace",
        "-outputdir",
        "-buildmode",
        "-compiler",
        "-pgo",
        "-shuffle",
        "-skip",
        "-list",
        "-vet",
        "-fullpath",
    ];
    const WRITES: &[&str] = &[
        "-o",
        "-coverprofile",
        "-cpuprofile",
        "-memprofile",
        "-blockprofile",
        "-mutexprofile",
        "-trace",
        "-outputdir",
    ];
    let mut j = base;
    let mut i = 0;
    while i < split {
        let t = rest[i].text.as_str();
        let (name, glued) = match t.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (t, None),
        };
        let name = if name.starts_with("--") {
            &name[1..]
        } else {
            name
        };
        if !t.starts_with('-') {
            i += 1;
            continue;
        }
        if matches!(name, "-toolexec" | "-exec" | "-vettool") {
            let program = match glued {
                Some(v) => {
                    i += 1;
                    Word::literal(v).with_dynamic(rest[i - 1].dynamic)
                }
                None => {
                    i += 2;
                    rest.get(i - 1).cloned().unwrap_or_default()
                }
            };
            j = j.worst(
                judge(
                    Risk::Medium,
                    format!("go {sub} {name} runs {} on the build's tools", program.text),
                )
                .ungrantable()
                .worst(if program.dynamic {
                    judge(
                        Risk::High,
                        format!("go {sub} {name} runs a program only known at run time"),
                    )
                } else {
                    super::nested(&program.text, state, depth, &format!("go {sub} {name}"))
                }),
            );
            continue;
        }
        if matches!(name, "-overlay" | "-modfile" | "-pkgdir") {
            return j.at_least(
                Risk::Medium,
                format!("go {sub} {name} names a program or files outside the project"),
            );
        }
        if BOOL.contains(&name) {
            i += 1;
            continue;
        }
        if !VALUED.contains(&name) {
            return j.at_least(
                Risk::Medium,
                format!("unrecognised option {name} for go {sub}"),
            );
        }
        let value = match glued {
            Some(v) => {
                i += 1;
                Word::literal(v)
            }
            None => {
                i += 2;
                rest.get(i - 1).cloned().unwrap_or_default()
            }
        };
        if WRITES.contains(&name) {
            j = j.worst(outside_output(&value, state));
        }
        if name == "-ldflags" && value.text.contains("-extld") {
            j = j.at_least(
                Risk::Medium,
                "go -ldflags -extld names an external linker to run",
            );
        }
    }
    j
}
