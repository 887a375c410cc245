//! The question box for each kind of approval the agent asks (a command, a network
//! request, an MCP tool, a scheduled job, any other call), built from its preview. A file
//! change is not asked in a box: the details pane reviews it.

use super::{CommandApproval, Layer, McpApproval, NetworkApproval, ScheduleApproval};
use crate::protocol::events::ApprovalPreview;

/// The box asking about call `id` of tool `name` (the agent's `reason` for asking); none
/// for a file change, which is reviewed in the details pane.
pub fn question(
    id: String,
    name: String,
    reason: String,
    preview: ApprovalPreview,
) -> Option<Box<dyn Layer>> {
    let layer: Box<dyn Layer> = match preview {
        ApprovalPreview::FileChange { .. } | ApprovalPreview::Files { .. } => return None,
        ApprovalPreview::Command {
            command,
            cwd,
            risk,
            risk_reason,
            grant_prefix,
            network,
            outside_sandbox,
            ..
        } => Box::new(CommandApproval {
            id,
            command,
            cwd,
            risk: Some(risk),
            risk_reason,
            reason,
            grant_prefix,
            network,
            outside_sandbox,
            scroll: 0,
            max_scroll: Default::default(),
            shown: Default::default(),
        }),
        ApprovalPreview::Network {
            method,
            url,
            domain,
            risk,
            risk_reason,
        } => Box::new(NetworkApproval {
            id,
            tool: name,
            method,
            url,
            domain,
            risk,
            risk_reason,
            reason,
        }),
        ApprovalPreview::McpTool {
            server,
            tool,
            arguments,
            read_only_hint,
            grant_offered,
        } => Box::new(McpApproval {
            id,
            server,
            tool,
            arguments,
            read_only_hint,
            reason,
            grant_offered,
        }),
        ApprovalPreview::Schedule { change } => Box::new(ScheduleApproval { id, change, reason }),
        ApprovalPreview::Other { arguments } => Box::new(CommandApproval {
            id,
            command: format!("{name} {arguments}"),
            cwd: ".".into(),
            risk: None,
            risk_reason: reason.clone(),
            reason,
            grant_prefix: None,
            network: false,
            outside_sandbox: false,
            scroll: 0,
            max_scroll: Default::default(),
            shown: Default::default(),
        }),
    };
    Some(layer)
}
