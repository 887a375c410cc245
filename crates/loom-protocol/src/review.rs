//! What `/review` and `loom review` (issue 28) look at and what they find: the changes to
//! review ([`ReviewTarget`]) and the findings parsed from the model's answer
//! ([`ReviewFinding`]), which front ends list and open.

use serde::{Deserialize, Serialize};

/// Which changes a review looks at.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(tag = "kind", content = "rev", rename_all = "snake_case")]
pub enum ReviewTarget {
    /// The uncommitted changes of tracked files, against `HEAD`.
    #[default]
    Uncommitted,
    /// The changes of the current branch (and the working tree) since it left this branch:
    /// the diff from `merge-base(BRANCH, HEAD)` to the working tree.
    Base(String),
    /// One commit's own change.
    Commit(String),
}

impl std::fmt::Display for ReviewTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReviewTarget::Uncommitted => f.write_str("the uncommitted changes"),
            ReviewTarget::Base(b) => write!(f, "the changes since branch {b}"),
            ReviewTarget::Commit(c) => write!(f, "commit {c}"),
        }
    }
}

/// How serious a finding is, most severe first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Must be fixed before anything else (data loss, a security hole).
    Critical,
    /// A bug or a security problem.
    High,
    /// Worth fixing.
    Medium,
    /// Minor.
    Low,
    /// A remark.
    Info,
}

impl Severity {
    /// The word shown and written.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Critical => "critical",
            Severity::High => "high",
            Severity::Medium => "medium",
            Severity::Low => "low",
            Severity::Info => "info",
        }
    }

    /// The severity a model's word means (case-insensitive; common synonyms such as
    /// `error`, `warning`, `minor` or `nit` included), or `None` for any other word.
    pub fn parse(word: &str) -> Option<Severity> {
        Some(match word.trim().to_ascii_lowercase().as_str() {
            "critical" | "blocker" | "severe" => Severity::Critical,
            "high" | "major" | "error" | "bug" => Severity::High,
            "medium" | "moderate" | "warning" | "warn" => Severity::Medium,
            "low" | "minor" | "nit" | "style" => Severity::Low,
            "info" | "note" | "suggestion" | "informational" => Severity::Info,
            _ => return None,
        })
    }
}

/// One finding of a review: where, how serious, and what.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewFinding {
    /// The file, as the model wrote it (workspace-relative).
    pub path: String,
    /// The line of the new file, from 1.
    pub line: u32,
    /// How serious it is.
    pub severity: Severity,
    /// What is wrong and why.
    pub text: String,
}

impl ReviewFinding {
    /// The finding as one line: `path:line severity text` (`loom review`'s output).
    pub fn line_text(&self) -> String {
        format!(
            "{}:{} {} {}",
            self.path,
            self.line,
            self.severity.as_str(),
            self.text
        )
    }
}

/// The findings in a model's answer: each line of the form `path:line: severity: text`
/// (markdown bullets, numbering, bold and backticks around the parts tolerated), in the
/// order given; lines of any other form are ignored.
pub fn parse_findings(answer: &str) -> Vec<ReviewFinding> {
    answer.lines().filter_map(parse_line).collect()
}

/// One line as a finding, if it is one.
fn parse_line(line: &str) -> Option<ReviewFinding> {
    let line = strip_marker(line.trim());
    let (location, rest) = split_location(line)?;
    let (path, number) = location.rsplit_once(':')?;
    let path = clean(path);
    let line_no: u32 = clean(number).parse().ok().filter(|n| *n > 0)?;
    if path.is_empty() || path.contains(char::is_whitespace) || path.contains("://") {
        return None;
    }
    let rest = rest.trim_start_matches([':', ' ', '-', '—', '*', '`']);
    let cut = rest.find(|c: char| c == ':' || c.is_whitespace())?;
    // The separator may be wider than a byte (a no-break or ideographic space).
    let width = rest[cut..].chars().next()?.len_utf8();
    let (word, text) = (&rest[..cut], &rest[cut + width..]);
    let severity = Severity::parse(clean(word).trim_matches(['[', ']', '(', ')']))?;
    let text = text.trim().trim_start_matches(['-', '—', ' ']).trim();
    (!text.is_empty()).then(|| ReviewFinding {
        path: path.to_string(),
        line: line_no,
        severity,
        text: text.to_string(),
    })
}

/// The line without a leading bullet (`-`, `*`, `+`) or number (`1.`, `2)`).
fn strip_marker(line: &str) -> &str {
    let line = line.trim_start_matches(['-', '*', '+', ' ']);
    let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0 && line[digits..].starts_with(['.', ')']) {
        return line[digits + 1..].trim_start();
    }
    line
}

/// `path:line` and what follows it: the location ends at the first `:` after the line
/// number's digits (or at a space).
fn split_location(line: &str) -> Option<(&str, &str)> {
    let bytes = line.as_bytes();
    for (i, _) in line.match_indices(':') {
        let after = &line[i + 1..];
        let after = after.trim_start_matches(['`', '*']);
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 {
            continue;
        }
        let start = line.len() - after.len();
        let mut end = start + digits;
        while end < bytes.len() && matches!(bytes[end], b'`' | b'*') {
            end += 1;
        }
        // `path:12-14` or `path:12:5`: the first line counts, the rest is dropped.
        let tail = &line[end..];
        let tail = tail
            .strip_prefix('-')
            .or_else(|| {
                tail.strip_prefix(':')
                    .filter(|t| t.starts_with(|c: char| c.is_ascii_digit()))
            })
            .map(|t| t.trim_start_matches(|c: char| c.is_ascii_digit() || c == '`' || c == '*'))
            .unwrap_or(tail);
        if tail.starts_with([':', ' ']) || tail.is_empty() {
            return Some((&line[..start + digits], tail));
        }
    }
    None
}

/// A part without the markdown around it (backticks, bold).
fn clean(part: &str) -> &str {
    part.trim().trim_matches(['`', '*']).trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (review of issue 28's /review): a severity followed by a no-break space
    /// cut the text inside that character and panicked the agent at the turn's end.
    #[test]
    fn a_wide_space_after_the_severity_parses() {
        let f = one("a.rs:1: high\u{a0}text").expect("a finding");
        assert_eq!((f.2, f.3.as_str()), (Severity::High, "text"));
        assert!(one("a.rs:1: high\u{3000}wide").is_some());
    }

    proptest::proptest! {
        /// Invariant: parsing never panics, whatever the model writes, and every finding
        /// has a path without whitespace, a line above 0 and some text.
        #[test]
        fn any_answer_parses_without_panicking(answer in "(\\PC|[:` *\u{a0}\u{3000}0-9\n-])*") {
            for f in parse_findings(&answer) {
                proptest::prop_assert!(f.line > 0);
                proptest::prop_assert!(!f.path.contains(char::is_whitespace));
                proptest::prop_assert!(!f.text.is_empty());
            }
        }
    }

    fn one(line: &str) -> Option<(String, u32, Severity, String)> {
        parse_line(line).map(|f| (f.path, f.line, f.severity, f.text))
    }

    #[test]
    fn the_asked_form_and_its_markdown_variants_parse() {
        let want = Some((
            "src/a.rs".into(),
            12,
            Severity::High,
            "unwrap panics".into(),
        ));
        assert_eq!(one("src/a.rs:12: high: unwrap panics"), want);
        assert_eq!(one("- `src/a.rs:12`: high: unwrap panics"), want);
        assert_eq!(one("* **src/a.rs:12**: **High**: unwrap panics"), want);
        assert_eq!(one("1. `src/a.rs`:12: HIGH - unwrap panics"), want);
        assert_eq!(one("src/a.rs:12-14: high: unwrap panics"), want);
        assert_eq!(one("src/a.rs:12:5: [high] unwrap panics"), want);
        assert_eq!(
            one("lib/x.py:3: warning: shadowed name").map(|f| f.2),
            Some(Severity::Medium)
        );
    }

    #[test]
    fn lines_of_another_form_are_ignored() {
        for line in [
            "",
            "No findings.",
            "Overall the change looks fine: see below",
            "src/a.rs: high: no line number",
            "src/a.rs:0: high: line zero",
            "src/a.rs:12: catastrophic: unknown severity",
            "src/a.rs:12: high:",
            "http://example.com:8080 high: a url",
            "```diff",
        ] {
            assert_eq!(one(line), None, "{line:?}");
        }
    }

    #[test]
    fn an_answer_yields_its_findings_in_order() {
        let answer = "Here is what I found:\n\n\
                      - src/a.rs:3: medium: missing error context\n\
                      - src/b.rs:40: critical: SQL built from input\n\
                      That's all.\n";
        let found = parse_findings(answer);
        let lines: Vec<String> = found.iter().map(ReviewFinding::line_text).collect();
        assert_eq!(
            lines,
            [
                "src/a.rs:3 medium missing error context",
                "src/b.rs:40 critical SQL built from input"
            ]
        );
    }

    #[test]
    fn targets_and_findings_round_trip_as_json() {
        for target in [
            ReviewTarget::Uncommitted,
            ReviewTarget::Base("main".into()),
            ReviewTarget::Commit("abc".into()),
        ] {
            let text = serde_json::to_string(&target).unwrap();
            assert_eq!(serde_json::from_str::<ReviewTarget>(&text).unwrap(), target);
        }
        let f = parse_line("a.rs:1: low: x").unwrap();
        let v = serde_json::to_value(&f).unwrap();
        assert_eq!(v["severity"], "low");
        assert_eq!(v["line"], 1);
    }
}
