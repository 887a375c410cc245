//! `loom review [--base BRANCH | --commit SHA] [FOCUS]` (issue 28): the `/review` of the
//! TUI, headless. The changes are checked first (a clear error and exit code 1 when there
//! is nothing to review, no repository or no such commit), then the agent runs the review
//! turn as `loom exec` runs a task, in read-only mode, and prints the answer and the
//! findings (or, with `--json`, every event, the findings as `review_findings`).

use std::path::Path;
use std::process::ExitCode;

use crate::config::Config;
use crate::exec;
use crate::protocol::events::UserOp;
use crate::protocol::review::ReviewTarget;

/// The changes the flags name (clap keeps `--base` and `--commit` apart).
pub fn target(base: Option<String>, commit: Option<String>) -> ReviewTarget {
    match (base, commit) {
        (Some(branch), _) => ReviewTarget::Base(branch),
        (None, Some(rev)) => ReviewTarget::Commit(rev),
        (None, None) => ReviewTarget::Uncommitted,
    }
}

/// Review `target` in `workspace`, `focus` added to the prompt.
pub async fn run(
    config: &Config,
    workspace: &Path,
    target: ReviewTarget,
    focus: String,
    json: bool,
) -> anyhow::Result<ExitCode> {
    if let Err(e) = loom_core::review::diff_for(workspace, &target) {
        eprintln!("loom: {e}");
        return Ok(ExitCode::from(exec::EXIT_FAILURE));
    }
    let options = exec::StartOptions {
        title: Some(format!("review of {target}")),
        ..exec::StartOptions::default()
    };
    match exec::start(config, workspace, options).await {
        Ok(started) => {
            let op = UserOp::Review { target, focus };
            Ok(exec::run_op(started.agent, started.info, op, json).await)
        }
        Err(e) => {
            eprintln!("loom: {}", e.message);
            Ok(ExitCode::from(e.code))
        }
    }
}
