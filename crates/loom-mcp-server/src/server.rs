//! The MCP server's handler: the two tools, and the sessions they run. Each `loom` call
//! starts a session through the one composition root every front end uses
//! ([`Session::start`], headless: nobody can answer an approval request, so what would ask
//! is refused and the model reads why), with the call's approval mode and directory; the
//! session stays open for `loom-reply` until the server ends. A `loom-reply` to a session
//! this server no longer holds reopens it from its saved file, when it belongs to the
//! server's workspace.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use loom_core::agent::AgentHandle;
use loom_core::compose::{Mode, Session, SessionOptions};
use loom_core::config::Config;
use loom_core::session::{self, LoadedSession};
use loom_protocol::autonomy::Autonomy;
use loom_protocol::events::UserOp;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{MaybeSendFuture, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::Serialize;
use tokio::sync::Mutex;

use crate::args::{self, LoomArgs, ReplyArgs};
use crate::turn::{self, FileChanges, TurnReport};

/// The tool that starts a session.
pub const LOOM: &str = "loom";
/// The tool that continues one.
pub const LOOM_REPLY: &str = "loom-reply";

/// A session the server holds: its agent, one prompt at a time.
type Held = Arc<Mutex<AgentHandle>>;

/// What the server knows: its configuration (whose approval mode is the ceiling), its
/// workspace, and the sessions it started.
pub struct State {
    config: Config,
    workspace: PathBuf,
    sessions: Mutex<HashMap<String, Held>>,
}

impl State {
    /// The state of a server for `workspace` (canonical) under `config`.
    pub fn new(config: Config, workspace: PathBuf) -> Arc<State> {
        Arc::new(State {
            config,
            workspace,
            sessions: Mutex::new(HashMap::new()),
        })
    }

    /// Stop every session's agent and wait for each to save and end.
    pub async fn shutdown(&self) {
        let held: Vec<Held> = self.sessions.lock().await.drain().map(|(_, h)| h).collect();
        for h in held {
            let mut agent = h.lock().await;
            let _ = agent.ops.send(UserOp::Shutdown);
            let _ = (&mut agent.task).await;
        }
    }

    /// Start a session in `cwd` under `autonomy` (continuing `resumed`, if given).
    async fn start(
        &self,
        cwd: &Path,
        autonomy: Autonomy,
        resumed: Option<LoadedSession>,
    ) -> Result<(String, Held), String> {
        let mut config = self.config.clone();
        config.approval.autonomy = autonomy;
        let options = SessionOptions {
            resumed,
            ..SessionOptions::new(Mode::Headless)
        };
        let started = Session::start(&config, cwd, options, |_| {})
            .await
            .map_err(|e| format!("cannot start a session: {e}"))?;
        Ok((started.id, Arc::new(Mutex::new(started.agent))))
    }

    /// The session `id`: one this server holds, or one saved for a directory inside the
    /// server's workspace, reopened (in supervised mode, or the ceiling when lower).
    /// The map stays locked while a saved one is reopened, so two replies to it at once
    /// reopen it once.
    async fn find(&self, id: &str) -> Result<Held, String> {
        let mut sessions = self.sessions.lock().await;
        if let Some(h) = sessions.get(id) {
            return Ok(h.clone());
        }
        let unknown = || {
            format!(
                "no session {id:?}: give a sessionId a `loom` call returned, or start one with \
                 the `loom` tool"
            )
        };
        let dir = session::sessions_dir().ok_or_else(unknown)?;
        let path = session::path_of(&dir, id).ok_or_else(unknown)?;
        let loaded = session::load(&path).map_err(|_| unknown())?;
        // The directory as it is now, links followed: one that was inside when the session
        // was saved may since have become a link to elsewhere.
        let cwd = args::cwd(Some(&loaded.workspace), &self.workspace).map_err(|e| {
            format!(
                "session {id:?} belongs to {}, outside this server's workspace {} ({e})",
                loaded.workspace,
                self.workspace.display()
            )
        })?;
        let autonomy =
            args::approval(None, self.config.approval.autonomy).map_err(|e| e.to_string())?;
        let (_, held) = self.start(&cwd, autonomy, Some(loaded)).await?;
        sessions.insert(id.to_string(), held.clone());
        Ok(held)
    }

    /// The `loom` tool.
    async fn loom(&self, a: LoomArgs, ctx: &RequestContext<RoleServer>) -> CallToolResult {
        let checked = args::prompt(a.prompt).and_then(|prompt| {
            let cwd = args::cwd(a.cwd.as_deref(), &self.workspace)?;
            let autonomy = args::approval(a.approval, self.config.approval.autonomy)?;
            Ok((prompt, cwd, autonomy))
        });
        let (prompt, cwd, autonomy) = match checked {
            Ok(c) => c,
            Err(e) => return refused(&e.to_string()),
        };
        match self.start(&cwd, autonomy, None).await {
            Ok((id, held)) => {
                self.sessions.lock().await.insert(id.clone(), held.clone());
                let report = turn::run(&mut *held.lock().await, prompt, &ctx.ct).await;
                answered(&id, &report)
            }
            Err(message) => refused(&message),
        }
    }

    /// The `loom-reply` tool.
    async fn reply(&self, a: ReplyArgs, ctx: &RequestContext<RoleServer>) -> CallToolResult {
        let prompt = match args::prompt(a.prompt) {
            Ok(p) => p,
            Err(e) => return refused(&e.to_string()),
        };
        match self.find(&a.session_id).await {
            Ok(held) => {
                let report = turn::run(&mut *held.lock().await, prompt, &ctx.ct).await;
                answered(&a.session_id, &report)
            }
            Err(message) => refused(&message),
        }
    }
}

/// The structured part of both tools' results.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Output {
    /// The session, for `loom-reply`.
    #[serde(rename = "sessionId")]
    pub session_id: String,
    /// The files the prompt's turn changed.
    pub changes: Vec<FileChanges>,
}

/// A turn's result: the answer as text, the session and changes as structured content;
/// an error result when the turn did not end well.
fn answered(id: &str, report: &TurnReport) -> CallToolResult {
    let output = Output {
        session_id: id.to_string(),
        changes: report.changes.clone(),
    };
    let mut result = CallToolResult::success(vec![ContentBlock::text(report.text())]);
    result.structured_content = serde_json::to_value(&output).ok();
    result.is_error = Some(report.failed());
    result
}

/// A call refused before any turn ran, with what to do instead.
fn refused(message: &str) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

/// The tools as `tools/list` shows them.
pub fn tools() -> Vec<Tool> {
    let output = Arc::new(args::schema_of::<Output>());
    vec![
        Tool::new_with_raw(
            LOOM,
            Some(
                "Run a coding task with Loom in a new session: it reads, edits and runs \
                 commands in the workspace under Loom's approval policy and sandbox, and \
                 returns its final answer, the sessionId (for loom-reply) and the files it \
                 changed. Nobody can approve anything: what would ask is refused, and Loom \
                 is told why."
                    .into(),
            ),
            Arc::new(args::schema_of::<LoomArgs>()),
        )
        .with_raw_output_schema(output.clone()),
        Tool::new_with_raw(
            LOOM_REPLY,
            Some(
                "Continue a Loom session with another prompt; it remembers the earlier turns."
                    .into(),
            ),
            Arc::new(args::schema_of::<ReplyArgs>()),
        )
        .with_raw_output_schema(output),
    ]
}

/// The handler rmcp serves.
pub struct Handler {
    /// The server's state (kept also by `serve`, to shut the sessions down).
    pub state: Arc<State>,
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("loom", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Loom is a coding agent. Call `loom` with a task; continue with `loom-reply`.",
            )
    }

    fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListToolsResult, ErrorData>> + MaybeSendFuture + '_ {
        std::future::ready(Ok(ListToolsResult::with_all_items(tools())))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools().into_iter().find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let result = match request.name.as_ref() {
            LOOM => match args::parse::<LoomArgs>(LOOM, request.arguments) {
                Ok(a) => self.state.loom(a, &context).await,
                Err(e) => refused(&e.to_string()),
            },
            LOOM_REPLY => match args::parse::<ReplyArgs>(LOOM_REPLY, request.arguments) {
                Ok(a) => self.state.reply(a, &context).await,
                Err(e) => refused(&e.to_string()),
            },
            other => {
                return Err(ErrorData::invalid_params(
                    format!("unknown tool {other:?}; this server offers `loom` and `loom-reply`"),
                    None,
                ));
            }
        };
        Ok(result.into())
    }
}
