//! Starting a headless session: provider, tool context, transcript and undo journal,
//! composed agent, MCP servers settled. Shared by `loom exec` and the scheduler of
//! `loom cron run`, so a scheduled job runs exactly as `loom exec` would run its prompt.

use std::path::Path;

use crate::agent::{AgentHandle, Runner};
use crate::compose;
use crate::config::Config;
use crate::session::LoadedSession;
use crate::setup::{self, Provider};

use super::{EXIT_FAILURE, SessionInfo};

/// How to start a headless session.
#[derive(Debug, Default)]
pub struct StartOptions {
    /// A saved session to continue.
    pub resumed: Option<LoadedSession>,
    /// The title recorded for the session (default: its first prompt).
    pub title: Option<String>,
    /// Whether the model is offered the tools that change scheduled jobs (not in a
    /// scheduled run: a job cannot schedule more jobs).
    pub no_cron_tools: bool,
}

/// A started headless agent and what `session_started` reports about it.
pub struct Started {
    /// The agent.
    pub agent: AgentHandle,
    /// The session.
    pub info: SessionInfo,
}

/// Why a session could not start: the exit code and the message for stderr.
#[derive(Debug)]
pub struct StartError {
    /// The exit code `loom exec` ends with.
    pub code: u8,
    /// What went wrong, and what to do.
    pub message: String,
}

/// Start a headless session in `workspace` under `config` (its approval mode is the
/// session's; nobody can approve, so what would ask is refused).
pub async fn start(
    config: &Config,
    workspace: &Path,
    options: StartOptions,
) -> Result<Started, StartError> {
    let failure = |message: String| StartError {
        code: EXIT_FAILURE,
        message,
    };
    let resumed = options.resumed;
    let provider = setup::resolve_provider(config).await;
    let session_id = resumed
        .as_ref()
        .map(|s| s.id.clone())
        .unwrap_or_else(crate::base::id::new_session_id);
    let ctx = setup::tool_context(workspace, config, &session_id).map_err(|e| {
        failure(format!(
            "cannot open workspace {}: {e}",
            workspace.display()
        ))
    })?;
    let sandbox = setup::sandbox_for(workspace, config);
    let (model, origin) = match &provider {
        Provider::Ready { settings, origin } => (settings.model.clone(), origin.clone()),
        Provider::Missing { message } => return Err(failure(message.clone())),
    };
    let mut files = setup::session_files_titled(
        workspace,
        &session_id,
        &model,
        resumed.is_some(),
        options.title.as_deref(),
    );
    if options.no_cron_tools {
        files.cron = None;
    }
    let mut notices = files.notices.clone();
    notices.extend(config.project_trust.notice());
    if let Some(r) = &resumed
        && let Some(report) = r.damage_report()
    {
        notices.push(format!("resumed session {}: {report}", r.id));
    }
    if let Some(r) = &resumed {
        files.loaded_tools = r.loaded_tools.clone();
    }
    let conversation = resumed.map(|r| r.conversation).unwrap_or_default();
    let parts = compose::runner_parts(config, &provider, ctx, false, conversation, files);
    // Headless, the first request is the only chance to offer the servers' tools: it
    // waits for them to start (each bounded by its startup timeout).
    if let Some(mcp) = &parts.mcp {
        mcp.settled().await;
    }
    let agent = Runner::spawn(parts);
    notices.extend(sandbox.notice);
    let info = SessionInfo {
        session_id,
        model,
        workspace: workspace.display().to_string(),
        provider: origin,
        sandbox: sandbox.label,
        notice: (!notices.is_empty()).then(|| notices.join("; ")),
    };
    Ok(Started { agent, info })
}
