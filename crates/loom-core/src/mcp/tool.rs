//! One tool of an MCP server, offered to the model as `mcp__SERVER__TOOL` through the same
//! [`Tool`] trait as Loom's own: it describes each call as an MCP [`CallIntent`] for the
//! policy, runs it within the server's call timeout, and cancels it at the server
//! (`notifications/cancelled`, sent and written before the call returns) when it times out
//! or the person interrupts.

use std::sync::{Arc, Weak};
use std::time::Duration;

use async_trait::async_trait;
use rmcp::RoleClient;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotification,
    CancelledNotificationParam, ClientRequest, ServerResult,
};
use rmcp::service::{PeerRequestOptions, RequestHandle, ServiceError};
use serde_json::Value;

use super::content;
use super::schema;
use super::server::Slot;
use crate::config::mcp::McpServer;
use crate::policy::{CallIntent, McpIntent, ToolKind};
use crate::tools::{Tool, ToolContext, ToolError, ToolResult};

/// The longest tool description offered to the model, in characters.
const MAX_DESCRIPTION: usize = 2000;
/// The longest argument summary in a tool row, in characters.
const MAX_SUMMARY: usize = 120;

/// A server's tool, ready to offer.
pub struct McpTool {
    full_name: String,
    tool: String,
    description: String,
    parameters: Value,
    read_only_hint: bool,
    server: String,
    call_timeout: Duration,
    startup_timeout: Duration,
    slot: Weak<Slot>,
}

impl McpTool {
    /// The tools of a `tools/list` answer that can be offered, and notices about those
    /// that were simplified or left out.
    pub fn build(
        slot: Weak<Slot>,
        config: &McpServer,
        listed: Vec<rmcp::model::Tool>,
    ) -> (Vec<Arc<McpTool>>, Vec<String>) {
        let mut tools: Vec<Arc<McpTool>> = Vec::new();
        let mut notices = Vec::new();
        for t in listed {
            let name = t.name.to_string();
            let Some(full_name) = schema::tool_name(&config.name, &name) else {
                notices.push(format!(
                    "left out `{name}`: its name is longer than the {} characters providers accept",
                    schema::MAX_NAME
                ));
                continue;
            };
            if tools.iter().any(|o| o.full_name == full_name) {
                notices.push(format!(
                    "left out `{name}`: another of its tools is also offered as `{full_name}`"
                ));
                continue;
            }
            let fitted = match schema::fit(&t.input_schema) {
                Ok(f) => f,
                Err(why) => {
                    notices.push(format!("left out `{name}`: {why}"));
                    continue;
                }
            };
            for change in &fitted.changes {
                notices.push(format!("simplified `{name}`: {change}"));
            }
            let read_only_hint = t
                .annotations
                .as_ref()
                .and_then(|a| a.read_only_hint)
                .unwrap_or(false);
            let mut description: String = t
                .description
                .as_deref()
                .unwrap_or("")
                .chars()
                .take(MAX_DESCRIPTION)
                .collect();
            if description.trim().is_empty() {
                description = t.title.clone().unwrap_or_else(|| name.clone());
            }
            tools.push(Arc::new(McpTool {
                description: format!("[MCP server `{}`] {description}", config.name),
                full_name,
                tool: name,
                parameters: fitted.schema,
                read_only_hint,
                server: config.name.clone(),
                call_timeout: config.call_timeout,
                startup_timeout: config.startup_timeout,
                slot: slot.clone(),
            }));
        }
        (tools, notices)
    }

    /// `mcp__SERVER__TOOL`.
    pub fn full_name(&self) -> &str {
        &self.full_name
    }

    fn summary(args: &Value) -> String {
        let text = args.to_string();
        if text.chars().count() <= MAX_SUMMARY {
            return text;
        }
        let cut: String = text.chars().take(MAX_SUMMARY - 1).collect();
        format!("{cut}…")
    }
}

#[async_trait]
impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.full_name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> Value {
        self.parameters.clone()
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Mcp
    }

    fn describe(&self, args: &Value) -> Result<CallIntent, ToolError> {
        if !args.is_object() {
            return Err(ToolError::InvalidArguments(
                "the arguments must be a JSON object".into(),
            ));
        }
        Ok(CallIntent::calls_mcp(McpIntent {
            server: self.server.clone(),
            tool: self.tool.clone(),
            read_only_hint: self.read_only_hint,
            summary: format!("{} {}", self.tool, McpTool::summary(args)),
        }))
    }

    /// The call's own limit plus time for one restart: the call itself is bounded by the
    /// server's `call_timeout_secs` inside [`Tool::execute`], with a clearer message.
    fn default_timeout(&self) -> Duration {
        self.call_timeout + self.startup_timeout + Duration::from_secs(2)
    }

    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolResult {
        let Some(slot) = self.slot.upgrade() else {
            return ToolResult::err(format!("the MCP server `{}` was shut down", self.server));
        };
        let Value::Object(arguments) = args else {
            return ToolError::InvalidArguments("the arguments must be a JSON object".into())
                .into();
        };
        let lost = match self.attempt(&slot, arguments.clone(), ctx).await {
            Ok(result) => return result,
            Err(lost) => lost,
        };
        slot.call_failed(&lost).await;
        if !slot.restart_pending() {
            return self.stopped(&slot, &lost);
        }
        // Found gone with a restart left: most often it had crashed before this call
        // reached it (Loom had not yet seen the exit). Started again, it gets the call
        // once more; a call that crashes it again leaves it down.
        match self.attempt(&slot, arguments, ctx).await {
            Ok(result) => result,
            Err(lost) => {
                slot.call_failed(&lost).await;
                self.stopped(&slot, &lost)
            }
        }
    }
}

impl McpTool {
    /// Send the call once: the tool result, or — when the connection failed under it —
    /// what the transport said.
    async fn attempt(
        &self,
        slot: &Arc<Slot>,
        arguments: serde_json::Map<String, Value>,
        ctx: &ToolContext,
    ) -> Result<ToolResult, String> {
        let peer = tokio::select! {
            p = slot.peer() => p,
            _ = ctx.cancel.cancelled() => return Ok(ToolError::Cancelled.into()),
        };
        let peer = match peer {
            Ok(p) => p,
            Err(why) => return Ok(ToolResult::err(why)),
        };
        let params = CallToolRequestParams::new(self.tool.clone()).with_arguments(arguments);
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let mut handle = match peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
        {
            Ok(h) => h,
            Err(e) => return self.failure(e),
        };
        // A call given up is cancelled at the server, and the notice is written before this
        // returns, so a process exiting right after cannot lose it.
        let answer = tokio::select! {
            r = tokio::time::timeout(self.call_timeout, &mut handle.rx) => r,
            _ = ctx.cancel.cancelled() => {
                cancel_at_server(handle, "interrupted by the user").await;
                return Ok(ToolError::Cancelled.into());
            }
        };
        let Ok(answer) = answer else {
            cancel_at_server(handle, "timed out").await;
            return Ok(ToolResult::err(format!(
                "the MCP server `{}` did not answer `{}` within {}s (call_timeout_secs); the \
                 call was cancelled",
                self.server,
                self.tool,
                self.call_timeout.as_secs()
            )));
        };
        let result = answer
            .unwrap_or(Err(ServiceError::TransportClosed))
            .and_then(call_result);
        if result.is_ok() {
            slot.settle_list().await;
        }
        match result {
            Ok(result) => Ok(match serde_json::to_value(&result) {
                Ok(v) => content::to_tool_result(&v),
                Err(e) => ToolResult::err(format!("the server's result could not be read: {e}")),
            }),
            Err(e) => self.failure(e),
        }
    }

    /// The tool result for a call the server refused, or what the transport said when
    /// the connection failed under it.
    fn failure(&self, e: ServiceError) -> Result<ToolResult, String> {
        match e {
            ServiceError::McpError(e) => Ok(ToolResult::err(format!(
                "the MCP server `{}` refused the call: {}",
                self.server, e.message
            ))),
            ServiceError::TransportSend(t) => Err(super::connect::plain_transport_error(&t)),
            ServiceError::TransportClosed => Err(ServiceError::TransportClosed.to_string()),
            e => Ok(ToolResult::err(format!(
                "the MCP server `{}`: {e}",
                self.server
            ))),
        }
    }

    /// The tool result for a call whose server stopped under it (`lost`: what the
    /// transport said).
    fn stopped(&self, slot: &Slot, lost: &str) -> ToolResult {
        ToolResult::err(format!(
            "the MCP server `{}` stopped during the call ({lost}); {}",
            self.server,
            slot.why_down()
        ))
    }
}

/// The longest a cancellation notice may take to send: a server that stopped reading
/// must not hold the turn.
const CANCEL_SEND_LIMIT: Duration = Duration::from_secs(2);

/// Tell the server the call is given up, waiting until the notice is on its way.
async fn cancel_at_server(handle: RequestHandle<RoleClient>, reason: &str) {
    let peer = handle.peer.clone();
    let notice = CancelledNotification::new(CancelledNotificationParam::new(
        Some(handle.id.clone()),
        Some(reason.to_string()),
    ));
    drop(handle);
    let _ = tokio::time::timeout(CANCEL_SEND_LIMIT, peer.send_notification(notice.into())).await;
}

/// A `tools/call` answer as a tool result; an empty answer is a call with no content.
fn call_result(answer: ServerResult) -> Result<CallToolResult, ServiceError> {
    match answer {
        ServerResult::CallToolResult(result) => Ok(result),
        ServerResult::EmptyResult(_) => Ok(CallToolResult::success(Vec::new())),
        _ => Err(ServiceError::UnexpectedResponse),
    }
}
