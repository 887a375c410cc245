//! One ACP session: a Loom session started through `Session::start`, whose agent events are
//! pumped to the client as `session/update` notifications, whose approval requests become
//! `session/request_permission` requests, and whose turn ends answer the pending
//! `session/prompt`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, RequestPermissionRequest, SessionNotification, SessionUpdate,
    StopReason, TextContent, ToolCallContent, ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields,
};
use agent_client_protocol::{Client, Error};
use loom_core::agent::{AgentEvent, UserOp};
use loom_protocol::autonomy::Autonomy;
use loom_protocol::events::ApprovalPreview;
use tokio::sync::{mpsc, oneshot};

use crate::{permission, translate};

/// How a prompt turn ended, for the pending `session/prompt`.
#[derive(Debug)]
pub enum TurnOutcome {
    /// It ended; the stop reason.
    Stopped(StopReason),
    /// It failed; what went wrong.
    Failed(String),
}

/// A running session as the server keeps it.
pub struct Live {
    /// The session id (Loom's, so `session/load` finds it again).
    pub id: String,
    /// The session's workspace root.
    pub workspace: PathBuf,
    /// The agent's op channel.
    pub ops: mpsc::UnboundedSender<UserOp>,
    /// The most autonomy the user's configuration allows.
    pub max_mode: Autonomy,
    /// The pending prompt's answer while a turn runs, and whether the prompt was a slash
    /// command (which ends on its own event, not on a turn's end).
    turn: Mutex<Option<(oneshot::Sender<TurnOutcome>, bool)>>,
    /// The agent's task, awaited at shutdown so the session files are whole.
    pub task: Mutex<Option<tokio::task::JoinHandle<()>>>,
    /// The slash commands the client is told of.
    pub commands: crate::commands::Advertised,
}

impl Live {
    /// A session around a started agent's op channel.
    pub fn new(
        id: String,
        workspace: PathBuf,
        ops: mpsc::UnboundedSender<UserOp>,
        max_mode: Autonomy,
    ) -> Live {
        Live {
            id,
            workspace,
            ops,
            max_mode,
            turn: Mutex::new(None),
            task: Mutex::new(None),
            commands: crate::commands::Advertised::default(),
        }
    }

    /// Start a turn (`command`: a slash command's): `None` when one runs already (ACP runs
    /// one prompt at a time).
    pub fn begin_turn(&self, command: bool) -> Option<oneshot::Receiver<TurnOutcome>> {
        let mut turn = self.turn.lock().unwrap_or_else(|e| e.into_inner());
        if turn.as_ref().is_some_and(|(t, _)| !t.is_closed()) {
            return None;
        }
        let (tx, rx) = oneshot::channel();
        *turn = Some((tx, command));
        Some(rx)
    }

    fn running_command(&self) -> bool {
        let turn = self.turn.lock().unwrap_or_else(|e| e.into_inner());
        turn.as_ref().is_some_and(|(_, command)| *command)
    }

    fn end_turn(&self, outcome: TurnOutcome) {
        let taken = self.turn.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some((tx, _)) = taken {
            let _ = tx.send(outcome);
        }
    }
}

/// Forwards one session's agent events to the client until the agent stops.
pub struct Pump {
    live: Arc<Live>,
    cx: ConnectionTo<Client>,
    /// The diffs shown so far per call (an update replaces a call's content).
    diffs: HashMap<String, Vec<ToolCallContent>>,
    /// Errors reported during the turn.
    errors: Vec<String>,
}

impl Pump {
    /// A pump for `live` on connection `cx`.
    pub fn new(live: Arc<Live>, cx: ConnectionTo<Client>) -> Pump {
        Pump {
            live,
            cx,
            diffs: HashMap::new(),
            errors: Vec::new(),
        }
    }

    /// Forward every event until the agent's channel closes. A client that went away while
    /// the agent was still talking is no failure of the connection: what it would have been
    /// told is dropped (the agent is stopped when the connection ends).
    pub async fn run(
        mut self,
        mut events: mpsc::UnboundedReceiver<AgentEvent>,
    ) -> Result<(), Error> {
        while let Some(event) = events.recv().await {
            if self.on_event(event).is_err() && self.cx.is_incoming_closed() {
                break;
            }
        }
        self.live
            .end_turn(TurnOutcome::Failed("the agent stopped".into()));
        Ok(())
    }

    fn update(&self, update: SessionUpdate) -> Result<(), Error> {
        self.cx
            .send_notification(SessionNotification::new(self.live.id.clone(), update))
    }

    fn chunk(text: String) -> ContentChunk {
        ContentChunk::new(ContentBlock::Text(TextContent::new(text)))
    }

    fn on_event(&mut self, event: AgentEvent) -> Result<(), Error> {
        match event {
            AgentEvent::TextDelta { text } => {
                self.update(SessionUpdate::AgentMessageChunk(Self::chunk(text)))
            }
            AgentEvent::ReasoningDelta { text } => {
                self.update(SessionUpdate::AgentThoughtChunk(Self::chunk(text)))
            }
            e @ (AgentEvent::ToolCall { .. }
            | AgentEvent::ToolStarted { .. }
            | AgentEvent::ChangeApplied { .. }
            | AgentEvent::ToolResult { .. }) => self.on_tool(e),
            AgentEvent::ApprovalRequested {
                id, name, preview, ..
            } => self.ask(Vec::new(), &id, &name, &preview),
            AgentEvent::Error { message } if self.live.running_command() => {
                self.live.end_turn(TurnOutcome::Failed(message));
                Ok(())
            }
            AgentEvent::UndoApplied { files, .. } if self.live.running_command() => {
                let said = format!("Undid Loom's last change to: {}", files.join(", "));
                self.update(SessionUpdate::AgentMessageChunk(Self::chunk(said)))?;
                self.live
                    .end_turn(TurnOutcome::Stopped(StopReason::EndTurn));
                Ok(())
            }
            AgentEvent::Error { message } => {
                self.errors.push(message.clone());
                self.update(SessionUpdate::AgentThoughtChunk(Self::chunk(format!(
                    "\n{message}\n"
                ))))
            }
            AgentEvent::TurnComplete { end, .. } => {
                let errors = std::mem::take(&mut self.errors);
                self.live.end_turn(match translate::stop_reason(&end) {
                    Some(reason) => TurnOutcome::Stopped(reason),
                    None if errors.is_empty() => TurnOutcome::Failed("the turn failed".into()),
                    None => TurnOutcome::Failed(errors.join("; ")),
                });
                Ok(())
            }
            AgentEvent::SubAgent { parent_id, event } => self.sub_agent(vec![parent_id], *event),
            AgentEvent::PlanUpdated { plan } => {
                self.update(SessionUpdate::Plan(translate::plan(&plan)))
            }
            AgentEvent::CustomCommands { commands, .. } => {
                self.live.commands.set(commands, |u| self.update(u))
            }
            AgentEvent::CustomCommandNotSent {
                reason, cancelled, ..
            } => {
                self.errors.clear();
                self.live.end_turn(if cancelled {
                    TurnOutcome::Stopped(StopReason::Cancelled)
                } else {
                    TurnOutcome::Failed(reason)
                });
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// A tool call's life: announced, started, the changes it wrote, its result.
    fn on_tool(&mut self, event: AgentEvent) -> Result<(), Error> {
        let workspace = self.live.workspace.clone();
        let update = match event {
            AgentEvent::ToolCall {
                id,
                name,
                arguments,
                intent,
            } => {
                let call =
                    translate::tool_call(&workspace, &id, &name, &arguments, intent.as_deref());
                SessionUpdate::ToolCall(call)
            }
            AgentEvent::ToolStarted { id } => SessionUpdate::ToolCallUpdate(translate::status(
                &id,
                ToolCallStatus::InProgress,
                None,
            )),
            AgentEvent::ChangeApplied {
                id,
                path,
                hunks,
                creates,
                ..
            } => {
                let shown = self.diffs.entry(id.clone()).or_default();
                shown.push(ToolCallContent::from(translate::diff(
                    &workspace, &path, &hunks, creates,
                )));
                let fields = ToolCallUpdateFields::new().content(shown.clone());
                SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(id, fields))
            }
            AgentEvent::ToolResult { id, result, .. } => {
                let status = if result.success {
                    ToolCallStatus::Completed
                } else {
                    ToolCallStatus::Failed
                };
                let mut content = self.diffs.remove(&id).unwrap_or_default();
                content.push(translate::text(translate::result_text(&result)));
                SessionUpdate::ToolCallUpdate(translate::status(&id, status, Some(content)))
            }
            _ => return Ok(()),
        };
        self.update(update)
    }

    /// A sub-agent's event: only its approval requests reach the client (answered through
    /// the delegate calls that lead to it).
    fn sub_agent(&mut self, mut path: Vec<String>, event: AgentEvent) -> Result<(), Error> {
        match event {
            AgentEvent::SubAgent { parent_id, event } => {
                path.push(parent_id);
                self.sub_agent(path, *event)
            }
            AgentEvent::ApprovalRequested {
                id, name, preview, ..
            } => self.ask(path, &id, &name, &preview),
            _ => Ok(()),
        }
    }

    /// Ask the client about call `id` (of the sub-agent reached through `path`), and give
    /// the agent the answer, without holding up the other events.
    fn ask(
        &self,
        path: Vec<String>,
        id: &str,
        name: &str,
        preview: &ApprovalPreview,
    ) -> Result<(), Error> {
        let options = permission::options(preview);
        let fields = ToolCallUpdateFields::new()
            .title(format!("{name}: approval needed"))
            .content(translate::preview_diffs(&self.live.workspace, preview));
        let fields = if path.is_empty() {
            ToolCallUpdateFields::new().content(fields.content)
        } else {
            fields
        };
        let request = RequestPermissionRequest::new(
            self.live.id.clone(),
            ToolCallUpdate::new(id.to_string(), fields),
            options.clone(),
        );
        let cx = self.cx.clone();
        let ops = self.live.ops.clone();
        let id = id.to_string();
        self.cx.spawn(async move {
            let outcome = cx.send_request(request).block_task().await;
            let answer = match outcome {
                Ok(response) => permission::answer(&response.outcome, &options),
                Err(_) => permission::answer(
                    &agent_client_protocol::v1::schema::RequestPermissionOutcome::Cancelled,
                    &options,
                ),
            };
            let mut op = UserOp::Approve { id, answer };
            for parent_id in path.into_iter().rev() {
                op = UserOp::ToSubAgent {
                    parent_id,
                    inner: Box::new(op),
                };
            }
            let _ = ops.send(op);
            Ok(())
        })
    }
}
