//! Copying to the clipboard, by every path that can work where Loom runs, and saying so
//! when none can.
//!
//! - Inside tmux, the text goes into tmux's paste buffer with `tmux load-buffer -w -`, which
//!   works with tmux's defaults and has tmux set the terminal's clipboard where it can
//!   (tmux 3.3+ drops an OSC 52 wrapped in its passthrough unless `allow-passthrough` is on,
//!   and ignores a plain one unless `set-clipboard` is `on`; its default is `external`).
//!   The passthrough is sent too only where tmux says it is on.
//! - Inside GNU screen, OSC 52 goes through screen's passthrough, in the short pieces screen
//!   accepts.
//! - Elsewhere (a plain terminal, over SSH), OSC 52: the terminal sets its clipboard.
//! - When a desktop clipboard tool is there (`wl-copy` under Wayland, `xclip` under X11,
//!   `pbcopy` on macOS), it is used as well, since a terminal may ignore OSC 52 silently.
//!
//! What to copy (the last answer, a code block of it) is found here from the answer's
//! markdown source, so the copy is the clean text: no wrapping, borders or line styling.
//! Building the sequences and choosing the paths is pure; [`prepare`] is the effect (run
//! off the UI thread: it may wait on `tmux`), and its answer is what the chat says.

use std::io::Write;
use std::path::Path;

use crate::base::encode::base64;
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

/// The OSC 52 sequence that sets the clipboard to `text`.
pub fn osc52(text: &str) -> String {
    format!("\x1b]52;c;{}\x07", base64(text.as_bytes()))
}

/// `seq` wrapped in tmux's DCS passthrough (every ESC doubled), which tmux forwards to the
/// terminal only when `allow-passthrough` is on.
pub fn tmux_passthrough(seq: &str) -> String {
    format!("\x1bPtmux;{}\x1b\\", seq.replace('\x1b', "\x1b\x1b"))
}

/// An OSC 52 sequence for `text` through GNU screen's passthrough: screen forwards a DCS
/// string to the terminal, but cuts long ones, so the sequence goes in pieces of 76 bytes,
/// each in its own DCS (the way vim-oscyank does it).
pub fn screen_osc52(text: &str) -> String {
    let encoded = base64(text.as_bytes());
    let pieces: Vec<&str> = encoded
        .as_bytes()
        .chunks(76)
        .map(|c| std::str::from_utf8(c).unwrap_or(""))
        .collect();
    format!("\x1bP\x1b]52;c;{}\x07\x1b\\", pieces.join("\x1b\\\x1bP"))
}

/// Where Loom runs, as far as copying is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// Inside tmux (`$TMUX`).
    pub tmux: bool,
    /// Inside GNU screen (`$STY`), and not in a tmux inside it.
    pub screen: bool,
    /// `$TERM`.
    pub term: String,
}

impl Place {
    /// The place this process runs in.
    pub fn here() -> Place {
        let set = |var: &str| std::env::var_os(var).is_some_and(|v| !v.is_empty());
        Place {
            tmux: set("TMUX"),
            screen: set("STY") && !set("TMUX"),
            term: std::env::var("TERM").unwrap_or_default(),
        }
    }

    /// Whether the terminal itself can take OSC 52 at all (the Linux console and dumb
    /// terminals cannot).
    fn terminal_takes_osc52(&self) -> bool {
        !matches!(
            self.term.as_str(),
            "" | "dumb" | "linux" | "vt100" | "vt220"
        )
    }
}

/// What tmux said about copying, asked through its own command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tmux {
    /// The text is in tmux's paste buffer (`-w`: tmux also sets the terminal's clipboard
    /// where it can).
    Buffer {
        /// Whether `-w` was taken (tmux 3.2 and later).
        to_terminal: bool,
        /// Whether tmux forwards a passthrough sequence (`allow-passthrough` on, or a tmux
        /// before 3.3, which had no such option and always did).
        passthrough: bool,
    },
    /// tmux answered but would not take the buffer; its options.
    Refused {
        /// Why `load-buffer` failed.
        why: String,
        /// `set-clipboard` is `on`: a plain OSC 52 makes a buffer.
        set_clipboard: bool,
        /// `allow-passthrough` is on.
        passthrough: bool,
    },
    /// tmux could not be asked (no `tmux` on the PATH, or no server at `$TMUX`).
    Unreachable(String),
}

/// What a copy wrote to the terminal and how it will be described.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Bytes for the terminal (OSC 52 in whatever wrapping the place needs), maybe empty.
    pub sequence: String,
    /// Where the text went, in words ("tmux's paste buffer and …"); `None`: nowhere.
    pub how: Option<String>,
    /// Why nothing could work, when `how` is `None`.
    pub why_not: String,
}

/// Decide how to copy `text` at `place`, given what tmux said (inside tmux) and the
/// desktop tool used, if any.
pub fn plan(text: &str, place: &Place, tmux: Option<&Tmux>, tool: Option<&str>) -> Plan {
    let mut sequence = String::new();
    let mut ways: Vec<String> = Vec::new();
    let mut why_not = String::new();
    if place.tmux {
        why_not = through_tmux(text, tmux, &mut sequence, &mut ways);
    } else if place.screen {
        sequence.push_str(&screen_osc52(text));
        ways.push("the terminal's clipboard through screen (if the terminal takes OSC 52)".into());
    } else if place.terminal_takes_osc52() {
        sequence.push_str(&osc52(text));
        ways.push("the terminal's clipboard (OSC 52, if the terminal allows it)".into());
    } else {
        why_not = format!(
            "this terminal (TERM={}) has no clipboard sequence",
            if place.term.is_empty() {
                "unset"
            } else {
                &place.term
            }
        );
    }
    if let Some(tool) = tool {
        ways.push(format!("the desktop clipboard ({tool})"));
    }
    if ways.is_empty() && why_not.is_empty() {
        why_not = "no clipboard path works here".into();
    }
    if ways.is_empty() {
        why_not.push_str(
            ", and no wl-copy, xclip or pbcopy is installed; select with Shift held instead \
             (or /mouse off)",
        );
    }
    Plan {
        sequence,
        how: (!ways.is_empty()).then(|| ways.join(" and ")),
        why_not,
    }
}

/// Inside tmux: the sequences and ways that reach a clipboard as `tmux` (if it could be
/// asked) allows, added to `sequence` and `ways`; gives why the terminal's clipboard is
/// not reached, if so.
fn through_tmux(
    text: &str,
    tmux: Option<&Tmux>,
    sequence: &mut String,
    ways: &mut Vec<String>,
) -> String {
    match tmux {
        Some(Tmux::Buffer {
            to_terminal,
            passthrough,
        }) => {
            ways.push(if *to_terminal {
                "tmux's paste buffer (prefix ]), which tmux passes on to the terminal's \
                 clipboard where it can"
                    .to_string()
            } else {
                "tmux's paste buffer (prefix ])".to_string()
            });
            if *passthrough {
                sequence.push_str(&tmux_passthrough(&osc52(text)));
                ways.push("the terminal's clipboard through tmux's passthrough".into());
            }
        }
        Some(Tmux::Refused {
            why,
            set_clipboard,
            passthrough,
        }) => {
            if *set_clipboard {
                sequence.push_str(&osc52(text));
                ways.push("tmux (set-clipboard on)".into());
            }
            if *passthrough {
                sequence.push_str(&tmux_passthrough(&osc52(text)));
                ways.push("the terminal's clipboard through tmux's passthrough".into());
            }
            return format!(
                "tmux refused the text ({why}), and takes no clipboard sequence from \
                 programs here (set-clipboard is not on, allow-passthrough is off)"
            );
        }
        Some(Tmux::Unreachable(_)) | None => {
            // tmux cannot be asked: a plain OSC 52 is what a tmux with set-clipboard on
            // takes; the passthrough is not sent blind.
            sequence.push_str(&osc52(text));
            let why = match tmux {
                Some(Tmux::Unreachable(why)) => why.as_str(),
                _ => "not asked",
            };
            ways.push(format!(
                "tmux as OSC 52, which it keeps only with `set -g set-clipboard on` (tmux \
                 could not be asked: {why})"
            ));
        }
    }
    String::new()
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

/// How long a `tmux` command may take before Loom gives up on it.
const TMUX_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

/// Run `tmux ARGS` (with `input` on its stdin), at most [`TMUX_TIMEOUT`]: its stdout, or
/// what went wrong.
fn run_tmux(args: &[&str], input: Option<&str>) -> Result<String, String> {
    use std::process::{Command, Stdio};
    let mut child = Command::new("tmux")
        .args(args)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run tmux: {e}"))?;
    if let (Some(text), Some(mut stdin)) = (input, child.stdin.take()) {
        let text = text.to_string();
        // A big text must not block this thread while tmux is slow to read it.
        std::thread::spawn(move || {
            let _ = stdin.write_all(text.as_bytes());
        });
    }
    let start = std::time::Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if start.elapsed() < TMUX_TIMEOUT => {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err("tmux did not answer".into());
            }
            Err(e) => return Err(e.to_string()),
        }
    }
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

/// Put `text` in tmux's paste buffer and learn whether tmux forwards a passthrough.
fn ask_tmux(text: &str) -> Tmux {
    let passthrough = || match run_tmux(&["show-options", "-Apv", "allow-passthrough"], None) {
        Ok(v) => v == "on" || v == "all",
        // tmux before 3.3 has no such option and forwards passthrough sequences.
        Err(e) => e.contains("invalid option"),
    };
    let loaded = run_tmux(&["load-buffer", "-w", "-"], Some(text)).map(|_| true);
    let loaded = match loaded {
        // tmux before 3.2 has no -w.
        Err(e) if !e.contains("error connecting") && !e.contains("cannot run") => {
            run_tmux(&["load-buffer", "-"], Some(text)).map(|_| false)
        }
        other => other,
    };
    match loaded {
        Ok(to_terminal) => Tmux::Buffer {
            to_terminal,
            passthrough: passthrough(),
        },
        Err(e) if e.contains("error connecting") || e.contains("cannot run") => {
            Tmux::Unreachable(e)
        }
        Err(why) => Tmux::Refused {
            why,
            set_clipboard: run_tmux(&["show-options", "-gv", "set-clipboard"], None)
                .is_ok_and(|v| v == "on"),
            passthrough: passthrough(),
        },
    }
}

/// A copy made ready: the bytes for the terminal (OSC 52 in whatever wrapping the place
/// needs; the event loop writes them between frames) and where the text went, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared {
    /// For the terminal; may be empty.
    pub sequence: String,
    /// Where the text went.
    pub how: String,
}

/// Put `text` on the clipboard by every path that can work here — tmux's buffer, the
/// desktop tool (in a thread: it may wait for its display) — and make the sequence for the
/// terminal; or say why it can go nowhere. It may wait on `tmux` (a bounded time), so the
/// event loop runs it off the UI thread.
pub fn prepare(text: &str) -> Result<Prepared, String> {
    let place = Place::here();
    let tmux = place.tmux.then(|| ask_tmux(text));
    let tool = system_tool();
    let plan = plan(text, &place, tmux.as_ref(), tool.map(|(name, _)| name));
    if let Some((name, args)) = tool {
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
    }
    let how = plan.how.ok_or(plan.why_not)?;
    Ok(Prepared {
        sequence: plan.sequence,
        how,
    })
}

/// Text waiting to be copied by the event loop, and what it is ("the last answer").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// The text.
    pub text: String,
    /// What it is, for the chat's line.
    pub what: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osc52_and_its_wrappings() {
        assert_eq!(osc52("hi"), "\x1b]52;c;aGk=\x07");
        assert_eq!(
            tmux_passthrough(&osc52("hi")),
            "\x1bPtmux;\x1b\x1b]52;c;aGk=\x07\x1b\\"
        );
        assert_eq!(screen_osc52("hi"), "\x1bP\x1b]52;c;aGk=\x07\x1b\\");
        let long = screen_osc52(&"x".repeat(100));
        assert_eq!(
            long.matches("\x1bP").count(),
            2,
            "two pieces of at most 76: {long:?}"
        );
    }

    fn place(tmux: bool, screen: bool, term: &str) -> Place {
        Place {
            tmux,
            screen,
            term: term.into(),
        }
    }

    /// Regression (issue 25): inside tmux 3.3 with its defaults, /copy said "copied" but
    /// the text went nowhere: it was sent in tmux's passthrough, which tmux drops unless
    /// `allow-passthrough` is on. Now it goes into tmux's buffer, and the passthrough is
    /// sent only where tmux says it is on.
    #[test]
    fn inside_tmux_the_buffer_is_used_and_the_passthrough_only_where_it_is_on() {
        let defaults = Tmux::Buffer {
            to_terminal: true,
            passthrough: false,
        };
        let p = plan(
            "hi",
            &place(true, false, "tmux-256color"),
            Some(&defaults),
            None,
        );
        assert_eq!(p.sequence, "", "no passthrough tmux would drop");
        assert!(p.how.unwrap().starts_with("tmux's paste buffer"));
        let open = Tmux::Buffer {
            to_terminal: true,
            passthrough: true,
        };
        let p = plan("hi", &place(true, false, "screen"), Some(&open), None);
        assert_eq!(p.sequence, tmux_passthrough(&osc52("hi")));
        let unasked = Tmux::Unreachable("no server".into());
        let p = plan("hi", &place(true, false, "screen"), Some(&unasked), None);
        assert_eq!(
            p.sequence,
            osc52("hi"),
            "plain OSC 52, never a blind passthrough"
        );
        assert!(p.how.unwrap().contains("set-clipboard on"));
    }

    #[test]
    fn when_no_path_can_work_it_says_so_instead_of_copied() {
        let shut = Tmux::Refused {
            why: "no buffer".into(),
            set_clipboard: false,
            passthrough: false,
        };
        let p = plan("hi", &place(true, false, "screen"), Some(&shut), None);
        assert_eq!(p.how, None);
        assert!(
            p.why_not.contains("set-clipboard is not on"),
            "{}",
            p.why_not
        );
        let console = plan("hi", &place(false, false, "linux"), None, None);
        assert_eq!(console.how, None);
        assert!(
            console.why_not.contains("TERM=linux"),
            "{}",
            console.why_not
        );
        assert!(console.why_not.contains("Shift"), "{}", console.why_not);
        let with_tool = plan("hi", &place(false, false, "linux"), None, Some("xclip"));
        assert_eq!(
            with_tool.how.as_deref(),
            Some("the desktop clipboard (xclip)")
        );
        let screen = plan("hi", &place(false, true, "screen"), None, None);
        assert_eq!(screen.sequence, screen_osc52("hi"));
        let plain = plan("hi", &place(false, false, "xterm-256color"), None, None);
        assert_eq!(plain.sequence, osc52("hi"));
    }

    #[test]
    fn code_blocks_are_found_in_order_without_their_fences() {
        let md = "Intro\n\n```rust\nfn a() {}\n```\n\ntext\n\n```\nls -l\n```\n";
        assert_eq!(code_blocks(md), ["fn a() {}\n", "ls -l\n"]);
        assert!(code_blocks("no code, just `inline`").is_empty());
    }
}
