//! Values Loom can know before a command runs: `$(pwd)`, `` `pwd` ``, `$(echo TEXT)`,
//! `$(printf TEXT)`, `$(dirname …)`, `$(realpath …)`, `$(git rev-parse --show-toplevel)`.
//!
//! A word built from such substitutions is judged by its value, so `rm -rf $(pwd)` is the
//! `rm -rf` of the workspace it is (forbidden) rather than of "a path only known at run
//! time" (high, which full-auto runs), and `eval "$(echo 'rm -rf *')"` is judged by the
//! command it evaluates. Anything else stays a run-time word, judged as before: working a
//! value out can only replace "unknown" with what the shell will see, and a value Loom is
//! not sure of is never worked out.

use std::path::{Path, PathBuf};

use super::super::parse::{Subst, Word};
use super::super::place::normalize;
use super::State;

/// Deepest nesting of substitutions worked out (`$(dirname $(dirname $(pwd)))`).
const MAX_DEPTH: usize = 8;

/// `words` with every word whose run-time parts all have known values replaced by the
/// words the shell makes of it (an unquoted value is split at whitespace). `None` when no
/// word changed.
pub(super) fn resolve(words: &[Word], state: &State) -> Option<Vec<Word>> {
    let mut changed = false;
    let mut out = Vec::with_capacity(words.len());
    for w in words {
        match value_words(w, state, 0) {
            Some(values) => {
                changed = true;
                out.extend(values);
            }
            None => out.push(w.clone()),
        }
    }
    changed.then_some(out)
}

/// The words `w` becomes, when every run-time part of it has a known value.
fn value_words(w: &Word, state: &State, depth: usize) -> Option<Vec<Word>> {
    if !w.dynamic || w.subs.is_empty() || depth > MAX_DEPTH {
        return None;
    }
    if w.subs.iter().any(|s| is_process_substitution(&s.source)) {
        // `<(echo x)` is a file name (`/dev/fd/63`), not the text it prints.
        return None;
    }
    let mut text = String::new();
    let mut rest = w.text.as_str();
    let mut split = false;
    let mut glob_value = false;
    for sub in &w.subs {
        let at = rest.find(sub.source.as_str())?;
        text.push_str(&rest[..at]);
        // A value the line gives the variable, while the command is judged with it
        // ([`super::var_values`]): a `for` list's `*` stays a pattern, `"$@"` stays words.
        let chosen = state
            .var_choice
            .as_ref()
            .filter(|(name, _)| super::var_values::referenced(&sub.source) == Some(name.as_str()));
        let value = match chosen {
            Some((name, value)) => {
                glob_value |= value.glob;
                split |= matches!(name.as_str(), "@" | "*");
                if sub.quoted {
                    value.text.clone()
                } else {
                    // `IFS=/; x=rm/-rf/*; $x`: an unquoted value splits at every IFS
                    // character the line sets, too.
                    let ifs: Vec<char> = state
                        .var_values
                        .iter()
                        .filter(|(n, _)| n == "IFS")
                        .flat_map(|(_, v)| v.text.chars())
                        .collect();
                    value
                        .text
                        .chars()
                        .map(|c| if ifs.contains(&c) { ' ' } else { c })
                        .collect()
                }
            }
            None => substitution(sub, state, depth)?,
        };
        split |= !sub.quoted && value.contains(char::is_whitespace);
        text.push_str(&value);
        rest = &rest[at + sub.source.len()..];
    }
    text.push_str(rest);
    let glob = w.glob
        || glob_value
        || w.subs
            .iter()
            .any(|s| !s.quoted && text.contains(['*', '?', '[']));
    // Split into several words, each is a pattern only if it holds a glob character.
    let word = |t: &str| Word {
        text: t.to_string(),
        glob: glob && (!split || t.contains(['*', '?', '['])),
        ansi_c: w.ansi_c,
        brace: w.brace,
        evaluated: true,
        ..Word::default()
    };
    Some(if split {
        text.split_whitespace().map(word).collect()
    } else {
        vec![word(&text)]
    })
}

fn is_process_substitution(source: &str) -> bool {
    source.starts_with("<(") || source.starts_with(">(")
}

/// What the process substitution `<(CMD)` that is the whole word `w` gives to whoever
/// reads it, when Loom knows what CMD prints (`<(echo 'rm -rf *')`).
pub(super) fn process_output(w: &Word, state: &State) -> Option<String> {
    match w.subs.as_slice() {
        [sub] if sub.source == w.text && sub.source.starts_with("<(") => {
            substitution(sub, state, 0)
        }
        _ => None,
    }
}

/// What a substitution prints, trailing newlines removed, when Loom knows it.
fn substitution(sub: &Subst, state: &State, depth: usize) -> Option<String> {
    let words = sub.command.as_ref()?;
    let mut args: Vec<String> = Vec::new();
    for w in words {
        if w.dynamic {
            let values = value_words(w, state, depth + 1)?;
            args.extend(values.into_iter().map(|v| v.text));
        } else if w.glob || w.brace || w.ansi_c {
            return None;
        } else {
            args.push(w.text.clone());
        }
    }
    let (program, args) = args.split_first()?;
    let value = match program.as_str() {
        "pwd" if args.iter().all(|a| a == "-L" || a == "-P") => path_text(&cwd(state)?)?,
        "echo" => echo(args)?,
        "printf" => printf(args)?,
        "dirname" => match args {
            [p] if !p.starts_with('-') => path_text(
                Path::new(p)
                    .parent()
                    .unwrap_or(Path::new(if p.starts_with('/') { "/" } else { "." })),
            )?,
            _ => return None,
        },
        "realpath" | "readlink" => {
            let target = match (program.as_str(), args) {
                ("realpath", [p]) if !p.starts_with('-') => p,
                ("realpath" | "readlink", [flag, p])
                    if matches!(flag.as_str(), "-f" | "-e" | "-m" | "-s")
                        && !p.starts_with('-') =>
                {
                    p
                }
                _ => return None,
            };
            let base = cwd(state)?;
            path_text(&normalize(&base.join(target)))?
        }
        "git"
            if args == ["rev-parse", "--show-toplevel"]
                && !state.cwd_unknown
                && state.ctx.cwd.starts_with(&state.ctx.workspace) =>
        {
            path_text(&state.ctx.workspace)?
        }
        _ => return None,
    };
    Some(value.trim_end_matches('\n').to_string())
}

fn cwd(state: &State) -> Option<PathBuf> {
    (!state.cwd_unknown).then(|| state.ctx.cwd.clone())
}

fn path_text(p: &Path) -> Option<String> {
    p.to_str().map(str::to_string)
}

/// `echo [-neE] ARGS`: the arguments joined, unless escapes could change them (dash's
/// echo, Debian's `sh`, decodes backslash escapes even without `-e`).
fn echo(args: &[String]) -> Option<String> {
    let options = args
        .iter()
        .take_while(|a| matches!(a.as_str(), "-n" | "-e" | "-E" | "-ne" | "-en"))
        .count();
    let text = args[options..].join(" ");
    (!text.contains('\\')).then_some(text)
}

/// `printf FORMAT` with no conversions, or `printf '%s' ARG` / `printf '%s\n' ARG`.
fn printf(args: &[String]) -> Option<String> {
    let (format, rest) = args.split_first()?;
    let plain = |f: &str| -> Option<String> {
        let f = f.strip_suffix("\\n").unwrap_or(f);
        (!f.contains(['%', '\\'])).then(|| f.to_string())
    };
    match (format.as_str(), rest) {
        ("%s" | "%s\\n", [arg]) if !arg.contains('\\') => Some(arg.clone()),
        (f, []) if !f.starts_with('-') => plain(f),
        _ => None,
    }
}
