//! `loom memory list|search|rm`: long-term memories from the command line.
//!
//! Opens the same database the tools use (in Loom's data directory), scoped to the
//! workspace, so what a session stored can be read and cleaned up without a session.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use crate::cli::MemoryCommand as Cli;
use crate::memory::{LIST_LIMIT, Memory};
use crate::protocol::memory::{MemoryCommand, ScopeKind};

/// Run a `loom memory` subcommand for the workspace at `root`.
pub fn run(root: &Path, command: &Cli) -> anyhow::Result<ExitCode> {
    let memory = match Memory::open_default(root) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("loom: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    if let Some(n) = memory.notice() {
        eprintln!("loom: {n}");
    }
    let mut out = std::io::stdout().lock();
    let (entries, json) = match command {
        Cli::List { json } => (memory.list(None, LIST_LIMIT), *json),
        Cli::Search { query, json } => (memory.recall(query, LIST_LIMIT, None), *json),
        Cli::Rm { key, global } => {
            let scope = if *global {
                ScopeKind::Global
            } else {
                ScopeKind::Workspace
            };
            let forget = MemoryCommand::Forget {
                key: key.clone(),
                scope,
            };
            return Ok(match memory.run(&forget) {
                Ok(text) => {
                    writeln!(out, "{text}")?;
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("loom: {e}");
                    ExitCode::from(1)
                }
            });
        }
    };
    let entries = match entries {
        Ok(e) => e,
        Err(e) => {
            eprintln!("loom: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    if json {
        serde_json::to_writer(&mut out, &entries)?;
        writeln!(out)?;
    } else if entries.is_empty() {
        writeln!(out, "no memories")?;
    } else {
        for e in &entries {
            writeln!(out, "{}", e.line())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
