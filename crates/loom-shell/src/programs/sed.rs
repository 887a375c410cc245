//! `sed`: its options, and its scripts read command by command.
//!
//! A sed script can write files (`w FILE`, `s///w FILE`), read them (`r FILE`, `R FILE`)
//! and run commands (`e`, `s///e`). The script is parsed the way GNU sed does — addresses,
//! then a command letter with its arguments — so these are found wherever they are, and a
//! script Loom cannot read is not assumed harmless.

use super::super::Risk;
use super::super::options::{Parsed, Spec, parse};
use super::super::parse::Word;
use super::{Judgement, PipedInput, State, judge, nested, reads, writes_at};

#[rustfmt::skip]
pub(super) const SPEC: Spec = Spec {
    flags: "nrEsuzi",
    valued: "efl",
    long: &[
        "quiet", "silent", "debug", "expression=", "file=", "follow-symlinks", "in-place?",
        "line-length=", "null-data", "zero-terminated", "posix", "regexp-extended", "separate",
        "sandbox", "unbuffered", "help", "version",
    ],
    numeric: false,
};

/// What a sed script does beyond printing.
#[derive(Debug, Default, PartialEq, Eq)]
struct Effects {
    writes: Vec<String>,
    reads: Vec<String>,
    runs: Vec<String>,
    runs_pattern_space: bool,
    /// Replacements of `s///e` commands: the text that becomes the command run (all of
    /// it when the pattern matches the whole line, as in `s/.*/CMD/e`).
    runs_replacement: Vec<String>,
}

pub(super) fn sed(name: &str, args: &[Word], state: &State, depth: usize) -> Judgement {
    let in_place_glued = in_place_unglued(args);
    let parsed = match parse(&SPEC, &in_place_glued, false) {
        Ok(p) => p,
        Err(e) => return super::unproven(e, name),
    };
    let (scripts, files) = match scripts_and_files(&parsed, state) {
        Ok(found) => found,
        Err(j) => return j,
    };
    let sandboxed = parsed.has(&["--sandbox"]);
    let in_place = parsed.has(&["-i", "--in-place"]);
    let mut j = if in_place {
        judge(Risk::Medium, "sed -i edits files in place")
    } else {
        judge(Risk::ReadOnly, "sed only prints")
    };
    for f in &files {
        j = j.worst(reads(f, state));
        if in_place {
            j = j.worst(writes_at(f, state, "edits"));
        }
    }
    for script in &scripts {
        if script.dynamic {
            return j.worst(
                judge(Risk::Medium, "the sed script is only known at run time").ungrantable(),
            );
        }
        let effects = match read_script(&script.text) {
            Ok(e) => e,
            Err(why) => {
                return j.at_least(
                    Risk::Medium,
                    format!("the sed script could not be read: {why}"),
                );
            }
        };
        if sandboxed {
            continue;
        }
        j = with_effects(j, &effects, state, depth);
    }
    j
}

/// `args` with an in-place suffix cut off (`-i.bak` → `-i`, `--in-place=.bak` →
/// `--in-place`), so the options parse.
fn in_place_unglued(args: &[Word]) -> Vec<Word> {
    args.iter()
        .map(|w| {
            if !w.dynamic
                && w.text.starts_with("-i")
                && w.text.len() > 2
                && !w.text.starts_with("--")
            {
                Word::literal("-i")
            } else if w.text.starts_with("--in-place=") {
                Word::literal("--in-place")
            } else {
                w.clone()
            }
        })
        .collect()
}

/// The scripts (`-e`, `-f -` fed text, or the first operand) and the files sed reads;
/// `Err` with the verdict when that is already known (a script file Loom does not read,
/// or no script at all).
fn scripts_and_files<'a>(
    parsed: &Parsed<'a>,
    state: &State,
) -> Result<(Vec<Word>, Vec<&'a Word>), Judgement> {
    let from_input: Vec<Word> = match &state.piped {
        Some(PipedInput::Text(text)) => parsed
            .values(&["-f", "--file"])
            .iter()
            .filter(|v| v.text() == "-")
            .map(|_| Word::literal(text))
            .collect(),
        _ => Vec::new(),
    };
    let script_files = parsed.values(&["-f", "--file"]).len();
    if script_files > 0 && from_input.len() < script_files {
        return Err(judge(
            Risk::Medium,
            "the sed script comes from a file Loom does not read, so it may write files or run commands",
        )
        .ungrantable());
    }
    let mut scripts: Vec<Word> = parsed
        .values(&["-e", "--expression"])
        .into_iter()
        .map(|v| v.word())
        .chain(from_input)
        .collect();
    let mut files: Vec<&Word> = parsed.operands.clone();
    if scripts.is_empty() {
        if files.is_empty() {
            return Err(judge(Risk::ReadOnly, "sed with no script"));
        }
        scripts.push(files.remove(0).clone());
    }
    Ok((scripts, files))
}

/// `j`, worse for what a script writes, reads and runs.
fn with_effects(mut j: Judgement, effects: &Effects, state: &State, depth: usize) -> Judgement {
    for w in &effects.writes {
        j = j.worst(writes_at(&Word::literal(w), state, "the sed script writes"));
    }
    for r in &effects.reads {
        j = j.worst(reads(&Word::literal(r), state));
    }
    for c in &effects.runs {
        j = j.worst(
            judge(Risk::Medium, "the sed script runs a command").worst(nested(
                c,
                state,
                depth,
                "sed's `e` command",
            )),
        );
    }
    if effects.runs_pattern_space {
        j = j.at_least(
            Risk::High,
            "the sed script runs its input text as a shell command (`e` or `s///e`)",
        );
    }
    for r in &effects.runs_replacement {
        j = j.worst(nested(r, state, depth, "sed's `s///e`"));
    }
    j
}

/// Parse a sed script into what it writes, reads and runs.
fn read_script(script: &str) -> Result<Effects, String> {
    let mut reader = ScriptReader {
        chars: script.chars().collect(),
        i: 0,
        fx: Effects::default(),
    };
    loop {
        reader.skip_separators();
        if reader.i >= reader.chars.len() {
            break;
        }
        reader.addresses()?;
        reader.skip_while(|c| c == '!' || c == ' ');
        let Some(&cmd) = reader.chars.get(reader.i) else {
            return Err("an address without a command".into());
        };
        reader.i += 1;
        reader.command(cmd)?;
    }
    Ok(reader.fx)
}

/// A sed script being read the way GNU sed reads it, one command at a time.
struct ScriptReader {
    chars: Vec<char>,
    /// The next character to read.
    i: usize,
    /// What the commands read so far do.
    fx: Effects,
}

impl ScriptReader {
    /// Move past every character `keep` accepts.
    fn skip_while(&mut self, keep: impl Fn(char) -> bool) {
        while self.i < self.chars.len() && keep(self.chars[self.i]) {
            self.i += 1;
        }
    }

    /// Move past whitespace and `;` between commands.
    fn skip_separators(&mut self) {
        self.skip_while(|c| c.is_whitespace() || c == ';');
    }

    /// The rest of the line (a file name, a command, appended text), trimmed.
    fn rest_of_line(&mut self) -> String {
        let start = self.i;
        self.skip_while(|c| c != '\n');
        self.chars[start..self.i]
            .iter()
            .collect::<String>()
            .trim()
            .to_string()
    }

    /// Move past a regular expression up to and including its closing `delim`.
    fn delimited(&mut self, delim: char) -> Result<(), String> {
        while self.i < self.chars.len() {
            match self.chars[self.i] {
                '\\' => self.i += 2,
                c if c == delim => {
                    self.i += 1;
                    return Ok(());
                }
                '\n' if delim != '\n' => self.i += 1,
                _ => self.i += 1,
            }
        }
        Err("an unterminated regular expression".into())
    }

    /// Addresses: `N`, `$`, `/re/`, `\cREc`, `first~step`, with `,addr2`, `+N`, `~N`.
    fn addresses(&mut self) -> Result<(), String> {
        for _ in 0..2 {
            self.address()?;
            self.skip_while(|c| c == ' ');
            if self.chars.get(self.i) == Some(&',') {
                self.i += 1;
                self.skip_while(|c| c == ' ');
                continue;
            }
            break;
        }
        Ok(())
    }

    /// One address, if one starts here.
    fn address(&mut self) -> Result<(), String> {
        match self.chars.get(self.i) {
            Some(c) if c.is_ascii_digit() => self.skip_while(|c| c.is_ascii_digit() || c == '~'),
            Some('$') => self.i += 1,
            Some('/') => {
                self.i += 1;
                self.delimited('/')?;
                self.skip_while(|c| matches!(c, 'I' | 'M'));
            }
            Some('\\') => {
                let d = *self.chars.get(self.i + 1).ok_or("a dangling backslash")?;
                self.i += 2;
                self.delimited(d)?;
                self.skip_while(|c| matches!(c, 'I' | 'M'));
            }
            Some('+') | Some('~') => {
                self.i += 1;
                self.skip_while(|c| c.is_ascii_digit());
            }
            _ => {}
        }
        Ok(())
    }

    /// The command `cmd` (already read) with its arguments.
    fn command(&mut self, cmd: char) -> Result<(), String> {
        match cmd {
            '{' | '}' | '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'x' | 'n' | 'N' | 'p' | 'P'
            | 'z' | 'F' => {}
            'q' | 'Q' | 'l' | 'L' => self.skip_while(|c| c.is_ascii_digit() || c == ' '),
            ':' | 'b' | 't' | 'T' | 'v' => {
                // GNU sed ends a label (and `v`'s version) at whitespace too, and reads the
                // next command right after it: `:x e CMD` runs CMD.
                self.skip_while(|c| c == ' ');
                self.skip_while(|c| !c.is_whitespace() && c != ';' && c != '}');
            }
            'a' | 'i' | 'c' => {
                let _ = self.rest_of_line();
            }
            'r' | 'R' => {
                let file = self.rest_of_line();
                self.fx.reads.push(file);
            }
            'w' | 'W' => {
                let file = self.rest_of_line();
                self.fx.writes.push(file);
            }
            'e' => {
                let command = self.rest_of_line();
                if command.is_empty() {
                    self.fx.runs_pattern_space = true;
                } else {
                    self.fx.runs.push(command);
                }
            }
            's' | 'y' => self.substitute(cmd)?,
            '#' => {
                let _ = self.rest_of_line();
            }
            other => return Err(format!("the unknown sed command `{other}`")),
        }
        Ok(())
    }

    /// `s/re/replacement/flags` or `y/from/to/`, from the delimiter on; an `s` command's
    /// `e` flag runs its replacement and its `w` flag writes a file.
    fn substitute(&mut self, cmd: char) -> Result<(), String> {
        let delim = *self.chars.get(self.i).ok_or("an unterminated s command")?;
        if delim == '\n' || delim == '\\' {
            return Err("an s command with an unusual delimiter".into());
        }
        self.i += 1;
        self.delimited(delim)?;
        let replacement_start = self.i;
        self.delimited(delim)?;
        let replacement = unescape_replacement(&self.chars[replacement_start..self.i - 1], delim);
        if cmd != 's' {
            return Ok(());
        }
        while self.i < self.chars.len() {
            match self.chars[self.i] {
                'g' | 'p' | 'i' | 'I' | 'm' | 'M' | '0'..='9' => self.i += 1,
                'e' => {
                    self.fx.runs_pattern_space = true;
                    self.fx.runs_replacement.push(replacement.clone());
                    self.i += 1;
                }
                'w' => {
                    self.i += 1;
                    let file = self.rest_of_line();
                    self.fx.writes.push(file);
                }
                _ => break,
            }
        }
        Ok(())
    }
}

/// An `s` command's replacement as the text it puts in the pattern space: `\DELIM` and
/// `\\` unescaped, `\n` a newline; `&` and `\1` (the matched text) stay as written.
fn unescape_replacement(raw: &[char], delim: char) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut it = raw.iter().copied();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some(n) if n == delim || n == '\\' || n == '\n' => out.push(n),
            Some(n) => {
                out.push('\\');
                out.push(n);
            }
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_that_only_print() {
        for s in [
            "s/a/b/g",
            "1,10p",
            "/foo/d",
            "$!N;s/\\n/ /",
            "s|/usr|/opt|g; /x/,/y/ { p; }",
            "y/abc/xyz/",
            "2q",
            "/start/,+3 s/x/y/2",
            "\\,a,d",
            "a\\\nappended",
        ] {
            assert_eq!(read_script(s), Ok(Effects::default()), "{s}");
        }
    }

    #[test]
    fn writes_reads_and_runs_are_found() {
        assert_eq!(read_script("w out.txt").unwrap().writes, vec!["out.txt"]);
        assert_eq!(read_script("s/a/b/w log").unwrap().writes, vec!["log"]);
        assert_eq!(
            read_script("1r /etc/passwd").unwrap().reads,
            vec!["/etc/passwd"]
        );
        assert!(read_script("s/.*/id/e").unwrap().runs_pattern_space);
        assert_eq!(
            read_script("s/.*/rm -rf \\/x/e").unwrap().runs_replacement,
            vec!["rm -rf /x"]
        );
        assert_eq!(read_script("1e touch x").unwrap().runs, vec!["touch x"]);
        assert_eq!(read_script(":x e touch x").unwrap().runs, vec!["touch x"]);
        assert_eq!(
            read_script("v 4.2 e touch x").unwrap().runs,
            vec!["touch x"]
        );
        assert_eq!(read_script("b end; e id").unwrap().runs, vec!["id"]);
        assert!(read_script("/x/ e").unwrap().runs_pattern_space);
        assert!(read_script("k").is_err());
    }
}
