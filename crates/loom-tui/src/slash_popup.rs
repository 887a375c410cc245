//! The slash popup: while the message box holds the start of a `/command`, the commands
//! that fit (with their one-line help) or their argument values are listed just above it,
//! one highlighted; `Up`/`Down` move, `Tab` completes, `Enter` runs the highlighted one when
//! what is typed is no command yet. The suggestions come from the registry (`slash.rs`).
//! The same popup lists workspace files for an `@` mention (`mention.rs`).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};

use super::app::{App, Focus};
use super::history_search::HistorySearch;
use super::slash::{Suggestion, suggestions};
use super::wrap::truncate;

/// Most lines the popup shows at once (it scrolls to keep the highlighted one in view).
const ROWS: usize = 8;

impl App {
    /// The popup's lines, when it is open: the message box has focus, no modal is open and
    /// its text is the start of a slash command that something fits, or the word at the
    /// cursor is an `@` mention (then the workspace files that fit, see `mention.rs`).
    pub(crate) fn popup_items(&self) -> Vec<Suggestion> {
        if self.focus != Focus::Composer || !self.layers.is_empty() {
            return Vec::new();
        }
        if let Some(search) = &self.draft.search {
            return search_lines(search);
        }
        if let Some(query) = self.mention_query() {
            return self.mention_suggestions(&query);
        }
        let text = self.composer.text();
        if !text.starts_with('/') || text.starts_with("//") {
            return Vec::new();
        }
        suggestions(self, &text)
    }

    /// The highlighted suggestion, if the popup is open.
    pub(crate) fn popup_choice(&self) -> Option<Suggestion> {
        let all = self.popup_items();
        let i = self.draft.popup_selected.min(all.len().checked_sub(1)?);
        all.into_iter().nth(i)
    }

    /// Move the highlight by `delta` (wrapping); false when the popup is closed.
    pub(crate) fn popup_move(&mut self, delta: isize) -> bool {
        let n = self.popup_items().len();
        if n == 0 {
            return false;
        }
        let i = self.draft.popup_selected.min(n - 1) as isize + delta;
        self.draft.popup_selected = i.rem_euclid(n as isize) as usize;
        true
    }

    /// Draw the popup just above the message box at `composer`.
    pub(crate) fn render_slash_popup(&self, composer: Rect, buf: &mut Buffer) {
        let items = self.popup_items();
        if items.is_empty() {
            return;
        }
        let t = &self.theme;
        let shown = items.len().min(ROWS);
        let height = (shown as u16 + 2).min(composer.y);
        if height < 3 {
            return;
        }
        let area = Rect::new(composer.x, composer.y - height, composer.width, height);
        Clear.render(area, buf);
        let what = if let Some(search) = &self.draft.search {
            search.title()
        } else if self.mention_query().is_some() {
            "files · ↑↓ choose · Tab or Enter attaches".into()
        } else {
            "commands · ↑↓ choose · Tab completes".into()
        };
        let title = if items.len() > shown {
            format!(" {} {what} ", items.len())
        } else {
            format!(" {what} ")
        };
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(Style::default().fg(t.border_focus))
            .title(Span::styled(title, Style::default().fg(t.dim)));
        let inner = block.inner(area);
        block.render(area, buf);
        let selected = self.draft.popup_selected.min(items.len() - 1);
        let rows = inner.height as usize;
        let first = selected.saturating_sub(rows.saturating_sub(1));
        let column = items
            .iter()
            .map(|s| super::wrap::width(&s.label))
            .max()
            .unwrap_or(0)
            .min(inner.width as usize / 2)
            + 2;
        for (row, (i, s)) in items.iter().enumerate().skip(first).take(rows).enumerate() {
            let (label_style, help_style) = if i == selected {
                let on = Style::default()
                    .fg(t.status.fg)
                    .bg(t.status.bg)
                    .add_modifier(Modifier::BOLD);
                (on, on.remove_modifier(Modifier::BOLD))
            } else {
                (
                    Style::default().fg(t.accent).add_modifier(Modifier::BOLD),
                    Style::default().fg(t.dim),
                )
            };
            let label = truncate(&s.label, column - 2);
            let pad = column - super::wrap::width(&label);
            let help_w = (inner.width as usize).saturating_sub(column);
            let text = format!("{label}{}", " ".repeat(pad));
            let help = truncate(&s.help, help_w);
            let fill = help_w.saturating_sub(super::wrap::width(&help));
            let line = Line::from(vec![
                Span::styled(text, label_style),
                Span::styled(format!("{help}{}", " ".repeat(fill)), help_style),
            ]);
            buf.set_line(inner.x, inner.y + row as u16, &line, inner.width);
        }
    }
}

/// The popup's lines for a reverse search: each match's first line (and whether it is from another
/// workspace), or one line saying nothing matches.
fn search_lines(search: &HistorySearch) -> Vec<Suggestion> {
    let all = search.matches();
    if all.is_empty() {
        return vec![Suggestion {
            line: String::new(),
            label: "no earlier prompt matches".into(),
            help: String::new(),
        }];
    }
    all.iter()
        .map(|p| {
            let mut lines = p.text.lines();
            let first = lines.next().unwrap_or("").to_string();
            let more = lines.next().is_some();
            Suggestion {
                line: p.text.clone(),
                label: if more { format!("{first} …") } else { first },
                help: if p.here { "" } else { "another workspace" }.into(),
            }
        })
        .collect()
}
