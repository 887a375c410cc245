//! File-changing programs: deletion, permissions, `dd`, `find`, `sed`, `awk`, `tar` and
//! plain writers, judged by where their targets are.

use super::super::parse::Word;
use super::super::{Place, Risk};
use super::{Judgement, State, has_flag, is_flag, judge, operands, program, write_to};

pub(super) fn writes(
    args: &[Word],
    state: &State,
    verb: &str,
    floor: Risk,
    extra_dynamic: bool,
) -> Judgement {
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

pub(super) fn rm(name: &str, args: &[Word], state: &State, extra_dynamic: bool) -> Judgement {
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

pub(super) fn perms(name: &str, args: &[Word], state: &State) -> Judgement {
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

pub(super) fn dd(args: &[Word], state: &State) -> Judgement {
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

pub(super) fn find(args: &[Word], state: &mut State, depth: usize) -> Judgement {
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

pub(super) fn sed(args: &[Word], state: &State) -> Judgement {
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

pub(super) fn awk(args: &[Word], _state: &State) -> Judgement {
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

pub(super) fn tar(args: &[Word]) -> Judgement {
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
