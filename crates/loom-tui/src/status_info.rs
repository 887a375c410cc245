//! The facts the status bar shows, as a component: the model, the agent's phase, the
//! tokens used and how full the context is, the approval mode, the sandbox, the session and
//! the MCP servers. It takes the agent's events about them; the status line draws it.

use crate::protocol::autonomy::Autonomy;
use crate::protocol::events::{AgentEvent, Phase};
use crate::protocol::mcp::{ServerState, ServerStatus};
use crate::protocol::usage::Usage;

/// Facts the status bar shows.
#[derive(Debug, Clone)]
pub struct StatusInfo {
    /// Model id (empty when none).
    pub model: String,
    /// The agent's state.
    pub phase: Phase,
    /// Tokens used in the session.
    pub usage: Usage,
    /// Prompt tokens of the last request (how full the context is).
    pub last_prompt: u64,
    /// The model's context window, when known.
    pub context_window: Option<u64>,
    /// Approval mode.
    pub autonomy: Autonomy,
    /// Whether the person allowed file edits without asking for the rest of the session
    /// (`a` in a review).
    pub edits_allowed: bool,
    /// Whether files Loom changes are committed after each batch.
    pub auto_commit: bool,
    /// Sandbox label.
    pub sandbox: String,
    /// Workspace path, shortened for display.
    pub workspace: String,
    /// Session id.
    pub session_id: String,
    /// The MCP servers, as last reported.
    pub mcp: Vec<ServerStatus>,
    /// The language servers, as last reported (empty until one was needed).
    pub lsp: Vec<crate::protocol::lsp::LspServerStatus>,
    /// Facts only the `/status` card shows.
    pub card: CardFacts,
}

/// Facts the binary hands over at start that only the `/status` card shows.
#[derive(Debug, Clone, Default)]
pub struct CardFacts {
    /// The `AGENTS.md` files the agent's prompt was given at start (workspace-relative).
    pub agents_files: Vec<String>,
    /// Where session files are kept (`ID.jsonl`); `None`: not recorded.
    pub sessions_dir: Option<std::path::PathBuf>,
    /// What each model costs per million tokens (`[prices."MODEL"]`), by model id.
    pub prices: std::collections::BTreeMap<String, crate::protocol::usage::Price>,
}

impl StatusInfo {
    /// Take `event` if it is one of the status bar's own (the agent's phase, tokens,
    /// context window, MCP servers); gives the warnings the chat shows.
    pub fn on_agent_event(&mut self, event: AgentEvent) -> Vec<String> {
        match event {
            AgentEvent::StateChanged { phase } => self.phase = phase,
            AgentEvent::Usage { usage } => self.on_usage(usage),
            AgentEvent::ContextWindow { tokens, .. } => self.context_window = Some(tokens),
            AgentEvent::McpStatus { servers } => return self.on_mcp_status(servers),
            AgentEvent::LspStatus { servers } => self.lsp = servers,
            _ => {}
        }
        Vec::new()
    }

    /// A request's tokens: added to the session's, and its total is how full the context is.
    pub fn on_usage(&mut self, usage: Usage) {
        self.usage.add(usage);
        self.last_prompt = usage.prompt_tokens + usage.completion_tokens;
    }

    /// The MCP servers as now reported; gives the warning for each server that has just
    /// failed (with its last words on stderr), for the chat.
    pub fn on_mcp_status(&mut self, servers: Vec<ServerStatus>) -> Vec<String> {
        let mut warnings = Vec::new();
        for s in &servers {
            let before = self.mcp.iter().find(|o| o.name == s.name);
            if matches!(s.state, ServerState::Failed { .. })
                && before.map(|b| &b.state) != Some(&s.state)
            {
                let mut text = format!("MCP server {}", s.line());
                if let Some(last) = s.stderr.last() {
                    text.push_str(&format!(" — its last words: {last}"));
                }
                warnings.push(text);
            }
        }
        self.mcp = servers;
        warnings
    }
}
