//! `/review` on the screen (issue 28): the command asks the agent for a review turn
//! ([`UserOp::Review`]); the answer streams as any other; its findings
//! ([`AgentEvent::ReviewFindings`]) are counted in the chat and listed in a layer
//! ([`ReviewFindings`]) where each opens on its file and line.

use super::app::App;
use super::layers::ReviewFindings;
use super::transcript::NoticeLevel;
use crate::protocol::events::UserOp;
use crate::protocol::review::{ReviewFinding, ReviewTarget};

/// `/review`'s arguments, as `/help` shows them.
pub const REVIEW_ARGS: &str = "[--base B|--commit SHA] [FOCUS]";

/// What `/review ARGS` asks for: the changes to review and the focus (the words left),
/// or what is wrong with the arguments.
pub fn parse_review_args(arg: &str) -> Result<(ReviewTarget, String), String> {
    let mut words = arg.split_whitespace().peekable();
    let mut target = ReviewTarget::Uncommitted;
    let mut focus = Vec::new();
    while let Some(word) = words.next() {
        let make: fn(String) -> ReviewTarget = match word {
            "--base" => ReviewTarget::Base,
            "--commit" => ReviewTarget::Commit,
            _ => {
                focus.push(word);
                continue;
            }
        };
        if target != ReviewTarget::Uncommitted {
            return Err("give --base or --commit once, not both".into());
        }
        match words.next() {
            Some(rev) if !rev.starts_with('-') => target = make(rev.to_string()),
            _ => return Err(format!("{word} needs a branch or commit after it")),
        }
    }
    Ok((target, focus.join(" ")))
}

/// `/review [--base BRANCH | --commit SHA] [FOCUS]`.
pub(crate) fn review_command(app: &mut App, arg: &str) {
    match parse_review_args(arg) {
        Ok((target, focus)) => app.send(UserOp::Review { target, focus }),
        Err(why) => app.transcript.push_notice(
            NoticeLevel::Error,
            &format!("{why}; usage: /review {REVIEW_ARGS}"),
        ),
    }
}

impl App {
    /// A review's findings: a line in the chat saying how many, and the list when there
    /// are any.
    pub(crate) fn on_review_findings(&mut self, findings: Vec<ReviewFinding>) {
        let line = match findings.len() {
            0 => "Review: no findings".to_string(),
            1 => "Review: 1 finding (listed: Enter opens it, Esc closes the list)".to_string(),
            n => format!("Review: {n} findings (listed: Enter opens one, Esc closes the list)"),
        };
        self.transcript.push_notice(NoticeLevel::Info, &line);
        if !findings.is_empty() {
            let root = self.draft.workspace_root.clone();
            self.layers
                .push(Box::new(ReviewFindings::new(findings, root)));
        }
    }
}

#[cfg(test)]
#[path = "review_tests.rs"]
mod tests;
