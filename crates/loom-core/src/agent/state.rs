//! The agent's state machine: pure transitions, no I/O.
//!
//! [`Machine::step`] takes one [`Event`] (a person's op, or the outcome of an action the
//! runner performed) and returns the [`Action`]s to perform next. The runner does the HTTP,
//! tool runs, timers and printing, and feeds the outcomes back as events. Because the
//! machine owns the conversation, its guarantees are checkable by property tests: every
//! tool call gets exactly one result with its id before the next model request; retries
//! are bounded; Shutdown is reachable from every state; Interrupt returns to Idle with
//! running tools cancelled; stale events (for calls already answered) are ignored.
//!
//! Scheduling: read-only calls of one response run concurrently; a call that writes or
//! executes waits for every earlier call and blocks every later one, so writes and commands
//! run one at a time in the order the model gave.

use std::collections::VecDeque;

use serde_json::Value;

use super::events::{AgentEvent, ApprovalAnswer, DecidedBy, Phase, TurnEnd};
use crate::llm::{Message, Stop, ToolCall, Usage};
use crate::protocol::events::PERSON_SAID;
use crate::tools::{CallIntent, ToolKind, ToolResult};

mod compaction;
mod hooks;
mod model_answers;

pub use super::steps::{Action, Event, Limits, ProposedCall, Verdict};

struct Failure {
    overflow: Option<crate::llm::overflow::Overflow>,
    message: String,
    retryable: bool,
    partial_text: String,
    emitted: bool,
    retry_after: Option<std::time::Duration>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SlotStatus {
    Pending,
    Deciding,
    Asking,
    Running,
    Done,
}

#[derive(Debug, Clone)]
struct Slot {
    call: ToolCall,
    kind: ToolKind,
    args: crate::tools::ToolArgs,
    intent: Option<CallIntent>,
    status: SlotStatus,
    result: Option<ToolResult>,
    /// A line for the result (argument names mapped to Loom's).
    note: Option<String>,
}

impl CallRef<'_> {
    /// The tool's name.
    pub fn name_owned(&self) -> String {
        self.call.name.clone()
    }
}

/// A call of the current batch, as the runner needs it.
#[derive(Debug, Clone, Copy)]
pub struct CallRef<'a> {
    /// The call as the model made it (canonical arguments text).
    pub call: &'a ToolCall,
    /// Its kind.
    pub kind: ToolKind,
    /// The canonical arguments, parsed.
    pub args: &'a crate::tools::ToolArgs,
    /// What it will touch (`None` for invalid calls, which never run).
    pub intent: Option<&'a CallIntent>,
}

/// The agent's state.
#[derive(Debug, Clone)]
pub struct Machine {
    phase: Phase,
    conversation: Vec<Message>,
    batch: Vec<Slot>,
    round: u32,
    attempt: u32,
    queued: VecDeque<(super::events::UserInput, Option<String>)>,
    turn_usage: Usage,
    limits: Limits,
    /// Said to the model (as a user message) before the next request of this turn.
    note: Option<String>,
    /// Whether the conversation was compacted since the last answer (a request that
    /// still does not fit then fails instead of compacting again).
    compacted: bool,
    /// Whether the model refused images: tools' images are no longer attached.
    images_refused: bool,
    /// Whether the running compaction was asked for by the person (it ends idle).
    compacting_on_request: bool,
    /// Whether Stop hooks run when the model ends its turn.
    stop_hooks: bool,
    /// How many times Stop hooks made the model go on this turn.
    stop_continues: u32,
    /// Notes for the model that came while a turn ran (an approval-mode switch): they go
    /// in before the turn's next request, or at its end.
    mid_turn_notes: Vec<String>,
}

/// How many times per turn Stop hooks may make the model go on (a guard against a hook
/// that never lets the turn end).
pub const STOP_HOOK_CAP: u32 = 3;

impl Machine {
    /// An idle machine with an empty conversation.
    pub fn new(limits: Limits) -> Machine {
        Machine::resume(limits, Vec::new())
    }

    /// An idle machine continuing `conversation` (from a saved session).
    pub fn resume(limits: Limits, conversation: Vec<Message>) -> Machine {
        Machine {
            phase: Phase::Idle,
            conversation,
            batch: Vec::new(),
            round: 0,
            attempt: 0,
            queued: VecDeque::new(),
            turn_usage: Usage::default(),
            limits,
            note: None,
            compacted: false,
            images_refused: false,
            compacting_on_request: false,
            stop_hooks: false,
            stop_continues: 0,
            mid_turn_notes: Vec::new(),
        }
    }

    /// Run Stop hooks when the model ends its turn (`false`: the turn ends at once).
    pub fn set_stop_hooks(&mut self, on: bool) {
        self.stop_hooks = on;
    }

    /// The current state.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Whether the conversation was compacted since the model last answered (then the
    /// runner sends the request as it is rather than compacting again).
    pub fn compacted(&self) -> bool {
        self.compacted
    }

    /// The conversation so far (without the system prompt).
    pub fn conversation(&self) -> &[Message] {
        &self.conversation
    }

    /// Rewind: the conversation ends just before message `keep` (between turns only;
    /// false, and nothing cut, otherwise).
    pub fn cut(&mut self, keep: usize) -> bool {
        if self.phase != Phase::Idle || keep > self.conversation.len() {
            return false;
        }
        self.conversation.truncate(keep);
        true
    }

    /// Whether every image in the conversation was returned by a tool (none attached by
    /// the person).
    pub fn images_only_from_tools(&self) -> bool {
        self.conversation.iter().all(|m| match m {
            Message::User { content, images } => {
                images.is_empty() || content.starts_with(TOOL_IMAGES)
            }
            _ => true,
        })
    }

    /// Take every attached image out of the conversation (a model that cannot take
    /// images refuses every request carrying one), leaving a line in its message that
    /// says so. Returns the names of the images taken out.
    pub fn strip_images(&mut self) -> Vec<String> {
        self.images_refused = true;
        let mut names = Vec::new();
        for m in &mut self.conversation {
            if let Message::User { content, images } = m {
                for image in images.drain(..) {
                    content.push_str(&format!(
                        "\n[image {} left out: this model does not accept images]",
                        image.name
                    ));
                    names.push(image.name);
                }
            }
        }
        names
    }

    /// The call with this id in the current batch.
    pub fn call(&self, id: &str) -> Option<CallRef<'_>> {
        self.batch
            .iter()
            .find(|s| s.call.id == id)
            .map(|s| CallRef {
                call: &s.call,
                kind: s.kind,
                args: &s.args,
                intent: s.intent.as_ref(),
            })
    }

    /// Ids of calls currently waiting for a person.
    pub fn asking(&self) -> Vec<&str> {
        self.batch
            .iter()
            .filter(|s| s.status == SlotStatus::Asking)
            .map(|s| s.call.id.as_str())
            .collect()
    }

    /// The limits in force.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Apply one event; return what to do next.
    pub fn step(&mut self, event: Event) -> Vec<Action> {
        let mut out = Vec::new();
        if self.phase == Phase::ShuttingDown {
            return out;
        }
        match event {
            Event::Submit(text) => self.on_submit(text, None, &mut out),
            Event::SubmitWithContext { input, context } => self.on_submit(input, context, &mut out),
            Event::StopHooksFinished { block } => self.on_stop_hooks_finished(block, &mut out),
            Event::PromptBlocked { input, reason } => {
                self.on_prompt_blocked(input, reason, &mut out)
            }
            Event::LlmFinished {
                text,
                calls,
                usage,
                stop,
            } => {
                if self.phase == Phase::CallingLlm {
                    self.on_llm_finished(text, calls, usage, stop, &mut out);
                }
            }
            Event::LlmFailed {
                message,
                retryable,
                partial_text,
                emitted,
                retry_after,
                overflow,
            } => {
                if self.phase == Phase::CallingLlm {
                    let failure = Failure {
                        overflow,
                        message,
                        retryable,
                        partial_text,
                        emitted,
                        retry_after,
                    };
                    self.on_llm_failed(failure, &mut out);
                }
            }
            Event::Spent(usage) => self.on_spent(usage, &mut out),
            Event::ContextFull => self.on_context_full(&mut out),
            Event::CompactNow => self.on_compact_now(&mut out),
            Event::Compacted {
                conversation,
                report,
            } => self.on_compacted(conversation, report, &mut out),
            Event::CompactFailed { message } => self.on_compact_failed(&message, &mut out),
            Event::RetryElapsed => self.on_retry_elapsed(&mut out),
            Event::Decided { id, verdict } => self.on_decided(&id, verdict, &mut out),
            Event::Answered { id, answer } => self.on_answered(&id, answer, &mut out),
            Event::ToolFinished {
                id,
                result,
                duration_ms,
            } => {
                if self.slot_status(&id) == Some(SlotStatus::Running) {
                    self.complete(&id, result, duration_ms, &mut out);
                    self.advance(&mut out);
                }
            }
            Event::HooksFinished { messages } => self.on_hooks_finished(messages, &mut out),
            Event::Interrupt { partial_text } => self.on_interrupt(partial_text, &mut out),
            Event::Clear => self.on_clear(&mut out),
            Event::Note(text) => match self.phase {
                Phase::Idle => self.conversation.push(Message::user(text)),
                Phase::ShuttingDown => {}
                _ => self.mid_turn_notes.push(text),
            },
            Event::Shutdown => self.on_shutdown(&mut out),
        }
        out
    }

    /// A request cost `usage` outside a finished answer (an interrupted or failed one).
    fn on_spent(&mut self, usage: Usage, out: &mut Vec<Action>) {
        if self.phase != Phase::Idle {
            self.turn_usage.add(usage);
            out.push(Action::Emit(AgentEvent::Usage { usage }));
        }
    }

    /// The post-tools hooks ran: what they say to the model goes in, and the model is
    /// asked again.
    fn on_hooks_finished(&mut self, messages: Vec<String>, out: &mut Vec<Action>) {
        if self.phase == Phase::PostToolsHook {
            for m in messages {
                self.conversation.push(Message::user(m));
            }
            self.call_llm(out);
        }
    }

    /// Stop everything; no event is taken after this.
    fn on_shutdown(&mut self, out: &mut Vec<Action>) {
        out.push(Action::CancelLlm);
        out.push(Action::CancelTools);
        out.push(Action::CancelTimers);
        self.set_phase(Phase::ShuttingDown, out);
        out.push(Action::Stop);
    }

    /// The retry's wait is over: the request is made again (with the note for the model,
    /// if any).
    fn on_retry_elapsed(&mut self, out: &mut Vec<Action>) {
        if self.phase == Phase::Error {
            self.push_mid_turn_notes();
            if let Some(note) = self.note.take() {
                self.conversation.push(Message::user(note));
            }
            self.set_phase(Phase::CallingLlm, out);
            out.push(Action::CallLlm {
                attempt: self.attempt,
            });
        }
    }

    /// `/clear`: a new conversation, between turns only.
    fn on_clear(&mut self, out: &mut Vec<Action>) {
        if self.phase == Phase::Idle {
            self.conversation.clear();
            out.push(Action::Emit(AgentEvent::Notice {
                message: "Started a new conversation.".into(),
            }));
        } else {
            out.push(Action::Emit(AgentEvent::Error {
                message: "finish or interrupt (Esc) the current turn before clearing".into(),
            }));
        }
    }

    fn set_phase(&mut self, phase: Phase, out: &mut Vec<Action>) {
        if self.phase != phase {
            self.phase = phase;
            out.push(Action::Emit(AgentEvent::StateChanged { phase }));
        }
    }

    fn on_submit(
        &mut self,
        input: super::events::UserInput,
        context: Option<String>,
        out: &mut Vec<Action>,
    ) {
        if self.phase == Phase::Idle {
            self.start_turn((input, context), out);
        } else {
            let text = crate::llm::image::with_chips(&input.text, &input.images);
            self.queued.push_back((input, context));
            out.push(Action::Emit(AgentEvent::UserMessage { text, queued: true }));
        }
    }

    fn start_turn(
        &mut self,
        (input, context): (super::events::UserInput, Option<String>),
        out: &mut Vec<Action>,
    ) {
        let text = crate::llm::image::with_chips(&input.text, &input.images);
        self.conversation.push(Message::User {
            content: input.text,
            images: input.images,
        });
        if let Some(context) = context {
            self.conversation.push(Message::user(context));
        }
        out.push(Action::Emit(AgentEvent::UserMessage {
            text,
            queued: false,
        }));
        self.round = 0;
        self.stop_continues = 0;
        self.turn_usage = Usage::default();
        self.call_llm(out);
    }

    fn call_llm(&mut self, out: &mut Vec<Action>) {
        self.push_mid_turn_notes();
        if let Some(note) = self.note.take() {
            self.conversation.push(Message::user(note));
        }
        self.attempt = 1;
        self.set_phase(Phase::CallingLlm, out);
        out.push(Action::CallLlm { attempt: 1 });
    }

    /// The notes that came while the turn ran, as user messages (one message: they are
    /// said together).
    fn push_mid_turn_notes(&mut self) {
        if !self.mid_turn_notes.is_empty() {
            let text = std::mem::take(&mut self.mid_turn_notes).join("\n");
            self.conversation.push(Message::user(text));
        }
    }

    fn slot_status(&self, id: &str) -> Option<SlotStatus> {
        self.batch
            .iter()
            .find(|s| s.call.id == id)
            .map(|s| s.status)
    }

    fn on_decided(&mut self, id: &str, verdict: Verdict, out: &mut Vec<Action>) {
        if self.slot_status(id) != Some(SlotStatus::Deciding) {
            return;
        }
        match verdict {
            Verdict::Allow => {
                out.push(Action::Emit(AgentEvent::Approval {
                    id: id.to_string(),
                    approved: true,
                    by: DecidedBy::Policy,
                    reason: None,
                }));
                self.start(id, None, out);
            }
            Verdict::Ask { reason } => {
                self.set_status(id, SlotStatus::Asking);
                self.set_phase(Phase::AwaitingApproval, out);
                out.push(Action::AskUser {
                    id: id.to_string(),
                    reason,
                });
            }
            Verdict::Deny { reason } => {
                let told = format!("denied by policy: {reason}");
                self.refuse(id, DecidedBy::Policy, reason, told, out);
            }
            Verdict::Blocked { reason } => {
                self.refuse(id, DecidedBy::Hook, reason.clone(), reason, out);
            }
            Verdict::Failed { result } => self.complete(id, result, 0, out),
        }
        self.advance(out);
    }

    /// Call `id` is refused by `by` for `reason`: the front ends hear why, and the model
    /// reads `told` as the call's result.
    fn refuse(
        &mut self,
        id: &str,
        by: DecidedBy,
        reason: String,
        told: String,
        out: &mut Vec<Action>,
    ) {
        out.push(Action::Emit(AgentEvent::Approval {
            id: id.to_string(),
            approved: false,
            by,
            reason: Some(reason),
        }));
        self.complete(id, ToolResult::err(told), 0, out);
    }

    fn on_answered(&mut self, id: &str, answer: ApprovalAnswer, out: &mut Vec<Action>) {
        if self.slot_status(id) != Some(SlotStatus::Asking) {
            return;
        }
        let denial = match &answer {
            ApprovalAnswer::Deny { reason } => Some(match reason.as_deref().map(str::trim) {
                Some(r) if !r.is_empty() => format!("{PERSON_SAID}{r}"),
                _ => "the user denied this call".to_string(),
            }),
            ApprovalAnswer::ApproveHunks { hunks } if !hunks.iter().any(|h| *h) => {
                Some("the user rejected every hunk of this change; nothing was written".to_string())
            }
            _ => None,
        };
        match denial {
            Some(reason) => self.refuse(id, DecidedBy::User, reason.clone(), reason, out),
            None => {
                let grant = answer == ApprovalAnswer::ApproveForSession;
                out.push(Action::Emit(AgentEvent::Approval {
                    id: id.to_string(),
                    approved: true,
                    by: DecidedBy::User,
                    reason: grant.then(|| "approved for the rest of the session".to_string()),
                }));
                if grant {
                    out.push(Action::Grant { id: id.to_string() });
                }
                self.start(id, Some(answer), out);
            }
        }
        if self.asking().is_empty() && self.phase == Phase::AwaitingApproval {
            self.set_phase(Phase::ExecutingTools, out);
        }
        self.advance(out);
    }

    fn set_status(&mut self, id: &str, status: SlotStatus) {
        if let Some(s) = self.batch.iter_mut().find(|s| s.call.id == id) {
            s.status = status;
        }
    }

    fn start(&mut self, id: &str, answer: Option<ApprovalAnswer>, out: &mut Vec<Action>) {
        self.set_status(id, SlotStatus::Running);
        out.push(Action::Emit(AgentEvent::ToolStarted { id: id.to_string() }));
        out.push(Action::RunTool {
            id: id.to_string(),
            answer,
        });
    }

    fn complete(&mut self, id: &str, result: ToolResult, duration_ms: u64, out: &mut Vec<Action>) {
        let Some(slot) = self.batch.iter_mut().find(|s| s.call.id == id) else {
            return;
        };
        slot.status = SlotStatus::Done;
        let mut result = result;
        if let Some(note) = &slot.note {
            crate::tools::registry::with_note(&mut result, note);
        }
        out.push(Action::Emit(AgentEvent::ToolResult {
            id: id.to_string(),
            name: slot.call.name.clone(),
            result: result.clone(),
            duration_ms,
        }));
        slot.result = Some(result);
    }

    /// Start what may start; when the batch is done, move on.
    fn advance(&mut self, out: &mut Vec<Action>) {
        if !matches!(self.phase, Phase::ExecutingTools | Phase::AwaitingApproval) {
            return;
        }
        let mut to_decide = Vec::new();
        let mut earlier_busy = false;
        for slot in &mut self.batch {
            let sequential = slot.kind != ToolKind::Read;
            match slot.status {
                SlotStatus::Done => continue,
                SlotStatus::Pending => {
                    if sequential && earlier_busy {
                        break;
                    }
                    slot.status = SlotStatus::Deciding;
                    to_decide.push(slot.call.id.clone());
                    if sequential {
                        break;
                    }
                    earlier_busy = true;
                }
                SlotStatus::Deciding | SlotStatus::Asking | SlotStatus::Running => {
                    if sequential {
                        break;
                    }
                    earlier_busy = true;
                }
            }
        }
        for id in to_decide {
            out.push(Action::Decide { id });
        }
        if self.batch.iter().all(|s| s.status == SlotStatus::Done) {
            self.finish_batch(out);
        }
    }

    fn finish_batch(&mut self, out: &mut Vec<Action>) {
        let batch = std::mem::take(&mut self.batch);
        let mut mutated = false;
        let mut files = Vec::new();
        let mut images = Vec::new();
        for slot in &batch {
            let result = slot
                .result
                .clone()
                .unwrap_or_else(|| ToolResult::err("no result"));
            // A call that reports changed files mutated, whatever its kind (a delegate
            // call, a read to the policy, reports what its sub-agent wrote).
            if (slot.kind.is_mutating() || !result.files_changed.is_empty()) && result.success {
                mutated = true;
                for f in &result.files_changed {
                    if !files.contains(f) {
                        files.push(f.clone());
                    }
                }
            }
            self.conversation.push(tool_message(
                &slot.call,
                &result,
                self.limits.tool_output_budget,
            ));
            if !result.images.is_empty() {
                images.push((slot.call.name.clone(), result.images));
            }
        }
        // Images a call returned (screenshots) reach the model after the results, in the
        // one message kind that can carry them.
        if !images.is_empty() && !self.images_refused {
            let names: Vec<String> = images
                .iter()
                .flat_map(|(tool, list)| list.iter().map(move |i| format!("{} ({tool})", i.name)))
                .collect();
            self.conversation.push(Message::User {
                content: format!("{TOOL_IMAGES} {}]", names.join(", ")),
                images: images.into_iter().flat_map(|(_, list)| list).collect(),
            });
        }
        if mutated {
            self.set_phase(Phase::PostToolsHook, out);
            out.push(Action::RunHooks { files });
        } else {
            self.call_llm(out);
        }
    }

    fn on_interrupt(&mut self, partial_text: String, out: &mut Vec<Action>) {
        match self.phase {
            Phase::Idle | Phase::ShuttingDown => return,
            Phase::CallingLlm => {
                out.push(Action::CancelLlm);
                if !partial_text.is_empty() {
                    self.conversation.push(Message::Assistant {
                        content: format!(
                            "{partial_text}{}",
                            crate::protocol::message::INTERRUPTED_MARK
                        ),
                        tool_calls: Vec::new(),
                    });
                }
            }
            Phase::Error => out.push(Action::CancelTimers),
            Phase::Compacting => {
                out.push(Action::CancelLlm);
                if std::mem::take(&mut self.compacting_on_request) {
                    // Nothing was sent: messages typed meanwhile go back to the person,
                    // as after any interrupt.
                    self.set_phase(Phase::Idle, out);
                    let (unsent, unsent_images) = self.give_back_queued();
                    out.push(Action::Emit(AgentEvent::TurnComplete {
                        usage: Usage::default(),
                        end: TurnEnd::Interrupted,
                        unsent,
                        unsent_images,
                    }));
                    return;
                }
            }
            Phase::ExecutingTools | Phase::AwaitingApproval | Phase::PostToolsHook => {
                out.push(Action::CancelTools);
                let open: Vec<(String, SlotStatus)> = self
                    .batch
                    .iter()
                    .filter(|s| s.status != SlotStatus::Done)
                    .map(|s| (s.call.id.clone(), s.status))
                    .collect();
                for (id, status) in open {
                    let msg = if status == SlotStatus::Running {
                        "interrupted by the user while running; it may have had partial effects"
                    } else {
                        "not run: the user interrupted the turn"
                    };
                    self.complete(&id, ToolResult::err(msg), 0, out);
                }
                let batch = std::mem::take(&mut self.batch);
                for slot in &batch {
                    let result = slot
                        .result
                        .clone()
                        .unwrap_or_else(|| ToolResult::err("interrupted"));
                    self.conversation.push(tool_message(
                        &slot.call,
                        &result,
                        self.limits.tool_output_budget,
                    ));
                }
            }
        }
        self.end_turn(TurnEnd::Interrupted, out);
    }

    /// A compaction the person asked for is over: back to idle, and a message typed while
    /// it ran is sent now.
    fn end_request_compaction(&mut self, out: &mut Vec<Action>) {
        self.set_phase(Phase::Idle, out);
        if let Some(next) = self.queued.pop_front() {
            self.start_turn(next, out);
        }
    }

    /// The queued messages, taken back after an interrupt: their texts and, all
    /// together, their images.
    fn give_back_queued(&mut self) -> (Vec<String>, Vec<crate::llm::image::Image>) {
        let mut texts = Vec::new();
        let mut images = Vec::new();
        for (input, _) in self.queued.drain(..) {
            texts.push(input.text);
            images.extend(input.images);
        }
        (texts, images)
    }

    fn end_turn(&mut self, end: TurnEnd, out: &mut Vec<Action>) {
        self.batch.clear();
        self.note = None;
        // A note the turn had no request left for is said before the next one, as a
        // note between turns is.
        self.push_mid_turn_notes();
        self.compacted = false;
        self.set_phase(Phase::Idle, out);
        let (unsent, unsent_images) = if end == TurnEnd::Interrupted {
            self.give_back_queued()
        } else {
            (Vec::new(), Vec::new())
        };
        out.push(Action::Emit(AgentEvent::TurnComplete {
            usage: std::mem::take(&mut self.turn_usage),
            end,
            unsent,
            unsent_images,
        }));
        if let Some(next) = self.queued.pop_front() {
            self.start_turn(next, out);
        }
    }
}

/// How the message carrying the images tools returned begins.
pub const TOOL_IMAGES: &str = "[images returned by the tools:";

fn tool_message(call: &ToolCall, result: &ToolResult, budget: usize) -> Message {
    Message::Tool {
        tool_call_id: call.id.clone(),
        name: call.name.clone(),
        content: crate::tools::fit::model_json(result, budget),
    }
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "state/hook_tests.rs"]
mod hook_tests;
