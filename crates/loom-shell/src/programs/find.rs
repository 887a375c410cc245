//! `find`: every primary must be known; `-delete`, `-exec` and `-fprint` are judged.
//!
//! An action that comes before any test applies to every file find visits, the start
//! paths included (unless `-mindepth` is 1 or more): `find . -delete` empties the
//! workspace like `rm -rf .`, and `find ~ -maxdepth 0 -exec rm -rf {} \;` is `rm -rf ~`.
//! So `-delete` with no test before it, over the workspace or a directory holding it, is
//! forbidden; and an `-exec` with no test before it is also judged with `{}` replaced by
//! each start path.

use super::super::parse::Word;
use super::super::{Place, Risk};
use super::{Judgement, State, judge, program, reads, writes_at};

/// Primaries that take no argument and filter what the actions after them see.
const NO_ARG_TESTS: &[&str] = &[
    "-empty",
    "-executable",
    "-false",
    "-nogroup",
    "-nouser",
    "-readable",
    "-writable",
];

/// Primaries with one argument that are options or actions, not tests.
const ONE_ARG_NOT_TESTS: &[&str] = &["-maxdepth", "-mindepth", "-printf", "-regextype"];

/// Whether a name or path test lets every entry through but the start path itself, so an
/// action after it still empties the tree: `-name '*'`, `-path './*'`, `! -name .`,
/// `-not -path .`.
fn selects_everything(test: &str, value: &str, negated: bool, starts: &[Word]) -> bool {
    if !matches!(
        test,
        "-name" | "-iname" | "-path" | "-ipath" | "-wholename" | "-iwholename"
    ) {
        return false;
    }
    if negated {
        return value == "." || starts.iter().any(|s| s.text == value);
    }
    let rest = starts
        .iter()
        .find_map(|s| value.strip_prefix(&format!("{}/", s.text.trim_end_matches('/'))))
        .unwrap_or(value);
    super::super::place::matches_every_name(rest)
}

/// What `-delete` with no test before it does to `root`: forbidden when the root (in any
/// directory the line may be in) is the workspace, a directory holding it, or the system
/// root or home.
fn deletes_everything(root: &Word, state: &State) -> Judgement {
    super::worst_over(root, state, |w, place| {
        let what = match place {
            Place::WorkspaceRoot => "deletes the whole workspace".to_string(),
            Place::SystemRoot(s) => format!("deletes everything under {s}"),
            Place::Outside(p) if state.ctx.workspace.starts_with(p) => format!(
                "deletes everything under {}, the workspace included",
                p.display()
            ),
            _ => return judge(Risk::ReadOnly, "deletes only part of the tree"),
        };
        judge(
            Risk::Forbidden,
            format!("find {} -delete with no test before it {what}", w.text),
        )
    })
}

/// `find`: judged by its start paths and every primary of its expression.
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
    let dot = [Word::literal(".")];
    let start_paths: &[Word] = if roots.is_empty() { &dot } else { roots };
    let starts_included = !args
        .windows(2)
        .any(|p| p[0].text == "-mindepth" && p[1].text.parse::<u32>().is_ok_and(|d| d > 0));
    let mut tested = false;
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
                if !tested {
                    for r in start_paths {
                        d = d.worst(deletes_everything(r, state));
                    }
                }
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
                if !tested {
                    for r in start_paths {
                        // With `-mindepth 1` the action still meets every entry under the
                        // start path: `rm -rf {}` there is `rm -rf START/*`.
                        let (each, glob) = if starts_included {
                            (r.text.clone(), r.glob)
                        } else {
                            (format!("{}/*", r.text.trim_end_matches('/')), true)
                        };
                        let on_start: Vec<Word> = args[i + 1..end]
                            .iter()
                            .map(|w| Word {
                                text: w.text.replace("{}", &each),
                                dynamic: w.dynamic || (w.text.contains("{}") && r.dynamic),
                                glob: w.glob || (w.text.contains("{}") && glob),
                                ..w.clone()
                            })
                            .collect();
                        let first = program(&on_start, state, depth, false);
                        j = j.worst(Judgement {
                            reason: format!(
                                "find {t} with no test before it runs on the start path {} too: {}",
                                r.text, first.reason
                            ),
                            ..first
                        });
                    }
                }
                i = end;
            }
            "-fprint" | "-fprint0" | "-fls" | "-fprintf" => {
                if let Some(target) = args.get(i + 1) {
                    j = j.worst(writes_at(target, state, "writes"));
                }
                i += if t == "-fprintf" { 2 } else { 1 };
            }
            "-files0-from" => {
                j = j.worst(
                    judge(
                        Risk::Medium,
                        "find -files0-from reads its start paths from a file or its input, so \
                         what it visits is only known at run time",
                    )
                    .ungrantable(),
                );
                if let Some(file) = args.get(i + 1).filter(|f| f.text != "-") {
                    j = j.worst(reads(file, state));
                }
                i += 1;
            }
            "-o" | "-or" | "," => {
                tested = false;
            }
            _ if NO_ARG.contains(&t) => tested |= NO_ARG_TESTS.contains(&t),
            _ if ONE_ARG.contains(&t) || (t.starts_with("-newer") && t.len() == 8) => {
                let value = args.get(i + 1).map_or("", |w| w.text.as_str());
                let negated = i > 0 && matches!(args[i - 1].text.as_str(), "!" | "-not");
                tested |= !ONE_ARG_NOT_TESTS.contains(&t)
                    && !selects_everything(t, value, negated, start_paths);
                i += 1
            }
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
