//! Sub-agents on the screen: the events of a `delegate` call's sub-agent nest under the
//! delegate row in the tools pane, and a person's answer to its approval request finds its
//! way back.
//!
//! A sub-agent's call ids are its own (they may repeat the parent's), so on screen each
//! becomes `PARENT/ID` (`d1/d2/ID` two levels down) and is handled by the same code as a
//! top-level call: rows, approval prompts, diffs and results. An approval request names the
//! sub-agent that asks. Answers sent for such an id are wrapped back into
//! [`UserOp::ToSubAgent`] for each level, so the agent routes them to the right sub-agent.

use super::app::App;
use super::transcript::NoticeLevel;
use crate::protocol::events::{AgentEvent, ApprovalPreview, UserOp};

impl App {
    /// React to an event of the sub-agent of the delegate calls `path` (outermost first).
    pub(crate) fn on_sub_agent(&mut self, mut path: Vec<String>, event: AgentEvent) {
        let prefix = path.join("/");
        let label = format!(
            "sub-agent of {}",
            path.last().map(String::as_str).unwrap_or("")
        );
        match event {
            AgentEvent::SubAgent { parent_id, event } => {
                path.push(parent_id);
                self.on_sub_agent(path, *event);
            }
            AgentEvent::ToolCall {
                id,
                name,
                arguments,
                intent,
            } => {
                // A row in the tools pane only: the chat shows the delegate call.
                let full = format!("{prefix}/{id}");
                let depth = path.len() as u8;
                self.tools.nest(&prefix, &full, depth, path, id);
                let summary = match intent.as_ref().and_then(|i| i.as_command()) {
                    Some(c) => c.command.lines().next().unwrap_or("").to_string(),
                    None => self.tools.summarize(&name, &arguments),
                };
                self.tools.on_call(&full, name, summary, arguments);
                self.sync_details();
            }
            AgentEvent::Error { message } => {
                self.transcript
                    .push_notice(NoticeLevel::Warning, &format!("{label}: {message}"));
            }
            other => {
                if let Some(shown) = shown_as(other, &prefix, &label) {
                    self.on_agent_event(shown);
                }
            }
        }
    }

    /// `op` as the agent must receive it: an answer about a sub-agent's call, wrapped for
    /// each level of sub-agent it passes.
    pub(crate) fn routed(&self, op: UserOp) -> UserOp {
        let UserOp::Approve { id, answer } = op else {
            return op;
        };
        let Some((path, inner)) = self.tools.nested(&id) else {
            return UserOp::Approve { id, answer };
        };
        let mut op = UserOp::Approve {
            id: inner.to_string(),
            answer,
        };
        for parent_id in path.iter().rev() {
            op = UserOp::ToSubAgent {
                parent_id: parent_id.clone(),
                inner: Box::new(op),
            };
        }
        op
    }
}

/// A sub-agent's `event` as the screen shows it: its call ids become `PREFIX/ID` and its
/// approval requests name it (`label`). `None` for what is its own: its text, state and
/// turns (its answer comes back as the delegate call's result).
fn shown_as(event: AgentEvent, prefix: &str, label: &str) -> Option<AgentEvent> {
    let composite = |id: &str| format!("{prefix}/{id}");
    let shown = match event {
        AgentEvent::ApprovalRequested {
            id,
            name,
            reason,
            preview,
        } => AgentEvent::ApprovalRequested {
            id: composite(&id),
            name,
            reason: format!("{label} asks: {reason}"),
            preview: labelled(preview, label),
        },
        AgentEvent::Approval {
            id,
            approved,
            by,
            reason,
        } => AgentEvent::Approval {
            id: composite(&id),
            approved,
            by,
            reason,
        },
        AgentEvent::ToolStarted { id } => AgentEvent::ToolStarted { id: composite(&id) },
        AgentEvent::ToolResult {
            id,
            name,
            result,
            duration_ms,
        } => AgentEvent::ToolResult {
            id: composite(&id),
            name,
            result,
            duration_ms,
        },
        AgentEvent::ChangeApplied {
            id,
            path,
            hunks,
            creates,
            deleted,
            moved_from,
        } => AgentEvent::ChangeApplied {
            id: composite(&id),
            path,
            hunks,
            creates,
            deleted,
            moved_from,
        },
        _ => return None,
    };
    Some(shown)
}

/// The preview of a sub-agent's call, saying which sub-agent (`label`) asks.
fn labelled(preview: ApprovalPreview, label: &str) -> ApprovalPreview {
    match preview {
        ApprovalPreview::FileChange {
            path,
            unified,
            diff,
            creates,
            mut notes,
        } => {
            notes.insert(0, format!("asked by the {label}"));
            ApprovalPreview::FileChange {
                path,
                unified,
                diff,
                creates,
                notes,
            }
        }
        ApprovalPreview::Command {
            command,
            cwd,
            risk,
            risk_reason,
            grant_offered,
            grant_prefix,
            network,
            outside_sandbox,
        } => ApprovalPreview::Command {
            command,
            cwd,
            risk,
            risk_reason: format!("{risk_reason} — asked by the {label}"),
            grant_offered,
            grant_prefix,
            network,
            outside_sandbox,
        },
        other => other,
    }
}
