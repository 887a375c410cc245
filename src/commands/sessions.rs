//! `loom sessions` and `loom undo`: sessions and their changes from the command line.

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;

use crate::changelog::{Changelog, Scope};
use crate::llm::Message;
use crate::session::{self, Record, SessionLog};

/// Print recent sessions, newest first.
pub fn list(workspace_only: Option<&Path>) -> anyhow::Result<ExitCode> {
    let Some(dir) = session::sessions_dir() else {
        eprintln!("loom: no data directory, so no sessions are recorded");
        return Ok(ExitCode::from(1));
    };
    let ws = workspace_only.map(|p| p.display().to_string());
    let sessions: Vec<_> = session::list(&dir)
        .into_iter()
        .filter(|s| ws.as_ref().is_none_or(|w| &s.workspace == w))
        .take(50)
        .collect();
    if sessions.is_empty() {
        println!("no sessions yet");
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = std::io::stdout().lock();
    for s in sessions {
        let prompt: String = s.first_prompt.chars().take(60).collect();
        writeln!(
            out,
            "{}  {}  {:>4} msgs  {}  {}",
            s.id, s.started_at, s.messages, s.workspace, prompt
        )?;
    }
    writeln!(
        out,
        "\nresume with: loom --resume ID   (or loom --continue for the latest here)"
    )?;
    Ok(ExitCode::SUCCESS)
}

/// Which session `loom undo` works on.
pub fn pick_session(workspace: &Path, id: Option<&str>) -> Result<String, String> {
    let dir = session::sessions_dir().ok_or("no data directory, so no sessions are recorded")?;
    match id {
        Some(id) => session::path_of(&dir, id)
            .map(|_| id.to_string())
            .ok_or_else(|| format!("no session {id:?}; see `loom sessions`")),
        None => session::latest_for(&dir, workspace)
            .ok_or_else(|| format!("no session recorded for {}", workspace.display())),
    }
}

/// `loom undo`: show the diff, then undo (or redo) after confirmation or `--yes`.
pub fn undo(
    workspace: &Path,
    session_id: Option<&str>,
    scope: Scope,
    redo: bool,
    yes: bool,
    force: bool,
) -> anyhow::Result<ExitCode> {
    let id = match pick_session(workspace, session_id) {
        Ok(id) => id,
        Err(e) => {
            eprintln!("loom: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    let data = session::data_dir().context("no data directory, so nothing can be undone")?;
    let mut log = Changelog::open(&data, &id, workspace)?;
    let plan = match log.plan_step(redo, scope) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("loom: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    print!("{}", plan.diff());
    for c in &plan.conflicts {
        eprintln!("loom: warning: {c}");
    }
    let verb = if redo { "redo" } else { "undo" };
    if !yes {
        if !std::io::stdin().is_terminal() {
            eprintln!("loom: this is what {verb} would change; run again with --yes to apply it");
            return Ok(ExitCode::from(1));
        }
        eprint!("Apply this {verb}? [y/N] ");
        let mut answer = String::new();
        std::io::stdin().lock().read_line(&mut answer)?;
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            eprintln!("nothing changed");
            return Ok(ExitCode::from(1));
        }
    }
    match log.apply(&plan, force) {
        Ok(files) => {
            eprintln!(
                "{}: {}",
                if redo { "redid" } else { "undid" },
                files.join(", ")
            );
            if let Some(dir) = session::sessions_dir()
                && let Ok(mut s) = SessionLog::reopen(&dir, &id)
            {
                let _ = s.append(&Record::Message {
                    message: Message::user(format!(
                        "[Loom] The user ran `loom {verb}` outside the session; these files changed: {}. Read them again before editing.",
                        files.join(", ")
                    )),
                });
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("loom: {e}");
            Ok(ExitCode::from(1))
        }
    }
}
