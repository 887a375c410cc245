//! The findings of a review (`/review`, issue 28): a list, most recent review's, one line
//! per finding (`severity path:line text`, the severity in its colour). `Up`/`Down` (or
//! `j`/`k`) move, `Enter` opens the finding: its text above the file around its line,
//! that line marked (read here, beneath the workspace, through `loom-base`); `Esc` goes
//! back to the list, and from the list closes it.

use std::path::{Path, PathBuf};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::*;
use crate::base::printable;
use crate::protocol::review::{ReviewFinding, Severity};
use crate::wrap::truncate;

/// The most bytes of a file read to show a finding in.
const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;
/// Lines kept on either side of a finding's line.
const CONTEXT: u32 = 40;

/// The findings layer.
pub struct ReviewFindings {
    findings: Vec<ReviewFinding>,
    selected: usize,
    /// The workspace the findings' paths are relative to (none: files are not shown).
    root: Option<PathBuf>,
    /// The finding opened, with the lines around it (or why they cannot be shown).
    opened: Option<Opened>,
}

/// A finding opened: the file's lines around it, numbered, or why there are none.
struct Opened {
    finding: ReviewFinding,
    lines: Result<Vec<(u32, String)>, String>,
}

impl ReviewFindings {
    /// The list of `findings`, whose files are read beneath `root`.
    pub fn new(findings: Vec<ReviewFinding>, root: Option<PathBuf>) -> ReviewFindings {
        ReviewFindings {
            findings,
            selected: 0,
            root,
            opened: None,
        }
    }

    fn open(&mut self) {
        let Some(finding) = self.findings.get(self.selected).cloned() else {
            return;
        };
        let lines = match &self.root {
            Some(root) => around(root, &finding.path, finding.line),
            None => Err("the workspace is not known".into()),
        };
        self.opened = Some(Opened { finding, lines });
    }
}

/// The lines of `path` (beneath `root`) within [`CONTEXT`] of `line`, numbered from 1.
fn around(root: &Path, path: &str, line: u32) -> Result<Vec<(u32, String)>, String> {
    let beneath = crate::base::beneath::Beneath::open(root).map_err(|e| e.to_string())?;
    let rel = beneath
        .relative(Path::new(path))
        .map_err(|e| format!("{path}: {e}"))?;
    let (bytes, _) = beneath
        .read_regular(rel, MAX_FILE_BYTES)
        .map_err(|e| format!("{path}: {e}"))?
        .ok_or_else(|| format!("{path} does not exist (any more)"))?;
    let text = String::from_utf8_lossy(&bytes);
    let first = line.saturating_sub(CONTEXT).max(1);
    Ok(text
        .lines()
        .enumerate()
        .map(|(i, l)| (i as u32 + 1, l))
        .skip(first as usize - 1)
        .take_while(|(n, _)| *n <= line.saturating_add(CONTEXT))
        .map(|(n, l)| (n, printable::line(&l.replace('\t', "    ")).into_owned()))
        .collect())
}

/// A severity's colour in `theme`.
pub(crate) fn severity_color(severity: Severity, theme: &Theme) -> ratatui::style::Color {
    match severity {
        Severity::Critical | Severity::High => theme.error,
        Severity::Medium => theme.warning,
        Severity::Low => theme.accent,
        Severity::Info => theme.dim,
    }
}

impl Layer for ReviewFindings {
    fn handle_key(&mut self, key: KeyEvent) -> Outcome {
        let n = self.findings.len().max(1);
        match key.code {
            KeyCode::Esc if self.opened.is_some() => {
                self.opened = None;
                Outcome::consumed()
            }
            KeyCode::Esc => Outcome::close(Vec::new()),
            KeyCode::Up | KeyCode::Char('k') if self.opened.is_none() => {
                self.selected = (self.selected + n - 1) % n;
                Outcome::consumed()
            }
            KeyCode::Down | KeyCode::Char('j') if self.opened.is_none() => {
                self.selected = (self.selected + 1) % n;
                Outcome::consumed()
            }
            KeyCode::Enter if self.opened.is_none() => {
                self.open();
                Outcome::consumed()
            }
            _ if key.modifiers.contains(KeyModifiers::CONTROL) => Outcome::default(),
            _ => Outcome::consumed(),
        }
    }

    fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let width = area.width.saturating_sub(4).min(110);
        let height = area.height.saturating_sub(4);
        let rect = centered(area, width, height);
        match &self.opened {
            None => {
                let title = format!("Review findings ({})", self.findings.len());
                let inner = frame(rect, buf, &title, theme.accent);
                self.render_list(body(inner), buf, theme);
                footer(inner, buf, &self.hints(), theme);
            }
            Some(opened) => {
                let f = &opened.finding;
                let title = format!("{}:{}", printable::line(&f.path), f.line);
                let inner = frame(rect, buf, &title, severity_color(f.severity, theme));
                opened.render(body(inner), buf, theme);
                footer(inner, buf, &self.hints(), theme);
            }
        }
    }

    fn hints(&self) -> String {
        match self.opened {
            None => "↑↓ choose · Enter opens · Esc closes".into(),
            Some(_) => "Esc back to the list".into(),
        }
    }
}

impl ReviewFindings {
    fn render_list(&self, list: Rect, buf: &mut Buffer, theme: &Theme) {
        let rows = list.height as usize;
        let first = self.selected.saturating_sub(rows.saturating_sub(1));
        let place = |f: &ReviewFinding| format!("{}:{}", printable::line(&f.path), f.line);
        let widest = self
            .findings
            .iter()
            .map(|f| crate::wrap::width(&place(f)))
            .max();
        let column = widest.unwrap_or(0).min(list.width as usize / 2);
        let lines: Vec<Line<'static>> = self
            .findings
            .iter()
            .enumerate()
            .skip(first)
            .take(rows)
            .map(|(i, f)| {
                let on = i == self.selected;
                let base = if on {
                    Style::default()
                        .fg(theme.status.fg)
                        .bg(theme.status.bg)
                        .add_modifier(Modifier::BOLD)
                } else {
                    Style::default().fg(theme.text)
                };
                let place = truncate(&place(f), column);
                let pad = column.saturating_sub(crate::wrap::width(&place));
                let room = (list.width as usize).saturating_sub(column + 14);
                Line::from(vec![
                    Span::styled(if on { "› " } else { "  " }, base),
                    Span::styled(
                        format!("{:<8} ", f.severity.as_str()),
                        base.fg(severity_color(f.severity, theme)),
                    ),
                    Span::styled(format!("{place}{}  ", " ".repeat(pad)), base),
                    Span::styled(truncate(&printable::line(&f.text), room), base),
                ])
            })
            .collect();
        draw_lines(&lines, list, buf);
        if self.findings.is_empty() {
            let dim = Style::default().fg(theme.dim);
            buf.set_stringn(list.x, list.y, "no findings", list.width as usize, dim);
        }
    }
}

impl Opened {
    fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let f = &self.finding;
        let mut lines = vec![
            Line::from(vec![
                Span::styled(
                    format!("{} ", f.severity.as_str()),
                    Style::default()
                        .fg(severity_color(f.severity, theme))
                        .add_modifier(Modifier::BOLD),
                ),
                Span::styled(
                    printable::line(&f.text).into_owned(),
                    Style::default().fg(theme.text),
                ),
            ]),
            Line::default(),
        ];
        let room = (area.height as usize).saturating_sub(lines.len());
        match &self.lines {
            Err(why) => lines.push(Line::styled(why.clone(), Style::default().fg(theme.error))),
            Ok(file) if !file.iter().any(|(n, _)| *n == f.line) => lines.push(Line::styled(
                format!("{} has no line {}", printable::line(&f.path), f.line),
                Style::default().fg(theme.warning),
            )),
            Ok(file) => {
                let at = file.iter().position(|(n, _)| *n == f.line).unwrap_or(0);
                let start = at
                    .saturating_sub(room / 2)
                    .min(file.len().saturating_sub(room));
                for (n, text) in file.iter().skip(start).take(room) {
                    let mark = *n == f.line;
                    let style = if mark {
                        Style::default().fg(theme.text).bg(theme.selection_bg)
                    } else {
                        Style::default().fg(theme.text)
                    };
                    lines.push(Line::from(vec![
                        Span::styled(
                            format!("{}{n:>5} ", if mark { "›" } else { " " }),
                            Style::default().fg(theme.dim),
                        ),
                        Span::styled(text.clone(), style),
                    ]));
                }
            }
        }
        draw_lines(&lines, area, buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (review of issue 28's /review): a finding's line comes from the model;
    /// one near `u32::MAX` overflowed `line + CONTEXT`.
    #[test]
    fn a_finding_at_the_largest_line_number_opens_without_overflow() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
        assert_eq!(around(dir.path(), "a.txt", u32::MAX), Ok(Vec::new()));
        assert_eq!(
            around(dir.path(), "a.txt", 1),
            Ok(vec![(1, "one".to_string()), (2, "two".to_string())])
        );
    }
}
