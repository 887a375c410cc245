//! The runner's approvals: what the person is shown when a call waits for them (built from
//! the call, its previewed changes and the policy's ruling) and the grants they give.

use super::schedule::CallRecord;
use super::*;
use crate::agent::state::CallRef;

impl Runner {
    /// Ask the person about call `id` for `reason`, showing what it would do.
    pub(super) fn ask_user(&mut self, id: String, reason: String) {
        let Some(call) = self.machine.call(&id) else {
            return;
        };
        let preview = preview(call, self.schedule.get(&id));
        let name = call.name_owned();
        self.notify_hooks(format!("Loom needs your approval to use {name}: {reason}"));
        self.emit(AgentEvent::ApprovalRequested {
            id: id.clone(),
            name,
            reason,
            preview,
        });
    }

    /// The person granted calls like `id` for the rest of the session.
    pub(super) fn grant(&mut self, id: &str) {
        let kind = self.machine.call(id).map(|c| c.kind);
        let ruling = self.schedule.get(id).and_then(|r| r.ruling.as_ref());
        if let (Some(kind), Some(ruling)) = (kind, ruling) {
            let message = self.work.policy.grant(kind, &ruling.assessment);
            self.emit(AgentEvent::Notice { message });
        }
    }
}

/// What the person is shown for `call`: a network request, a file change, a command, an
/// MCP tool or a schedule change, else the arguments.
fn preview(call: CallRef<'_>, record: Option<&CallRecord>) -> ApprovalPreview {
    let command = call.intent.and_then(|i| i.as_command().cloned());
    let network = call
        .intent
        .and_then(|i| i.as_network().cloned().map(Box::new));
    let mcp = call.intent.and_then(|i| i.as_mcp().cloned().map(Box::new));
    let schedule = call
        .intent
        .and_then(|i| i.as_schedule().cloned().map(Box::new));
    let prepared = record.and_then(|r| r.prepared.as_ref());
    let ruling = record.and_then(|r| r.ruling.as_ref());
    match (prepared, command, ruling) {
        (None, None, Some(ruling)) if network.is_some() => {
            let n = *network.expect("checked above");
            ApprovalPreview::Network {
                method: n.method,
                url: n.url,
                domain: n.domain,
                risk: ruling.assessment.risk,
                risk_reason: ruling.assessment.reason.clone(),
            }
        }
        (Some(changes), _, _) => match changes.as_slice() {
            [change] if change.op == crate::tools::change::ChangeOp::Write => {
                ApprovalPreview::FileChange {
                    path: change.display_path.clone(),
                    unified: change.unified(),
                    diff: change.diff.clone(),
                    creates: change.creates(),
                    notes: change.notes.clone(),
                }
            }
            _ => ApprovalPreview::Files {
                files: changes.iter().map(file_preview).collect(),
            },
        },
        (None, Some(command), Some(ruling)) => {
            let a = &ruling.assessment;
            ApprovalPreview::Command {
                command: command.command,
                cwd: command.cwd.unwrap_or_else(|| ".".into()),
                risk: a.risk,
                risk_reason: a.reason.clone(),
                grant_offered: a.grant.is_some(),
                grant_prefix: a.grant_label(),
                network: a.network,
                outside_sandbox: command.outside_sandbox,
            }
        }
        (None, None, ruling) if let Some(m) = mcp.map(|m| *m) => ApprovalPreview::McpTool {
            server: m.server,
            tool: m.tool,
            arguments: serde_json::to_string_pretty(&call.args).unwrap_or_default(),
            read_only_hint: m.read_only_hint,
            grant_offered: ruling.is_some_and(|r| r.assessment.grant.is_some()),
        },
        (None, None, _) if let Some(change) = schedule.map(|s| *s) => {
            ApprovalPreview::Schedule { change }
        }
        _ => ApprovalPreview::Other {
            arguments: call.args.value().clone(),
        },
    }
}

/// The preview of one proposed change, as the approval screens show it.
fn file_preview(change: &crate::tools::FileChange) -> FilePreview {
    FilePreview {
        path: change.display_path.clone(),
        unified: change.unified(),
        diff: change.diff.clone(),
        creates: change.creates(),
        deletes: change.deletes(),
        moved_from: change.move_source().map(str::to_string),
        notes: change.notes.clone(),
    }
}
