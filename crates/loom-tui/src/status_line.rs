//! The status line: what the agent is doing, the model, tokens and context, the approval
//! mode, the sandbox, the MCP servers, the workspace and the keys that matter now, laid out by priority so
//! the parts a person must not miss survive any width.
//!
//! A long model id (llama-server reports the model file's path) once pushed the approval
//! mode and the sandbox off the line, and the approval keys fitted only at ~200 columns.
//! Now every part has a rank and shorter forms: when the line does not fit, the least
//! important part is shortened or dropped first. The activity, the approval mode, the
//! sandbox and, while Loom waits for an answer, its keys are never dropped.

use std::time::Instant;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::app::{App, Focus};
use super::tools_pane::ToolStatus;
use super::wrap::width;
use crate::protocol::events::Phase;

/// Between two parts.
const SEPARATOR: &str = " │ ";

// When room is short, the lowest rank goes first: a step to a shorter form, or a drop.
const RANK_DROP_WORKSPACE: u8 = 0;
const RANK_DROP_MCP: u8 = 15;
const RANK_MCP_SHORT: u8 = 12;
const RANK_MODEL_FILE: u8 = 5;
const RANK_HINT_SHORT: u8 = 11;
const RANK_CTX_SHORT: u8 = 20;
const RANK_DROP_TOKENS: u8 = 30;
const RANK_MODEL_TAIL: u8 = 35;
const RANK_DROP_CTX: u8 = 40;
const RANK_DROP_PLAN: u8 = 45;
const RANK_SANDBOX_BRIEF: u8 = 27;
const RANK_DROP_MODEL: u8 = 55;
const RANK_KEYS_COMPACT: u8 = 56;
const RANK_ACTIVITY: u8 = 70;

/// How much of a long model name its shortest form keeps (the end, where sizes and
/// quantisations are).
const MODEL_TAIL: usize = 18;

/// One part of the line: its forms, longest first, when each shorter form is taken, and
/// whether and when the part may be dropped.
struct Part {
    forms: Vec<String>,
    /// `steps[i]`: the rank of going from form `i` to form `i + 1`.
    steps: Vec<u8>,
    /// The rank of dropping it; `None`: never dropped.
    drop_rank: Option<u8>,
    style: Style,
    /// The form in use.
    form: usize,
    dropped: bool,
    /// Drawn at the right end.
    right: bool,
}

impl Part {
    fn new(forms: Vec<String>, steps: &[u8], drop_rank: Option<u8>, style: Style) -> Part {
        let steps = steps
            .iter()
            .copied()
            .take(forms.len().saturating_sub(1))
            .collect();
        Part {
            forms,
            steps,
            drop_rank,
            style,
            form: 0,
            dropped: false,
            right: false,
        }
    }

    fn text(&self) -> &str {
        &self.forms[self.form]
    }

    /// The rank of the next thing that can be done to it to save room.
    fn next_step(&self) -> Option<(u8, bool)> {
        if self.dropped {
            return None;
        }
        match self.steps.get(self.form) {
            Some(rank) => Some((*rank, false)),
            None => self.drop_rank.map(|r| (r, true)),
        }
    }
}

/// The width the parts take in their current forms.
fn total(parts: &[Part]) -> usize {
    let shown: Vec<&Part> = parts.iter().filter(|p| !p.dropped).collect();
    let text: usize = shown.iter().map(|p| width(p.text())).sum();
    // A margin at each end and around the activity, a separator between parts.
    text + 3 + width(SEPARATOR) * shown.len().saturating_sub(1)
}

/// Shorten or drop parts, lowest rank first, until the line fits in `room` columns (or
/// only what is never dropped remains, in its shortest form); then give back, most
/// important first, what still fits (a long hint shortened late may leave room for a part
/// dropped before it).
fn fit(parts: &mut [Part], room: usize) {
    let mut steps: Vec<(usize, bool)> = Vec::new();
    while total(parts) > room {
        let next = parts
            .iter()
            .enumerate()
            .filter_map(|(i, p)| p.next_step().map(|s| (s, i)))
            .min_by_key(|(s, _)| *s);
        match next {
            Some(((_, drop), i)) => {
                if drop {
                    parts[i].dropped = true;
                } else {
                    parts[i].form += 1;
                }
                steps.push((i, drop));
            }
            None => return,
        }
    }
    for (i, drop) in steps.into_iter().rev() {
        let undo = |p: &mut Part| {
            if drop {
                p.dropped = false;
            } else {
                p.form -= 1;
            }
        };
        let redo = |p: &mut Part| {
            if drop {
                p.dropped = true;
            } else {
                p.form += 1;
            }
        };
        undo(&mut parts[i]);
        if total(parts) > room {
            redo(&mut parts[i]);
        }
    }
}

/// The model id's shorter forms and the rank of each step to them: the last path
/// component (llama-server reports the model file's path), then the end of a long name
/// behind an ellipsis.
fn model_forms(model: &str) -> (Vec<String>, Vec<u8>) {
    let model = if model.is_empty() { "no model" } else { model };
    let mut forms = vec![model.to_string()];
    let mut steps = Vec::new();
    let last = model.rsplit('/').next().unwrap_or(model);
    if last != model && !last.is_empty() {
        forms.push(last.to_string());
        steps.push(RANK_MODEL_FILE);
    }
    let chars: Vec<char> = last.chars().collect();
    if chars.len() > MODEL_TAIL + 4 {
        let tail: String = chars[chars.len() - MODEL_TAIL..].iter().collect();
        forms.push(format!("…{tail}"));
        steps.push(RANK_MODEL_TAIL);
    }
    (forms, steps)
}

/// The sandbox in full and in brief.
fn sandbox_forms(label: &str) -> Vec<String> {
    let brief = match label {
        "workspace-write" => "sandboxed",
        "off" => "no sandbox",
        "unavailable" => "no sandbox!",
        other => other,
    };
    vec![format!("sandbox {label}"), brief.to_string()]
}

/// How full the context is, in five cells: `▰▰▱▱▱` is 40 % used.
fn gauge(used_pct: u64) -> String {
    let full = (used_pct.min(100) as usize * 5).div_ceil(100);
    format!("{}{}", "▰".repeat(full), "▱".repeat(5 - full))
}

/// Token counts the way people read them: 950, 1.2k, 32k.
fn tokens(n: u64) -> String {
    if n >= 10_000 {
        format!("{}k", n / 1000)
    } else if n >= 1000 {
        format!("{:.1}k", n as f64 / 1000.0)
    } else {
        n.to_string()
    }
}

/// A key hint's shortest form: the keys alone ("y run · n refuse · Esc stop" → "y/n/Esc").
fn compact_keys(hints: &str) -> String {
    hints
        .split(" · ")
        .filter_map(|part| part.split_whitespace().next())
        .collect::<Vec<_>>()
        .join("/")
}

impl App {
    /// The keys that matter now, and whether Loom is waiting for one of them (then they
    /// are never dropped). The second form is the compact one.
    fn key_hints(&self) -> (Vec<String>, bool) {
        if self.quit_pending() {
            return (vec!["Ctrl+C again to quit".into()], true);
        }
        if self.question_waits() || self.typeahead_window() {
            return (
                vec![
                    "Tab answers the question · Esc stop".into(),
                    "Tab: answer".into(),
                ],
                true,
            );
        }
        if let Some(layer) = self.layers.last() {
            let hints = layer.hints();
            let mut forms = vec![hints.clone()];
            if layer.is_question() {
                forms[0].push_str(" · Tab message box");
                forms.push(hints);
            }
            forms.push(compact_keys(&forms[forms.len() - 1]));
            return (forms, true);
        }
        if self.details.reviewing() {
            // In the message box the review's letters type; the way back is what matters.
            let forms: [&str; 3] = match self.focus {
                Focus::Composer => [
                    "Tab back to the review · Esc stop",
                    "Tab: review",
                    "Tab: review",
                ],
                _ => [
                    "y apply · n refuse · a always · ␣ hunk · j/k move · ⏎ apply selected · ? keys",
                    "y/n/a/␣/j/k/⏎ ? keys",
                    "y/n/a ?",
                ],
            };
            return (forms.map(String::from).to_vec(), true);
        }
        let forms: [&str; 2] = match self.focus {
            Focus::Composer if self.busy() => ["Esc stop · Enter queue · Tab panes", "Esc stop"],
            Focus::Composer if self.tools.shell_running() => {
                ["Esc stop the command · Enter send", "Esc stop"]
            }
            Focus::Composer => [
                "Enter send · Shift+Enter newline · Tab panes · /help",
                "/help",
            ],
            Focus::Chat => ["↑↓ PgUp/PgDn Home/End scroll · Tab next", "↑↓ scroll"],
            Focus::Tools => ["↑↓ select · Enter details · Tab next", "↑↓ select"],
            Focus::Details => ["↑↓ scroll · ← tools · Tab next", "↑↓ scroll"],
        };
        (forms.map(String::from).to_vec(), false)
    }

    /// The style of the activity badge: one readable pair for every state (the words and
    /// the mark say which), bold while Loom works or waits for the person.
    fn activity_style(&self) -> Style {
        let t = &self.theme;
        let badge = Style::default().fg(t.status.fg).bg(t.status.bg);
        match self.status.phase {
            Phase::Idle => badge,
            _ => badge.add_modifier(Modifier::BOLD),
        }
    }

    /// The tool calls running now, each with when it started.
    fn running_tools(&self) -> Vec<(&str, Instant)> {
        self.tools
            .rows
            .iter()
            .rev()
            .take(64)
            .filter_map(|r| match r.status {
                ToolStatus::Running(since) => Some((r.name.as_str(), since)),
                _ => None,
            })
            .collect()
    }

    /// Draw the status line into `area` (one row).
    pub(crate) fn render_status(&self, area: Rect, buf: &mut Buffer) {
        let t = &self.theme;
        let base = Style::default().fg(t.text).bg(t.selection_bg);
        let fill = Line::from(Span::styled(" ".repeat(area.width as usize), base));
        buf.set_line(area.x, area.y, &fill, area.width);
        let mut parts = self.turn_parts(base);
        parts.extend(self.setting_parts(base));
        fit(&mut parts, area.width as usize);
        self.draw_parts(&parts, area, buf, base);
    }

    /// The parts about the turn: the activity, the model, the tokens, the context left.
    fn turn_parts(&self, base: Style) -> Vec<Part> {
        let activity = self.progress.activity(self.now, &self.running_tools());
        let mut activity_forms = vec![activity.text()];
        if activity.elapsed.is_some() {
            activity_forms.push(format!("{} {}", activity.mark, activity.label));
        }
        if activity.short != activity.label {
            activity_forms.push(format!("{} {}", activity.mark, activity.short));
        }
        let u = &self.status.usage;
        let streaming = self.progress.streaming_tokens();
        let used = u.prompt_tokens + u.completion_tokens + streaming;
        // Marked as estimated while an answer streams, and for good once a figure the
        // server did not report (an interrupted request's, say) is in the sum.
        let estimate = if streaming > 0 || u.estimated {
            "~"
        } else {
            ""
        };
        // Ranks: what goes first when room is short (see the module's doc).
        let mut parts = vec![
            Part::new(
                activity_forms,
                &[RANK_ACTIVITY, RANK_ACTIVITY],
                None,
                self.activity_style(),
            ),
            {
                let (forms, steps) = model_forms(&self.status.model);
                Part::new(
                    forms,
                    &steps,
                    Some(RANK_DROP_MODEL),
                    base.add_modifier(Modifier::BOLD),
                )
            },
            Part::new(
                vec![format!("{estimate}{} tok", tokens(used))],
                &[],
                Some(RANK_DROP_TOKENS),
                base,
            ),
        ];
        if let Some(plan) = self.progress.plan().filter(|p| !p.steps.is_empty()) {
            parts.insert(
                1,
                Part::new(
                    vec![super::plan_block::progress(plan)],
                    &[],
                    Some(RANK_DROP_PLAN),
                    base.fg(self.theme.accent),
                ),
            );
        }
        if let Some(w) = self.status.context_window.filter(|w| *w > 0) {
            let left_pct = 100u64.saturating_sub(self.status.last_prompt.saturating_mul(100) / w);
            parts.push(Part::new(
                vec![
                    format!("ctx {} {left_pct}% left", gauge(100 - left_pct)),
                    format!("ctx {left_pct}% left"),
                    format!("ctx {left_pct}%"),
                ],
                &[RANK_CTX_SHORT, RANK_CTX_SHORT],
                Some(RANK_DROP_CTX),
                base,
            ));
        }
        parts
    }

    /// The parts about the settings and where Loom works: the approval mode, the sandbox,
    /// the MCP servers, the workspace and the keys.
    fn setting_parts(&self, base: Style) -> Vec<Part> {
        let t = &self.theme;
        let mut parts = Vec::new();
        let mode = match self.status.autonomy {
            crate::protocol::autonomy::Autonomy::Plan => "plan mode".to_string(),
            other => other.to_string(),
        };
        let mode_forms = if self.status.edits_allowed {
            vec![format!("{mode} · edits allowed"), format!("{mode}+edits")]
        } else {
            vec![mode]
        };
        parts.push(Part::new(
            mode_forms,
            &[RANK_SANDBOX_BRIEF],
            None,
            base.add_modifier(Modifier::BOLD),
        ));
        let sandbox_style = if self.status.sandbox == "unavailable" {
            base.fg(t.warning)
        } else {
            base
        };
        parts.push(Part::new(
            sandbox_forms(&self.status.sandbox),
            &[RANK_SANDBOX_BRIEF],
            None,
            sandbox_style,
        ));
        if let Some(mcp) = crate::protocol::mcp::summary(&self.status.mcp) {
            let style = if mcp.ends_with("failed") {
                base.fg(t.warning)
            } else {
                base
            };
            let short: String = mcp.split(' ').take(2).collect::<Vec<_>>().join(" ");
            parts.push(Part::new(
                vec![mcp, short],
                &[RANK_MCP_SHORT],
                Some(RANK_DROP_MCP),
                style,
            ));
        }
        if let Some(lsp) = crate::protocol::lsp::summary(&self.status.lsp) {
            let style = if lsp.starts_with("lsp 0E") || lsp == "lsp starting" {
                base
            } else {
                base.fg(t.warning)
            };
            parts.push(Part::new(vec![lsp], &[], Some(RANK_DROP_MCP), style));
        }
        parts.push(Part::new(
            vec![self.status.workspace.clone()],
            &[],
            Some(RANK_DROP_WORKSPACE),
            base.fg(t.dim),
        ));
        // The keys are never dropped (docs/using.md promises they always stay): they take
        // shorter forms instead, after the workspace and the MCP summary go; while Loom waits
        // for an answer they are the last thing shortened.
        let (hint_forms, waiting) = self.key_hints();
        let steps: &[u8] = if waiting {
            &[RANK_KEYS_COMPACT, RANK_KEYS_COMPACT]
        } else {
            &[RANK_HINT_SHORT]
        };
        let mut hint = Part::new(hint_forms, steps, None, base.fg(t.accent));
        hint.right = true;
        parts.push(hint);
        parts
    }

    /// Lay out the parts that fit: the left ones after one another, the keys at the right end.
    fn draw_parts(&self, parts: &[Part], area: Rect, buf: &mut Buffer, base: Style) {
        let t = &self.theme;
        let (left, right): (Vec<&Part>, Vec<&Part>) =
            parts.iter().filter(|p| !p.dropped).partition(|p| !p.right);
        let mut spans = vec![Span::styled(" ", base)];
        for (i, p) in left.iter().enumerate() {
            if i > 0 {
                spans.push(Span::styled(SEPARATOR, base.fg(t.dim)));
            }
            if i == 0 {
                // The activity carries its own colour, padded on both sides.
                spans.pop();
                spans.push(Span::styled(format!(" {} ", p.text()), p.style));
            } else {
                spans.push(Span::styled(p.text().to_string(), p.style));
            }
        }
        let used: usize = spans.iter().map(|s| s.width()).sum();
        if let Some(p) = right.first() {
            let room = (area.width as usize).saturating_sub(used);
            let pad = room.saturating_sub(width(p.text()) + 1).max(1);
            spans.push(Span::styled(" ".repeat(pad), base));
            spans.push(Span::styled(p.text().to_string(), p.style));
        }
        buf.set_line(area.x, area.y, &Line::from(spans), area.width);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_context_gauge_fills_by_fifths() {
        assert_eq!(gauge(0), "▱▱▱▱▱");
        assert_eq!(gauge(1), "▰▱▱▱▱");
        assert_eq!(gauge(40), "▰▰▱▱▱");
        assert_eq!(gauge(100), "▰▰▰▰▰");
    }

    #[test]
    fn a_model_path_is_shortened_to_its_file_name_first() {
        let (forms, steps) = model_forms("/models/Qwen2.5-Coder-14B-Instruct-Q4_K_M.gguf");
        assert_eq!(forms[1], "Qwen2.5-Coder-14B-Instruct-Q4_K_M.gguf");
        assert_eq!(forms[2], "…struct-Q4_K_M.gguf");
        assert_eq!(steps, [RANK_MODEL_FILE, RANK_MODEL_TAIL]);
        assert_eq!(model_forms("qwen2.5-coder:14b").0, ["qwen2.5-coder:14b"]);
        assert_eq!(model_forms("").0, ["no model"]);
        let (forms, steps) = model_forms("Qwen2.5-Coder-14B-Instruct-Q4_K_M");
        assert_eq!(forms.len(), 2);
        assert_eq!(
            steps,
            [RANK_MODEL_TAIL],
            "no path: the tail step keeps its rank"
        );
    }

    #[test]
    fn parts_that_must_stay_are_kept_when_nothing_else_fits() {
        let style = Style::default();
        let mut parts = vec![
            Part::new(
                vec!["⠹ thinking 4s".into(), "⠹ thinking".into()],
                &[RANK_ACTIVITY],
                None,
                style,
            ),
            {
                let (forms, steps) = model_forms("/a/very/long/path/model.gguf");
                Part::new(forms, &steps, Some(RANK_DROP_MODEL), style)
            },
            Part::new(vec!["supervised".into()], &[], None, style),
            Part::new(
                sandbox_forms("workspace-write"),
                &[RANK_SANDBOX_BRIEF],
                None,
                style,
            ),
            Part::new(
                vec!["~/src/demo".into()],
                &[],
                Some(RANK_DROP_WORKSPACE),
                style,
            ),
        ];
        fit(&mut parts, 41);
        let shown: Vec<&str> = parts
            .iter()
            .filter(|p| !p.dropped)
            .map(|p| p.text())
            .collect();
        assert_eq!(shown, ["⠹ thinking 4s", "supervised", "sandboxed"]);
        assert_eq!(total(&parts), 41);

        fit(&mut parts, 10);
        let shown: Vec<&str> = parts
            .iter()
            .filter(|p| !p.dropped)
            .map(|p| p.text())
            .collect();
        assert_eq!(
            shown,
            ["⠹ thinking", "supervised", "sandboxed"],
            "what is never dropped stays, in its shortest form"
        );
    }

    #[test]
    fn the_model_is_shortened_before_anything_else_is_dropped_but_the_workspace() {
        let style = Style::default();
        let mut parts = vec![
            {
                let (forms, steps) = model_forms("/models/qwen.gguf");
                Part::new(forms, &steps, Some(RANK_DROP_MODEL), style)
            },
            Part::new(vec!["1.2k tok".into()], &[], Some(RANK_DROP_TOKENS), style),
            Part::new(
                vec!["~/src/demo".into()],
                &[],
                Some(RANK_DROP_WORKSPACE),
                style,
            ),
        ];
        let full = total(&parts);
        fit(&mut parts, full - "~/src/demo".len() - 3);
        assert!(
            parts[2].dropped && parts[0].form == 0,
            "the workspace goes first"
        );
        let room = total(&parts) - 1;
        fit(&mut parts, room);
        assert_eq!(parts[0].text(), "qwen.gguf");
        assert!(!parts[1].dropped);
    }
}
