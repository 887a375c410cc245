//! Applying an `*** Update File:` section's chunks to a file's text, in memory.
//!
//! Chunks are found in order, each at or after the end of the previous one (an `@@`
//! context line is found first and the chunk's lines after it), then all replacements are
//! made at once. Line ends are kept: a CRLF file stays CRLF, a file without a final newline
//! stays without one.

use super::parse::{Chunk, LineKind};
use super::seek::{Fuzz, seek};

/// Lines of a chunk quoted back to the model when they cannot be found.
const QUOTED_LINES: usize = 12;

/// An updated file's new text and the loosest match any chunk needed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Updated {
    /// The new text.
    pub text: String,
    /// The loosest matching level used (`Exact` when every chunk matched exactly).
    pub loosest: Fuzz,
}

/// Apply `chunks` to `text` (the file `path`); an error says which chunk failed and why.
pub fn apply_chunks(path: &str, text: &str, chunks: &[Chunk]) -> Result<Updated, String> {
    let mut file = SplitText::new(text);
    let lines = &file.lines;
    let mut replacements: Vec<(usize, usize, Vec<String>)> = Vec::new();
    let mut cursor = 0usize;
    let mut loosest = Fuzz::Exact;
    for (n, chunk) in chunks.iter().enumerate() {
        let mut after_context = None;
        if let Some(context) = &chunk.context {
            let Some((i, fuzz)) = seek(lines, std::slice::from_ref(context), cursor, false) else {
                return Err(format!(
                    "chunk {} of {path}: the @@ context line `{context}` is not in the file{}; \
                     read the file and copy the line exactly",
                    n + 1,
                    after_line(cursor)
                ));
            };
            loosest = loosest.max(fuzz);
            cursor = i + 1;
            after_context = Some(cursor);
        }
        if chunk.old_lines.is_empty() {
            // Pure addition: after the context line when there is one, else at the end.
            let at = after_context.unwrap_or(lines.len());
            replacements.push((at, 0, chunk.new_lines.clone()));
            continue;
        }
        let Some(found) = find_chunk(lines, chunk, cursor) else {
            return Err(not_found(path, n, chunk, cursor));
        };
        loosest = loosest.max(found.fuzz);
        let lines_now = &lines[found.at..found.at + found.old.len()];
        replacements.push((
            found.at,
            found.old.len(),
            replacement(chunk, lines_now, found.old, found.new),
        ));
        cursor = found.at + found.old.len();
    }
    replacements.sort_by_key(|(at, _, _)| *at);
    for (at, len, new) in replacements.into_iter().rev() {
        file.lines.splice(at..at + len, new);
    }
    Ok(Updated {
        text: file.join(),
        loosest,
    })
}

/// A file's text as lines without their endings, with what is needed to put the endings
/// back as they were.
struct SplitText {
    /// The lines, without `\n` (or `\r\n` in a CRLF file).
    lines: Vec<String>,
    /// Every line ends in CRLF; a mixed file keeps each line's own ending instead.
    crlf: bool,
    /// The text ends with a newline (or is empty).
    final_newline: bool,
}

impl SplitText {
    /// Split `text` into lines, noting its line ending and final newline.
    fn new(text: &str) -> Self {
        // CRLF only when every line ends so; a mixed file keeps each line's own ending.
        let crlf =
            text.contains("\r\n") && text.matches('\n').count() == text.matches("\r\n").count();
        let normalised;
        let body = if crlf {
            normalised = text.replace("\r\n", "\n");
            normalised.as_str()
        } else {
            text
        };
        let final_newline = body.is_empty() || body.ends_with('\n');
        let mut lines: Vec<String> = body.split('\n').map(str::to_string).collect();
        if lines.last().is_some_and(String::is_empty) {
            lines.pop();
        }
        Self {
            lines,
            crlf,
            final_newline,
        }
    }

    /// The lines joined back with the file's own line ending and final newline.
    fn join(self) -> String {
        let mut out = self.lines.join("\n");
        if self.final_newline && !self.lines.is_empty() {
            out.push('\n');
        }
        if self.crlf {
            out = out.replace('\n', "\r\n");
        }
        out
    }
}

/// Where a chunk's old lines were found, and the old and new lines that apply there.
struct Found<'c> {
    /// The index of the first matched line.
    at: usize,
    /// How loosely they matched.
    fuzz: Fuzz,
    /// The chunk's old lines (without a trailing blank one when that was dropped).
    old: &'c [String],
    /// The chunk's new lines, trimmed the same way.
    new: &'c [String],
}

/// Find `chunk`'s old lines in `lines` at or after `cursor`; a trailing empty line that
/// does not match is taken for the file's final newline and dropped.
fn find_chunk<'c>(lines: &[String], chunk: &'c Chunk, cursor: usize) -> Option<Found<'c>> {
    let mut old: &[String] = &chunk.old_lines;
    let mut new: &[String] = &chunk.new_lines;
    let mut found = seek(lines, old, cursor, chunk.end_of_file);
    if found.is_none() && old.last().is_some_and(String::is_empty) {
        // A trailing empty line is often the file's final newline, not a line.
        old = &old[..old.len() - 1];
        if new.last().is_some_and(String::is_empty) {
            new = &new[..new.len() - 1];
        }
        found = seek(lines, old, cursor, chunk.end_of_file);
    }
    found.map(|(at, fuzz)| Found { at, fuzz, old, new })
}

/// The error for chunk number `n` (0-based) whose old lines are not in the file, quoting
/// the first of them.
fn not_found(path: &str, n: usize, chunk: &Chunk, cursor: usize) -> String {
    let quoted: Vec<&str> = chunk
        .old_lines
        .iter()
        .take(QUOTED_LINES)
        .map(String::as_str)
        .collect();
    let more = chunk.old_lines.len().saturating_sub(QUOTED_LINES);
    format!(
        "chunk {} of {path}: these lines are not in the file{}:\n{}{}\nread the file \
         and copy the context and '-' lines exactly (they must appear in the order \
         of the chunks)",
        n + 1,
        after_line(cursor),
        quoted.join("\n"),
        if more > 0 {
            format!("\n… and {more} more line(s)")
        } else {
            String::new()
        }
    )
}

/// What replaces the matched lines: the chunk's added lines, and for its context lines the
/// file's own text (a context line matched loosely keeps its indentation and quotes).
/// `old` and `new` may be the chunk's lines without a trailing blank one.
fn replacement(chunk: &Chunk, lines_now: &[String], old: &[String], new: &[String]) -> Vec<String> {
    if chunk.kinds.is_empty() {
        return new.to_vec();
    }
    let (mut o, mut n) = (0, 0);
    let mut out = Vec::with_capacity(new.len());
    for kind in &chunk.kinds {
        match kind {
            LineKind::Context if o < old.len() && n < new.len() => {
                out.push(lines_now[o].clone());
                o += 1;
                n += 1;
            }
            LineKind::Removed if o < old.len() => o += 1,
            LineKind::Added if n < new.len() => {
                out.push(new[n].clone());
                n += 1;
            }
            _ => {}
        }
    }
    out
}

fn after_line(cursor: usize) -> String {
    if cursor == 0 {
        String::new()
    } else {
        format!(" after line {cursor}")
    }
}
