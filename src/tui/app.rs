//! The TUI's state and how agent events change it. Input lives in `input.rs`, drawing in
//! `view.rs`; this file owns the panes and the layer stack and knows the agent only through
//! its events and ops.

use std::collections::HashMap;
use std::time::Instant;

use serde_json::Value;
use tokio::sync::mpsc::UnboundedSender;

use super::call_diff::{CallDiff, DiffFile};
use super::composer::Composer;
use super::diff_view::DiffView;
use super::layers::{Action, Layer, UndoConfirm};
use super::theme::Theme;
use super::tools_pane::{ToolRow, ToolStatus, ToolsPane, status_mark, summarize};
use super::transcript::{NoticeLevel, ToolMark, Transcript};
use crate::agent::{AgentEvent, Phase, TurnEnd, UserOp};
use crate::llm::Usage;
use crate::policy::Autonomy;
use crate::protocol::changes::Scope;

/// What the message box offers after an answer was cut off by the token limit.
pub const CONTINUE: &str = "Continue exactly where your last answer stopped.";

/// Most bytes of a `!command`'s output attached to a message (cut in the middle beyond).
pub const SHELL_ATTACH_BUDGET: usize = 16 * 1024;

/// Which part of the screen has the keyboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    /// The input box.
    Composer,
    /// The conversation (scrolling).
    Chat,
    /// The tool-call list.
    Tools,
    /// The selected call's diff or output.
    Details,
}

/// Facts the status bar shows.
#[derive(Debug, Clone)]
pub struct StatusInfo {
    /// Model id (empty when none).
    pub model: String,
    /// The agent's state.
    pub phase: Phase,
    /// Tokens used in the session.
    pub usage: Usage,
    /// Prompt tokens of the last request (how full the context is).
    pub last_prompt: u64,
    /// The model's context window, when known.
    pub context_window: Option<u64>,
    /// Approval mode.
    pub autonomy: Autonomy,
    /// Whether the person allowed file edits without asking for the rest of the session
    /// (`a` in a review).
    pub edits_allowed: bool,
    /// Whether files Loom changes are committed after each batch.
    pub auto_commit: bool,
    /// Sandbox label.
    pub sandbox: String,
    /// Workspace path, shortened for display.
    pub workspace: String,
    /// Session id.
    pub session_id: String,
    /// The MCP servers, as last reported.
    pub mcp: Vec<crate::protocol::mcp::ServerStatus>,
}

/// Everything the screen shows.
pub struct App {
    /// The theme.
    pub theme: Theme,
    /// The conversation.
    pub transcript: Transcript,
    /// Tool calls.
    pub tools: ToolsPane,
    /// The selected call's diff.
    pub diff: DiffView,
    /// The input box.
    pub composer: Composer,
    /// Modal layers, front last.
    pub layers: Vec<Box<dyn Layer>>,
    /// Keyboard focus.
    pub focus: Focus,
    /// Status bar facts.
    pub status: StatusInfo,
    /// What the agent is doing, with its clocks (the status line's activity).
    pub progress: super::progress::Progress,
    /// The time frames are drawn at.
    pub now: Instant,
    /// Set when the person asked to quit.
    pub quit: bool,
    /// Whether the mouse is captured (wheel scrolls).
    pub mouse_capture: bool,
    /// Set when a Ctrl+C asked to confirm quitting.
    pub ctrl_c_at: Option<Instant>,
    /// Per-call diffs (previews and applied changes).
    pub diffs: HashMap<String, CallDiff>,
    /// Order of applied changes, for `/diff`.
    pub applied: Vec<String>,
    /// Images attached to the next message (pasted image paths, `--image`).
    pub images: Vec<crate::llm::image::Image>,
    /// The chat entry a mouse selection started on (left button held).
    pub selecting: Option<usize>,
    /// Shown on the empty chat instead of the model line (e.g. how to connect a provider).
    pub welcome: Option<String>,
    /// The person's answer to the trust prompt, once given (the event loop takes it).
    pub trust_answer: Option<bool>,
    /// The models the server offers, once asked (`/model` completion and picker).
    pub models: Vec<String>,
    /// What goes with the next message (`!command` output, `@file` content), shown as chips.
    pub attachments: Vec<super::attachments::Attachment>,
    /// The workspace, for `@` mentions (none: mentions are off).
    pub workspace_root: Option<std::path::PathBuf>,
    /// The workspace's paths, listed at the first `@` mention.
    pub(crate) files: Option<Vec<String>>,
    /// A listing being made off the UI thread (a big workspace takes a while to walk).
    pub(crate) files_pending: Option<std::sync::mpsc::Receiver<Vec<String>>>,
    /// Text to put on the clipboard (`/copy`, a mouse selection), for the event loop, which
    /// copies it and says where it went.
    pub clipboard: Option<super::clipboard::Pending>,
    /// Why the server's models could not be listed, if so.
    pub models_error: Option<String>,
    /// The highlighted line of the slash popup.
    pub(crate) popup_selected: usize,
    pub(crate) ops: UnboundedSender<UserOp>,
    pub(crate) pending_undo: Scope,
    pub(crate) hook_count: usize,
    pub(crate) highlight_ready: bool,
    pub(crate) layout: super::areas::Areas,
    /// The call whose diff the diff view holds (so a frame never compares diffs).
    pub(crate) diff_call: Option<String>,
    /// Errors of several lines already shown in full (by fingerprint): said again, they
    /// take one line.
    pub(crate) shown_errors: std::collections::HashSet<u64>,
    /// Whether a question box in front has the keys (else the message box has them; Tab
    /// switches; see `approvals.rs`).
    pub(crate) answering: bool,
    /// The session picked in the resume picker (`Some(None)`: a new one, at start), for
    /// the event loop to start the agent on.
    pub resume_choice: Option<Option<String>>,
    /// When the last key that did not answer a question arrived (someone typing).
    pub(crate) last_key: Option<Instant>,
    /// Until when keys count as typed ahead while Loom starts, when a question (the trust
    /// prompt) is on screen from the first frame: they go to the message box.
    pub(crate) typeahead_until: Option<Instant>,
}

impl App {
    /// A new screen talking to the agent through `ops`.
    pub fn new(theme: Theme, status: StatusInfo, ops: UnboundedSender<UserOp>) -> App {
        App {
            transcript: Transcript::new(&theme),
            tools: ToolsPane::new(),
            diff: DiffView::default(),
            composer: Composer::new(),
            layers: Vec::new(),
            focus: Focus::Composer,
            status,
            progress: super::progress::Progress::new(Instant::now()),
            now: Instant::now(),
            quit: false,
            mouse_capture: true,
            ctrl_c_at: None,
            diffs: HashMap::new(),
            applied: Vec::new(),
            images: Vec::new(),
            selecting: None,
            welcome: None,
            trust_answer: None,
            models: Vec::new(),
            models_error: None,
            popup_selected: 0,
            clipboard: None,
            attachments: Vec::new(),
            workspace_root: None,
            files: None,
            files_pending: None,
            ops,
            pending_undo: Scope::Last,
            hook_count: 0,
            highlight_ready: super::highlight::ready(),
            layout: super::areas::Areas::default(),
            diff_call: None,
            shown_errors: Default::default(),
            answering: true,
            resume_choice: None,
            last_key: None,
            typeahead_until: None,
            theme,
        }
    }

    /// Switch to `model` for later requests (the agent confirms in one line).
    pub(crate) fn set_model(&mut self, model: &str) {
        self.status.model = model.to_string();
        self.send(UserOp::SetModel {
            model: model.to_string(),
        });
    }

    /// The model in use and those the server offers, each once.
    pub fn known_models(&self) -> Vec<String> {
        let mut all = Vec::new();
        if !self.status.model.is_empty() && self.status.model != "connecting…" {
            all.push(self.status.model.clone());
        }
        for m in &self.models {
            if !all.contains(m) {
                all.push(m.clone());
            }
        }
        all
    }

    /// Whether the agent is working.
    pub fn busy(&self) -> bool {
        !matches!(self.status.phase, Phase::Idle | Phase::ShuttingDown)
    }

    /// Whether something animates (spinners), so frames are needed without input.
    pub fn animating(&self) -> bool {
        self.busy()
            || self.quit_pending()
            || self.typeahead_window()
            || self.layers.iter().any(|l| l.waiting())
            || self.tools.animating()
            || self.files_pending.is_some()
            || (!self.highlight_ready && (super::highlight::ready() || super::highlight::loading()))
            || self.transcript.restyling()
    }

    /// Called before each frame: advance the clock and pick up late-loading highlighting.
    pub fn tick(&mut self, now: Instant) {
        self.now = now;
        for layer in &mut self.layers {
            layer.tick();
        }
        if !self.highlight_ready && super::highlight::ready() {
            self.highlight_ready = true;
            self.transcript.rerender();
            self.diff.invalidate();
        }
        // Restyling after a theme switch advances on ticks, a few visible entries each.
        self.transcript.restyle_visible();
        let ids: Vec<String> = self
            .tools
            .rows
            .iter()
            .rev()
            .take(16)
            .filter(|r| matches!(r.status, ToolStatus::Running(_)))
            .map(|r| r.id.clone())
            .collect();
        for id in ids {
            self.mark(&id);
        }
    }

    pub(crate) fn send(&self, op: UserOp) {
        let _ = self.ops.send(self.routed(op));
    }

    pub(crate) fn mark(&mut self, id: &str) {
        if let Some(row) = self.tools.rows.iter().rev().find(|r| r.id == id) {
            let (icon, style, _) = status_mark(&row.status, self.now, &self.theme);
            self.transcript.mark_tool(id, ToolMark { icon, style });
        }
    }

    /// Show the diff of the selected call, if it has one. Cheap when nothing changed: only
    /// the call ids are compared.
    pub(crate) fn sync_details(&mut self) {
        let Some(row) = self.tools.current() else {
            return;
        };
        let id = row.id.clone();
        if self.diff.reviewing.as_deref().is_some_and(|r| r != id) {
            return;
        }
        if self.diff_call.as_deref() == Some(id.as_str()) {
            return;
        }
        match self.diffs.get(&id) {
            Some(d) => {
                let reviewing = self.diff.reviewing.clone().filter(|r| *r == id);
                self.diff.show_files(&d.files, reviewing);
                self.diff_call = Some(id);
            }
            None => {
                if self.diff.reviewing.is_none() {
                    self.diff = DiffView::default();
                    self.diff_call = None;
                }
            }
        }
    }

    /// Apply an action a layer asked for.
    pub(crate) fn run_action(&mut self, action: Action) {
        match action {
            Action::Send(op) => {
                if let UserOp::Approve { id, .. } = &op {
                    self.resolve_review(id);
                }
                self.send(op);
            }
            Action::AskReason(id) => self
                .layers
                .push(Box::new(super::layers::ReasonPrompt::new(&id))),
            Action::Trust(trust) => self.trust_answer = Some(trust),
            Action::SetModel(model) => self.set_model(&model),
            Action::Resume(choice) => self.resume_choice = Some(choice),
        }
    }

    /// The person answered about call `id`: stop reviewing it.
    pub(crate) fn resolve_review(&mut self, id: &str) {
        if self.diff.reviewing.as_deref() == Some(id) {
            self.diff.reviewing = None;
            self.diff.invalidate();
            if self.focus == Focus::Details {
                self.focus = Focus::Composer;
            }
        }
    }

    /// React to one event from the agent (which arrived at `self.now`).
    pub fn on_agent_event(&mut self, event: AgentEvent) {
        let finished = self.progress.observe(&event, self.now);
        let event_report = event.compaction();
        match event {
            AgentEvent::StateChanged { phase } => self.status.phase = phase,
            AgentEvent::McpStatus { servers } => {
                for s in &servers {
                    let before = self.status.mcp.iter().find(|o| o.name == s.name);
                    if matches!(s.state, crate::protocol::mcp::ServerState::Failed { .. })
                        && before.map(|b| &b.state) != Some(&s.state)
                    {
                        let mut text = format!("MCP server {}", s.line());
                        if let Some(last) = s.stderr.last() {
                            text.push_str(&format!(" — its last words: {last}"));
                        }
                        self.transcript.push_notice(NoticeLevel::Warning, &text);
                    }
                }
                self.status.mcp = servers;
            }
            AgentEvent::SubAgent { parent_id, event } => self.on_sub_agent(vec![parent_id], *event),
            AgentEvent::UserMessage { text, queued } => {
                self.transcript.push_user(&text);
                if queued {
                    self.transcript
                        .push_notice(NoticeLevel::Info, "queued: sent when the current turn ends");
                }
            }
            AgentEvent::TextDelta { text } => self.transcript.push_delta(&text),
            AgentEvent::ReasoningDelta { text } => self.transcript.push_reasoning(&text),
            AgentEvent::AssistantMessage { .. } => self.transcript.finish_answer(),
            AgentEvent::ToolCall {
                id,
                name,
                arguments,
                intent,
            } => {
                let summary = match intent.as_ref().and_then(|i| i.as_command()) {
                    Some(c) => c.command.lines().next().unwrap_or("").to_string(),
                    None => match super::tools_pane::readable_args(&arguments) {
                        Some(args) => summarize(&name, &args),
                        None => "(arguments that are not JSON)".to_string(),
                    },
                };
                self.transcript.push_tool(&id, &format!("{name} {summary}"));
                self.tools.add(ToolRow {
                    id: id.clone(),
                    name,
                    summary,
                    args: arguments,
                    status: ToolStatus::Queued,
                    result: None,
                    stored: None,
                });
                self.mark(&id);
                self.sync_details();
            }
            AgentEvent::ApprovalRequested {
                id,
                name,
                reason,
                preview,
            } => self.on_approval_request(id, name, reason, preview),
            AgentEvent::Approval {
                id,
                approved,
                by,
                reason,
            } => {
                if !approved {
                    if let Some(row) = self.tools.row_mut(&id) {
                        row.status = ToolStatus::Denied;
                    }
                    if by == crate::agent::DecidedBy::Policy
                        && let Some(r) = reason
                    {
                        self.transcript
                            .push_notice(NoticeLevel::Warning, &format!("refused: {r}"));
                    }
                }
                self.mark(&id);
                self.resolve_review(&id);
                self.layers.retain(|l| l.call_id() != Some(id.as_str()));
            }
            AgentEvent::ToolStarted { id } => {
                if let Some(row) = self.tools.row_mut(&id) {
                    row.status = ToolStatus::Running(self.now);
                }
                self.mark(&id);
            }
            AgentEvent::ToolResult {
                id,
                name: _,
                result,
                duration_ms,
            } => {
                if let Some(row) = self.tools.row_mut(&id) {
                    if row.status != ToolStatus::Denied {
                        row.status = ToolStatus::Done {
                            ok: result.success,
                            ms: duration_ms,
                        };
                    }
                    row.result = Some(result);
                }
                self.mark(&id);
                self.show_output(&id);
                self.resolve_review(&id);
                self.layers.retain(|l| l.call_id() != Some(id.as_str()));
                self.sync_details();
                if id.starts_with(crate::agent::runner::SHELL_ID_PREFIX) {
                    self.attach_shell_output(&id);
                }
            }
            AgentEvent::HookResult {
                name,
                success,
                output,
                duration_ms,
            } => {
                self.hook_count += 1;
                let id = format!("hook-{}", self.hook_count);
                self.tools.add(ToolRow {
                    id: id.clone(),
                    name: "hook".into(),
                    summary: name.clone(),
                    args: Value::String(name.clone()),
                    status: ToolStatus::Done {
                        ok: success,
                        ms: duration_ms,
                    },
                    result: Some(crate::tools::ToolResult {
                        success,
                        output: output.clone(),
                        data: None,
                        files_changed: Vec::new(),
                        error: None,
                        images: Vec::new(),
                    }),
                    stored: None,
                });
                if !success {
                    self.transcript.push_notice(
                        NoticeLevel::Warning,
                        &format!("hook `{name}`: {}", output.lines().next().unwrap_or("")),
                    );
                }
            }
            AgentEvent::Retry {
                attempt,
                max_attempts,
                reason,
                wait_ms,
            } => {
                self.transcript.push_notice(
                    NoticeLevel::Warning,
                    &format!(
                        "retrying in {:.1}s (attempt {attempt} of {max_attempts}): {reason}",
                        wait_ms as f64 / 1000.0
                    ),
                );
            }
            AgentEvent::Usage { usage } => {
                self.status.usage.add(usage);
                self.status.last_prompt = usage.prompt_tokens + usage.completion_tokens;
            }
            AgentEvent::TurnComplete {
                end,
                unsent,
                unsent_images,
                ..
            } => {
                self.transcript.finish_answer();
                if end == TurnEnd::Interrupted {
                    self.transcript
                        .push_notice(NoticeLevel::Info, "interrupted");
                }
                if end == TurnEnd::Truncated && self.composer.is_empty() {
                    // The offer to go on: one Enter sends it, or type something else.
                    self.composer.set_text(CONTINUE);
                    self.transcript.push_notice(
                        NoticeLevel::Info,
                        "the answer was cut off: Enter asks the model to continue",
                    );
                }
                if let Some(figures) = finished {
                    self.transcript
                        .push_notice(NoticeLevel::Info, &figures.describe());
                }
                if !unsent.is_empty() {
                    // Attachments come back as chips, not as tagged blocks in the box.
                    let mut texts = Vec::new();
                    for sent in &unsent {
                        let (text, attachments) = super::attachments::take_back(sent);
                        texts.push(text);
                        self.attachments.extend(attachments);
                    }
                    let mut text = texts.join("\n\n");
                    if !self.composer.is_empty() {
                        text = format!("{}\n\n{text}", self.composer.text());
                    }
                    self.composer.set_text(&text);
                }
                // Their images come back as chips, to go with the text when it is sent.
                self.images.extend(unsent_images);
                self.layers.retain(|l| l.call_id().is_none());
                if self.diff.reviewing.is_some() {
                    self.diff.reviewing = None;
                    self.diff.invalidate();
                }
            }
            AgentEvent::Error { message } => self.show_error(&message),
            AgentEvent::Compacted { .. } => {
                if let Some(report) = event_report {
                    self.transcript
                        .push_notice(NoticeLevel::Info, &report.describe());
                    self.status.last_prompt = report.after_tokens;
                }
            }
            AgentEvent::ContextWindow { tokens, .. } => self.status.context_window = Some(tokens),
            AgentEvent::ChangeApplied {
                id,
                path,
                hunks,
                creates,
                deleted,
                moved_from,
            } => {
                // The structured diff of exactly what was written: shown whole, never
                // parsed back from the model's (possibly cut) text. A call that wrote
                // several files sends one event per file, one after the other.
                let file = DiffFile {
                    path,
                    hunks,
                    notes: Vec::new(),
                    creates,
                    deletes: deleted,
                    moved_from,
                };
                match self.diffs.get_mut(&id) {
                    Some(d) if self.applied.last() == Some(&id) => d.files.push(file),
                    _ => {
                        self.diffs
                            .insert(id.clone(), CallDiff { files: vec![file] });
                        self.applied.push(id.clone());
                    }
                }
                if self.diff_call.as_deref() == Some(id.as_str()) {
                    self.diff_call = None;
                }
            }
            AgentEvent::Attachment { name, result } => match result {
                Ok(text) => self
                    .attachments
                    .push(super::attachments::Attachment { name, text }),
                Err(e) => self
                    .transcript
                    .push_notice(NoticeLevel::Error, &format!("cannot attach {name}: {e}")),
            },
            AgentEvent::Models { result } => match result {
                Ok(models) => self.models = models,
                Err(e) => self.models_error = Some(e),
            },
            AgentEvent::Notice { message } => {
                self.transcript.push_notice(NoticeLevel::Info, &message)
            }
            AgentEvent::UndoPlanned {
                redo,
                diff,
                files,
                conflicts,
            } => {
                self.layers.push(Box::new(UndoConfirm::new(
                    redo,
                    self.pending_undo,
                    diff,
                    files,
                    conflicts,
                )));
            }
            AgentEvent::UndoApplied { redo, files } => {
                let verb = if redo { "Redid" } else { "Undid" };
                self.transcript.push_notice(
                    NoticeLevel::Info,
                    &format!("{verb} changes to {}", files.join(", ")),
                );
            }
            AgentEvent::Changes { changes } => {
                if changes.is_empty() {
                    self.transcript
                        .push_notice(NoticeLevel::Info, "no changes recorded in this session yet");
                } else {
                    let list: Vec<String> = changes
                        .iter()
                        .map(|c| {
                            format!(
                                "#{} turn {} {}: {}{}",
                                c.seq,
                                c.turn,
                                c.tool,
                                c.what,
                                if c.undone { " (undone)" } else { "" }
                            )
                        })
                        .collect();
                    self.transcript
                        .push_notice(NoticeLevel::Info, &format!("changes:\n{}", list.join("\n")));
                }
            }
        }
    }
}
