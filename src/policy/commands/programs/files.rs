//! File-changing programs: deletion, permissions, copies, links, `dd`, `find`, `tar` and
//! compressors, judged by where their targets are and what they read.

use super::super::options::{Spec, parse};
use super::super::parse::Word;
use super::super::place::protected;
use super::super::{Place, Risk};
use super::{Judgement, State, has_flag, judge, operands, program, reads, writes_at};
use crate::policy::paths::Access;

/// The value of `-t DIR` / `--target-directory=DIR` (glued or not, also inside combined
/// short flags such as `-rtDIR`), the destination of `cp`, `mv`, `ln` and `install`.
fn target_dir(args: &[Word]) -> Option<Word> {
    for (i, w) in args.iter().enumerate() {
        let t = w.text.as_str();
        if t == "--" {
            break;
        }
        if let Some(v) = t.strip_prefix("--target-directory=") {
            return Some(Word::literal(v).with_dynamic(w.dynamic));
        }
        if t == "--target-directory" {
            return args.get(i + 1).cloned();
        }
        if let Some(shorts) = t.strip_prefix('-').filter(|s| !s.starts_with('-'))
            && let Some(pos) = shorts.find('t')
        {
            let rest = &shorts[pos + 1..];
            return if rest.is_empty() {
                args.get(i + 1).cloned()
            } else {
                Some(Word::literal(rest).with_dynamic(w.dynamic))
            };
        }
    }
    None
}

pub(super) fn writes(
    args: &[Word],
    state: &State,
    verb: &str,
    floor: Risk,
    extra_dynamic: bool,
) -> Judgement {
    let mut j = judge(floor, format!("{verb} files"));
    if let Some(dir) = target_dir(args) {
        j = j.worst(writes_at(&dir, state, verb));
    }
    let ops = operands(args);
    if ops.is_empty() && extra_dynamic {
        return judge(Risk::High, format!("{verb} files chosen at run time"));
    }
    for w in ops {
        j = j.worst(writes_at(w, state, verb));
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
        let here = super::worst_over(w, state, |w, place| rm_at(w, place, recursive, state));
        j = j.worst(here);
        if let Some(reason) = protected(w, &state.ctx, Access::Write) {
            j = j.at_least(Risk::High, format!("deletes protected files: {reason}"));
        }
    }
    j
}

/// Deleting the path word `w`, which points at `place`.
fn rm_at(w: &Word, place: &Place, recursive: bool, state: &State) -> Judgement {
    if recursive && let Some(held) = glob_covers_workspace(w, state) {
        return judge(
            Risk::Forbidden,
            format!(
                "rm -r of {} matches {}, which holds the workspace",
                w.text,
                held.display()
            ),
        );
    }
    match place.clone() {
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
        Place::Outside(p) if recursive && state.ctx.workspace.starts_with(&p) => judge(
            Risk::Forbidden,
            format!(
                "rm -r of {} would delete the workspace inside it",
                p.display()
            ),
        ),
        Place::Outside(p) => judge(
            Risk::High,
            format!("deletes outside the workspace ({})", p.display()),
        ),
        Place::Unknown => judge(
            Risk::High,
            format!("deletes {}, a path only known at run time", w.text),
        ),
    }
}

/// For a pattern (`../*`, `/work/*`, `/w*/p*`), the workspace or the directory holding it
/// that the pattern matches, if any: deleting it deletes the workspace.
fn glob_covers_workspace(w: &Word, state: &State) -> Option<std::path::PathBuf> {
    if !w.glob || w.dynamic {
        return None;
    }
    let path = super::super::place::expand(w, &state.ctx)?;
    let pattern = super::super::normalize(&path);
    let matcher = globset::GlobBuilder::new(&pattern.to_string_lossy())
        .literal_separator(true)
        .build()
        .ok()?
        .compile_matcher();
    state
        .ctx
        .workspace
        .ancestors()
        .find(|a| a.parent().is_some() && matcher.is_match(a))
        .map(std::path::Path::to_path_buf)
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
    let mut j = judge(Risk::Low, "dd copies data to its output");
    for w in args {
        let value = |prefix: &str| {
            w.text.strip_prefix(prefix).map(|t| Word {
                text: t.to_string(),
                dynamic: w.dynamic,
                ..Word::default()
            })
        };
        if let Some(target) = value("of=") {
            j = j
                .worst(writes_at(&target, state, "writes"))
                .worst(judge(Risk::Medium, "dd writes a file"));
        } else if let Some(source) = value("if=") {
            if !matches!(state.place(&source), Place::Device(_)) {
                j = j.worst(reads(&source, state));
            } else if source.text != "/dev/zero" {
                j = j.worst(judge(
                    Risk::High,
                    format!("reads the device {}", source.text),
                ));
            }
        }
    }
    j
}

/// `cp SOURCE... DEST` (or `-t DIR`): writes the destination, reads the sources.
pub(super) fn copy(args: &[Word], state: &State, extra_dynamic: bool) -> Judgement {
    let ops = operands(args);
    let target = target_dir(args);
    let mut j = judge(Risk::Medium, "copies files");
    let (sources, dest): (Vec<&Word>, Option<&Word>) = match (&target, ops.split_last()) {
        (Some(t), _) => (
            ops.iter().copied().filter(|w| w.text != t.text).collect(),
            Some(t),
        ),
        (None, Some((last, rest))) if !rest.is_empty() => (rest.to_vec(), Some(*last)),
        _ => (ops.clone(), None),
    };
    match dest {
        Some(d) => j = j.worst(writes_at(d, state, "copies to")),
        None if extra_dynamic => j = j.worst(judge(Risk::High, "copies files chosen at run time")),
        None => {}
    }
    let recursive = has_flag(args, 'r', "recursive")
        || has_flag(args, 'R', "recursive")
        || has_flag(args, 'a', "archive");
    for s in sources {
        j = j.worst(reads(s, state));
        if recursive {
            j = j.worst(super::reads_tree(s, state));
        }
    }
    j
}

/// `ln [-s] TARGET LINK`: creates LINK; linking a protected path makes it readable later.
pub(super) fn link(args: &[Word], state: &mut State) -> Judgement {
    let ops = operands(args);
    let mut j = judge(Risk::Medium, "creates links");
    if let Some(dir) = target_dir(args) {
        j = j.worst(writes_at(&dir, state, "links"));
    }
    if let Some((dest, sources)) = ops.split_last()
        && !sources.is_empty()
    {
        j = j.worst(writes_at(dest, state, "links"));
        for s in sources {
            if let Some(reason) = protected(s, &state.ctx, Access::Read) {
                j = j.at_least(Risk::High, format!("links to a protected path: {reason}"));
            }
        }
    }
    match ops.as_slice() {
        [target, link] => state.make_link(target, link),
        [target] => {
            let name = super::basename(&target.text).to_string();
            state.make_link(target, &Word::literal(&name));
        }
        _ => {}
    }
    j
}

/// gzip and friends: replace files unless they only print or test.
pub(super) fn compress(name: &str, args: &[Word], state: &State) -> Judgement {
    let to_stdout = args.iter().any(|w| {
        matches!(
            w.text.as_str(),
            "-c" | "-l" | "-t" | "--stdout" | "--to-stdout" | "--list" | "--test"
        ) || (w.text.starts_with('-')
            && !w.text.starts_with("--")
            && w.text.contains(['c', 't', 'l']))
    });
    let mut j = if to_stdout {
        judge(Risk::ReadOnly, "reads compressed data")
    } else {
        judge(
            Risk::Medium,
            format!("`{name}` replaces files with (de)compressed ones"),
        )
    };
    for w in operands(args) {
        j = j.worst(reads(w, state));
        if !to_stdout {
            j = j.worst(writes_at(w, state, "replaces"));
        }
    }
    j
}

/// `find`: every primary must be known; `-delete`, `-exec` and `-fprint` are judged.
pub(super) fn find(args: &[Word], state: &mut State, depth: usize) -> Judgement {
    const NO_ARG: &[&str] = &[
        "-empty",
        "-executable",
        "-false",
        "-nogroup",
        "-nouser",
        "-readable",
        "-true",
        "-writable",
        "-print",
        "-print0",
        "-ls",
        "-prune",
        "-quit",
        "-depth",
        "-d",
        "-mount",
        "-xdev",
        "-follow",
        "-noleaf",
        "-ignore_readdir_race",
        "-noignore_readdir_race",
        "-daystart",
        "-not",
        "!",
        "(",
        ")",
        ",",
        "-a",
        "-and",
        "-o",
        "-or",
        "-nowarn",
        "-warn",
    ];
    const ONE_ARG: &[&str] = &[
        "-name",
        "-iname",
        "-path",
        "-ipath",
        "-wholename",
        "-iwholename",
        "-regex",
        "-iregex",
        "-type",
        "-xtype",
        "-size",
        "-mtime",
        "-mmin",
        "-atime",
        "-amin",
        "-ctime",
        "-cmin",
        "-newer",
        "-anewer",
        "-cnewer",
        "-perm",
        "-user",
        "-group",
        "-uid",
        "-gid",
        "-links",
        "-inum",
        "-samefile",
        "-maxdepth",
        "-mindepth",
        "-printf",
        "-regextype",
        "-fstype",
        "-lname",
        "-ilname",
        "-used",
        "-context",
    ];
    let mut i = 0;
    while i < args.len() && matches!(args[i].text.as_str(), "-H" | "-L" | "-P") {
        i += 1;
    }
    let start = args[i..]
        .iter()
        .position(|w| w.text.starts_with('-') || w.text == "(" || w.text == "!")
        .map(|p| p + i)
        .unwrap_or(args.len());
    let roots = &args[i..start];
    let mut j = judge(Risk::ReadOnly, "find only lists files");
    for r in roots {
        j = j.worst(reads(r, state));
    }
    let mut i = start;
    while i < args.len() {
        let w = &args[i];
        let t = w.text.as_str();
        if w.dynamic {
            return j.at_least(
                Risk::Medium,
                format!("the find expression word `{t}` is only known at run time"),
            );
        }
        match t {
            "-delete" => {
                let mut d = judge(Risk::High, "find -delete deletes every matching file");
                for r in roots {
                    match state.place(r) {
                        Place::SystemRoot(s) => {
                            d = d.worst(judge(
                                Risk::Forbidden,
                                format!("find {s} -delete would delete everything"),
                            ))
                        }
                        Place::Outside(p) => {
                            d = d.worst(judge(
                                Risk::High,
                                format!("deletes files outside the workspace ({})", p.display()),
                            ))
                        }
                        _ => {}
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
                let words: Vec<Word> = args[i + 1..end]
                    .iter()
                    .map(|w| {
                        let mut w = w.clone();
                        if w.text.contains("{}") {
                            w.dynamic = true;
                        }
                        w
                    })
                    .collect();
                let inner = program(&words, state, depth, true);
                j = j.worst(
                    judge(Risk::Medium, "find -exec runs a command on every match").worst(inner),
                );
                i = end;
            }
            "-fprint" | "-fprint0" | "-fls" | "-fprintf" => {
                if let Some(target) = args.get(i + 1) {
                    j = j.worst(writes_at(target, state, "writes"));
                }
                i += if t == "-fprintf" { 2 } else { 1 };
            }
            "-files0-from" => {
                if let Some(file) = args.get(i + 1) {
                    j = j.worst(reads(file, state));
                }
                i += 1;
            }
            _ if NO_ARG.contains(&t) => {}
            _ if ONE_ARG.contains(&t) || (t.starts_with("-newer") && t.len() == 8) => i += 1,
            _ if t.starts_with("-O") || t == "-D" => {
                if t == "-D" {
                    i += 1;
                }
            }
            _ => {
                return j.at_least(Risk::Medium, format!("unrecognised find primary {t}"));
            }
        }
        i += 1;
    }
    j
}

/// `tar`: listing is read-only, extracting and creating write; options that run programs
/// (`--checkpoint-action=exec`, `--to-command`, `-I`) are not recognised.
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
    for a in &archive {
        j = if listing || extracting {
            j.worst(reads(a, state))
        } else {
            j.worst(writes_at(a, state, "writes"))
        };
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
