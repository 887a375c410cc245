//! Files a command line writes and then runs: `echo 'rm -rf ~' > x.sh && sh x.sh`,
//! `printf 'all:\n\trm -rf ~\n' > Makefile; make`, a `package.json` whose test script is
//! `rm -rf ~` and then `npm test`. Each step alone is a workspace write and a project
//! command (medium, which full-auto runs); together they are the payload.
//!
//! So the text a line writes with `echo`, `printf`, `cat` or `tee` (from their arguments,
//! a heredoc or a here-string) is remembered by path, and a later command that names that
//! path (as its program, an argument, or the file it reads by convention: `make` its
//! Makefile, `npm` its `package.json`) is judged forbidden when the text holds a forbidden
//! command, as a shell line or inside the code's string literals. The text is decoded
//! loosely (`\n`, `\t`): this can only find more, never hide anything.

use std::path::PathBuf;

use super::super::parse::{SimpleCommand, Word};
use super::super::place::{expand, normalize};
use super::super::{Risk, basename, classify_nested};
use super::{Judgement, PipedInput, State, judge};

/// Most written files remembered for one line.
const MAX_WRITTEN: usize = 32;

/// Remember what `cmd` writes by redirect or `tee`: the text, when Loom can read it.
pub(super) fn record(cmd: &SimpleCommand, state: &mut State) {
    let Some(first) = cmd.words.first() else {
        return;
    };
    let args: Vec<&str> = cmd.words[1..].iter().map(|w| w.text.as_str()).collect();
    let input = || match (&cmd.stdin, &state.piped) {
        (Some(s), _) if !s.expands => Some(s.text.clone()),
        (None, Some(PipedInput::Text(t))) => Some(t.clone()),
        _ => None,
    };
    let mut targets: Vec<&Word> = cmd
        .redirects
        .iter()
        .filter(|r| matches!(r.op.as_str(), ">" | ">>" | ">|" | "&>" | "&>>"))
        .map(|r| &r.target)
        .collect();
    let known_words = cmd.words.iter().all(|w| !w.dynamic);
    let text = match basename(&first.text) {
        _ if !known_words => None,
        "echo" | "printf" => Some(loosely_decoded(&args.join(" "))),
        "cat" if args.iter().all(|a| *a == "-") => input(),
        "tee" => {
            targets.extend(cmd.words[1..].iter().filter(|w| !w.text.starts_with('-')));
            input()
        }
        _ => None,
    };
    for t in targets.into_iter().filter(|t| !t.dynamic) {
        if let Some(path) = expand(t, &state.ctx).map(|p| normalize(&p))
            && state.written.len() < MAX_WRITTEN
        {
            state.written.push((path, text.clone()));
        }
    }
}

/// The text with the escapes `printf` (and `echo -e`, dash's `echo`) decode.
fn loosely_decoded(text: &str) -> String {
    super::super::decode::decode_escapes(text)
}

/// Forbidden when `cmd` runs or reads a file this line wrote with a forbidden command in it.
pub(super) fn runs_written(cmd: &SimpleCommand, state: &State, depth: usize) -> Judgement {
    let fine = judge(Risk::ReadOnly, "runs no file this line wrote");
    if state.written.is_empty() {
        return fine;
    }
    let Some(first) = cmd.words.first() else {
        return fine;
    };
    // Every place a word may name, from every directory the line may be in.
    let mut named: Vec<PathBuf> = cmd
        .words
        .iter()
        .chain(cmd.redirects.iter().map(|r| &r.target))
        .filter(|w| !w.dynamic)
        .flat_map(|w| {
            let text = w.text.split_once('=').map_or(w.text.as_str(), |(_, v)| v);
            state.alternatives(&Word::literal(text))
        })
        .filter_map(|w| expand(&w, &state.ctx))
        .map(|p| normalize(&p))
        .collect();
    let conventional: &[&str] = match basename(&first.text) {
        "make" | "gmake" => &["Makefile", "makefile", "GNUmakefile"],
        "npm" | "yarn" | "pnpm" | "bun" | "npx" => &["package.json"],
        "cargo" => &["build.rs", "Cargo.toml", ".cargo/config.toml"],
        "python" | "python3" | "pytest" => &["conftest.py", "setup.py", "pyproject.toml"],
        _ => &[],
    };
    let dirs = std::iter::once(&state.ctx.cwd).chain(state.other_cwds.iter().map(|(d, _)| d));
    for dir in dirs {
        named.extend(conventional.iter().map(|f| normalize(&dir.join(f))));
    }
    for (path, text) in &state.written {
        if !named.contains(path) {
            continue;
        }
        let Some(text) = text else {
            if !runs_code(cmd, path, state) {
                continue;
            }
            return judge(
                Risk::High,
                format!(
                    "runs {}, which this command line wrote with text only known at run time",
                    path.display()
                ),
            )
            .ungrantable();
        };
        let as_shell = classify_nested(text, &state.ctx, depth + 1);
        let found = if as_shell.level == Risk::Forbidden {
            Some(as_shell.reason)
        } else {
            let in_code = super::dev::forbidden_in_code(text, state, depth);
            (in_code.level == Risk::Forbidden).then_some(in_code.reason)
        };
        if let Some(reason) = found {
            return judge(
                Risk::Forbidden,
                format!(
                    "runs {}, which this command line wrote: {reason}",
                    path.display()
                ),
            );
        }
    }
    fine
}

/// Programs that run a file they are given (or, for `make` and the package managers, the
/// file they read by convention) as code.
const RUNNERS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "source", ".", "python", "python3", "perl",
    "ruby", "node", "php", "lua", "make", "gmake", "npm", "yarn", "pnpm", "bun", "xargs", "env",
    "exec", "nohup", "timeout", "nice", "sudo",
];

/// Whether `cmd` runs the file at `path` as code: it is the program, or the program is one
/// that runs files (a shell, an interpreter, `make`).
fn runs_code(cmd: &SimpleCommand, path: &std::path::Path, state: &State) -> bool {
    let Some(first) = cmd.words.first() else {
        return false;
    };
    RUNNERS.contains(&basename(&first.text))
        || expand(first, &state.ctx).is_some_and(|p| normalize(&p) == path)
}
