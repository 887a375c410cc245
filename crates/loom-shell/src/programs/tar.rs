//! `tar`: listing is read-only, extracting and creating write; options that run programs
//! (`--checkpoint-action=exec`, `--to-command`, `-I`) are judged by the command they run.
//! An archive named `HOST:FILE` (a colon before any slash, without `--force-local`) is
//! read or written on another machine through `rsh`/`ssh`, so it uses the network; the
//! snapshot file of `--listed-incremental` is written.

use super::super::Risk;
use super::super::options::{Spec, parse};
use super::super::parse::Word;
use super::{Judgement, State, judge, reads, writes_at};

/// tar options whose value is a command tar runs (`--checkpoint-action` only with `exec=`).
const TAR_RUNS: &[&str] = &[
    "-I",
    "--use-compress-program",
    "--to-command",
    "--checkpoint-action",
    "-F",
    "--info-script",
    "--new-volume-script",
    "--rsh-command",
    "--rmt-command",
];

/// Whether tar reads an archive name as `[USER@]HOST:FILE` on another machine.
fn remote_archive(name: &str) -> bool {
    match name.find(':') {
        Some(colon) => !name[..colon].contains('/') && colon > 0,
        None => false,
    }
}

/// `tar`: judged by what it lists, extracts or creates, and what it runs.
pub(super) fn tar(args: &[Word], state: &State, depth: usize) -> Judgement {
    const SPEC: Spec = Spec {
        flags: "ctxruAdvzjJapkUOmhSwWiBGMnloq",
        valued: "fCTXbgKLNVHIF",
        long: &[
            "use-compress-program=",
            "to-command=",
            "checkpoint-action=",
            "info-script=",
            "new-volume-script=",
            "rsh-command=",
            "rmt-command=",
            "list",
            "extract",
            "get",
            "create",
            "append",
            "update",
            "diff",
            "compare",
            "file=",
            "directory=",
            "gzip",
            "gunzip",
            "bzip2",
            "xz",
            "zstd",
            "lzma",
            "lzip",
            "auto-compress",
            "verbose",
            "exclude=",
            "exclude-from=",
            "files-from=",
            "strip-components=",
            "wildcards",
            "no-wildcards",
            "no-same-owner",
            "no-same-permissions",
            "same-permissions",
            "preserve-permissions",
            "keep-old-files",
            "skip-old-files",
            "keep-newer-files",
            "overwrite",
            "to-stdout",
            "owner=",
            "group=",
            "mode=",
            "mtime=",
            "sort=",
            "numeric-owner",
            "transform=",
            "xform=",
            "show-transformed-names",
            "one-file-system",
            "dereference",
            "ignore-failed-read",
            "totals?",
            "warning=",
            "anchored",
            "no-anchored",
            "exclude-vcs",
            "exclude-vcs-ignores",
            "null",
            "recursion",
            "no-recursion",
            "label=",
            "format=",
            "posix",
            "blocking-factor=",
            "checkpoint?",
            "listed-incremental=",
            "force-local",
            "help",
            "version",
        ],
        numeric: false,
    };
    let mut words: Vec<Word> = Vec::new();
    let mut rest = args;
    if let Some(first) = args.first()
        && !first.text.starts_with('-')
        && !first.dynamic
        && first.text.chars().all(|c| c.is_ascii_alphabetic())
    {
        let mut k = 1;
        for c in first.text.chars() {
            words.push(Word::literal(&format!("-{c}")));
            if SPEC.valued.contains(c)
                && let Some(v) = args.get(k)
            {
                words.push(v.clone());
                k += 1;
            }
        }
        rest = &args[k.min(args.len())..];
    }
    words.extend(rest.iter().cloned());
    let parsed = match parse(&SPEC, &words, false) {
        Ok(p) => p,
        Err(e) => return super::unproven(e, "tar"),
    };
    let archive: Vec<Word> = parsed
        .values(&["-f", "--file"])
        .into_iter()
        .map(|v| v.word())
        .collect();
    let listing = parsed.has(&["-t", "--list", "-d", "--diff", "--compare"]);
    let extracting = parsed.has(&["-x", "--extract", "--get"]);
    let mut j = if listing && !extracting {
        judge(Risk::ReadOnly, "tar lists an archive")
    } else if extracting {
        judge(Risk::Medium, "tar extracts files")
    } else {
        judge(Risk::Medium, "tar writes an archive")
    };
    let local = parsed.has(&["--force-local"]);
    for a in &archive {
        if !local && !a.dynamic && remote_archive(&a.text) {
            j = j.worst(
                judge(
                    Risk::High,
                    format!(
                        "tar reaches the archive {} on another machine through rsh or ssh",
                        a.text
                    ),
                )
                .net(),
            );
            continue;
        }
        j = if listing || extracting {
            j.worst(reads(a, state))
        } else {
            j.worst(writes_at(a, state, "writes"))
        };
    }
    for g in parsed.values(&["-g", "--listed-incremental"]) {
        j = j.worst(writes_at(&g.word(), state, "writes its snapshot file to"));
    }
    for d in parsed.values(&["-C", "--directory"]) {
        if extracting {
            j = j.worst(writes_at(&d.word(), state, "extracts into"));
        }
    }
    if !listing && !extracting {
        for w in &parsed.operands {
            j = j.worst(reads(w, state));
        }
    }
    for v in parsed.values(&["-T", "--files-from", "-X", "--exclude-from"]) {
        j = j.worst(reads(&v.word(), state));
    }
    for o in parsed
        .opts
        .iter()
        .filter(|o| TAR_RUNS.contains(&o.name.as_str()))
    {
        let Some(value) = &o.value else { continue };
        let word = value.word();
        let command = if o.name == "--checkpoint-action" {
            match word.text.strip_prefix("exec=") {
                Some(cmd) => Word {
                    text: cmd.to_string(),
                    ..word.clone()
                },
                None => continue,
            }
        } else {
            word
        };
        j = j.worst(
            judge(Risk::Medium, format!("tar {} runs a command", o.name))
                .ungrantable()
                .worst(super::nested_shell(&command, state, depth)),
        );
    }
    j
}
