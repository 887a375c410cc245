//! Programs that only read, each with the options Loom recognises for it.
//!
//! A program here is read-only only when every word of the call is proven: each option is
//! in its [`Spec`] (written from the program's manual, leaving out every option that writes
//! a file, runs a program or loads code, such as `sort --compress-program`, `rg --pre`,
//! `tree -o`, `file -C`, `xxd -r`), the operands it reads name no protected path, and the
//! few operands that write (`uniq IN OUT`, `xxd IN OUT`, `sort -o FILE`) are judged as
//! writes. Anything else is at least medium, with the unrecognised word named.
//!
//! Two shapes read files the operands do not show, so they ask: a list of names read from
//! input or a file (`sort --files0-from=-`, `file -f LIST`, and any read-only program run
//! by `xargs`, which appends paths only known at run time), and binutils' response files
//! (`strings @FILE` reads FILE and takes its words as options). The table itself is in
//! [`super::readonly_table`].

use super::super::options::{Parsed, Spec, parse};
use super::super::parse::Word;
use super::super::{Risk, place};
use super::{Judgement, State, judge, write_to};

pub(super) use super::readonly_table::lookup;

/// How a program treats its operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Operands {
    /// Files it reads: each is checked against the protected paths.
    Paths,
    /// Text (patterns, strings, numbers): nothing to check.
    Text,
    /// The first operand is text (a pattern or filter), the rest are files read.
    PatternThenPaths,
}

/// What Loom knows about one read-only program.
#[derive(Debug, Clone, Copy)]
pub(super) struct ReadOnly {
    /// Its options.
    pub spec: Spec,
    /// No option of the program (recognised or not) writes, runs or connects anything, so a
    /// word that expands at run time is harmless for it.
    pub inert: bool,
    /// Its operands.
    pub operands: Operands,
    /// Options whose value is a file the program reads.
    pub read_values: &'static [&'static str],
    /// Options whose value is a file (or `-`, the input) holding the names of the files to
    /// read: those names are unknown, so the call asks.
    pub name_lists: &'static [&'static str],
    /// The program expands `@FILE` arguments into options read from FILE (binutils).
    pub response_files: bool,
}

/// A read-only program with these options and operands, inert, reading no option values.
pub(super) const fn ro(
    flags: &'static str,
    valued: &'static str,
    long: &'static [&'static str],
    operands: Operands,
) -> ReadOnly {
    ReadOnly {
        spec: Spec {
            flags,
            valued,
            long,
            numeric: false,
        },
        inert: true,
        operands,
        read_values: &[],
        name_lists: &[],
        response_files: false,
    }
}

/// The same program, also taking `-NUM` (`head -5`).
pub(super) const fn numeric(mut r: ReadOnly) -> ReadOnly {
    r.spec.numeric = true;
    r
}

/// The same program, whose `values` options name files it reads.
pub(super) const fn reads(mut r: ReadOnly, values: &'static [&'static str]) -> ReadOnly {
    r.read_values = values;
    r
}

/// The same program, which has options (recognised or not) that write, run or connect.
pub(super) const fn not_inert(mut r: ReadOnly) -> ReadOnly {
    r.inert = false;
    r
}

/// The same program, whose `values` options name a list of the files to read.
pub(super) const fn name_lists(mut r: ReadOnly, values: &'static [&'static str]) -> ReadOnly {
    r.name_lists = values;
    r
}

/// The same program, which expands `@FILE` arguments (binutils).
pub(super) const fn binutils(mut r: ReadOnly) -> ReadOnly {
    r.response_files = true;
    r
}

/// Judge a call of a read-only program: its options against the table, protected paths
/// among what it reads, and the operands or options that write. `extra_dynamic`: `xargs`
/// (or `find -exec … +`) appends arguments only known at run time.
pub(super) fn judge_read_only(
    name: &str,
    ro: &ReadOnly,
    args: &[Word],
    state: &State,
    extra_dynamic: bool,
) -> Judgement {
    let mut j = judge(Risk::ReadOnly, format!("`{name}` only reads"));
    let mut args: Vec<Word> = args.to_vec();
    if ro.response_files {
        let (files, rest): (Vec<Word>, Vec<Word>) = args
            .into_iter()
            .partition(|w| w.text.len() > 1 && w.text.starts_with('@'));
        args = rest;
        for f in files {
            j = j.worst(response_file(name, &f, state));
        }
    }
    if name == "xxd" {
        args = args.iter().map(xxd_word).collect();
    }
    let parsed = match parse(&ro.spec, &args, ro.inert) {
        Ok(p) => p,
        Err(e) => return super::unproven(e, name).worst(j),
    };
    let j = names_known_at_run_time(j, name, ro, &parsed, state, extra_dynamic);
    let j = reads_and_writes(j, name, ro, &parsed, state);
    changes_the_machine(j, name, &parsed)
}

/// `j`, worse when what the program reads is only known at run time: paths appended by
/// `xargs`, or the names of the files read from a list (`--files0-from=LIST`).
fn names_known_at_run_time(
    mut j: Judgement,
    name: &str,
    ro: &ReadOnly,
    parsed: &Parsed<'_>,
    state: &State,
    extra_dynamic: bool,
) -> Judgement {
    if extra_dynamic && ro.operands != Operands::Text {
        j = j.worst(
            judge(
                Risk::Medium,
                format!(
                    "`{name}` is given paths only known at run time (xargs), which could name \
                     protected files"
                ),
            )
            .ungrantable(),
        );
    }
    for list in parsed.values(ro.name_lists) {
        j = j.worst(
            judge(
                Risk::Medium,
                format!(
                    "`{name}` reads the names of the files it reads from {}, so what it reads \
                     is only known at run time",
                    if list.text() == "-" {
                        "its input"
                    } else {
                        list.text()
                    }
                ),
            )
            .ungrantable(),
        );
        if list.text() != "-" {
            j = j.worst(super::reads(&list.word(), state));
        }
    }
    j
}

/// `j`, worse for the files the call reads (operands and option values) and writes
/// (`uniq IN OUT`, `xxd IN OUT`, `sort -o FILE`).
fn reads_and_writes(
    mut j: Judgement,
    name: &str,
    ro: &ReadOnly,
    parsed: &Parsed<'_>,
    state: &State,
) -> Judgement {
    let mut read_words: Vec<Word> = parsed
        .values(ro.read_values)
        .into_iter()
        .map(|v| v.word())
        .collect();
    if name == "file" {
        read_words = read_words.iter().flat_map(magic_files).collect();
    }
    let skip = usize::from(
        ro.operands == Operands::PatternThenPaths
            && !parsed.has(&["-e", "--regexp", "-f", "--file"]),
    );
    let mut writes: Vec<Word> = Vec::new();
    let mut read_ops: Vec<&Word> = Vec::new();
    match (name, ro.operands) {
        ("uniq", _) | ("xxd", _) if parsed.operands.len() >= 2 => {
            read_ops.push(parsed.operands[0]);
            writes.extend(parsed.operands[1..].iter().map(|w| (*w).clone()));
        }
        (_, Operands::Text) => {}
        _ => read_ops.extend(parsed.operands.iter().skip(skip).copied()),
    }
    for w in read_ops.into_iter().chain(read_words.iter()) {
        j = j.worst(super::reads(w, state));
    }
    if matches!(name, "sort" | "shuf") {
        writes.extend(
            parsed
                .values(&["-o", "--output"])
                .into_iter()
                .map(|v| v.word()),
        );
    }
    for w in &writes {
        j = j.worst(write_to(&place(w, &state.ctx), &w.text, "writes"));
    }
    j
}

/// `j`, worse for the calls of read-only programs that change the machine: `printf -v`
/// of a dangerous variable, `date` setting the clock, `hostname NAME`.
fn changes_the_machine(mut j: Judgement, name: &str, parsed: &Parsed<'_>) -> Judgement {
    for v in parsed.values(&["-v"]) {
        if name == "printf"
            && let Some(reason) = super::super::vars::dangerous(v.text())
        {
            j = j.at_least(Risk::High, reason);
        }
    }
    match name {
        "date" if parsed.operands.iter().any(|w| !w.text.starts_with('+')) => {
            j = j.worst(judge(
                Risk::High,
                "`date` with a date operand sets the system clock",
            ));
        }
        "hostname" if !parsed.operands.is_empty() => {
            j = j.worst(judge(
                Risk::High,
                "`hostname NAME` changes the machine's name",
            ));
        }
        _ => {}
    }
    j
}

/// `@FILE` (binutils, gcc): FILE is read, and its words become options Loom cannot see
/// (`--plugin` loads code), so the call asks; a protected FILE is a protected read.
pub(super) fn response_file(name: &str, arg: &Word, state: &State) -> Judgement {
    let path = &arg.text[1..];
    let path = if path.starts_with('~') {
        format!("./{path}")
    } else {
        path.to_string()
    };
    let file = Word {
        text: path,
        ..arg.clone()
    };
    judge(
        Risk::Medium,
        format!(
            "`{name}` reads more options from {}, which Loom cannot see",
            file.text
        ),
    )
    .ungrantable()
    .worst(super::reads(&file, state))
}

/// xxd reads an option by its first letter (`-ps` is `-p`, `-cols 8` is `-c 8`), not as a
/// getopt cluster: each word is rewritten to the getopt form the table reads, so `-ps`
/// cannot pass for `-p -s` and swallow the file that follows as the value of `-s`.
fn xxd_word(w: &Word) -> Word {
    const LONG: &[(&str, &str)] = &[
        ("-cols", "-c"),
        ("-groupsize", "-g"),
        ("-len", "-l"),
        ("-name", "-n"),
        ("-offset", "-o"),
        ("-seek", "-s"),
    ];
    let t = w.text.as_str();
    if w.dynamic || !t.starts_with('-') || t.starts_with("--") || t.len() <= 2 {
        return w.clone();
    }
    if let Some((_, short)) = LONG.iter().find(|(long, _)| *long == t) {
        return Word::literal(short);
    }
    let first = t[1..].chars().next().unwrap_or('-');
    match lookup("xxd") {
        Some(ro) if ro.spec.flags.contains(first) => Word::literal(&format!("-{first}")),
        _ => w.clone(),
    }
}

/// `file -m A:B`: the magic files in a colon-separated list.
fn magic_files(w: &Word) -> Vec<Word> {
    if w.dynamic || !w.text.contains(':') {
        return vec![w.clone()];
    }
    w.text.split(':').map(Word::literal).collect()
}
