//! The terminal's background, dark or light, so that a person who named no theme gets the
//! one made for their terminal: the dark theme on a white terminal drew its status line at
//! 1.65:1.
//!
//! Asked first (OSC 11, "what is your background colour?", which xterm, VTE, kitty, iTerm2,
//! WezTerm, Alacritty, foot, Windows Terminal and tmux answer), then read from `COLORFGBG`
//! (rxvt, Konsole), else dark. The question is followed by a primary device attributes
//! query (DA1), which every terminal answers, in order: its answer arriving first means the
//! terminal will not say its background, so Loom never waits out the timeout on terminals
//! that stay silent, and no late answer can turn into keys typed into the message box.
//!
//! Parsing is pure; [`query`] is the one effect, run once before the first frame with the
//! terminal in raw mode. Whatever else arrives meanwhile (keys typed ahead) is handed back.

use std::time::{Duration, Instant};

use super::contrast::ratio;
use super::theme::Background;

/// The longest Loom waits for the terminal's answers before drawing anyway.
pub const TIMEOUT: Duration = Duration::from_millis(500);

/// The questions: background colour, then device attributes as the sentinel.
pub const QUERY: &str = "\x1b]11;?\x1b\\\x1b[c";

/// The kind of background an RGB colour is: light when black text on it contrasts more
/// than white text does.
pub fn kind_of(rgb: (u8, u8, u8)) -> Background {
    if ratio(rgb, (0, 0, 0)) > ratio(rgb, (255, 255, 255)) {
        Background::Light
    } else {
        Background::Dark
    }
}

/// `COLORFGBG` (`15;0`, `0;default;15`): the last field is the background's colour
/// number; 7 and 9–15 are light, 0–6 and 8 dark.
pub fn from_colorfgbg(value: &str) -> Option<Background> {
    let bg: u8 = value.rsplit(';').next()?.trim().parse().ok()?;
    match bg {
        7 | 9..=15 => Some(Background::Light),
        0..=6 | 8 => Some(Background::Dark),
        _ => None,
    }
}

/// One `rgb:` component (1 to 4 hex digits) scaled to 0–255.
fn component(hex: &str) -> Option<u8> {
    if hex.is_empty() || hex.len() > 4 {
        return None;
    }
    let value = u32::from_str_radix(hex, 16).ok()?;
    let max = (1u32 << (4 * hex.len())) - 1;
    Some(((value * 255 + max / 2) / max) as u8)
}

/// The colour in an OSC 11 answer (`ESC ] 11 ; rgb:ffff/ffff/ffff BEL` or `… ESC \`), if
/// `bytes` holds one.
pub fn parse_osc11(bytes: &[u8]) -> Option<(u8, u8, u8)> {
    let text = String::from_utf8_lossy(bytes);
    let start = text.find("\x1b]11;")? + 5;
    let rest = &text[start..];
    let end = rest.find(['\x07', '\x1b'])?;
    let spec = &rest[..end];
    let channels = spec
        .strip_prefix("rgb:")
        .or_else(|| spec.strip_prefix("rgba:"))?;
    let mut parts = channels.split('/');
    let r = component(parts.next()?)?;
    let g = component(parts.next()?)?;
    let b = component(parts.next()?)?;
    Some((r, g, b))
}

/// Where the device-attributes answer (`ESC [ ? … c`) ends in `bytes`, if it arrived.
fn da1_end(bytes: &[u8]) -> Option<usize> {
    let start = bytes.windows(3).position(|w| w == b"\x1b[?")?;
    let end = bytes[start..]
        .iter()
        .position(|b| *b == b'c' || !(b.is_ascii_digit() || b";?[\x1b".contains(b)))?;
    (bytes[start + end] == b'c').then_some(start + end + 1)
}

/// `bytes` without the two answers: what the person typed meanwhile.
pub fn leftover(bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    if let Some(start) = out.windows(5).position(|w| w == b"\x1b]11;") {
        let end = out[start..]
            .iter()
            .enumerate()
            .find_map(|(i, b)| match b {
                b'\x07' => Some(i + 1),
                b'\\' if i > 0 && out[start + i - 1] == 0x1b => Some(i + 1),
                _ => None,
            })
            .map_or(out.len(), |e| start + e);
        out.drain(start..end);
    }
    if let Some(end) = da1_end(&out) {
        let start = out.windows(3).position(|w| w == b"\x1b[?").unwrap_or(0);
        out.drain(start..end);
    }
    out
}

/// What the terminal said: its background colour (when it answered the question) and
/// anything else that arrived meanwhile.
#[derive(Debug, Default)]
pub struct Answer {
    /// The background colour.
    pub rgb: Option<(u8, u8, u8)>,
    /// Bytes that were not part of the answers (keys typed ahead).
    pub typed: Vec<u8>,
}

/// Ask the terminal on standard input/output (in raw mode) for its background, waiting at
/// most `timeout` and returning as soon as the device-attributes answer arrives.
pub fn query(timeout: Duration) -> std::io::Result<Answer> {
    use std::io::Write;
    use std::os::fd::AsFd;
    let stdin = std::io::stdin();
    if !std::io::IsTerminal::is_terminal(&stdin) {
        return Ok(Answer::default());
    }
    let mut out = std::io::stdout();
    out.write_all(QUERY.as_bytes())?;
    out.flush()?;
    let deadline = Instant::now() + timeout;
    let mut got: Vec<u8> = Vec::new();
    let fd = stdin.as_fd();
    while da1_end(&got).is_none() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        let ms = u16::try_from(left.as_millis()).unwrap_or(u16::MAX);
        let mut fds = [nix::poll::PollFd::new(fd, nix::poll::PollFlags::POLLIN)];
        match nix::poll::poll(&mut fds, nix::poll::PollTimeout::from(ms)) {
            Ok(0) => break,
            Ok(_) => {}
            Err(nix::errno::Errno::EINTR) => continue,
            Err(e) => return Err(e.into()),
        }
        let mut buf = [0u8; 256];
        match nix::unistd::read(fd, &mut buf) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(nix::errno::Errno::EINTR | nix::errno::Errno::EAGAIN) => {}
            Err(e) => return Err(e.into()),
        }
        if got.len() > 4096 {
            break;
        }
    }
    Ok(Answer {
        rgb: parse_osc11(&got),
        typed: leftover(&got),
    })
}

/// The background to pick a theme for: the terminal's answer, else `COLORFGBG`, else dark.
pub fn decide(answer: Option<(u8, u8, u8)>, colorfgbg: Option<&str>) -> Background {
    answer
        .map(kind_of)
        .or_else(|| colorfgbg.and_then(from_colorfgbg))
        .unwrap_or(Background::Dark)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osc11_answers_in_every_form_terminals_send() {
        assert_eq!(
            parse_osc11(b"\x1b]11;rgb:ffff/ffff/ffff\x1b\\"),
            Some((255, 255, 255))
        );
        assert_eq!(
            parse_osc11(b"\x1b]11;rgb:1e1e/1e1e/1e1e\x07"),
            Some((30, 30, 30))
        );
        assert_eq!(parse_osc11(b"x\x1b]11;rgb:f/8/0\x07"), Some((255, 136, 0)));
        assert_eq!(
            parse_osc11(b"\x1b]11;rgba:00/00/00/ff\x07"),
            Some((0, 0, 0))
        );
        assert_eq!(parse_osc11(b"\x1b]11;rgb:zz/00/00\x07"), None);
        assert_eq!(parse_osc11(b"\x1b]11;rgb:ffff/ffff"), None, "unfinished");
        assert_eq!(parse_osc11(b"\x1b[?62;22c"), None);
    }

    #[test]
    fn white_and_pale_backgrounds_are_light_dark_ones_dark() {
        assert_eq!(kind_of((255, 255, 255)), Background::Light);
        assert_eq!(
            kind_of((253, 246, 227)),
            Background::Light,
            "solarized light"
        );
        assert_eq!(kind_of((30, 30, 30)), Background::Dark);
        assert_eq!(kind_of((0, 43, 54)), Background::Dark, "solarized dark");
    }

    #[test]
    fn colorfgbg_names_the_background_last() {
        assert_eq!(from_colorfgbg("0;15"), Some(Background::Light));
        assert_eq!(from_colorfgbg("15;0"), Some(Background::Dark));
        assert_eq!(from_colorfgbg("0;default;15"), Some(Background::Light));
        assert_eq!(from_colorfgbg("15;default"), None);
        assert_eq!(from_colorfgbg(""), None);
    }

    #[test]
    fn the_answer_wins_then_colorfgbg_then_dark() {
        assert_eq!(
            decide(Some((255, 255, 255)), Some("15;0")),
            Background::Light
        );
        assert_eq!(decide(None, Some("0;15")), Background::Light);
        assert_eq!(decide(None, None), Background::Dark);
    }

    #[test]
    fn keys_typed_meanwhile_are_kept_and_the_answers_dropped() {
        let got = b"hi\x1b]11;rgb:ffff/ffff/ffff\x1b\\ there\x1b[?62;22c!";
        assert_eq!(leftover(got), b"hi there!");
        assert_eq!(da1_end(got), Some(got.len() - 1));
        assert_eq!(da1_end(b"\x1b[?62;2"), None, "not finished yet");
        assert_eq!(leftover(b"plain"), b"plain");
    }
}
