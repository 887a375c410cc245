//! The edit engine behind `edit_file`: find `old_str`, replace it with `new_str`, and when
//! that fails, say exactly why.
//!
//! Pure text in, text out. Edits apply in order to an in-memory copy; the caller writes the
//! file once, and only if every edit applied. Matching goes, in order:
//!
//! 1. exact bytes (with `\n` in `old_str` mapped to `\r\n` when the file uses CRLF);
//! 2. whitespace-tolerant: each line compared with leading and trailing whitespace
//!    removed; if exactly one region matches, `new_str` is re-indented to the file's own
//!    indentation (tabs or spaces, base depth) and the result says so;
//! 3. otherwise an error that shows the closest region, numbered, and names each
//!    difference: indentation, tabs vs spaces, trailing spaces, line endings, or text.

use std::collections::HashMap;
use std::fmt::Write as _;

/// One replacement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// Text to find; empty means "create or fill an empty file".
    pub old_str: String,
    /// Replacement.
    pub new_str: String,
    /// Replace every occurrence instead of requiring exactly one.
    pub replace_all: bool,
}

/// The text after all edits, and what the model should be told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditOutcome {
    /// The new content.
    pub content: String,
    /// How many edits applied (all of them, on success).
    pub edits_applied: usize,
    /// Replacements made in total (more than edits when `replace_all` matched several).
    pub replacements: usize,
    /// Notes such as "a whitespace-tolerant match was used".
    pub notes: Vec<String>,
}

/// Apply `edits` in order to `original`. All or nothing: the first failure is returned as
/// a message naming the edit, and no partial result escapes.
pub fn apply_edits(original: &str, edits: &[Edit]) -> Result<EditOutcome, String> {
    if edits.is_empty() {
        return Err(
            "no edits given; pass old_str and new_str, or edits: [{old_str, new_str}]".into(),
        );
    }
    let mut content = original.to_string();
    let mut notes = Vec::new();
    let mut replacements = 0;
    for (i, edit) in edits.iter().enumerate() {
        let label = if edits.len() > 1 {
            format!("edit {} of {}: ", i + 1, edits.len())
        } else {
            String::new()
        };
        let step = apply_one(&content, edit).map_err(|e| {
            let later = if i > 0 {
                " (line numbers refer to the text after the earlier edits; nothing was written)"
            } else {
                " (nothing was written)"
            };
            format!("{label}{e}{later}")
        })?;
        content = step.content;
        replacements += step.count;
        if let Some(note) = step.note {
            notes.push(format!("{label}{note}"));
        }
    }
    Ok(EditOutcome {
        content,
        edits_applied: edits.len(),
        replacements,
        notes,
    })
}

struct Step {
    content: String,
    count: usize,
    note: Option<String>,
}

fn apply_one(content: &str, edit: &Edit) -> Result<Step, String> {
    if edit.old_str.is_empty() {
        if content.is_empty() {
            return Ok(Step {
                content: edit.new_str.clone(),
                count: 1,
                note: None,
            });
        }
        return Err(
            "old_str is empty but the file is not; to insert text, set old_str to the \
                    lines next to the insertion point and repeat them in new_str; to replace the \
                    whole file, use write_file"
                .into(),
        );
    }
    if edit.old_str == edit.new_str {
        return Err("old_str and new_str are identical, so there is nothing to change".into());
    }
    let crlf = content.contains("\r\n");
    let new_str = if crlf {
        to_crlf(&edit.new_str)
    } else {
        edit.new_str.clone()
    };
    let mut old_str = edit.old_str.clone();
    let mut positions = find_all(content, &old_str);
    if positions.is_empty() && crlf && edit.old_str.contains('\n') {
        old_str = to_crlf(&edit.old_str);
        positions = find_all(content, &old_str);
    }
    match positions.len() {
        0 => tolerant(content, edit, crlf),
        1 => Ok(Step {
            content: splice(content, positions[0], old_str.len(), &new_str),
            count: 1,
            note: None,
        }),
        n if edit.replace_all => Ok(Step {
            content: content.replace(&old_str, &new_str),
            count: n,
            note: None,
        }),
        n => {
            let lines: Vec<String> = positions
                .iter()
                .take(10)
                .map(|p| line_of(content, *p).to_string())
                .collect();
            Err(format!(
                "old_str matches {n} times (at lines {}); include more surrounding lines so it \
                 matches once, or set replace_all: true to replace every occurrence",
                lines.join(", ")
            ))
        }
    }
}

fn to_crlf(s: &str) -> String {
    s.replace("\r\n", "\n").replace('\n', "\r\n")
}

/// Start offsets of non-overlapping occurrences.
fn find_all(haystack: &str, needle: &str) -> Vec<usize> {
    haystack.match_indices(needle).map(|(i, _)| i).collect()
}

fn splice(content: &str, at: usize, len: usize, with: &str) -> String {
    let mut out = String::with_capacity(content.len() - len + with.len());
    out.push_str(&content[..at]);
    out.push_str(with);
    out.push_str(&content[at + len..]);
    out
}

/// 1-based line number of byte offset `at`.
fn line_of(content: &str, at: usize) -> usize {
    content.as_bytes()[..at]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// A line of the file with its byte span (content only, terminator excluded).
struct Line<'a> {
    text: &'a str,
    start: usize,
    end: usize,
}

fn file_lines(content: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    for piece in content.split_inclusive('\n') {
        let body = piece.strip_suffix('\n').unwrap_or(piece);
        let body = body.strip_suffix('\r').unwrap_or(body);
        out.push(Line {
            text: body,
            start,
            end: start + body.len(),
        });
        start += piece.len();
    }
    out
}

/// `s` split into lines without terminators, ignoring one final newline.
fn pattern_lines(s: &str) -> Vec<&str> {
    let s = s.strip_suffix('\n').unwrap_or(s);
    let s = s.strip_suffix('\r').unwrap_or(s);
    s.split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect()
}

fn tolerant(content: &str, edit: &Edit, crlf: bool) -> Result<Step, String> {
    let lines = file_lines(content);
    let pattern = pattern_lines(&edit.old_str);
    if pattern.iter().all(|l| l.trim().is_empty()) {
        return Err(format!(
            "old_str was not found, and it holds only whitespace, so it cannot be matched \
             tolerantly{}",
            closest_hint(content, &lines, &pattern, edit.old_str.contains("\r\n"))
        ));
    }
    let windows = tolerant_windows(&lines, &pattern);
    match windows.len() {
        0 => Err(format!(
            "old_str was not found in the file{}",
            closest_hint(content, &lines, &pattern, edit.old_str.contains("\r\n"))
        )),
        1 => {
            let at = windows[0];
            let window: Vec<&str> = lines[at..at + pattern.len()]
                .iter()
                .map(|l| l.text)
                .collect();
            let (new_lines, how) = reindent(&edit.new_str, &edit.old_str, &pattern, &window);
            let eol = if crlf { "\r\n" } else { "\n" };
            let mut replacement = new_lines.join(eol);
            let start = lines[at].start;
            let mut end = lines[at + pattern.len() - 1].end;
            if new_lines.is_empty() {
                replacement.clear();
                // Deleting whole lines: take the line terminator too.
                end = lines
                    .get(at + pattern.len())
                    .map(|l| l.start)
                    .unwrap_or(content.len());
            }
            let first = at + 1;
            let last = at + pattern.len();
            let note = format!(
                "old_str did not match exactly; a whitespace-tolerant match was used at lines \
                 {first}-{last}{how}. Check the diff."
            );
            Ok(Step {
                content: splice(content, start, end - start, &replacement),
                count: 1,
                note: Some(note),
            })
        }
        n => {
            let spans: Vec<String> = windows
                .iter()
                .take(10)
                .map(|w| format!("{}-{}", w + 1, w + pattern.len()))
                .collect();
            Err(format!(
                "old_str was not found exactly; ignoring leading and trailing whitespace it \
                 matches {n} regions (lines {}), so nothing was changed; include more \
                 surrounding lines to make it unique",
                spans.join(", ")
            ))
        }
    }
}

/// Starts of windows whose lines equal the pattern's after trimming each line.
fn tolerant_windows(lines: &[Line<'_>], pattern: &[&str]) -> Vec<usize> {
    if pattern.len() > lines.len() {
        return Vec::new();
    }
    let first = pattern[0].trim();
    (0..=lines.len() - pattern.len())
        .filter(|&i| lines[i].text.trim() == first)
        .filter(|&i| {
            pattern
                .iter()
                .zip(&lines[i..])
                .all(|(p, l)| p.trim() == l.text.trim())
        })
        .collect()
}

fn indent_of(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

fn columns(indent: &str, tab: usize) -> usize {
    indent
        .chars()
        .map(|c| if c == '\t' { tab } else { 1 })
        .sum()
}

fn describe_indent(indent: &str) -> String {
    let tabs = indent.matches('\t').count();
    let spaces = indent.matches(' ').count();
    match (tabs, spaces) {
        (0, 0) => "no indentation".into(),
        (t, 0) => format!("{t} tab{}", if t == 1 { "" } else { "s" }),
        (0, s) => format!("{s} space{}", if s == 1 { "" } else { "s" }),
        (t, s) => format!("{t} tab(s) and {s} space(s)"),
    }
}

/// Re-indent `new_str` so that it sits in the file the way `old_str`'s lines sit in
/// `window`. Returns the new lines and a description of what was done.
fn reindent(
    new_str: &str,
    old_str: &str,
    pattern: &[&str],
    window: &[&str],
) -> (Vec<String>, String) {
    let body = if old_str.ends_with('\n') {
        new_str.strip_suffix('\n').unwrap_or(new_str)
    } else {
        new_str
    };
    let new_lines: Vec<&str> = if body.is_empty() {
        Vec::new()
    } else {
        body.split('\n')
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
            .collect()
    };
    let pairs: Vec<(&str, &str)> = pattern
        .iter()
        .zip(window)
        .filter(|(p, _)| !p.trim().is_empty())
        .map(|(p, w)| (indent_of(p), indent_of(w)))
        .collect();
    if pairs.iter().all(|(o, f)| o == f) {
        let lines = new_lines.iter().map(|l| l.to_string()).collect();
        return (lines, " (only trailing whitespace differed)".into());
    }
    let file_tabs = window.iter().any(|w| indent_of(w).contains('\t'));
    let old_tabs = pattern.iter().any(|p| indent_of(p).contains('\t'));
    let (old_base, file_base) = pairs[0];
    let tab = if file_tabs == old_tabs {
        4
    } else {
        [4usize, 2, 8, 3]
            .into_iter()
            .max_by_key(|&t| {
                let score = pairs
                    .iter()
                    .filter(|(o, f)| {
                        columns(o, t) as isize - columns(old_base, t) as isize
                            == columns(f, t) as isize - columns(file_base, t) as isize
                    })
                    .count();
                // Prefer the earlier candidate on ties: max_by_key keeps the last maximum.
                (score, std::cmp::Reverse(t))
            })
            .unwrap_or(4)
    };
    let shift = columns(file_base, tab) as isize - columns(old_base, tab) as isize;
    let lines = new_lines
        .iter()
        .map(|line| {
            if line.trim().is_empty() {
                return String::new();
            }
            let cols = (columns(indent_of(line), tab) as isize + shift).max(0) as usize;
            let indent = if file_tabs {
                "\t".repeat(cols / tab) + &" ".repeat(cols % tab)
            } else {
                " ".repeat(cols)
            };
            format!("{indent}{}", line.trim_start())
        })
        .collect();
    let how = if file_tabs == old_tabs {
        format!(
            "; new_str was re-indented from {} to the file's {}",
            describe_indent(old_base),
            describe_indent(file_base)
        )
    } else {
        format!(
            "; new_str was re-indented from {} to the file's {} (1 tab = {tab} spaces)",
            if old_tabs { "tabs" } else { "spaces" },
            if file_tabs { "tabs" } else { "spaces" }
        )
    };
    (lines, how)
}

/// " Closest region (lines a-b): ... Differences: ..." for the error message.
fn closest_hint(content: &str, lines: &[Line<'_>], pattern: &[&str], old_has_crlf: bool) -> String {
    let Some(at) = closest_window(lines, pattern) else {
        return if content.is_empty() {
            ". The file is empty.".into()
        } else {
            ". No similar region was found; read the file again to see its current text.".into()
        };
    };
    let end = (at + pattern.len()).min(lines.len());
    let mut out = format!(". Closest region (lines {}-{}):\n", at + 1, end);
    for (i, line) in lines.iter().enumerate().take(end).skip(at) {
        let _ = writeln!(out, "{:>6}\t{}", i + 1, line.text);
    }
    let diffs = explain(content, lines, pattern, at, old_has_crlf);
    if !diffs.is_empty() {
        out.push_str("Differences between old_str and the file:\n");
        for d in diffs {
            let _ = writeln!(out, "- {d}");
        }
    }
    out.trim_end().to_string()
}

/// The window most like the pattern: the most lines equal after trimming, or failing that
/// the line most like the pattern's first non-blank line.
fn closest_window(lines: &[Line<'_>], pattern: &[&str]) -> Option<usize> {
    if lines.is_empty() {
        return None;
    }
    let mut by_text: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, l) in lines.iter().enumerate() {
        let t = l.text.trim();
        if !t.is_empty() {
            by_text.entry(t).or_default().push(i);
        }
    }
    let mut votes: HashMap<usize, usize> = HashMap::new();
    for (offset, p) in pattern.iter().enumerate() {
        if let Some(found) = by_text.get(p.trim()) {
            for &i in found.iter().take(1000) {
                if i >= offset {
                    *votes.entry(i - offset).or_default() += 1;
                }
            }
        }
    }
    let max_start = lines.len().saturating_sub(1);
    if let Some((&start, _)) = votes
        .iter()
        .filter(|(s, _)| **s <= max_start)
        .max_by_key(|(s, v)| (**v, std::cmp::Reverse(**s)))
    {
        return Some(start);
    }
    let (offset, probe) = pattern
        .iter()
        .enumerate()
        .find(|(_, p)| !p.trim().is_empty())?;
    let probe = probe.trim();
    let (best, score) = lines
        .iter()
        .enumerate()
        .map(|(i, l)| (i, similarity(probe, l.text.trim())))
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))?;
    (score >= 0.5).then(|| best.saturating_sub(offset))
}

/// Dice coefficient over character bigrams: 1.0 for equal strings, 0.0 for nothing shared.
fn similarity(a: &str, b: &str) -> f64 {
    if a == b {
        return 1.0;
    }
    let grams = |s: &str| -> HashMap<(char, char), usize> {
        let chars: Vec<char> = s.chars().collect();
        let mut m = HashMap::new();
        for w in chars.windows(2) {
            *m.entry((w[0], w[1])).or_insert(0) += 1;
        }
        m
    };
    let (ga, gb) = (grams(a), grams(b));
    let total: usize = ga.values().sum::<usize>() + gb.values().sum::<usize>();
    if total == 0 {
        return 0.0;
    }
    let shared: usize = ga
        .iter()
        .map(|(k, v)| (*v).min(gb.get(k).copied().unwrap_or(0)))
        .sum();
    2.0 * shared as f64 / total as f64
}

/// Name each difference between the pattern and the file lines starting at `at`.
fn explain(
    content: &str,
    lines: &[Line<'_>],
    pattern: &[&str],
    at: usize,
    old_has_crlf: bool,
) -> Vec<String> {
    let mut out = Vec::new();
    for (k, p) in pattern.iter().enumerate() {
        let Some(line) = lines.get(at + k) else {
            out.push(format!(
                "old_str has {} lines but the file ends at line {}",
                pattern.len(),
                lines.len()
            ));
            break;
        };
        let f = line.text;
        let n = at + k + 1;
        if *p == f {
            continue;
        }
        if p.trim() == f.trim() {
            let (pi, fi) = (indent_of(p), indent_of(f));
            if pi != fi {
                let kind = if pi.contains('\t') == fi.contains('\t') {
                    "indentation"
                } else {
                    "tabs vs spaces"
                };
                out.push(format!(
                    "line {n}: {kind}: the file has {}, old_str has {}",
                    describe_indent(fi),
                    describe_indent(pi)
                ));
            }
            let (pt, ft) = (trailing(p), trailing(f));
            if pt != ft {
                out.push(format!(
                    "line {n}: trailing whitespace: the file has {}, old_str has {}",
                    describe_trailing(ft),
                    describe_trailing(pt)
                ));
            }
        } else {
            out.push(format!(
                "line {n}: text differs: the file has {:?}, old_str has {:?}",
                f.trim(),
                p.trim()
            ));
        }
        if out.len() >= 8 {
            out.push("(more differences not shown)".into());
            break;
        }
    }
    let file_crlf = content.contains("\r\n");
    if old_has_crlf && !file_crlf {
        out.push("old_str has CRLF (\\r\\n) line endings but the file uses plain \\n".into());
    }
    if file_crlf {
        out.push("the file uses CRLF (\\r\\n) line endings; plain \\n in old_str is mapped automatically".into());
    }
    out
}

fn trailing(line: &str) -> &str {
    &line[line.trim_end().len()..]
}

fn describe_trailing(t: &str) -> String {
    if t.is_empty() {
        "none".into()
    } else {
        describe_indent(t).replace("indentation", "whitespace")
    }
}

#[cfg(test)]
#[path = "edit_match_tests.rs"]
mod tests;
