//! The runner's tool-call schedule: what the runner knows of each call of the batch between
//! the policy's decision and its result, in one record per call id, and the tokens that
//! stop running calls.
//!
//! The machine owns the calls themselves (their arguments, their order, whether they wait
//! for a person); this part holds what the runner learned while performing them: the
//! write's previewed changes, the policy's ruling, and when the call started running.

use std::collections::HashMap;
use std::future::Future;
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::policy::Ruling;
use crate::tools::FileChange;

/// What the runner holds for one call.
#[derive(Default)]
pub(super) struct CallRecord {
    /// A write's changes, previewed before the decision and written when it runs.
    pub(super) prepared: Option<Vec<FileChange>>,
    /// The policy's ruling (its risk, the grant it offers, whether it opens the network).
    pub(super) ruling: Option<Ruling>,
    /// When it started running (an interrupted call's result reports how long it ran,
    /// not 0 ms).
    started: Option<Instant>,
}

impl CallRecord {
    /// Whether nothing is left to remember.
    fn is_empty(&self) -> bool {
        self.prepared.is_none() && self.ruling.is_none() && self.started.is_none()
    }
}

/// The calls the runner is performing, and how to stop them.
pub(super) struct Schedule {
    /// One record per call id.
    calls: HashMap<String, CallRecord>,
    /// Stops the running tool calls and hooks (renewed after each cancel).
    cancel: CancellationToken,
    /// Stops the person's running `!command` (Esc between turns).
    shell_cancel: CancellationToken,
    /// The tasks running tool calls and hooks, waited for when the agent stops.
    tasks: TaskTracker,
}

impl Schedule {
    /// No calls, nothing running.
    pub(super) fn new() -> Schedule {
        Schedule {
            calls: HashMap::new(),
            cancel: CancellationToken::new(),
            shell_cancel: CancellationToken::new(),
            tasks: TaskTracker::new(),
        }
    }

    /// Run `task` (a tool call or the hooks after a batch) on its own task, one the agent
    /// waits for when it stops.
    pub(super) fn spawn(&self, task: impl Future<Output = ()> + Send + 'static) {
        self.tasks.spawn(task);
    }

    /// Wait, at most `grace`, for the tasks [`Schedule::spawn`] started (cancelled first
    /// with [`Schedule::cancel_calls`]). A killed command's call ends once its last process
    /// is gone: waiting here is what keeps a command line from going on after Loom exits,
    /// which dropping the tasks with the runtime did not (it sent the kill without waiting).
    pub(super) async fn wind_down(&self, grace: Duration) {
        self.tasks.close();
        let _ = tokio::time::timeout(grace, self.tasks.wait()).await;
    }

    /// The record of call `id`, if the runner holds anything for it.
    pub(super) fn get(&self, id: &str) -> Option<&CallRecord> {
        self.calls.get(id)
    }

    /// The policy ruled on call `id`.
    pub(super) fn ruled(&mut self, id: &str, ruling: Ruling) {
        self.calls.entry(id.to_string()).or_default().ruling = Some(ruling);
    }

    /// Call `id`'s changes were previewed.
    pub(super) fn prepared(&mut self, id: &str, changes: Vec<FileChange>) {
        self.calls.entry(id.to_string()).or_default().prepared = Some(changes);
    }

    /// The previewed changes and the ruling of call `id`, taken as it starts to run.
    pub(super) fn take_for_run(&mut self, id: &str) -> (Option<Vec<FileChange>>, Option<Ruling>) {
        let Some(record) = self.calls.get_mut(id) else {
            return (None, None);
        };
        let taken = (record.prepared.take(), record.ruling.take());
        if record.is_empty() {
            self.calls.remove(id);
        }
        taken
    }

    /// Call `id` started running now.
    pub(super) fn started(&mut self, id: &str) {
        self.calls.entry(id.to_string()).or_default().started = Some(Instant::now());
    }

    /// Call `id` has its result: when it started, if it was seen to start.
    pub(super) fn finished(&mut self, id: &str) -> Option<Instant> {
        let record = self.calls.get_mut(id)?;
        let started = record.started.take();
        if record.is_empty() {
            self.calls.remove(id);
        }
        started
    }

    /// A token that stops with the running tool calls.
    pub(super) fn call_token(&self) -> CancellationToken {
        self.cancel.child_token()
    }

    /// A token that stops with the person's `!command`.
    pub(super) fn shell_token(&self) -> CancellationToken {
        self.shell_cancel.child_token()
    }

    /// Stop the running tool calls and hooks and forget the batch's previews and rulings
    /// (the start times stay, so the interrupted calls' results say how long they ran).
    pub(super) fn cancel_calls(&mut self) {
        self.cancel.cancel();
        self.cancel = CancellationToken::new();
        for record in self.calls.values_mut() {
            record.prepared = None;
            record.ruling = None;
        }
        self.calls.retain(|_, record| !record.is_empty());
    }

    /// Stop the person's running `!command`.
    pub(super) fn cancel_shell(&mut self) {
        self.shell_cancel.cancel();
        self.shell_cancel = CancellationToken::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cancelling the batch forgets previews and rulings but keeps start times: an
    /// interrupted call's result still reports how long it ran.
    #[test]
    fn cancelling_calls_keeps_when_they_started() {
        let mut schedule = Schedule::new();
        schedule.prepared("a", Vec::new());
        schedule.started("b");
        schedule.cancel_calls();
        assert!(schedule.get("a").is_none());
        assert!(schedule.finished("b").is_some());
        assert!(schedule.get("b").is_none());
    }

    /// Taking a call's preview to run it leaves its start time; its result removes the
    /// record.
    #[test]
    fn a_record_goes_once_its_call_has_run_and_finished() {
        let mut schedule = Schedule::new();
        schedule.prepared("a", Vec::new());
        schedule.started("a");
        let (prepared, ruling) = schedule.take_for_run("a");
        assert!(prepared.is_some() && ruling.is_none());
        assert_eq!(schedule.take_for_run("a").0.map(|c| c.len()), None);
        assert!(schedule.finished("a").is_some());
        assert!(schedule.get("a").is_none());
        assert!(schedule.finished("a").is_none());
    }
}
