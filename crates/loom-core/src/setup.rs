//! Turning configuration into running parts: the provider (configured, OpenAI, or a local
//! server found by probing), the tool context (workspace confinement, limits, environment),
//! the policy and the system prompt. Shared by the TUI, `loom exec` and `loom models`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::changelog::Changelog;
use crate::config::Config;
use crate::hooks::HookChain;
use crate::hooks::command::CommandHook;
use crate::llm::ProviderSettings;
use crate::llm::current::CurrentModel;
use crate::llm::discover::{self, how_to_configure};
use crate::policy::approvals::Rules;
use crate::policy::paths::{Confinement, ForbiddenMatch, ForbiddenRule};
use crate::policy::{CallIntent, CommandIntent, Policy};
use crate::session::SessionLog;
use crate::tools::{ToolContext, ToolLimits, ToolRegistry};
use loom_sandbox::env::EnvPolicy;
use loom_sandbox::{self as sandbox, Availability, SandboxMode, SandboxSpec};
use std::sync::Mutex;

pub mod web;

/// OpenAI's API, used when only an API key is configured.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
/// The model used with OpenAI when none is named.
pub const OPENAI_DEFAULT_MODEL: &str = "gpt-4.1-mini";

/// A provider resolved from configuration, or why there is none.
#[derive(Debug, Clone)]
pub enum Provider {
    /// Ready to use.
    Ready {
        /// Connection settings.
        settings: ProviderSettings,
        /// How it was chosen (for the status line and `session_started`).
        origin: String,
    },
    /// Nothing configured or found; the message says how to connect one.
    Missing {
        /// Instructions.
        message: String,
    },
}

/// Decide which server and model to use.
pub async fn resolve_provider(config: &Config) -> Provider {
    if let Some(base) = &config.provider.base_url {
        let model = match &config.provider.model {
            Some(m) => m.clone(),
            None => match first_listed_model(base, config).await {
                Ok(model) => model,
                Err(message) => return Provider::Missing { message },
            },
        };
        return Provider::Ready {
            settings: provider_settings(config, base, model),
            origin: "configured".into(),
        };
    }
    if config.provider.api_key.is_some() {
        let model = config
            .provider
            .model
            .clone()
            .unwrap_or_else(|| OPENAI_DEFAULT_MODEL.to_string());
        return Provider::Ready {
            settings: provider_settings(config, OPENAI_BASE_URL, model),
            origin: "OpenAI".into(),
        };
    }
    match discover::discover().await {
        Some(found) => discovered_provider(config, &found),
        None => Provider::Missing {
            message: how_to_configure(),
        },
    }
}

/// The client settings for `model` on the server at `base_url`, the rest from `config`.
fn provider_settings(config: &Config, base_url: &str, model: String) -> ProviderSettings {
    let mut s = ProviderSettings::new(base_url, &model);
    s.api_key = config.provider.api_key.clone();
    s.temperature = config.provider.temperature;
    s.max_tokens = config.provider.max_tokens;
    s.headers = config.provider.headers.clone();
    s.context_window = config.provider.context_window;
    s.max_response_bytes = config.limits.max_response_bytes;
    s.max_tool_calls = config.limits.max_tool_calls;
    s.read_timeout_secs = config.limits.stream_idle_timeout_secs;
    s.strict_tools = config.tools.strict_tools;
    s
}

/// The first model the configured server at `base` lists, when no model is named; the
/// error says how to name one.
async fn first_listed_model(base: &str, config: &Config) -> Result<String, String> {
    let listed = discover::list_models(
        base,
        config.provider.api_key.as_deref(),
        Duration::from_secs(5),
    )
    .await;
    match listed {
        Ok(models) => models
            .into_iter()
            .next()
            .ok_or_else(|| format!("{base} lists no models; name one with --model or LOOM_MODEL")),
        Err(e) => Err(format!(
            "no model is named and the server could not list its models ({e}); \
             name one with --model or LOOM_MODEL"
        )),
    }
}

/// The provider of a local server found on its usual port: the named model, else the
/// server's first.
fn discovered_provider(config: &Config, found: &discover::Found) -> Provider {
    let model = config
        .provider
        .model
        .clone()
        .or_else(|| found.models.first().cloned());
    match model {
        Some(model) => Provider::Ready {
            settings: provider_settings(config, &found.base_url, model),
            origin: format!("found {} at {}", found.name, found.base_url),
        },
        None => Provider::Missing {
            message: format!(
                "{} at {} has no models; pull one (e.g. `ollama pull qwen2.5-coder`) or \
                 name one with --model",
                found.name, found.base_url
            ),
        },
    }
}

/// The workspace root for a directory given on the command line (or the current one).
pub fn workspace_root(cd: Option<&Path>) -> std::io::Result<PathBuf> {
    let dir = match cd {
        Some(d) => d.to_path_buf(),
        None => std::env::current_dir()?,
    };
    std::fs::canonicalize(&dir)
}

/// The sandbox in force and how to describe it.
#[derive(Debug, Clone)]
pub struct SandboxStatus {
    /// The spec commands run under.
    pub spec: SandboxSpec,
    /// Short label: `workspace-write`, `off`, or `unavailable`.
    pub label: String,
    /// Something to tell the person once (e.g. no Landlock here).
    pub notice: Option<String>,
}

/// Decide the sandbox for a workspace: the configured mode where Landlock works, else off
/// with a notice.
pub fn sandbox_for(root: &Path, config: &Config) -> SandboxStatus {
    match config.sandbox.mode {
        SandboxMode::Off => SandboxStatus {
            spec: SandboxSpec::off(),
            label: "off".into(),
            notice: None,
        },
        SandboxMode::WorkspaceWrite => match sandbox::availability() {
            Availability::Available { network, .. } => {
                let mut gaps = Vec::new();
                // With namespaces, a command without network has a network namespace of its
                // own, whatever Landlock can do.
                if !network && !config.sandbox.network && !sandbox::protection_available() {
                    gaps.push(
                        "this kernel's Landlock cannot restrict network access; sandboxed \
                         commands can still use the network",
                    );
                }
                if !sandbox::protection_available() {
                    gaps.push(
                        "user namespaces are not allowed here, so commands can still write \
                         .git/config, .git/hooks and .loom/ (file tools never do), and \
                         processes a command leaves behind are only reaped, not contained",
                    );
                }
                if nix::unistd::geteuid().is_root()
                    && !config.sandbox.keep_capabilities
                    && !loom_sandbox::isolate::root_user_namespace_allowed()
                {
                    gaps.push(
                        "user namespaces are not allowed here, so commands run as this \
                         machine's root, though without capabilities",
                    );
                }
                let mut spec = SandboxSpec::workspace_write(
                    root,
                    &config.sandbox.writable,
                    config.sandbox.network,
                );
                spec.keep_capabilities = config.sandbox.keep_capabilities;
                SandboxStatus {
                    spec,
                    label: "workspace-write".into(),
                    notice: (!gaps.is_empty()).then(|| gaps.join("; ")),
                }
            }
            Availability::Unavailable(reason) => SandboxStatus {
                spec: SandboxSpec::off(),
                label: "unavailable".into(),
                notice: Some(reason),
            },
        },
    }
}

/// The paths neither the file tools nor commands may touch: the defaults, Loom's own
/// settings and records, and the configured `forbidden_paths`.
pub fn forbidden_rules(config: &Config) -> Vec<ForbiddenRule> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut rules = ForbiddenRule::defaults(home.as_deref());
    rules.extend(loom_own_rules(config));
    rules.extend(
        config
            .tools
            .forbidden_paths
            .iter()
            .map(|spec| ForbiddenRule::from_config(spec, home.as_deref())),
    );
    rules
}

/// Loom's own configuration and data (user config, themes, trust store, sessions) are
/// never written by a tool, like `.loom/`: in a workspace that contains them (Loom opened
/// in the home directory) a model could otherwise switch the sandbox off in the user
/// config, or trust a project config, for the next session.
fn loom_own_rules(config: &Config) -> Vec<ForbiddenRule> {
    let own = |path: PathBuf, label: &str| ForbiddenRule {
        label: format!("{label} (writes)"),
        matcher: ForbiddenMatch::Under(std::fs::canonicalize(&path).unwrap_or(path)),
        applies_to_reads: false,
    };
    let mut rules = Vec::new();
    if let Some(dir) = crate::config::user_config_path().and_then(|p| p.parent().map(PathBuf::from))
    {
        rules.push(own(dir, "Loom's user config"));
    }
    if let Some(dir) = crate::base::dirs::data_dir() {
        rules.push(own(dir, "Loom's data directory"));
    }
    for file in &config.sources {
        if !file.ends_with(".loom/config.toml") {
            rules.push(own(file.clone(), "Loom's config file"));
        }
    }
    rules
}

/// The policy for a session under `config`.
pub fn policy(config: &Config) -> Policy {
    let rules = Rules::compile(&config.approval.rules).unwrap_or_default();
    let mcp_rules = crate::policy::mcp::McpRules::new(
        config
            .integrations
            .mcp_servers
            .iter()
            .map(|s| (s.name.as_str(), &s.allow[..], &s.deny[..])),
    );
    Policy::new(config.approval.autonomy)
        .with_rules(rules)
        .with_mcp_rules(mcp_rules)
        .with_budget(config.approval.max_actions_per_hour)
        .with_protected(forbidden_rules(config))
        .with_network(crate::policy::network::NetworkRules {
            read_only_web: config.tools.web.read_only.unwrap_or(false),
            allowed_domains: config.tools.web.allowed_domains.clone().unwrap_or_default(),
        })
}

/// A tool that exists but is not offered to the model, and how to offer it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unoffered {
    /// The tool's name.
    pub name: &'static str,
    /// Why it is not offered and what enables it.
    pub why: String,
}

/// The tools offered in a session under `config` (the workspace tools, then the web
/// tools), and those left out with how to enable them. `env` looks up variables (normally
/// `std::env::var`); search keys are read only from there.
pub fn tool_registry(
    config: &Config,
    model: Option<&CurrentModel>,
    env: &dyn Fn(&str) -> Option<String>,
) -> (ToolRegistry, Vec<Unoffered>) {
    // For a model, the editing tool it edits best with (chosen again when `/model`
    // switches); by hand (`loom tool`), every one.
    let mut registry = match model {
        Some(model) => ToolRegistry::workspace_editing_with(Arc::new(
            crate::tools::edit_choice::EditTools::new(config.tools.edit_tool, model.clone()),
        )),
        None => ToolRegistry::all_builtin(),
    };
    let mut unoffered = Vec::new();
    let (tools, missing) = web::web_tools(config, env);
    for tool in tools {
        registry
            .register(tool)
            .expect("web tool names differ from the workspace tools");
    }
    unoffered.extend(missing);
    if !lsp_in_force(config, sandbox_active(config)).0.is_empty() {
        registry
            .register(Arc::new(crate::tools::diagnostics::Diagnostics))
            .expect("diagnostics differs from the other tool names");
    }
    (registry, unoffered)
}

/// The tool context for a workspace under `config`.
pub fn tool_context(
    root: &Path,
    config: &Config,
    session_id: &str,
) -> std::io::Result<ToolContext> {
    let confinement = Confinement::new(root, forbidden_rules(config))?;
    let confinement_root = &confinement.root().to_path_buf();
    Ok(ToolContext {
        cwd: confinement.root().to_path_buf(),
        workspace: Some(Arc::new(confinement)),
        session_id: session_id.to_string(),
        call_id: String::new(),
        turn: 0,
        cancel: CancellationToken::new(),
        limits: Arc::new(ToolLimits {
            output_budget: config.limits.output_budget,
            bash_stream_budget: config.limits.bash_output_budget,
            env: EnvPolicy {
                extra: config.tools.env.clone(),
            },
        }),
        lsp: lsp_for(confinement_root, config, sandbox_for(root, config).spec),
        sandbox: sandbox_for(root, config).spec,
        editor_files: None,
    })
}

/// The transcript and undo journal of a session.
pub struct SessionFiles {
    /// The transcript writer.
    pub log: Option<SessionLog>,
    /// The undo journal.
    pub changelog: Option<Arc<Mutex<Changelog>>>,
    /// Things to tell the person (e.g. that there is no data directory).
    pub notices: Vec<String>,
    /// Writes that failed as the session started (a full or read-only data directory):
    /// errors, like any later failed save.
    pub errors: Vec<String>,
    /// Long-term memory (none: no data directory, or the database cannot be opened).
    pub memory: Option<Arc<crate::memory::Memory>>,
    /// The workspace's scheduled jobs, for the cron tools (none: no data directory, or a
    /// session that may not change jobs).
    pub cron: Option<crate::cron::JobStore>,
    /// The deferred tools a resumed session had loaded (sent again from its first
    /// request); set by the caller from the loaded session.
    pub loaded_tools: Vec<String>,
}

impl SessionFiles {
    /// No transcript, no undo.
    pub fn none() -> SessionFiles {
        SessionFiles {
            log: None,
            changelog: None,
            notices: Vec::new(),
            errors: Vec::new(),
            memory: None,
            cron: None,
            loaded_tools: Vec::new(),
        }
    }
}

/// Open (or, when `resume`, reopen) the transcript and undo journal of a session.
pub fn session_files(root: &Path, session_id: &str, model: &str, resume: bool) -> SessionFiles {
    session_files_titled(root, session_id, model, resume, None)
}

/// [`session_files`], recording `title` in a new session's header.
pub fn session_files_titled(
    root: &Path,
    session_id: &str,
    model: &str,
    resume: bool,
    title: Option<&str>,
) -> SessionFiles {
    let Some(data) = crate::base::dirs::data_dir() else {
        return SessionFiles {
            notices: vec![
                "no data directory: this session is not saved and changes cannot be undone".into(),
            ],
            ..SessionFiles::none()
        };
    };
    let mut notices = Vec::new();
    let mut errors = Vec::new();
    let sessions = data.join("sessions");
    let log = if resume {
        SessionLog::reopen(&sessions, session_id)
    } else {
        SessionLog::create_titled(&sessions, session_id, root, model, title)
    };
    let log = match log {
        Ok(l) => Some(l),
        Err(e) => {
            errors.push(format!(
                "the session cannot be saved ({e}); it goes on, but nothing of it is recorded"
            ));
            None
        }
    };
    let changelog = match Changelog::open(&data, session_id, root) {
        Ok(c) => {
            if !c.can_snapshot() {
                notices.push(
                    "git was not found: changes made by shell commands cannot be undone".into(),
                );
            }
            Some(Arc::new(Mutex::new(c)))
        }
        Err(e) => {
            errors.push(format!(
                "the undo journal cannot be opened ({e}); changes made in this session cannot \
                 be undone"
            ));
            None
        }
    };
    let memory = match crate::memory::Memory::open(&data.join(crate::memory::DB_FILE), root) {
        Ok(m) => {
            notices.extend(m.notice().map(String::from));
            Some(Arc::new(m))
        }
        Err(e) => {
            notices.push(format!(
                "long-term memory is off for this session ({e}); the memory tools are not offered"
            ));
            None
        }
    };
    SessionFiles {
        log,
        changelog,
        notices,
        errors,
        memory,
        cron: Some(crate::cron::JobStore::for_workspace(&data, root)),
        loaded_tools: Vec::new(),
    }
}

/// The post-tools hooks configured: auto-commit first, then the user's commands.
pub fn hooks(config: &Config, policy: &Policy, root: &Path) -> HookChain {
    let mut chain = HookChain::new();
    chain.set_auto_commit(config.tools.auto_commit);
    for h in &config.integrations.hooks {
        let intent = CallIntent::runs(CommandIntent {
            command: h.command.clone(),
            cwd: None,
            outside_sandbox: false,
        });
        chain.push(Arc::new(CommandHook {
            command: h.command.clone(),
            glob: h
                .glob
                .as_ref()
                .and_then(|g| globset::Glob::new(g).ok())
                .map(|g| g.compile_matcher()),
            timeout: Duration::from_secs(h.timeout_secs.unwrap_or(60).clamp(1, 3600)),
            refusal: policy.refusal("bash", &intent, Some(root)),
        }));
    }
    chain.set_events(crate::hooks::dispatch::EventHookSet::build(
        &config.integrations.event_hooks,
        policy,
        root,
    ));
    chain
}

/// Start the configured, enabled MCP servers in the background (`None` when there are
/// none). Must be called on a tokio runtime.
pub fn mcp_servers(config: &Config) -> Option<crate::mcp::McpManager> {
    (!config.integrations.mcp_servers.is_empty())
        .then(|| crate::mcp::McpManager::start(&config.integrations.mcp_servers))
}

/// The language servers that may start under `config` (built-in ones only in a workspace
/// that is not untrusted and with the sandbox active, unless the person's own config
/// enables them) and, when some were held back, the notice saying why.
pub fn lsp_in_force(
    config: &Config,
    sandbox_active: bool,
) -> (Vec<loom_lsp::ServerSpec>, Option<String>) {
    let untrusted = matches!(
        config.project_trust,
        crate::config::trust::ProjectTrust::Untrusted { .. }
    );
    config.tools.lsp.in_force(untrusted, sandbox_active)
}

/// Whether commands (and language servers) run contained under `config`: the sandbox is
/// asked for and this machine has it.
pub fn sandbox_active(config: &Config) -> bool {
    config.sandbox.mode == SandboxMode::WorkspaceWrite
        && matches!(sandbox::availability(), Availability::Available { .. })
}

/// The language servers for the workspace at `root` under `config`, contained by
/// `sandbox` like commands; `None` when `lsp = false` or no server is configured, on
/// `PATH` and allowed here ([`lsp_in_force`]). Nothing starts until a file needs a
/// server.
pub fn lsp_for(
    root: &Path,
    config: &Config,
    sandbox: loom_sandbox::SandboxSpec,
) -> Option<loom_lsp::Lsp> {
    let active = sandbox.mode == SandboxMode::WorkspaceWrite;
    let (servers, _) = lsp_in_force(config, active);
    if servers.is_empty() {
        return None;
    }
    Some(loom_lsp::Lsp::new(loom_lsp::LspSettings {
        servers,
        wait: config.tools.lsp.wait,
        workspace: root.to_path_buf(),
        sandbox,
        env: EnvPolicy {
            extra: config.tools.env.clone(),
        },
    }))
}

#[cfg(test)]
mod lsp_gate_tests;
