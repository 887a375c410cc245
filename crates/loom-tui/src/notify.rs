//! Getting the person's attention (issue 28): when a turn ends or an approval waits while
//! the terminal is not focused, a notification (OSC 9, OSC 777 or the bell, after the
//! `notify` setting and the terminal) and the optional `notify_command`; and the terminal
//! title, which shows the agent's state and the workspace.
//!
//! Focus comes from the terminal's focus reports (`EnableFocusChange`); a terminal that
//! never reports is taken to be focused, so it is never notified. The screen only notes
//! what happened ([`App::watch_attention`]); the event loop's [`Notifier`] writes the bytes
//! between frames and runs the command off the UI thread, bounded by a timeout.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde::Serialize;

use super::app::App;
pub use super::outbox::Notification;
use crate::protocol::events::{AgentEvent, Phase, TurnEnd};
use crate::protocol::notify::NotifyMode;

/// How long `notify_command` may run before it is killed.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(10);

/// Whether the title was pushed on the terminal's title stack (to pop on exit).
static TITLE_PUSHED: AtomicBool = AtomicBool::new(false);

/// What the binary hands the screen about notifications (from the `notify` and
/// `notify_command` settings).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NotifySettings {
    /// The `notify` setting.
    pub mode: NotifyMode,
    /// The program run on each notification (argv; empty: none).
    pub command: Vec<String>,
}

/// What the notification is written as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    /// `ESC ] 9 ; message BEL` (iTerm2, WezTerm, ghostty, kitty).
    Osc9,
    /// `ESC ] 777 ; notify ; title ; message BEL` (foot).
    Osc777,
    /// The bell.
    Bel,
    /// Nothing.
    Off,
}

/// The terminal, as its environment describes it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TermEnv {
    /// `TERM_PROGRAM`.
    pub program: Option<String>,
    /// `TERM`.
    pub term: Option<String>,
    /// Whether `KITTY_WINDOW_ID` is set.
    pub kitty: bool,
    /// Whether `TMUX` is set (Loom runs inside tmux).
    pub tmux: bool,
}

impl TermEnv {
    /// The terminal Loom runs in, from the environment.
    pub fn detect() -> TermEnv {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        TermEnv {
            program: var("TERM_PROGRAM"),
            term: var("TERM"),
            kitty: var("KITTY_WINDOW_ID").is_some(),
            tmux: var("TMUX").is_some(),
        }
    }

    /// How `mode` notifies in this terminal. `auto` uses OSC 9 where the terminal is
    /// known to show it, OSC 777 in foot, and the bell elsewhere — also inside tmux, which
    /// hides the outer terminal and passes escape sequences on only when configured to.
    pub fn channel(&self, mode: NotifyMode) -> Channel {
        match mode {
            NotifyMode::Off => Channel::Off,
            NotifyMode::Bel => Channel::Bel,
            NotifyMode::Osc9 => Channel::Osc9,
            NotifyMode::Auto if self.tmux => Channel::Bel,
            NotifyMode::Auto => {
                let program = self.program.as_deref().unwrap_or("");
                let term = self.term.as_deref().unwrap_or("");
                if matches!(program, "iTerm.app" | "WezTerm" | "ghostty")
                    || self.kitty
                    || term == "xterm-kitty"
                    || term == "xterm-ghostty"
                {
                    Channel::Osc9
                } else if term.starts_with("foot") {
                    Channel::Osc777
                } else {
                    Channel::Bel
                }
            }
        }
    }

    /// The bytes that notify by `channel` with `message`; escape sequences inside tmux go
    /// through its passthrough (`ESC P tmux; … ESC \`).
    pub fn bytes(&self, channel: Channel, message: &str) -> Vec<u8> {
        let text = printable(message);
        let sequence = match channel {
            Channel::Off => return Vec::new(),
            Channel::Bel => return b"\x07".to_vec(),
            Channel::Osc9 => format!("\x1b]9;{text}\x07"),
            Channel::Osc777 => format!("\x1b]777;notify;Loom;{}\x07", text.replace(';', ",")),
        };
        if self.tmux {
            format!("\x1bPtmux;{}\x1b\\", sequence.replace('\x1b', "\x1b\x1b")).into_bytes()
        } else {
            sequence.into_bytes()
        }
    }
}

/// `text` on one line without control characters (which would end or break the escape
/// sequence), at most 200 characters.
fn printable(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(200)
        .collect()
}

/// The terminal title for the agent in `phase` on `workspace` (its last component).
pub fn title(phase: Phase, workspace: &std::path::Path) -> String {
    let state = match phase {
        Phase::Idle => "ready",
        Phase::AwaitingApproval => "waiting for approval",
        Phase::ShuttingDown => "stopping",
        Phase::CallingLlm
        | Phase::ExecutingTools
        | Phase::PostToolsHook
        | Phase::Error
        | Phase::Compacting => "working",
    };
    let name = workspace
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| workspace.display().to_string());
    format!("loom · {state} · {}", printable(&name))
}

/// The JSON `notify_command` reads on its stdin.
#[derive(Debug, Serialize)]
pub struct Payload<'a> {
    /// `turn_complete` or `approval`.
    pub event: &'a str,
    /// The session's id.
    pub session_id: &'a str,
    /// The workspace root.
    pub workspace: String,
    /// What happened, in words.
    pub message: &'a str,
}

impl App {
    /// The terminal reported that it gained (or lost) focus.
    pub fn on_focus(&mut self, focused: bool) {
        self.outbox.focused = Some(focused);
    }

    /// Note a notification for `event` when it calls for one (a turn ended, an approval
    /// waits) and the terminal reported it is not focused. A sub-agent's approval request
    /// comes here too, as the screen passes it on unwrapped; its turns do not.
    pub fn watch_attention(&mut self, event: &AgentEvent) {
        if self.outbox.focused != Some(false) {
            return;
        }
        let noted = match event {
            AgentEvent::TurnComplete { end, .. } => Notification {
                event: "turn_complete",
                message: match end {
                    TurnEnd::Done => "Loom is done".to_string(),
                    TurnEnd::Interrupted => "Loom stopped (interrupted)".to_string(),
                    TurnEnd::Failed => "Loom stopped: the turn failed".to_string(),
                    TurnEnd::RoundCap => "Loom stopped at the tool-round limit".to_string(),
                    TurnEnd::Truncated => "Loom's answer was cut off".to_string(),
                },
            },
            AgentEvent::ApprovalRequested { name, .. } => Notification {
                event: "approval",
                message: format!("Loom waits for your approval: {name}"),
            },
            _ => return,
        };
        self.outbox.notifications.push(noted);
    }
}

/// Writes notifications and the title for the event loop, and runs `notify_command`.
pub struct Notifier {
    settings: NotifySettings,
    env: TermEnv,
    workspace: std::path::PathBuf,
    title: String,
}

impl Notifier {
    /// A notifier for the session on `workspace`, in the terminal `env`.
    pub fn new(settings: NotifySettings, env: TermEnv, workspace: std::path::PathBuf) -> Notifier {
        Notifier {
            settings,
            env,
            workspace,
            title: String::new(),
        }
    }

    /// Send what the screen noted, and set the title when the state changed. Write
    /// failures are ignored: a notification is never worth stopping for.
    pub fn flush(&mut self, app: &mut App, out: &mut impl Write) {
        for n in std::mem::take(&mut app.outbox.notifications) {
            let channel = self.env.channel(self.settings.mode);
            let _ = out.write_all(&self.env.bytes(channel, &n.message));
            self.run_command(&n, &app.status.session_id);
        }
        let title = title(app.status.phase, &self.workspace);
        if title != self.title {
            if !TITLE_PUSHED.swap(true, Ordering::SeqCst) {
                // Save the terminal's own title, to give it back on exit.
                let _ = out.write_all(b"\x1b[22;0t");
            }
            let _ = write!(out, "\x1b]2;{title}\x07");
            self.title = title;
        }
        let _ = out.flush();
    }

    /// Run `notify_command` with the notification as JSON on its stdin, in the
    /// background, killed after [`COMMAND_TIMEOUT`].
    fn run_command(&self, n: &Notification, session_id: &str) {
        let Some((program, args)) = self.settings.command.split_first() else {
            return;
        };
        let payload = Payload {
            event: n.event,
            session_id,
            workspace: self.workspace.display().to_string(),
            message: &n.message,
        };
        let Ok(json) = serde_json::to_vec(&payload) else {
            return;
        };
        let mut command = tokio::process::Command::new(program);
        command
            .args(args)
            .current_dir(&self.workspace)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true);
        tokio::spawn(async move {
            let _ = tokio::time::timeout(COMMAND_TIMEOUT, feed(command, json)).await;
        });
    }
}

/// Start `command`, write `json` to its stdin, and wait for it.
async fn feed(mut command: tokio::process::Command, json: Vec<u8>) -> std::io::Result<()> {
    use tokio::io::AsyncWriteExt;
    let mut child = command.spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(&json).await?;
    }
    child.wait().await.map(|_| ())
}

/// Give the terminal its own title back (when Loom set one).
pub fn restore_title(out: &mut impl Write) {
    if TITLE_PUSHED.swap(false, Ordering::SeqCst) {
        let _ = out.write_all(b"\x1b[23;0t");
    }
}

#[cfg(test)]
#[path = "notify_tests.rs"]
mod tests;
