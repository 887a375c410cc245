//! Values a command line gives its own variables, so `x=/; rm -rf $x`,
//! `for d in ~ /; do rm -rf "$d"; done` and `f() { rm -rf "$1"; }; f /` are judged by the
//! `rm -rf /` they run, not as "a path only known at run time" (high, which full-auto
//! runs).
//!
//! Which value a variable holds when a command runs depends on the order things ran in,
//! on `if`s and on subshells; Loom does not follow that. Instead every value the line
//! ever gives a variable (an assignment, a `for` list, a function's call arguments as
//! `$1`…`$9` and `$@`, `set -- …`) is a candidate, and a command that reads the variable
//! is judged once more with each candidate in its place. The run-time judgement stands;
//! a candidate can only make the verdict worse, never better, so a value Loom picks
//! wrongly cannot hide anything.

use super::super::parse::SimpleCommand;
use super::super::parse::{Script, Word};
use super::super::{Risk, Segment};
use super::{Judgement, State, judge, program, redirects, with_known_values};

/// Most candidate values remembered for one line.
const MAX_VALUES: usize = 64;
/// Most times one command is judged again with candidate values.
const MAX_TRIES: usize = 32;

/// Every value `script` gives a variable, by name (`"1"` for `$1`, `"@"` for `$@`).
pub(in super::super) fn collect(script: &Script) -> Vec<(String, Word)> {
    let mut out: Vec<(String, Word)> = Vec::new();
    let mut push = |name: &str, w: &Word| {
        if out.len() < MAX_VALUES && !out.iter().any(|(n, v)| n == name && v.text == w.text) {
            out.push((name.to_string(), w.clone()));
        }
    };
    let functions: Vec<&str> = script.functions.iter().map(|(n, _)| n.as_str()).collect();
    for cmd in &script.commands {
        for a in cmd.assignments.iter().filter(|a| !a.value.dynamic) {
            push(&a.name, &a.value);
        }
        let Some(first) = cmd.words.first() else {
            continue;
        };
        let positional = if functions.contains(&first.text.as_str()) {
            &cmd.words[1..]
        } else if first.text == "set" && cmd.words.get(1).is_some_and(|w| w.text == "--") {
            &cmd.words[2..]
        } else {
            continue;
        };
        for (i, w) in positional.iter().enumerate().take(9) {
            if !w.dynamic {
                push(&(i + 1).to_string(), w);
            }
        }
        if !positional.is_empty() && positional.iter().all(|w| !w.dynamic) {
            let all = Word {
                text: positional
                    .iter()
                    .map(|w| w.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
                glob: positional.iter().any(|w| w.glob),
                ..Word::default()
            };
            push("@", &all);
            push("*", &all);
        }
    }
    out
}

/// The variable a run-time part reads, when it is a plain reference (`$x`, `${x}`, `$1`,
/// `$@`): its name.
pub(super) fn referenced(source: &str) -> Option<&str> {
    let name = source
        .strip_prefix("${")
        .and_then(|s| s.strip_suffix('}'))
        .or_else(|| source.strip_prefix('$'))?;
    let plain = !name.is_empty()
        && (name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            || matches!(name, "@" | "*"));
    plain.then_some(name)
}

/// `cmd` judged again with each candidate value of the variables it reads; the worst
/// verdict (read-only when no candidate applies). Never grantable: a grant for the
/// program must not cover the value.
pub(super) fn judged_with_values(cmd: &SimpleCommand, state: &State, depth: usize) -> Judgement {
    let mut worst = judge(
        Risk::ReadOnly,
        "no value the line gives changes the verdict",
    );
    if state.var_values.is_empty() {
        return worst;
    }
    let mut names: Vec<&str> = cmd
        .words
        .iter()
        .chain(cmd.redirects.iter().map(|r| &r.target))
        .flat_map(|w| w.subs.iter())
        .filter_map(|s| referenced(&s.source))
        .collect();
    names.dedup();
    let mut tries = 0;
    for name in names {
        for (_, value) in state.var_values.iter().filter(|(n, _)| n == name) {
            tries += 1;
            if tries > MAX_TRIES || !super::super::spend_analysis() {
                return worst;
            }
            let mut scratch = state.clone();
            scratch.var_choice = Some((name.to_string(), value.clone()));
            let Some(alt) = with_known_values(cmd, &scratch) else {
                continue;
            };
            let mut j = if alt.words.is_empty() {
                judge(Risk::ReadOnly, "only redirects")
            } else {
                program(&alt.words, &mut scratch, depth, false)
            };
            j = j.worst(redirects(&alt, &scratch));
            if j.level > worst.level {
                worst = Judgement {
                    reason: format!("if ${name} is `{}`: {}", value.text, j.reason),
                    prefix: Vec::new(),
                    argv: Vec::new(),
                    nested: Vec::<Segment>::new(),
                    ..j
                }
                .ungrantable();
            }
        }
    }
    worst
}
