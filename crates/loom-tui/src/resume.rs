//! Going back to an earlier session from the TUI: the resume picker (whose list the event
//! loop reads off the UI thread with the binary's lister), and the screen starting over on
//! the session picked. The event loop (`run.rs`) starts the agent on it: at start, before
//! any agent runs (`loom --resume`); later (`/resume`), after stopping the one that ran.

use serde_json::Value;

use super::app::App;
use super::layers::resume_picker::ResumePicker;
use super::outbox::SessionsWanted;
use super::stored_calls::StoredCall;
use super::tools_pane::{ToolRow, ToolStatus};
use super::transcript::NoticeLevel;
use crate::protocol::message::{Message, ToolCall, is_loom_note, split_interrupted};
use crate::protocol::plan::Plan;
use crate::protocol::stored::{CallLog, Earlier, LoadedSession, MessageAt, SessionFile};

/// The tool whose results carry the model's plan (issue 28).
const PLAN_TOOL: &str = "update_plan";

/// Where a resumed session was compacted (the live screen said so with the compaction's
/// figures, which the session file does not keep).
const COMPACTED: &str = "compacted here to fit the model's context window: the model goes \
on from a shorter copy of the conversation above";

impl App {
    /// Open the resume picker; its list is asked of the event loop, which reads it in a
    /// thread. `at_start`: Loom opened with `--resume` and starts a new session when the
    /// person closes it.
    pub fn open_resume_picker(&mut self, at_start: bool) {
        let Some(workspace) = self.draft.workspace_root.clone() else {
            return;
        };
        let current = (!at_start).then(|| self.status.session_id.clone());
        let (reply, rx) = std::sync::mpsc::channel();
        self.outbox.sessions_wanted = Some(SessionsWanted {
            workspace,
            current,
            reply,
        });
        self.layers.push(Box::new(ResumePicker::new(rx, at_start)));
    }

    /// Show `session` from the start: what the screen held of the last session goes,
    /// the conversation picked comes (the agent is started on it by the event loop).
    pub fn start_over(&mut self, session: &LoadedSession) {
        self.transcript.clear();
        let summarizer = self.tools.summarizer;
        self.tools = super::tools_pane::ToolsPane::new();
        self.tools.summarizer = summarizer;
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
        self.say_resumed(session);
    }

    /// Say, below a resumed conversation, what was lost of it and which session it is
    /// (however it was opened: `--resume`, `--continue`, the picker).
    pub fn say_resumed(&mut self, session: &LoadedSession) {
        if let Some(report) = session.damage_report() {
            self.transcript.push_notice(NoticeLevel::Warning, &report);
        }
        let title = session.title.clone().unwrap_or_default();
        let line = format!("resumed session {} {title}", session.id);
        self.transcript
            .push_notice(NoticeLevel::Info, line.trim_end());
    }
}

impl App {
    /// Show an earlier conversation (a resumed session). Its messages stay in the session
    /// file: the chat keeps where each one is and reads it back when it comes into view
    /// (a message without a place, or a file that cannot be opened, is kept instead).
    pub fn load_conversation(&mut self, session: &LoadedSession) {
        let file = session.path.as_deref().zip(session.read);
        let stored = file.is_some_and(|(p, read)| self.transcript.open_store(p, read).is_ok());
        self.tools.store = file
            .filter(|_| stored)
            .and_then(|(p, read)| SessionFile::open(p, read).ok());
        let stored = stored && self.tools.store.is_some();
        self.status.usage = session.usage;
        self.status.last_prompt =
            session.last_request.prompt_tokens + session.last_request.completion_tokens;
        for earlier in &session.earlier {
            match earlier {
                Earlier::Message { message, at } => {
                    self.load_message(message, at.filter(|_| stored), session);
                }
                Earlier::Compacted => self.transcript.push_notice(NoticeLevel::Info, COMPACTED),
            }
        }
        // The compacted copy the model reads (a summary, trimmed results) is not shown:
        // the messages it stands for are, above.
        let from = session.shown_from.min(session.conversation.len());
        for (i, m) in session.conversation.iter().enumerate().skip(from) {
            let at = session.at.get(i).copied().flatten().filter(|_| stored);
            self.load_message(m, at, session);
        }
    }

    /// Show one resumed message (read back from `at` when shown, where it has one).
    fn load_message(&mut self, m: &Message, at: Option<MessageAt>, session: &LoadedSession) {
        match m {
            // Loom's own notes to the model (mode changes, hook context, a review's
            // instructions and diff) were never shown live; resumed, they stay hidden.
            Message::User { content, .. } if is_loom_note(content) => {}
            Message::User { content, images } => {
                let text = crate::protocol::image::with_chips(content, images);
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
            } => {
                let log = session.calls.get(tool_call_id);
                self.load_result(tool_call_id, content, at, log);
            }
            Message::System { .. } => {}
        }
    }

    /// A resumed answer of the model (read back from `at` when shown) and its calls' rows.
    fn load_answer(&mut self, content: &str, tool_calls: &[ToolCall], at: Option<MessageAt>) {
        let (answer, interrupted) = split_interrupted(content);
        if !answer.trim().is_empty() {
            match at {
                Some(at) => self.transcript.push_stored_answer(at, answer),
                None => self.transcript.push_answer(answer),
            }
        }
        if interrupted {
            self.transcript
                .push_notice(NoticeLevel::Info, "interrupted");
        }
        for (index, c) in tool_calls.iter().enumerate() {
            let args = super::stored_calls::parse_args(&c.arguments);
            let summary = match super::tools_pane::readable_args(&args) {
                Some(args) => self.tools.summarize(&c.name, &args),
                None => "(arguments that are not JSON)".to_string(),
            };
            // A plan is shown as its block (from the result), not a line per call.
            if c.name != PLAN_TOOL {
                self.transcript
                    .push_tool(&c.id, &format!("{} {summary}", c.name));
            }
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

    /// A resumed call's result (at `at` in the session file): its row's status as the
    /// file's log has it (`log`: how long it ran, whether it was refused), and its output
    /// under the row when it shows one.
    fn load_result(
        &mut self,
        tool_call_id: &str,
        content: &str,
        at: Option<MessageAt>,
        log: Option<&CallLog>,
    ) {
        self.load_plan(tool_call_id, content);
        let ms = log.and_then(|l| l.duration_ms);
        if let Some(refusal) = log.and_then(|l| l.refusal.as_ref()) {
            self.show_refusal(tool_call_id, refusal.by_person, refusal.reason.as_deref());
        }
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
            .then(|| super::command_output::CommandOutput::from_json(content, ms.unwrap_or(0)))
            .flatten();
        if let Some((ok, output)) = shown {
            if let Some(row) = self.tools.row_mut(tool_call_id) {
                if row.status != ToolStatus::Denied {
                    row.status = ToolStatus::Done { ok, ms };
                }
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
            if row.status != ToolStatus::Denied {
                row.status = ToolStatus::Done { ok, ms };
            }
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

impl App {
    /// A resumed `update_plan` result redraws its plan as live: the turn's block updated
    /// in place, and the status line's "step 2/5" from the last one (issue 28). Only these
    /// results are parsed; the rest stay in the file until shown.
    fn load_plan(&mut self, tool_call_id: &str, content: &str) {
        let is_plan = self
            .tools
            .row_mut(tool_call_id)
            .is_some_and(|r| r.name == PLAN_TOOL);
        if !is_plan {
            return;
        }
        let result: Option<crate::protocol::tool_result::ToolResult> =
            serde_json::from_str(content).ok();
        let plan = result
            .filter(|r| r.success)
            .and_then(|r| r.data_as::<Plan>());
        if let Some(plan) = plan {
            self.transcript.set_plan(&plan);
            let now = self.now;
            self.progress.observe(
                &crate::protocol::events::AgentEvent::PlanUpdated { plan },
                now,
            );
        }
    }
}
