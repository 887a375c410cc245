//! The tool-call pane: one row per call — name, a one-line summary, status with a spinner
//! and elapsed time while running, duration when done — and, for the selected row, its
//! full arguments and output. Command output goes through `ansi.rs`, so its colours show as
//! colours and its other control sequences do nothing.

use std::time::Instant;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::Value;

use super::stored_calls::read_back;
use super::theme::Theme;
use super::wrap::{StyledLine, truncate, wrap};
use crate::protocol::tool_data::{BashData, FileChangeData, HttpData, WebFetchData, WebSearchData};
use crate::protocol::tool_result::ToolResult;

const SPINNER: &[&str] = &["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// A call's row and where it stands (defined with the resumed call's place in the session
/// file, which a row may hold).
pub use super::tool_row::{ToolRow, ToolStatus};

/// How a call's arguments read as a one-line summary: the tools' own
/// (`loom-core`'s `tools::summary::summarize`, shared with `loom exec`), handed over at start.
pub type Summarize = fn(&str, &Value) -> String;

/// How long a call ran, for its row (nothing when not known).
fn duration(ms: Option<u64>) -> String {
    let Some(ms) = ms else {
        return String::new();
    };
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        format!("{:.1}s", ms as f64 / 1000.0)
    } else {
        format!("{}m{:02}s", ms / 60_000, (ms / 1000) % 60)
    }
}

/// The icon and style of a status at `now`.
pub fn status_mark(status: &ToolStatus, now: Instant, theme: &Theme) -> (String, Style, String) {
    match status {
        ToolStatus::Queued => ("○".into(), Style::default().fg(theme.dim), "queued".into()),
        ToolStatus::Awaiting => (
            "?".into(),
            Style::default()
                .fg(theme.warning)
                .add_modifier(Modifier::BOLD),
            "awaiting approval".into(),
        ),
        ToolStatus::Running(since) => {
            let elapsed = now.saturating_duration_since(*since);
            let frame = (elapsed.as_millis() / 100) as usize % SPINNER.len();
            (
                SPINNER[frame].into(),
                Style::default().fg(theme.accent),
                duration(Some(elapsed.as_millis() as u64)),
            )
        }
        ToolStatus::Done { ok: true, ms } => (
            "✓".into(),
            Style::default().fg(theme.success),
            duration(*ms),
        ),
        ToolStatus::Done { ok: false, ms } => {
            ("✗".into(), Style::default().fg(theme.error), duration(*ms))
        }
        ToolStatus::Denied => (
            "⊘".into(),
            Style::default().fg(theme.error),
            "denied".into(),
        ),
    }
}

/// The tools whose rows show what the server answered.
pub(crate) const WEB_TOOLS: [&str; 3] = ["web_search", "web_fetch", "http_request"];

/// What a finished web call got back, for its row: the HTTP status (`200`, `404`), or
/// for a search the number of results.
pub fn web_outcome(row: &ToolRow) -> Option<String> {
    if !WEB_TOOLS.contains(&row.name.as_str()) {
        return None;
    }
    let result = row.result.as_ref()?;
    let status = match row.name.as_str() {
        "web_fetch" => result.data_as::<WebFetchData>()?.status,
        "http_request" => result.data_as::<HttpData>()?.status,
        _ => {
            let n = result.data_as::<WebSearchData>()?.results.len();
            return Some(format!("{n} result{}", if n == 1 { "" } else { "s" }));
        }
    };
    Some(status.to_string())
}

/// The pane's state.
#[derive(Debug, Default)]
pub struct ToolsPane {
    /// Every call of the session, oldest first.
    pub rows: Vec<ToolRow>,
    /// The selected row.
    pub selected: usize,
    /// Whether the selection follows the newest call.
    pub follow: bool,
    /// Lines scrolled in the detail view (reset when the selection moves).
    detail_scroll: usize,
    detail_cache: Option<(String, u16, usize, Vec<Line<'static>>)>,
    /// Calls of sub-agents, by their on-screen id (`PARENT/ID`): how deep they nest, the
    /// delegate calls above them (outermost first) and their id within their sub-agent.
    sub_calls: std::collections::HashMap<String, (u8, Vec<String>, String)>,
    /// Where the next row goes when it nests under a delegate call.
    pending_nest: Option<usize>,
    /// The session file resumed calls are read back from.
    pub store: Option<crate::protocol::stored::SessionFile>,
    /// Hook runs shown so far (each row's id is `hook-N`).
    pub(crate) hooks: usize,
    /// How calls' arguments are summarized (none given: no summary).
    pub summarizer: Option<Summarize>,
}

impl ToolsPane {
    /// An empty pane that follows new calls.
    pub fn new() -> ToolsPane {
        ToolsPane {
            follow: true,
            ..ToolsPane::default()
        }
    }

    /// The one-line summary of a call's arguments (empty when no summarizer was given).
    pub fn summarize(&self, name: &str, args: &Value) -> String {
        self.summarizer.map(|f| f(name, args)).unwrap_or_default()
    }

    /// The row for a call id.
    pub fn row_mut(&mut self, id: &str) -> Option<&mut ToolRow> {
        self.rows.iter_mut().rev().find(|r| r.id == id)
    }

    /// Add a call.
    pub fn add(&mut self, row: ToolRow) {
        let at = match self.pending_nest.take() {
            Some(i) if i <= self.rows.len() => i,
            _ => self.rows.len(),
        };
        self.rows.insert(at, row);
        if self.follow {
            self.selected = at;
            self.detail_scroll = 0;
        } else if at <= self.selected && self.rows.len() > 1 {
            self.selected += 1;
        }
    }

    /// Note that the next row added, `id`, is a call of the sub-agent under the delegate
    /// call `parent` (`depth` levels down; `path` the delegate calls above it, `inner` its
    /// own id): it is shown indented, after the rows already under `parent`.
    pub fn nest(&mut self, parent: &str, id: &str, depth: u8, path: Vec<String>, inner: String) {
        self.sub_calls.insert(id.to_string(), (depth, path, inner));
        let under = format!("{parent}/");
        self.pending_nest = self
            .rows
            .iter()
            .rposition(|r| r.id == parent || r.id.starts_with(&under))
            .map(|i| i + 1);
    }

    /// The delegate calls above a sub-agent's call and its own id, for an on-screen id.
    pub fn nested(&self, id: &str) -> Option<(&[String], &str)> {
        self.sub_calls
            .get(id)
            .map(|(_, path, inner)| (path.as_slice(), inner.as_str()))
    }

    /// How deep a row nests (0: a call of the agent itself).
    pub fn depth(&self, id: &str) -> u8 {
        self.sub_calls.get(id).map_or(0, |(d, _, _)| *d)
    }

    /// Whether a command the person typed (`!command`), or one of a custom command's
    /// prompt, is still running: Esc stops it.
    pub fn shell_running(&self) -> bool {
        self.rows.iter().rev().take(64).any(|r| {
            (r.id.starts_with(crate::protocol::events::SHELL_ID_PREFIX)
                || r.id.starts_with(crate::protocol::events::COMMAND_ID_PREFIX))
                && matches!(r.status, ToolStatus::Running(_))
        })
    }

    /// Whether any call is running (the spinner needs frames).
    pub fn animating(&self) -> bool {
        self.rows
            .iter()
            .rev()
            .take(64)
            .any(|r| matches!(r.status, ToolStatus::Running(_)))
    }

    /// Move the selection.
    pub fn select(&mut self, delta: isize) {
        if self.rows.is_empty() {
            return;
        }
        let last = self.rows.len() - 1;
        let next = (self.selected as isize + delta).clamp(0, last as isize) as usize;
        self.selected = next;
        self.follow = next == last;
        self.detail_scroll = 0;
    }

    /// Scroll the detail view; [`ToolsPane::detail_window`] keeps it within the lines.
    pub fn scroll_details(&mut self, delta: isize) {
        self.detail_scroll = self.detail_scroll.saturating_add_signed(delta);
    }

    /// The detail lines of the selected row that fit `height` rows at `width`, starting
    /// at the scroll position (which is pulled back if it ran past the last screen).
    pub fn detail_window(&mut self, width: u16, height: u16, theme: &Theme) -> &[Line<'static>] {
        let total = self.detail_lines(width, theme).len();
        self.detail_scroll = self
            .detail_scroll
            .min(total.saturating_sub(height as usize));
        let first = self.detail_scroll;
        let lines = self.detail_lines(width, theme);
        &lines[first..lines.len().min(first + height as usize)]
    }

    /// Forget the rendered details (the theme changed).
    pub fn restyle(&mut self) {
        self.detail_cache = None;
    }

    /// The selected row.
    pub fn current(&self) -> Option<&ToolRow> {
        self.rows.get(self.selected)
    }

    /// Draw the list into `area`.
    pub fn render_list(
        &self,
        area: Rect,
        buf: &mut Buffer,
        theme: &Theme,
        now: Instant,
        focused: bool,
    ) {
        if area.height == 0 {
            return;
        }
        if self.rows.is_empty() {
            buf.set_stringn(
                area.x,
                area.y,
                "no tool calls yet",
                area.width as usize,
                Style::default().fg(theme.dim),
            );
            return;
        }
        let h = area.height as usize;
        let first = (self.selected + 1)
            .saturating_sub(h)
            .min(self.rows.len().saturating_sub(h));
        for (i, row) in self.rows.iter().enumerate().skip(first).take(h) {
            let y = area.y + (i - first) as u16;
            let (icon, style, tail) = status_mark(&row.status, now, theme);
            let tail = match web_outcome(row) {
                Some(outcome) if tail.is_empty() => outcome,
                Some(outcome) => format!("{outcome} · {tail}"),
                None => tail,
            };
            let indent = match self.depth(&row.id) {
                0 => String::new(),
                d => format!("{}↳ ", "  ".repeat(d as usize - 1)),
            };
            let name_w = 12usize;
            let tail_w = tail.chars().count() + 1;
            let summary_w = (area.width as usize)
                .saturating_sub(2 + name_w + 1 + tail_w + 1 + indent.chars().count());
            let mut spans = vec![
                Span::styled(indent, Style::default().fg(theme.dim)),
                Span::styled(format!("{icon} "), style),
                Span::styled(
                    // A column between name and summary, even for a 12-letter name
                    // (`search_files/def /` ran together).
                    format!("{:<name_w$} ", truncate(&row.name, name_w)),
                    Style::default().fg(theme.text).add_modifier(Modifier::BOLD),
                ),
                Span::styled(
                    format!("{:<summary_w$} ", truncate(&row.summary, summary_w)),
                    Style::default().fg(theme.text),
                ),
                Span::styled(tail, Style::default().fg(theme.dim)),
            ];
            if i == self.selected && focused {
                for s in &mut spans {
                    s.style = if theme.selection_bg == Color::Reset {
                        // No tint to spare (16 colours): the row is shown reversed.
                        s.style.add_modifier(Modifier::REVERSED)
                    } else {
                        s.style.bg(theme.selection_bg)
                    };
                }
            }
            buf.set_line(area.x, y, &Line::from(spans), area.width);
        }
    }

    /// The detail lines of the selected row (arguments, then output) at `width`.
    pub fn detail_lines(&mut self, width: u16, theme: &Theme) -> &[Line<'static>] {
        let Some(row) = self.rows.get(self.selected) else {
            self.detail_cache = None;
            return &[];
        };
        let stamp = match &row.status {
            ToolStatus::Done { .. } => 2,
            ToolStatus::Denied => 3,
            _ => 1,
        };
        let fresh = !matches!(&self.detail_cache, Some((id, w, s, _)) if *id == row.id && *w == width && *s == stamp);
        if fresh {
            let lines = match row.stored {
                Some(_) => build_detail(&read_back(row, self.store.as_ref()), width, theme),
                None => build_detail(row, width, theme),
            };
            self.detail_cache = Some((row.id.clone(), width, stamp, lines));
        }
        self.detail_cache
            .as_ref()
            .map(|c| c.3.as_slice())
            .unwrap_or(&[])
    }
}

fn heading(text: &str, theme: &Theme) -> StyledLine {
    StyledLine::plain(
        text,
        Style::default()
            .fg(theme.accent)
            .add_modifier(Modifier::BOLD),
    )
}

/// A call's arguments as the screen shows them: arguments that arrived as text (a string
/// holding JSON, the way some models send them) are shown parsed; `None` when that text is
/// not JSON at all (then it is shown as the model sent it).
pub fn readable_args(args: &Value) -> Option<Value> {
    match args {
        Value::String(raw) => serde_json::from_str::<Value>(raw)
            .ok()
            .filter(|v| v.is_object() || v.is_array()),
        other => Some(other.clone()),
    }
}

fn build_detail(row: &ToolRow, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    // The call's summary, not its id (a fragment of `call_9f8e…` said nothing).
    let mut logical: Vec<StyledLine> = vec![heading(
        format!("{} {}", row.name, row.summary).trim_end(),
        theme,
    )];
    match readable_args(&row.args) {
        Some(args) => {
            logical.push(heading("arguments", theme));
            let args = serde_json::to_string_pretty(&args).unwrap_or_default();
            for l in args.lines() {
                logical.push(StyledLine::plain(l, Style::default().fg(theme.text)));
            }
        }
        None => {
            logical.push(heading(
                "arguments (not valid JSON: as the model sent them)",
                theme,
            ));
            for l in row.args.as_str().unwrap_or("").lines() {
                logical.push(StyledLine::plain(l, Style::default().fg(theme.text)));
            }
        }
    }
    let mut out: Vec<Line<'static>> = logical.iter().flat_map(|l| wrap(l, width)).collect();
    let Some(result) = &row.result else {
        return out;
    };
    out.push(Line::default());
    let status = if result.success {
        "result: success"
    } else {
        "result: failed"
    };
    out.extend(wrap(&heading(status, theme), width));
    if let Some(err) = &result.error {
        out.extend(wrap(
            &StyledLine::plain(err.clone(), Style::default().fg(theme.error)),
            width,
        ));
    }
    if !result.output.is_empty() {
        output_lines(row, &result.output, width, theme, &mut out);
    }
    if let Some(data) = &result.data {
        data_lines(row, (result, data), width, theme, &mut out);
    }
    out
}

/// A call's output in its details: a command's dim, a fetched page rendered, others plain.
fn output_lines(
    row: &ToolRow,
    output: &str,
    width: u16,
    theme: &Theme,
    out: &mut Vec<Line<'static>>,
) {
    if row.name == "bash" {
        out.extend(wrap(
            &StyledLine::plain(output.to_string(), Style::default().fg(theme.dim)),
            width,
        ));
    } else if row.name == "web_fetch" {
        // A fetched page is markdown: shown rendered, as the chat shows answers.
        for l in super::markdown::MarkdownStream::render(output, theme) {
            out.extend(wrap(&l, width));
        }
    } else {
        for l in output.lines() {
            out.extend(wrap(
                &StyledLine::plain(l.to_string(), Style::default().fg(theme.text)),
                width,
            ));
        }
    }
}

/// A call's data in its details: a command's streams in their colours, a diff in the
/// added and removed colours, anything else as JSON.
fn data_lines(
    row: &ToolRow,
    (result, data): (&ToolResult, &Value),
    width: u16,
    theme: &Theme,
    out: &mut Vec<Line<'static>>,
) {
    if row.name == "bash" {
        let ran: BashData = result.data_as().unwrap_or_default();
        for (stream, text) in [("stdout", &ran.stdout), ("stderr", &ran.stderr)] {
            if text.is_empty() {
                continue;
            }
            out.push(Line::default());
            out.extend(wrap(&heading(stream, theme), width));
            for line in super::ansi::parse(text) {
                out.extend(wrap(&super::ansi::themed(&line, theme), width));
            }
        }
    } else if let Some(diff) = result.data_as::<FileChangeData>().and_then(|d| d.diff) {
        out.push(Line::default());
        out.extend(wrap(&heading("diff", theme), width));
        for l in diff.lines() {
            let color = if l.starts_with('+') {
                theme.diff.added
            } else if l.starts_with('-') {
                theme.diff.removed
            } else {
                theme.text
            };
            out.extend(wrap(
                &StyledLine::plain(l.to_string(), Style::default().fg(color)),
                width,
            ));
        }
    } else {
        out.push(Line::default());
        out.extend(wrap(&heading("data", theme), width));
        let pretty = serde_json::to_string_pretty(data).unwrap_or_default();
        for l in pretty.lines().take(2000) {
            out.extend(wrap(
                &StyledLine::plain(l.to_string(), Style::default().fg(theme.dim)),
                width,
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::tool_result::ToolResult;
    use crate::theme::ColorDepth;
    use serde_json::json;

    fn bash_row(id: &str, lines: usize) -> ToolRow {
        let output: String = (0..lines).map(|i| format!("out {i}\n")).collect();
        ToolRow {
            id: id.into(),
            name: "bash".into(),
            summary: "make".into(),
            args: json!({"command": "make"}),
            status: ToolStatus::Done {
                ok: true,
                ms: Some(1),
            },
            result: Some(ToolResult::ok(output)),
            stored: None,
        }
    }

    fn theme(name: &str) -> Theme {
        Theme::load(name, ColorDepth::TrueColor).unwrap()
    }

    fn text_of(lines: &[Line<'static>]) -> String {
        lines
            .iter()
            .map(|l| {
                l.spans
                    .iter()
                    .map(|s| s.content.as_ref())
                    .collect::<String>()
                    + "\n"
            })
            .collect()
    }

    #[test]
    fn a_web_row_shows_its_domain_and_status_and_the_page_rendered() {
        let dark = theme("dark");
        let mut pane = ToolsPane::new();
        let args = json!({"url": "https://docs.rs/serde/"});
        pane.add(ToolRow {
            id: "w".into(),
            name: "web_fetch".into(),
            summary: loom_core::tools::summary::summarize("web_fetch", &args),
            args,
            status: ToolStatus::Done {
                ok: true,
                ms: Some(120),
            },
            result: Some(
                ToolResult::ok("# Serde\n\nA **framework**.")
                    .with_data(json!({"status": 200, "url": "https://docs.rs/serde/"})),
            ),
            stored: None,
        });
        let area = Rect::new(0, 0, 60, 1);
        let mut buf = Buffer::empty(area);
        pane.render_list(area, &mut buf, &dark, Instant::now(), false);
        let row: String = (0..60).map(|x| buf[(x, 0)].symbol().to_string()).collect();
        assert!(row.contains("docs.rs/serde/"), "{row}");
        assert!(row.contains("200 · 120ms"), "{row}");
        let details = text_of(pane.detail_lines(60, &dark));
        assert!(details.contains("Serde"), "{details}");
        assert!(
            !details.contains("# Serde"),
            "the heading is rendered: {details}"
        );
        assert!(!details.contains("**"), "emphasis is rendered: {details}");
    }

    /// A web row's outcome is read from its tool's typed data (issue 27): the status of a
    /// fetch or request, the number of a search's results, nothing without data.
    #[test]
    fn a_web_rows_outcome_comes_from_its_typed_data() {
        let row = |name: &str, data: Option<Value>| ToolRow {
            id: "w".into(),
            name: name.into(),
            summary: String::new(),
            args: json!({}),
            status: ToolStatus::Done {
                ok: true,
                ms: Some(1),
            },
            result: Some(match data {
                Some(d) => ToolResult::ok("").with_data(d),
                None => ToolResult::ok(""),
            }),
            stored: None,
        };
        let hit = json!({"title": "t", "url": "u", "snippet": ""});
        let cases = [
            (
                row("http_request", Some(json!({"status": 404}))),
                Some("404"),
            ),
            (row("web_fetch", Some(json!({"status": 301}))), Some("301")),
            (row("web_fetch", None), None),
            (
                row("web_search", Some(json!({"results": [hit]}))),
                Some("1 result"),
            ),
            (
                row("web_search", Some(json!({"results": [hit, hit]}))),
                Some("2 results"),
            ),
            (row("web_search", Some(json!({"results": "x"}))), None),
            (row("bash", Some(json!({"status": 1}))), None),
        ];
        for (row, want) in cases {
            assert_eq!(web_outcome(&row).as_deref(), want, "{}", row.name);
        }
    }

    /// Regression (issue 25): a 12-letter tool name ran into its summary
    /// (`search_files/def /`).
    #[test]
    fn a_long_tool_name_keeps_a_gap_before_its_summary() {
        let dark = theme("dark");
        let mut pane = ToolsPane::new();
        let args = json!({"pattern": "def "});
        pane.add(ToolRow {
            id: "s".into(),
            name: "search_files".into(),
            summary: loom_core::tools::summary::summarize("search_files", &args),
            args,
            status: ToolStatus::Done {
                ok: true,
                ms: Some(3),
            },
            result: None,
            stored: None,
        });
        let area = Rect::new(0, 0, 50, 1);
        let mut buf = Buffer::empty(area);
        pane.render_list(area, &mut buf, &dark, Instant::now(), false);
        let row: String = (0..50).map(|x| buf[(x, 0)].symbol().to_string()).collect();
        assert!(row.contains("search_files /def /"), "{row}");
    }

    #[test]
    fn detail_scroll_stops_at_the_last_screen_and_resets_on_a_new_selection() {
        let dark = theme("dark");
        let mut pane = ToolsPane::new();
        pane.add(bash_row("a", 100));
        pane.add(bash_row("b", 100));
        let total = pane.detail_lines(40, &dark).len();
        pane.scroll_details(10_000);
        let window = pane.detail_window(40, 10, &dark).to_vec();
        assert_eq!(window.len(), 10);
        assert_eq!(window[9], pane.detail_lines(40, &dark)[total - 1]);
        pane.scroll_details(-1);
        let back = pane.detail_window(40, 10, &dark).to_vec();
        assert_eq!(
            back[9],
            pane.detail_lines(40, &dark)[total - 2],
            "one line up is one line"
        );
        pane.select(-1);
        let first = pane.detail_window(40, 10, &dark).to_vec();
        assert_eq!(
            first[0],
            pane.detail_lines(40, &dark)[0],
            "another call starts at its top"
        );
    }

    #[test]
    fn details_take_the_new_theme_after_restyle() {
        let mut pane = ToolsPane::new();
        pane.add(bash_row("a", 1));
        let heading_fg =
            |pane: &mut ToolsPane, t: &Theme| pane.detail_lines(40, t)[0].spans[0].style.fg;
        let (dark, light) = (theme("dark"), theme("light"));
        assert_ne!(dark.accent, light.accent);
        assert_eq!(heading_fg(&mut pane, &dark), Some(dark.accent));
        pane.restyle();
        assert_eq!(heading_fg(&mut pane, &light), Some(light.accent));
    }

    /// Regression (issue 25): the arguments of a call that arrived as text showed as an
    /// escaped JSON string (`"{\"path\": …}"`), and the header a fragment of the call id.
    #[test]
    fn arguments_sent_as_text_are_shown_as_arguments_and_no_call_id() {
        let dark = theme("dark");
        let mut pane = ToolsPane::new();
        for (id, raw) in [
            (
                "call_9f8e7d6c5b4a",
                r#"{"path": "src/main.rs", "line_range": [1, 5]}"#,
            ),
            (
                "call_0a1b2c3d4e5f",
                r#"{"path": "src/main.rs", "line_range": [1,"#,
            ),
        ] {
            pane.add(ToolRow {
                id: id.into(),
                name: "read_file".into(),
                summary: "src/main.rs".into(),
                args: Value::String(raw.into()),
                status: ToolStatus::Done {
                    ok: false,
                    ms: Some(1),
                },
                result: Some(ToolResult::err("arguments are not valid JSON")),
                stored: None,
            });
            let details = text_of(pane.detail_lines(60, &dark));
            assert!(!details.contains("\\\""), "escaped: {details}");
            assert!(!details.contains("call_"), "a call id: {details}");
            assert!(details.contains("read_file src/main.rs"), "{details}");
        }
        pane.select(-1);
        let parsed = text_of(pane.detail_lines(60, &dark));
        assert!(parsed.contains("  \"path\": \"src/main.rs\","), "{parsed}");
        pane.select(1);
        let raw = text_of(pane.detail_lines(60, &dark));
        assert!(raw.contains("not valid JSON"), "{raw}");
        assert!(
            raw.contains(r#"{"path": "src/main.rs", "line_range": [1,"#),
            "{raw}"
        );
    }

    /// Regression (issue 25): the Details pane dropped the first line of every command's
    /// output (`!echo a; echo b` showed only `b`; one line showed nothing).
    #[test]
    fn the_details_show_every_line_of_a_commands_output() {
        let dark = theme("dark");
        let mut pane = ToolsPane::new();
        let mut row = bash_row("a", 0);
        row.result = Some(ToolResult::ok("exit code 0").with_data(json!({
            "exit_code": 0,
            "stdout": "hello world\n5\n20\n",
            "stderr": "only line\n",
        })));
        pane.add(row);
        let details = text_of(pane.detail_lines(40, &dark));
        for line in ["hello world", "5", "20", "only line"] {
            assert!(
                details.lines().any(|l| l == line),
                "{line:?} missing:\n{details}"
            );
        }
    }
}
