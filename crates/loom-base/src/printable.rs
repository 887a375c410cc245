//! Text others wrote (the model, a tool, a file) made safe to print on a terminal.
//!
//! A terminal obeys the control characters in what it is given: `ESC [ 2 J` clears the
//! screen, `ESC ] 52 ;` writes the clipboard, a carriage return lets a line overwrite what
//! was printed before it, BEL rings. Text the model wrote reaches the plain outputs (`loom
//! exec`, `loom memory list`/`search`, `loom cron list`, `loom sessions`, `loom undo`), so
//! every control character in it (C0, DEL and C1) is shown escaped (`\u{1b}`, `\r`) instead
//! of obeyed. Line breaks and tabs stay where a text has lines; `\r\n` is a line break.

use std::borrow::Cow;

/// `s` on one line: every control character escaped, line breaks included.
pub fn line(s: &str) -> Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(s.chars().map(escaped).collect())
}

/// `s` keeping its lines: `\n` and `\t` stay, `\r\n` becomes `\n`, every other control
/// character (a lone `\r` too) is escaped.
pub fn lines(s: &str) -> Cow<'_, str> {
    if !s.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' | '\t' => out.push(c),
            '\r' if chars.peek() == Some(&'\n') => {}
            c => out.push_str(&escaped(c)),
        }
    }
    Cow::Owned(out)
}

/// `c`, or its escape when it is a control character.
fn escaped(c: char) -> String {
    if c.is_control() {
        c.escape_default().to_string()
    } else {
        c.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn escapes_and_osc_sequences_are_shown_not_obeyed() {
        let hostile = "a\u{1b}[2Jb\u{1b}]52;c;aGk=\u{7}c\rd\u{9b}e";
        assert_eq!(
            line(hostile),
            "a\\u{1b}[2Jb\\u{1b}]52;c;aGk=\\u{7}c\\rd\\u{9b}e"
        );
        assert_eq!(
            lines("one\r\ntwo\n\tthree\rfour"),
            "one\ntwo\n\tthree\\rfour"
        );
        assert_eq!(line("two\nlines"), "two\\nlines");
        assert!(matches!(line("plain é 日本"), Cow::Borrowed(_)));
        assert!(matches!(lines("a\n\tb"), Cow::Borrowed(_)));
    }

    proptest! {
        // Invariant: nothing a terminal obeys survives (except a line's breaks and tabs),
        // and text without control characters is unchanged.
        #[test]
        fn no_control_character_survives(s in "\\PC*|[\u{0}-\u{9f}a\n]{0,40}") {
            prop_assert!(!line(&s).chars().any(char::is_control));
            prop_assert!(!lines(&s).chars().any(|c| c.is_control() && c != '\n' && c != '\t'));
            if !s.chars().any(char::is_control) {
                prop_assert_eq!(line(&s), s.as_str());
            }
        }
    }
}
