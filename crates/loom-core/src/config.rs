//! Layered configuration: built-in defaults < user file (`~/.config/loom/config.toml`) <
//! project file (`.loom/config.toml`) < environment (`OPENAI_BASE_URL`, `OPENAI_API_KEY`,
//! `LOOM_MODEL`) < flags.
//!
//! Files are parsed strictly (unknown keys are errors) so a typo is reported, with the
//! file's path, line and column and what was expected, instead of silently ignored.

pub mod file;
pub mod file_keys;
pub mod hooks;
pub mod lsp;
pub mod mcp;
pub mod oracle;
pub mod prices;
mod provider;
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

/// One configuration file, every key optional. The file is flat; the keys are grouped
/// here by what they are about (see [`file_keys`] for each group's keys and for how the
/// file is parsed strictly).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct FileConfig {
    /// The model server, the model and how requests and responses may go.
    pub provider: file_keys::ProviderKeys,
    /// Approval, tools, hooks, rounds per turn, auto-commit and the editing tool.
    pub agent: file_keys::AgentKeys,
    /// The command sandbox.
    pub sandbox: file_keys::SandboxKeys,
    /// Theme, inline drawing and notifications.
    pub ui: file_keys::UiKeys,
    /// Web, MCP servers, the oracle, language servers and prices.
    pub integrations: file_keys::IntegrationKeys,
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
        FileConfig {
            provider: file_keys::ProviderKeys::overlay(self.provider, other.provider),
            agent: file_keys::AgentKeys::overlay(self.agent, other.agent),
            sandbox: file_keys::SandboxKeys::overlay(self.sandbox, other.sandbox),
            ui: file_keys::UiKeys::overlay(self.ui, other.ui),
            integrations: file_keys::IntegrationKeys::overlay(
                self.integrations,
                other.integrations,
            ),
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
        provider: file_keys::ProviderKeys {
            base_url: nonempty("OPENAI_BASE_URL"),
            model: nonempty("LOOM_MODEL"),
            ..Default::default()
        },
        ..FileConfig::default()
    };
    let merged = std::mem::take(&mut files.merged)
        .overlay(env_layer)
        .overlay(flag_layer(flags));
    let api_key_env = merged
        .provider
        .api_key_env
        .clone()
        .unwrap_or_else(|| DEFAULT_API_KEY_ENV.to_string());
    provider::check(&merged.provider)?;
    let checked = Checked {
        modes: check_modes(&merged)?,
        web: check_web(&merged)?,
        mcp_servers: resolve_servers(&merged, workspace, &files.project_servers)?,
        oracle: oracle::settings(
            merged.integrations.oracle.clone().unwrap_or_default(),
            &nonempty,
            &api_key_env,
        )?,
        api_key: nonempty(&api_key_env),
        api_key_env,
        lsp: lsp::of_file(&merged, files.user_lsp.as_ref(), env("PATH").as_deref())?,
        prices: prices::check(merged.integrations.prices.as_ref())?,
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
    /// The `lsp` of the person's own config (only it enables built-in servers anywhere).
    user_lsp: Option<lsp::LspConfig>,
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
    let user_lsp = merged.integrations.lsp.clone();
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
                .integrations
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
        user_lsp,
    })
}

/// The layer the command-line flags make.
fn flag_layer(flags: &FlagConfig) -> FileConfig {
    FileConfig {
        provider: file_keys::ProviderKeys {
            base_url: flags.base_url.clone(),
            model: flags.model.clone(),
            api_key_env: flags.api_key_env.clone(),
            ..Default::default()
        },
        agent: file_keys::AgentKeys {
            approval: flags.approval.clone().map(|mode| ApprovalConfig {
                mode: Some(mode),
                ..ApprovalConfig::default()
            }),
            auto_commit: flags.auto_commit.then_some(true),
            ..Default::default()
        },
        sandbox: file_keys::SandboxKeys {
            sandbox: flags.sandbox.clone(),
            ..Default::default()
        },
        ui: file_keys::UiKeys {
            theme: flags.theme.clone(),
            inline: flags.inline.then_some(true),
            ..Default::default()
        },
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
    let approval = merged.agent.approval.clone().unwrap_or_default();
    let autonomy = match approval.mode.as_deref() {
        None => Autonomy::default(),
        Some(s) => Autonomy::parse(s).ok_or_else(|| ConfigError::Invalid {
            source_name: "approval".into(),
            message: format!(
                "unknown approval mode {s:?}; expected read-only, supervised, full-auto or plan"
            ),
        })?,
    };
    let sandbox = match merged.sandbox.sandbox.as_deref() {
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
    hooks::check(merged.agent.hooks.as_ref())?;
    let edit_tool = match merged.agent.edit_tool.as_deref() {
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
    let web = merged.integrations.web.clone().unwrap_or_default();
    crate::policy::address_guard::AllowPrivate::parse(web.allow_private.as_deref().unwrap_or(&[]))
        .map_err(|message| ConfigError::Invalid {
            source_name: "web.allow_private".into(),
            message,
        })?;
    let web_search = merged.integrations.web_search.clone().unwrap_or_default();
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
        .integrations
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
