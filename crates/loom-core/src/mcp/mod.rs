//! The Model Context Protocol client: Loom's model uses the tools of any MCP server the
//! person configured (`[mcp_servers.NAME]`), over stdio or streamable HTTP, on the official
//! Rust SDK (`rmcp`).
//!
//! The [`McpManager`] starts every enabled server in parallel in the background (nothing
//! waits for it unless it asks to, like `loom exec` before its first request), keeps each
//! one's status, and offers the tools of the ready ones to the [`ToolRegistry`] as a
//! [`ToolSource`]: they come and go as servers start, stop and change their lists. A server
//! that fails never takes Loom with it; its status says why. Calls pass the policy like
//! any other (see [`crate::policy::mcp`]). At the end, [`McpManager::shutdown`] closes every
//! connection and kills every server's process group.
//!
//! This module knows no agent and no screen: front ends read
//! [`crate::protocol::mcp::ServerStatus`].

pub mod connect;
pub mod content;
pub mod schema;
pub mod server;
pub mod tool;
pub mod unavailable;

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use crate::config::mcp::McpServer;
use crate::protocol::mcp::ServerStatus;
use crate::tools::{Tool, ToolRegistry, ToolSource};
use server::Slot;

/// The MCP servers of a session. Cheap to clone; clones share the servers.
#[derive(Clone)]
pub struct McpManager {
    slots: Arc<Vec<Arc<Slot>>>,
    changed: watch::Sender<u64>,
}

impl std::fmt::Debug for McpManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.slots.iter().map(|s| &s.config.name))
            .finish()
    }
}

impl McpManager {
    /// Start every enabled server of `servers` in the background (on the current tokio
    /// runtime) and return at once.
    pub fn start(servers: &[McpServer]) -> McpManager {
        let (changed, _) = watch::channel(0);
        let slots: Vec<Arc<Slot>> = servers
            .iter()
            .map(|s| Slot::new(s.clone(), changed.clone()))
            .collect();
        for slot in &slots {
            slot.start_in_background();
        }
        McpManager {
            slots: Arc::new(slots),
            changed,
        }
    }

    /// Whether any server is configured.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Every server's status, in configuration order.
    pub fn status(&self) -> Vec<ServerStatus> {
        self.slots.iter().map(|s| s.status()).collect()
    }

    /// A receiver that sees a change whenever any server's status changes.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// Wait until every server finished starting (each is bounded by its own startup
    /// timeout).
    pub async fn settled(&self) {
        for slot in self.slots.iter() {
            slot.settled().await;
        }
    }

    /// Offer the servers' tools through `registry`.
    pub fn register(&self, registry: &mut ToolRegistry) {
        if !self.is_empty() {
            registry.add_source(Arc::new(self.clone()));
        }
    }

    /// Close every connection and kill every server's process group.
    pub async fn shutdown(&self) {
        let stops = self.slots.iter().map(|s| s.stop());
        let _ =
            tokio::time::timeout(Duration::from_secs(3), futures::future::join_all(stops)).await;
    }
}

impl ToolSource for McpManager {
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.slots
            .iter()
            .flat_map(|s| s.tools())
            .map(|t| t as Arc<dyn Tool>)
            .collect()
    }

    /// A tool it offered last; else, for a name of a server that is down, a stand-in
    /// that says why (a server that failed to start never listed its tools).
    fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        if let Some(tool) = self.slots.iter().find_map(|s| s.last_tool(name)) {
            return Some(tool);
        }
        self.slots
            .iter()
            .find_map(|s| s.down_for(name))
            .map(|why| Arc::new(unavailable::Unavailable::new(name, why)) as Arc<dyn Tool>)
    }
}
