//! What goes into the agent's state machine and what comes out: the [`Event`]s it steps
//! on, the [`Action`]s it asks the runner to perform, and the bounds of a turn. Kept apart
//! from the transitions in [`super::state`] so each file has one purpose.

use super::events::{AgentEvent, ApprovalAnswer};

use crate::llm::{ToolCall, Usage};
use crate::tools::{CallIntent, ToolKind, ToolResult};

/// Bounds on a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Rounds of tool calls per turn before the turn is stopped.
    pub max_tool_rounds: u32,
    /// Model requests per step (the first included) before giving up.
    pub max_llm_attempts: u32,
    /// Bytes of each tool result the model reads (`tools.output_budget`): the whole
    /// result is fitted into it where it becomes a message ([`crate::tools::fit`]).
    pub tool_output_budget: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_tool_rounds: 50,
            max_llm_attempts: 5,
            tool_output_budget: crate::tools::ToolLimits::default().output_budget,
        }
    }
}

/// A call the model made, as the runner resolved it at the agent boundary: arguments
/// normalised and parsed once, into the canonical arguments and the call's intent.
#[derive(Debug, Clone, PartialEq)]
pub struct ProposedCall {
    /// The call (its `arguments` text is the canonical JSON when they parsed).
    pub call: ToolCall,
    /// The tool's kind (unknown tools count as reads; they fail at once anyway).
    pub kind: ToolKind,
    /// The canonical arguments (a JSON object) with the tool's typed value, parsed once:
    /// the only ones anything downstream reads.
    pub args: crate::tools::ToolArgs,
    /// What the call will touch, as the tool described it; `None` exactly when invalid.
    pub intent: Option<CallIntent>,
    /// Why the call cannot run at all (unknown tool, arguments that do not parse).
    pub invalid: Option<String>,
    /// A line added to the call's result (argument names mapped to Loom's).
    pub note: Option<String>,
}

/// The policy's verdict on a call, with its preview already computed by the runner.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Run it.
    Allow,
    /// Ask a person.
    Ask {
        /// Why.
        reason: String,
    },
    /// Refuse it.
    Deny {
        /// Why.
        reason: String,
    },
    /// A PreToolUse hook refused it.
    Blocked {
        /// Why, as the hook said it.
        reason: String,
    },
    /// Computing the change already failed (e.g. `old_str` not found): nothing to approve,
    /// the failure is the result.
    Failed {
        /// The failure.
        result: ToolResult,
    },
}

/// What happened.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A person sent a message.
    Submit(super::events::UserInput),
    /// A model request finished.
    LlmFinished {
        /// Visible text.
        text: String,
        /// Tool calls.
        calls: Vec<ProposedCall>,
        /// Tokens used (reported or estimated).
        usage: Usage,
        /// Whether the response is whole.
        stop: crate::llm::Stop,
    },
    /// A model request failed.
    LlmFailed {
        /// What went wrong.
        message: String,
        /// Whether a retry may help.
        retryable: bool,
        /// Visible text received before the failure.
        partial_text: String,
        /// Whether anything was already shown.
        emitted: bool,
        /// How long the server asked to wait.
        retry_after: Option<std::time::Duration>,
        /// Set when the server said the prompt does not fit its context.
        overflow: Option<crate::llm::overflow::Overflow>,
    },
    /// Tokens a failed request still cost (estimated: the server had begun to answer).
    Spent(crate::llm::Usage),
    /// The next request would pass the share of the window that triggers compaction.
    ContextFull,
    /// The person asked to compact now.
    CompactNow,
    /// Compaction finished.
    Compacted {
        /// The conversation to continue with.
        conversation: Vec<crate::llm::Message>,
        /// What was done.
        report: crate::protocol::compaction::Report,
    },
    /// Compaction could not make the conversation fit.
    CompactFailed {
        /// Why.
        message: String,
    },
    /// The wait before a retry is over.
    RetryElapsed,
    /// The policy decided about a call.
    Decided {
        /// Call id.
        id: String,
        /// The verdict.
        verdict: Verdict,
    },
    /// A person answered an approval request.
    Answered {
        /// Call id.
        id: String,
        /// The answer.
        answer: ApprovalAnswer,
    },
    /// A tool call finished.
    ToolFinished {
        /// Call id.
        id: String,
        /// Its result.
        result: ToolResult,
        /// How long it ran.
        duration_ms: u64,
    },
    /// The post-tools hooks finished; their messages go to the model.
    HooksFinished {
        /// Messages for the model (e.g. a failed formatter's output).
        messages: Vec<String>,
    },
    /// A person's message that a UserPromptSubmit hook let through, with the context it
    /// added for the model (after the message).
    SubmitWithContext {
        /// The message.
        input: super::events::UserInput,
        /// What the hooks added, if anything.
        context: Option<String>,
    },
    /// A UserPromptSubmit hook blocked a person's message: it is not sent, and comes back
    /// to them (when no turn runs) with the reason.
    PromptBlocked {
        /// The message.
        input: super::events::UserInput,
        /// The hook's reason.
        reason: String,
    },
    /// The Stop hooks finished; `block` is why the model must go on, if one said so.
    StopHooksFinished {
        /// The blocking hook's reason.
        block: Option<String>,
    },
    /// The person interrupted; `partial_text` is what had streamed.
    Interrupt {
        /// Visible text of the interrupted response.
        partial_text: String,
    },
    /// Start a new conversation.
    Clear,
    /// Tell the model something that happened outside its turn (an undo); only between
    /// turns.
    Note(String),
    /// Stop everything.
    Shutdown,
}

/// What the runner must do.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Send the conversation to the model (attempt number, 1-based).
    CallLlm {
        /// Attempt number.
        attempt: u32,
    },
    /// Wait, then send [`Event::RetryElapsed`]; `attempt` is the attempt that will follow.
    ScheduleRetry {
        /// The next attempt.
        attempt: u32,
        /// How many attempts there will be at most (so a front end can say "2/5").
        max_attempts: u32,
        /// Why the last one failed.
        reason: String,
        /// How long the server asked to wait.
        retry_after: Option<std::time::Duration>,
    },
    /// Ask the policy about a call (and compute its preview).
    Decide {
        /// Call id.
        id: String,
    },
    /// Show the approval request for a call.
    AskUser {
        /// Call id.
        id: String,
        /// Why it is asked.
        reason: String,
    },
    /// Run a call (applying its previewed change, or the selected hunks).
    RunTool {
        /// Call id.
        id: String,
        /// The person's answer, when one was given.
        answer: Option<ApprovalAnswer>,
    },
    /// Remember a session-wide grant for the kind of call `id` is.
    Grant {
        /// Call id.
        id: String,
    },
    /// Run the post-tools hooks for these changed files.
    RunHooks {
        /// Workspace-relative paths changed in the batch.
        files: Vec<String>,
    },
    /// Run the Stop hooks (the model ended its turn).
    RunStopHooks {
        /// Whether the turn already went on because of a Stop hook (Claude Code's
        /// `stop_hook_active`).
        stop_hook_active: bool,
    },
    /// Cancel the model request in flight.
    CancelLlm,
    /// Cancel running tools and hooks.
    CancelTools,
    /// Cancel a scheduled retry.
    CancelTimers,
    /// Compact the conversation (the runner knows the window and the sizes).
    Compact,
    /// Tell the front ends.
    Emit(AgentEvent),
    /// Stop the runner.
    Stop,
}
