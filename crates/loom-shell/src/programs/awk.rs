//! `awk`: its options, and what its program can do beyond printing.
//!
//! An awk program can run commands (`system()`, `print | "cmd"`, `"cmd" | getline`,
//! `|&`), write files (`print > "f"`, `printf >> "f"`), read any file (`getline < "f"`)
//! and load code (gawk's `@load`, `@include`, `-l`, `-i`, `-f`). With string literals
//! removed, a program that has none of `system`, `getline`, `|` (other than `||`), `@`,
//! and no `>` at the top level of a print statement only prints. Anything else asks.

use super::super::Risk;
use super::super::options::{Spec, parse};
use super::super::parse::Word;
use super::{Judgement, PipedInput, State, judge, reads, writes_at};

#[rustfmt::skip]
pub(super) const SPEC: Spec = Spec {
    flags: "bcCNOPrStV",
    valued: "Fve",
    long: &[
        "field-separator=", "assign=", "source=", "characters-as-bytes", "traditional",
        "copyright", "posix", "re-interval", "sandbox", "lint?", "help", "version",
    ],
    numeric: false,
};

/// Why an awk program may do more than print, or `None` when it only prints.
pub(super) fn danger(program: &str) -> Option<&'static str> {
    let code = strip_strings(program);
    if code.contains("ARGV") || code.contains("ARGC") {
        return Some("the awk program chooses the files it reads (ARGV)");
    }
    if code.contains("system") {
        return Some("the awk program runs commands with system()");
    }
    if code.contains("getline") {
        return Some("the awk program reads files or command output with getline");
    }
    if code.replace("||", "").contains('|') {
        return Some("the awk program pipes to or from a command");
    }
    if code.contains('@') {
        return Some("the awk program loads code (@load/@include)");
    }
    if prints_to_file(&code) {
        return Some("the awk program writes files (print > file)");
    }
    None
}

/// The program with the contents of string literals, regular expression literals and
/// comments blanked out. When the program's literals cannot be told apart (one is left
/// open), the program is returned whole, so a `"` in a regex or a comment cannot hide
/// `system(…)` from the checks: they see too much rather than too little.
fn strip_strings(program: &str) -> String {
    #[derive(PartialEq)]
    enum In {
        Code,
        String,
        Regex { bracket: bool },
        Comment,
    }
    let mut out = String::with_capacity(program.len());
    let mut state = In::Code;
    let mut escaped = false;
    // The last significant character of code: a `/` starts a regular expression only
    // where an operand cannot end (after `(`, `,`, `{`, `;`, an operator or the start);
    // anywhere else it divides. Taking a regex for a division shows more code, never less.
    let mut last = '\n';
    for c in program.chars() {
        match state {
            In::String | In::Regex { .. } if escaped => escaped = false,
            In::String | In::Regex { .. } if c == '\\' => escaped = true,
            In::String if c == '"' => {
                state = In::Code;
                out.push('"');
                last = '"';
            }
            In::Regex { bracket: false } if c == '[' => state = In::Regex { bracket: true },
            In::Regex { bracket: true } if c == ']' => state = In::Regex { bracket: false },
            In::Regex { bracket: false } if c == '/' => {
                state = In::Code;
                out.push('/');
                last = '/';
            }
            In::Comment if c == '\n' => {
                state = In::Code;
                out.push('\n');
                last = '\n';
            }
            In::String | In::Regex { .. } | In::Comment => {}
            In::Code => {
                out.push(c);
                match c {
                    '"' => state = In::String,
                    '#' => {
                        out.pop();
                        state = In::Comment;
                    }
                    '/' if matches!(
                        last,
                        '\n' | '('
                            | ','
                            | '{'
                            | '}'
                            | ';'
                            | '!'
                            | '~'
                            | '&'
                            | '|'
                            | '?'
                            | ':'
                            | '='
                    ) =>
                    {
                        state = In::Regex { bracket: false };
                    }
                    _ => {}
                }
                if !c.is_whitespace() {
                    last = c;
                }
            }
        }
    }
    match state {
        In::Code | In::Comment => out,
        In::String | In::Regex { .. } => program.to_string(),
    }
}

/// Whether a `print`/`printf` statement has a `>` outside parentheses (a redirection).
fn prints_to_file(code: &str) -> bool {
    let bytes = code.as_bytes();
    let mut i = 0;
    while let Some(pos) = code[i..].find("print") {
        let start = i + pos + "print".len();
        let mut k = start;
        if code[k..].starts_with('f') {
            k += 1;
        }
        let mut depth = 0i32;
        while k < bytes.len() {
            match bytes[k] {
                b'(' => depth += 1,
                b')' => depth -= 1,
                b';' | b'}' | b'\n' if depth <= 0 => break,
                b'>' if depth <= 0 => return true,
                _ => {}
            }
            k += 1;
        }
        i = start;
    }
    false
}

pub(super) fn awk(name: &str, args: &[Word], state: &State) -> Judgement {
    let parsed = match parse(&SPEC, args, false) {
        Ok(p) => p,
        Err(e) => {
            let j = judge(
                Risk::Medium,
                format!(
                    "{} (awk options such as -f, -i and -l load code)",
                    e.reason(name)
                ),
            )
            .ungrantable();
            // `awk -f - <<< PROGRAM`: the program is the text it is fed.
            let program_from_input = args
                .windows(2)
                .any(|p| p[0].text == "-f" && p[1].text == "-");
            return match &state.piped {
                Some(PipedInput::Text(text) | PipedInput::Built(text)) if program_from_input => {
                    j.worst(super::dev::forbidden_in_code(text, state, 0))
                }
                _ => j,
            };
        }
    };
    let mut sources: Vec<Word> = parsed
        .values(&["-e", "--source"])
        .into_iter()
        .map(|v| v.word())
        .collect();
    let mut operands = parsed.operands.clone();
    if sources.is_empty() {
        match operands.first() {
            Some(p) => {
                sources.push((*p).clone());
                operands.remove(0);
            }
            None => return judge(Risk::ReadOnly, "awk with no program"),
        }
    }
    let sandboxed = parsed.has(&["--sandbox", "-S"]);
    let mut j = judge(Risk::ReadOnly, "awk only prints");
    for s in &sources {
        if s.dynamic {
            return j.worst(
                judge(Risk::Medium, "the awk program is only known at run time").ungrantable(),
            );
        }
        if let Some(why) = danger(&s.text)
            && !sandboxed
        {
            j = j.worst(judge(Risk::Medium, why).ungrantable());
            j = j.worst(super::dev::forbidden_in_code(&s.text, state, 0));
            for target in print_targets(&s.text) {
                j = j.worst(writes_at(
                    &Word::literal(&target),
                    state,
                    "the awk program writes",
                ));
            }
        }
    }
    for w in operands {
        if w.text.contains('=') && !w.text.starts_with('/') {
            continue;
        }
        j = j.worst(reads(w, state));
    }
    j
}

/// The files `print > "FILE"` and `printf >> "FILE"` statements name as string literals.
fn print_targets(program: &str) -> Vec<String> {
    let chars: Vec<char> = program.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut in_string = false;
    while i < chars.len() {
        let c = chars[i];
        if in_string {
            match c {
                '\\' => i += 1,
                '"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if c == '"' {
            in_string = true;
            i += 1;
            continue;
        }
        if c == '>' {
            let mut k = i + 1;
            while k < chars.len() && (chars[k] == '>' || chars[k] == ' ') {
                k += 1;
            }
            if chars.get(k) == Some(&'"') {
                let mut target = String::new();
                k += 1;
                while k < chars.len() && chars[k] != '"' {
                    if chars[k] == '\\' {
                        k += 1;
                    }
                    if let Some(&t) = chars.get(k) {
                        target.push(t);
                    }
                    k += 1;
                }
                out.push(target);
                i = k + 1;
                continue;
            }
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printing_programs_are_harmless() {
        for p in [
            "{print $1}",
            "NR==5",
            "$3 > 100 {print}",
            "{ s += $2 } END { print s / NR }",
            "$1 == \"a\" || $2 == \"b\"",
            "{ print ($1 > 5) }",
            "{ printf \"%s > %s\\n\", $1, $2 }",
            "/x|y/ { n++ }",
        ] {
            assert_eq!(danger(p), None, "{p}");
        }
    }

    /// Issue 23 regression: a `"` in a regex or a comment made the rest of the program
    /// look like a string, and `system(…)` after it went unseen.
    #[test]
    fn quotes_in_regexes_and_comments_hide_nothing() {
        for p in [
            "BEGIN { if (/\"/) {} ; system(\"rm -rf ~\") }",
            "BEGIN { # \"\n system(\"id\") }",
            "/a\"b/ { print | \"sh\" }",
            "BEGIN { x = \"open; system(\"id\")",
            "{ x++ / 1; print | \"sh\"; y = 1 / 1 }",
            "BEGIN{ARGV[1]=\"/etc/shadow\";ARGC=2}1",
        ] {
            assert!(danger(p).is_some(), "{p}");
        }
        assert_eq!(danger("{ n = $1 / 2; print n }"), None);
        assert_eq!(danger("/x\"y/ { print $1 }"), None);
    }

    #[test]
    fn print_targets_are_read_from_string_literals() {
        assert_eq!(print_targets("{print > \"/etc/x\"}"), vec!["/etc/x"]);
        assert_eq!(print_targets("{printf \"%s\", $1 >> \"log\"}"), vec!["log"]);
        assert!(print_targets("{ print ($1 > 5) }").is_empty());
        assert!(print_targets("{ print \"a > b\" }").is_empty());
    }

    #[test]
    fn commands_files_and_code_are_found() {
        for p in [
            "BEGIN { system(\"id\") }",
            "{ print > \"out\" }",
            "{ print $1 >> \"log\" }",
            "{ printf \"x\" > \"f\" }",
            "{ print | \"sh\" }",
            "BEGIN { \"id\" | getline x }",
            "BEGIN { while ((getline l < \"/etc/shadow\") > 0) print l }",
            "@load \"ext\"",
            "{ print |& \"cmd\" }",
        ] {
            assert!(danger(p).is_some(), "{p}");
        }
    }
}
