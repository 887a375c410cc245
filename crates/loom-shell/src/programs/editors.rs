//! Editors started with commands: `vim -c '!CMD'`, `ex +'r !CMD'`, `nvim --cmd …`, `emacs
//! --eval '(shell-command "CMD")'`. Their command arguments are a language that runs the
//! shell (`!`, `system()`), so they ask at least high, and every shell command Loom can
//! read in them is judged as one: a forbidden command stays forbidden inside an editor. In
//! ex mode (`ex`, `vim -es`) the editor runs the commands in its input, judged the same way.

use super::super::Risk;
use super::super::parse::Word;
use super::dev::forbidden_in_code;
use super::{Judgement, PipedInput, State, judge, nested};

/// The vi family, which read ex commands from `-c`, `+`, `--cmd` and scripts.
const VI: &[&str] = &[
    "vi", "vim", "nvim", "ex", "view", "gvim", "rvim", "vimdiff", "nvi", "elvis", "evim",
];

/// Judge `name` when it is an editor; `None` otherwise.
pub(super) fn editor(name: &str, args: &[Word], state: &State, depth: usize) -> Option<Judgement> {
    if VI.contains(&name) {
        return Some(vi(name, args, state, depth));
    }
    if matches!(name, "emacs" | "emacsclient") {
        let mut j = judge(Risk::Medium, format!("`{name}` edits files")).ungrantable();
        let code = args.iter().any(|w| {
            w.text.starts_with("--eval")
                || w.text.starts_with("-l")
                || w.text == "-f"
                || w.text.starts_with("--load")
                || w.text == "--batch"
                || w.text == "-batch"
                || w.text.starts_with("--funcall")
                || w.text == "-e"
        });
        if code {
            j = j.at_least(
                Risk::High,
                format!(
                    "`{name}` runs Lisp code given on its command line, which can run anything"
                ),
            );
            for w in args.iter().filter(|w| !w.dynamic) {
                j = j.worst(forbidden_in_code(&w.text, state, depth));
            }
        }
        return Some(j);
    }
    None
}

fn vi(name: &str, args: &[Word], state: &State, depth: usize) -> Judgement {
    let mut j = judge(Risk::Medium, format!("`{name}` edits files")).ungrantable();
    let mut commands: Vec<&Word> = Vec::new();
    let mut ex_mode = name == "ex";
    let mut i = 0;
    while i < args.len() {
        let t = args[i].text.as_str();
        let cluster = t
            .strip_prefix('-')
            .filter(|c| !c.is_empty() && c.chars().all(|c| c.is_ascii_alphabetic()));
        if let Some(letters) = cluster
            && letters.contains(['e', 'E'])
        {
            ex_mode = true;
            if letters.len() > 1 && letters.chars().all(|c| matches!(c, 'e' | 'E' | 's')) {
                i += 1;
                continue;
            }
        }
        match t {
            "-c" | "--cmd" => {
                commands.extend(args.get(i + 1));
                i += 2;
                continue;
            }
            "-s" if ex_mode => {}
            "-S" | "-s" | "-u" | "-U" | "-i" | "-W" | "-w" => {
                j = j.at_least(
                    Risk::High,
                    format!("`{name} {t}` reads or writes editor commands in a file, which can run anything"),
                );
                i += 2;
                continue;
            }
            _ if t.starts_with('+')
                && t.len() > 1
                && !t[1..].chars().all(|c| c.is_ascii_digit()) =>
            {
                commands.push(&args[i]);
            }
            _ => {}
        }
        i += 1;
    }
    for c in commands {
        j = j.at_least(
            Risk::High,
            format!("`{name}` runs editor commands, which can run shell commands"),
        );
        if c.dynamic {
            continue;
        }
        j = j.worst(ex_command(
            name,
            c.text.trim_start_matches('+'),
            state,
            depth,
        ));
    }
    if ex_mode {
        j = j.worst(ex_input(name, state, depth));
    }
    j
}

/// One ex command line: what follows its `!` is a shell command, and its text is searched
/// for a forbidden command inside string literals (`call system('…')`).
fn ex_command(name: &str, text: &str, state: &State, depth: usize) -> Judgement {
    let mut j = judge(Risk::ReadOnly, "an editor command");
    if let Some(pos) = text.find('!') {
        let shell = text[pos + 1..].trim();
        if !shell.is_empty() {
            j = j.worst(nested(shell, state, depth, &format!("{name}'s `!`")));
        }
    }
    j.worst(forbidden_in_code(text, state, depth))
}

/// In ex mode (`ex`, `vim -e`, `vim -es`) the editor reads its commands from its input:
/// each line Loom can read is judged as an ex command; input it cannot read asks high.
fn ex_input(name: &str, state: &State, depth: usize) -> Judgement {
    let reads = format!("`{name}` in ex mode runs the editor commands in its input");
    match &state.piped {
        Some(PipedInput::Text(text) | PipedInput::Built(text)) => text
            .lines()
            .take(256)
            .fold(judge(Risk::High, reads), |j, line| {
                j.worst(ex_command(name, line, state, depth))
            }),
        Some(PipedInput::Unknown) => judge(
            Risk::High,
            format!("{reads}, another program's output, which can run anything"),
        ),
        None => judge(
            Risk::High,
            format!("{reads} (a file Loom cannot see), which can run anything"),
        ),
    }
    .ungrantable()
}
