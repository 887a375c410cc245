//! Code highlighting with syntect, kept off the input path.
//!
//! Loading syntect's syntax and theme sets takes tens of milliseconds, longer than Loom's
//! whole first-frame budget, and about a megabyte. So they load on a background thread:
//! the full-screen UI asks for them at startup ([`preload`]), anything else the first time
//! code is to be highlighted; until they are ready, code is shown plain, [`loading`] keeps
//! frames coming and [`ready`] tells the UI to re-render.
//! Lines are highlighted incrementally (the highlighter keeps its parse state between
//! lines), and lines longer than [`MAX_LINE`] are never fed to the regex engine — one long
//! minified line can otherwise take minutes.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Span;
use syntect::easy::HighlightLines;
use syntect::highlighting::{FontStyle, ThemeSet};
use syntect::parsing::{SyntaxReference, SyntaxSet};

use super::theme::{ColorDepth, adapt};

/// Longest line highlighted; longer lines are shown plain.
pub const MAX_LINE: usize = 1000;

/// A value built on a background thread the first time it is asked for, so that what is
/// never asked for costs nothing.
pub(crate) struct OnDemand<T: 'static> {
    value: OnceLock<T>,
    asked: AtomicBool,
    build: fn() -> T,
}

impl<T: Send + Sync + 'static> OnDemand<T> {
    /// Nothing built or asked for yet; `build` makes the value.
    pub(crate) const fn new(build: fn() -> T) -> Self {
        OnDemand {
            value: OnceLock::new(),
            asked: AtomicBool::new(false),
            build,
        }
    }

    /// The value if it is built; otherwise start building it (once) and `None`.
    pub(crate) fn get_or_request(&'static self) -> Option<&'static T> {
        if let Some(v) = self.value.get() {
            return Some(v);
        }
        self.request();
        None
    }

    /// Start building the value in the background unless that has started already (where
    /// no thread can be started, it is built here and now).
    pub(crate) fn request(&'static self) {
        if self.asked.swap(true, Ordering::AcqRel) {
            return;
        }
        let spawned = std::thread::Builder::new()
            .name("loom-load".into())
            .spawn(move || {
                let _ = self.value.get_or_init(self.build);
            });
        if spawned.is_err() {
            let _ = self.value.get_or_init(self.build);
        }
    }

    /// The value, built now on this thread if nobody has yet (waits for a build under way).
    pub(crate) fn now(&self) -> &T {
        self.asked.store(true, Ordering::Release);
        self.value.get_or_init(self.build)
    }

    /// The value if it is built.
    pub(crate) fn get(&self) -> Option<&T> {
        self.value.get()
    }

    /// Whether it was asked for and is not built yet.
    pub(crate) fn loading(&self) -> bool {
        self.asked.load(Ordering::Acquire) && self.value.get().is_none()
    }
}

struct Sets {
    syntaxes: SyntaxSet,
    themes: ThemeSet,
}

static SETS: OnDemand<Sets> = OnDemand::new(load);

fn load() -> Sets {
    Sets {
        syntaxes: SyntaxSet::load_defaults_newlines(),
        themes: ThemeSet::load_defaults(),
    }
}

/// Start loading the sets in the background, as the full-screen UI does at startup: by the
/// time a first answer streams they are ready, so its code is highlighted as it arrives
/// instead of shown plain and rendered a second time once they load (that second rendering
/// of a long answer cost more CPU than the megabyte of idle memory the sets hold). Front
/// ends that may never show code (`loom exec`) leave them to load on first need.
pub fn preload() {
    SETS.request();
}

/// Load the sets now (tests and benches).
pub fn load_now() {
    let _ = SETS.now();
}

/// Whether highlighting is available yet.
pub fn ready() -> bool {
    SETS.get().is_some()
}

/// Whether the sets were asked for and are still loading (frames should keep coming, so
/// that code re-renders in colour without waiting for a key).
pub fn loading() -> bool {
    SETS.loading()
}

/// The names of the syntect themes available (none while they load, which this starts).
pub fn theme_names() -> Vec<String> {
    SETS.get_or_request()
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
        let inner = SETS.get_or_request().and_then(|sets| {
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
    use std::sync::atomic::AtomicUsize;
    use std::time::{Duration, Instant};

    static BUILT: AtomicUsize = AtomicUsize::new(0);
    fn count_build() -> usize {
        BUILT.fetch_add(1, Ordering::SeqCst) + 1
    }
    static COUNTED: OnDemand<usize> = OnDemand::new(count_build);

    /// Nothing is built until asked for; asking from many threads at once builds it once,
    /// in the background, and it is `loading` until then.
    #[test]
    fn on_demand_builds_once_and_only_when_asked() {
        assert_eq!(BUILT.load(Ordering::SeqCst), 0);
        assert!(!COUNTED.loading());
        assert!(COUNTED.get().is_none());
        let askers: Vec<_> = (0..8)
            .map(|_| std::thread::spawn(|| COUNTED.get_or_request().copied()))
            .collect();
        for a in askers {
            assert!(matches!(a.join().unwrap(), None | Some(1)));
        }
        let start = Instant::now();
        while COUNTED.get().is_none() {
            assert!(COUNTED.loading());
            assert!(start.elapsed() < Duration::from_secs(10), "never built");
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(!COUNTED.loading());
        assert_eq!(COUNTED.get_or_request(), Some(&1));
        assert_eq!(*COUNTED.now(), 1);
        assert_eq!(BUILT.load(Ordering::SeqCst), 1);
    }

    /// A highlighter asked for before the sets are loaded starts loading them, and one made
    /// once they are ready colours code.
    #[test]
    fn asking_for_a_highlighter_loads_the_sets() {
        let _first = CodeHighlighter::new(
            "rust",
            "base16-ocean.dark",
            ColorDepth::TrueColor,
            Style::default(),
        );
        let start = Instant::now();
        while !ready() {
            assert!(
                loading() || ready(),
                "asked for but neither loading nor ready"
            );
            assert!(start.elapsed() < Duration::from_secs(30), "never loaded");
            std::thread::sleep(Duration::from_millis(5));
        }
        let h = CodeHighlighter::new(
            "rust",
            "base16-ocean.dark",
            ColorDepth::TrueColor,
            Style::default(),
        );
        assert!(h.active());
        assert!(!theme_names().is_empty());
    }

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
