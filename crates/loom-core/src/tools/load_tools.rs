//! The `load_tools` tool: the model's way to the deferred tools of [`super::offer`]. Its
//! description carries the catalogue (added per request by [`ToolOffer::select`]); a call
//! names tools from it, or gives a query that finds them, and their full schemas are sent
//! with every later request of the session.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::offer::{LOAD_TOOLS, ToolOffer, is_core};
use super::{CallIntent, ToolContext, ToolError, ToolKind, ToolResult, TypedTool};
use crate::protocol::tool_data::LoadToolsData;

/// Most tools one query loads.
pub const QUERY_LOADS: usize = 5;

/// The arguments of `load_tools`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LoadToolsArgs {
    /// Tool names from the list below.
    pub names: Option<Vec<String>>,
    /// Words to find tools by (for tools not listed).
    pub query: Option<String>,
}

/// The `load_tools` tool.
pub struct LoadTools(pub ToolOffer);

const DESCRIPTION: &str = "Load more tools: their schemas are sent from your next turn on.";

#[async_trait]
impl TypedTool for LoadTools {
    type Args = LoadToolsArgs;
    fn name(&self) -> &'static str {
        LOAD_TOOLS
    }
    fn description(&self) -> &'static str {
        DESCRIPTION
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }
    fn intent(&self, _a: &LoadToolsArgs) -> Result<CallIntent, ToolError> {
        Ok(CallIntent::reads([]))
    }
    fn default_timeout(&self) -> Duration {
        Duration::from_secs(5)
    }
    async fn run(&self, a: Arc<LoadToolsArgs>, _ctx: &ToolContext) -> ToolResult {
        let mut wanted = a.names.clone().unwrap_or_default();
        let query = a.query.clone().filter(|q| !q.trim().is_empty());
        if wanted.is_empty() && query.is_none() {
            return ToolError::InvalidArguments(
                "give names (from load_tools' list) or a query of words describing the tool".into(),
            )
            .into();
        }
        if let Some(q) = &query {
            wanted.extend(self.0.search(q, QUERY_LOADS));
        }
        let deferred = self.0.deferred_names();
        let loaded_before = self.0.loaded();
        let (mut ready, mut unknown) = (Vec::new(), Vec::new());
        for name in &wanted {
            if is_core(name) || loaded_before.contains(name) {
                ready.push(name.clone());
            } else if !deferred.contains(name) {
                unknown.push(name.clone());
            }
        }
        let newly = self.0.load(&wanted);
        let mut text = String::new();
        if !newly.is_empty() {
            text.push_str(&format!(
                "Loaded {}: call {} from your next turn on.",
                newly.join(", "),
                if newly.len() == 1 { "it" } else { "them" }
            ));
        }
        if !ready.is_empty() {
            text.push_str(&format!(" Already available: {}.", ready.join(", ")));
        }
        if newly.is_empty() && ready.is_empty() {
            let why = match (&query, unknown.is_empty()) {
                (Some(q), true) => format!("no tool matches {q:?}"),
                _ => format!("no tool is named {}", unknown.join(", ")),
            };
            return ToolResult::err(format!(
                "{why}; the tools to load are: {}",
                deferred.join(", ")
            ));
        }
        if !unknown.is_empty() {
            text.push_str(&format!(" Unknown: {}.", unknown.join(", ")));
        }
        ToolResult::ok(text.trim().to_string()).with(&LoadToolsData { loaded: newly })
    }
}
