//! Copying to the clipboard: OSC 52 (the terminal sets its clipboard; works over SSH, and in
//! tmux with `set-clipboard on`, where the sequence is wrapped in tmux's passthrough), and,
//! when a desktop clipboard tool is present (`wl-copy` under Wayland, `xclip` under X11,
//! `pbcopy` on macOS), that tool too, since a terminal may ignore OSC 52 without saying so.
//!
//! What to copy (the last answer, a code block of it) is found here from the answer's
//! markdown source, so the copy is the clean text: no wrapping, borders or line styling.
//! Building the sequence is pure; [`copy`] is the one effect, called by the event loop.

use std::io::Write;
use std::path::Path;

use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};

/// The most text one copy carries (terminals cap OSC 52 payloads; xterm at 100 KB of text
/// by default, others higher).
pub const MAX_COPY: usize = 1024 * 1024;

/// The fenced and indented code blocks of a markdown text, in order.
pub fn code_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for event in Parser::new(markdown) {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(_) | CodeBlockKind::Indented)) => {
                current = Some(String::new());
            }
            Event::Text(t) if current.is_some() => {
                if let Some(c) = current.as_mut() {
                    c.push_str(&t);
                }
            }
            Event::End(TagEnd::CodeBlock) => blocks.extend(current.take()),
            _ => {}
        }
    }
    blocks
}

/// Standard base64 with padding.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The OSC 52 sequence that sets the clipboard to `text`, wrapped in tmux's DCS
/// passthrough (every ESC doubled) when `tmux` is set.
pub fn osc52(text: &str, tmux: bool) -> String {
    let seq = format!("\x1b]52;c;{}\x07", base64(text.as_bytes()));
    if tmux {
        format!("\x1bPtmux;{}\x1b\\", seq.replace('\x1b', "\x1b\x1b"))
    } else {
        seq
    }
}

/// The desktop clipboard tool to use, if one is installed and its display is there.
fn system_tool() -> Option<(&'static str, &'static [&'static str])> {
    let has = |var: &str| std::env::var_os(var).is_some_and(|v| !v.is_empty());
    let candidates: [(&str, &[&str], bool); 3] = [
        ("wl-copy", &[], has("WAYLAND_DISPLAY")),
        ("xclip", &["-selection", "clipboard"], has("DISPLAY")),
        ("pbcopy", &[], cfg!(target_os = "macos")),
    ];
    let path = std::env::var_os("PATH")?;
    candidates
        .into_iter()
        .filter(|(_, _, usable)| *usable)
        .find(|(name, _, _)| std::env::split_paths(&path).any(|d| is_program(&d.join(name))))
        .map(|(name, args, _)| (name, args))
}

fn is_program(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Put `text` on the clipboard: the OSC 52 sequence to `out` (the terminal), and the text
/// to the desktop tool when there is one (in a thread: the tool may wait for its display).
/// Returns the tool's name when one was used.
pub fn copy(text: &str, out: &mut impl Write) -> std::io::Result<Option<&'static str>> {
    let tmux = std::env::var_os("TMUX").is_some_and(|v| !v.is_empty());
    out.write_all(osc52(text, tmux).as_bytes())?;
    out.flush()?;
    let Some((name, args)) = system_tool() else {
        return Ok(None);
    };
    let text = text.to_string();
    std::thread::spawn(move || {
        let child = std::process::Command::new(name)
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
        if let Ok(mut child) = child {
            if let Some(mut stdin) = child.stdin.take() {
                let _ = stdin.write_all(text.as_bytes());
            }
            let _ = child.wait();
        }
    });
    Ok(Some(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_standard_vectors() {
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), coded, "{plain:?}");
        }
    }

    #[test]
    fn osc52_is_wrapped_for_tmux() {
        assert_eq!(osc52("hi", false), "\x1b]52;c;aGk=\x07");
        assert_eq!(osc52("hi", true), "\x1bPtmux;\x1b\x1b]52;c;aGk=\x07\x1b\\");
    }

    #[test]
    fn code_blocks_are_found_in_order_without_their_fences() {
        let md = "Intro\n\n```rust\nfn a() {}\n```\n\ntext\n\n```\nls -l\n```\n";
        assert_eq!(code_blocks(md), ["fn a() {}\n", "ls -l\n"]);
        assert!(code_blocks("no code, just `inline`").is_empty());
    }
}
