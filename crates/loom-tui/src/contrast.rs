//! Readable colours, checked by numbers: the WCAG 2 contrast ratio of every foreground a
//! theme draws against the background it is drawn on.
//!
//! The dark theme once drew the workspace path dark grey on dark grey, and the light theme
//! used ANSI 7 (light grey) for borders, dim text and "awaiting approval" on white. Each
//! built-in theme is now checked in true colour, 256 colours and the 16-colour fallback: at
//! least 4.5:1 for text, 3:1 for borders and dim text (WCAG's thresholds for normal text and
//! for non-text contrast). The roles are checked here ([`pairs`]); `theme_tests` measures
//! every glyph of rendered screens.
//!
//! Colours a theme does not choose, the syntax theme's, pass through [`legible`] where they
//! are drawn: a token colour too close to its background is moved toward the theme's text
//! colour until it reads.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::LazyLock;

use ratatui::style::{Color, Style};

use super::theme::{ANSI, Background, ColorDepth, Theme, adapt};

/// WCAG's minimum for text.
pub const TEXT: f64 = 4.5;
/// WCAG's minimum for borders and other non-text marks (Loom holds dim text to it too).
pub const NON_TEXT: f64 = 3.0;

/// The terminal's own colours, which `Color::Reset` stands for.
#[derive(Debug, Clone, Copy)]
pub struct Terminal {
    /// Default foreground.
    pub fg: (u8, u8, u8),
    /// Default background.
    pub bg: (u8, u8, u8),
}

/// A dark terminal: VS Code's dark defaults, #cccccc on #1e1e1e. Named colours, on either
/// kind of terminal, are VS Code's dark ANSI palette (`theme::ANSI`, which says why).
pub const DARK: Terminal = Terminal {
    fg: (204, 204, 204),
    bg: (30, 30, 30),
};

/// A light terminal: VS Code's light defaults, #333333 on white.
pub const LIGHT: Terminal = Terminal {
    fg: (51, 51, 51),
    bg: (255, 255, 255),
};

/// The terminal a theme is made for, as its `background` says.
pub fn terminal(background: Background) -> Terminal {
    match background {
        Background::Dark => DARK,
        Background::Light => LIGHT,
    }
}

/// A colour as RGB on `terminal` (`background` says which default `Reset` means);
/// `None` for one of the indexed colours below 16 (they vary by terminal).
pub fn rgb(color: Color, terminal: Terminal, background: bool) -> Option<(u8, u8, u8)> {
    match color {
        Color::Reset if background => Some(terminal.bg),
        Color::Reset => Some(terminal.fg),
        Color::Rgb(r, g, b) => Some((r, g, b)),
        Color::Indexed(i) if i >= 16 => super::theme::xterm_rgb(i),
        named => ANSI.iter().find(|(c, _)| *c == named).map(|(_, v)| *v),
    }
}

/// Each channel value's linear light (WCAG 2's sRGB curve), computed once: [`luminance`]
/// runs several times for every code span drawn, and `powf` is most of its cost.
static LINEAR: LazyLock<[f64; 256]> = LazyLock::new(|| {
    let mut table = [0.0; 256];
    for (v, out) in table.iter_mut().enumerate() {
        let c = v as f64 / 255.0;
        *out = if c <= 0.039_28 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        };
    }
    table
});

/// Relative luminance (WCAG 2, sRGB).
pub fn luminance((r, g, b): (u8, u8, u8)) -> f64 {
    let channel = |c: u8| LINEAR[c as usize];
    0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)
}

/// The contrast ratio of two colours, 1 to 21.
pub fn ratio(a: (u8, u8, u8), b: (u8, u8, u8)) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    let (hi, lo) = if la > lb { (la, lb) } else { (lb, la) };
    (hi + 0.05) / (lo + 0.05)
}

/// How many steps [`legible`] takes from a colour to the theme's text colour.
const STEPS: u16 = 10;

/// `style` with a foreground that reaches [`TEXT`] contrast against its background on the
/// theme's terminal. Syntax themes pick their own colours (grey comments, pale numbers) and
/// Loom draws them on its own backgrounds (code blocks, added and removed lines, changed
/// words), so a token that would fade is blended toward the theme's text colour, in tenths,
/// until it reads, keeping as much of its hue as the background allows; the text colour
/// itself is the last resort. The blend is mapped to the theme's depth before it is
/// measured, so 256 and 16 colours are held to the same bar.
///
/// Syntax themes use a few dozen colours on a handful of backgrounds, so the answer is
/// remembered per (foreground, background, theme colours) on each thread: a span costs a
/// lookup, not a search of blends.
pub fn legible(style: Style, theme: &Theme) -> Style {
    let key = LegibleKey {
        fg: style.fg,
        bg: style.bg,
        text: theme.text,
        depth: theme.id.depth,
        background: theme.id.background,
    };
    let known = LEGIBLE.with(|m| m.borrow().get(&key).copied());
    let fg = known.unwrap_or_else(|| {
        let fg = legible_fg(style, theme);
        LEGIBLE.with(|m| {
            let mut m = m.borrow_mut();
            if m.len() >= LEGIBLE_CAP {
                m.clear();
            }
            m.insert(key, fg);
        });
        fg
    });
    match fg {
        Some(fg) => style.fg(fg),
        None => style,
    }
}

/// What [`legible`] remembers a result by: everything of the style and theme it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct LegibleKey {
    fg: Option<Color>,
    bg: Option<Color>,
    text: Color,
    depth: ColorDepth,
    background: Background,
}

/// How many results [`legible`] keeps per thread before starting over (far more than a
/// syntax theme's colours times Loom's backgrounds; the bound is for colours from
/// arbitrary ANSI output).
const LEGIBLE_CAP: usize = 4096;

thread_local! {
    static LEGIBLE: RefCell<HashMap<LegibleKey, Option<Color>>> = RefCell::new(HashMap::new());
}

/// The foreground [`legible`] gives `style`, computed; `None` when the style stays as it is.
fn legible_fg(style: Style, theme: &Theme) -> Option<Color> {
    let term = terminal(theme.id.background);
    let fg = style.fg.unwrap_or(Color::Reset);
    let bg = rgb(style.bg.unwrap_or(Color::Reset), term, true)?;
    let reads = |c: Color| rgb(c, term, false).is_some_and(|v| ratio(v, bg) >= TEXT);
    if reads(fg) {
        return None;
    }
    let (Some(from), Some(to)) = (rgb(fg, term, false), rgb(theme.text, term, false)) else {
        return Some(theme.text);
    };
    let blend = |step: u16| {
        let mix = |a: u8, b: u8| {
            let (a, b) = (u16::from(a), u16::from(b));
            ((a * (STEPS - step) + b * step) / STEPS) as u8
        };
        let c = Color::Rgb(mix(from.0, to.0), mix(from.1, to.1), mix(from.2, to.2));
        adapt(c, theme.id.depth, false)
    };
    Some(
        (1..STEPS)
            .map(blend)
            .find(|c| reads(*c))
            .unwrap_or(theme.text),
    )
}

/// Every (role, foreground, background, minimum) a theme draws, as the screen uses them.
pub fn pairs(t: &Theme) -> Vec<(&'static str, Color, Color, f64)> {
    let page = Color::Reset;
    let mut out = Vec::new();
    for (role, fg) in [
        ("text", t.text),
        ("user", t.user),
        ("assistant", t.assistant),
        ("accent", t.accent),
        ("error", t.error),
        ("warning", t.warning),
        ("success", t.success),
        ("added", t.diff.added),
        ("removed", t.diff.removed),
        ("code", t.markdown.code),
        ("heading", t.markdown.heading),
        ("link", t.markdown.link),
        ("quote", t.markdown.quote),
    ] {
        out.push((role, fg, page, TEXT));
    }
    for (role, fg) in [
        ("dim", t.dim),
        ("border", t.border),
        ("border_focus", t.border_focus),
    ] {
        out.push((role, fg, page, NON_TEXT));
    }
    // The status line and the selected tool row.
    out.push(("text on selection", t.text, t.selection_bg, TEXT));
    out.push(("keys on selection", t.accent, t.selection_bg, TEXT));
    out.push(("warning on selection", t.warning, t.selection_bg, TEXT));
    out.push(("dim on selection", t.dim, t.selection_bg, NON_TEXT));
    // The selected tool row's status marks.
    out.push(("success on selection", t.success, t.selection_bg, TEXT));
    out.push(("error on selection", t.error, t.selection_bg, TEXT));
    // The activity badge, the narrow layout's tab and the "new output below" marker.
    out.push(("status", t.status.fg, t.status.bg, TEXT));
    // Diffs and code blocks.
    out.push(("added line", t.diff.added, t.diff.added_bg, TEXT));
    out.push(("removed line", t.diff.removed, t.diff.removed_bg, TEXT));
    out.push(("text on added", t.text, t.diff.added_bg, TEXT));
    out.push(("text on removed", t.text, t.diff.removed_bg, TEXT));
    out.push((
        "text on added emphasis",
        t.text,
        t.diff.added_emphasis,
        TEXT,
    ));
    out.push((
        "text on removed emphasis",
        t.text,
        t.diff.removed_emphasis,
        TEXT,
    ));
    out.push(("code block", t.text, t.markdown.code_bg, TEXT));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theme::{BUILTIN, ColorDepth};

    /// The luminance table holds WCAG's formula for every channel value.
    #[test]
    fn the_luminance_table_is_the_formula() {
        for v in 0..=255u8 {
            let c = f64::from(v) / 255.0;
            let exact = if c <= 0.039_28 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            };
            assert_eq!(LINEAR[v as usize], exact, "{v}");
            assert!((luminance((v, v, v)) - exact).abs() < 1e-12, "{v}");
        }
    }

    fn any_color() -> impl proptest::strategy::Strategy<Value = Color> {
        use proptest::prelude::*;
        prop_oneof![
            any::<(u8, u8, u8)>().prop_map(|(r, g, b)| Color::Rgb(r, g, b)),
            any::<u8>().prop_map(Color::Indexed),
            Just(Color::Reset),
            Just(Color::DarkGray),
            Just(Color::Yellow),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]
        /// Invariant: remembering is invisible — `legible` gives what computing afresh gives,
        /// for every style and theme, whatever was asked before (the cases share a thread,
        /// so later ones meet a warm cache, including colours asked for under other themes).
        #[test]
        fn remembered_legible_colours_equal_computed_ones(
            fg in proptest::option::of(any_color()),
            bg in proptest::option::of(any_color()),
            which in 0..BUILTIN.len(),
            depth in proptest::sample::select(vec![ColorDepth::TrueColor, ColorDepth::Ansi256, ColorDepth::Ansi16]),
        ) {
            let theme = Theme::parse(BUILTIN[which].1, depth).unwrap();
            let style = Style { fg, bg, ..Style::default() };
            let computed = match legible_fg(style, &theme) {
                Some(c) => style.fg(c),
                None => style,
            };
            proptest::prop_assert_eq!(legible(style, &theme), computed);
            proptest::prop_assert_eq!(legible(style, &theme), computed);
        }
    }

    #[test]
    fn the_contrast_formula_matches_wcag_examples() {
        assert!((ratio((0, 0, 0), (255, 255, 255)) - 21.0).abs() < 0.01);
        assert!((ratio((119, 119, 119), (255, 255, 255)) - 4.48).abs() < 0.01);
        assert!((ratio((1, 1, 1), (1, 1, 1)) - 1.0).abs() < 1e-9);
    }

    /// Regression (issue 11): the dark theme's workspace path was dark grey on dark grey,
    /// and the light theme's borders, dim text and approval badge light grey on white.
    #[test]
    fn every_builtin_theme_is_readable_in_true_colour_and_in_sixteen_colours() {
        let mut failures = Vec::new();
        for (name, text) in BUILTIN {
            for depth in [
                ColorDepth::TrueColor,
                ColorDepth::Ansi256,
                ColorDepth::Ansi16,
            ] {
                assert!(
                    text.contains("\nbackground = "),
                    "{name}: a built-in theme says which background it is made for"
                );
                let theme = Theme::parse(text, depth).unwrap();
                let terminal = terminal(theme.id.background);
                for (role, fg, bg, min) in pairs(&theme) {
                    let (Some(f), Some(b)) = (rgb(fg, terminal, false), rgb(bg, terminal, true))
                    else {
                        failures.push(format!("{name} {depth:?} {role}: an indexed colour"));
                        continue;
                    };
                    let r = ratio(f, b);
                    if r < min {
                        failures.push(format!(
                            "{name} {depth:?} {role}: {fg:?} on {bg:?} is {r:.2}:1, needs {min}"
                        ));
                    }
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}
