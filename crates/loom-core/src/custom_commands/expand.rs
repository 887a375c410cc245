//! A command body's expansions, as pure text work: `$ARGUMENTS` and `$1`…`$9` are replaced
//! by what was typed after the command's name, then the body is cut into text, `@file`
//! references and `` !`command` `` runs (Claude Code's forms). Reading the files and running
//! the commands — through the policy — is the runner's (`agent/runner/custom.rs`).

/// One piece of an expanded body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// Text sent as written.
    Text(String),
    /// `@path`: the file is read and attached to the message.
    File(String),
    /// `` !`command` ``: replaced by the command's output.
    Shell(String),
}

/// The words of `arguments`: split at whitespace, with `"…"` and `'…'` keeping spaces.
pub fn words(arguments: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut started = false;
    for c in arguments.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => current.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                started = true;
            }
            (None, c) if c.is_whitespace() => {
                if started {
                    out.push(std::mem::take(&mut current));
                    started = false;
                }
            }
            (None, c) => {
                current.push(c);
                started = true;
            }
        }
    }
    if started {
        out.push(current);
    }
    out
}

/// `body` with `$ARGUMENTS` replaced by `arguments` (trimmed) and `$1`…`$9` by its words
/// (empty when there are fewer).
pub fn substitute(body: &str, arguments: &str) -> String {
    let args = words(arguments);
    let mut out = String::with_capacity(body.len() + arguments.len());
    let mut rest = body;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix("ARGUMENTS") {
            out.push_str(arguments.trim());
            rest = tail;
        } else if let Some(d) = after.chars().next().filter(|c| ('1'..='9').contains(c)) {
            let n = d as usize - '1' as usize;
            out.push_str(args.get(n).map(String::as_str).unwrap_or(""));
            rest = &after[1..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// Cut `text` into plain text, `@path` references (an `@` at the start or after
/// whitespace, up to the next whitespace, trailing punctuation left as text) and
/// `` !`command` `` runs.
pub fn segments(text: &str) -> Vec<Segment> {
    let mut out = Vec::new();
    let mut plain = String::new();
    let mut i = 0;
    let bytes = text.as_bytes();
    while i < text.len() {
        let rest = &text[i..];
        let after_space = i == 0 || text[..i].ends_with(char::is_whitespace);
        if let Some(cmd) = rest.strip_prefix("!`")
            && let Some(end) = cmd.find('`')
            && !cmd[..end].trim().is_empty()
        {
            flush(&mut plain, &mut out);
            out.push(Segment::Shell(cmd[..end].trim().to_string()));
            i += 2 + end + 1;
            continue;
        }
        if bytes[i] == b'@' && after_space {
            let word_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            let word = &rest[1..word_end];
            let path = word.trim_end_matches(['.', ',', ';', ':', '!', '?', ')', '"', '\'']);
            if !path.is_empty() {
                flush(&mut plain, &mut out);
                out.push(Segment::File(path.to_string()));
                i += 1 + path.len();
                continue;
            }
        }
        let c = rest.chars().next().expect("i is inside the text");
        plain.push(c);
        i += c.len_utf8();
    }
    flush(&mut plain, &mut out);
    out
}

fn flush(plain: &mut String, out: &mut Vec<Segment>) {
    if !plain.is_empty() {
        out.push(Segment::Text(std::mem::take(plain)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn arguments_and_positions_are_replaced() {
        let body = "Fix issue $1 in $2 ($ARGUMENTS); $3 is empty; $0 and $HOME stay";
        assert_eq!(
            substitute(body, " 42 \"src/a b.rs\" "),
            "Fix issue 42 in src/a b.rs (42 \"src/a b.rs\");  is empty; $0 and $HOME stay"
        );
    }

    #[test]
    fn files_and_commands_are_found_in_the_text() {
        let s = segments("Status: !`git status --short`\nSee @src/main.rs, and mail a@b.c.");
        assert_eq!(
            s,
            vec![
                Segment::Text("Status: ".into()),
                Segment::Shell("git status --short".into()),
                Segment::Text("\nSee ".into()),
                Segment::File("src/main.rs".into()),
                Segment::Text(", and mail a@b.c.".into()),
            ]
        );
    }

    #[test]
    fn a_lone_bang_or_at_is_text() {
        let s = segments("Wow! @ and !`` and !`unclosed");
        assert_eq!(
            s,
            vec![Segment::Text("Wow! @ and !`` and !`unclosed".into())]
        );
    }

    /// Claude Code runs only the backticked form in a command file; a bare `!command`
    /// (a line starting with `!`, as typed in the message box) is sent as written, so a
    /// file that merely mentions a shell command never runs it.
    #[test]
    fn a_bare_bang_command_is_text_as_in_claude_code() {
        let body = "!git status
Run !ls here";
        assert_eq!(segments(body), vec![Segment::Text(body.into())]);
    }

    proptest! {
        /// Invariant: cutting loses nothing — a body with no `@` or `` !` `` comes back as
        /// one text segment equal to itself.
        #[test]
        fn plain_text_is_one_segment(text in "[^@!]{1,80}") {
            prop_assert_eq!(segments(&text), vec![Segment::Text(text.clone())]);
        }

        /// Invariant: without `` !` `` runs, the segments put back together (`@` before each
        /// file) are the text itself, whatever it holds: nothing is lost or added.
        #[test]
        fn segments_rebuild_the_text(text in "[a-z@ .,\n\u{e9}\u{1f600}]{0,60}") {
            let rebuilt: String = segments(&text)
                .into_iter()
                .map(|s| match s {
                    Segment::Text(t) => t,
                    Segment::File(p) => format!("@{p}"),
                    Segment::Shell(c) => format!("!`{c}`"),
                })
                .collect();
            prop_assert_eq!(rebuilt, text);
        }

        /// Invariant: a body without `$` is never changed by substitution.
        #[test]
        fn bodies_without_dollars_are_unchanged(body in "[^$]{0,80}", args in ".{0,40}") {
            prop_assert_eq!(substitute(&body, &args), body);
        }
    }
}
