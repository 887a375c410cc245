//! The runner: the one place the agent does I/O.
//!
//! It owns the [`Machine`], turns [`UserOp`]s into events, performs the machine's actions
//! (model requests, policy checks with previews, tool runs, timers, hooks) as cancellable
//! tasks, and feeds their outcomes back as events. Every task reports on one internal
//! channel, so the machine sees one event at a time and stays the single source of truth.
//! It knows no screen: front ends read [`AgentEvent`]s and send [`UserOp`]s.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

mod attach;
mod model_turn;
mod ops;
mod prefix;
mod shell;
mod tool_calls;

pub use shell::SHELL_ID_PREFIX;

use super::effects::{resolve_calls, run_with_snapshots, write_with_record};
use super::events::{AgentEvent, ApprovalAnswer, ApprovalPreview, FilePreview, Phase, UserOp};
use super::state::{Action, Event, Limits, Machine, Verdict};
use crate::changelog::Changelog;
use crate::hooks::HookChain;
use crate::llm::retry::RetryPolicy;
use crate::llm::{ChatRequest, LlmClient, LlmError, Message, StreamEvent, Usage};
use crate::policy::{Decision, Policy, Ruling};
use crate::protocol::changes::Scope;
use crate::session::{Record, SessionLog};
use crate::tools::change::HunkSelection;
use crate::tools::{FileChange, ToolContext, ToolKind, ToolRegistry, ToolResult};

/// How the agent behaves, apart from what the policy decides.
#[derive(Debug, Clone, Default)]
pub struct AgentOptions {
    /// Turn limits.
    pub limits: Limits,
    /// Retry schedule for model requests.
    pub retry: RetryPolicy,
}

/// What a running agent gives its front end.
pub struct AgentHandle {
    /// Send ops here.
    pub ops: mpsc::UnboundedSender<UserOp>,
    /// Read events here.
    pub events: mpsc::UnboundedReceiver<AgentEvent>,
    /// The runner task; it ends after `Shutdown`.
    pub task: tokio::task::JoinHandle<()>,
    /// Set once anything of the session could not be saved (a full disk): a headless run
    /// fails then even when its turn ended `done`, as the work is not all on disk.
    pub unsaved: Arc<AtomicBool>,
}

/// Characters per token before the server has reported any usage: a little below the
/// usual four, as code and JSON tokenise denser than prose (compaction comes early rather
/// than late).
const DEFAULT_CHARS_PER_TOKEN: f64 = 3.5;

/// What is said when there is no model server, after the full how-to was shown once.
const NO_PROVIDER_AGAIN: &str =
    "no model server is connected (how to connect one is shown above, and in `loom --help`)";

/// Messages from the runner's own tasks.
enum Internal {
    Machine(Event),
    Prepared {
        id: String,
        changes: Vec<FileChange>,
        verdict: Verdict,
    },
    /// The undo journal or a workspace snapshot could not be written.
    JournalFailed(String),
    /// What a request the server reported usage for says about Loom's counting.
    Calibrated(Calibration),
    /// A model's tokeniser is loaded and can count (`false`: it could not be loaded).
    TokenizerReady {
        /// The model it was loaded for.
        model: String,
        /// Whether it loaded.
        loaded: bool,
    },
    /// A file change was written (sent before the call's result).
    Applied(AgentEvent),
    /// What the server says about the model (its window, whether tools can reach it).
    Discovered(crate::llm::window::ModelInfo),
}

/// How the server's reported usage corrects Loom's count of a request.
enum Calibration {
    /// Characters per token (models whose tokeniser Loom does not know).
    Chars(f64),
    /// The server's tokens per token the tokeniser counted (framing Loom cannot see), and
    /// characters per token in case the tokeniser turns out not to be the model's.
    Tokenizer {
        /// Server tokens over counted tokens.
        ratio: f64,
        /// Characters per server token.
        chars: f64,
    },
}

/// Whether a tokeniser's tables are in memory. They cost tens of megabytes and most of a
/// second to load, so they are loaded only once a conversation nears its window (the
/// estimate is good enough far from it), and a request waits for them only when close.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Loaded {
    /// Not asked for yet.
    No,
    /// Loading on a blocking thread.
    Loading,
    /// Ready to count.
    Yes,
}

/// Share of the window (estimated) at which the tokeniser starts loading.
const TOKENIZER_LOAD_AT: f64 = 0.4;
/// Share of the window (estimated) above which a request waits for it.
const TOKENIZER_WAIT_AT: f64 = 0.6;

/// How far the server's count may be from the tokeniser's before Loom decides the model
/// does not use that tokeniser (a local model with an OpenAI name) and estimates instead.
const TOKENIZER_AGREES: std::ops::RangeInclusive<f64> = 0.7..=1.5;

/// Everything the runner needs; see [`Runner::spawn`].
pub struct Runner {
    machine: Machine,
    registry: Arc<ToolRegistry>,
    policy: Policy,
    llm: Option<LlmClient>,
    no_provider_message: String,
    ctx: ToolContext,
    system_prompt: String,
    hooks: HookChain,
    options: AgentOptions,
    events: mpsc::UnboundedSender<AgentEvent>,
    internal_tx: mpsc::UnboundedSender<Internal>,
    internal_rx: mpsc::UnboundedReceiver<Internal>,
    llm_cancel: CancellationToken,
    partial: Arc<Mutex<String>>,
    tool_cancel: CancellationToken,
    /// The session's model cell (see [`RunnerParts::current_model`]).
    current_model: Option<crate::llm::current::CurrentModel>,
    /// Stops the person's running `!command` (Esc between turns).
    shell_cancel: CancellationToken,
    timer_cancel: CancellationToken,
    prepared: HashMap<String, Vec<FileChange>>,
    rulings: HashMap<String, Ruling>,
    tool_schemas: Vec<Value>,
    /// Characters of `tool_schemas` as sent (counted once per refresh, read by every
    /// budget).
    schema_chars: usize,
    session: Option<SessionLog>,
    logged: usize,
    changelog: Option<Arc<Mutex<Changelog>>>,
    turn: u64,
    /// A sub-agent's changes are its parent's turn's: the turn never advances.
    fixed_turn: bool,
    /// Whether the last session or journal write failed (so a streak is reported once).
    save_failing: bool,
    /// The estimated prompt tokens of the model request under way, so an interrupt
    /// reports what the request cost.
    inflight_prompt: Option<u64>,
    /// Whether any write failed this session (shared with [`AgentHandle::unsaved`]).
    unsaved: Arc<AtomicBool>,
    /// The model's context window, when known (config, or learned from the server).
    context_window: Option<u64>,
    /// Characters per token of what is sent: counted by the model's tokeniser when Loom
    /// has it, else calibrated by the server's reported usage.
    chars_per_token: f64,
    /// The model's tokeniser (OpenAI's own, else o200k), and how far it is loaded.
    tokenizer: Option<(crate::llm::tokens::Tokenizer, Loaded)>,
    /// The server's count over the tokeniser's, from the last reported usage.
    tokenizer_correction: f64,
    /// When each running tool call started (an interrupted call's result reports how long
    /// it ran, not 0 ms).
    running_since: HashMap<String, Instant>,
    /// Whether the person has been told in full how to connect a model server (after that,
    /// one line says it again).
    told_no_provider: bool,
    /// Whether the server is still being asked about the model (its window).
    discovering: bool,
    /// A model request that waits for that answer (so the very first request is already
    /// sized against the window; the probes are bounded to a few seconds).
    call_waiting: bool,
    /// The MCP servers, shut down when the agent stops.
    mcp: Option<crate::mcp::McpManager>,
    /// Long-term memory, for `/memory`.
    memory: Option<Arc<crate::memory::Memory>>,
    /// The sub-agents of `delegate` calls: where their events go, how ops reach them.
    subagents: Option<Arc<super::sub_agents::SubAgents>>,
    /// Which tools each request carries and which deferred ones are loaded (`None`: all).
    offer: Option<crate::tools::offer::ToolOffer>,
    /// The system prompt for a window too small for the full one.
    short_system_prompt: Option<String>,
    /// Whether the server's chat template can carry tools (`Some(false)`: they are
    /// described in the system prompt instead).
    template_tools: Option<bool>,
    /// The system prompt as the last request sent it.
    sent_system: String,
    /// The reduced prefix the person was last told about.
    prefix_told: Option<prefix::Choice>,
}

/// Pieces to build a runner from.
pub struct RunnerParts {
    /// The tools.
    pub registry: Arc<ToolRegistry>,
    /// The rules.
    pub policy: Policy,
    /// The model client (`None` when no provider is configured or found).
    pub llm: Option<LlmClient>,
    /// What to tell the person when there is no provider.
    pub no_provider_message: String,
    /// Where tools run.
    pub ctx: ToolContext,
    /// The system prompt.
    pub system_prompt: String,
    /// Post-tools hooks.
    pub hooks: HookChain,
    /// Behaviour options.
    pub options: AgentOptions,
    /// An earlier conversation to continue.
    pub conversation: Vec<Message>,
    /// Where the transcript is appended (none: not recorded).
    pub session: Option<SessionLog>,
    /// The undo journal (none: changes cannot be undone).
    pub changelog: Option<Arc<Mutex<Changelog>>>,
    /// Why the transcript or the journal could not be opened: the first events sent.
    pub save_errors: Vec<String>,
    /// The MCP servers whose tools the registry offers (their status is sent as events;
    /// they are shut down with the agent).
    pub mcp: Option<crate::mcp::McpManager>,
    /// Long-term memory, for `/memory` (the tools hold their own handle).
    pub memory: Option<Arc<crate::memory::Memory>>,
    /// The agent's sub-agents (shared with its `delegate` tool), if it may delegate.
    pub subagents: Option<Arc<super::sub_agents::SubAgents>>,
    /// For a delegate's sub-agent: the parent's turn, which its changes are recorded under
    /// (`None`: the agent numbers its own turns, after the journal's last).
    pub parent_turn: Option<u64>,
    /// The session's model cell, which `/model` switches so the editing tool, the oracle
    /// and later sub-agents follow (the top agent's; `None` for a sub-agent).
    pub current_model: Option<crate::llm::current::CurrentModel>,
    /// Which tools each request carries (core, loaded, a catalogue of the rest); `None`
    /// sends every tool (a sub-agent, given the few it needs).
    pub offer: Option<crate::tools::offer::ToolOffer>,
    /// A shorter system prompt, sent when the window cannot hold the full one.
    pub short_system_prompt: Option<String>,
}

impl Runner {
    /// Start the agent on the current tokio runtime.
    pub fn spawn(parts: RunnerParts) -> AgentHandle {
        let (ops_tx, ops_rx) = mpsc::unbounded_channel();
        let mut handle = Runner::spawn_with_ops(parts, ops_rx);
        handle.ops = ops_tx;
        handle
    }

    /// Start the agent reading ops from a channel created earlier (ops sent before the
    /// agent was ready wait there). The returned handle's `ops` sender is disconnected.
    pub fn spawn_with_ops(
        parts: RunnerParts,
        ops_rx: mpsc::UnboundedReceiver<UserOp>,
    ) -> AgentHandle {
        let (ops_tx, _) = mpsc::unbounded_channel();
        let (events_tx, events_rx) = mpsc::unbounded_channel();
        let (internal_tx, internal_rx) = mpsc::unbounded_channel();
        let tool_schemas = parts.registry.schemas();
        let logged = parts.conversation.len();
        if let Some(hub) = &parts.subagents {
            hub.attach(events_tx.clone(), parts.policy.autonomy);
        }
        let unsaved = Arc::new(AtomicBool::new(!parts.save_errors.is_empty()));
        for message in parts.save_errors {
            let _ = events_tx.send(AgentEvent::Error { message });
        }
        if let Some(mcp) = &parts.mcp {
            forward_mcp_status(mcp.clone(), events_tx.clone());
        }
        let runner = Runner {
            machine: Machine::resume(parts.options.limits, parts.conversation),
            registry: parts.registry,
            policy: parts.policy,
            llm: parts.llm,
            no_provider_message: parts.no_provider_message,
            ctx: parts.ctx,
            system_prompt: parts.system_prompt,
            hooks: parts.hooks,
            options: parts.options,
            events: events_tx,
            internal_tx,
            internal_rx,
            llm_cancel: CancellationToken::new(),
            partial: Arc::new(Mutex::new(String::new())),
            tool_cancel: CancellationToken::new(),
            shell_cancel: CancellationToken::new(),
            timer_cancel: CancellationToken::new(),
            prepared: HashMap::new(),
            rulings: HashMap::new(),
            schema_chars: schema_chars(&tool_schemas),
            tool_schemas,
            session: parts.session,
            logged,
            turn: match parts.parent_turn {
                Some(turn) => turn,
                None => parts
                    .changelog
                    .as_ref()
                    .and_then(|c| c.lock().ok().map(|c| c.last_turn()))
                    .unwrap_or(0),
            },
            fixed_turn: parts.parent_turn.is_some(),
            changelog: parts.changelog,
            save_failing: false,
            inflight_prompt: None,
            unsaved: unsaved.clone(),
            context_window: None,
            chars_per_token: DEFAULT_CHARS_PER_TOKEN,
            tokenizer: None,
            tokenizer_correction: 1.0,
            running_since: HashMap::new(),
            told_no_provider: false,
            discovering: false,
            call_waiting: false,
            mcp: parts.mcp,
            memory: parts.memory,
            subagents: parts.subagents,
            current_model: parts.current_model,
            offer: parts.offer,
            short_system_prompt: parts.short_system_prompt,
            template_tools: None,
            sent_system: String::new(),
            prefix_told: None,
        };
        let mut runner = runner;
        runner.context_window = runner
            .llm
            .as_ref()
            .and_then(|c| c.settings().context_window);
        if let Some(tokens) = runner.context_window {
            let _ = runner.events.send(AgentEvent::ContextWindow {
                tokens,
                source: "config".into(),
            });
        }
        runner.choose_prefix();
        runner.discover();
        let task = tokio::spawn(runner.run(ops_rx));
        AgentHandle {
            ops: ops_tx,
            events: events_rx,
            task,
            unsaved,
        }
    }

    async fn run(mut self, mut ops: mpsc::UnboundedReceiver<UserOp>) {
        loop {
            let event = tokio::select! {
                op = ops.recv() => match op {
                    None => Event::Shutdown,
                    Some(op) => match self.translate(op) {
                        Some(e) => e,
                        None => continue,
                    },
                },
                Some(internal) = self.internal_rx.recv() => match internal {
                    Internal::Machine(e) => e,
                    Internal::Prepared { id, changes, verdict } => {
                        self.prepared.insert(id.clone(), changes);
                        Event::Decided { id, verdict }
                    }
                    Internal::Applied(event) => {
                        self.emit(event);
                        continue;
                    }
                    Internal::Discovered(info) => {
                        self.discovered(info);
                        continue;
                    }
                    Internal::Calibrated(Calibration::Chars(ratio)) => {
                        self.chars_per_token = ratio.clamp(1.5, 8.0);
                        continue;
                    }
                    Internal::Calibrated(Calibration::Tokenizer { ratio, chars }) => {
                        if TOKENIZER_AGREES.contains(&ratio) {
                            self.tokenizer_correction = ratio;
                        } else {
                            self.tokenizer = None;
                            self.chars_per_token = chars.clamp(1.5, 8.0);
                        }
                        continue;
                    }
                    Internal::TokenizerReady { model, loaded } => {
                        match &mut self.tokenizer {
                            // A tokeniser for a model switched away from is of no use.
                            Some((t, _)) if t.model() != model => {}
                            Some((_, state)) if loaded => *state = Loaded::Yes,
                            _ => self.tokenizer = None,
                        }
                        self.resume_waiting_call();
                        continue;
                    }
                    Internal::JournalFailed(message) => {
                        self.save_failed(format!(
                            "the undo journal could not be written ({message}): file edits \
                             are refused until it can be, and commands' changes cannot be \
                             undone"
                        ));
                        continue;
                    }
                },
            };
            if let Event::LlmFailed {
                overflow: Some(o), ..
            } = &event
                && let Some(window) = o.window
                && self.context_window != Some(window)
            {
                self.context_window = Some(window);
                self.emit(AgentEvent::ContextWindow {
                    tokens: window,
                    source: "the server's error".into(),
                });
            }
            let mut event = event;
            if let Event::LlmFinished { calls, .. } = &mut event {
                self.load_called(calls);
            }
            if let Event::LlmFailed {
                message, retryable, ..
            } = &mut event
                && !*retryable
                && crate::llm::image::rejects_images(message)
            {
                let from_tools = self.machine.images_only_from_tools();
                let names = self.machine.strip_images();
                if !names.is_empty() && from_tools {
                    // Only tools' images (screenshots): the turn goes on without them, the
                    // results still name their files, and no more are attached.
                    *retryable = true;
                    *message = format!(
                        "the model does not accept images, so {} {} taken out; trying again \
                         without them",
                        names.join(", "),
                        if names.len() == 1 { "was" } else { "were" }
                    );
                } else if !names.is_empty() {
                    *message = format!(
                        "the model does not accept images ({}), so they were taken out of the \
                         conversation; send your message again, or switch to a vision model \
                         with /model (the server said: {message})",
                        names.join(", ")
                    );
                }
            }
            let compacting = self.machine.phase() == super::events::Phase::Compacting
                && matches!(event, Event::Compacted { .. });
            let actions = self.machine.step(event);
            if compacting {
                // The conversation was replaced: the transcript starts over from it (the
                // full history stays earlier in the file).
                self.logged = usize::MAX;
            }
            // The conversation is saved before anything is shown or done about it, so a
            // failed save is reported before the turn is seen to end.
            self.sync_transcript();
            let mut stop = false;
            for action in actions {
                if self.perform(action) {
                    stop = true;
                    break;
                }
            }
            if stop {
                if let Some(mcp) = &self.mcp {
                    mcp.shutdown().await;
                }
                return;
            }
        }
    }

    /// Append conversation messages added since the last sync to the transcript. A message
    /// that cannot be written stays pending, with those after it, and is tried again at the
    /// next sync: the saved conversation is always a whole prefix of the real one (a gap
    /// would resume as a different conversation) and is completed once there is room.
    fn sync_transcript(&mut self) {
        let conversation = self.machine.conversation();
        let Some(log) = &mut self.session else {
            return;
        };
        let mut result = Ok(());
        if conversation.len() < self.logged {
            result = log.append(&Record::Clear);
            if result.is_ok() {
                self.logged = 0;
            }
        }
        if result.is_ok() && self.logged == conversation.len() {
            return;
        }
        for message in &conversation[self.logged.min(conversation.len())..] {
            if result.is_err() {
                break;
            }
            result = log.append(&Record::Message {
                message: message.clone(),
            });
            if result.is_ok() {
                self.logged += 1;
            }
        }
        match result {
            Ok(()) => self.save_worked(),
            Err(e) => self.save_failed(format!(
                "the session could not be saved ({e}); what was saved before still loads, \
                 and the rest of the conversation is saved once there is room again"
            )),
        }
    }

    /// A write to the transcript worked: once the conversation is saved in full, a streak
    /// of failures is over (and the next failure is reported again).
    fn save_worked(&mut self) {
        if self.logged == self.machine.conversation().len() {
            self.save_failing = false;
        }
    }

    /// Tell the person, once per streak of failures, that something could not be saved
    /// (a full disk): a silent gap in the transcript or the undo journal would lose work
    /// they think is safe. The event goes straight to the front ends, not through the
    /// transcript that just failed.
    fn save_failed(&mut self, message: String) {
        self.unsaved.store(true, Ordering::SeqCst);
        if !self.save_failing {
            self.save_failing = true;
            let _ = self.events.send(AgentEvent::Error { message });
        }
    }

    fn emit(&mut self, event: AgentEvent) {
        let event = match event {
            AgentEvent::ToolStarted { id } => {
                self.running_since.insert(id.clone(), Instant::now());
                AgentEvent::ToolStarted { id }
            }
            AgentEvent::ToolResult {
                id,
                name,
                result,
                duration_ms,
            } => {
                let ran = self.running_since.remove(&id);
                let duration_ms = match ran {
                    Some(since) if duration_ms == 0 => since.elapsed().as_millis() as u64,
                    _ => duration_ms,
                };
                AgentEvent::ToolResult {
                    id,
                    name,
                    result,
                    duration_ms,
                }
            }
            other => other,
        };
        if let AgentEvent::UserMessage { queued: false, .. } = &event
            && !self.fixed_turn
        {
            self.turn += 1;
        }
        if let Some(log) = &mut self.session {
            let record = match &event {
                AgentEvent::Approval {
                    id,
                    approved,
                    by,
                    reason,
                } => Some(Record::Approval {
                    id: id.clone(),
                    approved: *approved,
                    by: format!("{by:?}").to_lowercase(),
                    reason: reason.clone(),
                }),
                AgentEvent::ToolResult {
                    id,
                    name,
                    result,
                    duration_ms,
                } => Some(Record::ToolResult {
                    id: id.clone(),
                    name: name.clone(),
                    success: result.success,
                    files_changed: result.files_changed.clone(),
                    duration_ms: *duration_ms,
                }),
                AgentEvent::Usage { usage } => Some(Record::Usage { usage: *usage }),
                AgentEvent::Error { message } => Some(Record::Error {
                    message: message.clone(),
                }),
                AgentEvent::TurnComplete { end, .. } => Some(Record::TurnEnd {
                    end: format!("{end:?}").to_lowercase(),
                }),
                _ => None,
            };
            if let Some(r) = record {
                match log.append(&r) {
                    Ok(()) => self.save_worked(),
                    Err(e) => self.save_failed(format!(
                        "the session could not be saved ({e}); what was saved before still \
                         loads"
                    )),
                }
            }
        }
        let _ = self.events.send(event);
    }

    /// Ask the server about the current model in the background (bounded to a few seconds);
    /// the next model request waits for the answer when no window is known.
    fn discover(&mut self) {
        let Some(client) = &self.llm else {
            return;
        };
        self.discovering = true;
        let settings = client.settings().clone();
        self.tokenizer = Some((
            crate::llm::tokens::Tokenizer::counting(&settings.model),
            Loaded::No,
        ));
        self.tokenizer_correction = 1.0;
        let tx = self.internal_tx.clone();
        tokio::spawn(async move {
            let info = crate::llm::window::probe(&settings).await;
            let _ = tx.send(Internal::Discovered(info));
        });
    }

    /// What the server said about the model: its window (unless config named one), and a
    /// warning when its chat template cannot carry tools (they would silently be dropped).
    fn discovered(&mut self, info: crate::llm::window::ModelInfo) {
        self.discovering = false;
        self.template_tools = info.tools_supported;
        if self.context_window.is_none()
            && let Some(tokens) = info.window
        {
            self.context_window = Some(tokens);
            self.emit(AgentEvent::ContextWindow {
                tokens,
                source: info.source.clone(),
            });
        }
        if let Some(message) = crate::llm::window::tools_notice(&info) {
            self.emit(AgentEvent::Notice { message });
        }
        self.resume_waiting_call();
    }

    /// Make the model request that waited for the server's answer or the tokeniser.
    fn resume_waiting_call(&mut self) {
        if std::mem::take(&mut self.call_waiting)
            && self.machine.phase() == super::events::Phase::CallingLlm
        {
            self.call_llm();
        }
    }

    /// The sizes compaction works with, for a window of `window` tokens.
    fn budget(&self, window: u64) -> super::compact::Budget {
        super::compact::Budget {
            window,
            chars_per_token: self.chars_per_token,
            overhead_chars: self.sent_system.len() + self.schema_chars,
        }
    }

    /// Compact the conversation in the background; the machine hears how it went. With
    /// no known window (a server that said the prompt is too long but not its size), the
    /// window is taken to be one where the conversation must shrink to two thirds.
    fn compact(&mut self) {
        self.choose_prefix();
        let conversation = self.machine.conversation().to_vec();
        let window = self.context_window.unwrap_or_else(|| {
            super::budget::Budget::window_shrinking(
                self.budget(1).overhead_chars,
                super::budget::chars(&conversation),
                self.chars_per_token,
            )
        });
        let budget = self.budget(window);
        let client = self.llm.clone();
        self.llm_cancel = CancellationToken::new();
        let cancel = self.llm_cancel.clone();
        let tx = self.internal_tx.clone();
        tokio::spawn(async move {
            let done =
                super::compact::compact(conversation, budget, client.as_ref(), &cancel).await;
            if cancel.is_cancelled() {
                return;
            }
            let event = match done {
                Ok(c) => Event::Compacted {
                    conversation: c.conversation,
                    report: c.report,
                },
                Err(message) => Event::CompactFailed { message },
            };
            let _ = tx.send(Internal::Machine(event));
        });
    }

    /// Whether the request must wait for the tokeniser: it starts loading once the estimate
    /// passes [`TOKENIZER_LOAD_AT`] of the window, and is waited for above
    /// [`TOKENIZER_WAIT_AT`] (below, the estimate cannot be far enough off to matter).
    fn wait_for_tokenizer(&mut self) -> bool {
        let Some(window) = self.context_window else {
            return false;
        };
        let share = self.budget(window).tokens(self.machine.conversation()) as f64 / window as f64;
        let Some((tokenizer, state)) = &mut self.tokenizer else {
            return false;
        };
        if *state == Loaded::No && share >= TOKENIZER_LOAD_AT {
            *state = Loaded::Loading;
            let model = tokenizer.model().to_string();
            let tx = self.internal_tx.clone();
            tokio::task::spawn_blocking(move || {
                let loaded = std::panic::catch_unwind(|| {
                    crate::llm::tokens::Tokenizer::counting(&model).warm()
                });
                let loaded = loaded.is_ok();
                let _ = tx.send(Internal::TokenizerReady { model, loaded });
            });
        }
        *state == Loaded::Loading && share >= TOKENIZER_WAIT_AT
    }
}

/// Characters the tool definitions take in a request.
fn schema_chars(schemas: &[Value]) -> usize {
    schemas.iter().map(|t| t.to_string().len()).sum()
}

/// Send the MCP servers' status now and after every change, until the front end is gone.
fn forward_mcp_status(mcp: crate::mcp::McpManager, events: mpsc::UnboundedSender<AgentEvent>) {
    let mut changes = mcp.subscribe();
    tokio::spawn(async move {
        loop {
            let servers = mcp.status();
            if events.send(AgentEvent::McpStatus { servers }).is_err() {
                return;
            }
            if changes.changed().await.is_err() {
                return;
            }
        }
    });
}
