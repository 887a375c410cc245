//! Code highlighting with syntect, kept off the input path.
//!
//! Loading syntect's syntax and theme sets takes tens of milliseconds, longer than Loom's
//! whole first-frame budget, so they load on a background thread at startup; until they
//! are ready, code is shown plain and [`ready`] tells the UI to re-render once they are.
//! Lines are highlighted incrementally (the highlighter keeps its parse state between
//! lines), and lines longer than [`MAX_LINE`] are never fed to the regex engine — one long
//! minified line can otherwise take minutes.

use std::sync::OnceLock;

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Span;
use syntect::easy::HighlightLines;
use syntect::highlighting::{FontStyle, ThemeSet};
use syntect::parsing::{SyntaxReference, SyntaxSet};

use super::theme::{ColorDepth, adapt};

/// Longest line highlighted; longer lines are shown plain.
pub const MAX_LINE: usize = 1000;

struct Sets {
    syntaxes: SyntaxSet,
    themes: ThemeSet,
}

static SETS: OnceLock<Sets> = OnceLock::new();

fn load() -> Sets {
    Sets {
        syntaxes: SyntaxSet::load_defaults_newlines(),
        themes: ThemeSet::load_defaults(),
    }
}

/// Start loading the syntax sets in the background.
pub fn preload() {
    if SETS.get().is_none() {
        std::thread::spawn(|| {
            let _ = SETS.get_or_init(load);
        });
    }
}

/// Load the sets now (tests and benches).
pub fn load_now() {
    let _ = SETS.get_or_init(load);
}

/// Whether highlighting is available yet.
pub fn ready() -> bool {
    SETS.get().is_some()
}

/// The names of the syntect themes available.
pub fn theme_names() -> Vec<String> {
    SETS.get()
        .map(|s| s.themes.themes.keys().cloned().collect())
        .unwrap_or_default()
}

fn find_syntax(sets: &'static Sets, lang: &str) -> Option<&'static SyntaxReference> {
    let lang = lang.trim().to_ascii_lowercase();
    if lang.is_empty() {
        return None;
    }
    let alias = match lang.as_str() {
        "sh" | "shell" | "zsh" | "console" => "bash",
        "ts" | "typescript" | "tsx" => "js",
        "py" => "python",
        "rs" => "rust",
        "yml" => "yaml",
        "c++" => "cpp",
        "golang" => "go",
        "toml" | "ini" | "cfg" => "ini",
        other => other,
    };
    sets.syntaxes
        .find_syntax_by_token(alias)
        .or_else(|| sets.syntaxes.find_syntax_by_extension(alias))
}

/// The language of a file, from its extension, for diff highlighting.
pub fn language_of_path(path: &str) -> String {
    std::path::Path::new(path)
        .extension()
        .map(|e| e.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Highlights one code block (or one file's diff) line by line.
pub struct CodeHighlighter {
    inner: Option<HighlightLines<'static>>,
    depth: ColorDepth,
    plain: Style,
}

impl CodeHighlighter {
    /// A highlighter for `lang` with the syntect theme `theme`; plain when either is unknown
    /// or the sets are still loading.
    pub fn new(lang: &str, theme: &str, depth: ColorDepth, plain: Style) -> CodeHighlighter {
        let inner = SETS.get().and_then(|sets| {
            let syntax = find_syntax(sets, lang)?;
            let theme = sets
                .themes
                .themes
                .get(theme)
                .or_else(|| sets.themes.themes.values().next())?;
            Some(HighlightLines::new(syntax, theme))
        });
        CodeHighlighter {
            inner,
            depth,
            plain,
        }
    }

    /// Whether this highlighter colours anything.
    pub fn active(&self) -> bool {
        self.inner.is_some()
    }

    /// Spans for one line (without its newline).
    pub fn line(&mut self, text: &str) -> Vec<Span<'static>> {
        let Some(h) = &mut self.inner else {
            return vec![Span::styled(text.to_string(), self.plain)];
        };
        if text.len() > MAX_LINE {
            return vec![Span::styled(text.to_string(), self.plain)];
        }
        let Some(sets) = SETS.get() else {
            return vec![Span::styled(text.to_string(), self.plain)];
        };
        let with_newline = format!("{text}\n");
        match h.highlight_line(&with_newline, &sets.syntaxes) {
            Ok(regions) => regions
                .into_iter()
                .filter_map(|(style, piece)| {
                    let piece = piece.strip_suffix('\n').unwrap_or(piece);
                    if piece.is_empty() {
                        return None;
                    }
                    let c = style.foreground;
                    let fg = adapt(Color::Rgb(c.r, c.g, c.b), self.depth, false);
                    let mut s = self.plain.fg(fg);
                    if style.font_style.contains(FontStyle::BOLD) {
                        s = s.add_modifier(Modifier::BOLD);
                    }
                    if style.font_style.contains(FontStyle::ITALIC) {
                        s = s.add_modifier(Modifier::ITALIC);
                    }
                    Some(Span::styled(piece.to_string(), s))
                })
                .collect(),
            Err(_) => vec![Span::styled(text.to_string(), self.plain)],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_gets_colours_and_long_lines_stay_plain() {
        load_now();
        let mut h = CodeHighlighter::new(
            "rust",
            "base16-ocean.dark",
            ColorDepth::TrueColor,
            Style::default(),
        );
        assert!(h.active());
        let spans = h.line("fn main() { let x = 1; }");
        assert!(spans.len() > 3, "{spans:?}");
        assert_eq!(
            spans.iter().map(|s| s.content.as_ref()).collect::<String>(),
            "fn main() { let x = 1; }"
        );
        let long = "x".repeat(MAX_LINE + 1);
        assert_eq!(h.line(&long).len(), 1);
        let mut none = CodeHighlighter::new(
            "no-such-language",
            "base16-ocean.dark",
            ColorDepth::TrueColor,
            Style::default(),
        );
        assert!(!none.active());
        assert_eq!(none.line("abc").len(), 1);
    }

    #[test]
    fn sixteen_colour_output_has_no_rgb() {
        load_now();
        let mut h = CodeHighlighter::new(
            "py",
            "base16-ocean.dark",
            ColorDepth::Ansi16,
            Style::default(),
        );
        for s in h.line("def f(x): return 'a' + str(x)") {
            assert!(!matches!(s.style.fg, Some(Color::Rgb(..))), "{s:?}");
        }
    }
}
