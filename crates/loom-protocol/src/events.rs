//! The agent's two channels to the outside: [`UserOp`] in, [`AgentEvent`] out.
//!
//! Front ends (the TUI, `loom exec`, tests) speak only these types; they never see the
//! state machine's insides.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::autonomy::Autonomy;
use crate::intent::CallIntent;
use crate::tool_result::ToolResult;
use crate::usage::Usage;
use loom_base::diff::FileDiff;

mod wire;

/// The prefix of a person-typed command's call id (`!cargo test`), which front ends tell
/// apart from the model's calls.
pub const SHELL_ID_PREFIX: &str = "shell-";

/// The prefix of the call id of a custom command's `` !`command` `` (run while its prompt is
/// expanded, between turns; `Esc` stops it as it stops a `!command`).
pub const COMMAND_ID_PREFIX: &str = "command-";

/// The agent's state, as shown in a status bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Phase {
    /// Waiting for the person.
    Idle,
    /// A model request is streaming.
    CallingLlm,
    /// Tool calls are running.
    ExecutingTools,
    /// A tool call waits for the person's approval.
    AwaitingApproval,
    /// Post-tool hooks (auto-commit, formatters) are running.
    PostToolsHook,
    /// A model request failed; a retry is scheduled.
    Error,
    /// The conversation is being compacted to fit the model's context window.
    Compacting,
    /// The agent is stopping.
    ShuttingDown,
}

impl AgentEvent {
    /// The report of a [`AgentEvent::Compacted`] event.
    pub fn compaction(&self) -> Option<crate::compaction::Report> {
        match self {
            AgentEvent::Compacted {
                before_tokens,
                after_tokens,
                trimmed_results,
                trimmed_calls,
                summarized_messages,
                summary_failed,
            } => Some(crate::compaction::Report {
                before_tokens: *before_tokens,
                after_tokens: *after_tokens,
                trimmed_results: *trimmed_results,
                trimmed_calls: *trimmed_calls,
                summarized_messages: *summarized_messages,
                summary_failed: summary_failed.clone(),
            }),
            _ => None,
        }
    }
}

impl Phase {
    /// The state's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Idle => "Idle",
            Phase::CallingLlm => "CallingLlm",
            Phase::ExecutingTools => "ExecutingTools",
            Phase::AwaitingApproval => "AwaitingApproval",
            Phase::PostToolsHook => "PostToolsHook",
            Phase::Error => "Error",
            Phase::Compacting => "Compacting",
            Phase::ShuttingDown => "ShuttingDown",
        }
    }
}

/// A person's answer to an approval request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "answer", rename_all = "snake_case")]
pub enum ApprovalAnswer {
    /// Run it.
    Approve,
    /// Run it, and stop asking for this kind of thing in this session (edits: all edits;
    /// commands: this command prefix).
    ApproveForSession,
    /// Write only these hunks of the proposed diff (`true` = apply).
    ApproveHunks {
        /// One flag per hunk.
        hunks: Vec<bool>,
    },
    /// Don't run it; the reason (if given) goes to the model.
    Deny {
        /// What the person said.
        reason: Option<String>,
    },
}

/// A message from the person: its text and the images attached to it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UserInput {
    /// The text.
    pub text: String,
    /// Attached images.
    pub images: Vec<crate::image::Image>,
}

impl From<&str> for UserInput {
    fn from(text: &str) -> Self {
        UserInput {
            text: text.to_string(),
            images: Vec::new(),
        }
    }
}

impl From<String> for UserInput {
    fn from(text: String) -> Self {
        UserInput {
            text,
            images: Vec::new(),
        }
    }
}

/// What a person is asked to approve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ApprovalPreview {
    /// A file change.
    FileChange {
        /// Workspace-relative path.
        path: String,
        /// The unified diff.
        unified: String,
        /// The structured diff (for per-hunk review).
        diff: FileDiff,
        /// Whether the file would be created.
        creates: bool,
        /// Notes from the tool (e.g. a tolerant match).
        notes: Vec<String>,
    },
    /// Changes to several files, or a file deleted or moved (a patch): reviewed as one
    /// multi-file diff, per file and per hunk.
    Files {
        /// Each file's change, in the order it will be written.
        files: Vec<FilePreview>,
    },
    /// A shell command.
    Command {
        /// The command line.
        command: String,
        /// Working directory (workspace-relative).
        cwd: String,
        /// The risk level (`"low"`, `"high"` ... on the wire).
        risk: crate::risk::Risk,
        /// Why it has that level.
        risk_reason: String,
        /// Whether a session-wide grant may be offered (never for high risk).
        grant_offered: bool,
        /// The prefix a grant would cover.
        grant_prefix: Option<String>,
        /// Whether it uses the network (approval also opens the sandbox's network).
        network: bool,
        /// Whether the model asked to run it outside the sandbox.
        outside_sandbox: bool,
    },
    /// A network call (web_search, web_fetch, http_request).
    Network {
        /// The HTTP method.
        method: String,
        /// The URL, credentials masked.
        url: String,
        /// The domain a "for this session" approval covers.
        domain: String,
        /// The risk level (`"low"`, `"high"` ... on the wire).
        risk: crate::risk::Risk,
        /// What the call does, in words.
        risk_reason: String,
    },
    /// A tool of an MCP server.
    McpTool {
        /// The server's name.
        server: String,
        /// The tool's name on the server.
        tool: String,
        /// The arguments, as indented JSON.
        arguments: String,
        /// Whether the server marks the tool read-only (shown, not trusted).
        read_only_hint: bool,
        /// Whether "always for this tool" is offered.
        grant_offered: bool,
    },
    /// A change to scheduled jobs (`cron_add`, `cron_remove`), as the tool described it.
    Schedule {
        /// The job added, or the job removed.
        change: crate::intent::ScheduleIntent,
    },
    /// Anything else: the raw arguments.
    Other {
        /// The arguments.
        arguments: Value,
    },
}

/// One file of a multi-file change awaiting review.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FilePreview {
    /// Workspace-relative path (the destination, for a move).
    pub path: String,
    /// The unified diff.
    pub unified: String,
    /// The structured diff.
    pub diff: FileDiff,
    /// Whether the file would be created.
    pub creates: bool,
    /// Whether the file would be deleted.
    #[serde(default)]
    pub deletes: bool,
    /// Where the file moves from, for a move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moved_from: Option<String>,
    /// Notes from the tool.
    pub notes: Vec<String>,
}

/// How the reason of a person's refusal begins when they said why (what follows is their
/// words): the model reads it so, and a screen shows only their words.
pub const PERSON_SAID: &str = "the user denied this call and said: ";

/// Who made an approval decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecidedBy {
    /// The policy, without asking.
    Policy,
    /// A person.
    User,
    /// A PreToolUse hook (its block).
    Hook,
}

/// Why a turn ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnEnd {
    /// The model answered without tool calls.
    Done,
    /// The person interrupted.
    Interrupted,
    /// A failure ended it.
    Failed,
    /// The tool-round cap was reached.
    RoundCap,
    /// The answer was cut off by the model's output token limit (`finish_reason:
    /// "length"`): it is not whole, and the person may ask the model to go on.
    Truncated,
}

/// Everything the agent tells its front ends. Its `Serialize` is the JSONL schema of `loom
/// exec --json` (docs/exec.md; `SubAgent` excepted: exec prints the sub-agent's event
/// itself, with a `parent_id`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AgentEvent {
    /// The agent's state changed.
    StateChanged {
        /// The new state.
        phase: Phase,
    },
    /// The person's message was accepted (or queued while the agent works).
    UserMessage {
        /// The text.
        text: String,
        /// Whether it waits for the current turn to end.
        queued: bool,
    },
    /// Streamed answer text.
    TextDelta {
        /// The piece.
        text: String,
    },
    /// Streamed reasoning text.
    ReasoningDelta {
        /// The piece.
        text: String,
    },
    /// A complete assistant message (after its stream ended).
    AssistantMessage {
        /// The visible text.
        text: String,
    },
    /// The model proposed a tool call.
    ToolCall {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// The canonical arguments (a JSON object), or the raw text as a string when they
        /// did not parse.
        arguments: Value,
        /// What the call will touch, as the tool described it (absent for invalid calls).
        /// Boxed: most events are small, and every event is as large as the largest.
        #[serde(default, rename = "touches", skip_serializing_if = "Option::is_none")]
        intent: Option<Box<CallIntent>>,
    },
    /// A call needs a person's decision.
    ApprovalRequested {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// Why it is asked.
        reason: String,
        /// What would happen.
        preview: ApprovalPreview,
    },
    /// A call was approved or denied.
    Approval {
        /// Call id.
        id: String,
        /// Approved or not (written as `decision`: `approved` or `denied`).
        #[serde(rename = "decision", with = "wire::decision")]
        approved: bool,
        /// By whom.
        by: DecidedBy,
        /// Why, when denied (or what was granted).
        reason: Option<String>,
    },
    /// A call started running.
    ToolStarted {
        /// Call id.
        id: String,
    },
    /// A call finished (or was refused, or failed).
    ToolResult {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// The result the model reads (its keys written beside the call's).
        #[serde(flatten, serialize_with = "wire::result_keys")]
        result: ToolResult,
        /// Wall-clock time spent running.
        duration_ms: u64,
    },
    /// A post-tools hook finished.
    HookResult {
        /// The hook's name (e.g. `auto-commit`, or the command).
        name: String,
        /// Whether it succeeded.
        success: bool,
        /// What it said.
        output: String,
        /// Wall-clock time it ran.
        duration_ms: u64,
    },
    /// A model request failed and will be retried.
    Retry {
        /// The attempt about to be made.
        attempt: u32,
        /// The most attempts that will be made.
        max_attempts: u32,
        /// What went wrong.
        reason: String,
        /// How long until the retry.
        wait_ms: u64,
    },
    /// Tokens used by one request.
    Usage {
        /// The figures.
        usage: Usage,
    },
    /// A turn ended.
    #[serde(rename = "turn_completed")]
    TurnComplete {
        /// Tokens used in the turn.
        #[serde(serialize_with = "wire::usage_keys")]
        usage: Usage,
        /// Why it ended.
        end: TurnEnd,
        /// Messages queued during the turn that were not sent (after an interrupt), so a
        /// front end can give them back to the person.
        unsent: Vec<String>,
        /// The images attached to those messages, given back with them.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        unsent_images: Vec<crate::image::Image>,
    },
    /// Something went wrong that the person should know.
    Error {
        /// What, in words.
        message: String,
    },
    /// A file or listing read for the person's next message (`@path`), or why it could not
    /// be.
    Attachment {
        /// What it is (`@src/main.rs`, `@src/`).
        name: String,
        /// The bounded text, or the error.
        result: Result<String, String>,
    },
    /// The models the server offers (`GET /models`), or why they could not be listed.
    Models {
        /// The model ids, or the error.
        result: Result<Vec<String>, String>,
    },
    /// Information worth a line (a setting changed, a grant was made).
    Notice {
        /// The text.
        message: String,
    },
    /// What an undo or redo would do (shown before it is done).
    UndoPlanned {
        /// Whether it is a redo.
        redo: bool,
        /// The diff from the current files to the result.
        diff: String,
        /// Files it touches.
        files: Vec<String>,
        /// Files changed since Loom wrote them (applying needs force).
        conflicts: Vec<String>,
    },
    /// An undo or redo was done.
    UndoApplied {
        /// Whether it was a redo.
        redo: bool,
        /// Files restored.
        files: Vec<String>,
    },
    /// The session's recorded changes, oldest first.
    Changes {
        /// The list.
        changes: Vec<crate::changes::ChangeSummary>,
    },
    /// The conversation was compacted to fit the model's context window (what is sent
    /// shrank; the session file keeps everything).
    Compacted {
        /// Estimated tokens before.
        before_tokens: u64,
        /// Estimated tokens after.
        after_tokens: u64,
        /// Tool results cut to their head and tail.
        trimmed_results: usize,
        /// Earlier tool calls whose long arguments (a written file's content) were cut.
        #[serde(default)]
        trimmed_calls: usize,
        /// Older messages replaced by a summary.
        summarized_messages: usize,
        /// Why the older part could not be summarised (it was left out instead), if so.
        summary_failed: Option<String>,
    },
    /// A file change was written: exactly the hunks written, structured, for front ends to
    /// show whole (the model's copy of the diff may be cut; this one never is).
    ChangeApplied {
        /// The call that wrote it.
        id: String,
        /// Workspace-relative path.
        path: String,
        /// The hunks written (shared: a big diff is not copied per front end).
        hunks: std::sync::Arc<Vec<loom_base::diff::Hunk>>,
        /// Whether the file was created.
        creates: bool,
        /// Whether the file was deleted.
        #[serde(default)]
        deleted: bool,
        /// Where the file was moved from, for a move.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        moved_from: Option<String>,
    },
    /// The MCP servers' status changed (sent at start and after every change).
    McpStatus {
        /// Every configured server.
        servers: Vec<crate::mcp::ServerStatus>,
    },
    /// What Loom now knows of the model's context window (from the server or config).
    ContextWindow {
        /// Tokens.
        tokens: u64,
        /// Where the figure comes from.
        source: String,
    },
    /// An event of a sub-agent started by the `delegate` call `parent_id` (its own
    /// sub-agents' events arrive wrapped twice).
    SubAgent {
        /// The delegate call whose sub-agent this comes from.
        parent_id: String,
        /// The sub-agent's event.
        event: Box<AgentEvent>,
    },
    /// The prompts a rewind or fork can go back to (the answer to
    /// [`UserOp::RewindList`]), oldest first.
    RewindPrompts {
        /// The prompts of the conversation since its last `/clear` or compaction.
        prompts: Vec<crate::rewind::PromptEntry>,
    },
    /// What a rewind to just before prompt `prompt` would do (shown before it is done).
    RewindPlanned {
        /// The prompt's number.
        prompt: usize,
        /// Its text.
        text: String,
        /// The diff from the current files to the files as they were before it.
        diff: String,
        /// Files it restores.
        files: Vec<String>,
        /// Files changed since Loom wrote them (applying needs force).
        conflicts: Vec<String>,
    },
    /// A rewind was done: the conversation now ends just before prompt `prompt`, whose
    /// text goes back to the message box.
    Rewound {
        /// The prompt's number.
        prompt: usize,
        /// Its text.
        text: String,
        /// Files restored.
        files: Vec<String>,
    },
    /// A new session was started from this one (`/fork`); this session goes on unchanged.
    Forked {
        /// The new session's id (`loom --resume ID` continues it).
        id: String,
        /// The prompt it was forked before (`None`: at the latest point).
        prompt: Option<usize>,
    },
    /// The model changed its plan (`update_plan`): the whole plan as it is now.
    PlanUpdated {
        /// The plan.
        plan: crate::plan::Plan,
    },
    /// The custom slash commands (sent at start and after
    /// [`UserOp::ListCustomCommands`]), with what was wrong in their files.
    CustomCommands {
        /// The commands, sorted by name.
        commands: Vec<crate::custom_command::CustomCommandInfo>,
        /// Files that loaded with a problem, or were left out, and why.
        warnings: Vec<String>,
    },
    /// Prompts of earlier messages, newest first, this workspace's before the others'
    /// (the answer to [`UserOp::PromptHistory`]).
    PromptHistory {
        /// The prompts.
        prompts: Vec<crate::custom_command::PastPrompt>,
    },
    /// The language servers' status changed (sent when one starts, becomes ready, exits
    /// or its diagnostics change; never when no server was needed).
    LspStatus {
        /// Every server started so far.
        servers: Vec<crate::lsp::LspServerStatus>,
    },
    /// A custom command ([`UserOp::RunCustomCommand`]) ended without its prompt being
    /// sent: a turn was running, no command has that name, or it was stopped while being
    /// expanded. Follows the error or notice that says why; no turn follows, so a front end
    /// waiting for the command's turn to end stops waiting here.
    CustomCommandNotSent {
        /// The command's name.
        name: String,
        /// Why, in words.
        reason: String,
        /// Whether it was stopped (an interrupt) rather than refused.
        cancelled: bool,
    },
    /// A command (`bash`) changed files in the workspace: each file with the lines it
    /// added and removed, from the undo journal's snapshots around it. Sent before the
    /// call's result, only when a file changed.
    CommandChanged {
        /// The call that ran the command.
        id: String,
        /// The files it changed, by path.
        files: Vec<crate::changes::FileLines>,
    },
    /// The findings of a review turn ([`UserOp::Review`]), parsed from the model's answer;
    /// sent just before the turn's end (empty when the answer held none).
    ReviewFindings {
        /// The findings, in the model's order.
        findings: Vec<crate::review::ReviewFinding>,
    },
}

/// What front ends ask of the agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum UserOp {
    /// A new message (queued if the agent is busy).
    Submit {
        /// The text.
        text: String,
        /// Images attached to it.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<crate::image::Image>,
    },
    /// The answer to an approval request.
    Approve {
        /// Call id.
        id: String,
        /// The decision.
        answer: ApprovalAnswer,
    },
    /// Stop the current turn: cancel the stream and running tools.
    Interrupt,
    /// Change the autonomy level.
    SetAutonomy {
        /// The new level.
        autonomy: Autonomy,
    },
    /// Use another model for later requests.
    SetModel {
        /// The model id.
        model: String,
    },
    /// Switch the auto-commit post-tools hook on or off.
    SetAutoCommit {
        /// On.
        on: bool,
    },
    /// Start a new conversation (only while idle).
    Clear,
    /// Compact the conversation now (only while idle).
    Compact,
    /// Plan (and with `apply`, do) an undo.
    Undo {
        /// Which changes.
        scope: crate::changes::Scope,
        /// Do it (otherwise only show the plan).
        apply: bool,
        /// Overwrite files changed since Loom wrote them.
        force: bool,
    },
    /// Plan (and with `apply`, do) a redo of the last undo.
    Redo {
        /// Do it.
        apply: bool,
        /// Overwrite files changed since.
        force: bool,
    },
    /// List the session's changes.
    ListChanges,
    /// Read a workspace file (or list a directory, for a path ending in `/`) to attach to
    /// the next message; answered with [`AgentEvent::Attachment`].
    Attach {
        /// Workspace-relative path.
        path: String,
    },
    /// Run a command the person typed (`!command`) as their own `bash` call, outside the
    /// conversation (only between turns).
    Shell {
        /// The command line.
        command: String,
    },
    /// An op for the sub-agent of the `delegate` call `parent_id` (a person's answer to its
    /// approval request); nested sub-agents are reached by nesting.
    ToSubAgent {
        /// The delegate call.
        parent_id: String,
        /// The op.
        inner: Box<UserOp>,
    },
    /// List, search or delete long-term memories (`/memory`); the answer comes as a notice.
    Memory {
        /// What to do.
        command: crate::memory::MemoryCommand,
    },
    /// Stop the agent.
    Shutdown,
    /// List the prompts a rewind can go back to; answered with
    /// [`AgentEvent::RewindPrompts`].
    RewindList,
    /// Plan (and with `apply`, do) a rewind to just before prompt `prompt` (only between
    /// turns): the files go back through the undo journal, the conversation is cut there.
    Rewind {
        /// The prompt's number, from 1.
        prompt: usize,
        /// Do it (otherwise only show the plan).
        apply: bool,
        /// Overwrite files changed since Loom wrote them.
        force: bool,
    },
    /// Start a new session from this one, just before prompt `prompt` (`None`: with the
    /// whole conversation), leaving this session's file untouched.
    Fork {
        /// The prompt's number, from 1.
        prompt: Option<usize>,
    },
    /// The person approved the plan made in plan mode: switch to `autonomy` and carry the
    /// plan out (answered like a submitted message).
    ApprovePlan {
        /// The mode to run the plan in (supervised or full-auto).
        autonomy: Autonomy,
    },
    /// Load the custom slash commands again; answered with [`AgentEvent::CustomCommands`].
    ListCustomCommands,
    /// Run the custom command `name` (without its slash) with `arguments`: its body,
    /// expanded, is sent as the person's message (only between turns).
    RunCustomCommand {
        /// The command's name.
        name: String,
        /// What was typed after the name.
        arguments: String,
    },
    /// Read the prompts of earlier sessions; answered with [`AgentEvent::PromptHistory`].
    PromptHistory,
    /// Review `target`'s changes (only between turns): one turn in read-only mode with the
    /// review prompt, then [`AgentEvent::ReviewFindings`]; the mode is restored after it.
    Review {
        /// Which changes.
        target: crate::review::ReviewTarget,
        /// What to look at in particular (may be empty).
        #[serde(default)]
        focus: String,
    },
}
