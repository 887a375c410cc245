//! `memory_store`, `memory_recall`, `memory_forget`: the model's long-term notes.
//!
//! Thin tools over [`crate::memory::Memory`] (the SQLite store). They touch Loom's data
//! directory, never the workspace, and run no program, so to the policy they are reads:
//! they ask no approval in any mode. What they keep is framed as notes, not instructions,
//! wherever it is shown to a model again (see [`crate::memory::prompt_section`]).

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{CallIntent, Tool, ToolContext, ToolError, ToolKind, ToolResult, TypedTool};
use crate::memory::{Category, DEFAULT_RECALL, Memory, MemoryError};
use crate::protocol::memory::ScopeKind;
use crate::protocol::tool_data::{MemoryRecallData, MemoryStoreData};

/// Arguments of `memory_store`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StoreArgs {
    /// A short unique key, e.g. "test-command" (storing the same key again replaces it).
    pub key: String,
    /// What to remember (at most 8 KiB).
    pub content: String,
    /// core (default: a lasting fact, listed at the start of later sessions), daily or
    /// conversation.
    pub category: Option<Category>,
    /// workspace (default: this project only) or global (every project).
    pub scope: Option<ScopeKind>,
}

/// Arguments of `memory_recall`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecallArgs {
    /// Keywords to search for.
    pub query: String,
    /// Most entries returned (default 5, at most 50).
    pub limit: Option<usize>,
    /// Only this scope (default: this workspace and global).
    pub scope: Option<ScopeKind>,
}

/// Arguments of `memory_forget`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ForgetArgs {
    /// The key of the memory to delete.
    pub key: String,
    /// workspace (default) or global.
    pub scope: Option<ScopeKind>,
}

fn failed(e: MemoryError) -> ToolResult {
    ToolResult::err(e)
}

async fn on_store<T: Send + 'static>(
    memory: &Arc<Memory>,
    name: &'static str,
    f: impl FnOnce(&Memory) -> Result<T, MemoryError> + Send + 'static,
) -> Result<Result<T, MemoryError>, ToolError> {
    let memory = memory.clone();
    super::blocking(name, move || Ok(f(&memory))).await
}

/// The `memory_store` tool.
pub struct MemoryStore(pub Arc<Memory>);

#[async_trait]
impl TypedTool for MemoryStore {
    type Args = StoreArgs;
    fn name(&self) -> &'static str {
        "memory_store"
    }
    fn description(&self) -> &'static str {
        "Store a fact or decision in long-term memory, kept across sessions: a short unique \
         key and the content. Storing an existing key replaces it. category core (default) \
         is listed at the start of later sessions in this workspace; daily and conversation \
         are found with memory_recall. scope workspace (default) or global."
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }
    fn intent(&self, a: &StoreArgs) -> Result<CallIntent, ToolError> {
        // A note for every workspace is the policy's to judge (it may ask); one for this
        // workspace touches only Loom's data.
        Ok(match a.scope.unwrap_or_default() {
            ScopeKind::Global => {
                CallIntent::stores_global_memory(a.key.trim().to_string(), a.content.clone())
            }
            ScopeKind::Workspace => CallIntent::reads([]),
        })
    }
    fn default_timeout(&self) -> Duration {
        Duration::from_secs(30)
    }
    async fn run(&self, a: Arc<StoreArgs>, _ctx: &ToolContext) -> ToolResult {
        let category = a.category.unwrap_or_default();
        let scope = a.scope.unwrap_or_default();
        let key = a.key.trim().to_string();
        let done = on_store(&self.0, "memory_store", move |m| {
            m.store(&a.key, &a.content, category, scope)
        })
        .await;
        match done {
            Ok(Ok(replaced)) => {
                let verb = if replaced { "Replaced" } else { "Stored" };
                ToolResult::ok(format!(
                    "{verb} memory {key:?} ({}, {})",
                    scope.as_str(),
                    category.as_str()
                ))
                .with(&MemoryStoreData {
                    key,
                    replaced,
                    scope,
                })
            }
            Ok(Err(e)) => failed(e),
            Err(e) => e.into(),
        }
    }
}

/// The `memory_recall` tool.
pub struct MemoryRecall(pub Arc<Memory>);

#[async_trait]
impl TypedTool for MemoryRecall {
    type Args = RecallArgs;
    fn name(&self) -> &'static str {
        "memory_recall"
    }
    fn description(&self) -> &'static str {
        "Search long-term memory (notes stored with memory_store in earlier sessions) by \
         keywords; the best matches come first (bm25). Searches this workspace and the \
         global scope unless scope is given. limit defaults to 5 (at most 50)."
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }
    fn intent(&self, _a: &RecallArgs) -> Result<CallIntent, ToolError> {
        Ok(CallIntent::reads([]))
    }
    fn default_timeout(&self) -> Duration {
        Duration::from_secs(30)
    }
    async fn run(&self, a: Arc<RecallArgs>, _ctx: &ToolContext) -> ToolResult {
        if a.limit == Some(0) {
            return ToolError::InvalidArguments("limit must be at least 1".into()).into();
        }
        let limit = a.limit.unwrap_or(DEFAULT_RECALL);
        let done = on_store(&self.0, "memory_recall", move |m| {
            m.recall(&a.query, limit, a.scope)
        })
        .await;
        match done {
            Ok(Ok(found)) if found.is_empty() => ToolResult::ok("No matching memories found")
                .with(&MemoryRecallData { entries: found }),
            Ok(Ok(found)) => {
                let mut out = format!("Found {} memories (best first):\n", found.len());
                for e in &found {
                    out.push_str(&format!("- {}\n", e.line()));
                }
                ToolResult::ok(out).with(&MemoryRecallData { entries: found })
            }
            Ok(Err(e)) => failed(e),
            Err(e) => e.into(),
        }
    }
}

/// The `memory_forget` tool.
pub struct MemoryForget(pub Arc<Memory>);

#[async_trait]
impl TypedTool for MemoryForget {
    type Args = ForgetArgs;
    fn name(&self) -> &'static str {
        "memory_forget"
    }
    fn description(&self) -> &'static str {
        "Delete a memory by key (from the workspace scope, or global with scope: global). Use \
         it when a stored note is wrong or no longer true."
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }
    fn intent(&self, _a: &ForgetArgs) -> Result<CallIntent, ToolError> {
        Ok(CallIntent::reads([]))
    }
    fn default_timeout(&self) -> Duration {
        Duration::from_secs(30)
    }
    async fn run(&self, a: Arc<ForgetArgs>, _ctx: &ToolContext) -> ToolResult {
        let scope = a.scope.unwrap_or_default();
        let done = on_store(&self.0, "memory_forget", move |m| m.forget(&a.key, scope)).await;
        match done {
            Ok(Ok(e)) => ToolResult::ok(format!("Forgot memory {:?} ({})", e.key, scope.as_str())),
            Ok(Err(e)) => failed(e),
            Err(e) => e.into(),
        }
    }
}

/// The three memory tools over one store.
pub fn tools(memory: &Arc<Memory>) -> [Arc<dyn Tool>; 3] {
    [
        Arc::new(MemoryStore(memory.clone())),
        Arc::new(MemoryRecall(memory.clone())),
        Arc::new(MemoryForget(memory.clone())),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use serde_json::json;

    fn setup() -> (tempfile::TempDir, ToolRegistryFixture) {
        let dir = tempfile::tempdir().unwrap();
        let memory = Arc::new(Memory::open(&dir.path().join("m.sqlite"), dir.path()).unwrap());
        let mut registry = super::super::ToolRegistry::new();
        for t in tools(&memory) {
            registry.register(t).unwrap();
        }
        let ctx = ToolContext::for_workspace(dir.path()).unwrap();
        (dir, ToolRegistryFixture { registry, ctx })
    }

    struct ToolRegistryFixture {
        registry: super::super::ToolRegistry,
        ctx: ToolContext,
    }

    impl ToolRegistryFixture {
        async fn run(&self, name: &str, args: Value) -> ToolResult {
            self.registry.execute_as_person(name, args, &self.ctx).await
        }
    }

    #[tokio::test]
    async fn store_recall_forget_through_the_registry() {
        let (_d, f) = setup();
        let r = f
            .run(
                "memory_store",
                json!({"key": "db", "content": "postgres 16 on port 5433"}),
            )
            .await;
        assert!(r.success, "{r:?}");
        assert!(r.output.contains("Stored memory \"db\" (workspace, core)"));
        let r = f
            .run(
                "memory_store",
                json!({"key": "db", "content": "postgres 17", "category": "daily"}),
            )
            .await;
        assert!(r.output.starts_with("Replaced"), "{r:?}");
        let r = f.run("memory_recall", json!({"query": "postgres"})).await;
        assert!(r.output.contains("db [workspace, daily"), "{}", r.output);
        assert_eq!(r.data.unwrap()["entries"][0]["content"], "postgres 17");
        let r = f.run("memory_forget", json!({"key": "db"})).await;
        assert!(r.success && r.output.contains("Forgot"), "{r:?}");
        let r = f.run("memory_recall", json!({"query": "postgres"})).await;
        assert_eq!(r.output, "No matching memories found");
    }

    #[tokio::test]
    async fn errors_are_results_the_model_can_act_on() {
        let (_d, f) = setup();
        for (name, args, expected) in [
            (
                "memory_store",
                json!({"key": "k"}),
                "missing field `content`",
            ),
            (
                "memory_store",
                json!({"key": "k", "content": "x", "category": "misc"}),
                "unknown variant",
            ),
            (
                "memory_store",
                json!({"key": "", "content": "x"}),
                "the key must be",
            ),
            (
                "memory_recall",
                json!({"query": "x", "limit": 0}),
                "at least 1",
            ),
            ("memory_recall", json!({"query": "--"}), "no words"),
            (
                "memory_forget",
                json!({"key": "nope"}),
                "no memory with key",
            ),
        ] {
            let r = f.run(name, args).await;
            assert!(!r.success, "{name}");
            let err = r.error.unwrap();
            assert!(err.contains(expected), "{name}: {err}");
        }
    }
}
