//! Programs that run another command: `sudo`, `env`, `nice`, `timeout`, `xargs`,
//! `strace`, `script -c`, ... Each is judged by what it runs (and at least by what it is:
//! `sudo` is high whatever follows). A wrapper whose own options are not recognised is
//! treated as an unknown program, since where its command starts cannot be known.

use super::super::options::{Spec, parse_leading};
use super::super::parse::Word;
use super::super::{Risk, vars};
use super::{Judgement, State, forbidden_among, judge, nested, nested_shell, program, writes_at};

/// A wrapper's options, and the floor its own behaviour sets.
struct Wrap {
    spec: Spec,
    /// Words after the options to skip before the command (`timeout DURATION cmd`).
    skip: usize,
    /// The least level of running anything through it, and why.
    floor: Option<(Risk, &'static str)>,
}

const fn wrap(flags: &'static str, valued: &'static str, long: &'static [&'static str]) -> Wrap {
    Wrap {
        spec: Spec {
            flags,
            valued,
            long,
            numeric: false,
        },
        skip: 0,
        floor: None,
    }
}

#[rustfmt::skip]
fn table(name: &str) -> Option<Wrap> {
    Some(match name {
        "nohup" | "unbuffer" | "eatmydata" | "catchsegv" | "dbus-run-session" | "tini"
        | "dumb-init" | "caffeinate" => wrap("", "", &[]),
        "setsid" => wrap("cfw", "", &["ctty", "fork", "wait"]),
        "chronic" => wrap("ev", "", &[]),
        "stdbuf" => wrap("", "ioe", &["input=", "output=", "error="]),
        "ionice" => wrap("t", "cnp", &["class=", "classdata=", "ignore"]),
        "nice" => Wrap {
            spec: Spec {
                flags: "",
                valued: "n",
                long: &["adjustment="],
                numeric: true,
            },
            ..wrap("", "", &[])
        },
        "timeout" => Wrap {
            skip: 1,
            ..wrap(
                "v",
                "sk",
                &[
                    "signal=", "kill-after=", "foreground", "preserve-status", "verbose",
                ],
            )
        },
        "taskset" => Wrap {
            skip: 1,
            ..wrap("ac", "", &["all-tasks", "cpu-list"])
        },
        "chrt" => Wrap {
            skip: 1,
            ..wrap(
                "bdfiormaR",
                "TPD",
                &["batch", "fifo", "idle", "other", "rr"],
            )
        },
        "faketime" => Wrap {
            skip: 1,
            ..wrap("f", "mp", &[])
        },
        "xvfb-run" => wrap("a", "nsfe", &["auto-servernum", "server-args="]),
        "time" => wrap(
            "pvaq",
            "fo",
            &[
                "portability", "verbose", "append", "format=", "output=", "quiet",
            ],
        ),
        "strace" | "ltrace" => Wrap {
            floor: Some((Risk::Low, "traces the command it runs")),
            ..wrap(
                "fFhqrtTvVxyYcCdwiDkz",
                "abeEIoOpPsSuUX",
                &[
                    "follow-forks", "output=", "summary-only", "trace=", "signal=",
                    "string-limit=",
                ],
            )
        },
        "valgrind" => Wrap {
            floor: Some((Risk::Low, "checks the program it runs")),
            ..wrap(
                "qv",
                "",
                &[
                    "tool=", "leak-check=", "show-leak-kinds=", "track-origins=",
                    "error-exitcode=", "quiet", "verbose",
                ],
            )
        },
        "fakeroot" => Wrap {
            floor: Some((Risk::Low, "runs the command with a pretend root")),
            ..wrap("u", "bi", &["unknown-is-real"])
        },
        _ => return None,
    })
}

/// Judge `name` if it is a program that runs another command.
pub(super) fn wrapper(
    name: &str,
    args: &[Word],
    state: &mut State,
    depth: usize,
    extra_dynamic: bool,
) -> Option<Judgement> {
    Some(match name {
        "sudo" | "doas" | "run0" | "pkexec" => {
            let spec = Spec {
                flags: "AbEeHiKklnPSsVv",
                valued: "ughpCUrtDRT",
                long: &["user=", "group=", "preserve-env?", "login", "shell"],
                numeric: false,
            };
            let base = judge(Risk::High, format!("`{name}` runs the command as root"));
            match parse_leading(&spec, args) {
                Ok((_, rest)) if !rest.is_empty() => {
                    base.worst(program(rest, state, depth, extra_dynamic))
                }
                _ => base.worst(forbidden_among(args, state, depth)),
            }
        }
        "su" | "runuser" => {
            let base = judge(
                Risk::High,
                format!("`{name}` runs commands as another user"),
            );
            let code = args.iter().enumerate().find_map(|(i, w)| {
                if w.text == "-c" || w.text == "--command" {
                    args.get(i + 1)
                } else {
                    None
                }
            });
            match code {
                Some(c) => base.worst(nested_shell(c, state, depth)),
                None => base.worst(forbidden_among(args, state, depth)),
            }
        }
        "setpriv" | "unshare" | "nsenter" | "chroot" | "firejail" | "bwrap" | "systemd-run"
        | "sg" | "newgrp" | "proot" | "schroot" => judge(
            Risk::High,
            format!("`{name}` runs a command with other privileges or in another environment"),
        )
        .worst(forbidden_among(args, state, depth)),
        "torsocks" | "proxychains" | "proxychains4" | "tsocks" => judge(
            Risk::High,
            format!("`{name}` routes a command over the network"),
        )
        .net()
        .worst(forbidden_among(args, state, depth)),
        "env" => env(args, state, depth, extra_dynamic),
        "command" => {
            let spec = Spec {
                flags: "pvV",
                valued: "",
                long: &[],
                numeric: false,
            };
            match parse_leading(&spec, args) {
                Ok((opts, _)) if opts.has(&["-v", "-V"]) => {
                    judge(Risk::ReadOnly, "looks up a command")
                }
                Ok((_, [])) => judge(Risk::ReadOnly, "`command` alone"),
                Ok((_, rest)) => program(rest, state, depth, extra_dynamic),
                Err(e) => super::unproven(e, name),
            }
        }
        "builtin" => match args.first() {
            Some(_) => program(args, state, depth, extra_dynamic),
            None => judge(Risk::ReadOnly, "`builtin` alone"),
        },
        "exec" => {
            let spec = Spec {
                flags: "cl",
                valued: "a",
                long: &[],
                numeric: false,
            };
            match parse_leading(&spec, args) {
                Ok((_, [])) => judge(Risk::ReadOnly, "`exec` only changes redirections"),
                Ok((_, rest)) => program(rest, state, depth, extra_dynamic),
                Err(e) => super::unproven(e, name).worst(forbidden_among(args, state, depth)),
            }
        }
        "xargs" => xargs(args, state, depth),
        "watch" => {
            let spec = Spec {
                flags: "bcCdegtx",
                valued: "nqp",
                long: &[
                    "interval=",
                    "differences?",
                    "exec",
                    "no-title",
                    "beep",
                    "color",
                ],
                numeric: false,
            };
            match parse_leading(&spec, args) {
                Ok((opts, rest)) if opts.has(&["-x", "--exec"]) => {
                    program(rest, state, depth, extra_dynamic)
                }
                Ok((_, rest)) => {
                    let text: Vec<&str> = rest.iter().map(|w| w.text.as_str()).collect();
                    if rest.iter().any(|w| w.dynamic) {
                        judge(Risk::High, "watch runs a shell command built at run time")
                    } else {
                        nested(&text.join(" "), state, depth, "watch")
                    }
                }
                Err(e) => super::unproven(e, name).worst(forbidden_among(args, state, depth)),
            }
        }
        "script" => {
            let spec = Spec {
                flags: "aefqEBTIO",
                valued: "cmt",
                long: &[
                    "command=",
                    "quiet",
                    "append",
                    "flush",
                    "return",
                    "log-out=",
                    "log-in=",
                    "log-io=",
                    "log-timing=",
                ],
                numeric: false,
            };
            let base = judge(
                Risk::Medium,
                "`script` records a terminal session to a file",
            );
            match super::super::options::parse(&spec, args, false) {
                Ok(p) => {
                    let mut j = base;
                    for v in p.values(&["-c", "--command"]) {
                        j = j.worst(nested_shell(&v.word(), state, depth));
                    }
                    for w in p.operands {
                        j = j.worst(writes_at(w, state, "writes"));
                    }
                    j
                }
                Err(e) => base
                    .worst(super::unproven(e, name))
                    .worst(forbidden_among(args, state, depth)),
            }
        }
        "flock" => {
            let spec = Spec {
                flags: "sxuneoFh",
                valued: "wEc",
                long: &[
                    "shared",
                    "exclusive",
                    "unlock",
                    "nonblock",
                    "close",
                    "timeout=",
                    "command=",
                ],
                numeric: false,
            };
            match parse_leading(&spec, args) {
                Ok((opts, rest)) => {
                    let mut j = judge(Risk::Low, "flock takes a lock file");
                    for v in opts.values(&["-c", "--command"]) {
                        j = j.worst(nested_shell(&v.word(), state, depth));
                    }
                    if let Some(lock) = rest.first() {
                        j = j.worst(writes_at(lock, state, "locks"));
                    }
                    if rest.len() > 1 {
                        j = j.worst(program(&rest[1..], state, depth, extra_dynamic));
                    }
                    j
                }
                Err(e) => super::unproven(e, name).worst(forbidden_among(args, state, depth)),
            }
        }
        "busybox" | "toybox" => match args.first() {
            Some(_) => program(args, state, depth, extra_dynamic),
            None => judge(Risk::ReadOnly, "lists its applets"),
        },
        _ => {
            let w = table(name)?;
            match parse_leading(&w.spec, args) {
                Ok((opts, rest)) => {
                    let mut j = match w.floor {
                        Some((level, why)) => judge(level, format!("`{name}` {why}")),
                        None => judge(Risk::ReadOnly, format!("`{name}` runs a command")),
                    };
                    if name == "time" {
                        for v in opts.values(&["-o", "--output"]) {
                            j = j.worst(writes_at(&v.word(), state, "writes"));
                        }
                    }
                    if matches!(name, "strace" | "ltrace") {
                        if opts.has(&["-p", "-P"]) {
                            j = j.at_least(Risk::High, "attaches to another running process");
                        }
                        for v in opts.values(&["-o", "--output"]) {
                            j = j.worst(writes_at(&v.word(), state, "writes"));
                        }
                        for v in opts.values(&["-E"]) {
                            let var = v.text().split('=').next().unwrap_or("");
                            if let Some(reason) = vars::dangerous(var) {
                                j = j.at_least(Risk::High, reason);
                            }
                        }
                    }
                    let cmd = rest.get(w.skip..).unwrap_or(&[]);
                    if cmd.is_empty() {
                        return Some(j.worst(judge(
                            Risk::ReadOnly,
                            format!("`{name}` with nothing to run"),
                        )));
                    }
                    j.worst(program(cmd, state, depth, extra_dynamic))
                }
                Err(e) => super::unproven(e, name).worst(forbidden_among(args, state, depth)),
            }
        }
    })
}

/// `env [OPTIONS] [NAME=VALUE]... [COMMAND [ARG]...]`.
fn env(args: &[Word], state: &mut State, depth: usize, extra_dynamic: bool) -> Judgement {
    let spec = Spec {
        flags: "i0v",
        valued: "uCS",
        long: &[
            "ignore-environment",
            "null",
            "unset=",
            "chdir=",
            "split-string=",
            "debug",
            "block-signal?",
            "default-signal?",
            "ignore-signal?",
            "list-signal-handling",
        ],
        numeric: false,
    };
    let (opts, rest) = match parse_leading(&spec, args) {
        Ok(x) => x,
        Err(e) => {
            return super::unproven(e, "env").worst(forbidden_among(args, state, depth));
        }
    };
    let mut j = judge(Risk::ReadOnly, "prints the environment");
    if opts.has(&["-C", "--chdir"]) {
        j = j.at_least(Risk::Medium, "env -C runs the command in another directory");
    }
    let mut i = 0;
    while let Some(w) = rest.get(i) {
        let Some((name, _)) = w.text.split_once('=') else {
            break;
        };
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            break;
        }
        if let Some(reason) = vars::dangerous(name) {
            j = j.at_least(Risk::High, reason);
        }
        i += 1;
    }
    let command = &rest[i..];
    if let Some(split) = opts.values(&["-S", "--split-string"]).first() {
        let text = split.text();
        if split.word().dynamic || text.contains(['\\', '$']) {
            return j.at_least(
                Risk::High,
                "env -S with escapes or variables builds a command Loom cannot read",
            );
        }
        let mut full = text.to_string();
        for w in command {
            full.push(' ');
            full.push_str(&super::shell_quote(&w.text));
        }
        return j.worst(nested(&full, state, depth, "env -S"));
    }
    if command.is_empty() {
        return j;
    }
    j.worst(program(command, state, depth, extra_dynamic))
}

/// `xargs [OPTIONS] [COMMAND [ARG]...]`: the command runs with arguments read from input.
fn xargs(args: &[Word], state: &mut State, depth: usize) -> Judgement {
    let spec = Spec {
        flags: "0prtxoeil",
        valued: "adEILnPs",
        long: &[
            "null",
            "arg-file=",
            "delimiter=",
            "eof?",
            "replace?",
            "max-lines?",
            "max-args=",
            "max-procs=",
            "interactive",
            "no-run-if-empty",
            "max-chars=",
            "verbose",
            "exit",
            "open-tty",
            "show-limits",
            "process-slot-var=",
        ],
        numeric: false,
    };
    let (opts, rest) = match parse_leading(&spec, args) {
        Ok(x) => x,
        Err(e) => {
            return super::unproven(e, "xargs").worst(forbidden_among(args, state, depth));
        }
    };
    let mut j = judge(Risk::ReadOnly, "xargs echoes its input");
    for v in opts.values(&["-a", "--arg-file"]) {
        j = j.worst(super::reads(&v.word(), state));
    }
    if rest.is_empty() {
        return j;
    }
    let replace: Option<String> = opts
        .values(&["-I"])
        .first()
        .map(|v| v.text().to_string())
        .or_else(|| opts.has(&["-i", "--replace"]).then(|| "{}".to_string()));
    if let Some(super::PipedInput::Text(input)) = state.piped.clone() {
        j = j.worst(with_known_input(
            rest,
            &input,
            replace.as_deref(),
            state,
            depth,
        ));
    }
    let words: Vec<Word> = rest
        .iter()
        .map(|w| {
            let mut w = w.clone();
            if replace.as_deref().is_some_and(|r| w.text.contains(r)) {
                w.dynamic = true;
            }
            w
        })
        .collect();
    j.worst(judge(Risk::Low, "xargs runs a command on its input"))
        .worst(program(&words, state, depth, true))
}

/// `echo 'rm -rf *' | xargs -I{} sh -c {}`: when the input is literal text, the commands
/// xargs builds from it are known, and each is judged (a line per command with `-I`,
/// whitespace-separated words appended otherwise; input with quotes or backslashes,
/// which xargs reads its own way, is left to the run-time verdict).
fn with_known_input(
    command: &[Word],
    input: &str,
    replace: Option<&str>,
    state: &mut State,
    depth: usize,
) -> Judgement {
    let mut j = judge(Risk::ReadOnly, "xargs input");
    if input.contains(['"', '\'', '\\']) {
        return j;
    }
    match replace {
        Some(r) => {
            for line in input
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .take(16)
            {
                let words: Vec<Word> = command
                    .iter()
                    .map(|w| Word {
                        text: w.text.replace(r, line),
                        ..w.clone()
                    })
                    .collect();
                j = j.worst(program(&words, state, depth, false));
            }
        }
        None => {
            let mut words = command.to_vec();
            words.extend(input.split_whitespace().take(256).map(Word::literal));
            j = j.worst(program(&words, state, depth, false));
        }
    }
    j
}

/// A program name with glob characters (`/bin/r?`): the shell replaces it with the
/// matching files, so every match is judged and the worst kept; it asks at least.
pub(super) fn globbed_program(
    words: &[Word],
    state: &mut State,
    depth: usize,
    extra_dynamic: bool,
) -> Judgement {
    let pattern = &words[0].text;
    let floor = judge(
        Risk::Medium,
        format!("the program name `{pattern}` is a pattern the shell expands"),
    );
    let (dir, base) = match pattern.rfind('/') {
        Some(i) => (&pattern[..=i], &pattern[i + 1..]),
        None => ("", pattern.as_str()),
    };
    if dir.contains(['*', '?', '[']) {
        return floor.at_least(
            Risk::High,
            format!("the program name `{pattern}` matches programs in directories only known at run time"),
        );
    }
    let Ok(matcher) = globset::GlobBuilder::new(base)
        .literal_separator(true)
        .build()
        .map(|g| g.compile_matcher())
    else {
        return floor;
    };
    let search = if dir.is_empty() {
        state.ctx.cwd.clone()
    } else {
        let w = Word::literal(dir);
        match state.place(&w) {
            super::Place::Inside(p) | super::Place::Outside(p) => p,
            super::Place::WorkspaceRoot => state.ctx.workspace.clone(),
            _ => std::path::PathBuf::from(dir),
        }
    };
    let mut names: Vec<String> = std::fs::read_dir(&search)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| !n.starts_with('.') || base.starts_with('.'))
                .filter(|n| matcher.is_match(n))
                .take(64)
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let mut j = floor;
    for name in names {
        let mut decoded = words.to_vec();
        decoded[0] = Word::literal(&format!("{dir}{name}"));
        let inner = program(&decoded, state, depth, extra_dynamic);
        j = j.worst(Judgement {
            reason: format!("`{pattern}` expands to `{dir}{name}`: {}", inner.reason),
            ..inner
        });
    }
    j
}
