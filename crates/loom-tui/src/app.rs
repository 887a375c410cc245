//! The TUI's state and how agent events change it. Input lives in `input.rs`, drawing in
//! `view.rs`; this file holds the components and knows the agent only through its events
//! and ops. Each component owns its state and takes its own events: the chat
//! ([`Transcript`], `chat_events.rs`), the tools pane ([`ToolsPane`], `tool_events.rs`),
//! the details pane (`details.rs`), the message box (`composer.rs` and `draft.rs`), the
//! status facts (`status_info.rs`) and the layers (`layers/stack.rs`, one file per box);
//! [`App::on_agent_event`] dispatches to them and wires what several of them show.

use std::time::Instant;

use tokio::sync::mpsc::UnboundedSender;

use super::composer::Composer;
use super::layers::{Action, UndoConfirm};
use super::theme::Theme;
use super::tools_pane::{ToolStatus, ToolsPane, status_mark};
use super::transcript::{NoticeLevel, ToolMark, Transcript};
use crate::protocol::events::{AgentEvent, DecidedBy, Phase, TurnEnd, UserOp};
use crate::protocol::{intent::CallIntent, tool_result::ToolResult};
use serde_json::Value;

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

/// Facts the status bar shows (a component of its own; see `status_info.rs`).
pub use super::status_info::StatusInfo;

/// Everything the screen shows.
pub struct App {
    /// The theme.
    pub theme: Theme,
    /// The conversation.
    pub transcript: Transcript,
    /// Tool calls.
    pub tools: ToolsPane,
    /// The diffs of the calls and the view of the selected one (the details pane).
    pub details: super::details::Details,
    /// The input box.
    pub composer: Composer,
    /// What goes with the message being written (chips, images, completions).
    pub draft: super::draft::Draft,
    /// Requests for the event loop (answers, clipboard, mouse capture).
    pub outbox: super::outbox::Outbox,
    /// The server's models and how to connect a provider.
    pub provider: super::provider::Provider,
    /// Modal layers, front last, and who has the keys when a question is up.
    pub layers: super::layers::Layers,
    /// Keyboard focus.
    pub focus: Focus,
    /// Status bar facts.
    pub status: StatusInfo,
    /// What the agent is doing, with its clocks (the status line's activity).
    pub progress: super::progress::Progress,
    /// The time frames are drawn at.
    pub now: Instant,
    pub(crate) ops: UnboundedSender<UserOp>,
    pub(crate) layout: super::areas::Areas,
}

impl App {
    /// A new screen talking to the agent through `ops`.
    pub fn new(theme: Theme, status: StatusInfo, ops: UnboundedSender<UserOp>) -> App {
        App {
            transcript: Transcript::new(&theme),
            tools: ToolsPane::new(),
            details: Default::default(),
            composer: Composer::new(),
            draft: Default::default(),
            outbox: Default::default(),
            provider: Default::default(),
            layers: Default::default(),
            focus: Focus::Composer,
            status,
            progress: super::progress::Progress::new(Instant::now()),
            now: Instant::now(),
            ops,
            layout: super::areas::Areas::default(),
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
        for m in &self.provider.models {
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
            || self.layers.waiting()
            || self.tools.animating()
            || self.draft.listing()
            || self.transcript.awaiting_highlighting()
            || self.transcript.restyling()
            || self.layers.held.is_some()
    }

    /// Called before each frame: advance the clock and pick up late-loading highlighting.
    pub fn tick(&mut self, now: Instant) {
        self.now = now;
        self.layers.tick();
        if self.transcript.pick_up_highlighting() {
            self.details.view.invalidate();
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

    /// Show the diff of the selected call, if it has one (see [`Details::sync`]).
    ///
    /// [`Details::sync`]: super::details::Details::sync
    pub(crate) fn sync_details(&mut self) {
        let current = self.tools.current().map(|r| r.id.as_str());
        self.details.sync(current);
    }

    /// Apply an action a layer asked for.
    pub(crate) fn run_action(&mut self, action: Action) {
        match action {
            Action::Send(op) => {
                if let UserOp::Approve { id, .. } = &op {
                    self.resolve_review(id);
                }
                if let UserOp::ApprovePlan { autonomy } = &op {
                    self.plan_approved(*autonomy);
                }
                self.send(op);
            }
            Action::AskReason(id) => self
                .layers
                .push(Box::new(super::layers::ReasonPrompt::new(&id))),
            Action::Trust(trust) => self.outbox.trust_answer = Some(trust),
            Action::SetModel(model) => self.set_model(&model),
            Action::Resume(choice) => self.outbox.resume_choice = Some(choice),
        }
    }

    /// The person answered about call `id`: stop reviewing it.
    pub(crate) fn resolve_review(&mut self, id: &str) {
        if self.details.resolve_review(id) && self.focus == Focus::Details {
            self.focus = Focus::Composer;
        }
    }

    /// React to one event from the agent (which arrived at `self.now`): each component
    /// takes its own events; the few that several parts show are wired here.
    pub fn on_agent_event(&mut self, event: AgentEvent) {
        self.watch_attention(&event);
        let finished = self.progress.observe(&event, self.now);
        let report = event.compaction();
        if matches!(event, AgentEvent::UserMessage { .. }) {
            self.withdraw_plan_offer();
        }
        match event {
            status @ (AgentEvent::StateChanged { .. }
            | AgentEvent::Usage { .. }
            | AgentEvent::ContextWindow { .. }
            | AgentEvent::McpStatus { .. }
            | AgentEvent::LspStatus { .. }) => {
                for warning in self.status.on_agent_event(status) {
                    self.transcript.push_notice(NoticeLevel::Warning, &warning);
                }
            }
            AgentEvent::SubAgent { parent_id, event } => self.on_sub_agent(vec![parent_id], *event),
            tool @ (AgentEvent::ToolCall { .. }
            | AgentEvent::ApprovalRequested { .. }
            | AgentEvent::Approval { .. }
            | AgentEvent::ToolStarted { .. }
            | AgentEvent::ToolResult { .. }
            | AgentEvent::HookResult { .. }) => self.on_tool_event(tool),
            AgentEvent::TurnComplete {
                end,
                unsent,
                unsent_images,
                ..
            } => self.on_turn_complete(end, &unsent, unsent_images, finished),
            AgentEvent::Error { message } => self.transcript.push_error(&message),
            AgentEvent::Compacted { .. } => {
                if let Some(report) = report {
                    self.transcript
                        .push_notice(NoticeLevel::Info, &report.describe());
                    self.status.last_prompt = report.after_tokens;
                }
            }
            change @ AgentEvent::ChangeApplied { .. } => self.details.on_agent_event(change),
            AgentEvent::Attachment { name, result } => {
                if let Err(e) = self.draft.on_attachment(name, result) {
                    self.transcript.push_notice(NoticeLevel::Error, &e);
                }
            }
            AgentEvent::Models { result } => self.provider.on_models(result),
            AgentEvent::PlanUpdated { plan } => self.transcript.set_plan(&plan),
            AgentEvent::CustomCommands { commands, warnings } => {
                self.on_custom_commands(commands, warnings)
            }
            AgentEvent::PromptHistory { prompts } => self.on_prompt_history(prompts),
            // The call's result already names the files a command changed.
            AgentEvent::CommandChanged { .. } => {}
            AgentEvent::ReviewFindings { findings } => self.on_review_findings(findings),
            // The error or notice before it told the person why.
            AgentEvent::CustomCommandNotSent { .. } => {}
            AgentEvent::UndoPlanned {
                redo,
                diff,
                files,
                conflicts,
            } => {
                let scope = self.layers.pending_undo;
                let confirm = UndoConfirm::new(redo, scope, diff, files, conflicts);
                self.layers.push(Box::new(confirm));
            }
            rewind @ (AgentEvent::RewindPrompts { .. }
            | AgentEvent::RewindPlanned { .. }
            | AgentEvent::Rewound { .. }
            | AgentEvent::Forked { .. }) => self.on_rewind_event(rewind),
            chat @ (AgentEvent::UserMessage { .. }
            | AgentEvent::TextDelta { .. }
            | AgentEvent::ReasoningDelta { .. }
            | AgentEvent::AssistantMessage { .. }
            | AgentEvent::Retry { .. }
            | AgentEvent::Notice { .. }
            | AgentEvent::UndoApplied { .. }
            | AgentEvent::Changes { .. }) => self.transcript.on_agent_event(chat),
        }
    }

    /// An event in a tool call's life: made, asked about, answered, started, finished; or
    /// a hook's run. The tools pane keeps the row; the chat, the details pane and the
    /// layers show their part.
    fn on_tool_event(&mut self, event: AgentEvent) {
        match event {
            AgentEvent::ToolCall {
                id,
                name,
                arguments,
                intent,
            } => self.on_tool_call(&id, name, arguments, intent.as_deref()),
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
            } => self.on_approval(&id, approved, by, reason),
            AgentEvent::ToolStarted { id } => {
                self.tools.on_started(&id, self.now);
                self.mark(&id);
            }
            AgentEvent::ToolResult {
                id,
                result,
                duration_ms,
                ..
            } => self.on_tool_result(&id, result, duration_ms),
            AgentEvent::HookResult {
                name,
                success,
                output,
                duration_ms,
            } => {
                if let Some(warning) = self.tools.on_hook(name, success, output, duration_ms) {
                    self.transcript.push_notice(NoticeLevel::Warning, &warning);
                }
            }
            _ => {}
        }
    }

    /// The model made call `id`: its line in the chat, its row, its mark.
    fn on_tool_call(
        &mut self,
        id: &str,
        name: String,
        arguments: Value,
        intent: Option<&CallIntent>,
    ) {
        let summary = self.tools.call_summary(&name, &arguments, intent);
        // A plan is shown as its block (PlanUpdated), not a line per call.
        if name != "update_plan" {
            self.transcript.push_tool(id, &format!("{name} {summary}"));
        }
        self.tools.on_call(id, name, summary, arguments);
        self.mark(id);
        self.sync_details();
    }

    /// The person (or the policy) answered about call `id`.
    fn on_approval(&mut self, id: &str, approved: bool, by: DecidedBy, reason: Option<String>) {
        if !approved {
            self.show_refusal(id, by == DecidedBy::User, reason.as_deref());
        }
        self.mark(id);
        self.resolve_review(id);
        self.layers.close_call(id);
    }

    /// Call `id` was refused: its row says so, and the chat says why when a reason was
    /// given (the policy's or a hook's, or what the person typed after "why not?").
    pub(crate) fn show_refusal(&mut self, id: &str, by_person: bool, reason: Option<&str>) {
        self.tools.on_denied(id);
        let said = reason.and_then(|r| r.strip_prefix(crate::protocol::events::PERSON_SAID));
        match (by_person, reason) {
            (false, Some(r)) => self
                .transcript
                .push_notice(NoticeLevel::Warning, &format!("refused: {r}")),
            (true, Some(_)) => {
                if let Some(said) = said {
                    self.transcript
                        .push_notice(NoticeLevel::Info, &format!("you refused it: {said}"));
                }
            }
            (_, None) => {}
        }
    }

    /// Call `id` finished: its row, mark and output; a `!command`'s output is attached.
    fn on_tool_result(&mut self, id: &str, result: ToolResult, duration_ms: u64) {
        self.tools.on_result(id, result, duration_ms);
        self.mark(id);
        self.show_output(id);
        self.resolve_review(id);
        self.layers.close_call(id);
        self.sync_details();
        if id.starts_with(crate::protocol::events::SHELL_ID_PREFIX) {
            self.attach_shell_output(id);
        }
    }

    /// The turn ended: say how, offer to continue a cut answer, give back what was not sent,
    /// and close the questions and the review of its calls.
    fn on_turn_complete(
        &mut self,
        end: TurnEnd,
        unsent: &[String],
        unsent_images: Vec<crate::protocol::image::Image>,
        finished: Option<super::progress::TurnFigures>,
    ) {
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
        self.draft
            .give_back(unsent, unsent_images, &mut self.composer);
        self.layers.close_calls();
        self.details.end_reviews();
        self.offer_plan(&end);
    }
}
