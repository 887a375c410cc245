//! Themes: the UI's colours and the syntax theme for code, from TOML files.
//!
//! `themes/*.toml` are embedded in the binary; users add their own in
//! `~/.config/loom/themes/NAME.toml`. Hex colours are used as they are on true-colour
//! terminals and mapped to the nearest of xterm's 256 colours on 256-colour ones. On
//! 16-colour terminals they map to the nearest named colour (backgrounds are dropped
//! instead, since a tinted background in 16 colours hurts more than it helps), and a
//! theme's `[colors16]` table overrides what would not stay readable there.

use std::collections::BTreeMap;

use ratatui::style::Color;
use serde::Deserialize;

/// Themes built into the binary (the contrast tests walk every one of them).
pub(crate) const BUILTIN: &[(&str, &str)] = &[
    ("dark", include_str!("../../../themes/dark.toml")),
    ("light", include_str!("../../../themes/light.toml")),
    (
        "high-contrast",
        include_str!("../../../themes/high-contrast.toml"),
    ),
];

/// The built-in theme made for a kind of terminal background.
pub fn for_background(background: Background) -> &'static str {
    match background {
        Background::Dark => "dark",
        Background::Light => "light",
    }
}

/// How many colours the terminal shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColorDepth {
    /// 24-bit colour.
    TrueColor,
    /// xterm's 256 colours.
    Ansi256,
    /// The 16 ANSI colours.
    Ansi16,
}

impl ColorDepth {
    /// Guess from `COLORTERM` and `TERM`.
    pub fn detect() -> ColorDepth {
        let term = std::env::var("TERM").unwrap_or_default();
        ColorDepth::from_env(std::env::var("COLORTERM").ok().as_deref(), &term)
    }

    /// The depth `COLORTERM` and `TERM` announce.
    pub fn from_env(colorterm: Option<&str>, term: &str) -> ColorDepth {
        match colorterm {
            Some("truecolor") | Some("24bit") => ColorDepth::TrueColor,
            _ if term.contains("256color") => ColorDepth::Ansi256,
            _ => ColorDepth::Ansi16,
        }
    }
}

/// The kind of terminal background a theme is made for. `Color::Reset` stands for the
/// terminal's own colours, which Loom cannot read, so a theme says what it assumes: its
/// contrast is checked, and colours it does not choose (syntax themes) are kept readable,
/// against that kind of background.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Background {
    /// A dark terminal background (what a theme without `background` assumes).
    #[default]
    Dark,
    /// A light (white) terminal background.
    Light,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ThemeFile {
    name: String,
    syntax: String,
    #[serde(default)]
    background: Background,
    colors: BTreeMap<String, String>,
    /// Replacements on 16-colour terminals, where the nearest named colour of a hex colour
    /// may not keep its contrast.
    #[serde(default)]
    colors16: BTreeMap<String, String>,
}

/// A loaded theme: the colours of the screen's parts, grouped by where they are drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    /// Which theme it is and what it was resolved for.
    pub id: ThemeId,
    /// Normal text.
    pub text: Color,
    /// Secondary text.
    pub dim: Color,
    /// Highlights and the focused pane.
    pub accent: Color,
    /// The person's messages.
    pub user: Color,
    /// The assistant's text.
    pub assistant: Color,
    /// Pane borders.
    pub border: Color,
    /// The focused pane's border.
    pub border_focus: Color,
    /// Errors.
    pub error: Color,
    /// Warnings and retries.
    pub warning: Color,
    /// Success marks.
    pub success: Color,
    /// Selected rows.
    pub selection_bg: Color,
    /// Added and removed lines of diffs.
    pub diff: DiffColors,
    /// Code, headings, links and quotes of rendered markdown.
    pub markdown: MarkdownColors,
    /// The status bar.
    pub status: StatusColors,
}

/// What a [`Theme`] is: its name, its code theme and what it was resolved for.
#[derive(Debug, Clone, PartialEq)]
pub struct ThemeId {
    /// Its name.
    pub name: String,
    /// The syntect theme for code.
    pub syntax: String,
    /// Colour depth it was resolved for.
    pub depth: ColorDepth,
    /// The terminal background it is made for.
    pub background: Background,
}

/// The colours of diffs.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffColors {
    /// Added lines.
    pub added: Color,
    /// Removed lines.
    pub removed: Color,
    /// Background of added lines.
    pub added_bg: Color,
    /// Background of removed lines.
    pub removed_bg: Color,
    /// Background of changed words in added lines.
    pub added_emphasis: Color,
    /// Background of changed words in removed lines.
    pub removed_emphasis: Color,
}

/// The colours of rendered markdown.
#[derive(Debug, Clone, PartialEq)]
pub struct MarkdownColors {
    /// Inline code.
    pub code: Color,
    /// Background of code blocks.
    pub code_bg: Color,
    /// Headings.
    pub heading: Color,
    /// Links.
    pub link: Color,
    /// Block quotes.
    pub quote: Color,
}

/// The colours of the status bar.
#[derive(Debug, Clone, PartialEq)]
pub struct StatusColors {
    /// Status bar text.
    pub fg: Color,
    /// Status bar background.
    pub bg: Color,
}

/// Parse a colour name or `#rrggbb`; `none` is [`Color::Reset`].
pub fn parse_color(s: &str) -> Option<Color> {
    let s = s.trim().to_ascii_lowercase();
    Some(match s.as_str() {
        "reset" | "none" | "default" => Color::Reset,
        "black" => Color::Black,
        "red" => Color::Red,
        "green" => Color::Green,
        "yellow" => Color::Yellow,
        "blue" => Color::Blue,
        "magenta" => Color::Magenta,
        "cyan" => Color::Cyan,
        "gray" | "grey" => Color::Gray,
        "darkgray" | "darkgrey" => Color::DarkGray,
        "lightred" => Color::LightRed,
        "lightgreen" => Color::LightGreen,
        "lightyellow" => Color::LightYellow,
        "lightblue" => Color::LightBlue,
        "lightmagenta" => Color::LightMagenta,
        "lightcyan" => Color::LightCyan,
        "white" => Color::White,
        hex if hex.starts_with('#') && hex.len() == 7 => {
            let v = u32::from_str_radix(&hex[1..], 16).ok()?;
            Color::Rgb((v >> 16) as u8, (v >> 8) as u8, v as u8)
        }
        _ => return None,
    })
}

/// The 16 ANSI colours as VS Code's integrated terminal draws them by default for dark
/// themes (`terminalColorRegistry.ts`), for nearest-colour matching and for checking the
/// themes' contrast by numbers. Terminals differ; this is a documented, widely used palette.
/// The light theme is checked against it too: most terminals keep one palette whatever their
/// background, and on white it is the stricter of VS Code's two (its light palette darkens
/// yellow, green and cyan). VS Code draws ANSI 7 and 15 alike (#e5e5e5); 15 comes first so
/// that near-white hex colours map to bright white, which most other palettes draw brighter.
pub(crate) const ANSI: &[(Color, (u8, u8, u8))] = &[
    (Color::Black, (0, 0, 0)),
    (Color::Red, (205, 49, 49)),
    (Color::Green, (13, 188, 121)),
    (Color::Yellow, (229, 229, 16)),
    (Color::Blue, (36, 114, 200)),
    (Color::Magenta, (188, 63, 188)),
    (Color::Cyan, (17, 168, 205)),
    (Color::White, (229, 229, 229)),
    (Color::Gray, (229, 229, 229)),
    (Color::DarkGray, (102, 102, 102)),
    (Color::LightRed, (241, 76, 76)),
    (Color::LightGreen, (35, 209, 139)),
    (Color::LightYellow, (245, 245, 67)),
    (Color::LightBlue, (59, 142, 234)),
    (Color::LightMagenta, (214, 112, 214)),
    (Color::LightCyan, (41, 184, 219)),
];

/// The nearest of the 16 ANSI colours.
pub fn nearest_ansi(r: u8, g: u8, b: u8) -> Color {
    ANSI.iter()
        .min_by_key(|(_, (ar, ag, ab))| {
            let d = |x: u8, y: u8| (i32::from(x) - i32::from(y)).pow(2);
            d(r, *ar) + d(g, *ag) + d(b, *ab)
        })
        .map(|(c, _)| *c)
        .unwrap_or(Color::Reset)
}

/// The levels of xterm's 6×6×6 colour cube (indexes 16–231).
const CUBE: [u8; 6] = [0, 95, 135, 175, 215, 255];

/// The RGB value of an xterm-256 colour index from 16 up (the cube and the grey ramp).
pub fn xterm_rgb(index: u8) -> Option<(u8, u8, u8)> {
    match index {
        16..=231 => {
            let i = index - 16;
            Some((
                CUBE[(i / 36) as usize],
                CUBE[(i / 6 % 6) as usize],
                CUBE[(i % 6) as usize],
            ))
        }
        232..=255 => {
            let v = 8 + 10 * (index - 232);
            Some((v, v, v))
        }
        _ => None,
    }
}

/// For each channel value, the index (0–5) of the nearest level of xterm's cube, the lower
/// level on a tie. Squared distance in RGB is a sum over channels, so the nearest cube
/// colour is the nearest level in each channel: three lookups instead of a search.
const CUBE_NEAREST: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut v = 0;
    while v < 256 {
        let mut best = 0;
        let mut level = 1;
        while level < CUBE.len() {
            let d = (v as i32 - CUBE[level] as i32).abs();
            if d < (v as i32 - CUBE[best] as i32).abs() {
                best = level;
            }
            level += 1;
        }
        table[v] = best as u8;
        v += 1;
    }
    table
};

/// The nearest xterm-256 colour (from the cube and the grey ramp, whose values are fixed;
/// the first 16 vary by terminal). It is the colour a search of all 240 would find, the
/// lowest index on a tie, found with [`CUBE_NEAREST`] and the two greys around the mean:
/// syntax highlighting maps every span through it, so it must not search.
pub fn nearest_256(r: u8, g: u8, b: u8) -> Color {
    let dist = |(x, y, z): (u8, u8, u8)| {
        let sq = |p: u8, q: u8| (i32::from(p) - i32::from(q)).pow(2);
        sq(r, x) + sq(g, y) + sq(b, z)
    };
    let (ri, gi, bi) = (
        CUBE_NEAREST[r as usize],
        CUBE_NEAREST[g as usize],
        CUBE_NEAREST[b as usize],
    );
    let cube = 16 + 36 * ri + 6 * gi + bi;
    let cube_dist = dist((CUBE[ri as usize], CUBE[gi as usize], CUBE[bi as usize]));
    // The distance to the grey (v, v, v) is a parabola in v with its low point at the mean
    // of the channels, so the nearest grey is one of the two ramp steps around the mean.
    let mean = (i32::from(r) + i32::from(g) + i32::from(b)) / 3;
    let below = ((mean - 8) / 10).clamp(0, 23) as u8;
    let grey = [below, (below + 1).min(23)]
        .into_iter()
        .map(|k| (232 + k, dist((8 + 10 * k, 8 + 10 * k, 8 + 10 * k))))
        .min_by_key(|(_, d)| *d)
        .unwrap_or((232, i32::MAX));
    // The cube's indexes come before the ramp's, so the cube wins a tie.
    if grey.1 < cube_dist {
        Color::Indexed(grey.0)
    } else {
        Color::Indexed(cube)
    }
}

/// Map a colour for the terminal's depth (`background` colours vanish in 16 colours).
pub fn adapt(color: Color, depth: ColorDepth, background: bool) -> Color {
    match (color, depth) {
        (Color::Rgb(..), ColorDepth::Ansi16) if background => Color::Reset,
        (Color::Rgb(r, g, b), ColorDepth::Ansi16) => nearest_ansi(r, g, b),
        (Color::Rgb(r, g, b), ColorDepth::Ansi256) => nearest_256(r, g, b),
        (c, _) => c,
    }
}

impl Theme {
    /// Parse a theme file's text.
    pub fn parse(text: &str, depth: ColorDepth) -> Result<Theme, String> {
        let file: ThemeFile = toml::from_str(text).map_err(|e| e.to_string())?;
        for key in file.colors16.keys() {
            if !file.colors.contains_key(key) {
                return Err(format!(
                    "[colors16] sets `{key}`, which [colors] does not have"
                ));
            }
        }
        let get = |key: &str, background: bool| -> Result<Color, String> {
            let sixteen = if depth == ColorDepth::Ansi16 {
                file.colors16.get(key)
            } else {
                None
            };
            let raw = sixteen
                .or_else(|| file.colors.get(key))
                .ok_or_else(|| format!("the theme {:?} has no colour `{key}`", file.name))?;
            let c = parse_color(raw).ok_or_else(|| format!("`{key}` = {raw:?} is not a colour"))?;
            Ok(adapt(c, depth, background))
        };
        Ok(Theme {
            id: ThemeId {
                name: file.name.clone(),
                syntax: file.syntax.clone(),
                depth,
                background: file.background,
            },
            text: get("text", false)?,
            dim: get("dim", false)?,
            accent: get("accent", false)?,
            user: get("user", false)?,
            assistant: get("assistant", false)?,
            border: get("border", false)?,
            border_focus: get("border_focus", false)?,
            error: get("error", false)?,
            warning: get("warning", false)?,
            success: get("success", false)?,
            selection_bg: get("selection_bg", true)?,
            diff: DiffColors {
                added: get("added", false)?,
                removed: get("removed", false)?,
                added_bg: get("added_bg", true)?,
                removed_bg: get("removed_bg", true)?,
                added_emphasis: get("added_emphasis", true)?,
                removed_emphasis: get("removed_emphasis", true)?,
            },
            markdown: MarkdownColors {
                code: get("code", false)?,
                code_bg: get("code_bg", true)?,
                heading: get("heading", false)?,
                link: get("link", false)?,
                quote: get("quote", false)?,
            },
            status: StatusColors {
                fg: get("status_fg", false)?,
                bg: get("status_bg", false)?,
            },
        })
    }

    /// A theme by name: the user's themes dir first, then the built-in ones.
    pub fn load(name: &str, depth: ColorDepth) -> Result<Theme, String> {
        Theme::load_from(user_themes_dir().as_deref(), name, depth)
    }

    /// A theme by name from `dir`, else built in. The name comes from a config file a
    /// cloned repository may have written, so it must be a plain name: a path (`/x/y`,
    /// `../y`) would read any `.toml` on the machine, a symlink to `/dev/zero` included.
    /// Theme files are read like config files: regular files of at most 1 MiB.
    fn load_from(
        dir: Option<&std::path::Path>,
        name: &str,
        depth: ColorDepth,
    ) -> Result<Theme, String> {
        if name.is_empty() || name.starts_with('.') || name.contains(['/', '\\', '\0']) {
            return Err(format!(
                "{name:?} is not a theme name (a name, not a path); available: {}",
                Theme::names().join(", ")
            ));
        }
        if let Some(dir) = dir {
            let path = dir.join(format!("{name}.toml"));
            let limit = crate::base::regular::MAX_CONFIG_BYTES;
            match crate::base::regular::read_regular(&path, limit) {
                Ok(Some(bytes)) => {
                    return Theme::parse(&String::from_utf8_lossy(&bytes), depth)
                        .map_err(|e| format!("{}: {e}", path.display()));
                }
                Ok(None) => {}
                Err(e) => return Err(format!("{}: {e}", path.display())),
            }
        }
        BUILTIN
            .iter()
            .find(|(n, _)| *n == name)
            .ok_or_else(|| {
                format!(
                    "no theme named {name:?}; available: {}",
                    Theme::names().join(", ")
                )
            })
            .and_then(|(_, text)| Theme::parse(text, depth))
    }

    /// The default dark theme (always available).
    pub fn fallback(depth: ColorDepth) -> Theme {
        Theme::parse(BUILTIN[0].1, depth).unwrap_or_else(|e| panic!("built-in theme: {e}"))
    }

    /// Every theme name: built-in and user-defined.
    pub fn names() -> Vec<String> {
        let mut names: Vec<String> = BUILTIN.iter().map(|(n, _)| n.to_string()).collect();
        if let Some(dir) = user_themes_dir()
            && let Ok(entries) = std::fs::read_dir(dir)
        {
            for e in entries.flatten() {
                let p = e.path();
                if p.extension().is_some_and(|x| x == "toml")
                    && let Some(stem) = p.file_stem().map(|s| s.to_string_lossy().into_owned())
                    && !names.contains(&stem)
                {
                    names.push(stem);
                }
            }
        }
        names
    }
}

fn user_themes_dir() -> Option<std::path::PathBuf> {
    directories::ProjectDirs::from("", "", "loom").map(|d| d.config_dir().join("themes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (issue 10): a project's `theme = "/proc/self/cwd/evil"` read
    /// `evil.toml`, a symlink to /dev/zero, until memory ran out.
    #[test]
    fn a_theme_name_that_is_a_path_is_refused_and_devices_are_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let evil = dir.path().join("evil.toml");
        std::os::unix::fs::symlink("/dev/zero", &evil).unwrap();
        let absolute = dir.path().join("evil").display().to_string();
        for name in [absolute.as_str(), "../evil", "..", "", "a\\b"] {
            let err = Theme::load_from(Some(dir.path()), name, ColorDepth::TrueColor)
                .err()
                .unwrap_or_else(|| panic!("{name:?} loaded"));
            assert!(err.contains("not a theme name"), "{name:?}: {err}");
        }
        let err = Theme::load_from(Some(dir.path()), "evil", ColorDepth::TrueColor)
            .err()
            .unwrap();
        assert!(err.contains("not a regular file"), "{err}");
        std::fs::write(dir.path().join("mine.toml"), BUILTIN[1].1).unwrap();
        let mine = Theme::load_from(Some(dir.path()), "mine", ColorDepth::TrueColor).unwrap();
        assert_eq!(mine.id.name, "light");
        assert!(Theme::load_from(Some(dir.path()), "dark", ColorDepth::TrueColor).is_ok());
    }

    #[test]
    fn every_builtin_theme_parses_in_both_depths() {
        for (name, text) in BUILTIN {
            for depth in [ColorDepth::TrueColor, ColorDepth::Ansi16] {
                let t = Theme::parse(text, depth).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(&t.id.name, name);
            }
        }
    }

    #[test]
    fn sixteen_colours_drop_tints_and_map_hex() {
        let t = Theme::parse(BUILTIN[0].1, ColorDepth::Ansi16).unwrap();
        assert_eq!(t.diff.added_bg, Color::Reset);
        let light = Theme::parse(BUILTIN[1].1, ColorDepth::Ansi16).unwrap();
        assert!(!matches!(light.warning, Color::Rgb(..)));
        assert_eq!(nearest_ansi(245, 80, 80), Color::LightRed);
        assert_eq!(nearest_ansi(200, 40, 40), Color::Red);
    }

    #[test]
    fn bad_themes_are_explained() {
        let err = Theme::parse(
            "name = \"x\"\nsyntax = \"y\"\n[colors]\ntext = \"purple-ish\"\n",
            ColorDepth::TrueColor,
        )
        .unwrap_err();
        assert!(err.contains("not a colour"), "{err}");
        assert!(
            Theme::load("no-such-theme", ColorDepth::TrueColor)
                .unwrap_err()
                .contains("available: dark, light, high-contrast")
        );
    }
}

#[cfg(test)]
mod depth_tests {
    use super::*;

    #[test]
    fn the_depth_comes_from_colorterm_then_term() {
        assert_eq!(
            ColorDepth::from_env(Some("truecolor"), "xterm"),
            ColorDepth::TrueColor
        );
        assert_eq!(
            ColorDepth::from_env(None, "screen-256color"),
            ColorDepth::Ansi256
        );
        assert_eq!(ColorDepth::from_env(None, "linux"), ColorDepth::Ansi16);
    }

    #[test]
    fn hex_colours_map_into_xterm_256_and_keep_their_backgrounds() {
        assert_eq!(nearest_256(0, 0, 0), Color::Indexed(16));
        assert_eq!(nearest_256(255, 255, 255), Color::Indexed(231));
        assert_eq!(xterm_rgb(232), Some((8, 8, 8)));
        assert_eq!(
            adapt(Color::Rgb(0x12, 0x30, 0x1c), ColorDepth::Ansi256, true),
            nearest_256(0x12, 0x30, 0x1c)
        );
        assert_eq!(
            adapt(Color::Rgb(0x12, 0x30, 0x1c), ColorDepth::Ansi16, true),
            Color::Reset
        );
    }

    /// The search `nearest_256` replaced: every colour of the cube and the ramp, nearest
    /// first, the lowest index on a tie.
    fn nearest_256_by_search(r: u8, g: u8, b: u8) -> Color {
        let d = |(x, y, z): (u8, u8, u8)| {
            let sq = |p: u8, q: u8| (i32::from(p) - i32::from(q)).pow(2);
            sq(r, x) + sq(g, y) + sq(b, z)
        };
        (16..=255u8)
            .filter_map(|i| xterm_rgb(i).map(|v| (i, d(v))))
            .min_by_key(|(_, dist)| *dist)
            .map(|(i, _)| Color::Indexed(i))
            .unwrap_or(Color::Reset)
    }

    /// Every red, with greens and blues in steps of 17, and the whole grey diagonal (where
    /// the ramp competes with the cube): the lookup agrees with the search, ties included
    /// (115 is halfway between the cube's 95 and 135).
    #[test]
    fn nearest_256_agrees_with_searching_all_240_colours_on_a_grid() {
        for r in 0..=255u8 {
            for g in (0..=255u8)
                .step_by(17)
                .chain([114, 115, 116, 155, 195, 235])
            {
                for b in (0..=255u8).step_by(17).chain([47, 48, 115, 155]) {
                    assert_eq!(
                        nearest_256(r, g, b),
                        nearest_256_by_search(r, g, b),
                        "{r},{g},{b}"
                    );
                }
            }
            for (dg, db) in [(0, 0), (0, 1), (1, 1), (2, 0), (0, 2)] {
                let (g, b) = (r.saturating_add(dg), r.saturating_sub(db));
                assert_eq!(
                    nearest_256(r, g, b),
                    nearest_256_by_search(r, g, b),
                    "{r},{g},{b}"
                );
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]
        /// Invariant: the table lookup is exactly the nearest-colour search — the same index
        /// for every RGB colour, lowest index on ties.
        #[test]
        fn nearest_256_is_the_nearest_by_search(r: u8, g: u8, b: u8) {
            proptest::prop_assert_eq!(nearest_256(r, g, b), nearest_256_by_search(r, g, b));
        }
    }

    #[test]
    fn colors16_overrides_only_in_sixteen_colours_and_only_known_keys() {
        let base = BUILTIN[0].1;
        let t16 = Theme::parse(base, ColorDepth::Ansi16).unwrap();
        let t256 = Theme::parse(base, ColorDepth::Ansi256).unwrap();
        assert_eq!(t16.dim, Color::Gray);
        assert!(matches!(t256.dim, Color::Indexed(_)));
        let bad = format!("{base}\nnot_a_colour = \"red\"\n");
        let err = Theme::parse(&bad, ColorDepth::Ansi16).unwrap_err();
        assert!(err.contains("not_a_colour"), "{err}");
    }
}
