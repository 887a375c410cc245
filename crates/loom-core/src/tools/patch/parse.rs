//! The patch envelope models trained on Codex write, parsed into operations.
//!
//! ```text
//! *** Begin Patch
//! *** Add File: path            (every following line starts with '+')
//! *** Delete File: path
//! *** Update File: path
//! *** Move to: new/path         (optional, right after Update File)
//! @@ optional context line      (a line to find first, e.g. `@@ fn main() {`)
//!  context
//! -removed
//! +added
//! *** End of File               (optional: the chunk ends the file)
//! *** End Patch
//! ```
//!
//! The parser is as lenient as Codex's where leniency cannot change the meaning (a heredoc
//! wrapper around the patch, CRLF line ends, an empty line read as an empty context line,
//! a first chunk without `@@`), and strict where it could: a line that fits no rule is an
//! error naming its number, never skipped.

use thiserror::Error;

/// A parsed patch: its file operations, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    /// What to do to each file.
    pub ops: Vec<PatchOp>,
}

/// One file's operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatchOp {
    /// Create a file that must not exist yet.
    Add {
        /// The path as written in the patch.
        path: String,
        /// The whole content (each `+` line, newline-terminated).
        contents: String,
    },
    /// Delete a file that must exist.
    Delete {
        /// The path as written in the patch.
        path: String,
    },
    /// Change a file that must exist, and maybe move it.
    Update {
        /// The path as written in the patch.
        path: String,
        /// Where the file moves to (which must not exist yet), if it moves.
        move_to: Option<String>,
        /// The changes, in file order.
        chunks: Vec<Chunk>,
    },
}

impl PatchOp {
    /// The path the operation starts from.
    pub fn path(&self) -> &str {
        match self {
            PatchOp::Add { path, .. } | PatchOp::Delete { path } | PatchOp::Update { path, .. } => {
                path
            }
        }
    }
}

/// What a line of a chunk is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// ` ` context: in the file before and after.
    Context,
    /// `-`: in the file before only.
    Removed,
    /// `+`: in the file after only.
    Added,
}

/// One change inside an updated file: lines to find and what replaces them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Chunk {
    /// A line to find before the change (the text after `@@ `).
    pub context: Option<String>,
    /// The lines the file holds now (context and removed lines, in order).
    pub old_lines: Vec<String>,
    /// The lines it will hold (context and added lines, in order).
    pub new_lines: Vec<String>,
    /// Whether the change is at the very end of the file.
    pub end_of_file: bool,
    /// The kind of each line, in patch order (so context lines can keep the file's own
    /// text when they matched loosely).
    pub kinds: Vec<LineKind>,
}

/// Why a patch could not be read. Every message says what to write instead.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParseError {
    /// The first line is not `*** Begin Patch`.
    #[error("the patch must start with the line `*** Begin Patch`")]
    NoBegin,
    /// The last line is not `*** End Patch`.
    #[error("the patch must end with the line `*** End Patch`")]
    NoEnd,
    /// Nothing between the markers.
    #[error(
        "the patch changes no file; add `*** Add File:`, `*** Delete File:` or `*** Update File:` sections"
    )]
    Empty,
    /// A line where a file header was expected.
    #[error(
        "line {line}: expected `*** Add File: PATH`, `*** Delete File: PATH`, `*** Update File: PATH` or `*** End Patch`, found `{text}`"
    )]
    ExpectedHeader {
        /// 1-based line number in the patch.
        line: usize,
        /// The line.
        text: String,
    },
    /// A header without a path.
    #[error("line {line}: `{header}` needs a path after the colon")]
    NoPath {
        /// 1-based line number.
        line: usize,
        /// The header.
        header: String,
    },
    /// An added file's line without `+`.
    #[error("line {line}: every line of an added file starts with '+', found `{text}`")]
    AddLine {
        /// 1-based line number.
        line: usize,
        /// The line.
        text: String,
    },
    /// An updated file's line that fits no rule.
    #[error(
        "line {line}: in `*** Update File: {path}` every line starts with ' ' (context), '-' (removed) or '+' (added), or is an `@@` header; found `{text}`"
    )]
    UpdateLine {
        /// 1-based line number.
        line: usize,
        /// The file.
        path: String,
        /// The line.
        text: String,
    },
    /// An `@@` chunk with no lines.
    #[error(
        "line {line}: the `@@` chunk in `{path}` has no lines; give context and +/- lines, or remove it"
    )]
    EmptyChunk {
        /// 1-based line number of the `@@`.
        line: usize,
        /// The file.
        path: String,
    },
    /// An update that changes nothing and moves nowhere.
    #[error("`*** Update File: {0}` has no changes; add `@@` chunks or a `*** Move to:` line")]
    EmptyUpdate(String),
    /// Two operations on one path.
    #[error("`{0}` appears twice in the patch; put all changes to a file in one section")]
    Duplicate(String),
}

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File:";
const DELETE: &str = "*** Delete File:";
const UPDATE: &str = "*** Update File:";
const MOVE: &str = "*** Move to:";
const END_OF_FILE: &str = "*** End of File";

/// Parse a patch (see the module docs for the format).
pub fn parse(input: &str) -> Result<Patch, ParseError> {
    let lines: Vec<&str> = input
        .trim()
        .lines()
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let lines = strip_heredoc(&lines);
    let first = lines.first().map(|l| l.trim());
    if first != Some(BEGIN) {
        return Err(ParseError::NoBegin);
    }
    if lines.len() < 2 || lines[lines.len() - 1].trim() != END {
        return Err(ParseError::NoEnd);
    }
    let body = &lines[1..lines.len() - 1];
    let mut reader = Reader { lines: body, at: 0 };
    let mut ops = Vec::new();
    while let Some(line) = reader.peek() {
        let n = reader.number();
        reader.at += 1;
        let op = if let Some(rest) = header(line, ADD) {
            PatchOp::Add {
                path: path_of(rest, ADD, n)?,
                contents: reader.added_file()?,
            }
        } else if let Some(rest) = header(line, DELETE) {
            PatchOp::Delete {
                path: path_of(rest, DELETE, n)?,
            }
        } else if let Some(rest) = header(line, UPDATE) {
            let path = path_of(rest, UPDATE, n)?;
            let move_to = match reader.peek().and_then(|l| header(l, MOVE)) {
                Some(rest) => {
                    let n = reader.number();
                    reader.at += 1;
                    Some(path_of(rest, MOVE, n)?)
                }
                None => None,
            };
            let chunks = reader.chunks(&path)?;
            if chunks.is_empty() && move_to.is_none() {
                return Err(ParseError::EmptyUpdate(path));
            }
            PatchOp::Update {
                path,
                move_to,
                chunks,
            }
        } else {
            return Err(ParseError::ExpectedHeader {
                line: n,
                text: line.to_string(),
            });
        };
        ops.push(op);
    }
    if ops.is_empty() {
        return Err(ParseError::Empty);
    }
    let mut seen = std::collections::HashSet::new();
    for op in &ops {
        let targets = match op {
            PatchOp::Update {
                path,
                move_to: Some(to),
                ..
            } if to != path => vec![path.as_str(), to.as_str()],
            _ => vec![op.path()],
        };
        for t in targets {
            if !seen.insert(t.to_string()) {
                return Err(ParseError::Duplicate(t.to_string()));
            }
        }
    }
    Ok(Patch { ops })
}

/// The lines inside a `<<'EOF'` … `EOF` wrapper (models sometimes copy the shell form).
fn strip_heredoc<'a>(lines: &'a [&'a str]) -> &'a [&'a str] {
    if lines.len() >= 4
        && let Some(tag) = lines[0].trim().strip_prefix("<<")
    {
        let tag = tag.trim().trim_matches(|c| c == '\'' || c == '"');
        if !tag.is_empty() && lines[lines.len() - 1].trim() == tag {
            return &lines[1..lines.len() - 1];
        }
    }
    lines
}

/// The rest of `line` after `marker`, when the line is that header.
fn header<'a>(line: &'a str, marker: &str) -> Option<&'a str> {
    line.trim_start().strip_prefix(marker)
}

fn path_of(rest: &str, marker: &str, line: usize) -> Result<String, ParseError> {
    let path = rest.trim();
    if path.is_empty() {
        return Err(ParseError::NoPath {
            line,
            header: marker.to_string(),
        });
    }
    Ok(path.to_string())
}

/// The context of an `@@` line, without a unified diff's line range: models trained on
/// git diffs write `@@ -12,4 +12,5 @@ fn main()`, whose numbers are not text in the file.
fn unified_range_removed(context: &str) -> &str {
    let is_range = |s: &str, sign: char| {
        s.strip_prefix(sign).is_some_and(|r| {
            !r.is_empty()
                && r.split(',')
                    .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
    };
    let mut words = context.splitn(3, ' ');
    match (words.next(), words.next(), words.next()) {
        (Some(old), Some(new), Some(rest)) if is_range(old, '-') && is_range(new, '+') => {
            rest.strip_prefix("@@").map_or(context, str::trim)
        }
        _ => context,
    }
}

/// Whether `line` starts the next file section. Only at the start of the line, as in
/// Codex: ` *** Delete File: x` inside a chunk is a context line, never an operation.
fn is_file_header(line: &str) -> bool {
    [ADD, DELETE, UPDATE].iter().any(|m| line.starts_with(m))
}

struct Reader<'a> {
    lines: &'a [&'a str],
    at: usize,
}

impl<'a> Reader<'a> {
    fn peek(&self) -> Option<&'a str> {
        self.lines.get(self.at).copied()
    }

    /// 1-based line number in the whole patch (the Begin line is 1).
    fn number(&self) -> usize {
        self.at + 2
    }

    fn added_file(&mut self) -> Result<String, ParseError> {
        let mut contents = String::new();
        while let Some(line) = self.peek() {
            if is_file_header(line) {
                break;
            }
            let Some(text) = line.strip_prefix('+') else {
                return Err(ParseError::AddLine {
                    line: self.number(),
                    text: line.to_string(),
                });
            };
            contents.push_str(text);
            contents.push('\n');
            self.at += 1;
        }
        Ok(contents)
    }

    fn chunks(&mut self, path: &str) -> Result<Vec<Chunk>, ParseError> {
        let mut chunks: Vec<Chunk> = Vec::new();
        // Where the open chunk's `@@` was, and whether it has lines yet.
        let mut open: Option<(usize, bool)> = None;
        let close = |open: Option<(usize, bool)>| match open {
            Some((line, false)) => Err(ParseError::EmptyChunk {
                line,
                path: path.to_string(),
            }),
            _ => Ok(()),
        };
        while let Some(line) = self.peek() {
            if is_file_header(line) {
                break;
            }
            let n = self.number();
            self.at += 1;
            let marker = line.trim_end();
            if open.is_none() && marker.trim_start().is_empty() {
                // A blank line between chunks (or before the first) is not a context line:
                // taking it for one would move the next chunk past the file's first blank.
                continue;
            }
            if marker == "@@" || marker.starts_with("@@ ") {
                close(open)?;
                let context = unified_range_removed(marker[2..].trim());
                chunks.push(Chunk {
                    context: (!context.is_empty()).then(|| context.to_string()),
                    ..Chunk::default()
                });
                open = Some((n, false));
                continue;
            }
            if marker == END_OF_FILE {
                match (chunks.last_mut(), open) {
                    (Some(chunk), Some((_, true))) => {
                        chunk.end_of_file = true;
                        open = None;
                        continue;
                    }
                    _ => return Err(update_line(n, path, line)),
                }
            }
            let (kind, text) = match line.chars().next() {
                None => (' ', ""),
                Some(c @ (' ' | '+' | '-')) => (c, &line[1..]),
                Some(_) => return Err(update_line(n, path, line)),
            };
            // A first chunk may start without `@@`; later ones must have one.
            if open.is_none() {
                if !chunks.is_empty() {
                    return Err(update_line(n, path, line));
                }
                chunks.push(Chunk::default());
            }
            open = Some((open.map_or(n, |(at, _)| at), true));
            chunks
                .last_mut()
                .expect("a chunk is open")
                .push_line(kind, text);
        }
        close(open)?;
        Ok(chunks)
    }
}

/// The error for line `n` of `path`'s section, which fits no rule of an update.
fn update_line(n: usize, path: &str, line: &str) -> ParseError {
    ParseError::UpdateLine {
        line: n,
        path: path.to_string(),
        text: line.to_string(),
    }
}

impl Chunk {
    /// Add one line of the chunk: `kind` is its marker (`+`, `-`, or ` ` for context).
    fn push_line(&mut self, kind: char, text: &str) {
        match kind {
            '+' => {
                self.new_lines.push(text.to_string());
                self.kinds.push(LineKind::Added);
            }
            '-' => {
                self.old_lines.push(text.to_string());
                self.kinds.push(LineKind::Removed);
            }
            _ => {
                self.kinds.push(LineKind::Context);
                self.old_lines.push(text.to_string());
                self.new_lines.push(text.to_string());
            }
        }
    }
}
