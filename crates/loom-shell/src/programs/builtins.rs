//! Shell builtins: directory changes (tracked, so later paths resolve where the shell would
//! be), variables (an assignment to a variable that changes what programs load is high),
//! and the builtins whose effect cannot be seen statically: `alias` and `trap` store code
//! that runs later (judged and asked), `eval` runs text (judged when literal, high when
//! built at run time), `source` runs a file, `enable -f` loads a shared object.

use super::super::options::{Spec, parse};
use super::super::parse::Word;
use super::super::{Risk, vars};
use super::{Judgement, PipedInput, State, is_flag, judge, nested, nested_shell};

/// Judge `name` if it is a shell builtin Loom has rules for.
pub(super) fn builtin(
    name: &str,
    args: &[Word],
    state: &mut State,
    depth: usize,
) -> Option<Judgement> {
    Some(match name {
        "cd" | "pushd" => {
            change_dir(args, state);
            judge(Risk::ReadOnly, "changes directory")
        }
        "popd" => {
            state.change_dir(None);
            judge(Risk::ReadOnly, "changes directory")
        }
        "export" | "declare" | "typeset" | "local" | "readonly" => {
            let spec = Spec {
                flags: "aAfFgiIlnprtuxp",
                valued: "",
                long: &[],
                numeric: false,
            };
            let mut j = judge(Risk::ReadOnly, format!("`{name}` sets or lists variables"));
            let plus_ok: Vec<Word> = args
                .iter()
                .filter(|w| !(w.text.starts_with('+') && w.text.len() > 1))
                .cloned()
                .collect();
            if let Err(e) = parse(&spec, &plus_ok, true) {
                j = j.worst(super::unproven(e, name));
            }
            for w in args.iter().filter(|w| !is_flag(w)) {
                let var = w.text.split('=').next().unwrap_or("");
                if let Some(reason) = vars::dangerous(var) {
                    j = j.at_least(Risk::High, reason);
                }
            }
            j
        }
        "read" | "mapfile" | "readarray" | "getopts" | "let" => {
            let mut j = judge(Risk::ReadOnly, format!("`{name}` sets shell variables"));
            if matches!(name, "mapfile" | "readarray") {
                // `-C CALLBACK` is shell code run for every few lines read.
                for (i, w) in args.iter().enumerate() {
                    let callback = match w.text.strip_prefix("-C") {
                        Some("") => args.get(i + 1).cloned(),
                        Some(glued) => Some(Word::literal(glued).with_dynamic(w.dynamic)),
                        None => None,
                    };
                    if let Some(code) = callback {
                        j = j.worst(
                            judge(Risk::Medium, format!("`{name} -C` runs a callback"))
                                .ungrantable()
                                .worst(nested_shell(&code, state, depth)),
                        );
                    }
                }
            }
            for w in args.iter().filter(|w| !is_flag(w)) {
                let var = w
                    .text
                    .split(['=', '[', '+', '-', '*', '/'])
                    .next()
                    .unwrap_or("");
                if let Some(reason) = vars::dangerous(var) {
                    j = j.at_least(Risk::High, reason);
                }
            }
            j
        }
        "set"
            if args.iter().enumerate().any(|(i, w)| {
                (w.text.starts_with('-') && !w.text.starts_with("--") && w.text[1..].contains('k'))
                    || (w.text == "-o" && args.get(i + 1).is_some_and(|n| n.text == "keyword"))
            }) =>
        {
            judge(
                Risk::High,
                "`set -k` makes NAME=value arguments of later commands environment variables \
                 (a pager or editor a program then runs)",
            )
            .ungrantable()
        }
        "unset" | "set" | "shift" | "exit" | "return" | ":" | "wait" | "jobs" | "dirs"
        | "times" | "ulimit" | "umask" | "help" | "caller" | "disown" | "bg" | "fg" | "history"
        | "logout" | "break" | "continue" => {
            if name == "history"
                && args
                    .iter()
                    .any(|w| w.text.starts_with('-') && w.text.contains(['w', 'a', 'r', 'n', 's']))
            {
                history_file(args, state)
            } else {
                judge(Risk::ReadOnly, format!("`{name}` only affects the shell"))
            }
        }
        "hash" => {
            if args.iter().any(|w| w.text.starts_with("-p")) {
                judge(Risk::High, "`hash -p` changes which program a name runs")
            } else {
                judge(Risk::ReadOnly, "`hash` lists remembered programs")
            }
        }
        "shopt" => {
            let changes = args.iter().any(|w| {
                w.text == "-s"
                    || w.text == "-u"
                    || w.text.starts_with("-s")
                    || w.text.starts_with("-u")
            });
            if changes
                && args
                    .iter()
                    .any(|w| w.text == "expand_aliases" || w.text == "extdebug")
            {
                judge(
                    Risk::Medium,
                    "turns on a shell option that makes later commands run differently",
                )
            } else {
                judge(Risk::ReadOnly, "shows or sets shell options")
            }
        }
        "test" | "[" | "[[" => test(name, args),
        "alias" => alias(args, state, depth),
        "unalias" => judge(Risk::ReadOnly, "removes aliases"),
        "trap" => trap(args, state, depth),
        "eval" => {
            if args.iter().any(|w| w.dynamic) {
                judge(Risk::High, "`eval` runs a command built at run time")
            } else {
                let text: Vec<&str> = args.iter().map(|w| w.text.as_str()).collect();
                nested(&text.join(" "), state, depth, "eval")
            }
        }
        "source" | "." => {
            let reads_stdin = args.first().is_some_and(|w| {
                matches!(
                    w.text.as_str(),
                    "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0" | "-"
                )
            });
            let base = judge(Risk::Medium, "runs a script in the current shell").ungrantable();
            let via = format!("`{name}` from its input");
            match (&state.piped, reads_stdin) {
                (Some(PipedInput::Text(t)), true) => base.worst(nested(t, state, depth, &via)),
                (Some(PipedInput::Built(t)), true) => base
                    .at_least(Risk::High, "runs a script the shell builds at run time")
                    .worst(nested(t, state, depth, &via)),
                _ => base,
            }
        }
        "enable" => {
            if args
                .iter()
                .any(|w| w.text.starts_with("-f") || w.text.starts_with("-d"))
            {
                judge(
                    Risk::High,
                    "`enable -f` loads a shared object into the shell",
                )
            } else {
                judge(
                    Risk::Medium,
                    "`enable` changes which builtins the shell uses",
                )
            }
        }
        _ => return None,
    })
}

fn change_dir(args: &[Word], state: &mut State) {
    match args.iter().find(|w| !is_flag(w) || w.text == "-") {
        None if state.home_or_pwd_set => state.change_dir(None),
        None => {
            let home = state.ctx.home.clone();
            state.change_dir(home);
        }
        Some(w) if w.text == "-" => state.change_back(),
        Some(w) if state.cwd_unknown && !w.text.starts_with(['/', '~', '$']) => {
            state.change_dir(None);
        }
        Some(w) if w.glob || w.brace || state.depends_on_moved_variables(w) => {
            state.change_dir(None);
        }
        Some(w) => {
            let path = super::super::place::expand(w, &state.ctx);
            state.change_dir(path);
        }
    }
}

/// `test`, `[`, `[[`: every word that looks like an option must be one of the operators.
fn test(name: &str, args: &[Word]) -> Judgement {
    const OPERATORS: &[&str] = &[
        "-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h", "-k", "-n", "-p", "-r", "-s", "-t", "-u",
        "-w", "-x", "-z", "-G", "-L", "-N", "-O", "-S", "-o", "-v", "-R", "-eq", "-ne", "-lt",
        "-le", "-gt", "-ge", "-nt", "-ot", "-ef",
    ];
    match args
        .iter()
        .find(|w| is_flag(w) && !OPERATORS.contains(&w.text.as_str()))
    {
        Some(w) => judge(
            Risk::Medium,
            format!("unrecognised operator {} for {name}", w.text),
        ),
        None => judge(Risk::ReadOnly, "tests a condition"),
    }
}

/// `alias NAME=VALUE`: the value runs whenever NAME is used later (dash expands aliases in
/// scripts), so it is judged as a command, and the alias asks at least.
fn alias(args: &[Word], state: &mut State, depth: usize) -> Judgement {
    let definitions: Vec<&Word> = args.iter().filter(|w| w.text.contains('=')).collect();
    if definitions.is_empty() {
        return judge(Risk::ReadOnly, "lists aliases");
    }
    let mut j = judge(
        Risk::Medium,
        "defines an alias, which changes what a later command name runs",
    )
    .ungrantable();
    for d in definitions {
        if d.dynamic {
            return j.at_least(Risk::High, "defines an alias built at run time");
        }
        let (name, value) = d.text.split_once('=').unwrap_or((&d.text, ""));
        j = j.worst(nested(value, state, depth, "the alias"));
        state.aliases.push((name.to_string(), value.to_string()));
    }
    j
}

/// `trap CMD SIGNAL...`: CMD runs later, when the signal (or EXIT) comes.
fn trap(args: &[Word], state: &State, depth: usize) -> Judgement {
    let listing = args.is_empty()
        || args
            .iter()
            .all(|w| matches!(w.text.as_str(), "-l" | "-p" | "--"))
        || args
            .first()
            .is_some_and(|w| w.text == "-" || w.text.is_empty());
    if listing {
        return judge(Risk::ReadOnly, "lists or resets traps");
    }
    let Some(code) = args
        .iter()
        .find(|w| !matches!(w.text.as_str(), "-p" | "-l" | "--"))
    else {
        return judge(Risk::ReadOnly, "lists traps");
    };
    if code.dynamic {
        return judge(Risk::High, "sets a trap whose command is built at run time");
    }
    judge(
        Risk::Medium,
        "sets a trap, a command that runs later when a signal or exit comes",
    )
    .ungrantable()
    .worst(nested(&code.text, state, depth, "the trap"))
}

/// `history -w/-a FILE` writes the history (lines `history -s` may have added) to FILE,
/// `-r/-n FILE` reads FILE: judged as the write or read of FILE. Never covered by a grant:
/// the lines written can be any text, and the file any start-up file.
fn history_file(args: &[Word], state: &State) -> Judgement {
    let writes = args
        .iter()
        .any(|w| is_flag(w) && w.text.contains(['w', 'a']));
    let reads_file = args
        .iter()
        .any(|w| is_flag(w) && w.text.contains(['r', 'n']));
    let mut j = judge(
        Risk::Medium,
        "`history` with this option reads or writes a history file",
    )
    .ungrantable();
    let files = args.iter().filter(|w| !is_flag(w));
    // With `-s`, the operands are the line added, not a file.
    if !args.iter().any(|w| is_flag(w) && w.text.contains('s')) {
        for f in files {
            if writes {
                j = j.worst(super::writes_at(f, state, "writes the shell's history to"));
            }
            if reads_file {
                j = j.worst(super::reads(f, state));
            }
        }
    }
    j
}
