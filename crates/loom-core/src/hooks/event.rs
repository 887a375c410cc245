//! The events hooks run on, named as in Claude Code so its hook scripts work unchanged.

use serde::Serialize;

/// One of Claude Code's hook events that Loom runs hooks on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum HookEvent {
    /// A session starts (or resumes): stdout of exit 0 is context for the model.
    SessionStart,
    /// The person sent a prompt, before the model sees it: exit 2 blocks it.
    UserPromptSubmit,
    /// A tool call is about to run: exit 2 or a deny refuses it.
    PreToolUse,
    /// A tool call ran: exit 2 or a block sends the reason to the model.
    PostToolUse,
    /// The model ended its turn: exit 2 or a block makes it go on.
    Stop,
    /// Loom waits for the person (an approval).
    Notification,
}

impl HookEvent {
    /// Its name in config and in the hook's input (`hook_event_name`).
    pub fn name(self) -> &'static str {
        match self {
            HookEvent::SessionStart => "SessionStart",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::Stop => "Stop",
            HookEvent::Notification => "Notification",
        }
    }

    /// Whether the event concerns a tool call (so its hooks' matchers apply).
    pub fn has_tool(self) -> bool {
        matches!(self, HookEvent::PreToolUse | HookEvent::PostToolUse)
    }
}
