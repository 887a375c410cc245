//! `make`: runs the project's recipes (low); reading a makefile from elsewhere, evaluating
//! make code, overriding variables that name programs, or install targets ask. Make code
//! Loom can read (`--eval TEXT`, a makefile piped to `-f -`, a `VAR=VALUE` operand) is
//! searched for what it runs: `$(shell CMD)` and recipes (`target: ; CMD`, tab-indented
//! lines) are judged as shell commands, so `make --eval='$(shell rm -rf ~)'` is forbidden.

use super::super::options::{Spec, Unproven, parse};
use super::super::parse::Word;
use super::super::{Place, Risk, vars};
use super::{Judgement, PipedInput, State, judge, nested, unproven};

/// The end of the make reference opened at `text[0]` (`(` or `{`), nesting counted.
fn reference_end(text: &str) -> Option<usize> {
    let (open, close) = match text.chars().next()? {
        '(' => ('(', ')'),
        '{' => ('{', '}'),
        _ => return None,
    };
    let mut level = 0usize;
    for (i, c) in text.char_indices() {
        if c == open {
            level += 1;
        } else if c == close {
            level -= 1;
            if level == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// A recipe line as the shell gets it: make's `$$` is `$`, and `$(NAME)`/`${NAME}` are
/// written as the shell variable of the same name (make passes the environment on, and
/// `$(HOME)` is the home directory either way).
fn as_shell(recipe: &str) -> String {
    let mut out = String::new();
    let mut rest = recipe.trim_start_matches(['@', '-', '+', ' ', '\t']);
    while let Some(pos) = rest.find('$') {
        out.push_str(&rest[..pos]);
        let after = &rest[pos + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            rest = tail;
            continue;
        }
        match reference_end(after) {
            Some(end)
                if after[1..end]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                out.push_str(&format!("${{{}}}", &after[1..end]));
                rest = &after[end + 1..];
            }
            _ => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The shell commands in make code: every `$(shell CMD)`, and every recipe (after the
/// `;` of a rule line, or a tab-indented line).
fn make_commands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for start in ["$(shell", "${shell"] {
        for (i, _) in text.match_indices(start) {
            let at = &text[i + 1..];
            if let Some(end) = reference_end(at) {
                out.push(at[6..end].trim().to_string());
            }
        }
    }
    for line in text.lines() {
        if let Some(recipe) = line.strip_prefix('\t') {
            out.push(as_shell(recipe));
        } else if let Some(colon) = line.find(':')
            && !line[colon..].starts_with(":=")
            && !line[..colon].contains('=')
            && let Some(semi) = line[colon..].find(';')
        {
            out.push(as_shell(&line[colon + semi + 1..]));
        }
    }
    out.retain(|c| !c.trim().is_empty());
    out.truncate(64);
    out
}

/// Judge make code Loom can read, given by `via`.
fn make_code(text: &str, state: &State, depth: usize, via: &str) -> Judgement {
    make_commands(text).iter().fold(
        judge(Risk::Medium, format!("{via} runs make code")).ungrantable(),
        |j, command| j.worst(nested(command, state, depth, via)),
    )
}

/// `make`: judged by its options, the makefile it reads and the make code it is given.
pub(super) fn make(args: &[Word], state: &State, depth: usize) -> Judgement {
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
    for code in parsed.values(&["-E", "--eval"]) {
        j = j.at_least(
            Risk::Medium,
            "make --eval runs make code given on the command line",
        );
        if code.word().dynamic {
            j = j.at_least(Risk::High, "make --eval runs make code built at run time");
        } else {
            j = j.worst(make_code(code.text(), state, depth, "make --eval"));
        }
    }
    if parsed.has(&["-t", "--touch"]) {
        j = j.at_least(Risk::Medium, "make --touch changes file timestamps");
    }
    for v in parsed.values(&["-f", "--file", "--makefile"]) {
        let w = v.word();
        if w.text == "-" {
            let via = "the makefile in make's input";
            j = j.worst(match &state.piped {
                Some(PipedInput::Text(text)) => make_code(text, state, depth, via),
                Some(PipedInput::Built(text)) => make_code(text, state, depth, via).at_least(
                    Risk::High,
                    "make's input is a makefile the shell builds at run time",
                ),
                Some(PipedInput::Unknown) => judge(
                    Risk::High,
                    "make runs the recipes of a makefile another program prints",
                ),
                None => judge(
                    Risk::Medium,
                    "make reads its makefile from its input, which Loom cannot see",
                ),
            });
        } else if w.dynamic {
            j = j.at_least(
                Risk::Medium,
                "make reads its makefile from a path only known at run time",
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
        if let Some((var, value)) = w.text.split_once('=') {
            if value.contains("$(") || value.contains("${") {
                j = j.worst(make_code(value, state, depth, &format!("make's {var}")));
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_calls_and_recipes_are_found_in_make_code() {
        assert_eq!(
            make_commands(
                "X := $(shell ls $(DIR))\nall: dep ; @rm -rf $(HOME)/x $$y\n\t-echo ${HOME}\nY=a;b"
            ),
            vec!["ls $(DIR)", "rm -rf ${HOME}/x $y", "echo ${HOME}"]
        );
        assert_eq!(make_commands("${shell id}"), vec!["id"]);
        assert!(make_commands("CFLAGS := -O2").is_empty());
    }
}
