//! Reading a program's options the way `getopt_long` does, against a table of the options
//! Loom recognises for that program.
//!
//! This is what "read-only by proof" rests on: a command is only as harmless as its least
//! understood word. Every word is either an operand, or an option found in the program's
//! [`Spec`] (short flags combined `-la`, glued values `-n5` `-ofile`, long options
//! `--lines=5` or `--lines 5`), or the parse fails with "unrecognised option -X for PROG".
//! Abbreviated long options (`--out` for `--output`) are not recognised on purpose: GNU
//! programs accept them, so only exact spellings of options known to be safe may pass.

use super::parse::Word;

/// The options of one program that Loom recognises.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    /// Short options without a value, e.g. `"alhR"`.
    pub flags: &'static str,
    /// Short options that take a value, glued (`-n5`) or as the next word (`-n 5`). A
    /// letter followed by `?` takes an optional value, only glued (`-w` or `-w16`, as
    /// getopt's `w::`), so the next word is never its value.
    pub valued: &'static str,
    /// Long options: `"name"` takes no value, `"name="` needs one (`--name=v` or
    /// `--name v`), `"name?"` takes an optional value (`--name` or `--name=v` only).
    pub long: &'static [&'static str],
    /// Whether `-NUM` (as in `head -5`, `git log -3`) is accepted.
    pub numeric: bool,
}

impl Spec {
    /// How the short option `c` takes a value: `None` when it takes none, `Some(true)`
    /// when it needs one, `Some(false)` when a value may only be glued to it.
    pub fn short_value(&self, c: char) -> Option<bool> {
        if c == '?' {
            return None;
        }
        let mut chars = self.valued.chars().peekable();
        while let Some(v) = chars.next() {
            if v == c {
                return Some(chars.peek() != Some(&'?'));
            }
        }
        None
    }

    /// A program with no options at all.
    pub const NONE: Spec = Spec {
        flags: "",
        valued: "",
        long: &[],
        numeric: false,
    };
}

/// One recognised option and its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opt<'a> {
    /// `-x` or `--name` (without the value).
    pub name: String,
    /// The value, when the option takes one.
    pub value: Option<OptValue<'a>>,
}

/// An option's value: a whole word, or the glued rest of one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptValue<'a> {
    /// The value was its own word (`-o FILE`).
    Word(&'a Word),
    /// The value was glued to the option (`-oFILE`, `--output=FILE`); `dynamic` tells
    /// whether the word holding it depends on run-time expansion.
    Glued {
        /// The text.
        text: String,
        /// Whether it is only known at run time.
        dynamic: bool,
    },
}

impl OptValue<'_> {
    /// The value's text.
    pub fn text(&self) -> &str {
        match self {
            OptValue::Word(w) => &w.text,
            OptValue::Glued { text, .. } => text,
        }
    }

    /// The value as a word, for judging it as a path.
    pub fn word(&self) -> Word {
        match self {
            OptValue::Word(w) => (*w).clone(),
            OptValue::Glued { text, dynamic } => Word::literal(text).with_dynamic(*dynamic),
        }
    }
}

/// A command line read against a [`Spec`].
#[derive(Debug, Clone, Default)]
pub struct Parsed<'a> {
    /// Recognised options, in order.
    pub opts: Vec<Opt<'a>>,
    /// Operands, in order (everything after `--` included).
    pub operands: Vec<&'a Word>,
}

impl<'a> Parsed<'a> {
    /// Whether an option with one of these names (`-x`, `--name`) was given.
    pub fn has(&self, names: &[&str]) -> bool {
        self.opts.iter().any(|o| names.contains(&o.name.as_str()))
    }

    /// The values of the options with these names.
    pub fn values(&self, names: &[&str]) -> Vec<&OptValue<'a>> {
        self.opts
            .iter()
            .filter(|o| names.contains(&o.name.as_str()))
            .filter_map(|o| o.value.as_ref())
            .collect()
    }
}

/// How a word can fail to be proven harmless as an argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unproven {
    /// An option the table does not list.
    Unrecognised(String),
    /// A value-taking option at the end of the line.
    MissingValue(String),
    /// A word whose value is only known at run time, where it could be an option.
    Dynamic(String),
}

impl Unproven {
    /// The reason, for a segment that is therefore at least medium risk.
    pub fn reason(&self, program: &str) -> String {
        match self {
            Unproven::Unrecognised(o) => format!("unrecognised option {o} for {program}"),
            Unproven::MissingValue(o) => format!("option {o} of {program} is missing its value"),
            Unproven::Dynamic(w) => format!(
                "the argument `{w}` of {program} is only known at run time and could be an option"
            ),
        }
    }
}

/// Whether a word may turn into an option (or several words) at run time: its value is
/// expanded, or it is a glob whose matches could start with `-`.
fn may_become_option(w: &Word) -> bool {
    const FIXED_START: &[&str] = &[
        "/", "./", "~", "$HOME/", "${HOME}/", "$PWD/", "${PWD}/", "<(", ">(",
    ];
    (w.dynamic && !FIXED_START.iter().any(|p| w.text.starts_with(p)))
        || (w.glob && w.text.starts_with(['*', '?', '[']))
}

/// Read the options of a program that runs another command (`nice`, `timeout`, `xargs`):
/// options are read up to the first operand, where the wrapped command starts, as those
/// programs' own `getopt` does. Returns the options and the words from that operand on.
pub fn parse_leading<'a>(
    spec: &Spec,
    args: &'a [Word],
) -> Result<(Parsed<'a>, &'a [Word]), Unproven> {
    let mut end = 0;
    while end < args.len() {
        let t = args[end].text.as_str();
        if t == "--" {
            let parsed = parse(spec, &args[..end], false)?;
            return Ok((parsed, &args[end + 1..]));
        }
        if !t.starts_with('-') || t == "-" {
            break;
        }
        let takes_value = if let Some(long) = t.strip_prefix("--") {
            !long.contains('=') && spec.long.iter().any(|e| e.strip_suffix('=') == Some(long))
        } else {
            let chars: Vec<char> = t[1..].chars().collect();
            let first_valued = chars.iter().position(|c| spec.short_value(*c).is_some());
            first_valued == Some(chars.len() - 1)
                && spec.short_value(chars[chars.len() - 1]) == Some(true)
        };
        end += if takes_value { 2 } else { 1 };
    }
    let end = end.min(args.len());
    let parsed = parse(spec, &args[..end], false)?;
    Ok((parsed, &args[end..]))
}

/// Read `args` (the words after the program name) against `spec`. `inert` programs have no
/// option that writes, runs or connects anything, so a word that could turn into an option
/// at run time is harmless for them; for the others it is unproven.
pub fn parse<'a>(spec: &Spec, args: &'a [Word], inert: bool) -> Result<Parsed<'a>, Unproven> {
    let mut out = Parsed::default();
    let mut i = 0;
    while i < args.len() {
        let w = &args[i];
        i += 1;
        let t = w.text.as_str();
        if t == "--" && !w.dynamic {
            out.operands.extend(&args[i..]);
            break;
        }
        if may_become_option(w) {
            if !inert {
                return Err(Unproven::Dynamic(w.text.clone()));
            }
            out.operands.push(w);
            continue;
        }
        if let Some(long) = t.strip_prefix("--") {
            let opt = long_option(spec, w, long, args, &mut i)?;
            out.opts.push(opt);
            continue;
        }
        if let Some(shorts) = t.strip_prefix('-').filter(|s| !s.is_empty()) {
            short_options(spec, w, shorts, args, &mut i, &mut out.opts)?;
            continue;
        }
        out.operands.push(w);
    }
    Ok(out)
}

/// The long option `--LONG` of word `w`, taking its value from the next word of `args`
/// (at `*i`, then moved past) when it is not glued.
fn long_option<'a>(
    spec: &Spec,
    w: &'a Word,
    long: &str,
    args: &'a [Word],
    i: &mut usize,
) -> Result<Opt<'a>, Unproven> {
    let (name, glued) = match long.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (long, None),
    };
    let entry = spec
        .long
        .iter()
        .find(|e| e.strip_suffix(['=', '?']).unwrap_or(e) == name);
    let Some(entry) = entry else {
        return Err(Unproven::Unrecognised(format!("--{name}")));
    };
    let shown = format!("--{name}");
    let value = match (entry.chars().last(), glued) {
        (Some('='), Some(v)) => Some(OptValue::Glued {
            text: v.to_string(),
            dynamic: w.dynamic,
        }),
        (Some('='), None) => match args.get(*i) {
            Some(next) => {
                *i += 1;
                Some(OptValue::Word(next))
            }
            None => return Err(Unproven::MissingValue(shown)),
        },
        (Some('?'), Some(v)) => Some(OptValue::Glued {
            text: v.to_string(),
            dynamic: w.dynamic,
        }),
        (_, Some(_)) => return Err(Unproven::Unrecognised(format!("--{long}"))),
        _ => None,
    };
    Ok(Opt { name: shown, value })
}

/// The short options `-SHORTS` of word `w` (a `-NUM` count, flags grouped, an option
/// whose value is the rest of the word or the next word of `args`), pushed to `opts`.
fn short_options<'a>(
    spec: &Spec,
    w: &'a Word,
    shorts: &str,
    args: &'a [Word],
    i: &mut usize,
    opts: &mut Vec<Opt<'a>>,
) -> Result<(), Unproven> {
    if spec.numeric && shorts.chars().all(|c| c.is_ascii_digit()) {
        opts.push(Opt {
            name: "-NUM".into(),
            value: Some(OptValue::Glued {
                text: shorts.to_string(),
                dynamic: false,
            }),
        });
        return Ok(());
    }
    let chars: Vec<char> = shorts.chars().collect();
    let mut k = 0;
    while k < chars.len() {
        let c = chars[k];
        let name = format!("-{c}");
        if let Some(required) = spec.short_value(c) {
            let rest: String = chars[k + 1..].iter().collect();
            let value = if !rest.is_empty() {
                Some(OptValue::Glued {
                    text: rest,
                    dynamic: w.dynamic,
                })
            } else if !required {
                None
            } else {
                match args.get(*i) {
                    Some(next) => {
                        *i += 1;
                        Some(OptValue::Word(next))
                    }
                    None => return Err(Unproven::MissingValue(name)),
                }
            };
            opts.push(Opt { name, value });
            break;
        }
        if spec.flags.contains(c) {
            opts.push(Opt { name, value: None });
            k += 1;
            continue;
        }
        return Err(Unproven::Unrecognised(name));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: Spec = Spec {
        flags: "qvz",
        valued: "cn",
        long: &["bytes=", "lines=", "quiet", "color?"],
        numeric: true,
    };

    fn words(s: &[&str]) -> Vec<Word> {
        s.iter().map(|t| Word::literal(t)).collect()
    }

    #[test]
    fn short_long_glued_and_numeric_forms() {
        let a = words(&[
            "-n5",
            "-qv",
            "--lines=3",
            "--bytes",
            "7",
            "-12",
            "f",
            "--",
            "-x",
        ]);
        let p = parse(&HEAD, &a, false).unwrap();
        let names: Vec<&str> = p.opts.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(
            names,
            vec!["-n", "-q", "-v", "--lines", "--bytes", "-NUM"],
            "{p:?}"
        );
        assert_eq!(p.values(&["-n"])[0].text(), "5");
        assert_eq!(p.values(&["--bytes"])[0].text(), "7");
        let ops: Vec<&str> = p.operands.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(ops, vec!["f", "-x"]);
    }

    #[test]
    fn unknown_and_abbreviated_options_are_unrecognised() {
        for bad in ["-x", "-qx", "--line=3", "--lin", "--quiet=1", "--colour"] {
            let a = words(&[bad]);
            assert!(
                matches!(parse(&HEAD, &a, true), Err(Unproven::Unrecognised(_))),
                "{bad}"
            );
        }
        assert_eq!(
            parse(&HEAD, &words(&["-n"]), true).unwrap_err(),
            Unproven::MissingValue("-n".into())
        );
        assert!(parse(&HEAD, &words(&["--color"]), true).is_ok());
        assert!(parse(&HEAD, &words(&["--color=always"]), true).is_ok());
    }

    /// A letter with an optional value (`w?`, getopt's `w::`) takes only a glued value:
    /// the next word stays an operand (`od -w FILE` reads FILE).
    #[test]
    fn optional_short_values_are_only_glued() {
        const OD: Spec = Spec {
            flags: "c",
            valued: "w?t",
            long: &[],
            numeric: false,
        };
        let a = words(&["-cw", "secret", "-w16", "-tx1"]);
        let p = parse(&OD, &a, true).unwrap();
        let ops: Vec<&str> = p.operands.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(ops, vec!["secret"]);
        assert_eq!(p.values(&["-w"])[0].text(), "16");
        assert_eq!(p.values(&["-t"])[0].text(), "x1");
        let lead = words(&["-w", "cmd", "x"]);
        let (opts, rest) = parse_leading(&OD, &lead).unwrap();
        assert!(opts.has(&["-w"]));
        assert_eq!(rest[0].text, "cmd");
        assert_eq!(OD.short_value('?'), None);
    }

    #[test]
    fn run_time_words_are_unproven_unless_the_program_is_inert() {
        let a = vec![Word::literal("$X").with_dynamic(true)];
        assert!(matches!(parse(&HEAD, &a, false), Err(Unproven::Dynamic(_))));
        assert_eq!(parse(&HEAD, &a, true).unwrap().operands.len(), 1);
        let mut g = Word::literal("*.rs");
        g.glob = true;
        let a = vec![g];
        assert!(parse(&HEAD, &a, false).is_err());
        let mut g = Word::literal("src/*.rs");
        g.glob = true;
        assert!(parse(&HEAD, &[g], false).is_ok());
    }
}
