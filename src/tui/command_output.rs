//! A finished command's output under its row in the chat, where people read: its last lines
//! (five), then how it ended (exit code, or timed out, and how long it took) and how many
//! lines are above; `Ctrl+O` shows whole outputs in place (up to [`KEPT_LINES`] each; the
//! Details pane has the rest). Every line of the output counts, the first included; the
//! program's colours are kept and its other control sequences neutralised (`ansi.rs`).
//!
//! What is kept is the program's own text (the last [`KEPT_LINES`] lines, not styled
//! lines: a session holds many outputs); the rows are laid out from it when the chat wraps
//! the entry, with the theme of the moment, so a theme switch restyles them.

use ratatui::style::{Modifier, Style};
use ratatui::text::Span;
use serde_json::Value;

use super::ansi;
use super::theme::Theme;
use super::wrap::StyledLine;
use crate::tools::ToolResult;

/// Lines shown under a finished command.
pub const PREVIEW_LINES: usize = 5;
/// Lines kept for showing in place (the last ones); the Details pane has every line.
pub const KEPT_LINES: usize = 1000;

/// What a command printed and how it ended, ready to show under its row.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandOutput {
    /// The last [`KEPT_LINES`] lines of stdout then stderr, as printed (escapes and all).
    tail: String,
    /// Lines in the whole output.
    total: usize,
    /// How it ended: "exit 0 · 1.2s".
    ending: String,
    /// Whether it succeeded (the ending's colour).
    ok: bool,
}

/// How many lines `text` has (a final newline ends the last line, it does not start one).
fn count_lines(text: &str) -> usize {
    let breaks = text.bytes().filter(|b| *b == b'\n').count();
    breaks + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

/// The last `keep` lines of `text`.
fn last_lines(text: &str, keep: usize) -> &str {
    let body = text.strip_suffix('\n').unwrap_or(text);
    match body.rmatch_indices('\n').nth(keep.saturating_sub(1)) {
        Some((at, _)) if keep > 0 => &text[at + 1..],
        _ => text,
    }
}

/// "1.2s", "340ms", "2m05s".
fn took(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        format!("{:.1}s", ms as f64 / 1000.0)
    } else {
        format!("{}m{:02}s", ms / 60_000, (ms / 1000) % 60)
    }
}

impl CommandOutput {
    /// The output of a finished `bash` call (the model's or a `!command`) that ran `ms`
    /// milliseconds (when its result carries no time of its own).
    pub fn from_result(result: &ToolResult, ms: u64) -> CommandOutput {
        let Some(data) = result.data.as_ref() else {
            // It never ran (refused arguments, a sandbox that could not start, stopped).
            let why = result.error.as_deref().unwrap_or(&result.output);
            return CommandOutput {
                tail: last_lines(why, KEPT_LINES).to_string(),
                total: count_lines(why),
                ending: format!("not run · {}", took(ms)),
                ok: false,
            };
        };
        let field = |k: &str| data.get(k).and_then(Value::as_str).unwrap_or("");
        let mut text = field("stdout").to_string();
        let stderr = field("stderr");
        if !text.is_empty() && !stderr.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(stderr);
        let ms = data
            .get("duration_ms")
            .and_then(Value::as_u64)
            .unwrap_or(ms);
        let ending = if data.get("timed_out").and_then(Value::as_bool) == Some(true) {
            format!("timed out · {}", took(ms))
        } else {
            match data.get("exit_code").and_then(Value::as_i64) {
                Some(code) => format!("exit {code} · {}", took(ms)),
                None => format!("killed · {}", took(ms)),
            }
        };
        CommandOutput {
            tail: last_lines(&text, KEPT_LINES).to_string(),
            total: count_lines(&text),
            ending,
            ok: result.success,
        }
    }

    /// How many lines the output has.
    pub fn total(&self) -> usize {
        self.total
    }

    /// The rows under the command's row: the last [`PREVIEW_LINES`] lines (every kept one
    /// when `expanded`) behind a gutter, then a line saying how it ended and what is above.
    pub fn rows(&self, expanded: bool, theme: &Theme) -> Vec<StyledLine> {
        let gutter = Style::default().fg(theme.border);
        let dim = Style::default().fg(theme.dim);
        let lines = ansi::parse(&self.tail);
        let shown = if expanded {
            lines.len()
        } else {
            PREVIEW_LINES.min(lines.len())
        };
        let first = lines.len() - shown;
        let mut rows: Vec<StyledLine> = lines[first..]
            .iter()
            .map(|line| {
                let mut row = ansi::themed(line, theme);
                row.spans.insert(0, Span::styled("    │ ", gutter));
                row.continuation = vec![Span::styled("    │ ", gutter)];
                row
            })
            .collect();
        let above = self.total() - shown;
        let ending_style = if self.ok {
            dim
        } else {
            Style::default()
                .fg(theme.error)
                .add_modifier(Modifier::BOLD)
        };
        let mut last = vec![
            Span::styled("    └ ", gutter),
            Span::styled(self.ending.clone(), ending_style),
        ];
        let more = if self.total() == 0 {
            " · no output".to_string()
        } else if above == 0 {
            if expanded && self.total() > PREVIEW_LINES {
                " · Ctrl+O: the last lines only".to_string()
            } else {
                String::new()
            }
        } else if expanded {
            format!(" · {above} earlier lines in Details")
        } else {
            format!(
                " · {above} more line{} above · Ctrl+O",
                if above == 1 { "" } else { "s" }
            )
        };
        if !more.is_empty() {
            last.push(Span::styled(more, dim));
        }
        rows.push(StyledLine {
            spans: last,
            continuation: vec![Span::raw("      ")],
            fill: None,
        });
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::theme::ColorDepth;
    use serde_json::json;

    fn bash(stdout: &str, stderr: &str, code: i64) -> ToolResult {
        let mut r = ToolResult::ok("exit").with_data(json!({
            "exit_code": code, "stdout": stdout, "stderr": stderr,
            "timed_out": false, "duration_ms": 1234,
        }));
        r.success = code == 0;
        r
    }

    fn shown(rows: &[StyledLine]) -> Vec<String> {
        rows.iter()
            .map(|r| r.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn the_last_five_lines_show_with_the_exit_code_and_time() {
        let theme = Theme::load("dark", ColorDepth::TrueColor).unwrap();
        let out: String = (1..=8).map(|i| format!("line {i}\n")).collect();
        let o = CommandOutput::from_result(&bash(&out, "warn\n", 2), 0);
        assert_eq!(o.total(), 9);
        let rows = shown(&o.rows(false, &theme));
        assert_eq!(
            rows,
            [
                "    │ line 5",
                "    │ line 6",
                "    │ line 7",
                "    │ line 8",
                "    │ warn",
                "    └ exit 2 · 1.2s · 4 more lines above · Ctrl+O",
            ]
        );
        let all = shown(&o.rows(true, &theme));
        assert_eq!(all.len(), 10);
        assert_eq!(all[0], "    │ line 1", "the first line is shown too");
    }

    /// Regression (issue 25): a one-line output showed nothing, a two-line one only its
    /// second line.
    #[test]
    fn a_short_output_shows_every_line() {
        let theme = Theme::load("light", ColorDepth::TrueColor).unwrap();
        let o = CommandOutput::from_result(&bash("a\nb\n", "", 0), 0);
        assert_eq!(
            shown(&o.rows(false, &theme)),
            ["    │ a", "    │ b", "    └ exit 0 · 1.2s"]
        );
        let none = CommandOutput::from_result(&bash("", "", 0), 0);
        assert_eq!(
            shown(&none.rows(false, &theme)),
            ["    └ exit 0 · 1.2s · no output"]
        );
    }

    #[test]
    fn a_huge_output_keeps_its_last_lines_and_counts_the_rest() {
        let theme = Theme::load("dark", ColorDepth::TrueColor).unwrap();
        let out: String = (1..=KEPT_LINES + 50).map(|i| format!("{i}\n")).collect();
        let o = CommandOutput::from_result(&bash(&out, "", 0), 0);
        assert_eq!(o.total(), KEPT_LINES + 50);
        let all = shown(&o.rows(true, &theme));
        assert_eq!(all[0], "    │ 51");
        assert!(all.last().unwrap().ends_with("50 earlier lines in Details"));
    }

    #[test]
    fn lines_are_counted_and_cut_as_the_output_has_them() {
        assert_eq!(count_lines(""), 0);
        assert_eq!(count_lines("a"), 1);
        assert_eq!(count_lines("a\n"), 1);
        assert_eq!(count_lines("a\nb"), 2);
        assert_eq!(last_lines("a\nb\nc\n", 2), "b\nc\n");
        assert_eq!(last_lines("a\nb\nc", 2), "b\nc");
        assert_eq!(last_lines("a\nb\n", 5), "a\nb\n");
        let o = CommandOutput::from_result(&bash("out", "err\n", 1), 0);
        assert_eq!(
            o.total(),
            2,
            "stdout without a final newline is its own line"
        );
    }

    #[test]
    fn a_command_that_never_ran_says_why() {
        let theme = Theme::load("dark", ColorDepth::TrueColor).unwrap();
        let o = CommandOutput::from_result(&ToolResult::err("the sandbox could not start"), 3);
        assert_eq!(
            shown(&o.rows(false, &theme)),
            ["    │ the sandbox could not start", "    └ not run · 3ms"]
        );
    }
}
