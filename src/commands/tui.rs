//! Starting the full-screen front end: what needs the core happens here, and `loom-tui`
//! gets plain data and a [`Host`] that does the rest for it — starting the agent with
//! `Session::start` (when nothing holds it back), carrying out the answer to the trust
//! question, reading and listing session files, and the tools' call summaries.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::compose::session::StartError;
use crate::compose::{Mode, Session, SessionOptions};
use crate::config::trust::{self, ProjectTrust};
use crate::config::{Config, FlagConfig};
use crate::protocol::events::{AgentEvent, Phase};
use crate::protocol::image::Image;
use crate::session::LoadedSession;
use crate::setup::{self, Provider};
use crate::tui::app::StatusInfo;
use crate::tui::host::{
    AgentChannels, Host, ListSessions, TrustOutcome, TrustQuestion, TuiOptions,
};
use crate::tui::layers::resume_picker::SessionItem;
use crate::tui::status_info::CardFacts;
use crate::tui::tools_pane::Summarize;

/// What `loom` without a command starts the screen with.
pub struct Start {
    /// The configuration.
    pub config: Config,
    /// The workspace root.
    pub workspace: PathBuf,
    /// A first message to send at once.
    pub prompt: Option<String>,
    /// Images attached to the first message (`--image`).
    pub images: Vec<Image>,
    /// A session to continue.
    pub resume: Option<LoadedSession>,
    /// The flags, to load the configuration again once the project config is trusted.
    pub flags: FlagConfig,
    /// Open with the resume picker (`--resume` without an id).
    pub pick_session: bool,
}

/// Run the full-screen assistant until the person quits.
pub async fn run(start: Start) -> anyhow::Result<ExitCode> {
    let Start {
        config,
        workspace,
        prompt,
        images,
        resume,
        flags,
        pick_session,
    } = start;
    let sandbox = setup::sandbox_for(&workspace, &config);
    let session_id = resume
        .as_ref()
        .map(|s| s.id.clone())
        .unwrap_or_else(crate::base::id::new_session_id);
    let status = StatusInfo {
        model: config
            .provider
            .model
            .clone()
            .unwrap_or_else(|| "connecting…".into()),
        phase: Phase::Idle,
        usage: Default::default(),
        last_prompt: 0,
        context_window: config.provider.context_window,
        autonomy: config.approval.autonomy,
        edits_allowed: false,
        auto_commit: config.tools.auto_commit,
        sandbox: sandbox.label.clone(),
        workspace: short_path(&workspace),
        session_id,
        mcp: Vec::new(),
        lsp: Vec::new(),
        card: CardFacts {
            agents_files: crate::agent::prompt::agents_md(
                &workspace,
                &std::env::current_dir().unwrap_or_else(|_| workspace.clone()),
            )
            .into_iter()
            .map(|f| f.path)
            .collect(),
            sessions_dir: crate::session::sessions_dir(),
            prices: config.integrations.prices.clone(),
        },
    };
    let trust_question = match &config.project_trust {
        ProjectTrust::Untrusted { ignored, file, .. } => Some(TrustQuestion {
            file: file
                .strip_prefix(&workspace)
                .map(|p| p.display().to_string())
                .unwrap_or_else(|_| file.display().to_string()),
            ignored: ignored.clone(),
        }),
        _ => None,
    };
    let opts = TuiOptions {
        theme: (config.ui.theme != crate::config::AUTO_THEME).then(|| config.ui.theme.clone()),
        workspace: workspace.clone(),
        prompt,
        images,
        resume,
        inline: config.ui.inline,
        pick_session,
        status,
        sandbox_notice: sandbox.notice,
        trust_question,
        notify: crate::tui::notify::NotifySettings {
            mode: config.ui.notify.0,
            command: config.ui.notify.1.clone(),
        },
    };
    let host = CoreHost {
        shown: config.project_trust.clone(),
        config,
        workspace,
        flags,
    };
    crate::tui::run::run(opts, Box::new(host)).await
}

/// `path` with the home directory written `~`.
fn short_path(path: &Path) -> String {
    let shown = path.display().to_string();
    match std::env::var("HOME") {
        Ok(home) if !home.is_empty() && shown.starts_with(&home) => {
            format!("~{}", &shown[home.len()..])
        }
        _ => shown,
    }
}

/// The screen's host: the configuration agents start with (the trusted one, once
/// trusted) and what is needed to load it again.
struct CoreHost {
    config: Config,
    workspace: PathBuf,
    flags: FlagConfig,
    /// The project config's trust as it was read at start (what the person was shown).
    shown: ProjectTrust,
}

impl Host for CoreHost {
    fn start(
        &mut self,
        session_id: String,
        resume: Option<LoadedSession>,
        channels: AgentChannels,
    ) {
        spawn_agent(
            self.config.clone(),
            self.workspace.clone(),
            session_id,
            resume,
            channels,
        );
    }

    fn answer_trust(&mut self, trusted: bool) -> TrustOutcome {
        let (config, error) = answer_trust(trusted, &self.shown, &self.workspace, &self.flags);
        if let Some(config) = config {
            self.config = config;
        }
        TrustOutcome {
            error,
            warning: self.config.project_trust.notice(),
            autonomy: self.config.approval.autonomy,
            sandbox: setup::sandbox_for(&self.workspace, &self.config).label,
        }
    }

    fn load_session(&self, id: &str) -> Result<LoadedSession, String> {
        let dir = crate::session::sessions_dir()
            .ok_or("no data directory, so no sessions are recorded")?;
        let path = crate::session::path_of(&dir, id)
            .ok_or_else(|| format!("no session {id:?}; see `loom sessions`"))?;
        crate::session::load(&path).map_err(|e| format!("cannot read session {id}: {e}"))
    }

    fn summarizer(&self) -> Summarize {
        crate::tools::summary::summarize
    }

    fn session_lister(&self) -> ListSessions {
        read_sessions
    }
}

/// Start the agent of session `session_id` (continuing `resume`) under `config`, on the
/// screen's `channels`: the provider it finds (and the server's models) and then its
/// events go to the screen.
fn spawn_agent(
    config: Config,
    workspace: PathBuf,
    session_id: String,
    resume: Option<LoadedSession>,
    channels: AgentChannels,
) {
    let AgentChannels {
        ops,
        events: events_tx,
        provider: provider_tx,
    } = channels;
    tokio::spawn(async move {
        let options = SessionOptions {
            resumed: resume,
            session_id: Some(session_id),
            ops: Some(ops),
            ..SessionOptions::new(Mode::Interactive)
        };
        let on_provider = |provider: &Provider| {
            let (model, missing) = match provider {
                Provider::Ready { settings, .. } => (settings.model.clone(), None),
                Provider::Missing { message } => (String::new(), Some(message.clone())),
            };
            let _ = provider_tx.send((model, missing));
            if let Provider::Ready { settings, .. } = provider {
                // The server's models, for `/model`'s picker and completion.
                let (base, key, tx) = (
                    settings.base_url.clone(),
                    config.provider.api_key.clone(),
                    events_tx.clone(),
                );
                tokio::spawn(async move {
                    let timeout = std::time::Duration::from_secs(10);
                    let result =
                        crate::llm::discover::list_models(&base, key.as_deref(), timeout).await;
                    let _ = tx.send(AgentEvent::Models { result });
                });
            }
        };
        let session = match Session::start(&config, &workspace, options, on_provider).await {
            Ok(session) => session,
            Err(StartError::Workspace { source, .. }) => {
                let _ = events_tx.send(AgentEvent::Error {
                    message: format!("cannot open the workspace: {source}"),
                });
                return;
            }
            Err(e @ StartError::NoModel(_)) => {
                let _ = events_tx.send(AgentEvent::Error {
                    message: e.to_string(),
                });
                return;
            }
        };
        for n in &session.notices {
            let _ = events_tx.send(AgentEvent::Notice { message: n.clone() });
        }
        let mut handle = session.agent;
        while let Some(ev) = handle.events.recv().await {
            if events_tx.send(ev).is_err() {
                break;
            }
        }
    });
}

/// Carry out the person's answer to the trust prompt: when they trust the project
/// config, remember the fingerprint of the file they were shown (`shown`, as it was read at
/// start) and load the configuration again. Should the file have changed since, the new
/// load finds it untrusted and ignores its loosening lines, as it should.
fn answer_trust(
    trusted: bool,
    shown: &ProjectTrust,
    workspace: &Path,
    flags: &FlagConfig,
) -> (Option<Config>, Option<String>) {
    let ProjectTrust::Untrusted { sha256, .. } = shown else {
        return (None, None);
    };
    if !trusted {
        return (None, None);
    }
    let Some(store) = trust::store_path() else {
        return (
            None,
            Some("no data directory, so trust cannot be remembered".into()),
        );
    };
    let set_aside = match trust::trust(&store, workspace, sha256) {
        Ok(update) => update.set_aside.map(|aside| {
            format!(
                "the trust store was damaged; it was moved to {} and a new one started",
                aside.display()
            )
        }),
        Err(e) => return (None, Some(format!("not trusted: {e}"))),
    };
    match crate::config::load(workspace, flags, &|k| std::env::var(k).ok()) {
        Ok(config) => (Some(config), set_aside),
        Err(e) => (None, Some(e.to_string())),
    }
}

/// The most sessions the picker lists.
const MAX_LISTED: usize = 200;

/// The sessions to offer: this workspace's, newest first (every workspace's, each named,
/// when it has none), leaving out `current`.
fn read_sessions(workspace: &Path, current: Option<&str>) -> Vec<SessionItem> {
    let Some(dir) = crate::session::sessions_dir() else {
        return Vec::new();
    };
    let all: Vec<crate::session::SessionSummary> = crate::session::list(&dir)
        .into_iter()
        .filter(|s| Some(s.id.as_str()) != current)
        .collect();
    let ws = workspace.display().to_string();
    let here: Vec<&crate::session::SessionSummary> =
        all.iter().filter(|s| s.workspace == ws).collect();
    let (chosen, name_workspace): (Vec<&crate::session::SessionSummary>, bool) = if here.is_empty()
    {
        (all.iter().collect(), true)
    } else {
        (here, false)
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let data = crate::base::dirs::data_dir();
    chosen
        .into_iter()
        .take(MAX_LISTED)
        .map(|s| SessionItem {
            id: s.id.clone(),
            title: if s.title.is_empty() {
                "(no title)".into()
            } else {
                s.title.clone()
            },
            age: crate::base::time::age(now, s.modified_secs),
            messages: s.messages,
            changes: data
                .as_ref()
                .map(|d| crate::changelog::count_changes(d, &s.id))
                .unwrap_or(0),
            workspace: name_workspace.then(|| s.workspace.clone()),
        })
        .collect()
}
