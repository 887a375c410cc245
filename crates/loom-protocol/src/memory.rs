//! What a person asks of long-term memory from `/memory`, and the two scopes a memory lives
//! in: the TUI parses the command, the agent's runner carries it out against the store
//! (`memory::MemoryCommand::run`).

use serde::{Deserialize, Serialize};

/// Where an entry lives.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ScopeKind {
    /// The current workspace only.
    #[default]
    Workspace,
    /// Every workspace.
    Global,
}

impl ScopeKind {
    /// Its name.
    pub fn as_str(self) -> &'static str {
        match self {
            ScopeKind::Workspace => "workspace",
            ScopeKind::Global => "global",
        }
    }
}

/// What a person asks of the memory from `/memory` (the TUI) — the runner carries it out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum MemoryCommand {
    /// The newest entries of this workspace and the global scope.
    List,
    /// Entries matching a query, best first.
    Search {
        /// The keywords.
        query: String,
    },
    /// Delete an entry.
    Forget {
        /// Its key.
        key: String,
        /// Its scope.
        scope: ScopeKind,
    },
}

impl MemoryCommand {
    /// Parse `/memory`'s arguments: nothing (list), `search WORDS`, `rm KEY`,
    /// `rm --global KEY`; the usage otherwise.
    pub fn parse(args: &str) -> Result<MemoryCommand, &'static str> {
        const USAGE: &str = "usage: /memory [search WORDS|rm [--global] KEY]";
        let args = args.trim();
        let (verb, rest) = args.split_once(' ').unwrap_or((args, ""));
        let rest = rest.trim();
        match verb {
            "" | "list" if rest.is_empty() => Ok(MemoryCommand::List),
            "search" | "find" if !rest.is_empty() => Ok(MemoryCommand::Search {
                query: rest.to_string(),
            }),
            "rm" | "forget" | "delete" if !rest.is_empty() => {
                let (scope, key) = match rest.strip_prefix("--global") {
                    Some(k) if k.starts_with(' ') => (ScopeKind::Global, k.trim()),
                    _ => (ScopeKind::Workspace, rest),
                };
                Ok(MemoryCommand::Forget {
                    key: key.to_string(),
                    scope,
                })
            }
            _ => Err(USAGE),
        }
    }
}
