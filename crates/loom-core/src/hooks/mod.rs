//! PostToolsHook: work that runs after a batch of tool calls changed the workspace and
//! before the model is asked again (auto-commit, formatters, user commands).
//!
//! A post-tools hook never blocks the agent: a failure is an outcome, reported to the
//! person and, when it matters to the model (a formatter failing on the code it wrote),
//! sent to the model. The hooks of Claude Code's events (`event`, `contract`, `dispatch`)
//! may block: see `docs/hooks.md`.

pub mod auto_commit;
pub mod command;
pub mod contract;
pub mod dispatch;
pub mod event;
pub mod matcher;

use std::sync::Arc;

use async_trait::async_trait;

use crate::tools::ToolContext;

/// What one hook did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookOutcome {
    /// Whether it succeeded.
    pub success: bool,
    /// What it printed or did, for the person.
    pub output: String,
    /// A message for the model, when it should react (e.g. a failing check's output).
    pub message_for_model: Option<String>,
}

/// One post-tools hook.
#[async_trait]
pub trait PostToolsHook: Send + Sync {
    /// A short name shown in the tool pane (`auto-commit`, `cargo fmt`).
    fn name(&self) -> String;
    /// Run after a batch that changed `files` (workspace-relative).
    async fn run(&self, files: &[String], ctx: &ToolContext) -> HookOutcome;
    /// Whether this is the auto-commit hook (which `/autocommit` switches).
    fn is_auto_commit(&self) -> bool {
        false
    }
}

/// The hooks of a session, run in order.
#[derive(Clone, Default)]
pub struct HookChain {
    hooks: Vec<Arc<dyn PostToolsHook>>,
    /// The hooks of Claude Code's events (`[[hooks.PreToolUse]]`, ...).
    events: dispatch::EventHookSet,
}

impl HookChain {
    /// An empty chain.
    pub fn new() -> HookChain {
        HookChain::default()
    }

    /// Append a hook.
    pub fn push(&mut self, hook: Arc<dyn PostToolsHook>) {
        self.hooks.push(hook);
    }

    /// The hooks in order.
    pub fn hooks(&self) -> &[Arc<dyn PostToolsHook>] {
        &self.hooks
    }

    /// Switch auto-commit on (first in the chain, as configured) or off, at run time.
    pub fn set_auto_commit(&mut self, on: bool) {
        self.hooks.retain(|h| !h.is_auto_commit());
        if on {
            self.hooks.insert(0, Arc::new(auto_commit::AutoCommit));
        }
    }

    /// Whether there is nothing to run.
    pub fn is_empty(&self) -> bool {
        self.hooks.is_empty()
    }

    /// Set the hooks of Claude Code's events.
    pub fn set_events(&mut self, events: dispatch::EventHookSet) {
        self.events = events;
    }

    /// The hooks of Claude Code's events.
    pub fn events(&self) -> &dispatch::EventHookSet {
        &self.events
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Named(&'static str);

    #[async_trait]
    impl PostToolsHook for Named {
        fn name(&self) -> String {
            self.0.into()
        }
        async fn run(&self, _: &[String], _: &ToolContext) -> HookOutcome {
            HookOutcome {
                success: true,
                output: String::new(),
                message_for_model: None,
            }
        }
    }

    fn names(chain: &HookChain) -> Vec<String> {
        chain.hooks().iter().map(|h| h.name()).collect()
    }

    #[test]
    fn auto_commit_switches_at_run_time_and_runs_first_once() {
        let mut chain = HookChain::new();
        chain.push(Arc::new(Named("cargo fmt")));
        chain.set_auto_commit(false);
        assert_eq!(names(&chain), ["cargo fmt"], "off leaves other hooks alone");
        chain.set_auto_commit(true);
        chain.set_auto_commit(true);
        assert_eq!(names(&chain), ["auto-commit", "cargo fmt"]);
        chain.set_auto_commit(false);
        assert_eq!(names(&chain), ["cargo fmt"]);
    }
}
