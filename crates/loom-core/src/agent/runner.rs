//! The runner: the one place the agent does I/O.
//!
//! It owns the [`Machine`], turns [`UserOp`]s into events, performs the machine's actions
//! (model requests, policy checks with previews, tool runs, timers, hooks) as cancellable
//! tasks, and feeds their outcomes back as events. Every task reports on one internal
//! channel, so the machine sees one event at a time and stays the single source of truth.
//! It knows no screen: front ends read [`AgentEvent`]s and send [`UserOp`]s.
//!
//! Its state is one owned part per concern, each with its own methods: the streaming
//! state (`stream.rs`), the window and counting (`window.rs`), the request prefix
//! (`prefix.rs`), the tool-call schedule with one record per call (`schedule.rs`), and the
//! transcript and journal (`persist.rs`). The runner's own methods, by concern: model
//! requests (`model_turn.rs`), tool calls and hooks (`tool_calls.rs`), approvals
//! (`approvals.rs`), the person's operations (`ops.rs`, `shell.rs`, `attach.rs`), custom
//! slash commands (`custom.rs`) and earlier prompts (`history.rs`).

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

mod approvals;
mod attach;
mod call_ids;
mod custom;
mod event_hooks;
mod history;
mod model_turn;
mod ops;
mod persist;
mod plan_mode;
mod prefix;
mod review;
mod rewind;
mod schedule;
mod shell;
mod stream;
mod tool_calls;
mod window;

pub use shell::SHELL_ID_PREFIX;

use super::effects::{resolve_calls, run_with_snapshots, write_with_record};
use super::events::{AgentEvent, ApprovalAnswer, ApprovalPreview, FilePreview, Phase, UserOp};
use super::state::{Action, Event, Limits, Machine, Verdict};
use crate::changelog::Changelog;
use crate::hooks::HookChain;
use crate::llm::retry::RetryPolicy;
use crate::llm::{ChatRequest, LlmClient, LlmError, Message, StreamEvent, Usage};
use crate::policy::{Decision, Policy};
use crate::protocol::changes::Scope;
use crate::session::SessionLog;
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

/// How long a stopping agent waits for its cancelled tool calls and hooks to end (a killed
/// command's call ends once its last process is gone, normally within milliseconds).
const STOP_GRACE: Duration = Duration::from_secs(5);

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
    Calibrated(window::Calibration),
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
    /// A custom command's body is expanded and ready to send.
    CommandReady(Box<custom::Ready>),
}

/// Everything the runner needs; see [`Runner::spawn`]. It holds one part per concern:
/// the machine that decides, what tools run with, the model request under way, the window
/// and the prefix each request is sized against, the tool calls it performs and the
/// session it saves.
pub struct Runner {
    machine: Machine,
    /// The tools and what they run with.
    work: Workbench,
    /// Where the front ends read events.
    events: mpsc::UnboundedSender<AgentEvent>,
    /// The runner's own tasks report here.
    internal_tx: mpsc::UnboundedSender<Internal>,
    internal_rx: mpsc::UnboundedReceiver<Internal>,
    /// The model client and the request under way.
    stream: stream::Stream,
    /// The model's window and how Loom counts against it.
    window: window::Window,
    /// The system prompt and tools each request starts with.
    prefix: prefix::Prefix,
    /// The tool calls being performed.
    schedule: schedule::Schedule,
    /// The ids the session's calls have, so a new call never takes an earlier one's.
    call_ids: call_ids::CallIds,
    /// The transcript and the undo journal.
    persistence: persist::Persistence,
    /// What lives as long as the agent: MCP servers, memory, sub-agents.
    services: Services,
    /// Custom slash commands: where they are, and the one running.
    custom: custom::Custom,
    /// Where prompts go through the UserPromptSubmit hooks (`None`: straight in).
    prompt_hooks: Option<mpsc::UnboundedSender<super::events::UserInput>>,
    /// The review turn under way (`/review`), if any.
    review: Option<review::ReviewTurn>,
}

/// The tools and what they run with: the registry, the policy that rules on each call,
/// where they run, and the hooks that follow a batch.
struct Workbench {
    registry: Arc<ToolRegistry>,
    policy: Policy,
    ctx: ToolContext,
    hooks: HookChain,
}

/// What lives as long as the agent.
struct Services {
    /// The MCP servers, shut down when the agent stops.
    mcp: Option<crate::mcp::McpManager>,
    /// Long-term memory, for `/memory`.
    memory: Option<Arc<crate::memory::Memory>>,
    /// The sub-agents of `delegate` calls: where their events go, how ops reach them.
    subagents: Option<Arc<super::sub_agents::SubAgents>>,
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
    /// What the system prompt and tools of each request are built from.
    pub prompt: PromptParts,
    /// Post-tools hooks.
    pub hooks: HookChain,
    /// Behaviour options.
    pub options: AgentOptions,
    /// An earlier conversation to continue.
    pub conversation: Vec<Message>,
    /// Where the transcript and the undo journal are written.
    pub persistence: PersistenceParts,
    /// The MCP servers whose tools the registry offers (their status is sent as events;
    /// they are shut down with the agent).
    pub mcp: Option<crate::mcp::McpManager>,
    /// Long-term memory, for `/memory` (the tools hold their own handle).
    pub memory: Option<Arc<crate::memory::Memory>>,
    /// The agent's sub-agents (shared with its `delegate` tool), if it may delegate.
    pub subagents: Option<Arc<super::sub_agents::SubAgents>>,
    /// The session's model cell, which `/model` switches so the editing tool, the oracle
    /// and later sub-agents follow (the top agent's; `None` for a sub-agent).
    pub current_model: Option<crate::llm::current::CurrentModel>,
    /// Where custom slash commands are found (the top agent's; `None`: none).
    pub commands: Option<crate::custom_commands::Source>,
}

/// What the system prompt and tools of each request are built from (the runner's
/// prefix part).
pub struct PromptParts {
    /// The system prompt.
    pub system_prompt: String,
    /// A shorter system prompt, sent when the window cannot hold the full one.
    pub short_system_prompt: Option<String>,
    /// Which tools each request carries (core, loaded, a catalogue of the rest); `None`
    /// sends every tool (a sub-agent, given the few it needs).
    pub offer: Option<crate::tools::offer::ToolOffer>,
}

/// Where the agent's work is saved (the runner's persistence part).
pub struct PersistenceParts {
    /// Where the transcript is appended (none: not recorded).
    pub session: Option<SessionLog>,
    /// The undo journal (none: changes cannot be undone).
    pub changelog: Option<Arc<Mutex<Changelog>>>,
    /// Why the transcript or the journal could not be opened: the first events sent.
    pub save_errors: Vec<String>,
    /// For a delegate's sub-agent: the parent's turn, which its changes are recorded under
    /// (`None`: the agent numbers its own turns, after the journal's last).
    pub parent_turn: Option<u64>,
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
        if let Some(hub) = &parts.subagents {
            hub.attach(events_tx.clone(), parts.policy.autonomy);
        }
        let unsaved = Arc::new(AtomicBool::new(!parts.persistence.save_errors.is_empty()));
        for message in &parts.persistence.save_errors {
            let _ = events_tx.send(AgentEvent::Error {
                message: message.clone(),
            });
        }
        if let Some(mcp) = &parts.mcp {
            forward_mcp_status(mcp.clone(), events_tx.clone());
        }
        if let (Some(lsp), None) = (&parts.ctx.lsp, parts.persistence.parent_turn) {
            forward_lsp_status(lsp.clone(), events_tx.clone());
        }
        let mut runner = Runner::new(parts, events_tx, unsaved.clone());
        if let Some(tokens) = runner.window.tokens {
            let _ = runner.events.send(AgentEvent::ContextWindow {
                tokens,
                source: "config".into(),
            });
        }
        runner.prompt_hooks = runner.start_prompt_hooks();
        runner.choose_prefix();
        runner.tell_plan_mode();
        runner.discover();
        runner.list_custom_commands();
        let task = tokio::spawn(runner.run(ops_rx));
        AgentHandle {
            ops: ops_tx,
            events: events_rx,
            task,
            unsaved,
        }
    }

    /// A runner of `parts`, sending its events on `events`.
    fn new(
        parts: RunnerParts,
        events: mpsc::UnboundedSender<AgentEvent>,
        unsaved: Arc<AtomicBool>,
    ) -> Runner {
        let (internal_tx, internal_rx) = mpsc::unbounded_channel();
        let tool_schemas = parts.registry.schemas();
        let persistence = persist::Persistence::new(
            parts.persistence,
            parts.conversation.len(),
            unsaved,
            events.clone(),
        );
        let configured = parts.llm.as_ref().and_then(|c| c.settings().context_window);
        let mut machine = Machine::resume(parts.options.limits, parts.conversation);
        machine.set_stop_hooks(
            parts
                .hooks
                .events()
                .any(crate::hooks::event::HookEvent::Stop, None),
        );
        Runner {
            machine,
            work: Workbench {
                registry: parts.registry,
                policy: parts.policy,
                ctx: parts.ctx,
                hooks: parts.hooks,
            },
            events,
            internal_tx,
            internal_rx,
            stream: stream::Stream::new(
                parts.llm,
                parts.no_provider_message,
                parts.current_model,
                parts.options.retry,
            ),
            window: window::Window::new(configured),
            prefix: prefix::Prefix::new(parts.prompt, tool_schemas),
            schedule: schedule::Schedule::new(),
            call_ids: call_ids::CallIds::default(),
            persistence,
            services: Services {
                mcp: parts.mcp,
                memory: parts.memory,
                subagents: parts.subagents,
            },
            custom: custom::Custom::new(parts.commands),
            prompt_hooks: None,
            review: None,
        }
    }

    async fn run(mut self, mut ops: mpsc::UnboundedReceiver<UserOp>) {
        self.session_start().await;
        loop {
            let event = tokio::select! {
                op = ops.recv() => match op {
                    None => Event::Shutdown,
                    Some(op) => match self.translate(op) {
                        Some(e) => e,
                        None => continue,
                    },
                },
                Some(internal) = self.internal_rx.recv() => match self.internal(internal) {
                    Some(e) => e,
                    None => continue,
                },
            };
            if self.step(event) {
                // Stopping cancelled the running calls; they end once what they started
                // is gone, and nothing of theirs may outlive the agent.
                self.schedule.wind_down(STOP_GRACE).await;
                if let Some(mcp) = &self.services.mcp {
                    mcp.shutdown().await;
                }
                return;
            }
        }
    }

    /// Take in what one of the runner's own tasks reports: an event for the machine, or
    /// `None` when the runner handled it itself.
    fn internal(&mut self, internal: Internal) -> Option<Event> {
        match internal {
            Internal::Machine(mut e) => {
                if let Event::LlmFinished { calls, .. } = &mut e {
                    self.call_ids
                        .make_unique(self.machine.conversation(), calls);
                }
                return Some(e);
            }
            Internal::Prepared {
                id,
                changes,
                verdict,
            } => {
                self.schedule.prepared(&id, changes);
                return Some(Event::Decided { id, verdict });
            }
            Internal::Applied(event) => self.emit(event),
            Internal::CommandReady(ready) => return self.command_ready(*ready),
            Internal::Discovered(info) => self.discovered(info),
            Internal::Calibrated(calibration) => self.window.calibrated(calibration),
            Internal::TokenizerReady { model, loaded } => {
                self.window.tokenizer_ready(&model, loaded);
                self.resume_waiting_call();
            }
            Internal::JournalFailed(message) => {
                self.persistence.save_failed(format!(
                    "the undo journal could not be written ({message}): file edits are \
                     refused until it can be, and commands' changes cannot be undone"
                ));
            }
        }
        None
    }

    /// Give the machine one event and perform what it decides; true means stop.
    fn step(&mut self, event: Event) -> bool {
        let event = self.before_step(event);
        // A compaction that changed nothing (the server said the request did not fit, but
        // nothing could give way) leaves the transcript, and its rewind points, alone.
        let compacted = match &event {
            Event::Compacted {
                conversation,
                report,
            } if self.machine.phase() == Phase::Compacting && report.changed() => {
                Some(conversation.len())
            }
            _ => None,
        };
        let actions = self.machine.step(event);
        if let Some(copy) = compacted {
            // The conversation was replaced: the transcript starts over from it (the
            // full history stays earlier in the file).
            self.persistence.restart_transcript(copy);
        }
        // The conversation is saved before anything is shown or done about it, so a
        // failed save is reported before the turn is seen to end.
        self.sync_transcript();
        for action in actions {
            if self.perform(action) {
                return true;
            }
        }
        false
    }

    /// What the runner learns from an event before the machine sees it: a window named by
    /// the server's error, deferred tools the model called, a model that refuses images.
    fn before_step(&mut self, mut event: Event) -> Event {
        if let Event::LlmFailed {
            overflow: Some(o), ..
        } = &event
            && let Some(window) = o.window
            && self.window.tokens != Some(window)
        {
            self.window.tokens = Some(window);
            self.emit(AgentEvent::ContextWindow {
                tokens: window,
                source: "the server's error".into(),
            });
        }
        if let Event::LlmFinished { calls, .. } = &mut event {
            self.prefix.load_called(calls);
        }
        if let Event::LlmFailed {
            message, retryable, ..
        } = &mut event
            && !*retryable
            && crate::llm::image::rejects_images(message)
        {
            self.images_refused(message, retryable);
        }
        event
    }

    /// The model refused the conversation's images: they are taken out, and the turn goes
    /// on without them when they were only tools' (`retryable` set, `message` says so).
    fn images_refused(&mut self, message: &mut String, retryable: &mut bool) {
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

    /// Append conversation messages added since the last sync to the transcript.
    fn sync_transcript(&mut self) {
        self.persistence
            .sync_transcript(self.machine.conversation());
    }

    /// Send `event` to the front ends: a tool's result says how long it ran, and the
    /// transcript records what it keeps.
    fn emit(&mut self, event: AgentEvent) {
        let event = match event {
            AgentEvent::ToolStarted { id } => {
                self.schedule.started(&id);
                AgentEvent::ToolStarted { id }
            }
            AgentEvent::ToolResult {
                id,
                name,
                result,
                duration_ms,
            } => {
                let ran = self.schedule.finished(&id);
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
        self.persistence
            .record(&event, self.machine.conversation().len());
        self.review_saw(&event);
        let plan = plan_mode::plan_in(&event);
        let _ = self.events.send(event);
        if let Some(plan) = plan {
            self.emit(AgentEvent::PlanUpdated { plan });
        }
    }

    /// Ask the server about the current model in the background (bounded to a few seconds);
    /// the next model request waits for the answer when no window is known.
    fn discover(&mut self) {
        let Some(client) = &self.stream.llm else {
            return;
        };
        let settings = client.settings().clone();
        self.window.discovering(&settings.model);
        let tx = self.internal_tx.clone();
        tokio::spawn(async move {
            let info = crate::llm::window::probe(&settings).await;
            let _ = tx.send(Internal::Discovered(info));
        });
    }

    /// What the server said about the model: its window (unless config named one), and a
    /// warning when its chat template cannot carry tools (they would silently be dropped).
    fn discovered(&mut self, info: crate::llm::window::ModelInfo) {
        self.window.discovering = false;
        self.prefix.template_tools = info.tools_supported;
        if self.window.tokens.is_none()
            && let Some(tokens) = info.window
        {
            self.window.tokens = Some(tokens);
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
        if std::mem::take(&mut self.stream.call_waiting)
            && self.machine.phase() == Phase::CallingLlm
        {
            self.call_llm();
        }
    }

    /// The sizes compaction works with, for a window of `window` tokens.
    fn budget(&self, window: u64) -> super::compact::Budget {
        super::compact::Budget {
            window,
            chars_per_token: self.window.chars_per_token,
            overhead_chars: self.prefix.overhead_chars(),
            prefix_chars_per_token: self.window.prefix_chars_per_token(),
        }
    }

    /// Compact the conversation in the background; the machine hears how it went. With
    /// no known window (a server that said the prompt is too long but not its size), the
    /// window is taken to be one where the conversation must shrink to two thirds.
    fn compact(&mut self) {
        self.choose_prefix();
        let conversation = self.machine.conversation().to_vec();
        let window = self.window.tokens.unwrap_or_else(|| {
            self.budget(1)
                .window_shrinking(super::budget::chars(&conversation))
        });
        let budget = self.budget(window);
        let client = self.stream.llm.clone();
        let cancel = self.stream.begin_compaction();
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

    /// Whether the request must wait for the tokeniser (see
    /// [`window::Window::wait_for_tokenizer`]).
    fn wait_for_tokenizer(&mut self) -> bool {
        let Some(window) = self.window.tokens else {
            return false;
        };
        let share = self.budget(window).tokens(self.machine.conversation()) as f64 / window as f64;
        self.window.wait_for_tokenizer(share, &self.internal_tx)
    }
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

/// Send the language servers' status after every change (none before a server is
/// needed), until the front end is gone.
fn forward_lsp_status(lsp: loom_lsp::Lsp, events: mpsc::UnboundedSender<AgentEvent>) {
    let mut changes = lsp.subscribe();
    tokio::spawn(async move {
        while changes.changed().await.is_ok() {
            let servers = lsp.status();
            if events.send(AgentEvent::LspStatus { servers }).is_err() {
                return;
            }
        }
    });
}
