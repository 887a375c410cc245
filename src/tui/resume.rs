//! Going back to an earlier session from the TUI: the list the resume picker shows (read
//! off the UI thread), and the screen starting over on the session picked. The event loop
//! (`run.rs`) starts the agent on it: at start, before any agent runs (`loom --resume`);
//! later (`/resume`), after stopping the one that ran.

use std::path::Path;

use super::app::App;
use super::layers::resume_picker::{ResumePicker, SessionItem};
use super::transcript::NoticeLevel;
use crate::session::{self, LoadedSession};

/// The most sessions the picker lists.
const MAX_LISTED: usize = 200;

/// The sessions to offer: this workspace's, newest first (every workspace's, each named,
/// when it has none), leaving out `current`.
pub fn read_sessions(workspace: &Path, current: Option<&str>) -> Vec<SessionItem> {
    let Some(dir) = session::sessions_dir() else {
        return Vec::new();
    };
    let all: Vec<session::SessionSummary> = session::list(&dir)
        .into_iter()
        .filter(|s| Some(s.id.as_str()) != current)
        .collect();
    let ws = workspace.display().to_string();
    let here: Vec<&session::SessionSummary> = all.iter().filter(|s| s.workspace == ws).collect();
    let (chosen, name_workspace): (Vec<&session::SessionSummary>, bool) = if here.is_empty() {
        (all.iter().collect(), true)
    } else {
        (here, false)
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let data = session::data_dir();
    chosen
        .into_iter()
        .take(MAX_LISTED)
        .map(|s| SessionItem {
            id: s.id.clone(),
            title: if s.title.is_empty() {
                "(no title)".into()
            } else {
                s.title.clone()
            },
            age: crate::commands::sessions::age(now, s.modified_secs),
            messages: s.messages,
            changes: data
                .as_ref()
                .map(|d| crate::changelog::count_changes(d, &s.id))
                .unwrap_or(0),
            workspace: name_workspace.then(|| s.workspace.clone()),
        })
        .collect()
}

impl App {
    /// Open the resume picker; its list is read in a thread. `at_start`: Loom opened with
    /// `--resume` and starts a new session when the person closes it.
    pub fn open_resume_picker(&mut self, at_start: bool) {
        let Some(workspace) = self.workspace_root.clone() else {
            return;
        };
        let current = (!at_start).then(|| self.status.session_id.clone());
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(read_sessions(&workspace, current.as_deref()));
        });
        self.layers.push(Box::new(ResumePicker::new(rx, at_start)));
    }

    /// Show `session` from the start: what the screen held of the last session goes,
    /// the conversation picked comes (the agent is started on it by the event loop).
    pub fn start_over(&mut self, session: &LoadedSession) {
        self.transcript.clear();
        self.tools = super::tools_pane::ToolsPane::new();
        self.diff = super::diff_view::DiffView::default();
        self.diff_call = None;
        self.diffs.clear();
        self.applied.clear();
        self.attachments.clear();
        self.images.clear();
        self.layers.retain(|l| l.call_id().is_none());
        self.focus = super::app::Focus::Composer;
        self.status.session_id = session.id.clone();
        self.status.usage = Default::default();
        self.status.last_prompt = 0;
        self.status.edits_allowed = false;
        self.progress = super::progress::Progress::new(self.now);
        self.load_conversation(session);
        if let Some(report) = session.damage_report() {
            self.transcript.push_notice(NoticeLevel::Warning, &report);
        }
        let title = session.title.clone().unwrap_or_default();
        self.transcript.push_notice(
            NoticeLevel::Info,
            &format!("resumed session {} {title}", session.id),
        );
    }
}
