//! Headless mode: `loom exec PROMPT` runs one task to completion and exits.
//!
//! A second consumer of the agent's events (the TUI is the first). Without `--json` the
//! answer streams to stdout, a paragraph per assistant message, and one short line per tool
//! call and result goes to stderr (see [`plain`]). With
//! `--json` every event is one JSON object per line on stdout, each with a `type`: the
//! events' own `Serialize` (the schema is in docs/exec.md). Nobody can approve anything here: the runner turns every
//! "ask" into a denial the model can read.

#[cfg(test)]
mod json_tests;
mod plain;
pub mod start;

use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::Ordering;

use serde::Serialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::agent::{AgentEvent, AgentHandle, TurnEnd, UserOp};

pub use start::{StartError, StartOptions, Started, start};

/// Exit code when the task finished.
pub const EXIT_OK: u8 = 0;
/// Exit code for a provider or runtime failure.
pub const EXIT_FAILURE: u8 = 1;
/// Exit code for bad usage.
pub const EXIT_USAGE: u8 = 2;
/// Exit code after Ctrl+C.
pub const EXIT_INTERRUPTED: u8 = 130;

/// What `session_started` reports (its `Serialize` is that line).
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename = "session_started")]
pub struct SessionInfo {
    /// Session id.
    pub session_id: String,
    /// Model id (empty when none).
    pub model: String,
    /// Workspace root.
    pub workspace: String,
    /// Where the provider came from.
    pub provider: String,
    /// The sandbox mode commands run under.
    pub sandbox: String,
    /// A warning to show once (e.g. no sandbox on this system).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notice: Option<String>,
}

/// Run `prompt` through the agent and print its events.
pub async fn run(
    agent: AgentHandle,
    info: SessionInfo,
    prompt: String,
    images: Vec<crate::llm::image::Image>,
    json_lines: bool,
) -> ExitCode {
    let op = UserOp::Submit {
        text: prompt,
        images,
    };
    run_op(agent, info, op, json_lines).await
}

/// Send `op` (which starts one turn: a prompt, a review) to the agent and print its
/// events until the turn ends.
pub async fn run_op(
    agent: AgentHandle,
    info: SessionInfo,
    op: UserOp,
    json_lines: bool,
) -> ExitCode {
    let out = std::io::stdout().lock();
    let mut printer = if json_lines {
        Printer::Json(out)
    } else {
        Printer::Plain(plain::Plain::new(out, std::io::stderr()))
    };
    printer.started(&info);
    let stop = CancellationToken::new();
    let on_ctrl_c = {
        let stop = stop.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                stop.cancel();
            }
        })
    };
    let outcome = drive_op(agent, op, |e| printer.event(e), &stop).await;
    on_ctrl_c.abort();
    printer.finish();
    ExitCode::from(outcome.code)
}

/// How a headless turn ended.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnOutcome {
    /// The exit code `loom exec` gives it: [`EXIT_OK`], [`EXIT_FAILURE`] or
    /// [`EXIT_INTERRUPTED`].
    pub code: u8,
    /// How the turn ended (`None`: the agent stopped without ending it).
    pub end: Option<TurnEnd>,
    /// The errors reported during the turn, in order.
    pub errors: Vec<String>,
}

/// Submit `prompt` to the agent and pass every event to `on_event` until the turn ends,
/// then shut the agent down. When `stop` is cancelled, the turn is interrupted (and still
/// reported to its end). The one loop behind `loom exec` and scheduled runs.
pub async fn drive(
    agent: AgentHandle,
    prompt: String,
    images: Vec<crate::llm::image::Image>,
    on_event: impl FnMut(&AgentEvent),
    stop: &CancellationToken,
) -> TurnOutcome {
    let op = UserOp::Submit {
        text: prompt,
        images,
    };
    drive_op(agent, op, on_event, stop).await
}

/// [`drive`] for any op that starts one turn.
pub async fn drive_op(
    mut agent: AgentHandle,
    op: UserOp,
    mut on_event: impl FnMut(&AgentEvent),
    stop: &CancellationToken,
) -> TurnOutcome {
    // A review the agent refuses (nothing to review, not between turns) starts no turn:
    // an error before the turn's message ends the wait.
    let mut refusable = matches!(op, UserOp::Review { .. });
    let _ = agent.ops.send(op);
    let mut outcome = TurnOutcome {
        code: EXIT_FAILURE,
        end: None,
        errors: Vec::new(),
    };
    let mut interrupted = false;
    loop {
        let event = tokio::select! {
            e = agent.events.recv() => e,
            _ = stop.cancelled(), if !interrupted => {
                interrupted = true;
                let _ = agent.ops.send(UserOp::Interrupt);
                continue;
            }
        };
        let Some(event) = event else { break };
        if let AgentEvent::Error { message } = &event {
            outcome.errors.push(message.clone());
        }
        on_event(&event);
        match &event {
            AgentEvent::UserMessage { .. } => refusable = false,
            AgentEvent::Error { .. } if refusable => break,
            _ => {}
        }
        if let AgentEvent::TurnComplete { end, .. } = &event {
            outcome.code = match end {
                // Errors the turn recovered from (an in-stream error after whole calls, a
                // cut response asked again) are reported as events; the turn's end decides
                // the code, unless something could not be saved.
                TurnEnd::Done if !agent.unsaved.load(Ordering::SeqCst) => EXIT_OK,
                TurnEnd::Interrupted => EXIT_INTERRUPTED,
                _ => EXIT_FAILURE,
            };
            outcome.end = Some(end.clone());
            break;
        }
    }
    let _ = agent.ops.send(UserOp::Shutdown);
    // What is still on its way as the agent stops is reported too: an interrupted
    // sub-agent's last results and the end of its turn come after its parent's turn ended
    // (the agent waits for the calls it cancelled before it stops).
    let mut task = agent.task;
    loop {
        tokio::select! {
            e = agent.events.recv() => match e {
                Some(e) => on_event(&e),
                None => break,
            },
            _ = &mut task => {
                while let Ok(e) = agent.events.try_recv() {
                    on_event(&e);
                }
                break;
            }
        }
    }
    outcome
}

/// Where the events go: JSON lines on stdout, or the plain form for a person.
enum Printer<O: Write, E: Write> {
    Json(O),
    Plain(plain::Plain<O, E>),
}

impl<O: Write, E: Write> Printer<O, E> {
    fn started(&mut self, info: &SessionInfo) {
        match self {
            Printer::Json(out) => line(out, info),
            Printer::Plain(plain) => {
                if let Some(n) = &info.notice {
                    plain.notice(n);
                }
            }
        }
    }

    fn event(&mut self, event: &AgentEvent) {
        match self {
            Printer::Json(out) => {
                if let Some(l) = Line::of(event) {
                    line(out, &l);
                }
            }
            Printer::Plain(plain) => plain.event(event),
        }
    }

    fn finish(&mut self) {
        match self {
            Printer::Json(out) => {
                let _ = out.flush();
            }
            Printer::Plain(plain) => plain.finish(),
        }
    }
}

fn line(out: &mut impl Write, value: &impl Serialize) {
    let _ = serde_json::to_writer(&mut *out, value);
    let _ = writeln!(out);
    let _ = out.flush();
}

/// One `--json` line: an event as its `Serialize` writes it, and for a sub-agent's event
/// the delegate call it belongs to.
#[derive(Serialize)]
pub struct Line<'a> {
    #[serde(flatten)]
    event: &'a AgentEvent,
    #[serde(skip_serializing_if = "Option::is_none")]
    parent_id: Option<&'a str>,
}

impl<'a> Line<'a> {
    /// The line `event` is printed as; `None` for events the schema leaves out (text
    /// deltas, state changes). A sub-agent's event is printed as itself with the delegate
    /// call it belongs to (a deeper sub-agent's event keeps its own, nearer parent).
    pub fn of(event: &'a AgentEvent) -> Option<Line<'a>> {
        let mut event = event;
        let mut parent_id = None;
        while let AgentEvent::SubAgent {
            parent_id: parent,
            event: inner,
        } = event
        {
            parent_id = Some(parent.as_str());
            event = inner;
        }
        printed(event).then_some(Line { event, parent_id })
    }
}

/// The `--json` form of an event (its [`Line`]); `None` for events the schema leaves out.
pub fn to_json(event: &AgentEvent) -> Option<Value> {
    serde_json::to_value(Line::of(event)?).ok()
}

/// Whether `--json` prints an event of this kind (every kind is named, so a new one is
/// decided here).
fn printed(event: &AgentEvent) -> bool {
    match event {
        AgentEvent::ToolCall { .. }
        | AgentEvent::Approval { .. }
        | AgentEvent::ToolResult { .. }
        | AgentEvent::AssistantMessage { .. }
        | AgentEvent::Retry { .. }
        | AgentEvent::Error { .. }
        | AgentEvent::TurnComplete { .. }
        | AgentEvent::HookResult { .. }
        | AgentEvent::Notice { .. }
        | AgentEvent::Compacted { .. }
        | AgentEvent::McpStatus { .. }
        | AgentEvent::ContextWindow { .. }
        | AgentEvent::SubAgent { .. }
        | AgentEvent::PlanUpdated { .. }
        | AgentEvent::CommandChanged { .. }
        | AgentEvent::ReviewFindings { .. } => true,
        AgentEvent::TextDelta { .. }
        | AgentEvent::ReasoningDelta { .. }
        | AgentEvent::StateChanged { .. }
        | AgentEvent::UserMessage { .. }
        | AgentEvent::ApprovalRequested { .. }
        | AgentEvent::ToolStarted { .. }
        | AgentEvent::Usage { .. }
        | AgentEvent::UndoPlanned { .. }
        | AgentEvent::UndoApplied { .. }
        | AgentEvent::Changes { .. }
        | AgentEvent::ChangeApplied { .. }
        | AgentEvent::Attachment { .. }
        | AgentEvent::Models { .. }
        | AgentEvent::RewindPrompts { .. }
        | AgentEvent::RewindPlanned { .. }
        | AgentEvent::Rewound { .. }
        | AgentEvent::Forked { .. }
        | AgentEvent::CustomCommands { .. }
        | AgentEvent::PromptHistory { .. }
        | AgentEvent::CustomCommandNotSent { .. }
        // The diagnostics themselves are in the tool results; the servers' state is for
        // screens.
        | AgentEvent::LspStatus { .. } => false,
    }
}
