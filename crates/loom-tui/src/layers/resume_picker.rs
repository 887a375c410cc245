//! The resume picker (`loom --resume`, `/resume`): the sessions to go back to, newest first,
//! each with its title, age, and message and change counts; typing filters them (fuzzily, on
//! the title and the id), `↑`/`↓` choose, `Enter` opens, `Esc` closes (at start: a new
//! session). The list is read off the UI thread (a session file can be large) and arrives
//! while the box is up.

use std::sync::mpsc::Receiver;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::*;
use crate::wrap::{truncate, width};

/// One session in the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionItem {
    /// Its id.
    pub id: String,
    /// Its title (the first prompt, shortened).
    pub title: String,
    /// How long ago it was last written ("5m ago").
    pub age: String,
    /// Messages in its conversation.
    pub messages: usize,
    /// Changes Loom made in it.
    pub changes: usize,
    /// Its workspace, when the list is of every workspace (none here has one).
    pub workspace: Option<String>,
}

/// The picker.
pub struct ResumePicker {
    /// The sessions, once read.
    items: Option<Vec<SessionItem>>,
    /// Where they arrive from.
    pending: Option<Receiver<Vec<SessionItem>>>,
    query: String,
    /// Index into the filtered list.
    selected: usize,
    /// Opened at start (`loom --resume`): Esc starts a new session instead of closing.
    at_start: bool,
    /// The list rows the last drawing showed (a page key moves by that many).
    rows: std::cell::Cell<usize>,
}

impl ResumePicker {
    /// A picker whose sessions arrive on `pending`; `at_start` when Loom opened with it.
    pub fn new(pending: Receiver<Vec<SessionItem>>, at_start: bool) -> ResumePicker {
        ResumePicker {
            items: None,
            pending: Some(pending),
            query: String::new(),
            selected: 0,
            at_start,
            rows: std::cell::Cell::new(1),
        }
    }

    /// A picker over sessions already read.
    pub fn with_items(items: Vec<SessionItem>, at_start: bool) -> ResumePicker {
        ResumePicker {
            items: Some(items),
            pending: None,
            query: String::new(),
            selected: 0,
            at_start,
            rows: std::cell::Cell::new(1),
        }
    }

    /// The sessions that fit the filter, best first (newest first with no filter).
    fn shown(&self) -> Vec<&SessionItem> {
        let Some(items) = &self.items else {
            return Vec::new();
        };
        if self.query.is_empty() {
            return items.iter().collect();
        }
        let mut scored: Vec<(i64, usize, &SessionItem)> = items
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                let title = crate::fuzzy::score(&self.query, &s.title);
                let id = crate::fuzzy::score(&self.query, &s.id).map(|v| v - 1000);
                title.max(id).map(|score| (score, i, s))
            })
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        scored.into_iter().map(|(_, _, s)| s).collect()
    }

    fn leave(&self) -> Outcome {
        if self.at_start {
            Outcome::close(vec![Action::Resume(None)])
        } else {
            Outcome::close(Vec::new())
        }
    }
}

impl Layer for ResumePicker {
    fn handle_key(&mut self, key: KeyEvent) -> Outcome {
        let n = self.shown().len();
        match key.code {
            KeyCode::Up => {
                self.selected = self.selected.saturating_sub(1);
                Outcome::consumed()
            }
            KeyCode::Down => {
                self.selected = (self.selected + 1).min(n.saturating_sub(1));
                Outcome::consumed()
            }
            KeyCode::PageUp => {
                self.selected = self.selected.saturating_sub(self.rows.get());
                Outcome::consumed()
            }
            KeyCode::PageDown => {
                self.selected = (self.selected + self.rows.get()).min(n.saturating_sub(1));
                Outcome::consumed()
            }
            KeyCode::Enter => match self.shown().get(self.selected) {
                Some(s) => Outcome::close(vec![Action::Resume(Some(s.id.clone()))]),
                None => Outcome::consumed(),
            },
            KeyCode::Esc => self.leave(),
            KeyCode::Backspace => {
                self.query.pop();
                self.selected = 0;
                Outcome::consumed()
            }
            _ if key.modifiers.contains(KeyModifiers::CONTROL) => Outcome::default(),
            KeyCode::Char(c) => {
                self.query.push(c);
                self.selected = 0;
                Outcome::consumed()
            }
            _ => Outcome::consumed(),
        }
    }

    fn paste(&mut self, text: &str) -> bool {
        self.query
            .extend(text.chars().filter(|c| !c.is_control()).take(200));
        self.selected = 0;
        true
    }

    fn tick(&mut self) {
        if let Some(rx) = &self.pending {
            match rx.try_recv() {
                Ok(items) => {
                    self.items = Some(items);
                    self.pending = None;
                }
                Err(std::sync::mpsc::TryRecvError::Empty) => {}
                Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                    self.items = Some(Vec::new());
                    self.pending = None;
                }
            }
        }
    }

    fn waiting(&self) -> bool {
        self.pending.is_some()
    }

    fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let box_w = area.width.saturating_sub(4).clamp(20, 110).min(area.width);
        let rows_room = area.height.saturating_sub(7) as usize;
        let shown = self.shown();
        let list_rows = shown.len().clamp(1, rows_room.max(1));
        let rect = centered(area, box_w, list_rows as u16 + 5);
        let inner = frame(rect, buf, "Resume a session", theme.accent);
        let text = Style::default().fg(theme.text);
        let dim = Style::default().fg(theme.dim);
        // The filter line.
        let filter = Line::from(vec![
            Span::styled("filter ", dim),
            Span::styled(self.query.clone(), text.add_modifier(Modifier::BOLD)),
            Span::styled("▏", Style::default().fg(theme.accent)),
        ]);
        buf.set_line(inner.x, inner.y, &filter, inner.width);
        let list = Rect::new(
            inner.x,
            inner.y + 2,
            inner.width,
            inner.height.saturating_sub(3),
        );
        let empty = match (&self.items, shown.is_empty()) {
            (None, _) => Some("reading the sessions…".to_string()),
            (Some(all), true) if all.is_empty() => Some(if self.at_start {
                "no sessions to resume yet: Esc starts a new one".to_string()
            } else {
                "no other sessions yet".to_string()
            }),
            (Some(_), true) => Some(format!("no session matches {:?}", self.query)),
            _ => None,
        };
        if let Some(message) = empty {
            buf.set_stringn(list.x, list.y, message, list.width as usize, dim);
        }
        self.rows.set((list.height as usize).max(1));
        let first = self
            .selected
            .saturating_sub((list.height as usize).saturating_sub(1));
        let w = list.width as usize;
        for (row, (i, s)) in shown
            .iter()
            .enumerate()
            .skip(first)
            .take(list.height as usize)
            .enumerate()
        {
            let on = i == self.selected;
            let line = item_line(s, on, w, theme);
            buf.set_line(list.x, list.y + row as u16, &line, list.width);
        }
        let esc = if self.at_start {
            "Esc new session"
        } else {
            "Esc closes"
        };
        let keys = if inner.width >= 60 {
            format!("type to filter · ↑↓ choose · Enter opens · {esc}")
        } else {
            format!("type · ↑↓ · Enter opens · {esc}")
        };
        footer(inner, buf, &keys, theme);
    }

    fn hints(&self) -> String {
        if self.at_start {
            "Enter opens · Esc new session".into()
        } else {
            "Enter opens · Esc closes".into()
        }
    }
}

/// Session `s`'s row, `w` wide: its title (and workspace) and, when there is room, its
/// age and counts; highlighted when `on`.
fn item_line(s: &SessionItem, on: bool, w: usize, theme: &Theme) -> Line<'static> {
    let text = Style::default().fg(theme.text);
    let dim = Style::default().fg(theme.dim);
    let counts = format!(
        "{:>9}  {:>4} msg{}  {:>3} change{}",
        s.age,
        s.messages,
        if s.messages == 1 { " " } else { "s" },
        s.changes,
        if s.changes == 1 { " " } else { "s" },
    );
    // On a narrow screen the counts give way to the title.
    let counts = if w >= 60 {
        counts
    } else {
        format!("{:>9}", s.age)
    };
    let mut title = s.title.clone();
    if let Some(ws) = &s.workspace {
        title.push_str(&format!("  ({ws})"));
    }
    let title_w = w.saturating_sub(width(&counts) + 4);
    let title = truncate(&title, title_w);
    let pad = title_w.saturating_sub(width(&title));
    let (main, side) = if on {
        let sel = Style::default()
            .fg(theme.status.fg)
            .bg(theme.status.bg)
            .add_modifier(Modifier::BOLD);
        (sel, sel)
    } else {
        (text, dim)
    };
    Line::from(vec![
        Span::styled(if on { "› " } else { "  " }, main),
        Span::styled(format!("{title}{}", " ".repeat(pad)), main),
        Span::styled(format!("  {counts}"), side),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: &str, title: &str) -> SessionItem {
        SessionItem {
            id: id.into(),
            title: title.into(),
            age: "5m ago".into(),
            messages: 4,
            changes: 1,
            workspace: None,
        }
    }

    fn key(p: &mut ResumePicker, code: KeyCode) -> Outcome {
        p.handle_key(KeyEvent::from(code))
    }

    #[test]
    fn typing_filters_and_enter_opens_the_chosen_one() {
        let mut p = ResumePicker::with_items(
            vec![
                item("20260101-1", "fix the parser"),
                item("20260101-2", "add a flag"),
                item("20260101-3", "fix the printer"),
            ],
            false,
        );
        for c in "printr".chars() {
            key(&mut p, KeyCode::Char(c));
        }
        assert_eq!(p.shown()[0].id, "20260101-3");
        let o = key(&mut p, KeyCode::Enter);
        assert_eq!(o.actions, vec![Action::Resume(Some("20260101-3".into()))]);
        let mut p = ResumePicker::with_items(vec![item("a", "one"), item("b", "two")], false);
        key(&mut p, KeyCode::Down);
        key(&mut p, KeyCode::Down);
        let o = key(&mut p, KeyCode::Enter);
        assert_eq!(o.actions, vec![Action::Resume(Some("b".into()))]);
        assert_eq!(key(&mut p, KeyCode::Esc).actions, vec![]);
    }

    #[test]
    fn esc_at_start_begins_a_new_session_and_nothing_matching_opens_nothing() {
        let mut p = ResumePicker::with_items(vec![item("a", "one")], true);
        key(&mut p, KeyCode::Char('z'));
        assert!(p.shown().is_empty());
        assert!(key(&mut p, KeyCode::Enter).actions.is_empty());
        assert_eq!(
            key(&mut p, KeyCode::Esc).actions,
            vec![Action::Resume(None)]
        );
    }

    #[test]
    fn the_list_arrives_while_the_box_is_up() {
        let (tx, rx) = std::sync::mpsc::channel();
        let mut p = ResumePicker::new(rx, false);
        assert!(p.waiting() && p.shown().is_empty());
        tx.send(vec![item("a", "one")]).unwrap();
        p.tick();
        assert!(!p.waiting());
        assert_eq!(p.shown().len(), 1);
    }
}
