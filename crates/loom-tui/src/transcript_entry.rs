//! What one chat entry holds and how it is drawn. An entry keeps only what it needs to be
//! drawn again: short texts inline, a resumed message as its place in the session file
//! (read back when it comes into view), and a rough size from which its height is
//! estimated until it is rendered.

use rustc_hash::FxHashMap;

use ratatui::style::{Modifier, Style};
use ratatui::text::Span;

use super::command_output::{CommandOutput, PREVIEW_LINES};
use super::markdown::MarkdownStream;
use super::theme::Theme;
use super::wrap::StyledLine;
use crate::protocol::message::Message;
use crate::protocol::stored::{MessageAt, SessionFile};

/// How serious a notice is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeLevel {
    /// Information.
    Info,
    /// A retry or warning.
    Warning,
    /// An error.
    Error,
}

/// A tool call's status as the chat line shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolMark {
    /// Icon (✓, ✗, spinner, …).
    pub icon: String,
    /// Its style.
    pub style: Style,
}

/// A message's text: kept, or where to read it in the session file.
pub(super) enum Text {
    /// Said in this run (or not in the file): kept.
    Inline(String),
    /// A resumed message: read from the session file when needed.
    Stored(MessageAt),
}

/// What an entry is.
pub(super) enum Kind {
    /// A message from the person.
    User(Text),
    /// A finished answer (markdown).
    Answer(Text),
    /// The answer being streamed (its text is in the transcript's live state).
    Streaming,
    /// Reasoning text.
    Reasoning(String),
    /// A notice line, and how far the wrapped part of each line after its first is
    /// indented beyond the notice's own margin (the `/status` card's rows hang after their
    /// labels; 0 for other notices).
    Notice(NoticeLevel, String, usize),
    /// A tool call's row.
    Tool {
        /// The call id.
        id: String,
        /// Its one-line summary.
        summary: String,
    },
    /// The model's plan (updated in place while its turn lasts).
    Plan(crate::protocol::plan::Plan),
}

/// The rough size of a text: lines and characters, for estimating its height.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Shape {
    lines: u32,
    chars: u32,
}

impl Shape {
    /// The shape of `text`.
    pub fn of(text: &str) -> Shape {
        let mut s = Shape::default();
        s.add(text);
        s
    }

    /// Its newlines (a text's lines, less one).
    pub fn lines(&self) -> u32 {
        self.lines
    }

    /// `text` was appended.
    pub fn add(&mut self, text: &str) {
        let newlines = text.bytes().filter(|b| *b == b'\n').count();
        self.lines = self.lines.saturating_add(newlines as u32);
        self.chars = self.chars.saturating_add(text.len() as u32);
    }
}

/// One chat entry.
pub(super) struct Entry {
    /// What it is.
    pub kind: Kind,
    /// Its text's rough size.
    pub shape: Shape,
}

impl Entry {
    /// A new entry whose text has `shape`.
    pub fn new(kind: Kind, shape: Shape) -> Entry {
        Entry { kind, shape }
    }

    /// Its height at `width` (with the blank line after it), guessed from its shape:
    /// one line per line of text plus what long lines wrap to, and a few for the frames
    /// of code blocks.
    pub fn estimate(&self, width: u16, outputs: &Outputs) -> u32 {
        let width = u32::from(width.max(8)) - 2;
        let text = self.shape.lines + 1 + self.shape.chars / width;
        let body = match &self.kind {
            Kind::Tool { id, .. } => {
                1 + outputs.map.get(id).map_or(0, |o| {
                    let shown = if outputs.expanded {
                        o.total().min(super::command_output::KEPT_LINES)
                    } else {
                        o.total().min(PREVIEW_LINES)
                    };
                    shown as u32 + 1
                })
            }
            Kind::Answer(_) | Kind::Streaming => text + self.shape.lines / 8,
            Kind::Plan(plan) => plan.steps.len() as u32 + 2,
            _ => text,
        };
        body + 1
    }
}

/// Finished commands' output under their rows, and whether shown whole (Ctrl+O).
#[derive(Default)]
pub(super) struct Outputs {
    /// By call id.
    pub map: FxHashMap<String, CommandOutput>,
    /// Shown whole.
    pub expanded: bool,
}

/// What drawing an entry needs besides the entry.
pub(super) struct Context<'a> {
    pub theme: &'a Theme,
    pub marks: &'a FxHashMap<String, ToolMark>,
    pub outputs: &'a Outputs,
    pub store: Option<&'a SessionFile>,
}

impl Context<'_> {
    /// The text of `text`, read from the session file when stored. A message that cannot
    /// be read back is shown as a line saying so (the file was moved or cut).
    pub fn text(&self, text: &Text, user: bool) -> String {
        let at = match text {
            Text::Inline(s) => return s.clone(),
            Text::Stored(at) => *at,
        };
        let Some(file) = self.store else {
            return "(this message is in the session file, which is not open)".into();
        };
        match file.read(at) {
            Ok(Message::User { content, images }) if user => {
                crate::protocol::image::with_chips(&content, &images)
            }
            // An interrupted answer's mark is shown as the notice after it.
            Ok(Message::Assistant { content, .. }) if !user => {
                crate::protocol::message::split_interrupted(&content)
                    .0
                    .to_string()
            }
            Ok(_) => "(the session file changed under this message: resume it again)".into(),
            Err(e) => format!(
                "(cannot read this message back from the session file: {e}; resume it again)"
            ),
        }
    }

    /// The entry's logical lines (before wrapping). The streaming answer has none here.
    pub fn lines(&self, kind: &Kind) -> Vec<StyledLine> {
        let t = self.theme;
        match kind {
            Kind::User(text) => self.user_lines(text),
            Kind::Answer(text) => MarkdownStream::render(&self.text(text, false), t),
            Kind::Streaming => Vec::new(),
            Kind::Reasoning(text) => {
                let style = Style::default().fg(t.dim).add_modifier(Modifier::ITALIC);
                text.lines()
                    .map(|l| StyledLine {
                        spans: vec![
                            Span::styled("┆ ", style),
                            Span::styled(l.to_string(), style),
                        ],
                        continuation: vec![Span::styled("┆ ", style)],
                        fill: None,
                    })
                    .collect()
            }
            Kind::Notice(level, text, hang) => {
                let (icon, color) = match level {
                    NoticeLevel::Info => ("ℹ ", t.dim),
                    NoticeLevel::Warning => ("↻ ", t.warning),
                    NoticeLevel::Error => ("✗ ", t.error),
                };
                let style = Style::default().fg(color);
                let hanging = format!("  {}", " ".repeat(*hang));
                text.lines()
                    .enumerate()
                    .map(|(i, l)| StyledLine {
                        spans: vec![
                            Span::styled(if i == 0 { icon } else { "  " }, style),
                            Span::styled(l.to_string(), style),
                        ],
                        continuation: vec![Span::raw(if i == 0 {
                            "  ".to_string()
                        } else {
                            hanging.clone()
                        })],
                        fill: None,
                    })
                    .collect()
            }
            Kind::Tool { id, summary } => self.tool_lines(id, summary),
            Kind::Plan(plan) => super::plan_block::lines(plan, t),
        }
    }

    /// A message of the person's: its lines after a `›`, then its attachments' chips.
    fn user_lines(&self, text: &Text) -> Vec<StyledLine> {
        let t = self.theme;
        let text = self.text(text, true);
        let style = Style::default().fg(t.user).add_modifier(Modifier::BOLD);
        let (text, chips) = super::attachments::split(&text);
        let chip_style = Style::default().fg(t.accent);
        text.lines()
            .enumerate()
            .map(|(i, l)| StyledLine {
                spans: vec![
                    Span::styled(if i == 0 { "› " } else { "  " }, style),
                    Span::styled(l.to_string(), style),
                ],
                continuation: vec![Span::raw("  ")],
                fill: None,
            })
            .chain(chips.into_iter().map(|c| StyledLine {
                spans: vec![Span::raw("  "), Span::styled(format!("⎘ {c}"), chip_style)],
                continuation: vec![Span::raw("    ")],
                fill: None,
            }))
            .collect()
    }

    /// A tool call's line (its status mark and summary), with a command's output under it.
    fn tool_lines(&self, id: &str, summary: &str) -> Vec<StyledLine> {
        let t = self.theme;
        let mark = self.marks.get(id).cloned().unwrap_or(ToolMark {
            icon: "○".into(),
            style: Style::default().fg(t.dim),
        });
        let output = self
            .outputs
            .map
            .get(id)
            .map(|o| o.rows(self.outputs.expanded, t));
        std::iter::once(StyledLine {
            spans: vec![
                Span::styled(format!("  {} ", mark.icon), mark.style),
                Span::styled(summary.to_string(), Style::default().fg(t.dim)),
            ],
            continuation: vec![Span::raw("    ")],
            fill: None,
        })
        .chain(output.into_iter().flatten())
        .collect()
    }

    /// The clean text of an entry: what was said, not how it was drawn.
    pub fn clean(&self, kind: &Kind) -> String {
        match kind {
            Kind::User(text) => super::attachments::split(&self.text(text, true))
                .0
                .trim_end()
                .to_string(),
            Kind::Answer(text) => self.text(text, false).trim_end().to_string(),
            Kind::Streaming => String::new(),
            Kind::Reasoning(text) | Kind::Notice(_, text, _) => text.trim_end().to_string(),
            Kind::Tool { summary, .. } => summary.clone(),
            Kind::Plan(plan) => super::plan_block::clean(plan),
        }
    }
}
