//! The seam between the screen and the binary: with a [`Host`] that records what it is
//! asked, the agent starts only once the trust prompt and the resume picker let it, the
//! answer to the trust question reaches the status line, a picked session is read by the
//! host and the agent started on it, and the picker's list is made with the host's lister.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::*;
use crate::host::{AgentChannels, ListSessions, TrustOutcome, TrustQuestion};
use crate::layers::resume_picker::SessionItem;
use crate::protocol::autonomy::Autonomy;
use crate::tools_pane::Summarize;

/// What the fake host was asked: the sessions started (id, resumed id) and the answers.
#[derive(Default)]
struct Asked {
    started: Vec<(String, Option<String>)>,
    answers: Vec<bool>,
}

struct FakeHost(Arc<Mutex<Asked>>);

fn no_summary(_: &str, _: &serde_json::Value) -> String {
    String::new()
}

fn one_session(workspace: &Path, current: Option<&str>) -> Vec<SessionItem> {
    vec![SessionItem {
        id: format!("in {} but {current:?}", workspace.display()),
        title: "t".into(),
        age: "now".into(),
        messages: 1,
        changes: 0,
        workspace: None,
    }]
}

impl Host for FakeHost {
    fn start(&mut self, session_id: String, resume: Option<LoadedSession>, _: AgentChannels) {
        let resumed = resume.map(|s| s.id);
        self.0.lock().unwrap().started.push((session_id, resumed));
    }

    fn answer_trust(&mut self, trusted: bool) -> TrustOutcome {
        self.0.lock().unwrap().answers.push(trusted);
        TrustOutcome {
            error: None,
            warning: Some("still ignored: sandbox".into()),
            autonomy: Autonomy::FullAuto,
            sandbox: "off".into(),
        }
    }

    fn load_session(&self, id: &str) -> Result<LoadedSession, String> {
        match id {
            "gone" => Err("no session \"gone\"".into()),
            _ => Ok(LoadedSession {
                id: id.into(),
                ..LoadedSession::default()
            }),
        }
    }

    fn summarizer(&self) -> Summarize {
        no_summary
    }

    fn session_lister(&self) -> ListSessions {
        one_session
    }
}

/// The agents of a screen started with `trust` and `pick`, the screen and what the host
/// was asked.
fn agents(trust: bool, pick: bool) -> (Agents, App, Arc<Mutex<Asked>>) {
    let (app, _rx) = crate::test_support::app("dark");
    let asked = Arc::new(Mutex::new(Asked::default()));
    let opts = TuiOptions {
        theme: None,
        workspace: PathBuf::from("/w"),
        prompt: None,
        images: Vec::new(),
        resume: None,
        inline: false,
        pick_session: pick,
        status: app.status.clone(),
        sandbox_notice: None,
        trust_question: trust.then(|| TrustQuestion {
            file: ".loom/config.toml".into(),
            ignored: Vec::new(),
        }),
        notify: Default::default(),
    };
    let (_tx, ops_rx) = mpsc::unbounded_channel();
    let host = Box::new(FakeHost(asked.clone()));
    let agents = Agents::new(opts, host, "s-1".into(), ops_rx);
    (agents, app, asked)
}

#[test]
fn the_agent_waits_for_the_trust_answer_which_reaches_the_status_line() {
    let (mut agents, mut app, asked) = agents(true, false);
    agents.start_if_free();
    assert!(asked.lock().unwrap().started.is_empty(), "held back");
    app.outbox.trust_answer = Some(true);
    assert!(agents.follow(&mut app));
    let asked = asked.lock().unwrap();
    assert_eq!(asked.answers, vec![true]);
    assert_eq!(asked.started, vec![("s-1".to_string(), None)]);
    assert_eq!(app.status.autonomy, Autonomy::FullAuto);
    assert_eq!(app.status.sandbox, "off");
}

#[test]
fn without_a_question_the_agent_starts_at_once() {
    let (mut agents, _app, asked) = agents(false, false);
    agents.start_if_free();
    assert_eq!(
        asked.lock().unwrap().started,
        vec![("s-1".to_string(), None)]
    );
}

#[test]
fn a_session_picked_at_start_is_read_by_the_host_and_the_agent_starts_on_it() {
    let (mut agents, mut app, asked) = agents(false, true);
    agents.start_if_free();
    assert!(asked.lock().unwrap().started.is_empty(), "held back");
    app.outbox.resume_choice = Some(Some("old".into()));
    agents.follow(&mut app);
    assert_eq!(
        asked.lock().unwrap().started,
        vec![("old".to_string(), Some("old".to_string()))]
    );
    assert_eq!(app.status.session_id, "old");
}

#[test]
fn a_session_the_host_cannot_read_is_said_and_nothing_restarts() {
    let (mut agents, mut app, asked) = agents(false, false);
    agents.start_if_free();
    app.outbox.resume_choice = Some(Some("gone".into()));
    agents.follow(&mut app);
    assert_eq!(
        asked.lock().unwrap().started.len(),
        1,
        "only the first agent"
    );
    let screen = crate::snapshot_tests::text(&mut app, 100, 20);
    assert!(screen.contains("no session \"gone\""), "{screen}");
}

#[test]
fn the_pickers_list_is_made_with_the_hosts_lister() {
    let (agents, mut app, _asked) = agents(false, false);
    app.draft.workspace_root = Some(PathBuf::from("/w"));
    let (reply, rx) = std::sync::mpsc::channel();
    app.outbox.sessions_wanted = Some(crate::outbox::SessionsWanted {
        workspace: PathBuf::from("/w"),
        current: Some("s-1".into()),
        reply,
    });
    agents.list_sessions(&mut app);
    let list = rx.recv().unwrap();
    assert_eq!(list[0].id, "in /w but Some(\"s-1\")");
    assert!(app.outbox.sessions_wanted.is_none(), "taken");
}
