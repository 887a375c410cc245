//! Finding a chunk's lines in a file, as tolerantly as Codex and no more: an exact match
//! first, then ignoring trailing whitespace, then ignoring surrounding whitespace, then
//! with typographic punctuation (dashes, quotes, odd spaces) read as ASCII. The first
//! level that finds the lines wins, and the caller is told which one it was.

/// How loosely a match was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fuzz {
    /// Byte for byte.
    Exact,
    /// Only trailing whitespace differs.
    TrailingWhitespace,
    /// Leading and trailing whitespace differ.
    Trimmed,
    /// Unicode dashes, quotes or spaces stood for ASCII ones.
    Punctuation,
}

impl Fuzz {
    /// How a note to the model describes the level.
    pub fn describe(self) -> &'static str {
        match self {
            Fuzz::Exact => "exactly",
            Fuzz::TrailingWhitespace => "ignoring trailing whitespace",
            Fuzz::Trimmed => "ignoring indentation and trailing whitespace",
            Fuzz::Punctuation => "reading typographic dashes, quotes and spaces as ASCII",
        }
    }
}

/// Whether a file line and a pattern line count as the same at one level.
type SameLine = fn(&str, &str) -> bool;

/// Where `pattern` first occurs in `lines` at or after `start`, and how loosely. With
/// `eof`, only a match that ends the file counts. An empty pattern matches at `start`.
pub fn seek<S: AsRef<str>>(
    lines: &[S],
    pattern: &[String],
    start: usize,
    eof: bool,
) -> Option<(usize, Fuzz)> {
    if pattern.is_empty() {
        return Some((start.min(lines.len()), Fuzz::Exact));
    }
    if pattern.len() > lines.len() {
        return None;
    }
    let last = lines.len() - pattern.len();
    let levels: [(Fuzz, SameLine); 4] = [
        (Fuzz::Exact, |a, b| a == b),
        (Fuzz::TrailingWhitespace, |a, b| {
            a.trim_end() == b.trim_end()
        }),
        (Fuzz::Trimmed, |a, b| a.trim() == b.trim()),
        (Fuzz::Punctuation, |a, b| {
            normalise(a.trim()).eq(normalise(b.trim()))
        }),
    ];
    for (fuzz, same) in levels {
        let at = |i: usize| {
            pattern
                .iter()
                .zip(&lines[i..])
                .all(|(p, l)| same(l.as_ref(), p))
        };
        if eof {
            // A chunk marked `*** End of File` matches only where it ends the file.
            if last >= start && at(last) {
                return Some((last, fuzz));
            }
            continue;
        }
        if let Some(i) = (start..=last).find(|&i| at(i)) {
            return Some((i, fuzz));
        }
    }
    None
}

/// `s` with typographic punctuation replaced by its ASCII look-alike.
fn normalise(s: &str) -> impl Iterator<Item = char> + '_ {
    s.chars().map(|c| match c {
        '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' => '"',
        '\u{00A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
        c => c,
    })
}
