//! The answer to a call of a tool whose MCP server is not running and never listed it (it
//! failed to start, or failed again when restarted, which clears its tools): why the
//! server is down and what the person can do, instead of "unknown tool".

use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};

use crate::policy::{CallIntent, ToolKind};
use crate::tools::{Tool, ToolContext, ToolError, ToolResult};

/// What the person can do about a server that is down.
pub const HOW_TO_RETRY: &str = "/mcp (or `loom mcp list`) shows its status and last \
    stderr lines; once its configuration is fixed, starting Loom again starts it again";

/// A stand-in for `mcp__SERVER__TOOL` of a server that is down; every call is refused
/// with [`Unavailable::why`] before anything runs or is asked.
pub struct Unavailable {
    name: String,
    why: String,
}

impl Unavailable {
    /// The stand-in for the tool `name`, refused because of `why`.
    pub fn new(name: &str, why: String) -> Unavailable {
        Unavailable {
            name: name.to_string(),
            why,
        }
    }
}

#[async_trait]
impl Tool for Unavailable {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &'static str {
        "a tool of an MCP server that is not running"
    }

    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Mcp
    }

    fn describe(&self, _args: &Value) -> Result<CallIntent, ToolError> {
        Err(ToolError::Other(self.why.clone()))
    }

    fn default_timeout(&self) -> Duration {
        Duration::from_secs(1)
    }

    async fn execute(&self, _args: Value, _ctx: &ToolContext) -> ToolResult {
        ToolResult::err(self.why.clone())
    }
}
