//! Custom slash commands as front ends see them: the list the agent sends (name, what it
//! does, its argument hint, where it comes from) and prompts of earlier sessions for a
//! composer's history search. The agent loads and runs the commands (`loom-core`'s
//! `custom_commands`); a front end lists them and asks for one to be run with
//! [`crate::events::UserOp::RunCustomCommand`].

use serde::{Deserialize, Serialize};

/// Where a custom command's file lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommandScope {
    /// The workspace's `.loom/commands/` or `.claude/commands/`.
    Project,
    /// The person's `~/.config/loom/commands/` or `~/.claude/commands/`.
    User,
}

impl CommandScope {
    /// "project" or "user", as the popup shows it.
    pub fn label(self) -> &'static str {
        match self {
            CommandScope::Project => "project",
            CommandScope::User => "user",
        }
    }
}

/// One custom command, as the `/` popup lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CustomCommandInfo {
    /// Its name without the slash (`review`, `frontend:component` for a file in a
    /// subdirectory).
    pub name: String,
    /// What it does (the frontmatter's `description`, else the body's first line).
    pub description: String,
    /// What arguments it takes (`argument-hint`), if it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argument_hint: Option<String>,
    /// Where its file lives.
    pub scope: CommandScope,
    /// Its file, as shown to the person (workspace-relative for a project command).
    pub file: String,
}

/// A prompt of an earlier message, for the composer's reverse search (`Ctrl+R`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PastPrompt {
    /// The prompt's text.
    pub text: String,
    /// Whether it was sent in this workspace (those are searched first).
    pub here: bool,
}
