//! Layered configuration: built-in defaults < user file (`~/.config/loom/config.toml`) <
//! project file (`.loom/config.toml`) < environment (`OPENAI_BASE_URL`, `OPENAI_API_KEY`,
//! `LOOM_MODEL`) < flags.
//!
//! Files are parsed strictly (unknown keys are errors) so a typo is reported, with the
//! file's path, line and column and what was expected, instead of silently ignored.

pub mod file;
pub mod hooks;
pub mod lsp;
pub mod mcp;
pub mod oracle;
pub mod prices;
mod settings;
pub mod trust;
pub mod web;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use thiserror::Error;

use crate::policy::Autonomy;
use crate::policy::approvals::RuleConfig;
pub use hooks::{EventHookConfig, HookConfig, HooksConfig};
use loom_sandbox::SandboxMode;
pub use oracle::{OracleConfig, OracleSettings, oracle_bounds};
pub use settings::{
    ApprovalSettings, Config, IntegrationSettings, Limits, ProviderSettings, SandboxSettings,
    ToolSettings, UiSettings,
};

/// The theme name that means "dark or light, after the terminal's background" (the
/// default; see `tui/background.rs`).
pub const AUTO_THEME: &str = "auto";

/// A configuration file could not be used.
#[derive(Debug, Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{path}: cannot read: {message}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS error.
        message: String,
    },
    /// The file is not valid TOML or has keys or values Loom does not expect.
    #[error("{path}:{line}:{column}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What was wrong and what was expected.
        message: String,
    },
    /// A value is out of range or unknown.
    #[error("{source_name}: {message}")]
    Invalid {
        /// Where the value came from (file path, env var or flag).
        source_name: String,
        /// What was wrong.
        message: String,
    },
}

/// One configuration file, every key optional.
#[derive(Debug, Default, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    /// Base URL of the OpenAI-compatible API, e.g. `http://127.0.0.1:11434/v1`.
    pub base_url: Option<String>,
    /// Model id.
    pub model: Option<String>,
    /// Name of the environment variable holding the API key (default `OPENAI_API_KEY`).
    pub api_key_env: Option<String>,
    /// Sampling temperature.
    pub temperature: Option<f32>,
    /// Cap on generated tokens per request.
    pub max_tokens: Option<u32>,
    /// The model's context window in tokens (for the "context left" figure).
    pub context_window: Option<u64>,
    /// Extra HTTP headers sent with every request.
    pub headers: Option<BTreeMap<String, String>>,
    /// Approval mode, rules and budget (`[approval]`).
    pub approval: Option<ApprovalConfig>,
    /// `workspace-write` (default where Landlock works) or `off`.
    pub sandbox: Option<String>,
    /// Extra directories commands may write in the sandbox.
    pub sandbox_writable: Option<Vec<PathBuf>>,
    /// Whether sandboxed commands may open network connections (default false).
    pub network: Option<bool>,
    /// Whether sandboxed commands run as root keep root's capabilities (default false:
    /// root in the sandbox is root of its own user namespace, with no capabilities).
    pub sandbox_keep_capabilities: Option<bool>,
    /// Rounds of tool calls per turn before Loom stops the turn.
    pub max_tool_rounds: Option<u32>,
    /// Model request attempts (first included) before giving up.
    pub max_retries: Option<u32>,
    /// Theme name.
    pub theme: Option<String>,
    /// Tool limits and environment.
    pub tools: Option<ToolsConfig>,
    /// Commit the files Loom changed after each batch of tool calls (default false).
    pub auto_commit: Option<bool>,
    /// Draw at the bottom of the normal screen instead of the alternate screen (default
    /// false).
    pub inline: Option<bool>,
    /// Post-tools hooks (`[[hooks.post_tools]]`).
    pub hooks: Option<HooksConfig>,
    /// Most bytes of text, reasoning and tool-call arguments one model response may carry
    /// (default 4 MiB).
    pub max_response_bytes: Option<u64>,
    /// Most tool calls one model response may carry (default 64).
    pub max_tool_calls_per_response: Option<usize>,
    /// Seconds without a byte from the model server before the attempt fails and is
    /// retried (default 120).
    pub stream_idle_timeout_secs: Option<u64>,
    /// Which editing tool the model gets: `auto` (apply_patch for models trained on
    /// Codex's patch format, edit_file for the rest), `edit_file`, `apply_patch` or `both`.
    pub edit_tool: Option<String>,
    /// Send tool schemas in OpenAI's strict mode (`strict: true`, every property required,
    /// optional ones nullable, no extra properties), for providers that support it
    /// (default false).
    pub strict_tools: Option<bool>,
    /// Web tools: what they may reach and how (`[web]`).
    pub web: Option<web::WebConfig>,
    /// The search provider of `web_search` (`[web_search]`).
    pub web_search: Option<web::WebSearchConfig>,
    /// Model Context Protocol servers (`[mcp_servers.NAME]`).
    pub mcp_servers: Option<BTreeMap<String, mcp::McpServerConfig>>,
    /// The second model the `oracle` tool consults (`[oracle]`).
    pub oracle: Option<OracleConfig>,
    /// How to notify when the terminal is not focused: `auto`, `osc9`, `bel` or `off`.
    pub notify: Option<crate::protocol::notify::NotifyMode>,
    /// A program (argv) run on each notification, the event as JSON on its stdin.
    pub notify_command: Option<Vec<String>>,
    /// Language-server diagnostics: `lsp = false`, or `[lsp.NAME]` server tables.
    pub lsp: Option<lsp::LspConfig>,
    /// The most an edit waits for language-server diagnostics, in ms (default 2000).
    pub lsp_wait_ms: Option<u64>,
    /// What each model costs (`[prices."MODEL"]`), for `/status`.
    pub prices: Option<BTreeMap<String, prices::Price>>,
}

/// The `[approval]` table.
#[derive(Debug, Default, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ApprovalConfig {
    /// `read-only`, `supervised`, `full-auto` or `plan`.
    pub mode: Option<String>,
    /// Writes and commands per hour before everything asks (default 200).
    pub max_actions_per_hour: Option<u32>,
    /// Persistent rules (`[[approval.rules]]`); they add to rules from other files.
    pub rules: Option<Vec<RuleConfig>>,
}

/// The `[tools]` table.
#[derive(Debug, Default, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ToolsConfig {
    /// Largest tool output the model sees, in bytes.
    pub output_budget: Option<usize>,
    /// Bytes of each bash stream the model sees.
    pub bash_output_budget: Option<usize>,
    /// Extra environment variables (names or `PREFIX*`) passed to commands.
    pub env: Option<Vec<String>>,
    /// Extra forbidden paths (`~/x`, `/abs/x`, or a bare name matching any component).
    pub forbidden_paths: Option<Vec<String>>,
}

impl FileConfig {
    /// Parse `text` from `path`.
    pub fn parse(text: &str, path: &Path) -> Result<FileConfig, ConfigError> {
        toml::from_str(text).map_err(|e| {
            let (line, column) = e
                .span()
                .map(|span| line_col(text, span.start))
                .unwrap_or((1, 1));
            ConfigError::Parse {
                path: path.to_path_buf(),
                line,
                column,
                message: e.message().to_string(),
            }
        })
    }

    /// Read and parse `path`; a missing file is an empty config.
    pub fn load(path: &Path) -> Result<FileConfig, ConfigError> {
        match read_bytes(path)? {
            Some(bytes) => FileConfig::parse(&String::from_utf8_lossy(&bytes), path),
            None => Ok(FileConfig::default()),
        }
    }

    /// `other`'s values over this one's.
    pub fn overlay(self, other: FileConfig) -> FileConfig {
        let tools = overlay_tables(self.tools, other.tools, ToolsConfig::overlay);
        let approval = overlay_tables(self.approval, other.approval, ApprovalConfig::overlay);
        FileConfig {
            base_url: other.base_url.or(self.base_url),
            model: other.model.or(self.model),
            api_key_env: other.api_key_env.or(self.api_key_env),
            temperature: other.temperature.or(self.temperature),
            max_tokens: other.max_tokens.or(self.max_tokens),
            context_window: other.context_window.or(self.context_window),
            headers: match (self.headers, other.headers) {
                (Some(mut a), Some(b)) => {
                    a.extend(b);
                    Some(a)
                }
                (a, b) => b.or(a),
            },
            approval,
            sandbox: other.sandbox.or(self.sandbox),
            sandbox_writable: other.sandbox_writable.or(self.sandbox_writable),
            network: other.network.or(self.network),
            sandbox_keep_capabilities: other
                .sandbox_keep_capabilities
                .or(self.sandbox_keep_capabilities),
            max_tool_rounds: other.max_tool_rounds.or(self.max_tool_rounds),
            max_retries: other.max_retries.or(self.max_retries),
            theme: other.theme.or(self.theme),
            tools,
            auto_commit: other.auto_commit.or(self.auto_commit),
            inline: other.inline.or(self.inline),
            max_response_bytes: other.max_response_bytes.or(self.max_response_bytes),
            max_tool_calls_per_response: other
                .max_tool_calls_per_response
                .or(self.max_tool_calls_per_response),
            stream_idle_timeout_secs: other
                .stream_idle_timeout_secs
                .or(self.stream_idle_timeout_secs),
            edit_tool: other.edit_tool.or(self.edit_tool),
            strict_tools: other.strict_tools.or(self.strict_tools),
            web: web::overlay_opt(self.web, other.web, web::WebConfig::overlay),
            web_search: web::overlay_opt(
                self.web_search,
                other.web_search,
                web::WebSearchConfig::overlay,
            ),
            mcp_servers: mcp::overlay_servers(self.mcp_servers, other.mcp_servers),
            notify: other.notify.or(self.notify),
            notify_command: other.notify_command.or(self.notify_command),
            lsp: lsp::overlay(self.lsp, other.lsp),
            lsp_wait_ms: other.lsp_wait_ms.or(self.lsp_wait_ms),
            oracle: overlay_tables(self.oracle, other.oracle, |a, b| OracleConfig {
                model: b.model.or(a.model),
                base_url: b.base_url.or(a.base_url),
                api_key_env: b.api_key_env.or(a.api_key_env),
                max_tokens: b.max_tokens.or(a.max_tokens),
                temperature: b.temperature.or(a.temperature),
            }),
            hooks: overlay_tables(self.hooks, other.hooks, HooksConfig::overlay),
            prices: prices::overlay(self.prices, other.prices),
        }
    }
}

/// Two layers' values of one table: `merge`d when both have it, else whichever has it.
pub(crate) fn overlay_tables<T>(
    a: Option<T>,
    b: Option<T>,
    merge: impl FnOnce(T, T) -> T,
) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(merge(a, b)),
        (a, b) => b.or(a),
    }
}

impl ToolsConfig {
    /// `b`'s values over `a`'s; the forbidden paths of both, each once.
    fn overlay(a: ToolsConfig, b: ToolsConfig) -> ToolsConfig {
        ToolsConfig {
            output_budget: b.output_budget.or(a.output_budget),
            bash_output_budget: b.bash_output_budget.or(a.bash_output_budget),
            env: b.env.or(a.env),
            forbidden_paths: overlay_tables(a.forbidden_paths, b.forbidden_paths, |mut x, y| {
                x.extend(y.into_iter().filter(|p| !x.contains(p)).collect::<Vec<_>>());
                x
            }),
        }
    }
}

impl ApprovalConfig {
    /// `b`'s values over `a`'s; the rules of both, `a`'s first.
    fn overlay(a: ApprovalConfig, b: ApprovalConfig) -> ApprovalConfig {
        ApprovalConfig {
            mode: b.mode.or(a.mode),
            max_actions_per_hour: b.max_actions_per_hour.or(a.max_actions_per_hour),
            rules: overlay_tables(a.rules, b.rules, |mut x, y| {
                x.extend(y);
                x
            }),
        }
    }
}

/// The bytes of the config file at `path` (`None`: there is none): a regular file of at
/// most [`file::MAX_CONFIG_BYTES`], whatever the path points at.
fn read_bytes(path: &Path) -> Result<Option<Vec<u8>>, ConfigError> {
    file::read_regular(path, file::MAX_CONFIG_BYTES).map_err(|e| ConfigError::Read {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit('\n')
        .next()
        .map(|l| l.chars().count())
        .unwrap_or(0)
        + 1;
    (line, column)
}

/// The variable the API key is read from when no `api_key_env` names another.
pub const DEFAULT_API_KEY_ENV: &str = "OPENAI_API_KEY";

/// Values given on the command line (highest precedence).
#[derive(Debug, Default, Clone)]
pub struct FlagConfig {
    /// `--base-url`.
    pub base_url: Option<String>,
    /// `--model`.
    pub model: Option<String>,
    /// `--api-key-env`.
    pub api_key_env: Option<String>,
    /// `--approval`.
    pub approval: Option<String>,
    /// `--theme`.
    pub theme: Option<String>,
    /// `--sandbox`.
    pub sandbox: Option<String>,
    /// `--auto-commit` (it can only switch auto-commit on; the config's `false` is the default).
    pub auto_commit: bool,
    /// `--inline` (it can only switch inline mode on).
    pub inline: bool,
    /// `--config FILE`: used instead of the user config file.
    pub config_file: Option<PathBuf>,
}

/// Which editing tool the model is offered besides write_file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EditTool {
    /// apply_patch for models whose name suggests Codex training (gpt-5*, *codex*),
    /// edit_file for the rest.
    #[default]
    Auto,
    /// String replacement only.
    EditFile,
    /// Codex's patch envelope only.
    ApplyPatch,
    /// Both.
    Both,
}

impl EditTool {
    /// The config value's meaning, if it is one.
    pub fn parse(name: &str) -> Option<EditTool> {
        Some(match name {
            "auto" => EditTool::Auto,
            "edit_file" => EditTool::EditFile,
            "apply_patch" => EditTool::ApplyPatch,
            "both" => EditTool::Both,
            _ => return None,
        })
    }

    /// Whether `model` gets (edit_file, apply_patch).
    pub fn offered(self, model: &str) -> (bool, bool) {
        match self {
            EditTool::EditFile => (true, false),
            EditTool::ApplyPatch => (false, true),
            EditTool::Both => (true, true),
            EditTool::Auto => {
                let name = model
                    .rsplit('/')
                    .next()
                    .unwrap_or(model)
                    .to_ascii_lowercase();
                let codex = name.starts_with("gpt-5") || name.contains("codex");
                (!codex, codex)
            }
        }
    }
}

/// The user config file's path (`~/.config/loom/config.toml` on Linux).
pub fn user_config_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "loom").map(|d| d.config_dir().join("config.toml"))
}

/// Load every layer for a workspace. `env` is a lookup (normally `std::env::var`).
pub fn load(
    workspace: &Path,
    flags: &FlagConfig,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Config, ConfigError> {
    let mut files = file_layers(workspace, flags)?;
    let nonempty = |k: &str| env(k).filter(|v| !v.trim().is_empty());
    let env_layer = FileConfig {
        base_url: nonempty("OPENAI_BASE_URL"),
        model: nonempty("LOOM_MODEL"),
        ..FileConfig::default()
    };
    let merged = std::mem::take(&mut files.merged)
        .overlay(env_layer)
        .overlay(flag_layer(flags));
    let api_key_env = merged
        .api_key_env
        .clone()
        .unwrap_or_else(|| DEFAULT_API_KEY_ENV.to_string());
    let checked = Checked {
        modes: check_modes(&merged)?,
        web: check_web(&merged)?,
        mcp_servers: resolve_servers(&merged, workspace, &files.project_servers)?,
        oracle: oracle::settings(
            merged.oracle.clone().unwrap_or_default(),
            &nonempty,
            &api_key_env,
        )?,
        api_key: nonempty(&api_key_env),
        api_key_env,
        lsp: lsp::of_file(&merged, env("PATH").as_deref())?,
        prices: prices::check(merged.prices.as_ref())?,
    };
    Ok(settings::assemble(merged, checked, files))
}

/// The config files' layers: the user's (or `--config`'s) file, then the project's, as far
/// as its trust allows.
struct FileLayers {
    /// The files merged.
    merged: FileConfig,
    /// The files read, in order.
    sources: Vec<PathBuf>,
    /// Whether the project's config is trusted.
    project_trust: trust::ProjectTrust,
    /// The MCP servers whose program the (trusted) project config gives.
    project_servers: std::collections::BTreeSet<String>,
}

/// Read and merge the config files of `workspace`.
fn file_layers(workspace: &Path, flags: &FlagConfig) -> Result<FileLayers, ConfigError> {
    let mut sources = Vec::new();
    let mut merged = FileConfig::default();
    let user = flags.config_file.clone().or_else(user_config_path);
    if let Some(path) = user {
        if flags.config_file.is_some() && !path.exists() {
            return Err(ConfigError::Read {
                path,
                message: "no such file".into(),
            });
        }
        if path.exists() {
            sources.push(path.clone());
        }
        merged = merged.overlay(FileConfig::load(&path)?);
    }
    let project = workspace.join(".loom/config.toml");
    let mut project_trust = trust::ProjectTrust::NotNeeded;
    let mut project_servers = std::collections::BTreeSet::new();
    if let Some(bytes) = read_bytes(&project)? {
        sources.push(project.clone());
        let file = FileConfig::parse(&String::from_utf8_lossy(&bytes), &project)?;
        let store = trust::store_path();
        let (applied, verdict) =
            trust::evaluate(&merged, workspace, &project, &bytes, file, store.as_deref());
        project_trust = verdict;
        project_servers.extend(
            applied
                .mcp_servers
                .iter()
                .flatten()
                .filter(|(_, table)| table.command.is_some())
                .map(|(name, _)| name.clone()),
        );
        merged = merged.overlay(applied);
    }
    Ok(FileLayers {
        merged,
        sources,
        project_trust,
        project_servers,
    })
}

/// The layer the command-line flags make.
fn flag_layer(flags: &FlagConfig) -> FileConfig {
    FileConfig {
        base_url: flags.base_url.clone(),
        model: flags.model.clone(),
        api_key_env: flags.api_key_env.clone(),
        approval: flags.approval.clone().map(|mode| ApprovalConfig {
            mode: Some(mode),
            ..ApprovalConfig::default()
        }),
        theme: flags.theme.clone(),
        sandbox: flags.sandbox.clone(),
        auto_commit: flags.auto_commit.then_some(true),
        inline: flags.inline.then_some(true),
        ..FileConfig::default()
    }
}

/// What of the merged layers had to be parsed or checked, done in the order the errors are
/// reported in.
struct Checked {
    modes: Modes,
    web: (web::WebConfig, web::WebSearchConfig),
    mcp_servers: Vec<mcp::McpServer>,
    oracle: OracleSettings,
    api_key_env: String,
    api_key: Option<String>,
    lsp: lsp::LspSettings,
    prices: BTreeMap<String, prices::Price>,
}

/// The modes named by words, parsed.
struct Modes {
    autonomy: Autonomy,
    sandbox: SandboxMode,
    rules: Vec<RuleConfig>,
    edit_tool: EditTool,
}

/// The approval and sandbox modes, the approval rules, the hooks' globs and the editing
/// tool of `merged`: parsed, or the first that is not valid.
fn check_modes(merged: &FileConfig) -> Result<Modes, ConfigError> {
    let approval = merged.approval.clone().unwrap_or_default();
    let autonomy = match approval.mode.as_deref() {
        None => Autonomy::default(),
        Some(s) => Autonomy::parse(s).ok_or_else(|| ConfigError::Invalid {
            source_name: "approval".into(),
            message: format!(
                "unknown approval mode {s:?}; expected read-only, supervised, full-auto or plan"
            ),
        })?,
    };
    let sandbox = match merged.sandbox.as_deref() {
        None => SandboxMode::WorkspaceWrite,
        Some(s) => SandboxMode::parse(s).ok_or_else(|| ConfigError::Invalid {
            source_name: "sandbox".into(),
            message: format!("unknown sandbox mode {s:?}; expected workspace-write or off"),
        })?,
    };
    let rules = approval.rules.clone().unwrap_or_default();
    crate::policy::approvals::Rules::compile(&rules).map_err(|message| ConfigError::Invalid {
        source_name: "approval.rules".into(),
        message,
    })?;
    hooks::check(merged.hooks.as_ref())?;
    let edit_tool = match merged.edit_tool.as_deref() {
        None => EditTool::Auto,
        Some(name) => EditTool::parse(name).ok_or_else(|| ConfigError::Invalid {
            source_name: "edit_tool".into(),
            message: format!(
                "unknown edit tool {name:?}; expected auto, edit_file, apply_patch or both"
            ),
        })?,
    };
    Ok(Modes {
        autonomy,
        sandbox,
        rules,
        edit_tool,
    })
}

/// The `[web]` and `[web_search]` tables of `merged`, checked.
fn check_web(merged: &FileConfig) -> Result<(web::WebConfig, web::WebSearchConfig), ConfigError> {
    let web = merged.web.clone().unwrap_or_default();
    crate::policy::address_guard::AllowPrivate::parse(web.allow_private.as_deref().unwrap_or(&[]))
        .map_err(|message| ConfigError::Invalid {
            source_name: "web.allow_private".into(),
            message,
        })?;
    let web_search = merged.web_search.clone().unwrap_or_default();
    if let Some(p) = &web_search.provider
        && crate::config::web::ProviderKind::parse(p).is_none()
    {
        return Err(ConfigError::Invalid {
            source_name: "web_search.provider".into(),
            message: format!(
                "unknown search provider {p:?}; expected serper, google, searxng or proxy"
            ),
        });
    }
    Ok((web, web_search))
}

/// The MCP servers of `merged`, resolved against `workspace` (those in `project_servers`
/// run a program the project config gives).
fn resolve_servers(
    merged: &FileConfig,
    workspace: &Path,
    project_servers: &std::collections::BTreeSet<String>,
) -> Result<Vec<mcp::McpServer>, ConfigError> {
    merged
        .mcp_servers
        .iter()
        .flatten()
        .map(|(name, table)| {
            let origin = if project_servers.contains(name) {
                mcp::Origin::Project
            } else {
                mcp::Origin::User
            };
            mcp::resolve(name, table, workspace, origin)
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|message| ConfigError::Invalid {
            source_name: "mcp_servers".into(),
            message,
        })
}

#[cfg(test)]
mod tests;
