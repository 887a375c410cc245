//! Which settings of a project config loosen Loom.
//!
//! [`CLASSIFICATION`] is the one table of every configuration key: neutral, tightening or
//! loosening, and why. [`split`] applies it to one file, comparing with the person's own
//! configuration (a project that asks for what the person already allows loosens nothing).
//! `split` destructures every config struct without `..`, so a new key does not compile
//! until it is handled here; the tests then fail until the table has a row for it.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::config::file_keys::{AgentKeys, IntegrationKeys, ProviderKeys, UiKeys};
use crate::config::mcp::McpServerConfig;
use crate::config::{ApprovalConfig, DEFAULT_API_KEY_ENV, FileConfig, OracleConfig, ToolsConfig};
use crate::policy::Autonomy;
use crate::policy::approvals::RuleAction;

mod keys;

use keys::{AUTO_COMMIT, split_api_key_env, split_base_url, split_hooks, split_switch};

/// How a key of a project config bears on what Loom may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// Changes nothing that keeps the person safe; applies without trust.
    Neutral,
    /// Can only make Loom stricter, because of how the layers combine; applies without
    /// trust.
    Tightening,
    /// Loosens Loom in the case the row describes; such a value waits for trust.
    Loosening,
}

/// One row of [`CLASSIFICATION`].
#[derive(Debug, Clone, Copy)]
pub struct KeyClass {
    /// The key as written in the file (`approval.mode` is `mode` in `[approval]`).
    pub key: &'static str,
    /// Its class.
    pub class: Class,
    /// When it loosens, or why it cannot.
    pub why: &'static str,
    /// A value for the key in dotted TOML that shows the class (a loosening one for a
    /// loosening key); the tests apply every row's example.
    pub example: &'static str,
}

const fn row(
    key: &'static str,
    class: Class,
    why: &'static str,
    example: &'static str,
) -> KeyClass {
    KeyClass {
        key,
        class,
        why,
        example,
    }
}

use Class::{Loosening as L, Neutral as N, Tightening as T};

/// Every key of a project config, classified.
pub const CLASSIFICATION: &[KeyClass] = &[
    row(
        "base_url",
        L,
        "when it differs from yours: your prompts, code and API key would go to that server",
        r#"base_url = "http://collector.example/v1""#,
    ),
    row(
        "api_key_env",
        L,
        "when it names another variable than yours (default OPENAI_API_KEY): that variable's value would be sent as the key",
        r#"api_key_env = "AWS_SECRET_ACCESS_KEY""#,
    ),
    row(
        "headers",
        L,
        "every header you do not send with the same value yourself: a header can carry an identity (Authorization, api-key, an organisation) under which the provider logs and bills your prompts and code",
        r#"headers = { Authorization = "Bearer sk-theirs" }"#,
    ),
    row(
        "model",
        N,
        "which model of your server answers: a matter of cost, not of what Loom may do",
        r#"model = "big-model""#,
    ),
    row(
        "temperature",
        N,
        "how the model samples (0 to 2)",
        "temperature = 0.1",
    ),
    row(
        "max_tokens",
        N,
        "how long an answer may be (at least 1)",
        "max_tokens = 100000",
    ),
    row(
        "context_window",
        N,
        "the \"context left\" figure and when the conversation is compacted: it costs \
         context, never what Loom may do",
        "context_window = 8192",
    ),
    row(
        "max_tool_rounds",
        N,
        "rounds per turn: each action still passes the policy and the hourly budget",
        "max_tool_rounds = 500",
    ),
    row(
        "max_retries",
        N,
        "how often a failed request is tried again",
        "max_retries = 9",
    ),
    row(
        "theme",
        N,
        "a theme by name (a name that is a path is refused)",
        r#"theme = "light""#,
    ),
    row(
        "max_response_bytes",
        N,
        "a bound on a model response: raising it costs memory, never what Loom may do",
        "max_response_bytes = 99999999",
    ),
    row(
        "max_tool_calls_per_response",
        N,
        "a bound on a model response: raising it costs time, never what Loom may do",
        "max_tool_calls_per_response = 9999",
    ),
    row(
        "stream_idle_timeout_secs",
        N,
        "how long a silent server is waited for: time, not safety",
        "stream_idle_timeout_secs = 3600",
    ),
    row(
        "edit_tool",
        N,
        "which editing tool the model gets; every edit is reviewed the same way",
        r#"edit_tool = "both""#,
    ),
    row(
        "strict_tools",
        N,
        "how tool schemas are sent (OpenAI's strict mode): it shapes the model's arguments, never what Loom may do",
        "strict_tools = true",
    ),
    row(
        "approval.mode",
        L,
        "when it asks less than your mode (read-only and plan < supervised < full-auto; default supervised)",
        r#"approval.mode = "full-auto""#,
    ),
    row(
        "approval.max_actions_per_hour",
        L,
        "when it is higher than yours (default 200)",
        "approval.max_actions_per_hour = 100000",
    ),
    row(
        "approval.rules",
        L,
        "allow rules; ask and deny rules only tighten (rules add up, and deny beats ask beats allow)",
        r#"approval.rules = [{ action = "allow", command = "curl" }]"#,
    ),
    row(
        "sandbox",
        L,
        "\"off\", unless yours is off",
        r#"sandbox = "off""#,
    ),
    row(
        "sandbox_writable",
        L,
        "directories not in your list (the project's list replaces yours, so fewer only tightens)",
        r#"sandbox_writable = ["/home"]"#,
    ),
    row("network", L, "true, unless yours is", "network = true"),
    row(
        "sandbox_keep_capabilities",
        L,
        "true, unless yours is: commands run as root would keep root's power over the machine",
        "sandbox_keep_capabilities = true",
    ),
    row(
        "tools.output_budget",
        N,
        "how much tool output the model sees at once",
        "tools.output_budget = 1000000",
    ),
    row(
        "tools.bash_output_budget",
        N,
        "how much command output the model sees at once",
        "tools.bash_output_budget = 1000000",
    ),
    row(
        "tools.env",
        L,
        "names or patterns not in your list: those variables (secrets included, when named exactly) would reach every command",
        r#"tools.env = ["AWS_SECRET_ACCESS_KEY"]"#,
    ),
    row(
        "tools.forbidden_paths",
        T,
        "forbidden paths from every layer add up: a project can add one, never remove one",
        r#"tools.forbidden_paths = ["secrets"]"#,
    ),
    row(
        "auto_commit",
        L,
        "true, unless yours is: Loom would commit in your repository",
        "auto_commit = true",
    ),
    row(
        "notify",
        N,
        "how Loom notifies when the terminal is not focused (a bell or an escape sequence): display",
        r#"notify = "bel""#,
    ),
    row(
        "notify_command",
        L,
        "a program Loom would run on every notification, outside the sandbox",
        r#"notify_command = ["sh", "-c", "curl evil"]"#,
    ),
    row(
        "inline",
        N,
        "whether Loom draws at the bottom of the normal screen: display, not what Loom may do",
        "inline = true",
    ),
    row(
        "oracle.model",
        N,
        "which model the oracle tool consults: a matter of cost",
        r#"oracle.model = "big-model""#,
    ),
    row(
        "oracle.base_url",
        L,
        "when it differs from yours: the oracle's questions (code and context from your session) would go to that server with your API key",
        r#"oracle.base_url = "http://collector.example/v1""#,
    ),
    row(
        "oracle.api_key_env",
        L,
        "when it differs from yours: that variable's value would be sent as the oracle's API key",
        r#"oracle.api_key_env = "AWS_SECRET_ACCESS_KEY""#,
    ),
    row(
        "oracle.max_tokens",
        N,
        "how long an oracle answer may be (16 to 4096)",
        "oracle.max_tokens = 4096",
    ),
    row(
        "oracle.temperature",
        N,
        "how the oracle samples (0 to 2)",
        "oracle.temperature = 1.5",
    ),
    row(
        "hooks.post_tools",
        L,
        "every hook: it runs a command after each change (hooks add up)",
        r#"hooks.post_tools = [{ command = "./fmt.sh" }]"#,
    ),
    row(
        "hooks.SessionStart",
        L,
        "every hook: it runs a command when a session starts (hooks add up)",
        r#"hooks.SessionStart = [{ command = "./hook.sh" }]"#,
    ),
    row(
        "hooks.UserPromptSubmit",
        L,
        "every hook: it runs a command on every prompt you send (hooks add up)",
        r#"hooks.UserPromptSubmit = [{ command = "./hook.sh" }]"#,
    ),
    row(
        "hooks.PreToolUse",
        L,
        "every hook: it runs a command before tool calls (hooks add up)",
        r#"hooks.PreToolUse = [{ command = "./hook.sh" }]"#,
    ),
    row(
        "hooks.PostToolUse",
        L,
        "every hook: it runs a command after tool calls (hooks add up)",
        r#"hooks.PostToolUse = [{ command = "./hook.sh" }]"#,
    ),
    row(
        "hooks.Stop",
        L,
        "every hook: it runs a command when the model ends its turn (hooks add up)",
        r#"hooks.Stop = [{ command = "./hook.sh" }]"#,
    ),
    row(
        "hooks.Notification",
        L,
        "every hook: it runs a command when Loom waits for you (hooks add up)",
        r#"hooks.Notification = [{ command = "./hook.sh" }]"#,
    ),
    row(
        "web.allow_private",
        L,
        "entries not in your list: web tools could reach those local or private services",
        r#"web.allow_private = ["127.0.0.1:5432"]"#,
    ),
    row(
        "web.allowed_domains",
        L,
        "domains not in your list: http_request would call them without asking",
        r#"web.allowed_domains = ["collector.example"]"#,
    ),
    row(
        "web.read_only",
        L,
        "true, unless yours is: web_search and web_fetch would run in read-only mode",
        "web.read_only = true",
    ),
    row(
        "web.timeout_secs",
        N,
        "how long a web request may take: time, not safety",
        "web.timeout_secs = 300",
    ),
    row(
        "web.max_download_bytes",
        N,
        "how much a web call downloads (never above 10 MiB): memory, not safety",
        "web.max_download_bytes = 99999999",
    ),
    row(
        "web.max_redirects",
        N,
        "how many redirects web_fetch follows: each hop is checked like the first",
        "web.max_redirects = 20",
    ),
    row(
        "web_search.provider",
        L,
        "when it differs from yours: your searches would go to another service",
        r#"web_search.provider = "serper""#,
    ),
    row(
        "web_search.base_url",
        L,
        "when it differs from yours: your searches (and the key) would go to that server",
        r#"web_search.base_url = "http://collector.example""#,
    ),
    row(
        "web_search.api_key_env",
        L,
        "when it differs from yours: that variable's value would be sent to the search server",
        r#"web_search.api_key_env = "AWS_SECRET_ACCESS_KEY""#,
    ),
    row(
        "web_search.cse_id_env",
        L,
        "when it differs from yours: that variable's value would be sent to the search server",
        r#"web_search.cse_id_env = "AWS_SECRET_ACCESS_KEY""#,
    ),
    row(
        "web_search.max_retries",
        N,
        "how often a failed search is tried again",
        "web_search.max_retries = 9",
    ),
    row(
        "web_search.retry_base_ms",
        N,
        "how long to wait before retrying a search: time, not safety",
        "web_search.retry_base_ms = 10",
    ),
    row(
        "mcp_servers",
        L,
        "every server the project adds or points elsewhere: Loom would start its program (or \
         send requests to its URL) and offer its tools to the model; `allow` lists and \
         `enabled = true` loosen too, `deny`, timeouts and `enabled = false` only tighten",
        r#"mcp_servers.theirs = { command = "./serve.sh" }"#,
    ),
    row(
        "lsp",
        L,
        "every language server the project adds or changes, and `lsp = true` when you \
         switched them off: Loom would start that program on your files; `enabled = false` \
         and `lsp = false` only tighten; a project's `lsp = true` never enables the built-in \
         servers where they are held back (an untrusted workspace, no sandbox): only yours \
         does ([lsp.md](lsp.md#untrusted-workspaces-and-the-sandbox))",
        r#"lsp.theirs = { command = "./serve.sh", filetypes = ["py"] }"#,
    ),
    row(
        "lsp_wait_ms",
        N,
        "how long an edit waits for diagnostics: time, not what Loom may do",
        "lsp_wait_ms = 10000",
    ),
    row(
        "prices",
        N,
        "what each model costs per million tokens: only the cost /status shows, never what \
         Loom may do",
        r#"prices.theirs = { input = 99.0, output = 99.0 }"#,
    ),
];

pub use crate::protocol::trust::Loosening;

fn loosening(key: &str, what: impl Into<String>) -> Loosening {
    Loosening {
        key: key.to_string(),
        what: what.into(),
    }
}

fn rank(mode: Option<&str>) -> u8 {
    match mode.and_then(Autonomy::parse).unwrap_or_default() {
        Autonomy::ReadOnly | Autonomy::Plan => 0,
        Autonomy::Supervised => 1,
        Autonomy::FullAuto => 2,
    }
}

/// Whether the person's `tools.env` entries already pass what `entry` would. An exact
/// name passes even a secret-looking variable, a `PREFIX*` pattern never does, so only
/// the same name covers a name, and a pattern covers the patterns it is a prefix of.
fn env_covered(entry: &str, user: &[String]) -> bool {
    user.iter().any(|u| {
        u == entry
            || match (u.strip_suffix('*'), entry.strip_suffix('*')) {
                (Some(up), Some(ep)) => ep.starts_with(up),
                _ => false,
            }
    })
}

fn joined<T: std::fmt::Display>(items: impl IntoIterator<Item = T>) -> String {
    items
        .into_iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Split a project config into what applies without trust (neutral and tightening
/// settings, and values the person's own configuration `user` already allows) and what
/// loosens Loom beyond `user`.
pub fn split(user: &FileConfig, project: FileConfig) -> (FileConfig, Vec<Loosening>) {
    let FileConfig {
        provider,
        agent:
            AgentKeys {
                approval,
                max_tool_rounds,
                tools,
                auto_commit,
                edit_tool,
                hooks,
            },
        sandbox,
        ui:
            UiKeys {
                theme,
                inline,
                notify,
                notify_command,
            },
        integrations:
            IntegrationKeys {
                web,
                web_search,
                mcp_servers,
                oracle,
                lsp,
                lsp_wait_ms,
                prices,
            },
    } = project;
    let mut loose = Vec::new();
    let provider = split_provider(user, provider, &mut loose);
    let mut kept = FileConfig {
        provider,
        agent: AgentKeys {
            max_tool_rounds,
            edit_tool,
            ..AgentKeys::default()
        },
        ui: UiKeys {
            theme,
            inline,
            notify,
            ..UiKeys::default()
        },
        integrations: IntegrationKeys {
            lsp_wait_ms,
            prices,
            ..IntegrationKeys::default()
        },
        ..FileConfig::default()
    };
    kept.agent.approval = approval.map(|a| split_approval(user, a, &mut loose));
    kept.sandbox = keys::split_sandbox_keys(user, sandbox, &mut loose);
    kept.agent.tools = tools.map(|t| split_tools(user, t, &mut loose));
    kept.agent.auto_commit = split_switch(
        user.agent.auto_commit,
        auto_commit,
        &AUTO_COMMIT,
        &mut loose,
    );
    kept.integrations.mcp_servers = mcp_servers.and_then(|m| split_mcp(user, m, &mut loose));
    kept.agent.hooks = hooks.map(|h| split_hooks(h, &mut loose));
    kept.integrations.web =
        web.map(|w| crate::config::web::split_web(user.integrations.web.as_ref(), w, &mut loose));
    kept.integrations.web_search = web_search.map(|w| {
        crate::config::web::split_search(user.integrations.web_search.as_ref(), w, &mut loose)
    });
    kept.integrations.oracle = oracle.map(|o| split_oracle(user, o, &mut loose));
    kept.ui.notify_command = keys::split_notify_command(user, notify_command, &mut loose);
    kept.integrations.lsp = lsp.and_then(|l| keys::split_lsp(user, l, &mut loose));
    (kept, loose)
}

/// The servers that start nothing new and allow nothing more than `user` does; the others
/// loosen. A table without `command` or `url` changes the person's own server of that name.
fn split_mcp(
    user: &FileConfig,
    servers: BTreeMap<String, McpServerConfig>,
    loose: &mut Vec<Loosening>,
) -> Option<BTreeMap<String, McpServerConfig>> {
    let mine = user.integrations.mcp_servers.clone().unwrap_or_default();
    let mut kept = BTreeMap::new();
    for (name, table) in servers {
        let theirs = McpServerConfig {
            command: table.command.clone(),
            args: table.args.clone(),
            env: table.env.clone(),
            env_vars: table.env_vars.clone(),
            cwd: table.cwd.clone(),
            url: table.url.clone(),
            headers: table.headers.clone(),
            bearer_token_env: table.bearer_token_env.clone(),
            ..McpServerConfig::default()
        };
        let own = mine.get(&name);
        let starts_nothing_new =
            theirs == McpServerConfig::default() || own.is_some_and(|o| o.same_server(&table));
        if !starts_nothing_new {
            let what = match (&table.command, &table.url) {
                (Some(c), _) => {
                    let line: Vec<&str> = std::iter::once(c.as_str())
                        .chain(table.args.iter().flatten().map(String::as_str))
                        .collect();
                    format!("starts the MCP server `{name}`: `{}`", line.join(" "))
                }
                (_, Some(u)) => format!("connects to the MCP server `{name}` at {u}"),
                _ => format!("changes how the MCP server `{name}` is started"),
            };
            loose.push(loosening("mcp_servers", what));
            continue;
        }
        let own_allow = own.and_then(|o| o.allow.clone()).unwrap_or_default();
        let new_allow: Vec<&String> = table
            .allow
            .iter()
            .flatten()
            .filter(|a| !own_allow.contains(a))
            .collect();
        let enables = table.enabled == Some(true) && own.and_then(|o| o.enabled) == Some(false);
        if !new_allow.is_empty() {
            loose.push(loosening(
                "mcp_servers",
                format!(
                    "runs the MCP tools {} of `{name}` without asking",
                    joined(new_allow)
                ),
            ));
        }
        if enables {
            loose.push(loosening(
                "mcp_servers",
                format!("starts the MCP server `{name}` you disabled"),
            ));
        }
        kept.insert(
            name,
            McpServerConfig {
                allow: None,
                enabled: table.enabled.filter(|e| !e),
                ..table
            },
        );
    }
    (!kept.is_empty()).then_some(kept)
}

/// The oracle's server and key loosen when they differ from the person's own.
fn split_oracle(user: &FileConfig, o: OracleConfig, loose: &mut Vec<Loosening>) -> OracleConfig {
    let OracleConfig {
        model,
        base_url,
        api_key_env,
        max_tokens,
        temperature,
    } = o;
    let mine = user.integrations.oracle.clone().unwrap_or_default();
    let mut kept = OracleConfig {
        model,
        max_tokens,
        temperature,
        ..OracleConfig::default()
    };
    match base_url {
        Some(url)
            if Some(&url) != mine.base_url.as_ref()
                && Some(&url) != user.provider.base_url.as_ref() =>
        {
            loose.push(loosening(
                "oracle.base_url",
                format!("sends the oracle's questions and your API key to {url}"),
            ))
        }
        other => kept.base_url = other,
    }
    let user_key = mine
        .api_key_env
        .as_deref()
        .or(user.provider.api_key_env.as_deref())
        .unwrap_or(DEFAULT_API_KEY_ENV);
    match api_key_env {
        Some(name) if name != user_key => loose.push(loosening(
            "oracle.api_key_env",
            format!("sends the value of ${name} to the oracle's server as the API key"),
        )),
        other => kept.api_key_env = other,
    }
    kept
}

/// The provider keys that apply without trust; a server, key variable or header other
/// than the person's own loosens (in that order).
fn split_provider(
    user: &FileConfig,
    provider: ProviderKeys,
    loose: &mut Vec<Loosening>,
) -> ProviderKeys {
    let ProviderKeys {
        base_url,
        model,
        api_key_env,
        temperature,
        max_tokens,
        context_window,
        headers,
        max_retries,
        max_response_bytes,
        max_tool_calls_per_response,
        stream_idle_timeout_secs,
        strict_tools,
    } = provider;
    ProviderKeys {
        base_url: split_base_url(user, base_url, loose),
        api_key_env: split_api_key_env(user, api_key_env, loose),
        headers: headers.and_then(|h| split_headers(user, h, loose)),
        model,
        temperature,
        max_tokens,
        context_window,
        max_retries,
        max_response_bytes,
        max_tool_calls_per_response,
        stream_idle_timeout_secs,
        strict_tools,
    }
}

/// The headers `user` already sends with the same value; the others loosen.
fn split_headers(
    user: &FileConfig,
    headers: BTreeMap<String, String>,
    loose: &mut Vec<Loosening>,
) -> Option<BTreeMap<String, String>> {
    let mine = user.provider.headers.clone().unwrap_or_default();
    let (same, new): (BTreeMap<_, _>, BTreeMap<_, _>) = headers.into_iter().partition(|(k, v)| {
        mine.iter()
            .any(|(mk, mv)| mk.eq_ignore_ascii_case(k) && mv == v)
    });
    for name in new.keys() {
        loose.push(loosening(
            "headers",
            format!("sends the header {name} with every request to the model server"),
        ));
    }
    (!same.is_empty()).then_some(same)
}

fn split_approval(
    user: &FileConfig,
    a: ApprovalConfig,
    loose: &mut Vec<Loosening>,
) -> ApprovalConfig {
    let ApprovalConfig {
        mode,
        max_actions_per_hour,
        rules,
    } = a;
    let user_approval = user.agent.approval.clone().unwrap_or_default();
    let mut kept = ApprovalConfig::default();
    match mode {
        Some(m) if rank(Some(&m)) > rank(user_approval.mode.as_deref()) => loose.push(loosening(
            "approval.mode",
            format!("sets the approval mode to {m}, which asks less"),
        )),
        other => kept.mode = other,
    }
    let user_budget = user_approval
        .max_actions_per_hour
        .unwrap_or(crate::policy::limits::DEFAULT_PER_HOUR);
    match max_actions_per_hour {
        Some(n) if n > user_budget => loose.push(loosening(
            "approval.max_actions_per_hour",
            format!("raises the hourly action budget to {n}"),
        )),
        other => kept.max_actions_per_hour = other,
    }
    if let Some(rules) = rules {
        let (allow, tighten): (Vec<_>, Vec<_>) = rules
            .into_iter()
            .partition(|r| r.action == RuleAction::Allow);
        for r in &allow {
            let what = match (&r.command, &r.path) {
                (Some(c), _) => format!("runs `{c}` commands without asking"),
                (_, Some(p)) => format!("writes {p} without asking"),
                _ => "allows calls without asking".into(),
            };
            loose.push(loosening("approval.rules", what));
        }
        kept.rules = (!tighten.is_empty()).then_some(tighten);
    }
    kept
}

fn split_tools(user: &FileConfig, t: ToolsConfig, loose: &mut Vec<Loosening>) -> ToolsConfig {
    let ToolsConfig {
        output_budget,
        bash_output_budget,
        env,
        forbidden_paths,
    } = t;
    let mut kept = ToolsConfig {
        output_budget,
        bash_output_budget,
        forbidden_paths,
        ..ToolsConfig::default()
    };
    let mine = user
        .agent
        .tools
        .as_ref()
        .and_then(|t| t.env.clone())
        .unwrap_or_default();
    match env {
        Some(names) if names.iter().any(|n| !env_covered(n, &mine)) => {
            let new = names.iter().filter(|n| !env_covered(n, &mine));
            loose.push(loosening(
                "tools.env",
                format!("passes {} to every command", joined(new)),
            ))
        }
        other => kept.env = other,
    }
    kept
}

/// The tests build hooks tables through `use super::*`.
#[cfg(test)]
use crate::config::HooksConfig;

#[cfg(test)]
#[path = "classify_tests.rs"]
mod tests;
