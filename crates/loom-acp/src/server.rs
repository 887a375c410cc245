//! The ACP agent's request handlers: `initialize`, `session/new`, `session/load`,
//! `session/prompt`, `session/set_mode` and `session/cancel`, each on the sessions this
//! process keeps. Work that waits (starting a session, a turn) runs outside the connection's
//! dispatch loop, so a `session/cancel` or a permission answer is read meanwhile.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    AgentCapabilities, ContentBlock, EmbeddedResourceResource, FileSystemCapabilities,
    Implementation, InitializeRequest, InitializeResponse, LoadSessionRequest, LoadSessionResponse,
    NewSessionRequest, NewSessionResponse, PromptCapabilities, PromptRequest, PromptResponse,
    SessionModeState, SessionNotification, SetSessionModeRequest, SetSessionModeResponse,
};
use agent_client_protocol::{Client, Error};
use loom_core::agent::UserOp;
use loom_core::compose::{Mode, Session, SessionOptions};
use loom_core::config::{self, FlagConfig};
use loom_core::session::{self as store, LoadedSession};
use loom_core::setup::{self, Provider};
use loom_core::tools::editor_files::EditorFiles;

use crate::files::ClientFiles;
use crate::session::{Live, Pump, TurnOutcome};
use crate::{modes, replay};

/// What the server keeps: how to load a workspace's configuration, and the live sessions.
pub struct Server {
    flags: FlagConfig,
    sessions: Mutex<HashMap<String, Arc<Live>>>,
    /// The file access the client announced in `initialize` (none until then).
    client_fs: Mutex<FileSystemCapabilities>,
}

/// A bad request: the JSON-RPC "invalid params" error with what to do next.
fn invalid(message: impl Into<String>) -> Error {
    Error::invalid_params().data(serde_json::Value::String(message.into()))
}

impl Server {
    /// A server whose sessions load their configuration with these command-line flags.
    pub fn new(flags: FlagConfig) -> Server {
        Server {
            flags,
            sessions: Mutex::new(HashMap::new()),
            client_fs: Mutex::new(FileSystemCapabilities::new()),
        }
    }

    /// Remember the file access the client offers in `initialize`, for the sessions it
    /// starts: Loom reads its buffers and shows its writes there only when offered.
    pub fn remember_client(&self, request: &InitializeRequest) {
        *self.client_fs.lock().unwrap_or_else(|e| e.into_inner()) =
            request.client_capabilities.fs.clone();
    }

    /// The answer to `initialize`: protocol v1, sessions that can be loaded, text and
    /// embedded files in prompts.
    pub fn initialize(_request: &InitializeRequest) -> InitializeResponse {
        InitializeResponse::new(ProtocolVersion::V1)
            .agent_capabilities(
                AgentCapabilities::new()
                    .load_session(true)
                    .prompt_capabilities(PromptCapabilities::new().embedded_context(true)),
            )
            .agent_info(Implementation::new("loom", env!("CARGO_PKG_VERSION")))
    }

    fn live(&self, id: &str) -> Result<Arc<Live>, Error> {
        self.sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .cloned()
            .ok_or_else(|| invalid(format!("no session {id}; start one with session/new")))
    }

    /// Start a Loom session in `cwd` (continuing `resumed`) and pump its events to `cx`.
    async fn open(
        &self,
        cwd: &Path,
        resumed: Option<LoadedSession>,
        cx: &ConnectionTo<Client>,
    ) -> Result<(String, SessionModeState), Error> {
        if !cwd.is_absolute() {
            return Err(invalid(format!(
                "cwd {} is not an absolute path",
                cwd.display()
            )));
        }
        let workspace = setup::workspace_root(Some(cwd))
            .map_err(|e| invalid(format!("cannot open workspace {}: {e}", cwd.display())))?;
        let config = config::load(&workspace, &self.flags, &|k| std::env::var(k).ok())
            .map_err(|e| invalid(format!("configuration of {}: {e}", workspace.display())))?;
        let id = resumed
            .as_ref()
            .map_or_else(loom_base::id::new_session_id, |r| r.id.clone());
        let offers = self
            .client_fs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let editor_files =
            ClientFiles::new(cx.clone(), &id, &offers).map(|f| Arc::new(f) as Arc<dyn EditorFiles>);
        let options = SessionOptions {
            resumed,
            session_id: Some(id),
            editor_files,
            ..SessionOptions::new(Mode::Interactive)
        };
        let session = Session::start(&config, &workspace, options, |_| {})
            .await
            .map_err(|e| invalid(e.to_string()))?;
        if let Provider::Missing { message } = &session.provider {
            let _ = session.agent.ops.send(UserOp::Shutdown);
            return Err(invalid(message.clone()));
        }
        let max = config.approval.autonomy;
        let mode = modes::initial(max);
        if mode != config.approval.autonomy {
            let _ = session
                .agent
                .ops
                .send(UserOp::SetAutonomy { autonomy: mode });
        }
        let live = Arc::new(Live::new(
            session.id.clone(),
            workspace,
            session.agent.ops.clone(),
            max,
        ));
        *live.task.lock().unwrap_or_else(|e| e.into_inner()) = Some(session.agent.task);
        self.sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(session.id.clone(), live.clone());
        cx.spawn(Pump::new(live, cx.clone()).run(session.agent.events))?;
        Ok((session.id, modes::state(mode, max)))
    }

    /// `session/new`.
    pub async fn new_session(
        &self,
        request: NewSessionRequest,
        cx: &ConnectionTo<Client>,
    ) -> Result<NewSessionResponse, Error> {
        let (id, modes) = self.open(&request.cwd, None, cx).await?;
        Ok(NewSessionResponse::new(id).modes(modes))
    }

    /// `session/load`: read Loom's saved session, show its conversation, continue it.
    pub async fn load_session(
        &self,
        request: LoadSessionRequest,
        cx: &ConnectionTo<Client>,
    ) -> Result<LoadSessionResponse, Error> {
        let id = request.session_id.0.to_string();
        let dir = store::sessions_dir()
            .ok_or_else(|| invalid("no data directory, so no sessions are recorded"))?;
        let path = store::path_of(&dir, &id)
            .ok_or_else(|| invalid(format!("no session {id:?}; see `loom sessions`")))?;
        let loaded =
            store::load(&path).map_err(|e| invalid(format!("cannot read session {id}: {e}")))?;
        // A session belongs to its workspace: continued elsewhere, another project's
        // conversation (and the files it quoted) would be carried into this one.
        let here = std::fs::canonicalize(&request.cwd).ok();
        let its = std::fs::canonicalize(&loaded.workspace).ok();
        if here.is_none() || here != its {
            return Err(invalid(format!(
                "session {id} belongs to the workspace {}; load it with that folder as cwd",
                loaded.workspace
            )));
        }
        for update in replay::updates(&loaded) {
            cx.send_notification(SessionNotification::new(id.clone(), update))?;
        }
        let (_, modes) = self.open(&request.cwd, Some(loaded), cx).await?;
        Ok(LoadSessionResponse::new().modes(modes))
    }

    /// `session/prompt`: submit the prompt and wait for its turn to end.
    pub async fn prompt(&self, request: PromptRequest) -> Result<PromptResponse, Error> {
        let live = self.live(&request.session_id.0)?;
        let text = prompt_text(&request.prompt);
        if text.trim().is_empty() {
            return Err(invalid("the prompt has no text"));
        }
        let command = live.commands.parse(&text);
        // A built-in ends on its own event; a custom command's prompt on its turn's end
        // (or on the event saying it was not sent).
        let built_in = matches!(command, Some(UserOp::Undo { .. }));
        let done = live
            .begin_turn(built_in)
            .ok_or_else(|| invalid("a turn is running; cancel it or wait for it to end"))?;
        let op = command.unwrap_or(UserOp::Submit {
            text,
            images: Vec::new(),
        });
        live.ops
            .send(op)
            .map_err(|_| Error::internal_error().data("the agent stopped"))?;
        match done.await {
            Ok(TurnOutcome::Stopped(reason)) => Ok(PromptResponse::new(reason)),
            Ok(TurnOutcome::Failed(why)) => Err(Error::internal_error().data(why)),
            Err(_) => Err(Error::internal_error().data("the agent stopped")),
        }
    }

    /// Tell the client of session `id`'s slash commands (after it has the session's id),
    /// and of every later list of them.
    pub fn advertise(&self, cx: &ConnectionTo<Client>, id: &str) -> Result<(), Error> {
        let Ok(live) = self.live(id) else {
            return Ok(());
        };
        live.commands
            .tell(|u| cx.send_notification(SessionNotification::new(id.to_string(), u)))
    }

    /// `session/cancel`: interrupt the running turn (its prompt ends `cancelled`).
    pub fn cancel(&self, session_id: &str) {
        if let Ok(live) = self.live(session_id) {
            let _ = live.ops.send(UserOp::Interrupt);
        }
    }

    /// `session/set_mode`: another approval mode, at most the configuration's.
    pub fn set_mode(
        &self,
        request: &SetSessionModeRequest,
    ) -> Result<SetSessionModeResponse, Error> {
        let live = self.live(&request.session_id.0)?;
        let mode = modes::pick(&request.mode_id.0, live.max_mode).map_err(invalid)?;
        let _ = live.ops.send(UserOp::SetAutonomy { autonomy: mode });
        Ok(SetSessionModeResponse::new())
    }

    /// Stop every session's agent and wait for it, so its files are whole.
    pub async fn shutdown(&self) {
        let all: Vec<Arc<Live>> = self
            .sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain()
            .map(|(_, l)| l)
            .collect();
        for live in all {
            let _ = live.ops.send(UserOp::Shutdown);
            let task = live.task.lock().unwrap_or_else(|e| e.into_inner()).take();
            if let Some(task) = task {
                let _ = task.await;
            }
        }
    }
}

/// The prompt's text: its text blocks, embedded files as fenced blocks named by URI, and
/// linked files as `@path` mentions (other blocks are not offered by `initialize`).
pub fn prompt_text(blocks: &[ContentBlock]) -> String {
    let mut parts = Vec::new();
    for block in blocks {
        match block {
            ContentBlock::Text(t) => parts.push(t.text.clone()),
            ContentBlock::ResourceLink(l) => parts.push(format!("@{}", uri_path(&l.uri))),
            ContentBlock::Resource(r) => {
                if let EmbeddedResourceResource::TextResourceContents(t) = &r.resource {
                    parts.push(format!("{}:\n```\n{}\n```", uri_path(&t.uri), t.text));
                }
            }
            _ => {}
        }
    }
    parts.join("\n")
}

fn uri_path(uri: &str) -> String {
    uri.strip_prefix("file://").map_or_else(
        || uri.to_string(),
        |p| PathBuf::from(p).display().to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_client_protocol::v1::schema::{ResourceLink, TextContent};

    #[test]
    fn a_prompt_keeps_its_text_and_names_linked_files() {
        let blocks = vec![
            ContentBlock::Text(TextContent::new("look at")),
            ContentBlock::ResourceLink(ResourceLink::new("a.rs", "file:///w/a.rs")),
        ];
        assert_eq!(prompt_text(&blocks), "look at\n@/w/a.rs");
    }
}
