//! The hub between an agent and its sub-agents: the parent's runner attaches its event
//! stream and approval mode, the `delegate` tool registers each sub-agent's ops there, and
//! the sub-agent's events come back wrapped as [`AgentEvent::SubAgent`].

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use tokio::sync::mpsc;

use super::events::{AgentEvent, UserOp};
use crate::policy::Autonomy;

/// The sub-agents of one agent: where their events go, how ops reach them, and the
/// parent's approval mode. Shared by the parent's runner and its `delegate` tool.
#[derive(Default)]
pub struct SubAgents {
    events: OnceLock<mpsc::UnboundedSender<AgentEvent>>,
    routes: Mutex<HashMap<String, mpsc::UnboundedSender<UserOp>>>,
    autonomy: Mutex<Autonomy>,
}

impl std::fmt::Debug for SubAgents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SubAgents").finish_non_exhaustive()
    }
}

impl SubAgents {
    /// Connect to the parent's event stream (its runner does this when it starts).
    pub fn attach(&self, events: mpsc::UnboundedSender<AgentEvent>, autonomy: Autonomy) {
        let _ = self.events.set(events);
        self.set_autonomy(autonomy);
    }

    /// The parent's approval mode changed.
    pub fn set_autonomy(&self, autonomy: Autonomy) {
        *self.autonomy.lock().unwrap_or_else(|p| p.into_inner()) = autonomy;
    }

    pub(super) fn autonomy(&self) -> Autonomy {
        *self.autonomy.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Send `op` to the sub-agent of call `parent_id`; false when none runs.
    pub fn route(&self, parent_id: &str, op: UserOp) -> bool {
        let routes = self.routes.lock().unwrap_or_else(|p| p.into_inner());
        routes
            .get(parent_id)
            .is_some_and(|ops| ops.send(op).is_ok())
    }

    pub(super) fn forward(&self, parent_id: &str, event: AgentEvent) {
        if let Some(events) = self.events.get() {
            let _ = events.send(AgentEvent::SubAgent {
                parent_id: parent_id.to_string(),
                event: Box::new(event),
            });
        }
    }

    pub(super) fn register(&self, parent_id: &str, ops: mpsc::UnboundedSender<UserOp>) {
        let mut routes = self.routes.lock().unwrap_or_else(|p| p.into_inner());
        routes.insert(parent_id.to_string(), ops);
    }

    pub(super) fn unregister(&self, parent_id: &str) {
        let mut routes = self.routes.lock().unwrap_or_else(|p| p.into_inner());
        routes.remove(parent_id);
    }
}
