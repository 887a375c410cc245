//! Formatters and the common build and test tools (compilers, test runners, linters):
//! building and testing the project is low, with proof of their options; what they are
//! given is judged too. A file operand that is protected is a protected read (`gcc -E -x
//! c ~/.ssh/id_rsa` prints it; `rustc` and `shellcheck` quote it in their errors); one
//! outside the workspace is code from elsewhere (`pytest /tmp/x_test.py`, `java
//! /tmp/Evil.java`), which asks; response files (`gcc @FILE`) are reads of unknown
//! options. The subcommands and options that evaluate code given on the command line
//! (`crystal eval`, `stack eval`, `sbt eval`, `mix cmd`, `mix run -e`, `elixir -e`,
//! `ghc -e`) ask, and the code is searched for a forbidden command; `stack exec CMD` is
//! judged as CMD.

use super::super::options::{Spec, parse};
use super::super::parse::Word;
use super::super::place::protected;
use super::super::{Place, Risk};
use super::build::outside_output;
use super::dev::forbidden_in_code;
use super::readonly::response_file;
use super::{Judgement, State, is_flag, judge, nested, program, reads, unproven};
use loom_base::paths::Access;

/// `rustfmt`, `black` and the other formatters: checking is low, rewriting medium.
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

/// A build or test tool: its own options ([`tool_options`]), what it evaluates
/// ([`evaluated`]) and the files it is given ([`given_paths`]).
pub(super) fn build_tool(name: &str, args: &[Word], state: &mut State, depth: usize) -> Judgement {
    let (files, rest): (Vec<Word>, Vec<Word>) = args
        .iter()
        .cloned()
        .partition(|w| w.text.len() > 1 && w.text.starts_with('@'));
    let gcc_like = matches!(name, "gcc" | "g++" | "cc" | "c++" | "clang" | "clang++");
    let j = if gcc_like {
        files.iter().fold(tool_options(name, &rest, state), |j, f| {
            j.worst(response_file(name, f, state))
        })
    } else {
        tool_options(name, args, state)
    };
    j.worst(evaluated(name, args, state, depth))
        .worst(commands_run(name, args, state, depth))
        .worst(given_paths(
            name,
            if gcc_like { &rest } else { args },
            state,
        ))
}

/// Commands a build tool is given to run: `cmake -E CMD …` and `ctest --test-command CMD`.
fn commands_run(name: &str, args: &[Word], state: &mut State, depth: usize) -> Judgement {
    match name {
        "cmake" => cmake_command_mode(args, state, depth),
        "ctest" => match args.iter().position(|w| w.text == "--test-command") {
            Some(k) => judge(Risk::Medium, "`ctest --test-command` runs a command")
                .ungrantable()
                .worst(program(&args[k + 1..], state, depth, false)),
            None => judge(Risk::ReadOnly, "no command given to run"),
        },
        _ => judge(Risk::ReadOnly, "no command given to run"),
    }
}

/// `cmake -E CMD …`, CMake's portable commands: the deleting ones are judged as the
/// `rm -rf` they are, `chdir DIR CMD…` and `env … CMD…` as the command they run, and the
/// others (copying, linking, archiving, running) are asked about each time.
fn cmake_command_mode(args: &[Word], state: &mut State, depth: usize) -> Judgement {
    let Some(k) = args.iter().position(|w| w.text == "-E") else {
        return judge(Risk::ReadOnly, "no `-E` command");
    };
    let command = &args[k + 1..];
    let Some(sub) = command.first() else {
        return judge(Risk::ReadOnly, "`cmake -E` lists its commands");
    };
    let operands = &command[1..];
    let asked = judge(
        Risk::Medium,
        format!("`cmake -E {}` writes files or runs a command", sub.text),
    )
    .ungrantable();
    match sub.text.as_str() {
        "echo" | "echo_append" | "capabilities" | "compare_files" | "md5sum" | "sha1sum"
        | "sha224sum" | "sha256sum" | "sha384sum" | "sha512sum" | "cat" | "true" | "false"
        | "sleep" => {
            let mut j = judge(
                Risk::ReadOnly,
                format!("`cmake -E {}` only reads", sub.text),
            );
            for w in operands.iter().filter(|w| !is_flag(w)) {
                if sub.text != "echo" && sub.text != "echo_append" {
                    j = j.worst(reads(w, state));
                }
            }
            j
        }
        "rm" | "remove" | "remove_directory" => {
            let mut words = vec![Word::literal("rm"), Word::literal("-rf")];
            words.extend(operands.iter().filter(|w| !is_flag(w)).cloned());
            asked.worst(program(&words, state, depth, false))
        }
        "chdir" => asked.worst(program(
            operands.get(1..).unwrap_or(&[]),
            state,
            depth,
            false,
        )),
        "env" => {
            let start = operands
                .iter()
                .position(|w| !w.text.starts_with('-') && !w.text.contains('='))
                .unwrap_or(operands.len());
            asked.worst(program(&operands[start..], state, depth, false))
        }
        _ => asked,
    }
}

/// Code given on the command line: `-e CODE`/`--eval CODE` (elixir, ghc, clj, nim, mix) and
/// the evaluating subcommands of crystal, stack, sbt and mix.
fn evaluated(name: &str, args: &[Word], state: &mut State, depth: usize) -> Judgement {
    let mut j = judge(
        Risk::ReadOnly,
        "evaluates nothing given on the command line",
    );
    let inline = |j: Judgement, code: &str, state: &State| {
        j.worst(
            judge(
                Risk::Medium,
                format!("`{name}` evaluates code given on the command line, which can do anything"),
            )
            .ungrantable(),
        )
        .worst(forbidden_in_code(code, state, depth))
    };
    let evaluates_e = matches!(name, "elixir" | "ghc" | "clj" | "nim" | "mix");
    for (i, w) in args.iter().enumerate() {
        let t = w.text.as_str();
        let code = match t {
            "-e" | "--eval" | "-eval" if evaluates_e => args.get(i + 1).map(|v| v.text.as_str()),
            _ if evaluates_e => t
                .strip_prefix("--eval=")
                .or_else(|| t.strip_prefix("--eval:")),
            _ => None,
        };
        if let Some(code) = code {
            j = inline(j, code, state);
        }
    }
    let sub_at = args.iter().position(|w| !is_flag(w));
    let sub = sub_at.map(|k| args[k].text.as_str()).unwrap_or("");
    let after = sub_at.map(|k| &args[k + 1..]).unwrap_or(&[]);
    let joined = after
        .iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    match (name, sub) {
        ("crystal", "eval" | "i" | "play") | ("stack" | "cabal", "eval" | "ghci" | "repl") => {
            j = inline(j, &joined, state);
        }
        ("stack" | "cabal", "exec") => {
            let command = match after.first() {
                Some(w) if w.text == "--" => &after[1..],
                _ => after,
            };
            j = j.worst(judge(Risk::Medium, format!("`{name} exec` runs a command")).ungrantable());
            if !command.is_empty() {
                j = j.worst(program(command, state, depth, false));
            }
        }
        ("mix", "cmd") => {
            j = j
                .worst(judge(Risk::Medium, "`mix cmd` runs a shell command").ungrantable())
                .worst(nested(&joined, state, depth, "mix cmd"));
        }
        _ => {}
    }
    if name == "sbt" {
        for w in args {
            let evaluates = w.text.split(';').any(|c| {
                let c = c.trim_start();
                ["eval", "console", "set ", "session"]
                    .iter()
                    .any(|e| c.starts_with(e))
            });
            if evaluates {
                j = inline(j, &w.text, state);
            }
        }
    }
    j
}

/// Files a tool is given: a protected one (an operand, an option's value, an include
/// directory) is a protected read, since a compiler or checker prints it or quotes it in
/// its errors; an operand outside the workspace is code from elsewhere, which asks.
fn given_paths(name: &str, args: &[Word], state: &State) -> Judgement {
    let mut j = judge(Risk::ReadOnly, "reads only project files");
    let mut read: Vec<Word> = Vec::new();
    for w in args {
        let t = w.text.as_str();
        if !is_flag(w) {
            read.push(w.clone());
        } else if let Some((_, value)) = t.split_once('=') {
            read.push(Word::literal(value).with_dynamic(w.dynamic));
        } else if let Some(dir) = ["-I", "-L", "-include", "-isystem", "-iquote", "-idirafter"]
            .iter()
            .find_map(|p| t.strip_prefix(p).filter(|d| !d.is_empty()))
        {
            read.push(Word::literal(dir).with_dynamic(w.dynamic));
        }
    }
    for w in &read {
        if let Some(reason) = protected(w, &state.ctx, Access::Read) {
            j = j.at_least(Risk::High, reason);
        }
    }
    let operands: Vec<Word> = match build_options(name) {
        Some(spec) => {
            let words = lenient(name, args);
            match parse(&spec, &words, false) {
                Ok(p) => p.operands.into_iter().cloned().collect(),
                Err(_) => return j,
            }
        }
        None => args.iter().filter(|w| !is_flag(w)).cloned().collect(),
    };
    for w in &operands {
        if w.dynamic || !(w.text.contains('/') || w.text.starts_with('~')) {
            continue;
        }
        match state.place(w) {
            Place::Outside(p) => {
                j = j.at_least(
                    Risk::Medium,
                    format!(
                        "`{name}` is given {}, outside the workspace: it may build or run code \
                         from elsewhere",
                        p.display()
                    ),
                );
            }
            Place::SystemRoot(s) => {
                j = j.at_least(Risk::Medium, format!("`{name}` is given {s}"));
            }
            Place::Device(d) => {
                j = j.at_least(Risk::High, format!("`{name}` reads the device /dev/{d}"));
            }
            _ => {}
        }
    }
    j
}

/// The words of a call as its table reads them: gcc's families of harmless options
/// (`-Wall`, `-O2`, `-std=c17`, `-fPIC`, `-march=native`) stand in as `-c`.
fn lenient(name: &str, args: &[Word]) -> Vec<Word> {
    let gcc_like = matches!(name, "gcc" | "g++" | "cc" | "c++" | "clang" | "clang++");
    args.iter()
        .map(|w| {
            let t = w.text.as_str();
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
        .collect()
}

/// A build or test tool's own options: proven against its table where Loom has one.
fn tool_options(name: &str, args: &[Word], state: &State) -> Judgement {
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
    let lenient = lenient(name, args);
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
