//! The agent's events about tool calls as the tools pane takes them: a call made (its row,
//! queued), started, refused, finished, and a hook's run (a row of its own). The app wires
//! what other parts show of them (the chat's line, its status mark, the details pane).

use std::time::Instant;

use serde_json::Value;

use super::tools_pane::{ToolRow, ToolStatus, ToolsPane, readable_args};
use crate::protocol::{intent::CallIntent, tool_result::ToolResult};

impl ToolsPane {
    /// The one-line summary of a call: the first line of its command, else its arguments
    /// summarized.
    pub fn call_summary(
        &self,
        name: &str,
        arguments: &Value,
        intent: Option<&CallIntent>,
    ) -> String {
        match intent.and_then(|i| i.as_command()) {
            Some(c) => c.command.lines().next().unwrap_or("").to_string(),
            None => match readable_args(arguments) {
                Some(args) => self.summarize(name, &args),
                None => "(arguments that are not JSON)".to_string(),
            },
        }
    }

    /// The model made call `id`: its row, queued, summarized as `summary`.
    pub fn on_call(&mut self, id: &str, name: String, summary: String, arguments: Value) {
        self.add(ToolRow {
            id: id.to_string(),
            name,
            summary,
            args: arguments,
            status: ToolStatus::Queued,
            result: None,
            stored: None,
        });
    }

    /// Call `id` waits for the person's answer: its row says so and is selected.
    pub fn on_awaiting(&mut self, id: &str) {
        if let Some(row) = self.row_mut(id) {
            row.status = ToolStatus::Awaiting;
        }
        if let Some(i) = self.rows.iter().rposition(|r| r.id == id) {
            self.selected = i;
        }
    }

    /// Call `id` was refused.
    pub fn on_denied(&mut self, id: &str) {
        if let Some(row) = self.row_mut(id) {
            row.status = ToolStatus::Denied;
        }
    }

    /// Call `id` started running at `now`.
    pub fn on_started(&mut self, id: &str, now: Instant) {
        if let Some(row) = self.row_mut(id) {
            row.status = ToolStatus::Running(now);
        }
    }

    /// Call `id` finished with `result` after `ms` (a refused call stays refused).
    pub fn on_result(&mut self, id: &str, result: ToolResult, ms: u64) {
        if let Some(row) = self.row_mut(id) {
            if row.status != ToolStatus::Denied {
                row.status = ToolStatus::Done {
                    ok: result.success,
                    ms: Some(ms),
                };
            }
            row.result = Some(result);
        }
    }

    /// Hook `name` ran: a row of its own. Gives the warning the chat shows when it failed.
    pub fn on_hook(
        &mut self,
        name: String,
        success: bool,
        output: String,
        ms: u64,
    ) -> Option<String> {
        self.hooks += 1;
        let warning =
            (!success).then(|| format!("hook `{name}`: {}", output.lines().next().unwrap_or("")));
        self.add(ToolRow {
            id: format!("hook-{}", self.hooks),
            name: "hook".into(),
            summary: name.clone(),
            args: Value::String(name),
            status: ToolStatus::Done {
                ok: success,
                ms: Some(ms),
            },
            result: Some(ToolResult {
                success,
                output,
                data: None,
                files_changed: Vec::new(),
                error: None,
                images: Vec::new(),
            }),
            stored: None,
        });
        warning
    }
}
