//! Opening one connection to an MCP server: starting its program in its own process group
//! (stdio) or reaching its URL (streamable HTTP), the MCP handshake, and the client side
//! of the protocol (which only listens for `tools/list_changed`).
//!
//! A stdio server is a program the person configured, run like one they start themselves:
//! not in the command sandbox, but with an allowlisted environment (the harmless base
//! variables, the names in `env_vars`, and its `env` table), stdin and stdout for the
//! protocol, and stderr kept as its last lines for the status. It runs in a PID namespace
//! of its own where the system allows one ([`loom_sandbox::isolate::install_for_server`]),
//! so every process it starts ends with it and with Loom, `kill -9` of Loom included; its
//! whole process group (and, without namespaces, every descendant) is killed when the
//! connection ends, and Loom's sweeps after commands leave it alone
//! ([`loom_sandbox::reaper::spawn_kept`]).

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::{MaybeSendFuture, NotificationContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, Peer, RoleClient, ServiceExt};
use tokio::io::AsyncBufReadExt;
use tokio::sync::mpsc;

use crate::config::mcp::{McpServer, McpTransport};
use loom_sandbox::env::EnvPolicy;
use loom_sandbox::reaper;

/// Lines of a server's stderr kept for its status.
pub const STDERR_LINES: usize = 12;
/// The longest stderr line kept, in characters.
const STDERR_LINE_CHARS: usize = 300;
/// Variables every stdio server gets when Loom has them, besides the base allowlist.
const EXTRA_BASE: &[&str] = &["LOGNAME", "TZ"];

/// The last lines a server wrote to stderr.
#[derive(Debug, Default)]
pub struct StderrTail {
    lines: std::collections::VecDeque<String>,
}

impl StderrTail {
    fn push(&mut self, line: &str) {
        let line: String = line.trim_end().chars().take(STDERR_LINE_CHARS).collect();
        if line.is_empty() {
            return;
        }
        if self.lines.len() == STDERR_LINES {
            self.lines.pop_front();
        }
        self.lines.push_back(line);
    }

    /// The lines kept, oldest first.
    pub fn lines(&self) -> Vec<String> {
        self.lines.iter().cloned().collect()
    }
}

/// The client side of the protocol: Loom's name, and a signal when the server's tools
/// change.
pub struct Handler {
    list_changed: mpsc::UnboundedSender<()>,
    /// Counts the notices, so a caller can wait until the refreshes they asked for are done.
    seen: Arc<AtomicU64>,
}

impl ClientHandler for Handler {
    fn on_tool_list_changed(
        &self,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.seen.fetch_add(1, Ordering::SeqCst);
        let _ = self.list_changed.send(());
        std::future::ready(())
    }

    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("loom", env!("CARGO_PKG_VERSION")),
        )
    }
}

/// A server's process group, killed when this is dropped. With namespaces its leader is
/// the namespace's proxy and the server its PID 1: the kernel ends everything else in the
/// namespace with them.
#[derive(Debug)]
pub struct ProcessGroup {
    pid: u32,
}

impl ProcessGroup {
    /// The group's id (its leader's pid).
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// End the group the way the MCP spec asks of a client: its input is already closed,
    /// so give it `patience` to leave on its own (finishing what it read), then SIGTERM it,
    /// give it `grace`, and SIGKILL what is left.
    pub async fn terminate(&self, patience: Duration, grace: Duration) {
        if self.gone_within(patience).await {
            return;
        }
        if killpg(self.group(), Signal::SIGTERM).is_err() || self.gone_within(grace).await {
            return;
        }
        let _ = killpg(self.group(), Signal::SIGKILL);
    }

    fn group(&self) -> Pid {
        Pid::from_raw(self.pid as i32)
    }

    /// Whether every process of the group is gone within `limit`.
    async fn gone_within(&self, limit: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            if killpg(self.group(), None).is_err() {
                return true;
            }
            if tokio::time::Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        reaper::kill_descendants(self.pid as i32);
        let _ = killpg(self.group(), Signal::SIGKILL);
        reaper::release(self.pid);
    }
}

/// An open connection.
pub struct Opened {
    /// The running client (dropping it closes the connection).
    pub service: RunningService<RoleClient, Handler>,
    /// The process group of a stdio server.
    pub group: Option<ProcessGroup>,
    /// The server's process, for whoever waits for it to exit.
    pub child: Option<tokio::process::Child>,
    /// Signals that the server's tools changed.
    pub list_changed: mpsc::UnboundedReceiver<()>,
    /// How many such signals the server sent so far.
    pub list_seen: Arc<AtomicU64>,
}

impl Opened {
    /// The handle requests are sent through.
    pub fn peer(&self) -> Peer<RoleClient> {
        self.service.peer().clone()
    }
}

/// Why a connection could not be opened.
#[derive(Debug)]
pub struct OpenError {
    /// What went wrong, in words.
    pub reason: String,
    /// The process that was started, if one was (so its exit status can be read).
    pub child: Option<tokio::process::Child>,
    /// Its group, killed when this is dropped.
    pub group: Option<ProcessGroup>,
}

fn failed(reason: String) -> OpenError {
    OpenError {
        reason,
        child: None,
        group: None,
    }
}

/// The environment of a stdio server.
fn environment(env: &[(String, String)], env_vars: &[String]) -> Vec<(String, String)> {
    let mut extra: Vec<String> = env_vars.to_vec();
    extra.extend(EXTRA_BASE.iter().map(|s| s.to_string()));
    let mut vars = EnvPolicy { extra }.filter(std::env::vars_os());
    for (k, v) in env {
        vars.retain(|(name, _)| name != k);
        vars.push((k.clone(), v.clone()));
    }
    vars
}

/// Open a connection to `server` and complete the handshake. `stderr` receives the
/// lines a stdio server writes there.
pub async fn open(server: &McpServer, stderr: Arc<Mutex<StderrTail>>) -> Result<Opened, OpenError> {
    let (tx, rx) = mpsc::unbounded_channel();
    let seen = Arc::new(AtomicU64::new(0));
    let handler = Handler {
        list_changed: tx,
        seen: seen.clone(),
    };
    match &server.transport {
        McpTransport::Stdio {
            command,
            args,
            env,
            env_vars,
            cwd,
            private_cwd,
        } => {
            if *private_cwd {
                crate::private::create_dir_all(cwd).map_err(|e| {
                    failed(format!(
                        "cannot create its directory {}: {e}",
                        cwd.display()
                    ))
                })?;
            }
            let mut child =
                spawn_stdio(command, args, environment(env, env_vars), cwd).map_err(failed)?;
            let group = child.id().map(|pid| ProcessGroup { pid });
            if let Some(err) = child.stderr.take() {
                tokio::spawn(keep_stderr(err, stderr));
            }
            let (Some(out), Some(inp)) = (child.stdout.take(), child.stdin.take()) else {
                return Err(OpenError {
                    reason: "its stdin or stdout could not be connected".into(),
                    child: Some(child),
                    group,
                });
            };
            match handler.serve((out, inp)).await {
                Ok(service) => Ok(Opened {
                    service,
                    group,
                    child: Some(child),
                    list_changed: rx,
                    list_seen: seen,
                }),
                Err(e) => Err(OpenError {
                    reason: format!("the MCP handshake failed: {e}"),
                    child: Some(child),
                    group,
                }),
            }
        }
        McpTransport::Http {
            url,
            headers,
            bearer_token_env,
        } => {
            let config = http_config(url, headers, bearer_token_env.as_deref()).map_err(failed)?;
            let transport =
                StreamableHttpClientTransport::with_client(http_client().map_err(failed)?, config);
            match handler.serve(transport).await {
                Ok(service) => Ok(Opened {
                    service,
                    group: None,
                    child: None,
                    list_changed: rx,
                    list_seen: seen,
                }),
                Err(e) => Err(failed(format!(
                    "cannot reach {url}: {}",
                    plain_init_error(&e)
                ))),
            }
        }
    }
}

/// Start a stdio server's process (`vars` its whole environment), in its own process
/// group and under the servers' isolation, with its three streams piped.
fn spawn_stdio(
    command: &str,
    args: &[String],
    vars: Vec<(String, String)>,
    cwd: &std::path::Path,
) -> Result<tokio::process::Child, String> {
    let mut cmd = tokio::process::Command::new(command);
    cmd.args(args)
        .current_dir(cwd)
        .env_clear()
        .envs(vars)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    loom_sandbox::isolate::install_for_server(&mut cmd);
    reaper::spawn_kept(&mut cmd).map_err(|e| {
        let hint = if e.kind() == std::io::ErrorKind::NotFound {
            if cwd.is_dir() {
                " (is it installed and on PATH?)"
            } else {
                " (its working directory does not exist)"
            }
        } else {
            ""
        };
        format!("cannot start `{command}`: {e}{hint}")
    })
}

/// Keep the lines a stdio server writes to stderr in `tail`, until the stream ends.
async fn keep_stderr(err: tokio::process::ChildStderr, tail: Arc<Mutex<StderrTail>>) {
    let mut lines = tokio::io::BufReader::new(err).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if let Ok(mut tail) = tail.lock() {
            tail.push(&line);
        }
    }
}

/// The client an HTTP server is spoken to with. Redirects are not followed: a redirect to
/// another host would carry the session and the configured headers there.
fn http_client() -> Result<reqwest::Client, String> {
    crate::llm::net::builder()
        .redirect(reqwest::redirect::Policy::none())
        .pool_max_idle_per_host(0)
        .build()
        .map_err(|e| format!("cannot build an HTTP client: {e}"))
}

/// The transport settings of an HTTP server: its URL, its headers, and the bearer token
/// read from `bearer_token_env` (which must be set when named).
fn http_config(
    url: &str,
    headers: &[(String, String)],
    bearer_token_env: Option<&str>,
) -> Result<StreamableHttpClientTransportConfig, String> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url);
    if let Some(var) = bearer_token_env {
        match std::env::var(var) {
            Ok(token) if !token.trim().is_empty() => {
                config = config.auth_header(token.trim().to_string())
            }
            _ => {
                return Err(format!("${var} (its bearer_token_env) is not set"));
            }
        }
    }
    let mut custom = HashMap::new();
    for (k, v) in headers {
        let name =
            http::HeaderName::try_from(k.as_str()).map_err(|e| format!("header {k:?}: {e}"))?;
        let value =
            http::HeaderValue::try_from(v.as_str()).map_err(|e| format!("header {k:?}: {e}"))?;
        custom.insert(name, value);
    }
    Ok(config.custom_headers(custom))
}

/// A failed MCP handshake in plain words. The SDK's own text for a transport error
/// names the transport's Rust type (`Transport [rmcp::transport::worker::WorkerTransport<…>]
/// error: …`); this keeps what the transport said and the step it failed at.
pub fn plain_init_error(e: &rmcp::service::ClientInitializeError) -> String {
    match e {
        rmcp::service::ClientInitializeError::TransportError { error, context } => {
            format!("{} (at: {context})", plain_transport_error(error))
        }
        other => other.to_string(),
    }
}

/// What a transport said, without its Rust type; a redirect (which Loom does not follow
/// for an MCP server, as the session and the configured headers would go along) is
/// explained with what to do.
pub fn plain_transport_error(e: &rmcp::transport::DynamicTransportError) -> String {
    let said = e.error.to_string();
    let redirect = said
        .split("HTTP ")
        .nth(1)
        .and_then(|rest| rest.get(..3))
        .filter(|code| code.starts_with('3') && code.chars().all(|c| c.is_ascii_digit()));
    match redirect {
        Some(code) => format!(
            "the server answered with a redirect (HTTP {code}); Loom does not follow redirects \
             for an MCP server (the session and its headers would go along), so set its `url` \
             to the address it redirects to"
        ),
        None => said,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stderr_tail_keeps_the_last_lines_bounded() {
        let mut t = StderrTail::default();
        for i in 0..(STDERR_LINES + 5) {
            t.push(&format!("line {i}\n"));
        }
        t.push("   ");
        t.push(&"x".repeat(1000));
        let lines = t.lines();
        assert_eq!(lines.len(), STDERR_LINES);
        assert_eq!(lines[0], "line 6");
        assert_eq!(lines.last().unwrap().len(), STDERR_LINE_CHARS);
    }

    #[test]
    fn servers_get_the_base_environment_named_variables_and_their_table() {
        // SAFETY: this test's variables are unique to it; no other test reads them.
        unsafe {
            std::env::set_var("LOOM_MCP_TEST_TOKEN", "t0ken");
            std::env::set_var("LOOM_MCP_TEST_OTHER", "x");
        }
        let vars = environment(
            &[("MODE".into(), "fast".into())],
            &["LOOM_MCP_TEST_TOKEN".into()],
        );
        let get = |k: &str| vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        assert_eq!(get("LOOM_MCP_TEST_TOKEN"), Some("t0ken"));
        assert_eq!(
            get("LOOM_MCP_TEST_OTHER"),
            None,
            "only named variables pass"
        );
        assert_eq!(get("MODE"), Some("fast"));
        assert!(get("PATH").is_some());
    }
}
