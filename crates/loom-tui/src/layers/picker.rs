//! A list to pick one line from (`/model` without a name: the server's models). `Up`/`Down`
//! (or `j`/`k`) move, `Enter` picks, `Esc` closes; what a pick does is the caller's
//! [`Action`], built from the picked value.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::*;
use crate::wrap::truncate;

/// One line of a picker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PickItem {
    /// The value a pick hands on.
    pub value: String,
    /// A note shown after it ("in use").
    pub note: String,
}

/// The picker layer.
pub struct Picker {
    title: String,
    items: Vec<PickItem>,
    selected: usize,
    on_pick: fn(String) -> Action,
}

impl Picker {
    /// A picker titled `title` over `items`, starting at `selected`; a pick becomes
    /// `on_pick(value)`.
    pub fn new(
        title: &str,
        items: Vec<PickItem>,
        selected: usize,
        on_pick: fn(String) -> Action,
    ) -> Picker {
        Picker {
            title: title.to_string(),
            selected: selected.min(items.len().saturating_sub(1)),
            items,
            on_pick,
        }
    }
}

impl Layer for Picker {
    fn handle_key(&mut self, key: KeyEvent) -> Outcome {
        let n = self.items.len().max(1);
        match key.code {
            KeyCode::Up | KeyCode::Char('k') => {
                self.selected = (self.selected + n - 1) % n;
                Outcome::consumed()
            }
            KeyCode::Down | KeyCode::Char('j') => {
                self.selected = (self.selected + 1) % n;
                Outcome::consumed()
            }
            KeyCode::Enter => match self.items.get(self.selected) {
                Some(item) => Outcome::close(vec![(self.on_pick)(item.value.clone())]),
                None => Outcome::close(Vec::new()),
            },
            KeyCode::Esc => Outcome::close(Vec::new()),
            _ if key.modifiers.contains(KeyModifiers::CONTROL) => Outcome::default(),
            _ => Outcome::consumed(),
        }
    }

    fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let widest = self
            .items
            .iter()
            .map(|i| crate::wrap::width(&i.value) + crate::wrap::width(&i.note) + 4)
            .max()
            .unwrap_or(0)
            .max(crate::wrap::width(&self.title) + 4)
            .max(40);
        let width = (widest as u16 + 2).min(area.width.saturating_sub(4));
        let rows = self
            .items
            .len()
            .min(area.height.saturating_sub(6) as usize)
            .max(1);
        let rect = centered(area, width, rows as u16 + 3);
        let inner = frame(rect, buf, &self.title, theme.accent);
        let list = body(inner);
        let first = self
            .selected
            .saturating_sub((list.height as usize).saturating_sub(1));
        let lines: Vec<Line<'static>> = self
            .items
            .iter()
            .enumerate()
            .skip(first)
            .take(list.height as usize)
            .map(|(i, item)| {
                let on = i == self.selected;
                let style = if on {
                    Style::default()
                        .fg(theme.status.fg)
                        .bg(theme.status.bg)
                        .add_modifier(Modifier::BOLD)
                } else {
                    Style::default().fg(theme.text)
                };
                let text = truncate(&item.value, list.width.saturating_sub(2) as usize);
                let mut spans = vec![Span::styled(
                    format!("{} {text}", if on { "›" } else { " " }),
                    style,
                )];
                if !item.note.is_empty() {
                    spans.push(Span::styled(
                        format!("  {}", item.note),
                        Style::default().fg(theme.dim),
                    ));
                }
                Line::from(spans)
            })
            .collect();
        draw_lines(&lines, list, buf);
        if self.items.is_empty() {
            buf.set_stringn(
                list.x,
                list.y,
                "nothing to pick",
                list.width as usize,
                Style::default().fg(theme.dim),
            );
        }
        footer(inner, buf, "↑↓ choose · Enter picks · Esc closes", theme);
    }

    fn hints(&self) -> String {
        "↑↓ choose · Enter picks · Esc closes".into()
    }
}
