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
use super::super::{Place, Risk, vars};
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
fn outside_output(w: &Word, state: &State) -> Judgement {
    match state.place(w) {
        Place::Inside(_) | Place::WorkspaceRoot | Place::Harmless => {
            match super::super::place::protected(w, &state.ctx, crate::policy::paths::Access::Write)
            {
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

pub(super) fn go(args: &[Word], state: &State) -> Judgement {
    let mut i = 0;
    while args.get(i).is_some_and(|w| w.text == "-C") {
        i += 2;
    }
    let sub = args.get(i).map(|w| w.text.as_str()).unwrap_or("");
    let rest = args.get(i + 1..).unwrap_or(&[]);
    let j = match sub {
        "" | "version" | "env" | "list" | "doc" | "help"
            if rest.iter().all(|w| w.text != "-w" && w.text != "-u") =>
        {
            judge(Risk::ReadOnly, format!("go {sub} only reads"))
        }
        "build" | "test" | "vet" | "run" => go_build(sub, rest, state),
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

fn go_build(sub: &str, rest: &[Word], state: &State) -> Judgement {
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
    let mut j = judge(Risk::Low, format!("go {sub} builds or tests the project"));
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
        if matches!(
            name,
            "-toolexec" | "-exec" | "-overlay" | "-modfile" | "-pkgdir"
        ) {
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

/// `make`: runs the project's recipes (low); reading a makefile from elsewhere, evaluating
/// make code, overriding variables that name programs, or install targets ask.
pub(super) fn make(args: &[Word], state: &State) -> Judgement {
    let spec = Spec {
        flags: "bBdeikLnpqrRsStvwO",
        valued: "fCIjloWE",
        long: &[
            "always-make",
            "debug?",
            "environment-overrides",
            "ignore-errors",
            "keep-going",
            "check-symlink-times",
            "just-print",
            "dry-run",
            "recon",
            "print-data-base",
            "question",
            "no-builtin-rules",
            "no-builtin-variables",
            "silent",
            "quiet",
            "no-keep-going",
            "stop",
            "touch",
            "trace",
            "version",
            "print-directory",
            "no-print-directory",
            "warn-undefined-variables",
            "file=",
            "makefile=",
            "directory=",
            "include-dir=",
            "jobs?",
            "load-average?",
            "max-load?",
            "old-file=",
            "assume-old=",
            "what-if=",
            "new-file=",
            "assume-new=",
            "output-sync?",
            "eval=",
            "help",
        ],
        numeric: false,
    };
    let words: Vec<Word> = args
        .iter()
        .map(|w| {
            let t = w.text.as_str();
            if t.len() > 2
                && (t.starts_with("-j") || t.starts_with("-O") || t.starts_with("-l"))
                && t[2..]
                    .chars()
                    .all(|c| c.is_ascii_digit() || c.is_ascii_alphabetic())
            {
                Word::literal(&t[..2])
            } else {
                w.clone()
            }
        })
        .collect();
    let parsed = match parse(&spec, &words, false) {
        Ok(p) => p,
        Err(Unproven::MissingValue(o)) if o == "-j" => {
            return judge(Risk::Low, "runs the project's make recipes");
        }
        Err(e) => return unproven(e, "make"),
    };
    let mut j = judge(Risk::Low, "runs the project's make recipes");
    if parsed.has(&["-E", "--eval"]) {
        j = j.at_least(
            Risk::Medium,
            "make --eval runs make code given on the command line",
        );
    }
    if parsed.has(&["-t", "--touch"]) {
        j = j.at_least(Risk::Medium, "make --touch changes file timestamps");
    }
    for v in parsed.values(&["-f", "--file", "--makefile"]) {
        let w = v.word();
        if w.text == "-" || w.dynamic {
            j = j.at_least(
                Risk::Medium,
                "make reads its makefile from its input or a run-time path",
            );
        } else if !matches!(state.place(&w), Place::Inside(_)) {
            j = j.at_least(
                Risk::Medium,
                format!("runs the recipes of {}, outside the workspace", w.text),
            );
        }
    }
    for v in parsed.values(&["-C", "--directory", "-I", "--include-dir"]) {
        if !matches!(
            state.place(&v.word()),
            Place::Inside(_) | Place::WorkspaceRoot
        ) {
            j = j.at_least(
                Risk::Medium,
                format!("make uses {}, outside the workspace", v.text()),
            );
        }
    }
    for w in &parsed.operands {
        if let Some((var, _)) = w.text.split_once('=') {
            let danger = vars::dangerous(var).or_else(|| {
                matches!(var, "SHELL" | "MAKE" | ".SHELLFLAGS" | "MAKESHELL")
                    .then(|| format!("sets {var}, which changes what make runs"))
            });
            if let Some(reason) = danger {
                j = j.at_least(Risk::High, reason);
            }
        } else if matches!(
            w.text.as_str(),
            "install" | "uninstall" | "deploy" | "publish" | "release"
        ) {
            j = j.at_least(
                Risk::High,
                "runs an install or deploy recipe that may write outside the workspace",
            );
        }
    }
    j
}

pub(super) fn formatter(name: &str, args: &[Word]) -> Judgement {
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

/// Options of common build and test tools that are known not to write outside the
/// workspace, run other programs or load code from elsewhere.
#[rustfmt::skip]
fn build_options(name: &str) -> Option<Spec> {
    Some(match name {
        "pytest" | "py.test" => Spec {
            flags: "xqvsrlh",
            valued: "kmn",
            long: &[
                "exitfirst", "quiet", "verbose", "tb=", "maxfail=", "lf", "last-failed", "ff",
                "failed-first", "nf", "new-first", "sw", "stepwise", "co", "collect-only",
                "durations=", "disable-warnings", "no-header", "no-summary", "showlocals",
                "capture=", "runxfail", "strict-markers", "color=", "cov?", "cov-report=",
                "numprocesses=", "ignore=", "deselect=", "rootdir=", "import-mode=", "timeout=",
                "doctest-modules", "help", "version", "full-trace", "log-level=",
                "log-cli-level=", "pdb",
            ],
            numeric: false,
        },
        "mypy" | "pyright" | "flake8" | "pylint" | "ruff" | "black" | "isort" => Spec {
            flags: "qv",
            valued: "",
            long: &[
                "strict", "ignore-missing-imports", "check", "diff", "quiet", "verbose",
                "show-error-codes", "no-error-summary", "pretty", "config-file=", "select=",
                "ignore=", "max-line-length=", "output-format=", "statistics", "exclude=",
                "python-version=", "fix", "no-fix", "unsafe-fixes", "show-fixes", "help",
                "version", "follow-imports=", "extend-select=", "extend-ignore=", "line-length=",
                "count",
            ],
            numeric: false,
        },
        "tsc" => Spec {
            flags: "bpw",
            valued: "p",
            long: &[
                "noEmit", "project=", "build", "strict", "pretty", "incremental", "listFiles",
                "noEmitOnError", "skipLibCheck", "declaration", "emitDeclarationOnly", "target=",
                "module=", "jsx=", "lib=", "watch", "help", "version", "showConfig",
                "extendedDiagnostics",
            ],
            numeric: false,
        },
        "eslint" | "prettier" | "biome" | "stylua" => Spec {
            flags: "c",
            valued: "",
            long: &[
                "check", "list-different", "ext=", "max-warnings=", "quiet", "format=", "cache",
                "no-cache", "color", "no-color", "fix", "write", "ignore-path=",
                "no-error-on-unmatched-pattern", "report-unused-disable-directives", "help",
                "version",
            ],
            numeric: false,
        },
        "jest" | "vitest" | "mocha" => Spec {
            flags: "ut",
            valued: "t",
            long: &[
                "coverage", "ci", "runInBand", "silent", "verbose", "passWithNoTests", "watch",
                "watchAll", "testNamePattern=", "bail?", "run", "reporter=", "update", "grep=",
                "onlyChanged", "detectOpenHandles", "forceExit", "maxWorkers=", "help",
                "version",
            ],
            numeric: false,
        },
        "gcc" | "g++" | "cc" | "c++" | "clang" | "clang++" => Spec {
            flags: "cSEgswvpP",
            valued: "oIDULlx",
            long: &["help", "version"],
            numeric: false,
        },
        "mvn" | "mvnw" => Spec {
            flags: "qBeXoUNV",
            valued: "DPTl",
            long: &[
                "batch-mode", "quiet", "offline", "errors", "also-make", "projects=",
                "fail-at-end", "no-transfer-progress", "version", "help",
            ],
            numeric: false,
        },
        "gradle" | "gradlew" => Spec {
            flags: "qiswd",
            valued: "xPD",
            long: &[
                "no-daemon", "daemon", "info", "stacktrace", "scan", "offline", "parallel",
                "build-cache", "continue", "console=", "warning-mode=", "quiet", "help",
                "version",
            ],
            numeric: false,
        },
        _ => return None,
    })
}

pub(super) fn build_tool(name: &str, args: &[Word], state: &State) -> Judgement {
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
        "black" | "isort" => !args
            .iter()
            .any(|w| w.text == "--check" || w.text == "--diff"),
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
        return judge(Risk::Medium, format!("`{name}` rewrites files"));
    }
    let base = judge(
        Risk::Low,
        format!("`{name}` builds, tests or checks the project"),
    );
    let Some(spec) = build_options(name) else {
        return match args.iter().find(|w| {
            w.text.starts_with('-')
                && !matches!(
                    w.text.as_str(),
                    "--version" | "--help" | "-h" | "-v" | "-q" | "--verbose" | "--quiet"
                )
        }) {
            Some(w) => judge(
                Risk::Medium,
                format!("unrecognised option {} for {name}", w.text),
            ),
            None => base,
        };
    };
    let lenient: Vec<Word> = args
        .iter()
        .map(|w| {
            let t = w.text.as_str();
            let gcc_like = matches!(name, "gcc" | "g++" | "cc" | "c++" | "clang" | "clang++");
            let safe_prefix = gcc_like
                && (t.starts_with("-W")
                    && !t.starts_with("-Wl,")
                    && !t.starts_with("-Wp,")
                    && !t.starts_with("-Wa,")
                    || t.starts_with("-O")
                    || t.starts_with("-std=")
                    || t.starts_with("-f") && !t.starts_with("-fplugin")
                    || t.starts_with("-m") && !t.contains("plugin")
                    || t == "-pedantic"
                    || t == "-pthread"
                    || t == "-shared"
                    || t == "-static");
            if safe_prefix {
                Word::literal("-c")
            } else {
                w.clone()
            }
        })
        .collect();
    match parse(&spec, &lenient, false) {
        Ok(p) => {
            let mut j = base;
            for v in p.values(&["-o"]) {
                j = j.worst(outside_output(&v.word(), state));
            }
            j
        }
        Err(e) => unproven(e, name),
    }
}
