//! Package runners: `npx`, `bunx`, `pnpx`, `npm exec`/`npm x`, `pnpm exec`/`pnpm dlx`,
//! `yarn exec`/`yarn dlx`, `bun x`. They run the command named by their first operand
//! (a package's binary, or any program on `PATH`) or, with `-c`/`--call`, a shell command
//! string, so both are judged as what they are: `npx -c 'rm -rf *'` is the `rm -rf *` it
//! runs, not a package download.

use super::super::Risk;
use super::super::parse::Word;
use super::{Judgement, State, forbidden_among, judge, nested_shell, program};

/// Options of the runners that take the next word as their value.
const VALUED: &[&str] = &[
    "-p",
    "--package",
    "--cache",
    "--prefix",
    "-w",
    "--workspace",
];

/// Options that set the shell or configuration the runner uses for `-c`.
const CHANGES_SHELL: &[&str] = &[
    "--script-shell",
    "--shell",
    "--userconfig",
    "--globalconfig",
];

/// Judge `label` (`npx`, `npm exec`) run with `args` (what follows the runner's name or
/// subcommand).
pub(super) fn runs_package(
    label: &str,
    args: &[Word],
    state: &mut State,
    depth: usize,
) -> Judgement {
    let mut j = judge(
        Risk::Medium,
        format!("`{label}` downloads and runs a package"),
    )
    .net();
    let mut prefix: Vec<String> = label.split(' ').map(str::to_string).collect();
    let mut i = 0;
    let mut call: Vec<Word> = Vec::new();
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        if t == "--" {
            i += 1;
            break;
        }
        if !t.starts_with('-') || w.dynamic {
            break;
        }
        let (opt, glued) = match t.split_once('=') {
            Some((o, v)) if o.starts_with("--") => (o, Some(v)),
            _ => (t, None),
        };
        if CHANGES_SHELL.contains(&opt) {
            j = j.at_least(
                Risk::High,
                format!("`{label} {opt}` chooses the shell or configuration that runs commands"),
            );
        }
        let value = match glued {
            Some(v) => Some(Word::literal(v).with_dynamic(w.dynamic)),
            None if matches!(opt, "-c" | "--call") || VALUED.contains(&opt) => {
                i += 1;
                args.get(i).cloned()
            }
            None => None,
        };
        if matches!(opt, "-c" | "--call")
            && let Some(code) = value
        {
            call.push(code);
        }
        i += 1;
    }
    for code in &call {
        j = j.ungrantable().worst(nested_shell(code, state, depth));
    }
    let command = &args[i.min(args.len())..];
    if let Some(first) = command.first() {
        prefix.push(first.text.clone());
        let mut inner = program(command, state, depth, false);
        inner.prefix = Vec::new();
        inner.argv = Vec::new();
        j = j.worst(inner);
    }
    if j.level < Risk::Forbidden {
        j = j.worst(forbidden_among(args, state, depth));
    }
    j.prefix = prefix;
    j
}
