//! Diagnostics as the model reads them: the ones an edit introduced (those not there
//! before, matched by severity, code and message since lines move), each as
//! `path:line:col: error [code] message` with 1-based positions, capped in number and
//! length.

use lsp_types::{Diagnostic, DiagnosticSeverity, NumberOrString};

/// Errors listed at most per report.
pub const MAX_LISTED: usize = 20;
/// New warnings are listed only when there are at most this many (else counted).
pub const FEW_WARNINGS: usize = 5;
/// The longest message kept, in characters.
pub const MAX_MESSAGE_CHARS: usize = 240;

/// How serious a diagnostic is; hints and information are not reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// An error.
    Error,
    /// A warning.
    Warning,
}

/// One diagnostic, reduced to what is reported.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Diag {
    /// Error or warning.
    pub severity: Severity,
    /// 1-based line.
    pub line: u32,
    /// 1-based column (in the server's units, UTF-16 by default).
    pub col: u32,
    /// The rule or error code, if the server gives one.
    pub code: Option<String>,
    /// The message, on one line.
    pub message: String,
}

impl Diag {
    /// The reportable form of `d`; `None` for hints and information. A diagnostic without
    /// a severity counts as an error (the spec leaves it to the client).
    pub fn from_lsp(d: &Diagnostic) -> Option<Diag> {
        let severity = match d.severity {
            None | Some(DiagnosticSeverity::ERROR) => Severity::Error,
            Some(DiagnosticSeverity::WARNING) => Severity::Warning,
            Some(_) => return None,
        };
        let code = d.code.as_ref().map(|c| match c {
            NumberOrString::Number(n) => n.to_string(),
            NumberOrString::String(s) => s.clone(),
        });
        let message: String = d.message.split_whitespace().collect::<Vec<_>>().join(" ");
        Some(Diag {
            severity,
            line: d.range.start.line.saturating_add(1),
            col: d.range.start.character.saturating_add(1),
            code,
            message,
        })
    }

    /// What matches a diagnostic before and after an edit: everything but the position.
    fn identity(&self) -> (Severity, Option<&str>, &str) {
        (self.severity, self.code.as_deref(), &self.message)
    }

    /// One line: `path:line:col: error [code] message`.
    pub fn line(&self, path: &str) -> String {
        let kind = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let code = self
            .code
            .as_ref()
            .map(|c| format!(" [{c}]"))
            .unwrap_or_default();
        let mut message: String = self.message.chars().take(MAX_MESSAGE_CHARS).collect();
        if message.len() < self.message.len() {
            message.push('…');
        }
        format!("{path}:{}:{}: {kind}{code} {message}", self.line, self.col)
    }
}

/// The diagnostics of `after` that were not in `before`: each before-diagnostic cancels
/// one after-diagnostic of the same severity, code and message (a multiset difference),
/// wherever it moved to.
pub fn introduced(before: &[Diag], after: &[Diag]) -> Vec<Diag> {
    let mut left: Vec<Option<&Diag>> = before.iter().map(Some).collect();
    let mut new = Vec::new();
    for d in after {
        let matched = left
            .iter_mut()
            .find(|b| b.is_some_and(|b| b.identity() == d.identity()));
        match matched {
            Some(slot) => *slot = None,
            None => new.push(d.clone()),
        }
    }
    new
}

/// The diagnostics of one file for a report.
#[derive(Debug, Clone, Default)]
pub struct FileReport {
    /// The path as shown (workspace-relative).
    pub path: String,
    /// Listed diagnostics (new ones, or all for the `diagnostics` tool).
    pub diags: Vec<Diag>,
    /// Errors that were there before the edit (counted, not listed).
    pub errors_before: usize,
}

/// The report's text: new errors listed (at most [`MAX_LISTED`]), new warnings listed when
/// few, otherwise counted, and the errors that were there before counted. `what` names
/// the diagnostics ("new" after an edit, "" for the current ones).
pub fn render(server: &str, files: &[FileReport], what: &str) -> String {
    let count = |s: Severity| -> usize {
        files
            .iter()
            .map(|f| f.diags.iter().filter(|d| d.severity == s).count())
            .sum()
    };
    let (errors, warnings) = (count(Severity::Error), count(Severity::Warning));
    let before: usize = files.iter().map(|f| f.errors_before).sum();
    let space = if what.is_empty() { "" } else { " " };
    let mut out = format!(
        "diagnostics ({server}): {errors} {what}{space}error{}",
        plural(errors)
    );
    if warnings > 0 {
        out.push_str(&format!(
            ", {warnings} {what}{space}warning{}",
            plural(warnings)
        ));
    }
    let mut listed = 0;
    let list_warnings = warnings <= FEW_WARNINGS;
    for f in files {
        for d in &f.diags {
            if d.severity == Severity::Warning && !list_warnings {
                continue;
            }
            if listed == MAX_LISTED {
                break;
            }
            out.push('\n');
            out.push_str(&d.line(&f.path));
            listed += 1;
        }
    }
    let shown = errors + if list_warnings { warnings } else { 0 };
    if shown > listed {
        out.push_str(&format!("\n({} more not listed)", shown - listed));
    }
    if before > 0 {
        out.push_str(&format!(
            "\n({before} error{} there before this edit, not listed)",
            plural(before)
        ));
    }
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(severity: Severity, line: u32, message: &str) -> Diag {
        Diag {
            severity,
            line,
            col: 1,
            code: Some("rule".into()),
            message: message.into(),
        }
    }

    #[test]
    fn an_old_error_that_moved_is_not_new_but_a_second_copy_is() {
        let before = [d(Severity::Error, 3, "x is undefined")];
        let after = [
            d(Severity::Error, 9, "x is undefined"),
            d(Severity::Error, 10, "x is undefined"),
            d(Severity::Warning, 2, "unused"),
        ];
        let new = introduced(&before, &after);
        assert_eq!(
            new,
            [
                d(Severity::Error, 10, "x is undefined"),
                d(Severity::Warning, 2, "unused")
            ]
        );
    }

    #[test]
    fn positions_are_one_based_and_hints_are_dropped() {
        let lsp = Diagnostic {
            range: lsp_types::Range::new(
                lsp_types::Position::new(0, 4),
                lsp_types::Position::new(0, 5),
            ),
            severity: Some(DiagnosticSeverity::ERROR),
            code: Some(NumberOrString::Number(2322)),
            message: "Type 'string'\n  is not 'number'.".into(),
            ..Diagnostic::default()
        };
        let diag = Diag::from_lsp(&lsp).unwrap();
        assert_eq!(
            diag.line("a.ts"),
            "a.ts:1:5: error [2322] Type 'string' is not 'number'."
        );
        let hint = Diagnostic {
            severity: Some(DiagnosticSeverity::HINT),
            ..lsp
        };
        assert_eq!(Diag::from_lsp(&hint), None);
    }

    #[test]
    fn the_report_caps_errors_counts_many_warnings_and_the_old_errors() {
        let mut diags: Vec<Diag> = (1..=25)
            .map(|i| d(Severity::Error, i, &format!("e{i}")))
            .collect();
        diags.extend((1..=6).map(|i| d(Severity::Warning, i, "w")));
        let file = FileReport {
            path: "a.py".into(),
            diags,
            errors_before: 2,
        };
        let text = render("pyright", &[file], "new");
        assert!(text.starts_with("diagnostics (pyright): 25 new errors, 6 new warnings\n"));
        assert_eq!(text.lines().filter(|l| l.contains(": error")).count(), 20);
        assert!(!text.contains(": warning"), "{text}");
        assert!(text.contains("\n(5 more not listed)"), "{text}");
        assert!(text.ends_with("\n(2 errors there before this edit, not listed)"));
        let long = d(Severity::Error, 1, &"x".repeat(500));
        assert!(long.line("a").chars().count() < 300);
    }

    fn arb_diag() -> impl proptest::strategy::Strategy<Value = Diag> {
        use proptest::prelude::*;
        (any::<bool>(), 1u32..50, 0u8..4).prop_map(|(error, line, m)| {
            let severity = if error {
                Severity::Error
            } else {
                Severity::Warning
            };
            d(severity, line, &format!("m{m}"))
        })
    }

    proptest::proptest! {
        /// Invariant: what an edit introduced is taken from `after` (in its order), is never
        /// fewer than `after` has beyond `before`, and an edit that changes no diagnostic
        /// (`after` is `before` moved anywhere) introduced nothing.
        #[test]
        fn introduced_is_a_multiset_difference(
            before in proptest::collection::vec(arb_diag(), 0..12),
            after in proptest::collection::vec(arb_diag(), 0..12),
            shift in 0u32..20,
        ) {
            let new = introduced(&before, &after);
            let mut rest = after.iter();
            for n in &new {
                proptest::prop_assert!(rest.any(|a| a == n));
            }
            proptest::prop_assert!(new.len() >= after.len().saturating_sub(before.len()));
            let moved: Vec<Diag> = before
                .iter()
                .rev()
                .map(|b| Diag { line: b.line + shift, ..b.clone() })
                .collect();
            proptest::prop_assert!(introduced(&before, &moved).is_empty());
        }
    }

    #[test]
    fn a_clean_report_says_so_in_one_line() {
        let text = render("pyright", &[FileReport::default()], "new");
        assert_eq!(text, "diagnostics (pyright): 0 new errors");
    }
}
