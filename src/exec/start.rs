//! Starting a headless session through [`compose::Session::start`] (provider, tool
//! context, transcript and undo journal, composed agent, MCP servers settled), and what
//! `session_started` reports about it. Shared by `loom exec` and the scheduler of `loom
//! cron run`, so a scheduled job runs exactly as `loom exec` would run its prompt.

use std::path::Path;

use crate::agent::AgentHandle;
use crate::compose::{Mode, Session, SessionOptions};
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
    // Told before the session starts: `resumed` moves into it.
    let damage = options
        .resumed
        .as_ref()
        .and_then(|r| Some(format!("resumed session {}: {}", r.id, r.damage_report()?)));
    let session_options = SessionOptions {
        resumed: options.resumed,
        title: options.title,
        no_cron_tools: options.no_cron_tools,
        ..SessionOptions::new(Mode::Headless)
    };
    let session = Session::start(config, workspace, session_options, |_| {})
        .await
        .map_err(|e| StartError {
            code: EXIT_FAILURE,
            message: e.to_string(),
        })?;
    let Session {
        agent,
        id,
        provider,
        model,
        mut notices,
    } = session;
    let origin = match provider {
        Provider::Ready { origin, .. } => origin,
        Provider::Missing { .. } => String::new(),
    };
    let sandbox = setup::sandbox_for(workspace, config);
    notices.extend(config.project_trust.notice());
    notices.extend(damage);
    notices.extend(sandbox.notice);
    let info = SessionInfo {
        session_id: id,
        model,
        workspace: workspace.display().to_string(),
        provider: origin,
        sandbox: sandbox.label,
        notice: (!notices.is_empty()).then(|| notices.join("; ")),
    };
    Ok(Started { agent, info })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The headless start reports each failure with the message `loom exec` printed before
    /// the start was shared with the TUI: a workspace that cannot be opened comes first,
    /// and is named.
    #[tokio::test]
    async fn a_missing_workspace_is_named_in_the_start_error() {
        let dir = tempfile::tempdir().unwrap();
        let gone = dir.path().join("gone");
        let file = dir.path().join("config.toml");
        std::fs::write(&file, "").unwrap();
        let flags = crate::config::FlagConfig {
            base_url: Some("http://127.0.0.1:9/v1".into()),
            model: Some("m".into()),
            config_file: Some(file),
            ..crate::config::FlagConfig::default()
        };
        let config = crate::config::load(dir.path(), &flags, &|_| None).unwrap();
        let Err(e) = start(&config, &gone, StartOptions::default()).await else {
            panic!("a missing workspace started a session");
        };
        assert_eq!(e.code, EXIT_FAILURE);
        assert!(
            e.message
                .starts_with(&format!("cannot open workspace {}: ", gone.display())),
            "{}",
            e.message
        );
    }
}
