//! `!command`: a command the person types runs through the same path as the model's `bash`
//! calls — parsed into the tool's typed arguments, judged by the policy (a forbidden or
//! mode-denied command is refused with the policy's reason), snapshotted for undo when it
//! may write, and run by the `bash` tool in the sandbox — but outside the conversation: the
//! model sees its output only when the person attaches it to a message. Typing the command
//! is the person's approval, so commands the policy would ask about run (as an approved
//! call would, network included when the command itself connects).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use serde_json::json;

use super::{Internal, Runner};
use crate::agent::effects::run_with_snapshots;
use crate::agent::events::{AgentEvent, DecidedBy, Phase};
use crate::policy::Decision;
use crate::tools::{ToolKind, ToolResult};

/// Ids of person-typed commands: `shell-1`, `shell-2`, … (never a model's call id).
static NEXT: AtomicU64 = AtomicU64::new(1);

pub use loom_protocol::events::SHELL_ID_PREFIX;

impl Runner {
    /// Run `command` as the person's own `bash` call (see the module docs).
    pub(super) fn shell(&mut self, command: String) {
        if self.machine.phase() != Phase::Idle {
            self.emit(AgentEvent::Error {
                message: "a !command runs between turns: wait for this one or stop it (Esc)".into(),
            });
            return;
        }
        let id = format!("{SHELL_ID_PREFIX}{}", NEXT.fetch_add(1, Ordering::Relaxed));
        let prepared = match self
            .work
            .registry
            .prepare("bash", json!({ "command": command }))
        {
            Ok(p) => p,
            Err(e) => {
                self.emit(AgentEvent::Error {
                    message: format!("!{command}: {e}"),
                });
                return;
            }
        };
        self.emit(AgentEvent::ToolCall {
            id: id.clone(),
            name: "bash".into(),
            arguments: prepared.shown.clone(),
            intent: Some(Box::new(prepared.intent.shown())),
        });
        let workspace = self.work.ctx.workspace.as_deref().map(|c| c.root());
        let now = Instant::now();
        let ruling = self
            .work
            .policy
            .decide("bash", &prepared.intent, workspace, now);
        if let Decision::Deny { reason } = &ruling.decision {
            return self.shell_denied(id, reason);
        }
        self.work.policy.record_action(ToolKind::Execute, now);
        self.emit(AgentEvent::ToolStarted { id: id.clone() });
        let registry = self.work.registry.clone();
        let mut ctx = self.work.ctx.clone();
        ctx.cancel = self.schedule.shell_token();
        if ruling.opens_network(true) {
            ctx.sandbox.allow_network = true;
        }
        let snapshot = ruling.assessment.snapshot;
        let changelog = self.persistence.changelog();
        let turn = self.persistence.turn();
        let tx = self.internal_tx.clone();
        tokio::spawn(async move {
            let started = Instant::now();
            let args = prepared.args;
            let (result, journal_error) = match (snapshot, changelog) {
                (true, Some(changelog)) => {
                    let (result, journal_error, files) = run_with_snapshots(
                        &registry, "bash", args, &command, changelog, turn, &id, &ctx,
                    )
                    .await;
                    super::tool_calls::command_changed(&tx, &id, files);
                    (result, journal_error)
                }
                _ => (registry.run("bash", &args, &ctx).await, None),
            };
            if let Some(message) = journal_error {
                let _ = tx.send(Internal::JournalFailed(message));
            }
            let _ = tx.send(Internal::Applied(AgentEvent::ToolResult {
                id,
                name: "bash".into(),
                result,
                duration_ms: started.elapsed().as_millis() as u64,
            }));
        });
    }

    /// The policy denied the person's command `id`: it is shown refused, with why.
    fn shell_denied(&mut self, id: String, reason: &str) {
        self.emit(AgentEvent::Approval {
            id: id.clone(),
            approved: false,
            by: DecidedBy::Policy,
            reason: Some(reason.to_string()),
        });
        self.emit(AgentEvent::ToolResult {
            id,
            name: "bash".into(),
            result: ToolResult::err(format!("denied by policy: {reason}")),
            duration_ms: 0,
        });
    }
}
