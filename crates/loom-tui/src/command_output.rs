//! A finished command's output under its row in the chat, where people read: its last lines
//! (five), then how it ended (exit code, or timed out, and how long it took) and how many
//! lines are above; `Ctrl+O` shows whole outputs in place (up to [`KEPT_LINES`] each; the
//! Details pane has the rest). Every line of the output counts, the first included; the
//! program's colours are kept and its other control sequences neutralised (`ansi.rs`).
//!
//! What is kept is the program's own text (the last [`KEPT_LINES`] lines, not styled
//! lines: a session holds many outputs); the rows are laid out from it when the chat wraps
//! the entry, with the theme of the moment, so a theme switch restyles them.

use std::borrow::Cow;

use ratatui::style::{Modifier, Style};
use ratatui::text::Span;

use super::ansi;
use super::theme::Theme;
use super::wrap::StyledLine;
use crate::protocol::tool_data::BashData;
use crate::protocol::tool_result::ToolResult;

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

/// What an output is made from: the fields of a `bash` result that matter here.
struct Parts<'a> {
    success: bool,
    /// What it said when it never ran (the error, else the output).
    why: &'a str,
    stdout: &'a str,
    stderr: &'a str,
    /// `None` when the result carries no `data` (the command never ran).
    ran: Option<Ending>,
}

/// How a command that ran ended, as its result's `data` says.
struct Ending {
    duration_ms: Option<u64>,
    timed_out: bool,
    exit_code: Option<i64>,
}

/// A stored `bash` result read without building a JSON tree of it: the strings are
/// borrowed from the line where they need no unescaping. A result of another shape does not
/// parse, and is read as a whole instead.
#[derive(serde::Deserialize)]
struct ResultView<'a> {
    success: bool,
    #[serde(borrow)]
    output: Cow<'a, str>,
    #[serde(default, borrow)]
    error: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    data: Option<DataView<'a>>,
}

#[derive(serde::Deserialize)]
struct DataView<'a> {
    #[serde(default, borrow)]
    stdout: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    stderr: Option<Cow<'a, str>>,
    #[serde(default)]
    duration_ms: Option<u64>,
    #[serde(default)]
    timed_out: Option<bool>,
    #[serde(default)]
    exit_code: Option<i64>,
}

impl CommandOutput {
    /// The output of a finished `bash` call (the model's or a `!command`) that ran `ms`
    /// milliseconds (when its result carries no time of its own).
    pub fn from_result(result: &ToolResult, ms: u64) -> CommandOutput {
        // Data of another shape still means the command ran (its streams then empty).
        let data = (result.data.as_ref()).map(|_| result.data_as::<BashData>().unwrap_or_default());
        let data = data.as_ref();
        CommandOutput::from_parts(
            Parts {
                success: result.success,
                why: result.error.as_deref().unwrap_or(&result.output),
                stdout: data.map_or("", |d| &d.stdout),
                stderr: data.map_or("", |d| &d.stderr),
                ran: data.map(|d| Ending {
                    duration_ms: d.duration_ms,
                    timed_out: d.timed_out,
                    exit_code: d.exit_code,
                }),
            },
            ms,
        )
    }

    /// [`CommandOutput::from_result`] of the `bash` result serialised in `json`, without
    /// parsing it into a [`ToolResult`] (a resumed session reads thousands of them before
    /// its first screen); the result's `success` too. `None` when `json` is not shaped like
    /// a `bash` result (the caller then parses it whole).
    pub fn from_json(json: &str, ms: u64) -> Option<(bool, CommandOutput)> {
        let view: ResultView = serde_json::from_str(json).ok()?;
        let data = view.data.as_ref();
        let (stdout, stderr) = match data {
            Some(d) => (
                d.stdout.as_deref().unwrap_or(""),
                d.stderr.as_deref().unwrap_or(""),
            ),
            None => ("", ""),
        };
        let output = CommandOutput::from_parts(
            Parts {
                success: view.success,
                why: view.error.as_deref().unwrap_or(&view.output),
                stdout,
                stderr,
                ran: data.map(|d| Ending {
                    duration_ms: d.duration_ms,
                    timed_out: d.timed_out == Some(true),
                    exit_code: d.exit_code,
                }),
            },
            ms,
        );
        Some((view.success, output))
    }

    fn from_parts(parts: Parts<'_>, ms: u64) -> CommandOutput {
        let Some(ran) = parts.ran else {
            // No run to report: refused arguments, a sandbox that could not start, or a
            // command the person stopped (which did run, for `ms`).
            let what = if parts.why.contains("cancelled by the user") {
                "stopped"
            } else {
                "not run"
            };
            return CommandOutput {
                tail: last_lines(parts.why, KEPT_LINES).to_string(),
                total: count_lines(parts.why),
                ending: format!("{what} · {}", took(ms)),
                ok: false,
            };
        };
        let mut text = parts.stdout.to_string();
        let stderr = parts.stderr;
        if !text.is_empty() && !stderr.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(stderr);
        let ms = ran.duration_ms.unwrap_or(ms);
        let ending = if ran.timed_out {
            format!("timed out · {}", took(ms))
        } else {
            match ran.exit_code {
                Some(code) => format!("exit {code} · {}", took(ms)),
                None => format!("killed · {}", took(ms)),
            }
        };
        CommandOutput {
            tail: last_lines(&text, KEPT_LINES).to_string(),
            total: count_lines(&text),
            ending,
            ok: parts.success,
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
    use crate::theme::ColorDepth;
    use serde_json::Value;
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

    /// Regression (found by a helper): a command the person stopped after 2 s said
    /// `not run · 2.0s`; it ran, and was stopped.
    #[test]
    fn a_command_the_person_stopped_says_so() {
        let theme = Theme::load("dark", ColorDepth::TrueColor).unwrap();
        let o = CommandOutput::from_result(&ToolResult::err("cancelled by the user"), 2000);
        assert_eq!(
            shown(&o.rows(false, &theme)),
            ["    │ cancelled by the user", "    └ stopped · 2.0s"]
        );
    }

    /// How a field of a generated result is written: well-typed, absent, null, or of a
    /// type a `bash` result never has.
    #[derive(Debug, Clone)]
    enum Field {
        Good,
        Absent,
        Null,
        Odd,
    }

    fn field() -> impl proptest::strategy::Strategy<Value = Field> {
        proptest::prop_oneof![
            4 => proptest::strategy::Just(Field::Good),
            1 => proptest::strategy::Just(Field::Absent),
            1 => proptest::strategy::Just(Field::Null),
            1 => proptest::strategy::Just(Field::Odd),
        ]
    }

    fn put(obj: &mut serde_json::Map<String, Value>, key: &str, how: &Field, good: Value) {
        match how {
            Field::Good => {
                obj.insert(key.into(), good);
            }
            Field::Absent => {}
            Field::Null => {
                obj.insert(key.into(), Value::Null);
            }
            Field::Odd => {
                obj.insert(key.into(), json!(-1.5));
            }
        }
    }

    proptest::proptest! {
        /// Invariant: reading a stored `bash` result without building its JSON tree gives
        /// exactly the output (and success) that parsing it whole gives, or declines (and
        /// the caller parses it whole); a result of the usual shape is never declined.
        #[test]
        fn the_output_read_from_the_line_is_the_output_of_the_whole_result(
            success: bool,
            stdout in "(\\PC|\n|\t|\u{1b}\\[3[0-7]m|\"|\\\\){0,40}",
            stderr in "(\\PC|\n){0,20}",
            output in "\\PC{0,20}",
            error in proptest::option::of("\\PC{0,20}"),
            exit_code: i64,
            duration_ms: u64,
            timed_out: bool,
            ms in 0u64..100_000,
            has_data: bool,
            hows in proptest::collection::vec(field(), 5),
        ) {
            let mut data = serde_json::Map::new();
            put(&mut data, "stdout", &hows[0], json!(stdout));
            put(&mut data, "stderr", &hows[1], json!(stderr));
            put(&mut data, "exit_code", &hows[2], json!(exit_code));
            put(&mut data, "duration_ms", &hows[3], json!(duration_ms));
            put(&mut data, "timed_out", &hows[4], json!(timed_out));
            let mut result = json!({"success": success, "output": output, "error": error});
            if has_data {
                result["data"] = Value::Object(data);
            }
            let line = result.to_string();
            let whole: Option<ToolResult> = serde_json::from_str(&line).ok();
            match CommandOutput::from_json(&line, ms) {
                Some((ok, shown)) => {
                    let whole = whole.expect("what the view reads, the whole parse reads");
                    proptest::prop_assert_eq!(ok, whole.success);
                    proptest::prop_assert_eq!(shown, CommandOutput::from_result(&whole, ms));
                }
                None => proptest::prop_assert!(
                    has_data && hows.iter().any(|h| matches!(h, Field::Odd)),
                    "a usual result was declined: {}", line
                ),
            }
        }
    }
}
