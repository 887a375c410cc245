//! Custom slash commands (`crate::custom_commands`) in the runner: the list sent to front
//! ends, and running one — its body expanded, its `@file`s read through `read_file` and
//! the policy (as the composer's `@path`), its `` !`command` ``s run through the policy and
//! the sandbox (as the composer's `!command`, except that nobody typed them: a command the
//! policy asks about waits for the person's answer, a forbidden one is refused and never
//! runs) — then sent as the person's message. Its turn uses the command's `model` and only
//! its `allowed-tools`; both end with the turn.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use serde_json::json;
use tokio::sync::oneshot;

use super::{Internal, Runner};
use crate::agent::effects::run_with_snapshots;
use crate::agent::events::{AgentEvent, ApprovalAnswer, ApprovalPreview, DecidedBy, Phase};
use crate::custom_commands::expand::{Segment, segments, substitute};
use crate::custom_commands::{self as cc, ToolFilter};
use crate::policy::Decision;
use crate::protocol::events::COMMAND_ID_PREFIX;
use crate::protocol::tool_data::BashData;
use crate::tools::{ToolArgs, ToolKind, ToolResult};

/// Ids of the `` !`command` ``s of custom commands: `command-1`, … (never a model's call
/// id, so an answer to one is never taken for an answer to a model's call).
static NEXT: AtomicU64 = AtomicU64::new(1);

/// The runner's custom-command state.
#[derive(Default)]
pub(super) struct Custom {
    /// Where commands are found (`None`: a sub-agent, which has none).
    source: Option<cc::Source>,
    /// Answers awaited for a running command's `` !`command` ``s, by id.
    asks: HashMap<String, oneshot::Sender<bool>>,
    /// A command is being expanded.
    pub(super) expanding: bool,
    /// The running command turn's tools, if it narrows them.
    pub(super) filter: Option<ToolFilter>,
    /// The model to go back to when the command's turn ends.
    restore_model: Option<String>,
}

/// One step of an expansion, ruled on before anything runs.
enum Step {
    Text(String),
    /// Read a file for an attachment.
    Read {
        name: String,
        args: ToolArgs,
    },
    /// Run a command.
    Run(RunStep),
}

/// A `` !`command` `` the policy let through (or asks about).
struct RunStep {
    id: String,
    command: String,
    args: ToolArgs,
    /// Where the person's answer comes, and the question to ask, when it asks.
    ask: Option<(oneshot::Receiver<bool>, Box<AgentEvent>)>,
    /// Whether the sandbox's network opens for it.
    network: bool,
    /// Whether the workspace is snapshotted around it (for undo).
    snapshot: bool,
}

/// A command ready to be sent.
pub(super) struct Ready {
    name: String,
    text: String,
    model: Option<String>,
    filter: Option<ToolFilter>,
    cancelled: bool,
}

impl Custom {
    /// Commands found in `source` (`None`: none, as for a sub-agent).
    pub(super) fn new(source: Option<cc::Source>) -> Custom {
        Custom {
            source,
            ..Custom::default()
        }
    }
}

impl Runner {
    /// Load the commands and send them to the front ends.
    pub(super) fn list_custom_commands(&mut self) {
        let Some(source) = &self.custom.source else {
            return;
        };
        let catalog = cc::load(source);
        self.emit(AgentEvent::CustomCommands {
            commands: catalog.infos(),
            warnings: catalog.warnings,
        });
    }

    /// Run the custom command `name` with `arguments` (see the module docs).
    pub(super) fn run_custom_command(&mut self, name: &str, arguments: &str) {
        if self.machine.phase() != Phase::Idle || self.custom.expanding {
            let why = format!("/{name} runs between turns: wait for this one or stop it (Esc)");
            return self.command_refused(name, why);
        }
        let Some(source) = &self.custom.source else {
            let why = format!("unknown command /{name}; /help lists the commands");
            return self.command_refused(name, why);
        };
        let catalog = cc::load(source);
        let Some(command) = catalog.commands.get(name).cloned() else {
            let why = format!("there is no custom command /{name}; /commands lists them");
            return self.command_refused(name, why);
        };
        let text = substitute(&command.body, arguments);
        let steps: Vec<Step> = segments(&text).into_iter().map(|s| self.rule(s)).collect();
        self.custom.expanding = true;
        let mut ctx = self.work.ctx.clone();
        ctx.cancel = self.schedule.shell_token();
        let expansion = Expansion {
            registry: self.work.registry.clone(),
            ctx,
            changelog: self.persistence.changelog(),
            turn: self.persistence.turn(),
            tx: self.internal_tx.clone(),
        };
        let ready = Ready {
            name: name.to_string(),
            text: String::new(),
            model: command.model.clone(),
            filter: command.allowed.clone(),
            cancelled: false,
        };
        tokio::spawn(expansion.run(steps, ready));
    }

    /// Command `name` is not run: the person is told why, then front ends waiting for its
    /// turn that none comes.
    fn command_refused(&mut self, name: &str, reason: String) {
        self.emit(AgentEvent::Error {
            message: reason.clone(),
        });
        self.emit(AgentEvent::CustomCommandNotSent {
            name: name.to_string(),
            reason,
            cancelled: false,
        });
    }

    /// Rule on one segment now, in order, so the policy sees them as the person would.
    fn rule(&mut self, segment: Segment) -> Step {
        let workspace = self
            .work
            .ctx
            .workspace
            .as_deref()
            .map(|c| c.root().to_path_buf());
        match segment {
            Segment::Text(t) => Step::Text(t),
            Segment::File(path) => {
                let name = format!("@{path}");
                let args = json!({"path": path, "max_bytes": super::attach::ATTACH_BYTES});
                let refused = |why: String| Step::Text(format!("{name} [not attached: {why}]"));
                let prepared = match self.work.registry.prepare("read_file", args) {
                    Ok(p) => p,
                    Err(e) => return refused(e.to_string()),
                };
                let ruling = self.work.policy.decide(
                    "read_file",
                    &prepared.intent,
                    workspace.as_deref(),
                    Instant::now(),
                );
                match ruling.decision {
                    Decision::Deny { reason } => refused(reason),
                    _ => Step::Read {
                        name,
                        args: prepared.args,
                    },
                }
            }
            Segment::Shell(command) => self.rule_command(command, workspace.as_deref()),
        }
    }

    /// Rule on a `` !`command` ``: refused (shown, never run), asked, or run.
    fn rule_command(&mut self, command: String, workspace: Option<&std::path::Path>) -> Step {
        let id = format!(
            "{COMMAND_ID_PREFIX}{}",
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let refused = |why: &str| Step::Text(format!("[!`{command}` was not run: {why}]"));
        let prepared = match self
            .work
            .registry
            .prepare("bash", json!({ "command": command }))
        {
            Ok(p) => p,
            Err(e) => return refused(&e.to_string()),
        };
        self.emit(AgentEvent::ToolCall {
            id: id.clone(),
            name: "bash".into(),
            arguments: prepared.shown.clone(),
            intent: Some(Box::new(prepared.intent.shown())),
        });
        let now = Instant::now();
        let ruling = self
            .work
            .policy
            .decide("bash", &prepared.intent, workspace, now);
        let ask = match &ruling.decision {
            Decision::Deny { reason } => {
                self.emit(AgentEvent::Approval {
                    id: id.clone(),
                    approved: false,
                    by: DecidedBy::Policy,
                    reason: Some(reason.clone()),
                });
                self.emit(AgentEvent::ToolResult {
                    id,
                    name: "bash".into(),
                    result: ToolResult::err(format!("denied by policy: {reason}")),
                    duration_ms: 0,
                });
                return refused(&format!("denied by policy: {reason}"));
            }
            Decision::Allow => None,
            Decision::Ask { reason } => {
                let (tx, rx) = oneshot::channel();
                self.custom.asks.insert(id.clone(), tx);
                let intent = prepared.intent.as_command().cloned();
                let a = &ruling.assessment;
                let request = AgentEvent::ApprovalRequested {
                    id: id.clone(),
                    name: "bash".into(),
                    reason: reason.clone(),
                    preview: ApprovalPreview::Command {
                        command: command.clone(),
                        cwd: intent
                            .as_ref()
                            .and_then(|i| i.cwd.clone())
                            .unwrap_or_else(|| ".".into()),
                        risk: a.risk,
                        risk_reason: a.reason.clone(),
                        grant_offered: false,
                        grant_prefix: None,
                        network: a.network,
                        outside_sandbox: intent.is_some_and(|i| i.outside_sandbox),
                    },
                };
                Some((rx, Box::new(request)))
            }
        };
        self.work.policy.record_action(ToolKind::Execute, now);
        Step::Run(RunStep {
            network: ruling.opens_network(ask.is_some()),
            snapshot: ruling.assessment.snapshot,
            id,
            command,
            args: prepared.args,
            ask,
        })
    }

    /// The person answered about a command's `` !`command` ``; false when `id` is none.
    pub(super) fn answer_command(&mut self, id: &str, answer: &ApprovalAnswer) -> bool {
        let Some(tx) = self.custom.asks.remove(id) else {
            return false;
        };
        let approved = matches!(
            answer,
            ApprovalAnswer::Approve | ApprovalAnswer::ApproveForSession
        );
        let reason = (!approved).then(|| "declined by the person".to_string());
        self.emit(AgentEvent::Approval {
            id: id.to_string(),
            approved,
            by: DecidedBy::User,
            reason,
        });
        let _ = tx.send(approved);
        true
    }

    /// Esc while a command expands: its waiting questions are dropped (declined).
    pub(super) fn stop_command(&mut self) {
        self.custom.asks.clear();
    }

    /// The command is expanded: send it, with its model and tools for this turn.
    pub(super) fn command_ready(&mut self, ready: Ready) -> Option<crate::agent::state::Event> {
        self.custom.expanding = false;
        if ready.cancelled || self.machine.phase() != Phase::Idle {
            let message = format!(
                "/{} was stopped before it was sent; nothing was sent",
                ready.name
            );
            self.emit(AgentEvent::Notice {
                message: message.clone(),
            });
            self.emit(AgentEvent::CustomCommandNotSent {
                name: ready.name,
                reason: message,
                cancelled: ready.cancelled,
            });
            return None;
        }
        if let Some(model) = &ready.model {
            let before = self.stream.llm.as_ref().map(|c| c.settings().model.clone());
            if self.stream.switch_model(model).is_some() {
                self.custom.restore_model = before;
            }
        }
        self.custom.filter = ready.filter;
        // A command's prompt is a prompt like any other: UserPromptSubmit hooks see it.
        self.submit_prompt(crate::agent::events::UserInput {
            text: ready.text,
            images: Vec::new(),
        })
    }

    /// The tool schemas this request offers: all the prefix's, or only those the running
    /// command allows.
    pub(super) fn offered_tools(&self) -> Vec<serde_json::Value> {
        let all = &self.prefix.tool_schemas;
        match &self.custom.filter {
            None => all.clone(),
            Some(f) => all
                .iter()
                .filter(|s| f.offers(s["function"]["name"].as_str().unwrap_or("")))
                .cloned()
                .collect(),
        }
    }

    /// A turn ended: a command's model and tools end with it.
    pub(super) fn end_command_turn(&mut self) {
        self.custom.filter = None;
        if let Some(model) = self.custom.restore_model.take() {
            self.stream.switch_model(&model);
        }
    }
}

/// What an expansion runs with, off the runner's task.
struct Expansion {
    registry: std::sync::Arc<crate::tools::ToolRegistry>,
    ctx: crate::tools::ToolContext,
    changelog: Option<std::sync::Arc<std::sync::Mutex<crate::changelog::Changelog>>>,
    turn: u64,
    tx: tokio::sync::mpsc::UnboundedSender<Internal>,
}

impl Expansion {
    /// Carry out `steps` in order and hand the runner the text, as `ready`.
    async fn run(self, steps: Vec<Step>, mut ready: Ready) {
        let mut files = String::new();
        for step in steps {
            if self.ctx.cancel.is_cancelled() {
                break;
            }
            match step {
                Step::Text(t) => ready.text.push_str(&t),
                Step::Read { name, args } => {
                    ready.text.push_str(&name);
                    let result = self.registry.run("read_file", &args, &self.ctx).await;
                    let text = if result.success {
                        result.output
                    } else {
                        format!("[not read: {}]", result.error.unwrap_or(result.output))
                    };
                    files.push_str(&attachment(&name, &text));
                }
                Step::Run(run) => {
                    let output = self.command(run).await;
                    ready.text.push_str(&output);
                }
            }
        }
        ready.text = ready.text.trim().to_string();
        ready.text.push_str(&files);
        ready.cancelled = self.ctx.cancel.is_cancelled();
        let _ = self.tx.send(Internal::CommandReady(Box::new(ready)));
    }

    /// Run one `` !`command` `` (once the person said yes, when asked); its output, or why
    /// it did not run.
    async fn command(&self, run: RunStep) -> String {
        let send = |event: AgentEvent| {
            let _ = self.tx.send(Internal::Applied(event));
        };
        let approved = match run.ask {
            None => true,
            Some((answer, request)) => {
                send(*request);
                answer.await.unwrap_or(false)
            }
        };
        if !approved {
            send(AgentEvent::ToolResult {
                id: run.id,
                name: "bash".into(),
                result: ToolResult::err("declined by the person"),
                duration_ms: 0,
            });
            return format!("[!`{}` was not run: the person declined]", run.command);
        }
        let mut ctx = self.ctx.clone();
        ctx.sandbox.allow_network = run.network;
        send(AgentEvent::ToolStarted { id: run.id.clone() });
        let started = Instant::now();
        let (result, journal) = match (run.snapshot, self.changelog.clone()) {
            (true, Some(log)) => {
                let (reg, cmd, id) = (&self.registry, &run.command, &run.id);
                let (result, journal, files) =
                    run_with_snapshots(reg, "bash", run.args, cmd, log, self.turn, id, &ctx).await;
                super::tool_calls::command_changed(&self.tx, id, files);
                (result, journal)
            }
            _ => (self.registry.run("bash", &run.args, &ctx).await, None),
        };
        if let Some(message) = journal {
            let _ = self.tx.send(Internal::JournalFailed(message));
        }
        let output = command_text(&result);
        send(AgentEvent::ToolResult {
            id: run.id,
            name: "bash".into(),
            result,
            duration_ms: started.elapsed().as_millis() as u64,
        });
        output
    }
}

/// Most bytes of a `` !`command` ``'s output put in a prompt (cut in the middle beyond), as
/// for the message box's `!command`.
pub const COMMAND_OUTPUT_BYTES: usize = 16 * 1024;

/// What a `` !`command` `` gives the prompt: its output (stderr marked), and how it failed
/// when it did.
fn command_text(result: &ToolResult) -> String {
    if result.data.is_none() {
        return result
            .error
            .clone()
            .unwrap_or_else(|| result.output.clone());
    }
    let ran: BashData = result.data_as().unwrap_or_default();
    let mut text = ran.stdout.trim_end().to_string();
    let stderr = ran.stderr.trim_end();
    if !stderr.is_empty() {
        text.push_str(&format!("\n[stderr]\n{stderr}"));
    }
    if !result.success {
        text.push_str(&format!(
            "\n[{}]",
            result.output.lines().next().unwrap_or("failed")
        ));
    }
    crate::base::text::cut_middle(text.trim_start_matches('\n'), COMMAND_OUTPUT_BYTES).0
}

/// A file read for a command, as an attachment block (the composer's `@path` format, in
/// `loom-tui`'s `attachments.rs`, so front ends show it as a chip).
fn attachment(name: &str, text: &str) -> String {
    format!(
        "\n\n<attachment name=\"{}\">\n{}\n</attachment>",
        name.replace('"', "'"),
        text.trim_end_matches('\n')
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ran(success: bool, stdout: &str, stderr: &str, summary: &str) -> ToolResult {
        let mut r = if success {
            ToolResult::ok(summary)
        } else {
            ToolResult::err(summary)
        };
        r.output = summary.into();
        r.data = Some(json!({"stdout": stdout, "stderr": stderr, "exit_code": 0}));
        r
    }

    #[test]
    fn a_commands_text_is_its_output_with_stderr_and_failure_marked() {
        assert_eq!(
            command_text(&ran(true, "a\nb\n", "", "exit code 0")),
            "a\nb"
        );
        assert_eq!(
            command_text(&ran(false, "", "boom\n", "exit code 2 in 0.01s")),
            "[stderr]\nboom\n[exit code 2 in 0.01s]"
        );
        let refused = ToolResult::err("not in the workspace");
        assert_eq!(command_text(&refused), "not in the workspace");
        let big = "x".repeat(COMMAND_OUTPUT_BYTES * 2);
        assert!(command_text(&ran(true, &big, "", "ok")).len() <= COMMAND_OUTPUT_BYTES + 200);
    }

    #[test]
    fn an_attached_file_is_a_block_the_screen_shows_as_a_chip() {
        assert_eq!(
            attachment("@a \"b\".rs", "fn a() {}\n"),
            "\n\n<attachment name=\"@a 'b'.rs\">\nfn a() {}\n</attachment>"
        );
    }
}
