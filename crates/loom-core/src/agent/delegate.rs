//! `delegate`: hand a sub-task to a sub-agent with its own conversation.
//!
//! The sub-agent is built by the composition root ([`SubAgentFactory`], implemented by
//! `compose::AgentFactory`) exactly like the top agent — same provider, tools, policy and
//! workspace — and differs only where [`SubAgentSpec`] says: its tools (read-only by
//! default: `read_file`, `list_files`, `search_files`, and `bash` limited to read-only
//! commands), its autonomy (read-only, unless it is given a write tool; then the parent's
//! current approval mode, so a person approves its writes as usual and headless refuses
//! them), its round budget, and its depth (sub-agents nest at most [`MAX_DEPTH`] levels).
//!
//! The tool drives the sub-agent through the same two channels a front end uses: it submits
//! the task, reads the events, and forwards them to the parent's front ends wrapped in
//! [`AgentEvent::SubAgent`] with the delegate call's id as `parent_id` (the TUI nests them
//! under the delegate row; `loom exec --json` prints them with `parent_id`). Ops for the
//! sub-agent (a person's approval) come back as [`UserOp::ToSubAgent`] and are routed by
//! [`SubAgents`]. Cancelling the call (Esc, or the parent's interrupt) interrupts the
//! sub-agent, which cancels its running command. The sub-agent also stops when it spends
//! its token budget. The result is the sub-agent's last answer plus the files it looked at
//! and changed. The call itself touches nothing, so to the policy it is a read and several
//! delegate calls of one response run at once; every call the sub-agent makes passes the
//! policy on its own.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tokio::sync::mpsc;

use super::events::{AgentEvent, TurnEnd, UserOp};
use super::runner::{Runner, RunnerParts};
use super::sub_agents::SubAgents;
use crate::llm::Usage;
use crate::policy::Autonomy;
use crate::protocol::tool_data::DelegateData;
use crate::tools::{
    CallIntent, Tool, ToolContext, ToolError, ToolKind, ToolRegistry, ToolResult, args,
};

/// How deep sub-agents nest: the top agent's sub-agents are at depth 1, theirs at depth 2,
/// and those cannot delegate further.
pub const MAX_DEPTH: u8 = 2;
/// Tool rounds a sub-agent gets when the call names none.
pub const DEFAULT_ROUNDS: u32 = 10;
/// Most tool rounds a sub-agent may be given.
pub const MAX_ROUNDS: u32 = 30;
/// Tokens (prompt plus answer, over all its requests) a sub-agent may spend before it is
/// stopped.
pub const TOKEN_BUDGET: u64 = 400_000;
/// The tools a sub-agent gets when the call names none.
pub const DEFAULT_TOOLS: [&str; 4] = ["read_file", "list_files", "search_files", "bash"];
/// How long a cancelled sub-agent is given to stop its tools before it is abandoned.
const STOP_GRACE: Duration = Duration::from_secs(10);

/// What kind of sub-agent to build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubAgentSpec {
    /// Its depth (1 for the top agent's sub-agents).
    pub depth: u8,
    /// The tools it is given (`None`: [`DEFAULT_TOOLS`]).
    pub tools: Option<Vec<String>>,
    /// Its tool-round budget.
    pub max_rounds: u32,
    /// The parent's approval mode when the call was made: the most the sub-agent may get.
    pub parent_autonomy: Autonomy,
    /// How approval requests and notices name it (`sub-agent of call_1`).
    pub label: String,
    /// The parent's turn: the sub-agent's changes are recorded under it, so undoing that
    /// turn takes them back with the parent's.
    pub turn: u64,
    /// The parent's call that started it, for its transcript's name.
    pub call: String,
    /// Its task, for its transcript's title.
    pub task: String,
}

/// Builds sub-agents; the composition root implements it.
pub trait SubAgentFactory: Send + Sync {
    /// The parts of a sub-agent, or why it cannot be built (an unknown tool, the depth).
    fn sub_agent(self: Arc<Self>, spec: SubAgentSpec) -> Result<RunnerParts, String>;
}

/// The tools of a sub-agent, taken from `all` (what an agent at its depth could have), and
/// the autonomy it runs with.
pub fn sub_registry(
    all: &ToolRegistry,
    spec: &SubAgentSpec,
) -> Result<(ToolRegistry, Autonomy), String> {
    let names: Vec<String> = match &spec.tools {
        Some(list) if list.is_empty() => {
            return Err("tools is empty; leave it out for the read-only default".into());
        }
        Some(list) => list.clone(),
        None => DEFAULT_TOOLS.iter().map(|s| s.to_string()).collect(),
    };
    let mut registry = ToolRegistry::new();
    let mut writes = false;
    for name in &names {
        if registry.get(name).is_some() {
            continue;
        }
        let Some(tool) = all.get(name) else {
            if name == "delegate" {
                return Err(format!(
                    "a sub-agent at depth {} cannot be given delegate: sub-agents nest at most \
                     {MAX_DEPTH} levels deep; leave delegate out",
                    spec.depth
                ));
            }
            return Err(format!(
                "unknown tool `{name}` for the sub-agent; it can be given: {}",
                all.names().join(", ")
            ));
        };
        if tool.kind() == ToolKind::Write && spec.parent_autonomy.reads_only() {
            // It could not use them: a sub-agent may do no more than the agent that
            // started it.
            return Err(format!(
                "in {} mode a sub-agent can only read, so it cannot be given `{name}`; leave \
                 tools out for the read-only default, or name read tools only",
                spec.parent_autonomy.as_str()
            ));
        }
        writes |= tool.kind() == ToolKind::Write;
        registry.register(tool.clone()).map_err(|e| e.to_string())?;
    }
    let autonomy = if writes {
        spec.parent_autonomy
    } else {
        Autonomy::ReadOnly
    };
    Ok((registry, autonomy))
}

/// The part of a sub-agent's system prompt that says what it is.
pub fn sub_agent_prompt(spec: &SubAgentSpec, autonomy: Autonomy) -> String {
    let mut text = format!(
        "You are a sub-agent (depth {}) started by another agent to do one task. Work on it \
         with your tools, then answer with a concise summary of what you found or did, naming \
         the files involved: only that last answer goes back to the agent that delegated, \
         which cannot see your tool calls. You have at most {} rounds of tool calls.",
        spec.depth, spec.max_rounds
    );
    if autonomy.reads_only() {
        text.push_str(
            " You can only read: files, searches and read-only commands; writes and other \
             commands are refused.",
        );
    }
    text
}

/// Arguments of `delegate`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DelegateArgs {
    /// The task, self-contained: the sub-agent sees nothing of this conversation.
    pub task: String,
    /// Tools to give it (default: read_file, list_files, search_files, bash with read-only
    /// commands). Naming write_file or edit_file lets it write, with approval as usual.
    pub tools: Option<Vec<String>>,
    /// Most rounds of tool calls (default 10, at most 30).
    pub max_rounds: Option<u32>,
}

/// The `delegate` tool of an agent at some depth.
pub struct DelegateTool {
    factory: Arc<dyn SubAgentFactory>,
    hub: Arc<SubAgents>,
    depth: u8,
}

impl DelegateTool {
    /// The tool for an agent at `depth`, building sub-agents with `factory` and reporting
    /// through `hub` (the same hub the agent's runner is given).
    pub fn new(factory: Arc<dyn SubAgentFactory>, hub: Arc<SubAgents>, depth: u8) -> DelegateTool {
        DelegateTool {
            factory,
            hub,
            depth,
        }
    }
}

fn check(a: &DelegateArgs) -> Result<(), ToolError> {
    if a.task.trim().is_empty() {
        return Err(ToolError::InvalidArguments(
            "the task is empty; say what the sub-agent should do".into(),
        ));
    }
    if let Some(n) = a.max_rounds
        && !(1..=MAX_ROUNDS).contains(&n)
    {
        return Err(ToolError::InvalidArguments(format!(
            "max_rounds must be 1 to {MAX_ROUNDS}"
        )));
    }
    Ok(())
}

#[async_trait]
impl Tool for DelegateTool {
    fn name(&self) -> &'static str {
        "delegate"
    }
    fn description(&self) -> &'static str {
        "Hand a self-contained sub-task (explore a part of the code, find where something is \
         done, summarise files) to a sub-agent with its own conversation. It has read-only \
         tools by default (read_file, list_files, search_files, read-only bash); it returns \
         its summary and the files it looked at. Several delegate calls in one response run \
         at once. The sub-agent sees nothing of this conversation: put everything it needs \
         in `task`."
    }
    fn parameters(&self) -> Value {
        args::schema_for::<DelegateArgs>()
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }
    fn describe(&self, args: &Value) -> Result<CallIntent, ToolError> {
        let a: DelegateArgs = args::parse(args.clone())?;
        check(&a)?;
        Ok(CallIntent::reads([]))
    }
    fn default_timeout(&self) -> Duration {
        Duration::from_secs(3600)
    }
    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolResult {
        let a: DelegateArgs = match args::parse(args) {
            Ok(a) => a,
            Err(e) => return e.into(),
        };
        if let Err(e) = check(&a) {
            return e.into();
        }
        if self.depth >= MAX_DEPTH {
            return ToolResult::err(format!(
                "sub-agents nest at most {MAX_DEPTH} levels deep and this agent is at depth {}; \
                 do the task with your own tools",
                self.depth
            ));
        }
        let parent_id = ctx.call_id.clone();
        let spec = SubAgentSpec {
            depth: self.depth + 1,
            tools: a.tools,
            max_rounds: a.max_rounds.unwrap_or(DEFAULT_ROUNDS),
            parent_autonomy: self.hub.autonomy(),
            label: format!("sub-agent of {parent_id}"),
            turn: ctx.turn,
            call: parent_id.clone(),
            task: a.task.clone(),
        };
        let parts = match self.factory.clone().sub_agent(spec) {
            Ok(p) => p,
            Err(e) => return ToolResult::err(e),
        };
        let mut handle = Runner::spawn(parts);
        self.hub.register(&parent_id, handle.ops.clone());
        let _ = handle.ops.send(UserOp::Submit {
            text: a.task,
            images: Vec::new(),
        });
        let hub = self.hub.clone();
        let forward = |event: AgentEvent| hub.forward(&parent_id, event);
        let run = drive(
            &mut handle.events,
            &handle.ops,
            &ctx.cancel,
            TOKEN_BUDGET,
            forward,
        )
        .await;
        self.hub.unregister(&parent_id);
        let _ = handle.ops.send(UserOp::Shutdown);
        if tokio::time::timeout(STOP_GRACE, &mut handle.task)
            .await
            .is_err()
        {
            handle.task.abort();
        }
        run.into_result()
    }
}

/// What a sub-agent did, read from its events.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct SubRun {
    /// Its last answer.
    pub answer: String,
    /// Files its calls read, in order, once each.
    pub files_read: Vec<String>,
    /// Files its calls changed, in order, once each.
    pub files_changed: Vec<String>,
    /// Tokens it spent.
    pub usage: Usage,
    /// Tool calls it made.
    pub calls: usize,
    /// Why its turn ended (`None`: it never ended — the sub-agent went away).
    pub end: Option<TurnEnd>,
    /// The errors it reported.
    pub errors: Vec<String>,
    /// Whether it was stopped because the call was cancelled.
    pub cancelled: bool,
    /// Whether it was stopped because it spent its token budget.
    pub over_budget: bool,
}

/// Read a sub-agent's events until its turn ends, forwarding each to the parent; interrupt
/// it when `cancel` fires or it spends `budget` tokens.
pub async fn drive(
    events: &mut mpsc::UnboundedReceiver<AgentEvent>,
    ops: &mpsc::UnboundedSender<UserOp>,
    cancel: &tokio_util::sync::CancellationToken,
    budget: u64,
    mut forward: impl FnMut(AgentEvent),
) -> SubRun {
    let mut run = SubRun::default();
    // What each call reads, in the order the model made the calls (reads run at once and
    // finish in any order); counted once the call succeeded.
    let mut reads: Vec<(String, Vec<String>)> = Vec::new();
    let mut succeeded: std::collections::HashSet<String> = Default::default();
    let mut stopping = false;
    loop {
        let event = tokio::select! {
            e = events.recv() => e,
            _ = cancel.cancelled(), if !stopping => {
                stopping = true;
                run.cancelled = true;
                let _ = ops.send(UserOp::Interrupt);
                continue;
            }
        };
        let Some(event) = event else { break };
        run.tally(&event, &mut reads, &mut succeeded);
        if let AgentEvent::Usage { .. } = &event
            && run.usage.prompt_tokens + run.usage.completion_tokens > budget
            && !stopping
        {
            stopping = true;
            run.over_budget = true;
            let _ = ops.send(UserOp::Interrupt);
        }
        let end = match &event {
            AgentEvent::TurnComplete { end, .. } => Some(end.clone()),
            _ => None,
        };
        if !matches!(
            event,
            AgentEvent::TextDelta { .. }
                | AgentEvent::ReasoningDelta { .. }
                | AgentEvent::StateChanged { .. }
                | AgentEvent::ContextWindow { .. }
        ) {
            forward(event);
        }
        if end.is_some() {
            run.end = end;
            break;
        }
    }
    for (id, paths) in reads {
        if succeeded.contains(&id) {
            for path in paths {
                if !run.files_read.contains(&path) {
                    run.files_read.push(path);
                }
            }
        }
    }
    run
}

impl SubRun {
    /// Count what `event` says of the sub-agent's work: its calls (with what each reads,
    /// into `reads`), the calls that succeeded, the files changed, its answer, usage and
    /// errors.
    fn tally(
        &mut self,
        event: &AgentEvent,
        reads: &mut Vec<(String, Vec<String>)>,
        succeeded: &mut std::collections::HashSet<String>,
    ) {
        match event {
            AgentEvent::ToolCall { id, intent, .. } => {
                self.calls += 1;
                if let Some(i) = intent {
                    reads.push((id.clone(), i.read_paths().to_vec()));
                }
            }
            AgentEvent::ToolResult { id, result, .. } => {
                if result.success {
                    succeeded.insert(id.clone());
                }
                for path in &result.files_changed {
                    if !self.files_changed.contains(path) {
                        self.files_changed.push(path.clone());
                    }
                }
            }
            AgentEvent::AssistantMessage { text } if !text.trim().is_empty() => {
                self.answer = text.clone();
            }
            AgentEvent::Usage { usage } => self.usage.add(*usage),
            AgentEvent::Error { message } => self.errors.push(message.clone()),
            _ => {}
        }
    }

    /// The delegate call's result: the answer, and what the sub-agent looked at and changed.
    pub fn into_result(self) -> ToolResult {
        let data = DelegateData {
            files_read: self.files_read.clone(),
            files_changed: self.files_changed.clone(),
            tool_calls: self.calls as u64,
            usage: self.usage,
            end: self.end.clone(),
        };
        if self.cancelled {
            return ToolResult::from(ToolError::Cancelled)
                .with(&data)
                .with_files(self.files_changed);
        }
        let mut text = self.answer.trim().to_string();
        let note = match &self.end {
            _ if self.over_budget => Some(format!(
                "[the sub-agent was stopped after spending its budget of {TOKEN_BUDGET} tokens; \
                 its answer may be incomplete]"
            )),
            Some(TurnEnd::Done) => None,
            Some(TurnEnd::RoundCap) => Some(
                "[the sub-agent used all its tool rounds; its answer may be incomplete — give \
                 it a narrower task or more max_rounds]"
                    .to_string(),
            ),
            Some(TurnEnd::Truncated) => {
                Some("[the sub-agent's answer was cut at the model's output limit]".to_string())
            }
            Some(TurnEnd::Failed) | Some(TurnEnd::Interrupted) | None => {
                let why = self
                    .errors
                    .last()
                    .cloned()
                    .unwrap_or_else(|| "it stopped without answering".into());
                return ToolResult::err(format!(
                    "the sub-agent failed: {why}; do the task yourself or delegate a narrower one"
                ))
                .with(&data)
                .with_files(self.files_changed);
            }
        };
        if text.is_empty() {
            text = "(the sub-agent gave no answer)".into();
        }
        if let Some(n) = note {
            text.push_str("\n\n");
            text.push_str(&n);
        }
        if !self.files_read.is_empty() {
            text.push_str(&format!(
                "\n\nFiles it looked at: {}",
                self.files_read.join(", ")
            ));
        }
        if !self.files_changed.is_empty() {
            text.push_str(&format!(
                "\nFiles it changed: {}",
                self.files_changed.join(", ")
            ));
        }
        ToolResult::ok(text)
            .with(&data)
            .with_files(self.files_changed)
    }
}

#[cfg(test)]
#[path = "delegate_tests.rs"]
mod tests;
