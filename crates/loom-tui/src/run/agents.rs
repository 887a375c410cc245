//! The agent behind the screen: the one about to start (held back while the trust prompt
//! or the resume picker waits), the channels of the one running, and what the person's
//! answers to those two change.

use super::*;

/// Everything the agent needs to start, kept until the trust prompt is answered.
pub(super) struct AgentStart {
    config: Config,
    workspace: std::path::PathBuf,
    resume: Option<LoadedSession>,
    session_id: String,
    ops_rx: mpsc::UnboundedReceiver<UserOp>,
    events_tx: mpsc::UnboundedSender<AgentEvent>,
    provider_tx: tokio::sync::oneshot::Sender<(String, Option<String>)>,
}

/// The channels from the agent running (or about to start): its events, and the provider
/// it found.
pub(super) struct AgentLink {
    pub(super) events: mpsc::UnboundedReceiver<AgentEvent>,
    pub(super) provider: tokio::sync::oneshot::Receiver<(String, Option<String>)>,
    /// Whether the provider has been heard of.
    pub(super) provider_known: bool,
}

impl AgentStart {
    /// An agent to start on the session `session_id` (`resume`: a saved one), reading the
    /// ops sent on `ops_rx`, and the channels the screen hears it on.
    pub(super) fn new(
        config: Config,
        workspace: std::path::PathBuf,
        session_id: String,
        resume: Option<LoadedSession>,
        ops_rx: mpsc::UnboundedReceiver<UserOp>,
    ) -> (AgentStart, AgentLink) {
        let (events_tx, events) = mpsc::unbounded_channel::<AgentEvent>();
        let (provider_tx, provider) = tokio::sync::oneshot::channel::<(String, Option<String>)>();
        let start = AgentStart {
            config,
            workspace,
            resume,
            session_id,
            ops_rx,
            events_tx,
            provider_tx,
        };
        let link = AgentLink {
            events,
            provider,
            provider_known: false,
        };
        (start, link)
    }

    pub(super) fn spawn(self) {
        let AgentStart {
            config,
            workspace,
            resume,
            session_id: sid,
            ops_rx,
            events_tx,
            provider_tx,
        } = self;
        tokio::spawn(async move {
            let options = SessionOptions {
                resumed: resume,
                session_id: Some(sid),
                ops: Some(ops_rx),
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
                        config.api_key.clone(),
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
}

/// The session the person picked to resume (`choice`; `None`: none, on Esc). Before any
/// agent runs (`--resume`), the agent about to start (`pending`) starts on it; with one
/// running (`/resume`), that one stops and one starts on the picked session under
/// `config`, with channels of its own (`link`; the old one's late events go nowhere).
pub(super) fn on_resume_choice(
    app: &mut App,
    choice: Option<String>,
    (pending, link): (&mut Option<AgentStart>, &mut AgentLink),
    config: &Config,
    workspace: &std::path::Path,
) {
    let loaded = match choice.map(|id| load_session(&id)) {
        None => return,
        Some(Err(message)) => {
            app.transcript
                .push_notice(crate::transcript::NoticeLevel::Error, &message);
            return;
        }
        Some(Ok(loaded)) => loaded,
    };
    app.start_over(&loaded);
    match pending.as_mut() {
        Some(start) => {
            start.session_id = loaded.id.clone();
            start.resume = Some(loaded);
        }
        None => {
            let _ = app.ops.send(UserOp::Shutdown);
            let (ops_tx, ops_rx) = mpsc::unbounded_channel::<UserOp>();
            app.ops = ops_tx;
            let (start, fresh) = AgentStart::new(
                config.clone(),
                workspace.to_path_buf(),
                loaded.id.clone(),
                Some(loaded),
                ops_rx,
            );
            *pending = Some(start);
            *link = fresh;
        }
    }
}

/// Carry out the person's answer to the trust prompt: when they trust the project
/// config, remember the fingerprint of the file they were shown (`shown`, as it was read at
/// start) and load the configuration again. Should the file have changed since, the new
/// load finds it untrusted and ignores its loosening lines, as it should.
pub(super) fn answer_trust(
    trusted: bool,
    shown: &ProjectTrust,
    workspace: &std::path::Path,
    flags: &crate::config::FlagConfig,
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

/// The person answered the trust prompt: the agent about to start (`start`) gets the
/// configuration that follows, and the screen says what changed.
pub(super) fn on_trust_answer(
    app: &mut App,
    trusted: bool,
    start: &mut AgentStart,
    opts: &TuiOptions,
) {
    let (config, message) = answer_trust(
        trusted,
        &opts.config.project_trust,
        &opts.workspace,
        &opts.flags,
    );
    if let Some(config) = config {
        start.config = config;
    }
    if let Some(message) = message {
        app.transcript
            .push_notice(crate::transcript::NoticeLevel::Error, &message);
    }
    if let Some(n) = start.config.project_trust.notice() {
        app.transcript
            .push_notice(crate::transcript::NoticeLevel::Warning, &n);
    }
    app.status.autonomy = start.config.autonomy;
    app.status.sandbox = setup::sandbox_for(&start.workspace, &start.config).label;
}

/// What the event loop keeps about the agent between wake-ups.
pub(super) struct Agents {
    /// The agent about to start, until nothing holds it back.
    pending: Option<AgentStart>,
    /// The channels from the agent running (or about to start).
    pub(super) link: AgentLink,
    /// The agent waits for the person's answer to the trust prompt.
    trusting: bool,
    /// The agent waits while the person picks a session to resume (`--resume`).
    picking: bool,
    /// The configuration the running agent has (the trusted one, once trusted).
    config: Config,
}

impl Agents {
    /// The agent of the session `session_id` (the one `opts` resumes, if any), reading
    /// `ops_rx`, waiting for what `opts` says it waits for.
    pub(super) fn new(
        opts: &mut TuiOptions,
        session_id: String,
        ops_rx: mpsc::UnboundedReceiver<UserOp>,
    ) -> Agents {
        let (start, link) = AgentStart::new(
            opts.config.clone(),
            opts.workspace.clone(),
            session_id,
            opts.resume.take(),
            ops_rx,
        );
        Agents {
            pending: Some(start),
            link,
            trusting: matches!(opts.config.project_trust, ProjectTrust::Untrusted { .. }),
            picking: opts.pick_session,
            config: opts.config.clone(),
        }
    }

    /// What the person's last input decided for the agent: the trust prompt answered, a
    /// session picked, and the agent started once nothing holds it back. Returns whether
    /// the screen changed.
    pub(super) fn follow(&mut self, app: &mut App, opts: &TuiOptions) -> bool {
        let mut dirty = false;
        if let Some(trusted) = app.outbox.trust_answer.take()
            && let Some(start) = self.pending.as_mut()
        {
            self.trusting = false;
            on_trust_answer(app, trusted, start, opts);
            self.config = start.config.clone();
            dirty = true;
        }
        if let Some(choice) = app.outbox.resume_choice.take() {
            self.picking = false;
            dirty = true;
            on_resume_choice(
                app,
                choice,
                (&mut self.pending, &mut self.link),
                &self.config,
                &opts.workspace,
            );
        }
        self.start_if_free();
        dirty
    }

    /// Start the pending agent unless the trust prompt or the resume picker holds it back.
    pub(super) fn start_if_free(&mut self) {
        if !self.trusting
            && !self.picking
            && let Some(start) = self.pending.take()
        {
            start.spawn();
        }
    }
}
