//! Layout and drawing. Wide terminals (100+ columns) show the chat beside a column of tool
//! calls over the selected call's diff or output; narrow ones show one pane at a time with
//! tabs (Tab switches). Each frame first brings caches up to date for the current sizes
//! (`&mut`), then draws from them.

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};

use super::app::{App, Focus};
use super::areas::Areas;
use super::wrap::{StyledLine, wrap};

/// Terminals narrower than this show one pane at a time.
pub const WIDE: u16 = 100;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Shown {
    Chat,
    Tools,
    Details,
}

impl App {
    fn shown(&self) -> Shown {
        match self.focus {
            Focus::Tools => Shown::Tools,
            Focus::Details => Shown::Details,
            _ => Shown::Chat,
        }
    }

    fn compute_areas(&self, area: Rect) -> Areas {
        let status = Rect::new(
            area.x,
            area.y + area.height.saturating_sub(1),
            area.width,
            1.min(area.height),
        );
        let inner_w = area.width.saturating_sub(2);
        let composer_rows = self.composer.rows(inner_w).clamp(1, 8) as u16;
        let composer_h = (composer_rows + 2).min(area.height.saturating_sub(1));
        let composer = Rect::new(
            area.x,
            status.y.saturating_sub(composer_h),
            area.width,
            composer_h,
        );
        let main = Rect::new(
            area.x,
            area.y,
            area.width,
            composer.y.saturating_sub(area.y),
        );
        if area.width >= WIDE {
            let chat_w = main.width * 58 / 100;
            let chat = Rect::new(main.x, main.y, chat_w, main.height);
            let right = Rect::new(main.x + chat_w, main.y, main.width - chat_w, main.height);
            let tools_h = (right.height * 35 / 100).max(3.min(right.height));
            let tools = Rect::new(right.x, right.y, right.width, tools_h);
            let details = Rect::new(
                right.x,
                right.y + tools_h,
                right.width,
                right.height - tools_h,
            );
            Areas {
                chat,
                tools,
                details,
                composer,
                status,
                narrow: false,
                details_rows: details.height.saturating_sub(2),
            }
        } else {
            let body = Rect::new(
                main.x,
                main.y + 1.min(main.height),
                main.width,
                main.height.saturating_sub(1),
            );
            let empty = Rect::new(0, 0, 0, 0);
            let (chat, tools, details) = match self.shown() {
                Shown::Chat => (body, empty, empty),
                Shown::Tools => (empty, body, empty),
                Shown::Details => (empty, empty, body),
            };
            Areas {
                chat,
                tools,
                details,
                composer,
                status,
                narrow: true,
                details_rows: details.height.saturating_sub(2),
            }
        }
    }

    /// A pane's frame. An unfocused pane's title is words to read, so it is drawn in the
    /// dim text colour, not the border's (which only needs to show a line).
    fn block(&self, title: String, focused: bool) -> Block<'static> {
        let (color, title_style) = if focused {
            let c = self.theme.border_focus;
            (c, Style::default().fg(c).add_modifier(Modifier::BOLD))
        } else {
            (self.theme.border, Style::default().fg(self.theme.dim))
        };
        Block::default()
            .borders(Borders::ALL)
            .border_style(Style::default().fg(color))
            .title(Span::styled(format!(" {title} "), title_style))
    }

    fn details_title(&self) -> String {
        if self.diff_visible() {
            if self.details.reviewing() {
                format!("Review the change · {}", self.details.view.summary())
            } else {
                format!(
                    "Diff {} · {}",
                    self.details.view.path,
                    self.details.view.summary()
                )
            }
        } else {
            match self.tools.current() {
                Some(row) => format!("Output {}", row.name),
                None => "Details".into(),
            }
        }
    }

    /// Draw a frame.
    pub fn draw(&mut self, frame: &mut Frame<'_>) {
        self.take_listing();
        let area = frame.area();
        let areas = self.compute_areas(area);
        self.layout = areas;
        // Bring caches up to date.
        let chat_in = inner(areas.chat);
        self.transcript
            .prepare(chat_in.width.max(1), chat_in.height);
        if self.diff_visible() {
            self.sync_details();
            let det_in = inner(areas.details);
            self.details.view.prepare(det_in.width.max(1), &self.theme);
        }
        let buf = frame.buffer_mut();
        self.render_panes(&areas, buf);
        let cursor = self.render_composer(areas.composer, buf);
        self.render_status(areas.status, buf);
        self.render_slash_popup(areas.composer, buf);
        let waits = self.question_waits() || self.typeahead_window();
        let front = self.layers.len().saturating_sub(1);
        // A question stands above the message box, not over it: the person may be typing
        // there while it waits (a row is left for the blank around the box). On a tiny
        // screen it takes what there is: the command it asks about must show.
        let above = areas.composer.y.saturating_sub(area.y + 1);
        let question_room = if above >= 12 {
            Rect::new(area.x, area.y, area.width, above)
        } else {
            area
        };
        for (i, layer) in self.layers.iter().enumerate() {
            let room = if layer.is_question() {
                question_room
            } else {
                area
            };
            if i == front && waits {
                layer.render_waiting(room, buf, &self.theme);
            } else {
                layer.render(room, buf, &self.theme);
            }
        }
        let layer_cursor = self.layers.last().and_then(|l| l.cursor(area));
        match (self.layers.last(), layer_cursor) {
            (Some(_), Some(pos)) => frame.set_cursor_position(pos),
            _ if self.composer_has_keys() => frame.set_cursor_position(cursor),
            _ => {}
        }
    }

    fn render_panes(&mut self, areas: &Areas, buf: &mut Buffer) {
        if areas.narrow {
            self.render_pane_tabs(areas, buf);
        }
        if areas.chat.width > 0 {
            let title = if self.transcript.following() {
                "Chat".to_string()
            } else {
                "Chat (scrolled)".to_string()
            };
            self.block(
                title,
                matches!(self.focus, Focus::Chat | Focus::Composer) && !areas.narrow
                    || self.focus == Focus::Chat,
            )
            .render(areas.chat, buf);
            let chat_in = inner(areas.chat);
            if self.transcript.is_empty() && self.transcript.flushed() == 0 {
                self.render_welcome(chat_in, buf);
            } else {
                self.transcript.render(chat_in, buf);
            }
        }
        if areas.tools.width > 0 {
            let n = self.tools.rows.len();
            self.block(format!("Tools ({n})"), self.focus == Focus::Tools)
                .render(areas.tools, buf);
            self.tools.render_list(
                inner(areas.tools),
                buf,
                &self.theme,
                self.now,
                self.focus == Focus::Tools,
            );
        }
        if areas.details.width > 0 {
            self.render_details(areas.details, buf);
        }
    }

    /// The narrow layout's tabs naming the pane shown, above it.
    fn render_pane_tabs(&self, areas: &Areas, buf: &mut Buffer) {
        let shown = self.shown();
        let mut spans = Vec::new();
        for (name, s) in [
            ("Chat", Shown::Chat),
            ("Tools", Shown::Tools),
            ("Details", Shown::Details),
        ] {
            let style = if s == shown {
                Style::default()
                    .fg(self.theme.status.fg)
                    .bg(self.theme.status.bg)
                    .add_modifier(Modifier::BOLD)
            } else {
                Style::default().fg(self.theme.dim)
            };
            spans.push(Span::styled(format!(" {name} "), style));
            spans.push(Span::raw(" "));
        }
        spans.push(Span::styled(
            "Tab switches",
            Style::default().fg(self.theme.dim),
        ));
        let y = areas
            .chat
            .y
            .max(areas.tools.y)
            .max(areas.details.y)
            .saturating_sub(1);
        buf.set_line(areas.status.x, y, &Line::from(spans), areas.status.width);
    }

    /// The details pane: the change under review with its keys, the selected call's diff,
    /// or its arguments and output.
    fn render_details(&mut self, area: Rect, buf: &mut Buffer) {
        let title = self.details_title();
        let focused = self.focus == Focus::Details;
        let mut block = self.block(title, focused);
        if self.details.reviewing() {
            block = block.border_style(Style::default().fg(self.theme.warning));
        }
        block.render(area, buf);
        let det_in = inner(area);
        if self.diff_visible() && self.details.reviewing() {
            // The review's keys are always drawn inside it, whatever the width.
            let keys = super::layers::review_keys::key_line(
                det_in.width,
                &self.theme,
                !self.details.view.sections.is_empty(),
            );
            let rows = (keys.len() as u16).min(det_in.height);
            let diff_area = Rect::new(det_in.x, det_in.y, det_in.width, det_in.height - rows);
            self.layout.details_rows = diff_area.height;
            self.details.view.viewport = diff_area.height as usize;
            self.details.view.render(diff_area, buf, &self.theme);
            for (i, l) in keys.iter().take(rows as usize).enumerate() {
                buf.set_line(det_in.x, diff_area.bottom() + i as u16, l, det_in.width);
            }
        } else if self.diff_visible() {
            self.details.view.viewport = det_in.height as usize;
            self.details.view.render(det_in, buf, &self.theme);
        } else {
            let lines = self
                .tools
                .detail_window(det_in.width.max(1), det_in.height, &self.theme);
            if lines.is_empty() {
                buf.set_stringn(
                    det_in.x,
                    det_in.y,
                    "select a tool call to see its details",
                    det_in.width as usize,
                    Style::default().fg(self.theme.dim),
                );
            }
            for (y, l) in (det_in.y..det_in.bottom()).zip(lines) {
                buf.set_line(det_in.x, y, l, det_in.width);
            }
        }
    }

    fn render_welcome(&self, area: Rect, buf: &mut Buffer) {
        let t = &self.theme;
        let mut lines: Vec<StyledLine> = vec![
            StyledLine::plain(
                "Loom",
                Style::default().fg(t.accent).add_modifier(Modifier::BOLD),
            ),
            StyledLine::plain(
                "Ask for a change. Loom reads, searches and runs commands, and proposes edits you review as diffs before they are written.",
                Style::default().fg(t.text),
            ),
            StyledLine::blank(),
        ];
        if let Some(message) = &self.provider.welcome {
            for l in message.lines() {
                lines.push(StyledLine::plain(
                    l.to_string(),
                    Style::default().fg(t.warning),
                ));
            }
            lines.push(StyledLine::blank());
        } else {
            lines.push(StyledLine::plain(
                format!("model {}", self.status.model),
                Style::default().fg(t.dim),
            ));
        }
        lines.push(StyledLine::plain(
            format!("workspace {}", self.status.workspace),
            Style::default().fg(t.dim),
        ));
        lines.push(StyledLine::plain(
            "/help lists commands and keys",
            Style::default().fg(t.dim),
        ));
        let wrapped: Vec<Line<'static>> = lines
            .iter()
            .flat_map(|l| wrap(l, area.width.max(1)))
            .collect();
        for (i, l) in wrapped.iter().take(area.height as usize).enumerate() {
            buf.set_line(area.x, area.y + i as u16, l, area.width);
        }
    }

    /// Whether typing goes to the message box now.
    fn composer_has_keys(&self) -> bool {
        self.focus == Focus::Composer && (self.layers.is_empty() || self.question_waits())
    }

    fn render_composer(&self, area: Rect, buf: &mut Buffer) -> Position {
        let focused = self.composer_has_keys();
        let title = if self.question_waits() {
            "Message (a question waits for your answer: Tab answers it)"
        } else if self.details.reviewing() {
            "Message (a change waits for your review: Tab returns to it)"
        } else if self.busy() {
            "Message (queued until the turn ends)"
        } else {
            "Message"
        };
        let mut title = title.to_string();
        for a in &self.draft.attachments {
            title.push_str(" · ⎘ ");
            title.push_str(&a.chip());
        }
        let block = self.block(title, focused);
        let inner = block.inner(area);
        block.render(area, buf);
        let placeholder = if self.busy() {
            "Esc stops the agent"
        } else {
            "Ask Loom to change something… (Enter sends, Shift+Enter newline)"
        };
        self.composer.render(
            inner,
            buf,
            Style::default().fg(self.theme.text),
            Some((placeholder, Style::default().fg(self.theme.dim))),
        )
    }
}

/// The inside of a bordered pane.
fn inner(r: Rect) -> Rect {
    Rect::new(
        r.x + 1,
        r.y + 1,
        r.width.saturating_sub(2),
        r.height.saturating_sub(2),
    )
}
