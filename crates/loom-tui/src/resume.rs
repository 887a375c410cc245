//! Going back to an earlier session from the TUI: the list the resume picker shows (read
//! off the UI thread), and the screen starting over on the session picked. The event loop
//! (`run.rs`) starts the agent on it: at start, before any agent runs (`loom --resume`);
//! later (`/resume`), after stopping the one that ran.

use std::path::Path;

use serde_json::Value;

use super::app::App;
use super::layers::resume_picker::{ResumePicker, SessionItem};
use super::stored_calls::StoredCall;
use super::tools_pane::{ToolRow, ToolStatus, summarize};
use super::transcript::NoticeLevel;
use crate::llm::{Message, ToolCall};
use crate::session::{self, LoadedSession, MessageAt};

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
    let data = crate::base::dirs::data_dir();
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
            age: crate::base::time::age(now, s.modified_secs),
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
        let Some(workspace) = self.draft.workspace_root.clone() else {
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
        self.details.clear();
        self.draft.attachments.clear();
        self.draft.images.clear();
        self.layers.close_calls();
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

impl App {
    /// Show an earlier conversation (a resumed session). Its messages stay in the session
    /// file: the chat keeps where each one is and reads it back when it comes into view
    /// (a message without a place, or a file that cannot be opened, is kept instead).
    pub fn load_conversation(&mut self, session: &crate::session::LoadedSession) {
        let stored = session
            .path
            .as_deref()
            .is_some_and(|p| self.transcript.open_store(p).is_ok());
        self.tools.store = session
            .path
            .as_deref()
            .filter(|_| stored)
            .and_then(|p| std::fs::File::open(p).ok());
        let stored = stored && self.tools.store.is_some();
        for (i, m) in session.conversation.iter().enumerate() {
            let at = session.at.get(i).copied().flatten().filter(|_| stored);
            match m {
                Message::User { content, images } => {
                    let text = crate::llm::image::with_chips(content, images);
                    match at {
                        Some(at) => self.transcript.push_stored_user(at, &text),
                        None => self.transcript.push_user(&text),
                    }
                }
                Message::Assistant {
                    content,
                    tool_calls,
                } => self.load_answer(content, tool_calls, at),
                Message::Tool {
                    tool_call_id,
                    content,
                    ..
                } => self.load_result(tool_call_id, content, at),
                Message::System { .. } => {}
            }
        }
    }

    /// A resumed answer of the model (read back from `at` when shown) and its calls' rows.
    fn load_answer(&mut self, content: &str, tool_calls: &[ToolCall], at: Option<MessageAt>) {
        if !content.trim().is_empty() {
            match at {
                Some(at) => self.transcript.push_stored_answer(at, content),
                None => self.transcript.push_answer(content),
            }
        }
        for (index, c) in tool_calls.iter().enumerate() {
            let args = super::stored_calls::parse_args(&c.arguments);
            let summary = match super::tools_pane::readable_args(&args) {
                Some(args) => summarize(&c.name, &args),
                None => "(arguments that are not JSON)".to_string(),
            };
            self.transcript
                .push_tool(&c.id, &format!("{} {summary}", c.name));
            // A resumed call keeps what its row shows; the rest is read back.
            let stored = at.map(|call| StoredCall {
                call,
                index,
                result: None,
            });
            self.tools.add(ToolRow {
                id: c.id.clone(),
                name: c.name.clone(),
                summary,
                args: if stored.is_some() { Value::Null } else { args },
                status: ToolStatus::Queued,
                result: None,
                stored,
            });
        }
    }

    /// A resumed call's result (at `at` in the session file): its row's status, and its
    /// output under the row when it shows one.
    fn load_result(&mut self, tool_call_id: &str, content: &str, at: Option<MessageAt>) {
        // A resumed row whose result shows nowhere but in its details needs
        // only the status: the result is not built.
        let status_only = at.is_some()
            && self.tools.row_mut(tool_call_id).is_some_and(|r| {
                r.stored.is_some()
                    && r.name != "bash"
                    && !super::tools_pane::WEB_TOOLS.contains(&r.name.as_str())
            });
        // A resumed command's output under its row is made from the stored
        // line directly (its details are read back when it is selected).
        let stored_bash = at.is_some()
            && self
                .tools
                .row_mut(tool_call_id)
                .is_some_and(|r| r.stored.is_some() && r.name == "bash");
        let shown = stored_bash
            .then(|| super::command_output::CommandOutput::from_json(content, 0))
            .flatten();
        if let Some((ok, output)) = shown {
            if let Some(row) = self.tools.row_mut(tool_call_id) {
                row.status = ToolStatus::Done { ok, ms: 0 };
                row.result = None;
                if let (Some(stored), Some(at)) = (&mut row.stored, at) {
                    stored.result = Some(at);
                }
            }
            self.mark(tool_call_id);
            self.transcript.set_output(tool_call_id, output);
            return;
        }
        let (ok, result) = if status_only {
            (super::stored_calls::succeeded(content), None)
        } else {
            let result: Option<crate::protocol::tool_result::ToolResult> =
                serde_json::from_str(content).ok();
            (result.as_ref().is_some_and(|r| r.success), result)
        };
        if let Some(row) = self.tools.row_mut(tool_call_id) {
            row.status = ToolStatus::Done { ok, ms: 0 };
            row.result = result;
        }
        self.mark(tool_call_id);
        self.show_output(tool_call_id);
        // The output is on screen now; a stored result is read back when the
        // row is selected (a web call's row shows what its result says).
        if let (Some(row), Some(at)) = (self.tools.row_mut(tool_call_id), at)
            && let Some(stored) = &mut row.stored
        {
            stored.result = Some(at);
            if super::tools_pane::web_outcome(row).is_none() {
                row.result = None;
            }
        }
    }
}
