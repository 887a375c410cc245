//! The line diff model shared by write previews, the diff pane and per-hunk approval.
//!
//! Pure: no I/O. A [`FileDiff`] is computed once from old and new text; it renders as a
//! unified diff for the model and the log, exposes hunks with old and new line numbers for
//! the screen, and can rebuild the text with only some hunks applied
//! ([`FileDiff::apply_selected`]), which is how a person approves part of an edit.
//!
//! Common leading and trailing lines are stripped before the diff algorithm runs, so a
//! one-line change in a 10 MB file costs a scan, not a diff of the whole file.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use similar::{Algorithm, DiffOp, DiffTag};

/// Lines of context around each change, as in `diff -u`.
pub const CONTEXT_LINES: usize = 3;
/// Beyond this the diff algorithm gives up looking for a minimal script.
const DIFF_DEADLINE: Duration = Duration::from_millis(200);

/// What a diff line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    /// Present in both versions.
    Context,
    /// Only in the new version.
    Added,
    /// Only in the old version.
    Removed,
}

/// One line of a hunk, with its line numbers (1-based) on each side.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiffLine {
    /// Context, added or removed.
    pub kind: LineKind,
    /// Line number in the old text, when the line exists there.
    pub old_no: Option<usize>,
    /// Line number in the new text, when the line exists there.
    pub new_no: Option<usize>,
    /// The line exactly as in the file, including its terminator (if any).
    pub raw: String,
}

impl DiffLine {
    /// The line without its terminator, for display.
    pub fn text(&self) -> &str {
        self.raw
            .strip_suffix('\n')
            .map(|s| s.strip_suffix('\r').unwrap_or(s))
            .unwrap_or(&self.raw)
    }

    /// Whether the line lacks a final newline (the last line of a file without one).
    pub fn missing_newline(&self) -> bool {
        !self.raw.ends_with('\n')
    }
}

/// A group of nearby changes with their context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hunk {
    /// First old line covered (1-based; 0 when the old side is empty).
    pub old_start: usize,
    /// Old lines covered.
    pub old_len: usize,
    /// First new line covered (1-based; 0 when the new side is empty).
    pub new_start: usize,
    /// New lines covered.
    pub new_len: usize,
    /// The lines, in order.
    pub lines: Vec<DiffLine>,
}

impl Hunk {
    /// The `@@ -a,b +c,d @@` header.
    pub fn header(&self) -> String {
        format!(
            "@@ -{},{} +{},{} @@",
            self.old_start, self.old_len, self.new_start, self.new_len
        )
    }

    /// Lines added in this hunk.
    pub fn added(&self) -> usize {
        self.lines
            .iter()
            .filter(|l| l.kind == LineKind::Added)
            .count()
    }

    /// Lines removed in this hunk.
    pub fn removed(&self) -> usize {
        self.lines
            .iter()
            .filter(|l| l.kind == LineKind::Removed)
            .count()
    }
}

/// The difference between two texts, as hunks.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileDiff {
    /// The hunks, in file order.
    pub hunks: Vec<Hunk>,
}

fn split_lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

impl FileDiff {
    /// Diff `old` against `new` line by line.
    pub fn compute(old: &str, new: &str) -> FileDiff {
        let old_lines = split_lines(old);
        let new_lines = split_lines(new);
        let ops = diff_ops(&old_lines, &new_lines);
        let hunks = similar::group_diff_ops(ops, CONTEXT_LINES)
            .into_iter()
            .map(|group| build_hunk(&group, &old_lines, &new_lines))
            .collect();
        FileDiff { hunks }
    }

    /// Whether the texts were identical.
    pub fn is_empty(&self) -> bool {
        self.hunks.is_empty()
    }

    /// Total lines added.
    pub fn added(&self) -> usize {
        self.hunks.iter().map(Hunk::added).sum()
    }

    /// Total lines removed.
    pub fn removed(&self) -> usize {
        self.hunks.iter().map(Hunk::removed).sum()
    }

    /// A unified diff with `a/` and `b/` headers, as `git diff` prints it.
    pub fn unified(&self, old_name: &str, new_name: &str) -> String {
        if self.hunks.is_empty() {
            return String::new();
        }
        let mut out = String::new();
        let _ = writeln!(out, "--- {old_name}");
        let _ = writeln!(out, "+++ {new_name}");
        for hunk in &self.hunks {
            out.push_str(&hunk.header());
            out.push('\n');
            for line in &hunk.lines {
                out.push(match line.kind {
                    LineKind::Context => ' ',
                    LineKind::Added => '+',
                    LineKind::Removed => '-',
                });
                out.push_str(line.text());
                out.push('\n');
                if line.missing_newline() {
                    out.push_str("\\ No newline at end of file\n");
                }
            }
        }
        out
    }

    /// Rebuild the text from `old` with only the hunks where `selected[i]` is true applied.
    /// Hunks missing from `selected` count as not selected.
    pub fn apply_selected(&self, old: &str, selected: &[bool]) -> String {
        let old_lines = split_lines(old);
        let mut out = String::with_capacity(old.len());
        let mut next_old = 0usize; // index into old_lines of the next line not yet emitted
        for (i, hunk) in self.hunks.iter().enumerate() {
            let start = hunk.old_start.saturating_sub(1);
            let start = if hunk.old_len == 0 {
                hunk.old_start
            } else {
                start
            };
            for line in old_lines.iter().take(start).skip(next_old) {
                out.push_str(line);
            }
            let take = selected.get(i).copied().unwrap_or(false);
            for line in &hunk.lines {
                let keep = match line.kind {
                    LineKind::Context => true,
                    LineKind::Added => take,
                    LineKind::Removed => !take,
                };
                if keep {
                    out.push_str(&line.raw);
                }
            }
            next_old = start + hunk.old_len;
        }
        for line in old_lines.iter().skip(next_old) {
            out.push_str(line);
        }
        out
    }
}

/// Line-level diff ops, with the common prefix and suffix stripped before the algorithm.
fn diff_ops(old: &[&str], new: &[&str]) -> Vec<DiffOp> {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let max_suffix = old.len().min(new.len()) - prefix;
    let suffix = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take(max_suffix)
        .take_while(|(a, b)| a == b)
        .count();
    let mut ops = Vec::new();
    if prefix > 0 {
        ops.push(DiffOp::Equal {
            old_index: 0,
            new_index: 0,
            len: prefix,
        });
    }
    let deadline = Instant::now() + DIFF_DEADLINE;
    ops.extend(similar::capture_diff_deadline(
        Algorithm::Myers,
        old,
        prefix..old.len() - suffix,
        new,
        prefix..new.len() - suffix,
        Some(deadline),
    ));
    if suffix > 0 {
        ops.push(DiffOp::Equal {
            old_index: old.len() - suffix,
            new_index: new.len() - suffix,
            len: suffix,
        });
    }
    ops
}

fn build_hunk(group: &[DiffOp], old: &[&str], new: &[&str]) -> Hunk {
    let mut lines = Vec::new();
    for op in group {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => {
                for (o, n) in old_range.zip(new_range) {
                    lines.push(DiffLine {
                        kind: LineKind::Context,
                        old_no: Some(o + 1),
                        new_no: Some(n + 1),
                        raw: old[o].to_string(),
                    });
                }
            }
            DiffTag::Delete | DiffTag::Insert | DiffTag::Replace => {
                for o in old_range {
                    lines.push(DiffLine {
                        kind: LineKind::Removed,
                        old_no: Some(o + 1),
                        new_no: None,
                        raw: old[o].to_string(),
                    });
                }
                for n in new_range {
                    lines.push(DiffLine {
                        kind: LineKind::Added,
                        old_no: None,
                        new_no: Some(n + 1),
                        raw: new[n].to_string(),
                    });
                }
            }
        }
    }
    let first = group.first().map(DiffOp::as_tag_tuple);
    let last = group.last().map(DiffOp::as_tag_tuple);
    let (old_from, new_from) = first.map(|(_, o, n)| (o.start, n.start)).unwrap_or((0, 0));
    let (old_to, new_to) = last.map(|(_, o, n)| (o.end, n.end)).unwrap_or((0, 0));
    let old_len = old_to - old_from;
    let new_len = new_to - new_from;
    Hunk {
        old_start: if old_len == 0 { old_from } else { old_from + 1 },
        old_len,
        new_start: if new_len == 0 { new_from } else { new_from + 1 },
        new_len,
        lines,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn identical_texts_have_no_hunks() {
        let d = FileDiff::compute("a\nb\n", "a\nb\n");
        assert!(d.is_empty());
        assert_eq!(d.unified("a/x", "b/x"), "");
    }

    #[test]
    fn unified_matches_git_shape() {
        let d = FileDiff::compute("one\ntwo\nthree\n", "one\n2\nthree\n");
        assert_eq!(
            d.unified("a/f", "b/f"),
            "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"
        );
        assert_eq!((d.added(), d.removed()), (1, 1));
    }

    #[test]
    fn missing_final_newline_is_marked() {
        let d = FileDiff::compute("a", "b");
        let u = d.unified("a/f", "b/f");
        assert!(u.contains("-a\n\\ No newline at end of file\n+b\n\\ No newline"));
    }

    #[test]
    fn creation_and_deletion_headers() {
        let d = FileDiff::compute("", "x\ny\n");
        assert_eq!(d.hunks[0].header(), "@@ -0,0 +1,2 @@");
        let d = FileDiff::compute("x\n", "");
        assert_eq!(d.hunks[0].header(), "@@ -1,1 +0,0 @@");
    }

    #[test]
    fn line_numbers_on_both_sides() {
        let old: String = (1..=20).map(|i| format!("l{i}\n")).collect();
        let new = old.replace("l10\n", "l10\ninserted\n");
        let d = FileDiff::compute(&old, &new);
        let added = d.hunks[0]
            .lines
            .iter()
            .find(|l| l.kind == LineKind::Added)
            .unwrap();
        assert_eq!((added.old_no, added.new_no), (None, Some(11)));
        assert_eq!(d.hunks[0].header(), "@@ -8,6 +8,7 @@");
    }

    #[test]
    fn selecting_some_hunks() {
        let old: String = (1..=30).map(|i| format!("l{i}\n")).collect();
        let new = old.replace("l2\n", "L2\n").replace("l25\n", "L25\n");
        let d = FileDiff::compute(&old, &new);
        assert_eq!(d.hunks.len(), 2);
        assert_eq!(d.apply_selected(&old, &[true, true]), new);
        assert_eq!(d.apply_selected(&old, &[false, false]), old);
        assert_eq!(
            d.apply_selected(&old, &[true, false]),
            old.replace("l2\n", "L2\n")
        );
        assert_eq!(
            d.apply_selected(&old, &[false, true]),
            old.replace("l25\n", "L25\n")
        );
    }

    fn text_strategy() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof!["[abc]{0,3}\n", "[abc]{0,3}\r\n", "é\n", "[abc]{1,2}"],
            0..25,
        )
        .prop_map(|v| v.concat())
    }

    proptest! {
        // Invariant: applying every hunk yields the new text; applying none yields the old.
        #[test]
        fn all_or_no_hunks_roundtrip(old in text_strategy(), new in text_strategy()) {
            let d = FileDiff::compute(&old, &new);
            let all = vec![true; d.hunks.len()];
            prop_assert_eq!(d.apply_selected(&old, &all), new);
            prop_assert_eq!(d.apply_selected(&old, &[]), old);
        }

        // Invariant: any subset of hunks applies cleanly: the line count moves by exactly the
        // selected hunks' additions minus their removals.
        #[test]
        fn any_subset_is_consistent(old in text_strategy(), new in text_strategy(), mask in proptest::collection::vec(any::<bool>(), 0..10)) {
            let d = FileDiff::compute(&old, &new);
            let partial = d.apply_selected(&old, &mask);
            let picked = |i: &usize| mask.get(*i).copied().unwrap_or(false);
            let added: usize = d.hunks.iter().enumerate().filter(|(i, _)| picked(i)).map(|(_, h)| h.added()).sum();
            let removed: usize = d.hunks.iter().enumerate().filter(|(i, _)| picked(i)).map(|(_, h)| h.removed()).sum();
            let lines = |t: &str| t.split_inclusive('\n').count();
            prop_assert_eq!(lines(&partial) + removed, lines(&old) + added);
        }
    }
}
