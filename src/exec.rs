//! Headless mode: `loom exec PROMPT` runs one task to completion and exits.
//!
//! A second consumer of the agent's events (the TUI is the first). Without `--json` the
//! answer streams to stdout, a paragraph per assistant message, and one short line per tool
//! call and result goes to stderr (see [`plain`]). With
//! `--json` every event is one JSON object per line on stdout, each with a `type` (the
//! schema is in docs/exec.md). Nobody can approve anything here: the runner turns every
//! "ask" into a denial the model can read.

mod plain;
pub mod start;

use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::Ordering;

use serde_json::{Value, json};
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

/// What `session_started` reports.
#[derive(Debug, Clone)]
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
    let outcome = drive(agent, prompt, images, |e| printer.event(e), &stop).await;
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
    mut agent: AgentHandle,
    prompt: String,
    images: Vec<crate::llm::image::Image>,
    mut on_event: impl FnMut(&AgentEvent),
    stop: &CancellationToken,
) -> TurnOutcome {
    let _ = agent.ops.send(UserOp::Submit {
        text: prompt,
        images,
    });
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
    let _ = agent.task.await;
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
            Printer::Json(out) => {
                let mut started = json!({
                    "type": "session_started",
                    "session_id": info.session_id,
                    "model": info.model,
                    "workspace": info.workspace,
                    "provider": info.provider,
                    "sandbox": info.sandbox,
                });
                if let Some(n) = &info.notice {
                    started["notice"] = json!(n);
                }
                line(out, &started);
            }
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
                if let Some(v) = to_json(event) {
                    line(out, &v);
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

fn line(out: &mut impl Write, value: &Value) {
    let _ = serde_json::to_writer(&mut *out, value);
    let _ = writeln!(out);
    let _ = out.flush();
}

/// The `--json` form of an event; `None` for events the schema leaves out (text deltas,
/// state changes).
pub fn to_json(event: &AgentEvent) -> Option<Value> {
    Some(match event {
        AgentEvent::ToolCall {
            id,
            name,
            arguments,
            intent,
        } => {
            let mut v = json!({
                "type": "tool_call", "id": id, "name": name, "arguments": arguments,
            });
            if let Some(intent) = intent {
                v["touches"] = json!(intent);
            }
            v
        }
        AgentEvent::Approval {
            id,
            approved,
            by,
            reason,
        } => json!({
            "type": "approval",
            "id": id,
            "decision": if *approved { "approved" } else { "denied" },
            "by": by,
            "reason": reason,
        }),
        AgentEvent::ToolResult {
            id,
            name,
            result,
            duration_ms,
        } => json!({
            "type": "tool_result",
            "id": id,
            "name": name,
            "success": result.success,
            "output": result.output,
            "error": result.error,
            "data": result.data,
            "files_changed": result.files_changed,
            "duration_ms": duration_ms,
        }),
        AgentEvent::AssistantMessage { text } => json!({"type": "assistant_message", "text": text}),
        AgentEvent::Retry {
            attempt,
            max_attempts,
            reason,
            wait_ms,
        } => json!({
            "type": "retry", "attempt": attempt, "max_attempts": max_attempts,
            "reason": reason, "wait_ms": wait_ms,
        }),
        AgentEvent::Error { message } => json!({"type": "error", "message": message}),
        AgentEvent::TurnComplete { usage, end, .. } => json!({
            "type": "turn_completed",
            "end": end,
            "usage": {
                "prompt_tokens": usage.prompt_tokens,
                "completion_tokens": usage.completion_tokens,
                "estimated": usage.estimated,
            },
        }),
        AgentEvent::HookResult {
            name,
            success,
            output,
            duration_ms,
        } => json!({
            "type": "hook_result", "name": name, "success": success, "output": output,
            "duration_ms": duration_ms,
        }),
        AgentEvent::Notice { message } => json!({"type": "notice", "message": message}),
        AgentEvent::Compacted {
            before_tokens,
            after_tokens,
            trimmed_results,
            summarized_messages,
            summary_failed,
        } => json!({
            "type": "compacted", "before_tokens": before_tokens, "after_tokens": after_tokens,
            "trimmed_results": trimmed_results, "summarized_messages": summarized_messages,
            "summary_failed": summary_failed,
        }),
        AgentEvent::McpStatus { servers } => json!({"type": "mcp_status", "servers": servers}),
        AgentEvent::ContextWindow { tokens, source } => json!({
            "type": "context_window", "tokens": tokens, "source": source,
        }),
        AgentEvent::SubAgent { parent_id, event } => {
            // The sub-agent's event as it would be printed, with the delegate call it
            // belongs to (a deeper sub-agent's event keeps its own, nearer parent).
            let mut v = to_json(event)?;
            if v.get("parent_id").is_none() {
                v["parent_id"] = json!(parent_id);
            }
            v
        }
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
        | AgentEvent::Models { .. } => return None,
    })
}
