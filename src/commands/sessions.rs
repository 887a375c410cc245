//! `loom sessions` and `loom undo`: sessions and their changes from the command line.

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;

use crate::base::time::age;
use crate::changelog::Changelog;
use crate::llm::Message;
use crate::printable;
use crate::protocol::changes::Scope;
use crate::session::{self, Record, SessionLog};

fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// One listed session: id, age, messages, changes, title (and the workspace when asked).
fn line(s: &session::SessionSummary, now: u64, workspace: bool) -> String {
    let changes = crate::base::dirs::data_dir()
        .map(|d| crate::changelog::count_changes(&d, &s.id))
        .unwrap_or(0);
    let mut l = format!(
        "{}  {:>9}  {:>4} msgs  {:>3} change{}  {}",
        s.id,
        age(now, s.modified_secs),
        s.messages,
        changes,
        if changes == 1 { " " } else { "s" },
        if s.title.is_empty() {
            "(no title)".into()
        } else {
            printable::line(&s.title)
        }
    );
    if workspace {
        l.push_str(&format!("  ({})", printable::line(&s.workspace)));
    }
    l
}

/// Print recent sessions that reached a model, newest first.
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
    let now = now_secs();
    for s in sessions {
        writeln!(out, "{}", line(&s, now, ws.is_none()))?;
    }
    writeln!(
        out,
        "\nresume with: loom --resume ID (or just --resume to pick; --continue for the latest here)\n\
         remove with: loom sessions rm ID"
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `loom sessions rm ID`.
pub fn remove(id: &str) -> anyhow::Result<ExitCode> {
    let Some(data) = crate::base::dirs::data_dir() else {
        eprintln!("loom: no data directory, so no sessions are recorded");
        return Ok(ExitCode::from(1));
    };
    match session::remove(&data, id) {
        Ok(()) => {
            println!("removed session {id}");
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("loom: {e}");
            Ok(ExitCode::from(1))
        }
    }
}

/// `--resume` without an ID: list this workspace's sessions (every one when it has none)
/// on stderr and read which to resume from the terminal.
pub fn choose(workspace: &Path) -> Result<String, String> {
    let dir = session::sessions_dir().ok_or("no data directory, so no sessions are recorded")?;
    let all = session::list(&dir);
    let ws = workspace.display().to_string();
    let here: Vec<_> = all.iter().filter(|s| s.workspace == ws).cloned().collect();
    let (sessions, whose) = if here.is_empty() {
        (all, "every workspace")
    } else {
        (here, "this workspace")
    };
    let sessions: Vec<_> = sessions.into_iter().take(20).collect();
    if sessions.is_empty() {
        return Err("no sessions to resume yet".into());
    }
    if !std::io::stdin().is_terminal() {
        return Err(
            "--resume without an ID asks which session to resume, and there is no \
                    terminal to ask on: name one (loom sessions lists them)"
                .into(),
        );
    }
    let now = now_secs();
    eprintln!("Sessions of {whose}, newest first:");
    for (i, s) in sessions.iter().enumerate() {
        eprintln!("{:>3}  {}", i + 1, line(s, now, whose == "every workspace"));
    }
    eprint!(
        "Resume which? [1-{}, Enter for 1, q to cancel] ",
        sessions.len()
    );
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(|e| format!("cannot read the answer: {e}"))?;
    let answer = answer.trim();
    if answer == "q" || answer == "Q" {
        return Err("nothing resumed".into());
    }
    let n = if answer.is_empty() {
        1
    } else {
        answer
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=sessions.len()).contains(n))
            .ok_or_else(|| format!("{answer:?} is not one of 1-{}", sessions.len()))?
    };
    Ok(sessions[n - 1].id.clone())
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
    let data =
        crate::base::dirs::data_dir().context("no data directory, so nothing can be undone")?;
    let mut log = Changelog::open(&data, &id, workspace)?;
    let plan = match log.plan_step(redo, scope) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("loom: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    print!("{}", printable::lines(&plan.diff()));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_is_the_first_typed_line_without_attachments_shortened() {
        assert_eq!(session::title("\n  fix the bug\nin main"), "fix the bug");
        assert_eq!(
            session::title("look\n\n<attachment name=\"@a.rs\">\nfn a() {}\n</attachment>"),
            "look"
        );
        // Regression (issue 25): the /init session was titled with the whole /init prompt.
        assert_eq!(session::title(crate::tui::slash::INIT_PROMPT), "/init");
        assert_eq!(session::title("/tmp/x: what is it?"), "/tmp/x: what is it?");
        let long = "word ".repeat(30);
        let t = session::title(&long);
        assert!(
            t.ends_with('…') && t.chars().count() <= session::TITLE_CHARS,
            "{t}"
        );
    }
}
