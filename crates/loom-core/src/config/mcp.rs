//! The `[mcp_servers.NAME]` tables: which Model Context Protocol servers Loom starts or
//! connects to, and the rules for their tools.
//!
//! A table is parsed strictly like the rest of the config, overlaid field by field across
//! layers (deny lists add up), and resolved once into an [`McpServer`] whose transport is
//! either a program Loom starts (stdio) or a URL it connects to (streamable HTTP). A server
//! name becomes part of tool names (`mcp__NAME__TOOL`), so it is restricted to letters,
//! digits, `-` and `_`, without `__`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

/// How long a server may take to start and list its tools, unless configured.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// How long one tool call may take, unless configured.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(120);

/// One `[mcp_servers.NAME]` table as written; every key optional so layers can overlay.
#[derive(Debug, Default, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct McpServerConfig {
    /// The program to start (stdio transport).
    pub command: Option<String>,
    /// Its arguments.
    pub args: Option<Vec<String>>,
    /// Variables set for it (besides the harmless base ones Loom passes).
    pub env: Option<BTreeMap<String, String>>,
    /// Names of Loom's own environment variables passed to it (e.g. a token it needs).
    pub env_vars: Option<Vec<String>>,
    /// Its working directory (relative paths are relative to the workspace).
    pub cwd: Option<PathBuf>,
    /// The server's URL (streamable HTTP transport).
    pub url: Option<String>,
    /// HTTP headers sent with every request.
    pub headers: Option<BTreeMap<String, String>>,
    /// The environment variable holding a bearer token for `Authorization`.
    pub bearer_token_env: Option<String>,
    /// Seconds the server may take to start and list its tools (default 30).
    pub startup_timeout_secs: Option<u64>,
    /// Seconds one tool call may take (default 120).
    pub call_timeout_secs: Option<u64>,
    /// `false` keeps the server configured but not started.
    pub enabled: Option<bool>,
    /// Tools that run without asking (bare names, `mcp__NAME__TOOL`, or `*`).
    pub allow: Option<Vec<String>>,
    /// Tools that never run (same forms); deny beats allow.
    pub deny: Option<Vec<String>>,
}

impl McpServerConfig {
    /// `other`'s values over this one's; deny lists from both apply.
    pub fn overlay(self, other: McpServerConfig) -> McpServerConfig {
        McpServerConfig {
            command: other.command.or(self.command),
            args: other.args.or(self.args),
            env: other.env.or(self.env),
            env_vars: other.env_vars.or(self.env_vars),
            cwd: other.cwd.or(self.cwd),
            url: other.url.or(self.url),
            headers: other.headers.or(self.headers),
            bearer_token_env: other.bearer_token_env.or(self.bearer_token_env),
            startup_timeout_secs: other.startup_timeout_secs.or(self.startup_timeout_secs),
            call_timeout_secs: other.call_timeout_secs.or(self.call_timeout_secs),
            enabled: other.enabled.or(self.enabled),
            allow: other.allow.or(self.allow),
            deny: match (self.deny, other.deny) {
                (Some(mut a), Some(b)) => {
                    a.extend(b.into_iter().filter(|d| !a.contains(d)).collect::<Vec<_>>());
                    Some(a)
                }
                (a, b) => b.or(a),
            },
        }
    }

    /// Whether this table starts or reaches the same server as `other` (the same
    /// program, arguments, environment and directory, or the same URL and credentials).
    pub fn same_server(&self, other: &McpServerConfig) -> bool {
        self.command == other.command
            && self.args == other.args
            && self.env == other.env
            && self.env_vars == other.env_vars
            && self.cwd == other.cwd
            && self.url == other.url
            && self.headers == other.headers
            && self.bearer_token_env == other.bearer_token_env
    }
}

/// Overlay two layers' server maps, server by server.
pub fn overlay_servers(
    a: Option<BTreeMap<String, McpServerConfig>>,
    b: Option<BTreeMap<String, McpServerConfig>>,
) -> Option<BTreeMap<String, McpServerConfig>> {
    match (a, b) {
        (Some(mut a), Some(b)) => {
            for (name, table) in b {
                let merged = match a.remove(&name) {
                    Some(base) => base.overlay(table),
                    None => table,
                };
                a.insert(name, merged);
            }
            Some(a)
        }
        (a, b) => b.or(a),
    }
}

/// How Loom reaches a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpTransport {
    /// A program Loom starts, speaking JSON-RPC on its stdin and stdout.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables set for it.
        env: Vec<(String, String)>,
        /// Names of Loom's variables passed through.
        env_vars: Vec<String>,
        /// Its working directory (absolute).
        cwd: PathBuf,
        /// Whether `cwd` is the server's own private directory under Loom's data
        /// directory, created when the server starts (see [`Origin`]).
        private_cwd: bool,
    },
    /// A server at a URL, spoken to with MCP's streamable HTTP transport.
    Http {
        /// The endpoint.
        url: String,
        /// Extra headers.
        headers: Vec<(String, String)>,
        /// The variable holding a bearer token.
        bearer_token_env: Option<String>,
    },
}

/// A configured server, resolved and checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServer {
    /// Its name (the middle of its tools' names).
    pub name: String,
    /// How to reach it.
    pub transport: McpTransport,
    /// Time to start and list tools.
    pub startup_timeout: Duration,
    /// Time per tool call.
    pub call_timeout: Duration,
    /// Whether it is started.
    pub enabled: bool,
    /// Tools allowed without asking.
    pub allow: Vec<String>,
    /// Tools refused.
    pub deny: Vec<String>,
}

impl McpServer {
    /// One line saying what the server is: the command line or the URL.
    pub fn target(&self) -> String {
        match &self.transport {
            McpTransport::Stdio { command, args, .. } => std::iter::once(command.as_str())
                .chain(args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
            McpTransport::Http { url, .. } => url.clone(),
        }
    }
}

/// Whether `name` may name a server: letters, digits, `-` and `_`, at most 64 of them,
/// and no `__` (which separates the parts of a tool name).
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && !name.contains("__")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Where a server's program was configured, which decides where it starts.
///
/// A server from the user's own config is a program the person installed: started in the
/// workspace, whatever the repository holds could stand in for it (`python3 -m mod` runs a
/// `mod.py` of the repository first, `node index.js` a repository's `index.js`). So unless
/// its table names a `cwd`, it starts in a private empty directory of its own
/// (`~/.local/share/loom/mcp/NAME`, `0700`), and it gets `PYTHONSAFEPATH=1` (unless its
/// `env` sets it), so Python never imports from its working directory, wherever the server
/// later goes. A server that a trusted project config defines (its `command`) is the
/// repository's own tool: it starts in the workspace, as its relative paths expect, and
/// imports from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The user's config (or `--config FILE`).
    User,
    /// The workspace's trusted `.loom/config.toml` gave the program.
    Project,
}

/// Python's switch that keeps the working directory (and a script's own directory) out of
/// `sys.path`.
const SAFE_PATH: &str = "PYTHONSAFEPATH";

/// The private directory a user-level server starts in, or `/` without a data directory.
fn private_dir(name: &str) -> (PathBuf, bool) {
    match crate::base::dirs::data_dir() {
        Some(data) => (data.join("mcp").join(name), true),
        None => (PathBuf::from("/"), false),
    }
}

/// Resolve one table into a server, or say what is wrong with it. Relative working
/// directories are taken from `workspace`; without one, where the server starts depends
/// on its [`Origin`].
pub fn resolve(
    name: &str,
    table: &McpServerConfig,
    workspace: &Path,
    origin: Origin,
) -> Result<McpServer, String> {
    let at = format!("mcp_servers.{name}");
    if !valid_name(name) {
        return Err(format!(
            "{at}: a server name may hold only letters, digits, `-` and `_` (no `__`, at most \
             64 characters), because it becomes part of tool names"
        ));
    }
    let transport = match (&table.command, &table.url) {
        (Some(command), None) => stdio_transport(&at, name, command, table, workspace, origin)?,
        (None, Some(url)) => http_transport(&at, url, table)?,
        (Some(_), Some(_)) => {
            return Err(format!(
                "{at}: give either `command` (a program Loom starts) or `url` (a server it \
                 connects to), not both"
            ));
        }
        (None, None) => {
            return Err(format!(
                "{at}: give `command` (a program Loom starts) or `url` (a server it connects to)"
            ));
        }
    };
    let secs = |v: Option<u64>, default: Duration| {
        v.map(|s| Duration::from_secs(s.clamp(1, 3600)))
            .unwrap_or(default)
    };
    Ok(McpServer {
        name: name.to_string(),
        transport,
        startup_timeout: secs(table.startup_timeout_secs, DEFAULT_STARTUP_TIMEOUT),
        call_timeout: secs(table.call_timeout_secs, DEFAULT_CALL_TIMEOUT),
        enabled: table.enabled.unwrap_or(true),
        allow: table.allow.clone().unwrap_or_default(),
        deny: table.deny.clone().unwrap_or_default(),
    })
}

/// The transport of a server that runs `command` (the table at `at`, named `name`).
fn stdio_transport(
    at: &str,
    name: &str,
    command: &str,
    table: &McpServerConfig,
    workspace: &Path,
    origin: Origin,
) -> Result<McpTransport, String> {
    if command.trim().is_empty() {
        return Err(format!("{at}: `command` is empty"));
    }
    if table.headers.is_some() || table.bearer_token_env.is_some() {
        return Err(format!(
            "{at}: `headers` and `bearer_token_env` are for servers with a `url`"
        ));
    }
    let (cwd, private_cwd) = match (&table.cwd, origin) {
        (Some(dir), _) if dir.is_absolute() => (dir.clone(), false),
        (Some(dir), _) => (workspace.join(dir), false),
        (None, Origin::Project) => (workspace.to_path_buf(), false),
        (None, Origin::User) => private_dir(name),
    };
    let mut env: Vec<(String, String)> =
        table.env.clone().unwrap_or_default().into_iter().collect();
    if origin == Origin::User && !env.iter().any(|(k, _)| k == SAFE_PATH) {
        env.push((SAFE_PATH.to_string(), "1".to_string()));
    }
    Ok(McpTransport::Stdio {
        command: command.to_string(),
        args: table.args.clone().unwrap_or_default(),
        env,
        env_vars: table.env_vars.clone().unwrap_or_default(),
        cwd,
        private_cwd,
    })
}

/// The transport of a server at `url` (the table at `at`).
fn http_transport(at: &str, url: &str, table: &McpServerConfig) -> Result<McpTransport, String> {
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(format!(
            "{at}: `url` must start with http:// or https:// (got {url:?})"
        ));
    }
    if table.args.is_some()
        || table.env.is_some()
        || table.env_vars.is_some()
        || table.cwd.is_some()
    {
        return Err(format!(
            "{at}: `args`, `env`, `env_vars` and `cwd` are for servers with a `command`"
        ));
    }
    for header in table.headers.iter().flat_map(|h| h.keys()) {
        if http::HeaderName::try_from(header.as_str()).is_err() {
            return Err(format!("{at}: {header:?} is not a valid HTTP header name"));
        }
    }
    Ok(McpTransport::Http {
        url: url.to_string(),
        headers: table
            .headers
            .clone()
            .unwrap_or_default()
            .into_iter()
            .collect(),
        bearer_token_env: table.bearer_token_env.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> McpServerConfig {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn stdio_and_http_servers_resolve() {
        let ws = Path::new("/w");
        let s = resolve(
            "git",
            &table("command = \"uvx\"\nargs = [\"mcp-server-git\"]\ncwd = \"sub\"\nenv = { A = \"1\" }\ncall_timeout_secs = 5"),
            ws,
            Origin::User,
        )
        .unwrap();
        assert_eq!(s.target(), "uvx mcp-server-git");
        assert_eq!(s.call_timeout, Duration::from_secs(5));
        assert_eq!(s.startup_timeout, DEFAULT_STARTUP_TIMEOUT);
        assert!(s.enabled);
        match s.transport {
            McpTransport::Stdio {
                cwd,
                env,
                private_cwd,
                ..
            } => {
                assert_eq!(cwd, Path::new("/w/sub"), "a named cwd is kept");
                assert!(!private_cwd);
                assert_eq!(
                    env,
                    vec![
                        ("A".to_string(), "1".to_string()),
                        ("PYTHONSAFEPATH".to_string(), "1".to_string())
                    ]
                );
            }
            other @ McpTransport::Http { .. } => panic!("{other:?}"),
        }
        let h = resolve(
            "web",
            &table("url = \"http://127.0.0.1:9/mcp\"\nbearer_token_env = \"T\"\nenabled = false"),
            ws,
            Origin::User,
        )
        .unwrap();
        assert!(!h.enabled);
        assert!(matches!(h.transport, McpTransport::Http { .. }));
    }

    /// Issue 23: a user's `python3 -m mod` server started in the workspace, so a
    /// repository's `mod.py` replaced it. Without a `cwd` it starts in its own private
    /// directory with `PYTHONSAFEPATH=1`; a trusted project's server keeps the workspace.
    #[test]
    fn user_servers_start_in_a_private_directory_and_project_servers_in_the_workspace() {
        let ws = Path::new("/w");
        let t = table("command = \"python3\"\nargs = [\"-m\", \"mod\"]");
        let stdio = |origin| match resolve("py", &t, ws, origin).unwrap().transport {
            McpTransport::Stdio {
                cwd,
                env,
                private_cwd,
                ..
            } => (cwd, env, private_cwd),
            other @ McpTransport::Http { .. } => panic!("{other:?}"),
        };
        let (cwd, env, private_cwd) = stdio(Origin::User);
        assert_ne!(cwd, ws);
        if let Some(data) = crate::base::dirs::data_dir() {
            assert_eq!(cwd, data.join("mcp/py"));
            assert!(private_cwd);
        }
        assert!(env.contains(&("PYTHONSAFEPATH".to_string(), "1".to_string())));
        let (cwd, env, private_cwd) = stdio(Origin::Project);
        assert_eq!(cwd, ws);
        assert!(!private_cwd && env.is_empty());
        let opted_out = table("command = \"python3\"\nenv = { PYTHONSAFEPATH = \"\" }");
        match resolve("py", &opted_out, ws, Origin::User)
            .unwrap()
            .transport
        {
            McpTransport::Stdio { env, .. } => {
                assert_eq!(env, vec![("PYTHONSAFEPATH".to_string(), String::new())])
            }
            other @ McpTransport::Http { .. } => panic!("{other:?}"),
        }
    }

    #[test]
    fn bad_tables_say_what_to_do() {
        let ws = Path::new("/w");
        for (name, text, expected) in [
            ("a__b", "command = \"x\"", "no `__`"),
            ("a b", "command = \"x\"", "letters, digits"),
            ("x", "", "give `command`"),
            ("x", "command = \"x\"\nurl = \"http://h\"", "not both"),
            ("x", "url = \"ftp://h\"", "http:// or https://"),
            (
                "x",
                "url = \"http://h\"\nargs = [\"a\"]",
                "for servers with a `command`",
            ),
            (
                "x",
                "command = \"x\"\nheaders = { A = \"b\" }",
                "for servers with a `url`",
            ),
            (
                "x",
                "url = \"http://h\"\nheaders = { \"a b\" = \"c\" }",
                "not a valid HTTP header",
            ),
            ("x", "command = \" \"", "`command` is empty"),
        ] {
            let err = resolve(name, &table(text), ws, Origin::User).unwrap_err();
            assert!(err.contains(expected), "{text}: {err}");
            assert!(err.starts_with(&format!("mcp_servers.{name}")), "{err}");
        }
        assert!(toml::from_str::<McpServerConfig>("comand = \"x\"").is_err());
    }

    #[test]
    fn layers_overlay_field_by_field_and_denies_add_up() {
        let user = BTreeMap::from([(
            "git".to_string(),
            table("command = \"git-mcp\"\ndeny = [\"push\"]\nallow = [\"status\"]"),
        )]);
        let project = BTreeMap::from([
            (
                "git".to_string(),
                table("deny = [\"commit\"]\ncall_timeout_secs = 9"),
            ),
            ("db".to_string(), table("url = \"http://db\"")),
        ]);
        let merged = overlay_servers(Some(user), Some(project)).unwrap();
        let git = &merged["git"];
        assert_eq!(git.command.as_deref(), Some("git-mcp"));
        assert_eq!(git.deny.clone().unwrap(), ["push", "commit"]);
        assert_eq!(git.allow.clone().unwrap(), ["status"]);
        assert_eq!(git.call_timeout_secs, Some(9));
        assert!(merged.contains_key("db"));
    }
}
