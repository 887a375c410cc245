//! The keys of a config file, grouped along their seams (the model provider, the agent,
//! the sandbox, the interface, the integrations) while the file itself stays flat: every
//! key keeps its name and place, and a typo is still reported at its line and column with
//! the list of every key Loom knows.
//!
//! `#[serde(flatten)]` would group them too, but it buffers the values, which loses the
//! line and column of a wrong value and the list of expected keys (and hides the keys from
//! `deserialize_struct`, which the docs test reads). So [`FileConfig`]'s `Deserialize` is
//! written here: it asks for a struct with every group's keys and hands each value to the
//! group that owns its key, straight from the parser.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::LazyLock;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};

use super::{
    ApprovalConfig, FileConfig, HooksConfig, OracleConfig, ToolsConfig, lsp, mcp, overlay_tables,
    prices, web,
};

/// A struct of optional keys of the config file's top level: the struct, the names of its
/// keys ([`KEYS`](ProviderKeys::KEYS)) and `take`, which reads the value of one of them.
macro_rules! key_group {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $( $(#[$field_meta:meta])* pub $field:ident: Option<$ty:ty>, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Default, Clone, PartialEq)]
        pub struct $name {
            $( $(#[$field_meta])* pub $field: Option<$ty>, )*
        }

        impl $name {
            /// The keys of this group, as written in the file.
            pub const KEYS: &'static [&'static str] = &[$(stringify!($field)),*];

            /// Read the value of `key` from `map` when the key is this group's (`false`:
            /// it is another group's, and nothing was read).
            fn take<'de, A: MapAccess<'de>>(
                &mut self,
                key: &str,
                map: &mut A,
            ) -> Result<bool, A::Error> {
                match key {
                    $(
                        stringify!($field) => {
                            if self.$field.is_some() {
                                return Err(de::Error::duplicate_field(stringify!($field)));
                            }
                            self.$field = map.next_value()?;
                            Ok(true)
                        }
                    )*
                    _ => Ok(false),
                }
            }
        }
    };
}

key_group! {
    /// Which model server and model answer, and how one request and response may go.
    pub struct ProviderKeys {
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
        /// Model request attempts (first included) before giving up.
        pub max_retries: Option<u32>,
        /// Most bytes of text, reasoning and tool-call arguments one model response may
        /// carry (default 4 MiB).
        pub max_response_bytes: Option<u64>,
        /// Most tool calls one model response may carry (default 64).
        pub max_tool_calls_per_response: Option<usize>,
        /// Seconds without a byte from the model server before the attempt fails and is
        /// retried (default 120).
        pub stream_idle_timeout_secs: Option<u64>,
        /// Send tool schemas in OpenAI's strict mode (`strict: true`, every property
        /// required, optional ones nullable, no extra properties), for providers that
        /// support it (default false).
        pub strict_tools: Option<bool>,
    }
}

key_group! {
    /// What the agent may do in a turn and with which tools.
    pub struct AgentKeys {
        /// Approval mode, rules and budget (`[approval]`).
        pub approval: Option<ApprovalConfig>,
        /// Rounds of tool calls per turn before Loom stops the turn.
        pub max_tool_rounds: Option<u32>,
        /// Tool limits and environment.
        pub tools: Option<ToolsConfig>,
        /// Commit the files Loom changed after each batch of tool calls (default false).
        pub auto_commit: Option<bool>,
        /// Which editing tool the model gets: `auto` (apply_patch for models trained on
        /// Codex's patch format, edit_file for the rest), `edit_file`, `apply_patch` or
        /// `both`.
        pub edit_tool: Option<String>,
        /// Post-tools hooks (`[[hooks.post_tools]]`).
        pub hooks: Option<HooksConfig>,
    }
}

key_group! {
    /// How commands are confined.
    pub struct SandboxKeys {
        /// `workspace-write` (default where Landlock works) or `off`.
        pub sandbox: Option<String>,
        /// Extra directories commands may write in the sandbox.
        pub sandbox_writable: Option<Vec<PathBuf>>,
        /// Whether sandboxed commands may open network connections (default false).
        pub network: Option<bool>,
        /// Whether sandboxed commands run as root keep root's capabilities (default false:
        /// root in the sandbox is root of its own user namespace, with no capabilities).
        pub sandbox_keep_capabilities: Option<bool>,
    }
}

key_group! {
    /// The terminal interface.
    pub struct UiKeys {
        /// Theme name.
        pub theme: Option<String>,
        /// Draw at the bottom of the normal screen instead of the alternate screen
        /// (default false).
        pub inline: Option<bool>,
        /// How to notify when the terminal is not focused: `auto`, `osc9`, `bel` or `off`.
        pub notify: Option<crate::protocol::notify::NotifyMode>,
        /// A program (argv) run on each notification, the event as JSON on its stdin.
        pub notify_command: Option<Vec<String>>,
    }
}

key_group! {
    /// The web, MCP servers, the oracle, language servers and prices.
    pub struct IntegrationKeys {
        /// Web tools: what they may reach and how (`[web]`).
        pub web: Option<web::WebConfig>,
        /// The search provider of `web_search` (`[web_search]`).
        pub web_search: Option<web::WebSearchConfig>,
        /// Model Context Protocol servers (`[mcp_servers.NAME]`).
        pub mcp_servers: Option<BTreeMap<String, mcp::McpServerConfig>>,
        /// The second model the `oracle` tool consults (`[oracle]`).
        pub oracle: Option<OracleConfig>,
        /// Language-server diagnostics: `lsp = false`, or `[lsp.NAME]` server tables.
        pub lsp: Option<lsp::LspConfig>,
        /// The most an edit waits for language-server diagnostics, in ms (default 2000).
        pub lsp_wait_ms: Option<u64>,
        /// What each model costs (`[prices."MODEL"]`), for `/status`.
        pub prices: Option<BTreeMap<String, prices::Price>>,
    }
}

/// Every key of the config file's top level, group after group.
static ALL_KEYS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    [
        ProviderKeys::KEYS,
        AgentKeys::KEYS,
        SandboxKeys::KEYS,
        UiKeys::KEYS,
        IntegrationKeys::KEYS,
    ]
    .concat()
});

impl FileConfig {
    /// Every key the config file's top level may have.
    pub fn keys() -> &'static [&'static str] {
        ALL_KEYS.as_slice()
    }
}

impl<'de> Deserialize<'de> for FileConfig {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<FileConfig, D::Error> {
        deserializer.deserialize_struct("FileConfig", FileConfig::keys(), FileVisitor)
    }
}

/// Builds a [`FileConfig`] from the file's top-level table.
struct FileVisitor;

impl<'de> Visitor<'de> for FileVisitor {
    type Value = FileConfig;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("struct FileConfig")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<FileConfig, A::Error> {
        let mut file = FileConfig::default();
        while let Some(key) = map.next_key_seed(KnownKey)? {
            let taken = file.provider.take(key, &mut map)?
                || file.agent.take(key, &mut map)?
                || file.sandbox.take(key, &mut map)?
                || file.ui.take(key, &mut map)?
                || file.integrations.take(key, &mut map)?;
            debug_assert!(taken, "{key} is in ALL_KEYS but in no group");
        }
        Ok(file)
    }
}

/// A top-level key, checked while the parser still knows where it is written (so an
/// unknown one is reported at its line and column, with the keys expected).
struct KnownKey;

impl<'de> DeserializeSeed<'de> for KnownKey {
    type Value = &'static str;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<&'static str, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl Visitor<'_> for KnownKey {
    type Value = &'static str;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a config key")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<&'static str, E> {
        FileConfig::keys()
            .iter()
            .find(|k| **k == name)
            .copied()
            .ok_or_else(|| E::unknown_field(name, FileConfig::keys()))
    }
}

impl ProviderKeys {
    /// `b`'s values over `a`'s; the headers of both, `b`'s winning.
    pub(super) fn overlay(a: ProviderKeys, b: ProviderKeys) -> ProviderKeys {
        ProviderKeys {
            base_url: b.base_url.or(a.base_url),
            model: b.model.or(a.model),
            api_key_env: b.api_key_env.or(a.api_key_env),
            temperature: b.temperature.or(a.temperature),
            max_tokens: b.max_tokens.or(a.max_tokens),
            context_window: b.context_window.or(a.context_window),
            headers: overlay_tables(a.headers, b.headers, |mut x, y| {
                x.extend(y);
                x
            }),
            max_retries: b.max_retries.or(a.max_retries),
            max_response_bytes: b.max_response_bytes.or(a.max_response_bytes),
            max_tool_calls_per_response: b
                .max_tool_calls_per_response
                .or(a.max_tool_calls_per_response),
            stream_idle_timeout_secs: b.stream_idle_timeout_secs.or(a.stream_idle_timeout_secs),
            strict_tools: b.strict_tools.or(a.strict_tools),
        }
    }
}

impl AgentKeys {
    /// `b`'s values over `a`'s, tables merged.
    pub(super) fn overlay(a: AgentKeys, b: AgentKeys) -> AgentKeys {
        AgentKeys {
            approval: overlay_tables(a.approval, b.approval, ApprovalConfig::overlay),
            max_tool_rounds: b.max_tool_rounds.or(a.max_tool_rounds),
            tools: overlay_tables(a.tools, b.tools, ToolsConfig::overlay),
            auto_commit: b.auto_commit.or(a.auto_commit),
            edit_tool: b.edit_tool.or(a.edit_tool),
            hooks: overlay_tables(a.hooks, b.hooks, HooksConfig::overlay),
        }
    }
}

impl SandboxKeys {
    /// `b`'s values over `a`'s.
    pub(super) fn overlay(a: SandboxKeys, b: SandboxKeys) -> SandboxKeys {
        SandboxKeys {
            sandbox: b.sandbox.or(a.sandbox),
            sandbox_writable: b.sandbox_writable.or(a.sandbox_writable),
            network: b.network.or(a.network),
            sandbox_keep_capabilities: b.sandbox_keep_capabilities.or(a.sandbox_keep_capabilities),
        }
    }
}

impl UiKeys {
    /// `b`'s values over `a`'s.
    pub(super) fn overlay(a: UiKeys, b: UiKeys) -> UiKeys {
        UiKeys {
            theme: b.theme.or(a.theme),
            inline: b.inline.or(a.inline),
            notify: b.notify.or(a.notify),
            notify_command: b.notify_command.or(a.notify_command),
        }
    }
}

impl IntegrationKeys {
    /// `b`'s values over `a`'s, tables merged.
    pub(super) fn overlay(a: IntegrationKeys, b: IntegrationKeys) -> IntegrationKeys {
        IntegrationKeys {
            web: web::overlay_opt(a.web, b.web, web::WebConfig::overlay),
            web_search: web::overlay_opt(a.web_search, b.web_search, web::WebSearchConfig::overlay),
            mcp_servers: mcp::overlay_servers(a.mcp_servers, b.mcp_servers),
            oracle: overlay_tables(a.oracle, b.oracle, |a, b| OracleConfig {
                model: b.model.or(a.model),
                base_url: b.base_url.or(a.base_url),
                api_key_env: b.api_key_env.or(a.api_key_env),
                max_tokens: b.max_tokens.or(a.max_tokens),
                temperature: b.temperature.or(a.temperature),
            }),
            lsp: lsp::overlay(a.lsp, b.lsp),
            lsp_wait_ms: b.lsp_wait_ms.or(a.lsp_wait_ms),
            prices: prices::overlay(a.prices, b.prices),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The invariant the hand-written `Deserialize` rests on: every key belongs to exactly
    /// one group, so no value is read twice or dropped.
    #[test]
    fn every_key_belongs_to_exactly_one_group() {
        let mut keys = FileConfig::keys().to_vec();
        let count = keys.len();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), count, "a key is in two groups");
        assert_eq!(count, 33);
    }

    /// Grouping keeps what flatten would lose: a wrong value in any group is reported at
    /// its own line and column, and an unknown key lists the keys of every group.
    #[test]
    fn errors_keep_their_place_and_the_expected_keys() {
        let path = std::path::Path::new("c.toml");
        let err = FileConfig::parse("theme = \"x\"\nlsp_wait_ms = \"soon\"\n", path);
        let msg = err.unwrap_err().to_string();
        assert!(msg.starts_with("c.toml:2:15:"), "{msg}");
        let msg = FileConfig::parse("[oops]\n", path).unwrap_err().to_string();
        assert!(msg.starts_with("c.toml:1:"), "{msg}");
        for key in FileConfig::keys() {
            assert!(
                msg.contains(&format!("`{key}`")),
                "{key} missing from {msg}"
            );
        }
    }

    #[test]
    fn each_key_lands_in_its_group_and_tables_nest() {
        let file = FileConfig::parse(
            "model = \"m\"\nsandbox = \"off\"\ntheme = \"light\"\nlsp_wait_ms = 5\n\
             max_tool_rounds = 3\n[tools]\nenv = [\"A\"]\n",
            std::path::Path::new("c.toml"),
        )
        .unwrap();
        assert_eq!(file.provider.model.as_deref(), Some("m"));
        assert_eq!(file.sandbox.sandbox.as_deref(), Some("off"));
        assert_eq!(file.ui.theme.as_deref(), Some("light"));
        assert_eq!(file.integrations.lsp_wait_ms, Some(5));
        assert_eq!(file.agent.max_tool_rounds, Some(3));
        let env = file.agent.tools.and_then(|t| t.env);
        assert_eq!(env, Some(vec!["A".to_string()]));
    }
}
