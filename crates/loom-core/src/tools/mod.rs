//! The tool system: everything Loom does to a repository, it does through a [`Tool`].
//!
//! This module owns the trait, the context a tool runs in, the result the model reads and
//! the registry that dispatches calls. Tools know no agent and no screen; they take typed
//! arguments (parsed from JSON with the same types their schema is derived from), touch the
//! workspace only through [`crate::policy::paths::Confinement`], and return a
//! [`ToolResult`] — a failure is a result the model can act on, never a crash.
//!
//! Write tools split in two: [`Tool::preview`] computes the change (new content and diff)
//! without touching disk, and [`change::apply`] writes exactly that change once it is
//! approved.

pub mod aliases;
pub mod apply_patch;
pub mod args;
pub mod bash;
pub mod browser;
pub mod change;
pub mod cron;
pub mod diagnostics;
pub mod edit_choice;
pub mod edit_file;
pub mod edit_match;
pub mod editor_files;
pub mod fit;
pub mod list_files;
pub mod list_walk;
pub mod load_tools;
pub mod memory;
pub mod offer;
pub mod oracle;
pub mod patch;
pub mod process;
pub mod read_file;
pub mod registry;
pub mod search_files;
pub mod summary;
pub mod typed;
pub mod update_plan;
pub mod web;
pub mod write_file;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;
use thiserror::Error;
use tokio_util::sync::CancellationToken;

use crate::policy::paths::{Confinement, PathError};
use loom_sandbox::SandboxSpec;
use loom_sandbox::env::EnvPolicy;

pub use crate::policy::ToolKind;
pub use crate::policy::{CallIntent, CommandIntent};
pub use change::FileChange;
pub use registry::{ToolRegistry, ToolSource};
pub use typed::{ParsedCall, ToolArgs, TypedTool};

/// Budgets that keep tool output from flooding the model's context.
#[derive(Debug, Clone)]
pub struct ToolLimits {
    /// Largest result the model reads, in bytes of its JSON (output, data and error
    /// together); what is longer is cut in the middle ([`fit`]).
    pub output_budget: usize,
    /// Bytes of each bash stream the model sees (head and tail kept).
    pub bash_stream_budget: usize,
    /// Which environment variables commands receive.
    pub env: EnvPolicy,
}

impl Default for ToolLimits {
    fn default() -> Self {
        ToolLimits {
            output_budget: 128 * 1024,
            bash_stream_budget: 16 * 1024,
            env: EnvPolicy::default(),
        }
    }
}

/// Everything a tool call may know about where it runs.
#[derive(Debug, Clone)]
pub struct ToolContext {
    /// The workspace boundary; `None` when Loom runs outside any project, in which case
    /// file tools return an error.
    pub workspace: Option<Arc<Confinement>>,
    /// The working directory for commands (inside the workspace).
    pub cwd: PathBuf,
    /// The session this call belongs to.
    pub session_id: String,
    /// The id of the call being run (empty outside an agent's turn).
    pub call_id: String,
    /// The turn of the call being run (0 outside a turn): the undo journal groups changes
    /// by it, and a delegate's sub-agent records its changes under it.
    pub turn: u64,
    /// Cancelled when the user interrupts or the call times out.
    pub cancel: CancellationToken,
    /// Output budgets and environment policy.
    pub limits: Arc<ToolLimits>,
    /// How commands are confined by the operating system.
    pub sandbox: SandboxSpec,
    /// The language servers that check each write (`None`: diagnostics are off).
    pub lsp: Option<loom_lsp::Lsp>,
    /// The editor whose buffers file tools read and whose buffers Loom's writes are pushed
    /// to (`None`: the disk only, as in the TUI).
    pub editor_files: Option<Arc<dyn editor_files::EditorFiles>>,
}

impl ToolContext {
    /// A context for a workspace at `root` with default limits and no OS sandbox.
    pub fn for_workspace(root: &std::path::Path) -> std::io::Result<ToolContext> {
        let confinement = Confinement::with_defaults(root)?;
        Ok(ToolContext {
            cwd: confinement.root().to_path_buf(),
            workspace: Some(Arc::new(confinement)),
            session_id: "local".into(),
            call_id: String::new(),
            turn: 0,
            cancel: CancellationToken::new(),
            limits: Arc::new(ToolLimits::default()),
            sandbox: SandboxSpec::off(),
            lsp: None,
            editor_files: None,
        })
    }

    /// The workspace, or the error every file tool returns without one.
    pub fn confinement(&self) -> Result<&Confinement, ToolError> {
        self.workspace
            .as_deref()
            .ok_or(ToolError::Path(PathError::NoWorkspace))
    }

    /// A copy of this context with a fresh child cancellation token.
    pub fn child(&self) -> ToolContext {
        ToolContext {
            cancel: self.cancel.child_token(),
            ..self.clone()
        }
    }
}

/// Why a tool call failed. Every variant's message tells the model what to do next.
#[derive(Debug, Error)]
pub enum ToolError {
    /// The arguments did not match the schema.
    #[error("invalid arguments: {0}")]
    InvalidArguments(String),
    /// Confinement refused the path.
    #[error("{0}")]
    Path(#[from] PathError),
    /// The file does not exist.
    #[error("{0} does not exist; use list_files or search_files to find the right path")]
    NotFound(String),
    /// A directory was given where a file is needed.
    #[error("{0} is a directory, use list_files to see what it contains")]
    IsDirectory(String),
    /// A file was given where a directory is needed.
    #[error("{0} is a file, not a directory; use read_file to read it")]
    NotDirectory(String),
    /// The file is binary.
    #[error("{0} looks like a binary file ({1}); read_file only returns text")]
    Binary(String, String),
    /// An edit could not be applied.
    #[error("{0}")]
    Edit(String),
    /// The file changed between the preview and the write.
    #[error("{0} changed on disk after the change was previewed; read it again and redo the edit")]
    Stale(String),
    /// The operating system refused.
    #[error("{path}: {message}")]
    Io {
        /// The path involved, as the model gave it.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// The call was cancelled by the user.
    #[error("cancelled by the user")]
    Cancelled,
    /// The call took longer than its timeout.
    #[error("timed out after {0:?}")]
    TimedOut(Duration),
    /// A change to several files failed half-way and some could not be put back.
    #[error("{message}")]
    Partial {
        /// What happened and which files stay changed.
        message: String,
        /// Workspace-relative paths that stay changed.
        changed: Vec<String>,
    },
    /// Something else went wrong.
    #[error("{0}")]
    Other(String),
}

impl ToolError {
    /// An I/O error about `path`, with the OS message.
    pub fn io(path: &str, err: &std::io::Error) -> ToolError {
        if err.kind() == std::io::ErrorKind::NotFound {
            return ToolError::NotFound(path.to_string());
        }
        ToolError::Io {
            path: path.to_string(),
            message: err.to_string(),
        }
    }
}

pub use loom_protocol::tool_result::ToolResult;

impl From<ToolError> for ToolResult {
    fn from(err: ToolError) -> Self {
        match err {
            // The files that stay changed are named, so the undo journal keeps them.
            ToolError::Partial { message, changed } => ToolResult::err(message).with_files(changed),
            err => ToolResult::err(err),
        }
    }
}

/// Run blocking filesystem work on the blocking pool; a crash there becomes an error
/// result instead of taking the agent down.
pub async fn blocking<T, F>(tool: &str, f: F) -> Result<T, ToolError>
where
    F: FnOnce() -> Result<T, ToolError> + Send + 'static,
    T: Send + 'static,
{
    tokio::task::spawn_blocking(f)
        .await
        .unwrap_or_else(|e| Err(ToolError::Other(format!("{tool} failed: {e}"))))
}

/// One capability offered to the model, as the registry keeps it.
///
/// Built-in tools implement [`TypedTool`] and get this through its blanket impl: their
/// arguments are parsed once, by [`Tool::parse`], and every later step reads the typed
/// value inside [`ToolArgs`]. A tool whose arguments are free JSON (an MCP server's tool,
/// whose schema is the server's) implements this directly with [`Tool::describe`] and
/// [`Tool::execute`]; the other methods then fall back to those.
#[async_trait]
pub trait Tool: Send + Sync {
    /// The name the model calls it by.
    fn name(&self) -> &str;
    /// What it does and how to use it, written for the model.
    fn description(&self) -> &str;
    /// JSON Schema of the arguments, derived from the argument type.
    fn parameters(&self) -> Value;
    /// What kind of effect it has.
    fn kind(&self) -> ToolKind;
    /// The boundary: the canonical arguments parsed, once, into the tool's own type, and
    /// what the call will touch. Arguments that do not parse are an error, never a call
    /// with unknown facts.
    fn parse(&self, args: Value) -> Result<ParsedCall, ToolError> {
        let intent = self.describe(&args)?;
        Ok(ParsedCall {
            args: ToolArgs::untyped(args),
            intent,
        })
    }
    /// What a call with these arguments will touch ([`Tool::parse`]'s intent): the one
    /// description the policy, the approval prompt, the tool pane and the runner read.
    fn describe(&self, args: &Value) -> Result<CallIntent, ToolError>;
    /// The arguments as they may be shown and recorded (events, transcript, screen):
    /// credentials masked ([`crate::secrets::mask_json`]: fields named like credentials,
    /// form bodies, JSON fields and headers in text). The call itself runs with the
    /// arguments as given.
    fn redact(&self, args: &Value) -> Value {
        crate::secrets::mask_json(args)
    }
    /// How long a call may take before it is cancelled.
    fn default_timeout(&self) -> Duration;
    /// The timeout for a call given as JSON (bash reads it from its arguments).
    fn timeout_for(&self, _args: &Value) -> Duration {
        self.default_timeout()
    }
    /// The timeout for a parsed call.
    fn timeout(&self, args: &ToolArgs) -> Duration {
        self.timeout_for(args.value())
    }
    /// Run a call given as JSON: parsed, then run. Failures are returned as results,
    /// never panics.
    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolResult;
    /// Run a parsed call.
    async fn run(&self, args: &ToolArgs, ctx: &ToolContext) -> ToolResult {
        self.execute(args.value().clone(), ctx).await
    }
    /// For write tools: the change a call given as JSON would make, computed without
    /// touching disk (the first, for a call that changes several files). `None` for tools
    /// that do not write files.
    async fn preview(
        &self,
        args: Value,
        ctx: &ToolContext,
    ) -> Option<Result<FileChange, ToolError>> {
        let changes = match self.parse(args) {
            Ok(call) => self.changes(&call.args, ctx).await?,
            Err(e) => return Some(Err(e)),
        };
        Some(changes.and_then(|c| {
            c.into_iter()
                .next()
                .ok_or_else(|| ToolError::Other("the call changes no file".into()))
        }))
    }
    /// For write tools: every file change a call given as JSON would make, computed
    /// without touching disk.
    async fn preview_all(
        &self,
        args: Value,
        ctx: &ToolContext,
    ) -> Option<Result<Vec<FileChange>, ToolError>> {
        match self.parse(args) {
            Ok(call) => self.changes(&call.args, ctx).await,
            Err(e) => Some(Err(e)),
        }
    }
    /// For write tools: every file change a parsed call would make (a patch changes
    /// several), computed without touching disk. `None` for tools that do not write.
    async fn changes(
        &self,
        _args: &ToolArgs,
        _ctx: &ToolContext,
    ) -> Option<Result<Vec<FileChange>, ToolError>> {
        None
    }
}
