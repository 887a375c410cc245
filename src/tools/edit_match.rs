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
    let tab = if file_tabs != old_tabs {
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
    } else {
        4
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
    let how = if file_tabs != old_tabs {
        format!(
            "; new_str was re-indented from {} to the file's {} (1 tab = {tab} spaces)",
            if old_tabs { "tabs" } else { "spaces" },
            if file_tabs { "tabs" } else { "spaces" }
        )
    } else {
        format!(
            "; new_str was re-indented from {} to the file's {}",
            describe_indent(old_base),
            describe_indent(file_base)
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
                let kind = if pi.contains('\t') != fi.contains('\t') {
                    "tabs vs spaces"
                } else {
                    "indentation"
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
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn edit(old: &str, new: &str) -> Edit {
        Edit {
            old_str: old.into(),
            new_str: new.into(),
            replace_all: false,
        }
    }

    fn one(content: &str, old: &str, new: &str) -> Result<EditOutcome, String> {
        apply_edits(content, &[edit(old, new)])
    }

    #[test]
    fn exact_single_match() {
        let out = one("fn a() {}\nfn b() {}\n", "fn b", "fn c").unwrap();
        assert_eq!(out.content, "fn a() {}\nfn c() {}\n");
        assert!(out.notes.is_empty());
    }

    #[test]
    fn several_matches_need_replace_all() {
        let err = one("x\ny\nx\n", "x", "z").unwrap_err();
        assert!(err.contains("matches 2 times (at lines 1, 3)"), "{err}");
        let all = apply_edits(
            "x\ny\nx\n",
            &[Edit {
                replace_all: true,
                ..edit("x", "z")
            }],
        )
        .unwrap();
        assert_eq!(all.content, "z\ny\nz\n");
        assert_eq!(all.replacements, 2);
    }

    #[test]
    fn edits_apply_in_order_all_or_nothing() {
        let edits = [edit("a", "b"), edit("b\n", "c\n")];
        assert_eq!(apply_edits("a\n", &edits).unwrap().content, "c\n");
        let bad = [edit("a", "b"), edit("zzz", "y")];
        let err = apply_edits("a\n", &bad).unwrap_err();
        assert!(
            err.starts_with("edit 2 of 2: old_str was not found"),
            "{err}"
        );
        assert!(err.contains("nothing was written"));
    }

    #[test]
    fn empty_old_creates_or_fills_but_never_clobbers() {
        assert_eq!(one("", "", "hello\n").unwrap().content, "hello\n");
        let err = one("data\n", "", "x").unwrap_err();
        assert!(err.contains("use write_file"), "{err}");
    }

    #[test]
    fn identical_old_and_new_is_refused() {
        assert!(one("a\n", "a", "a").unwrap_err().contains("identical"));
    }

    #[test]
    fn crlf_files_stay_crlf() {
        let content = "one\r\ntwo\r\nthree\r\n";
        let out = one(content, "one\ntwo\n", "uno\ndos\n").unwrap();
        assert_eq!(out.content, "uno\r\ndos\r\nthree\r\n");
        let out = one(content, "two", "2\nextra").unwrap();
        assert_eq!(out.content, "one\r\n2\r\nextra\r\nthree\r\n");
    }

    #[test]
    fn tolerant_match_reindents_spaces_to_tabs() {
        let content = "func main() {\n\tif x {\n\t\treturn 1\n\t}\n}\n";
        let old = "    if x {\n        return 1\n    }";
        let new = "    if x {\n        return 2\n    }";
        let out = one(content, old, new).unwrap();
        assert_eq!(
            out.content,
            "func main() {\n\tif x {\n\t\treturn 2\n\t}\n}\n"
        );
        assert!(
            out.notes[0].contains("whitespace-tolerant"),
            "{:?}",
            out.notes
        );
        assert!(
            out.notes[0].contains("spaces to the file's tabs"),
            "{:?}",
            out.notes
        );
    }

    #[test]
    fn tolerant_match_shifts_base_indent() {
        let content = "class A:\n    def f(self):\n        return 1\n";
        let old = "def f(self):\n    return 1\n";
        let new = "def f(self):\n    x = 2\n    return x\n";
        let out = one(content, old, new).unwrap();
        assert_eq!(
            out.content,
            "class A:\n    def f(self):\n        x = 2\n        return x\n"
        );
    }

    #[test]
    fn tolerant_match_ignores_trailing_spaces_without_reindenting() {
        let content = "a = 1   \nb = 2\n";
        let out = one(content, "a = 1\nb = 2", "a = 10\nb = 20").unwrap();
        assert_eq!(out.content, "a = 10\nb = 20\n");
        assert!(out.notes[0].contains("only trailing whitespace"));
    }

    #[test]
    fn tolerant_match_refuses_ambiguity() {
        let content = "  x()\n\n    x()\n";
        let err = one(content, "x()   \n", "y()\n").unwrap_err();
        assert!(err.contains("matches 2 regions (lines 1-1, 3-3)"), "{err}");
    }

    #[test]
    fn tolerant_match_in_crlf_file() {
        let content = "\tone\r\n\ttwo\r\n";
        let out = one(content, "one\ntwo\n", "uno\ndos\n").unwrap();
        assert_eq!(out.content, "\tuno\r\n\tdos\r\n");
    }

    #[test]
    fn tolerant_delete_removes_whole_lines() {
        let content = "keep\n  drop me\nkeep too\n";
        let out = one(content, "    drop me\n", "").unwrap();
        assert_eq!(out.content, "keep\nkeep too\n");
    }

    #[test]
    fn not_found_shows_closest_region_and_text_difference() {
        let content = "fn main() {\n    let x = 1;\n    println!(\"{x}\");\n}\n";
        let err = one(content, "    let x = 2;\n    println!(\"{x}\");", "z").unwrap_err();
        assert!(err.contains("Closest region (lines 2-3)"), "{err}");
        assert!(err.contains("line 2: text differs"), "{err}");
        assert!(err.contains("\"let x = 1;\""), "{err}");
    }

    #[test]
    fn explains_tabs_vs_spaces_and_trailing() {
        let lines_content = "\tfoo();  \n\tbar();\n";
        let ls = file_lines(lines_content);
        let d = explain(lines_content, &ls, &["    foo();", "\tbar();"], 0, false);
        assert!(
            d[0].contains("tabs vs spaces: the file has 1 tab, old_str has 4 spaces"),
            "{d:?}"
        );
        assert!(
            d[1].contains("trailing whitespace: the file has 2 spaces"),
            "{d:?}"
        );
    }

    #[test]
    fn explains_crlf() {
        let content = "a\r\nb\r\n";
        let ls = file_lines(content);
        let d = explain(content, &ls, &["a", "c"], 0, false);
        assert!(d.iter().any(|x| x.contains("CRLF")), "{d:?}");
        let lf = "a\nb\n";
        let d = explain(lf, &file_lines(lf), &["a", "c"], 0, true);
        assert!(d.iter().any(|x| x.contains("CRLF")), "{d:?}");
    }

    #[test]
    fn empty_file_not_found_message() {
        let err = one("", "x", "y").unwrap_err();
        assert!(err.contains("The file is empty"), "{err}");
    }

    #[test]
    fn unicode_is_handled_by_characters() {
        let out = one("héllo 日本 wörld\n", "日本", "中文").unwrap();
        assert_eq!(out.content, "héllo 中文 wörld\n");
    }

    fn line_strategy() -> impl Strategy<Value = String> {
        "[a-zé日 \t]{0,8}"
    }

    proptest! {
        // Invariant: an exact edit leaves every byte outside the replaced region identical,
        // and the byte count changes by exactly len(new) - len(old).
        #[test]
        fn outside_region_is_untouched(
            prefix in "[a-z\n日]{0,40}",
            suffix in "[a-z\n日]{0,40}",
            new in "[A-Zé\n]{0,20}",
        ) {
            let marker = "\u{1F980}UNIQUE\u{1F980}";
            let content = format!("{prefix}{marker}{suffix}");
            let out = one(&content, marker, &new).unwrap();
            prop_assert!(out.content.starts_with(&prefix));
            prop_assert!(out.content.ends_with(&suffix));
            prop_assert_eq!(out.content.len(), content.len() - marker.len() + new.len());
        }

        // Invariant: an edit followed by its inverse restores the original bytes (when the
        // replacement is itself unique in the result).
        #[test]
        fn edit_then_inverse_restores(
            lines in proptest::collection::vec(line_strategy(), 1..12),
            pick in 0usize..12,
        ) {
            let content = lines.join("\n") + "\n";
            let target = &lines[pick % lines.len()];
            prop_assume!(!target.is_empty() && content.matches(target.as_str()).count() == 1);
            let replacement = format!("<{target}>");
            prop_assume!(!content.contains(&replacement));
            let forward = one(&content, target, &replacement).unwrap();
            let back = one(&forward.content, &replacement, target).unwrap();
            prop_assert_eq!(back.content, content);
        }

        // Invariant: a tolerant match never applies when the whitespace-insensitive pattern
        // matches more than one region.
        #[test]
        fn tolerant_never_applies_ambiguous(indent_a in "[ \t]{0,4}", indent_b in "[ \t]{0,4}", body in "[a-z]{1,6}") {
            let content = format!("{indent_a}{body}\nmid\n{indent_b}{body}\n");
            let pattern = format!("  {body}  ");
            prop_assume!(!content.contains(&pattern));
            let result = one(&content, &pattern, "X");
            prop_assert!(result.is_err());
        }

        // Invariant: results are always valid text made of whole characters, whatever the
        // edits (Rust strings guarantee it; this guards the byte arithmetic from panicking).
        #[test]
        fn never_panics_on_unicode(
            content in "[a-zé日🎉 \t\r\n]{0,60}",
            old in "[a-zé日🎉 \t\r\n]{0,10}",
            new in "[a-zé日🎉 \n]{0,10}",
        ) {
            let _ = one(&content, &old, &new);
        }
    }
}
