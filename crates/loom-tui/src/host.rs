//! What the `loom` binary hands the screen at start: the facts it starts with
//! ([`TuiOptions`]) and a [`Host`] that does what needs `loom-core` — starting the agent,
//! acting on the answer to the trust question, reading a session file, listing the sessions
//! and summarizing calls. The screen gets plain data back (`loom-protocol`, `loom-base` and
//! its own types), so `loom-tui` depends on no crate above `loom-protocol`.

use std::path::{Path, PathBuf};

use tokio::sync::{mpsc, oneshot};

use super::app::StatusInfo;
use super::layers::resume_picker::SessionItem;
use super::tools_pane::Summarize;
use crate::protocol::autonomy::Autonomy;
use crate::protocol::events::{AgentEvent, UserOp};
use crate::protocol::image::Image;
use crate::protocol::stored::LoadedSession;
use crate::protocol::trust::Loosening;

/// What the full-screen mode starts with.
pub struct TuiOptions {
    /// The theme named in the configuration (`None`: the one made for the terminal's
    /// background).
    pub theme: Option<String>,
    /// The workspace root.
    pub workspace: PathBuf,
    /// A first message to send at once.
    pub prompt: Option<String>,
    /// Images attached to the first message (`--image`).
    pub images: Vec<Image>,
    /// A session to continue.
    pub resume: Option<LoadedSession>,
    /// Draw at the bottom of the normal screen, finished messages going to the scrollback
    /// (`--inline`, `inline = true`; see `inline.rs`).
    pub inline: bool,
    /// Open with the resume picker (`--resume` without an id); the agent starts once a
    /// session is picked (or a new one, on Esc).
    pub pick_session: bool,
    /// What the status line shows before the agent has started (its `session_id` is the
    /// session the agent starts on).
    pub status: StatusInfo,
    /// What the sandbox says at start (it is weaker than asked), if anything.
    pub sandbox_notice: Option<String>,
    /// The question whether to trust the project's config, when it loosens something and
    /// is not trusted yet; the agent waits for the answer.
    pub trust_question: Option<TrustQuestion>,
    /// How to notify while the terminal is not focused (`notify`, `notify_command`).
    pub notify: crate::notify::NotifySettings,
}

/// The question whether to trust the project's config.
pub struct TrustQuestion {
    /// The file, as shown (relative to the workspace when inside it).
    pub file: String,
    /// What it would loosen, ignored until trusted.
    pub ignored: Vec<Loosening>,
}

/// The channels an agent is started on: the screen's ops, and where its events and the
/// provider it found go.
pub struct AgentChannels {
    /// The ops the screen sends.
    pub ops: mpsc::UnboundedReceiver<UserOp>,
    /// The agent's events, for the screen.
    pub events: mpsc::UnboundedSender<AgentEvent>,
    /// The provider found: the model's name and, when there is none, how to connect one.
    pub provider: oneshot::Sender<(String, Option<String>)>,
}

/// What answering the trust question changed.
pub struct TrustOutcome {
    /// What went wrong carrying the answer out (the trust could not be remembered, the
    /// configuration could not be read again), if anything.
    pub error: Option<String>,
    /// What the configuration the agent starts with still ignores, if anything.
    pub warning: Option<String>,
    /// The approval mode of that configuration.
    pub autonomy: Autonomy,
    /// Its sandbox, as the status line names it.
    pub sandbox: String,
}

/// The sessions the resume picker offers: those of the workspace (`&Path`) but the current
/// one (`Option<&str>`). Called off the UI thread.
pub type ListSessions = fn(&Path, Option<&str>) -> Vec<SessionItem>;

/// What the binary does for the screen with `loom-core`.
pub trait Host: Send {
    /// Start the agent of session `session_id` (continuing `resume`, when given) on
    /// `channels`, under the configuration as it now stands.
    fn start(&mut self, session_id: String, resume: Option<LoadedSession>, channels: AgentChannels);

    /// The person answered the trust question (`trusted`): remember it and load the
    /// configuration again.
    fn answer_trust(&mut self, trusted: bool) -> TrustOutcome;

    /// The session `id` read from its file, or why it cannot be.
    fn load_session(&self, id: &str) -> Result<LoadedSession, String>;

    /// How calls' arguments read as one-line summaries.
    fn summarizer(&self) -> Summarize;

    /// How the resume picker's list is made.
    fn session_lister(&self) -> ListSessions;
}
