//! The agent behind the screen: the one about to start (held back while the trust prompt
//! or the resume picker waits), the channels of the one running, and what the person's
//! answers to those two change. The [`Host`] starts agents and carries the answers out.

use super::*;
use crate::host::{AgentChannels, TrustOutcome};

/// Everything the agent needs to start, kept until the trust prompt is answered.
pub(super) struct AgentStart {
    resume: Option<LoadedSession>,
    session_id: String,
    channels: AgentChannels,
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
        session_id: String,
        resume: Option<LoadedSession>,
        ops_rx: mpsc::UnboundedReceiver<UserOp>,
    ) -> (AgentStart, AgentLink) {
        let (events_tx, events) = mpsc::unbounded_channel::<AgentEvent>();
        let (provider_tx, provider) = tokio::sync::oneshot::channel::<(String, Option<String>)>();
        let start = AgentStart {
            resume,
            session_id,
            channels: AgentChannels {
                ops: ops_rx,
                events: events_tx,
                provider: provider_tx,
            },
        };
        let link = AgentLink {
            events,
            provider,
            provider_known: false,
        };
        (start, link)
    }

    /// Have `host` start it.
    pub(super) fn spawn(self, host: &mut dyn Host) {
        host.start(self.session_id, self.resume, self.channels);
    }
}

/// The session the person picked to resume (`choice`; `None`: none, on Esc), read by
/// `host`. Before any agent runs (`--resume`), the agent about to start (`pending`) starts
/// on it; with one running (`/resume`), that one stops and one starts on the picked
/// session, with channels of its own (`link`; the old one's late events go nowhere).
pub(super) fn on_resume_choice(
    app: &mut App,
    choice: Option<String>,
    (pending, link): (&mut Option<AgentStart>, &mut AgentLink),
    host: &dyn Host,
) {
    let loaded = match choice.map(|id| host.load_session(&id)) {
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
            let (start, fresh) = AgentStart::new(loaded.id.clone(), Some(loaded), ops_rx);
            *pending = Some(start);
            *link = fresh;
        }
    }
}

/// The person answered the trust prompt and the host carried the answer out (`outcome`):
/// the screen says what changed.
pub(super) fn on_trust_answer(app: &mut App, outcome: TrustOutcome) {
    if let Some(message) = outcome.error {
        app.transcript
            .push_notice(crate::transcript::NoticeLevel::Error, &message);
    }
    if let Some(n) = outcome.warning {
        app.transcript
            .push_notice(crate::transcript::NoticeLevel::Warning, &n);
    }
    app.status.autonomy = outcome.autonomy;
    app.status.sandbox = outcome.sandbox;
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
    /// What starts agents and reads sessions (the binary, with the core).
    host: Box<dyn Host>,
}

impl Agents {
    /// The agent of the session `session_id` (the one `opts` resumes, if any), reading
    /// `ops_rx`, waiting for what `opts` says it waits for, started by `host`.
    pub(super) fn new(
        opts: TuiOptions,
        host: Box<dyn Host>,
        session_id: String,
        ops_rx: mpsc::UnboundedReceiver<UserOp>,
    ) -> Agents {
        let (start, link) = AgentStart::new(session_id, opts.resume, ops_rx);
        Agents {
            pending: Some(start),
            link,
            trusting: opts.trust_question.is_some(),
            picking: opts.pick_session,
            host,
        }
    }

    /// What the person's last input decided for the agent: the trust prompt answered, a
    /// session picked, and the agent started once nothing holds it back. Returns whether
    /// the screen changed.
    pub(super) fn follow(&mut self, app: &mut App) -> bool {
        let mut dirty = false;
        if let Some(trusted) = app.outbox.trust_answer.take()
            && self.pending.is_some()
        {
            self.trusting = false;
            on_trust_answer(app, self.host.answer_trust(trusted));
            dirty = true;
        }
        if let Some(choice) = app.outbox.resume_choice.take() {
            self.picking = false;
            dirty = true;
            on_resume_choice(
                app,
                choice,
                (&mut self.pending, &mut self.link),
                self.host.as_ref(),
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
            start.spawn(self.host.as_mut());
        }
    }

    /// The resume picker asked for its list: it is read off the UI thread.
    pub(super) fn list_sessions(&self, app: &mut App) {
        if let Some(wanted) = app.outbox.sessions_wanted.take() {
            let list = self.host.session_lister();
            std::thread::spawn(move || {
                let _ = wanted
                    .reply
                    .send(list(&wanted.workspace, wanted.current.as_deref()));
            });
        }
    }
}

#[cfg(test)]
#[path = "agents_tests.rs"]
mod tests;
