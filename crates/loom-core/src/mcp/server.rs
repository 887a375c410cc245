//! One configured server through a session: started in the background, its tools listed
//! (and listed again when it says they changed), watched for exit, restarted once on the
//! next call after it stopped, and stopped with its process group at the end.
//!
//! Every state change bumps a shared counter, which the manager turns into a status event;
//! nothing here blocks a caller longer than the server's startup or call timeout.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{ClientRequest, PingRequest};
use rmcp::{Peer, RoleClient};
use tokio::sync::watch;

use super::connect::{self, ProcessGroup, StderrTail};
use super::tool::McpTool;
use crate::config::mcp::{McpServer, McpTransport};
use crate::protocol::mcp::{ServerState, ServerStatus};

/// Restarts allowed per session after a server stopped.
const RESTARTS: u32 = 1;
/// How often, and how long each time, a call whose connection failed looks for its
/// server's exit (half a second in all; an HTTP server has no process and never shows one).
const EXIT_PATIENCE_STEPS: u32 = 20;
const EXIT_PATIENCE_STEP: Duration = Duration::from_millis(25);
/// How long a stopped server may take to leave on its own once its input is closed.
const STOP_PATIENCE: Duration = Duration::from_millis(500);
/// How long a stopping server gets between SIGTERM and SIGKILL.
const STOP_GRACE: Duration = Duration::from_millis(500);

/// The longest a call's result waits for the server's tool list to settle (see
/// [`Slot::settle_list`]).
const SETTLE_LIMIT: Duration = Duration::from_secs(5);
/// The longest a ping after a call's result is waited for.
const PING_LIMIT: Duration = Duration::from_secs(1);

/// A live connection.
struct Connection {
    peer: Peer<RoleClient>,
    service:
        tokio::sync::Mutex<Option<rmcp::service::RunningService<RoleClient, connect::Handler>>>,
    group: Option<ProcessGroup>,
    /// Whether the server said it sends `tools/list_changed`.
    lists_changes: bool,
    /// How many `tools/list_changed` it sent.
    list_seen: Arc<AtomicU64>,
    /// How many of those the tools offered now reflect.
    list_applied: watch::Sender<u64>,
    /// Set when it left a ping unanswered: it is not pinged again.
    deaf_to_ping: AtomicBool,
}

struct State {
    state: ServerState,
    conn: Option<Arc<Connection>>,
    tools: Vec<Arc<McpTool>>,
    notices: Vec<String>,
    restarts_left: u32,
    /// Whether it was ever ready (only then is it restarted).
    was_ready: bool,
    /// Counts connections, so news from an old one is ignored.
    generation: u64,
    /// Set once the session ends: nothing starts again.
    stopped: bool,
    /// The exit of the current connection's process, once it exited.
    exit: Option<String>,
}

/// One server and everything known about it.
pub struct Slot {
    /// Its configuration.
    pub config: McpServer,
    state: Mutex<State>,
    stderr: Arc<Mutex<StderrTail>>,
    connecting: Arc<tokio::sync::Mutex<()>>,
    changed: watch::Sender<u64>,
}

impl Slot {
    /// A slot for `config`, reporting changes on `changed`.
    pub fn new(config: McpServer, changed: watch::Sender<u64>) -> Arc<Slot> {
        let state = if config.enabled {
            ServerState::Starting
        } else {
            ServerState::Disabled
        };
        Arc::new(Slot {
            config,
            state: Mutex::new(State {
                state,
                conn: None,
                tools: Vec::new(),
                notices: Vec::new(),
                restarts_left: RESTARTS,
                was_ready: false,
                generation: 0,
                stopped: false,
                exit: None,
            }),
            stderr: Arc::new(Mutex::new(StderrTail::default())),
            connecting: Arc::new(tokio::sync::Mutex::new(())),
            changed,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn bump(&self) {
        self.changed.send_modify(|n| *n += 1);
    }

    /// Start it in the background (the first start). Calls made meanwhile wait for it.
    pub fn start_in_background(self: &Arc<Slot>) {
        if !self.config.enabled {
            return;
        }
        let Ok(guard) = self.connecting.clone().try_lock_owned() else {
            return;
        };
        let slot = self.clone();
        tokio::spawn(async move {
            slot.connect().await;
            drop(guard);
        });
    }

    /// Wait until no start is under way.
    pub async fn settled(&self) {
        let _guard = self.connecting.lock().await;
    }

    /// Connect (the caller holds `connecting`): handshake and tool list within the startup
    /// timeout, or a failed state saying why.
    async fn connect(self: &Arc<Slot>) {
        let generation = {
            let mut st = self.lock();
            if st.stopped {
                return;
            }
            st.generation += 1;
            st.state = ServerState::Starting;
            st.exit = None;
            st.generation
        };
        self.bump();
        let timeout = self.config.startup_timeout;
        let opened = tokio::time::timeout(timeout, async {
            let mut opened = connect::open(&self.config, self.stderr.clone()).await?;
            if let Some(child) = opened.child.take() {
                self.watch_exit(child, generation);
            }
            let listed = opened.peer().list_all_tools().await;
            Ok::<_, connect::OpenError>((opened, listed))
        })
        .await;
        let failure = match opened {
            Err(_) => Some(format!(
                "it did not start and list its tools within {}s (startup_timeout_secs)",
                timeout.as_secs()
            )),
            Ok(Err(err)) => {
                if let Some(child) = err.child {
                    self.watch_exit(child, generation);
                }
                Some(self.explain(err.reason).await)
            }
            Ok(Ok((opened, Err(e)))) => {
                drop(opened);
                Some(format!("it did not list its tools: {e}"))
            }
            Ok(Ok((opened, Ok(tools)))) => {
                let peer = opened.peer();
                let lists_changes = peer
                    .peer_info()
                    .and_then(|info| info.capabilities.tools.as_ref()?.list_changed)
                    .unwrap_or(false);
                let conn = Arc::new(Connection {
                    peer,
                    service: tokio::sync::Mutex::new(Some(opened.service)),
                    group: opened.group,
                    lists_changes,
                    list_seen: opened.list_seen,
                    list_applied: watch::channel(0).0,
                    deaf_to_ping: AtomicBool::new(false),
                });
                self.install(generation, conn.clone(), tools);
                self.watch_list(opened.list_changed, conn, generation);
                None
            }
        };
        if let Some(reason) = failure {
            let mut st = self.lock();
            if st.generation == generation {
                st.conn = None;
                st.tools.clear();
                st.state = ServerState::Failed {
                    reason,
                    restarts_on_next_call: false,
                };
            }
            drop(st);
            self.bump();
        }
    }

    /// A failure's reason, with how the process ended if it did (it is given a moment).
    async fn explain(&self, reason: String) -> String {
        for _ in 0..10 {
            if let Some(exit) = self.lock().exit.clone() {
                return format!("{exit} before it answered ({reason})");
            }
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
        reason
    }

    fn install(
        self: &Arc<Slot>,
        generation: u64,
        conn: Arc<Connection>,
        tools: Vec<rmcp::model::Tool>,
    ) {
        let (offered, notices) = McpTool::build(Arc::downgrade(self), &self.config, tools);
        let mut st = self.lock();
        if st.generation != generation || st.stopped {
            return;
        }
        st.conn = Some(conn);
        st.tools = offered;
        st.notices = notices;
        st.state = ServerState::Ready;
        st.was_ready = true;
        drop(st);
        self.bump();
    }

    /// Note when the process exits: a ready server becomes failed, to be restarted on the
    /// next call if it has a restart left.
    fn watch_exit(self: &Arc<Slot>, mut child: tokio::process::Child, generation: u64) {
        let weak = Arc::downgrade(self);
        tokio::spawn(async move {
            let status = child.wait().await;
            let Some(slot) = weak.upgrade() else { return };
            let exit = match status {
                Ok(s) => match (s.code(), std::os::unix::process::ExitStatusExt::signal(&s)) {
                    (Some(code), _) => format!("it exited with status {code}"),
                    (_, Some(sig)) => format!("it was killed by signal {sig}"),
                    _ => "it exited".to_string(),
                },
                Err(e) => format!("it could not be waited for ({e})"),
            };
            slot.lost(generation, exit);
        });
    }

    /// The connection of `generation` is gone (`why`).
    fn lost(&self, generation: u64, why: String) {
        let mut st = self.lock();
        if st.generation != generation {
            return;
        }
        st.exit = Some(why.clone());
        if st.stopped || st.state != ServerState::Ready {
            return;
        }
        st.conn = None;
        let restart = st.was_ready && st.restarts_left > 0;
        st.state = ServerState::Failed {
            reason: why,
            restarts_on_next_call: restart,
        };
        drop(st);
        self.bump();
    }

    /// List the tools again whenever the server says they changed.
    fn watch_list(
        self: &Arc<Slot>,
        mut signals: tokio::sync::mpsc::UnboundedReceiver<()>,
        conn: Arc<Connection>,
        generation: u64,
    ) {
        let weak = Arc::downgrade(self);
        let peer = conn.peer.clone();
        let seen = conn.list_seen.clone();
        let applied = conn.list_applied.clone();
        drop(conn);
        tokio::spawn(async move {
            while signals.recv().await.is_some() {
                // Every notice counted so far is answered by this listing.
                let upto = seen.load(Ordering::SeqCst);
                let listed =
                    tokio::time::timeout(Duration::from_secs(30), peer.list_all_tools()).await;
                let Some(slot) = weak.upgrade() else { return };
                match listed {
                    Ok(Ok(tools)) => {
                        let (offered, notices) = McpTool::build(weak.clone(), &slot.config, tools);
                        let mut st = slot.lock();
                        if st.generation != generation || st.state != ServerState::Ready {
                            return;
                        }
                        st.tools = offered;
                        st.notices = notices;
                        drop(st);
                        slot.bump();
                    }
                    Ok(Err(e)) => {
                        slot.note(format!("its changed tool list could not be read: {e}"))
                    }
                    Err(_) => slot.note("its changed tool list did not come within 30s".into()),
                }
                // Done, whether it worked or not: nobody waits for a list that is not coming.
                applied.send_modify(|n| *n = (*n).max(upto));
            }
        });
    }

    fn note(&self, notice: String) {
        self.lock().notices.push(notice);
        self.bump();
    }

    /// The handle to send a call through: the live connection, or — when the server
    /// stopped and has a restart left — a new one. Waits for a start under way.
    pub async fn peer(self: &Arc<Slot>) -> Result<Peer<RoleClient>, String> {
        let _guard = self.connecting.lock().await;
        {
            let mut st = self.lock();
            if let Some(conn) = &st.conn {
                if !conn.peer.is_transport_closed() {
                    return Ok(conn.peer.clone());
                }
                st.conn = None;
                st.state = ServerState::Failed {
                    reason: "its connection closed".into(),
                    restarts_on_next_call: st.restarts_left > 0,
                };
            }
            match &st.state {
                ServerState::Failed {
                    restarts_on_next_call: true,
                    ..
                } if st.restarts_left > 0 && !st.stopped => st.restarts_left -= 1,
                _ => return Err(self.unavailable(&st)),
            }
        }
        self.connect().await;
        let st = self.lock();
        match &st.conn {
            Some(conn) => Ok(conn.peer.clone()),
            None => Err(self.unavailable(&st)),
        }
    }

    /// Wait until the tools offered reflect every `tools/list_changed` the server sent
    /// before now, so the next request offers what a call just added or removed. Servers
    /// commonly send the notice right after the call's result: a ping round trip makes
    /// sure everything written before its answer was read, then the refreshes those
    /// notices started finish. Each wait is bounded; servers that never send the notice
    /// cost nothing.
    pub async fn settle_list(&self) {
        let Some(conn) = self.lock().conn.clone() else {
            return;
        };
        if !conn.lists_changes || conn.deaf_to_ping.load(Ordering::SeqCst) {
            return;
        }
        let ping = ClientRequest::PingRequest(PingRequest {
            method: Default::default(),
            extensions: Default::default(),
        });
        if tokio::time::timeout(PING_LIMIT, conn.peer.send_request(ping))
            .await
            .is_err()
        {
            // The spec asks servers to answer at once; one that does not is not asked
            // again, so it slows one call, not every call.
            conn.deaf_to_ping.store(true, Ordering::SeqCst);
        }
        // The SDK hands each notice to a task of its own: let those run first.
        for _ in 0..4 {
            tokio::task::yield_now().await;
        }
        let want = conn.list_seen.load(Ordering::SeqCst);
        let mut applied = conn.list_applied.subscribe();
        let _ = tokio::time::timeout(SETTLE_LIMIT, applied.wait_for(|n| *n >= want)).await;
    }

    /// The connection failed during a call (`why`): the server is marked failed, to be
    /// restarted on the next call if it has a restart left. Its process is given a moment
    /// to be seen exiting, so the reason says how it ended.
    pub async fn call_failed(&self, why: &str) {
        let generation = self.lock().generation;
        for _ in 0..EXIT_PATIENCE_STEPS {
            let settled = {
                let st = self.lock();
                st.exit.is_some() || st.generation != generation || st.state != ServerState::Ready
            };
            if settled {
                break;
            }
            tokio::time::sleep(EXIT_PATIENCE_STEP).await;
        }
        let exit = self.lock().exit.clone();
        self.lost(
            generation,
            exit.unwrap_or_else(|| format!("its connection failed ({why})")),
        );
    }

    /// Whether the server stopped and the next call starts it again.
    pub fn restart_pending(&self) -> bool {
        let st = self.lock();
        st.restarts_left > 0
            && !st.stopped
            && matches!(
                st.state,
                ServerState::Failed {
                    restarts_on_next_call: true,
                    ..
                }
            )
    }

    /// Why the server cannot be used now, in the words a failed call gives.
    pub fn why_down(&self) -> String {
        let st = self.lock();
        self.unavailable(&st)
    }

    fn unavailable(&self, st: &State) -> String {
        let name = &self.config.name;
        match &st.state {
            ServerState::Failed { reason, .. } => {
                let tail = self.stderr_lines();
                let mut msg = format!("the MCP server `{name}` is not running: {reason}");
                if !tail.is_empty() {
                    msg.push_str(&format!("; its last words: {}", tail.join(" | ")));
                }
                if st.was_ready && st.restarts_left == 0 {
                    msg.push_str("; it was already restarted once this session, so Loom leaves it");
                }
                msg
            }
            ServerState::Disabled => format!("the MCP server `{name}` is disabled"),
            _ => format!("the MCP server `{name}` is not ready"),
        }
    }

    fn stderr_lines(&self) -> Vec<String> {
        self.stderr.lock().map(|t| t.lines()).unwrap_or_default()
    }

    /// The tools to offer now: those of a ready server, or of one that will be restarted
    /// on the next call.
    pub fn tools(&self) -> Vec<Arc<McpTool>> {
        let st = self.lock();
        match &st.state {
            ServerState::Ready
            | ServerState::Failed {
                restarts_on_next_call: true,
                ..
            } => st.tools.clone(),
            _ => Vec::new(),
        }
    }

    /// The tool called `name` among those it offered last, whatever its state now: a
    /// call to a tool of a server that stopped for good is answered with why, not with
    /// "unknown tool".
    pub fn last_tool(&self, name: &str) -> Option<Arc<McpTool>> {
        self.lock()
            .tools
            .iter()
            .find(|t| t.full_name() == name)
            .cloned()
    }

    /// Why `name` (`mcp__THIS__…`) cannot be called while this server is not ready, and
    /// what the person can do; `None` for another server's name or a ready server.
    pub fn down_for(&self, name: &str) -> Option<String> {
        let tool = name.strip_prefix(&format!("mcp__{}__", self.config.name))?;
        let st = self.lock();
        let state = match &st.state {
            ServerState::Ready => return None,
            ServerState::Starting => "is still starting; call it again in a moment".to_string(),
            ServerState::Disabled => {
                "is disabled (enabled = false in its [mcp_servers] table)".to_string()
            }
            ServerState::Failed { .. } => {
                let why = self.unavailable(&st);
                let why = why
                    .strip_prefix(&format!(
                        "the MCP server `{}` is not running: ",
                        self.config.name
                    ))
                    .unwrap_or(&why)
                    .to_string();
                format!("failed: {why}")
            }
        };
        Some(format!(
            "`{tool}` cannot be called: the MCP server `{}` {state}. {}",
            self.config.name,
            super::unavailable::HOW_TO_RETRY
        ))
    }

    /// What a front end shows.
    pub fn status(&self) -> ServerStatus {
        let st = self.lock();
        let transport = match self.config.transport {
            McpTransport::Stdio { .. } => "stdio",
            McpTransport::Http { .. } => "http",
        };
        let tools = match &st.state {
            ServerState::Ready
            | ServerState::Failed {
                restarts_on_next_call: true,
                ..
            } => st.tools.iter().map(|t| t.full_name().to_string()).collect(),
            _ => Vec::new(),
        };
        ServerStatus {
            name: self.config.name.clone(),
            transport: transport.into(),
            target: self.config.target(),
            state: st.state.clone(),
            tools,
            notices: st.notices.clone(),
            stderr: match st.state {
                ServerState::Failed { .. } => self.stderr_lines(),
                _ => Vec::new(),
            },
        }
    }

    /// End the session for this server: close the connection and kill its process group.
    pub async fn stop(&self) {
        let conn = {
            let mut st = self.lock();
            st.stopped = true;
            st.conn.take()
        };
        if let Some(conn) = conn {
            if let Some(mut service) = conn.service.lock().await.take() {
                let _ = service.close_with_timeout(Duration::from_millis(300)).await;
            }
            if let Some(group) = &conn.group {
                group.terminate(STOP_PATIENCE, STOP_GRACE).await;
            }
        }
    }
}
