//! Starting a session: the one entry every front end starts its agent through (the TUI,
//! `loom exec`, and through it the scheduler of `loom cron run`), so a session is opened
//! the same way whoever shows it: the provider resolved, the workspace's tool context
//! opened, the transcript, undo journal and memory opened (or reopened, for a resumed
//! session), and the top agent built by [`super::runner_parts`] and started.
//!
//! What differs between front ends is said by [`Mode`]; what each tells its person (the
//! file notices, a damaged resumed session, the sandbox) stays with the front end.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::sync::mpsc;

use crate::agent::{AgentHandle, Runner, UserOp};
use crate::config::Config;
use crate::session::LoadedSession;
use crate::setup::{self, Provider};
use crate::tools::editor_files::EditorFiles;

/// Who is at the other end of a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A person who can answer approval requests (the TUI). The session starts without a
    /// model too (the screen says how to connect one), and does not wait for MCP servers.
    Interactive,
    /// Nobody can approve (`loom exec`, a scheduled run): what would ask is refused. A
    /// session needs a model to start, and its first request waits for the MCP servers to
    /// start, as it is the only chance to offer their tools.
    Headless,
}

/// How to start a session.
#[derive(Debug)]
pub struct SessionOptions {
    /// Who is at the other end.
    pub mode: Mode,
    /// A saved session to continue (it keeps its own id).
    pub resumed: Option<LoadedSession>,
    /// The id of a new session (default: a fresh one); a front end that shows the id
    /// before the session starts chose it already.
    pub session_id: Option<String>,
    /// The title recorded for a new session (default: its first prompt).
    pub title: Option<String>,
    /// Whether the model is kept from the tools that change scheduled jobs (a scheduled
    /// run: a job cannot schedule more jobs).
    pub no_cron_tools: bool,
    /// The channel the front end sends ops on, created before the session started (ops
    /// sent meanwhile wait there); `None`: the agent's handle gets a channel of its own.
    pub ops: Option<mpsc::UnboundedReceiver<UserOp>>,
    /// The editor whose open buffers the file tools read and Loom's writes are pushed to
    /// (an ACP client offering file access); `None`: the disk only.
    pub editor_files: Option<Arc<dyn EditorFiles>>,
}

impl SessionOptions {
    /// A new session with nothing special, for a person or for nobody.
    pub fn new(mode: Mode) -> SessionOptions {
        SessionOptions {
            mode,
            resumed: None,
            session_id: None,
            title: None,
            no_cron_tools: false,
            ops: None,
            editor_files: None,
        }
    }
}

/// A started session: its agent and what a front end shows about it.
pub struct Session {
    /// The running agent.
    pub agent: AgentHandle,
    /// The session's id (a resumed session's own).
    pub id: String,
    /// The provider the session talks to, or why there is none (only
    /// [`Mode::Interactive`] starts without one).
    pub provider: Provider,
    /// The model at start (empty without a provider).
    pub model: String,
    /// What opening the session's files had to say (no data directory, no git for undo,
    /// memory off), for the front end to show.
    pub notices: Vec<String>,
}

/// Why a session could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The workspace cannot be confined (it does not exist, or cannot be read).
    #[error("cannot open workspace {}: {source}", path.display())]
    Workspace {
        /// The workspace root.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// [`Mode::Headless`] without a provider; the message says how to connect one.
    #[error("{0}")]
    NoModel(String),
}

impl Session {
    /// Start a session in `workspace` under `config`. `on_provider` is told the provider as
    /// soon as it is resolved (before the workspace is opened), so a front end can show the
    /// model, or say there is none, while the rest starts.
    pub async fn start(
        config: &Config,
        workspace: &Path,
        options: SessionOptions,
        on_provider: impl FnOnce(&Provider),
    ) -> Result<Session, StartError> {
        let SessionOptions {
            mode,
            resumed,
            session_id,
            title,
            no_cron_tools,
            ops,
            editor_files,
        } = options;
        let provider = setup::resolve_provider(config).await;
        on_provider(&provider);
        let id = match (&resumed, session_id) {
            (Some(r), _) => r.id.clone(),
            (None, Some(id)) => id,
            (None, None) => crate::base::id::new_session_id(),
        };
        let mut ctx = setup::tool_context(workspace, config, &id).map_err(|source| {
            StartError::Workspace {
                path: workspace.to_path_buf(),
                source,
            }
        })?;
        ctx.editor_files = editor_files;
        let model = match (&provider, mode) {
            (Provider::Ready { settings, .. }, _) => settings.model.clone(),
            (Provider::Missing { .. }, Mode::Interactive) => String::new(),
            (Provider::Missing { message }, Mode::Headless) => {
                return Err(StartError::NoModel(message.clone()));
            }
        };
        let mut files = setup::session_files_titled(
            workspace,
            &id,
            &model,
            resumed.is_some(),
            title.as_deref(),
        );
        if no_cron_tools {
            files.cron = None;
        }
        if let Some(r) = &resumed {
            files.loaded_tools = r.loaded_tools.clone();
        }
        let mut notices = files.notices.clone();
        let sandbox_active = ctx.sandbox.mode == loom_sandbox::SandboxMode::WorkspaceWrite;
        notices.extend(setup::lsp_in_force(config, sandbox_active).1);
        let conversation = resumed.map(|r| r.conversation).unwrap_or_default();
        let interactive = mode == Mode::Interactive;
        let parts = super::runner_parts(config, &provider, ctx, interactive, conversation, files);
        if mode == Mode::Headless
            && let Some(mcp) = &parts.mcp
        {
            mcp.settled().await;
        }
        let agent = match ops {
            Some(ops) => Runner::spawn_with_ops(parts, ops),
            None => Runner::spawn(parts),
        };
        Ok(Session {
            agent,
            id,
            provider,
            model,
            notices,
        })
    }
}
