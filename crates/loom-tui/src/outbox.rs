//! What the screen hands the event loop: the person's answers that start or steer the
//! session (the trust prompt, the resume picker), text to put on the clipboard, whether the
//! mouse is captured, the resume picker's list, quitting, and the Ctrl+C that waits for a second one to quit. The loop takes
//! each when it is set; the screen never does terminal or process work itself.

use std::time::Instant;

use super::clipboard::Pending;

/// Requests for the event loop, set by keys and layers.
pub struct Outbox {
    /// Set when the person asked to quit.
    pub quit: bool,
    /// Whether the mouse is captured (wheel scrolls).
    pub mouse_capture: bool,
    /// Set when a Ctrl+C asked to confirm quitting.
    pub ctrl_c_at: Option<Instant>,
    /// The person's answer to the trust prompt, once given (the event loop takes it).
    pub trust_answer: Option<bool>,
    /// The session picked in the resume picker (`Some(None)`: a new one, at start), for
    /// the event loop to start the agent on.
    pub resume_choice: Option<Option<String>>,
    /// Text to put on the clipboard (`/copy`, a mouse selection), for the event loop, which
    /// copies it and says where it went.
    pub clipboard: Option<Pending>,
    /// The resume picker waits for its list, which the event loop has made off the UI
    /// thread.
    pub sessions_wanted: Option<SessionsWanted>,
    /// When Esc was pressed between turns (a second soon after opens the rewind list).
    pub esc_at: Option<Instant>,
    /// Whether the terminal is focused, as it last reported (`None`: it never did, and
    /// is taken to be).
    pub focused: Option<bool>,
    /// Notifications to send (the event loop takes them; see `notify.rs`).
    pub notifications: Vec<Notification>,
    /// The message to open in the person's editor (`Ctrl+G`), for the event loop, which
    /// leaves the screen, runs `$VISUAL`/`$EDITOR` and puts the text back.
    pub edit_message: Option<String>,
}

/// The resume picker's list, asked for.
#[derive(Debug)]
pub struct SessionsWanted {
    /// The workspace whose sessions are listed.
    pub workspace: std::path::PathBuf,
    /// The session shown now, left out (none at start).
    pub current: Option<String>,
    /// Where the list goes.
    pub reply: std::sync::mpsc::Sender<Vec<super::layers::resume_picker::SessionItem>>,
}

impl Default for Outbox {
    fn default() -> Self {
        Outbox {
            quit: false,
            mouse_capture: true,
            ctrl_c_at: None,
            trust_answer: None,
            resume_choice: None,
            clipboard: None,
            sessions_wanted: None,
            esc_at: None,
            focused: None,
            notifications: Vec::new(),
            edit_message: None,
        }
    }
}

/// Something the person should come back for (see `notify.rs`, which sends it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notification {
    /// `turn_complete` or `approval`.
    pub event: &'static str,
    /// What happened, in words.
    pub message: String,
}
