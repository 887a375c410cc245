//! File-changing programs: deletion, permissions, copies, moves, links, `dd` and
//! compressors, judged by where their targets are and what they read.

use super::super::parse::Word;
use super::super::place::protected;
use super::super::{Place, Risk};
use super::{Judgement, State, has_flag, judge, operands, reads, writes_at};
use loom_base::paths::Access;

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

/// `mv SOURCE... DEST` (or `-t DIR`): writes every operand; moving the workspace, a
/// directory holding it, home or `/` away (`mv ~ /tmp/x`, `mv * /tmp/`) empties the
/// workspace as surely as `rm -rf` does, so it is forbidden.
pub(super) fn moves(args: &[Word], state: &State, extra_dynamic: bool) -> Judgement {
    let mut j = writes(args, state, "moves", Risk::Medium, extra_dynamic);
    let target = target_dir(args);
    let ops = operands(args);
    let sources: Vec<&Word> = match &target {
        Some(t) => ops.into_iter().filter(|w| w.text != t.text).collect(),
        None => ops
            .split_last()
            .map(|(_, rest)| rest.to_vec())
            .unwrap_or_default(),
    };
    for w in sources {
        j = j.worst(super::worst_over(w, state, |_, place| {
            let reason = match place {
                Place::SystemRoot(s) => format!("moves {s} away"),
                Place::WorkspaceRoot => "moves the whole workspace away".to_string(),
                Place::Outside(p) if state.ctx.workspace.starts_with(p) => {
                    format!("moves {}, which holds the workspace, away", p.display())
                }
                _ => return judge(Risk::ReadOnly, "moves part of a tree"),
            };
            judge(Risk::Forbidden, reason)
        }));
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
