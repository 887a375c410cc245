//! The configuration in force ([`Config`]), grouped along its seams: the model provider,
//! the limits, approval, the sandbox, the interface, the tools and the integrations.
//!
//! The groups are how the program reads its settings; the config file keeps its flat keys
//! (see [`super::FileConfig`]), and [`assemble`] maps one onto the other with the defaults
//! and bounds.

use std::collections::BTreeMap;
use std::path::PathBuf;

use loom_sandbox::SandboxMode;

use super::{
    AUTO_THEME, Checked, EditTool, FileConfig, FileLayers, HookConfig, OracleSettings, hooks, lsp,
    mcp, prices, trust, web,
};
use crate::policy::Autonomy;
use crate::policy::approvals::RuleConfig;

/// The configuration in force.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Which server and model answer, and how they are asked.
    pub provider: ProviderSettings,
    /// Bounds on turns, model responses and tool output.
    pub limits: Limits,
    /// Autonomy level, approval rules and the hourly budget.
    pub approval: ApprovalSettings,
    /// How commands are confined.
    pub sandbox: SandboxSettings,
    /// The terminal interface: theme, inline drawing, notifications.
    pub ui: UiSettings,
    /// What the tools offer and may reach.
    pub tools: ToolSettings,
    /// MCP servers, hooks and model prices.
    pub integrations: IntegrationSettings,
    /// The files that were read, in order.
    pub sources: Vec<PathBuf>,
    /// Whether the workspace's `.loom/config.toml` loosens anything, and whether that was
    /// trusted or ignored.
    pub project_trust: trust::ProjectTrust,
}

/// The model provider: where requests go and what they carry.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderSettings {
    /// Explicit base URL (`None`: discover a local server or use OpenAI when a key is set).
    pub base_url: Option<String>,
    /// Model id (`None`: the server's first model).
    pub model: Option<String>,
    /// The variable the key was read from.
    pub api_key_env: String,
    /// The API key, if set.
    pub api_key: Option<String>,
    /// Sampling temperature.
    pub temperature: Option<f32>,
    /// Cap on generated tokens.
    pub max_tokens: Option<u32>,
    /// Context window, when known.
    pub context_window: Option<u64>,
    /// Extra headers.
    pub headers: Vec<(String, String)>,
}

/// Bounds on a turn, on one model response and on what the model sees of tool output.
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// Tool rounds per turn.
    pub max_tool_rounds: u32,
    /// Model request attempts.
    pub max_retries: u32,
    /// Bound on one model response's text and arguments, in bytes.
    pub max_response_bytes: u64,
    /// Bound on one model response's tool calls.
    pub max_tool_calls: usize,
    /// Seconds of silence from the model server before an attempt fails.
    pub stream_idle_timeout_secs: u64,
    /// Tool output budget.
    pub output_budget: usize,
    /// Bash stream budget.
    pub bash_output_budget: usize,
}

/// What may happen without asking.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalSettings {
    /// Autonomy level.
    pub autonomy: Autonomy,
    /// Persistent approval rules.
    pub rules: Vec<RuleConfig>,
    /// Writes and commands per hour before everything asks.
    pub max_actions_per_hour: u32,
}

/// How sandboxed commands are confined.
#[derive(Debug, Clone, PartialEq)]
pub struct SandboxSettings {
    /// The sandbox mode asked for.
    pub mode: SandboxMode,
    /// Extra writable directories for sandboxed commands.
    pub writable: Vec<PathBuf>,
    /// Whether sandboxed commands may use the network.
    pub network: bool,
    /// Whether sandboxed commands run as root keep root's capabilities.
    pub keep_capabilities: bool,
}

/// The terminal interface.
#[derive(Debug, Clone, PartialEq)]
pub struct UiSettings {
    /// Theme name; `auto` (the default): dark or light, after the terminal's background.
    pub theme: String,
    /// Draw inline, at the bottom of the normal screen.
    pub inline: bool,
    /// How to notify while the terminal is not focused, and the program run then.
    pub notify: (crate::protocol::notify::NotifyMode, Vec<String>),
}

/// What the tools offer the model and what they may reach.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSettings {
    /// Which editing tool the model gets.
    pub edit_tool: EditTool,
    /// Whether tool schemas are sent in OpenAI's strict mode.
    pub strict_tools: bool,
    /// Extra env names for commands.
    pub env: Vec<String>,
    /// Extra forbidden paths.
    pub forbidden_paths: Vec<String>,
    /// Commit Loom's changes after each batch.
    pub auto_commit: bool,
    /// The `[web]` settings (defaults where unset).
    pub web: web::WebConfig,
    /// The `[web_search]` settings (no provider where unset).
    pub web_search: web::WebSearchConfig,
    /// The second model `oracle` consults.
    pub oracle: OracleSettings,
    /// The language servers for diagnostics after edits.
    pub lsp: lsp::LspSettings,
}

/// Programs and tables from outside Loom's own settings: MCP servers, hooks, prices.
#[derive(Debug, Clone, PartialEq)]
pub struct IntegrationSettings {
    /// The MCP servers configured (enabled or not), by name.
    pub mcp_servers: Vec<mcp::McpServer>,
    /// Post-tools hook commands.
    pub hooks: Vec<HookConfig>,
    /// The hooks of Claude Code's events (`[[hooks.PreToolUse]]` ...), by event.
    pub event_hooks: hooks::EventHooks,
    /// What each model costs per million tokens, by model id.
    pub prices: BTreeMap<String, prices::Price>,
}

/// The configuration in force: the merged layers with their defaults and bounds.
pub(super) fn assemble(merged: FileConfig, checked: Checked, files: FileLayers) -> Config {
    let Checked {
        modes,
        web: (web, web_search),
        mcp_servers,
        oracle,
        api_key_env,
        api_key,
        lsp,
        prices,
    } = checked;
    let approval = merged.agent.approval.clone().unwrap_or_default();
    let tools_table = merged.agent.tools.clone().unwrap_or_default();
    Config {
        provider: ProviderSettings {
            base_url: merged.provider.base_url.clone(),
            model: merged.provider.model.clone(),
            api_key,
            api_key_env,
            temperature: merged.provider.temperature,
            max_tokens: merged.provider.max_tokens,
            context_window: merged.provider.context_window,
            headers: merged
                .provider
                .headers
                .clone()
                .unwrap_or_default()
                .into_iter()
                .collect(),
        },
        limits: limits(&merged),
        approval: ApprovalSettings {
            autonomy: modes.autonomy,
            rules: modes.rules,
            max_actions_per_hour: approval
                .max_actions_per_hour
                .unwrap_or(crate::policy::limits::DEFAULT_PER_HOUR),
        },
        sandbox: SandboxSettings {
            mode: modes.sandbox,
            writable: merged.sandbox.sandbox_writable.clone().unwrap_or_default(),
            network: merged.sandbox.network.unwrap_or(false),
            keep_capabilities: merged.sandbox.sandbox_keep_capabilities.unwrap_or(false),
        },
        ui: UiSettings {
            theme: merged
                .ui
                .theme
                .clone()
                .unwrap_or_else(|| AUTO_THEME.to_string()),
            inline: merged.ui.inline.unwrap_or(false),
            notify: (
                merged.ui.notify.unwrap_or_default(),
                merged.ui.notify_command.clone().unwrap_or_default(),
            ),
        },
        tools: ToolSettings {
            edit_tool: modes.edit_tool,
            strict_tools: merged.provider.strict_tools.unwrap_or(false),
            env: tools_table.env.unwrap_or_default(),
            forbidden_paths: tools_table.forbidden_paths.unwrap_or_default(),
            auto_commit: merged.agent.auto_commit.unwrap_or(false),
            web,
            web_search,
            oracle,
            lsp,
        },
        integrations: IntegrationSettings {
            mcp_servers,
            hooks: (merged.agent.hooks.clone())
                .and_then(|h| h.post_tools)
                .unwrap_or_default(),
            event_hooks: hooks::EventHooks::from_config(merged.agent.hooks.as_ref()),
            prices,
        },
        sources: files.sources,
        project_trust: files.project_trust,
    }
}

/// The limits of `merged`, defaults filled in and each kept within its bounds.
fn limits(merged: &FileConfig) -> Limits {
    let tools = merged.agent.tools.clone().unwrap_or_default();
    Limits {
        max_tool_rounds: merged.agent.max_tool_rounds.unwrap_or(50).max(1),
        max_retries: merged.provider.max_retries.unwrap_or(5).max(1),
        max_response_bytes: merged
            .provider
            .max_response_bytes
            .unwrap_or(crate::llm::DEFAULT_MAX_RESPONSE_BYTES)
            .max(1024),
        max_tool_calls: merged
            .provider
            .max_tool_calls_per_response
            .unwrap_or(crate::llm::DEFAULT_MAX_TOOL_CALLS)
            .max(1),
        stream_idle_timeout_secs: merged
            .provider
            .stream_idle_timeout_secs
            .unwrap_or(crate::llm::DEFAULT_IDLE_TIMEOUT_SECS)
            .clamp(1, 3600),
        output_budget: tools.output_budget.unwrap_or(128 * 1024).max(1024),
        bash_output_budget: tools.bash_output_budget.unwrap_or(16 * 1024).max(256),
    }
}
