//! The runner's tool calls: the policy's decision, running the tool with snapshots, and
//! the post-tools hooks.

use super::*;
use crate::tools::ToolArgs;

impl Runner {
    /// Why a call is refused before the policy sees it: a custom command's
    /// `allowed-tools` leave it out, or the turn only reads and it writes memory.
    fn refused_before_the_policy(&self, name: &str, args: &ToolArgs) -> Option<String> {
        if let Some(filter) = &self.custom.filter
            && let Err(reason) = filter.check(name, args.value())
        {
            return Some(reason);
        }
        self.withheld_while_reading(name)
    }

    pub(super) fn decide(&mut self, id: String) {
        let Some(call) = self.machine.call(&id) else {
            return;
        };
        let (name, kind, args) = (call.name_owned(), call.kind, call.args.clone());
        let tx = self.internal_tx.clone();
        let Some(intent) = call.intent.cloned() else {
            let result = ToolResult::err("the call's arguments could not be read");
            let _ = tx.send(Internal::Machine(Event::Decided {
                id,
                verdict: Verdict::Failed { result },
            }));
            return;
        };
        if let Some(reason) = self.refused_before_the_policy(&name, &args) {
            let verdict = Verdict::Deny { reason };
            let _ = tx.send(Internal::Machine(Event::Decided { id, verdict }));
            return;
        }
        let workspace = self.work.ctx.workspace.as_deref().map(|c| c.root());
        let ruling = self
            .work
            .policy
            .decide(&name, &intent, workspace, Instant::now());
        let verdict = verdict_before_hooks(&ruling);
        // A hook's allow skips only the question a session grant would skip.
        let grantable =
            self.work
                .policy
                .grant_would_allow(&name, &intent, workspace, Instant::now(), &ruling);
        let headless = (!self.work.policy.interactive()).then(|| Headless::of(&ruling));
        self.schedule.ruled(&id, ruling);
        let denied = matches!(verdict, Verdict::Deny { .. });
        // A call the policy refuses is refused without asking its hooks.
        let pre = (!denied)
            .then(|| self.pre_tool_use(&id, &name, &args, grantable))
            .flatten();
        if denied || (kind != ToolKind::Write && pre.is_none()) {
            let verdict = settle(verdict, headless.as_ref());
            let _ = tx.send(Internal::Machine(Event::Decided { id, verdict }));
            return;
        }
        let registry = self.work.registry.clone();
        let ctx = self.work.ctx.clone();
        tokio::spawn(async move {
            let verdict = match pre {
                Some(pre) => pre.rule(verdict).await,
                None => verdict,
            };
            let verdict = settle(verdict, headless.as_ref());
            if matches!(verdict, Verdict::Deny { .. } | Verdict::Blocked { .. })
                || kind != ToolKind::Write
            {
                let _ = tx.send(Internal::Machine(Event::Decided { id, verdict }));
                return;
            }
            let message = match registry.changes(&name, &args, &ctx).await {
                Some(Ok(changes)) => Internal::Prepared {
                    id,
                    changes,
                    verdict,
                },
                Some(Err(e)) => Internal::Machine(Event::Decided {
                    id,
                    verdict: Verdict::Failed { result: e.into() },
                }),
                None => Internal::Machine(Event::Decided { id, verdict }),
            };
            let _ = tx.send(message);
        });
    }

    pub(super) fn run_tool(&mut self, id: String, answer: Option<ApprovalAnswer>) {
        let Some(call) = self.machine.call(&id) else {
            return;
        };
        let (name, kind, args) = (call.name_owned(), call.kind, call.args.clone());
        let command = call.intent.and_then(|i| i.as_command().cloned());
        self.work.policy.record_action(kind, Instant::now());
        let (prepared, ruling) = self.schedule.take_for_run(&id);
        let mut ctx = self.work.ctx.clone();
        ctx.cancel = self.schedule.call_token();
        ctx.call_id = id.clone();
        ctx.turn = self.persistence.turn();
        if let Some(r) = &ruling
            && r.opens_network(answer.is_some())
        {
            ctx.sandbox.allow_network = true;
        }
        if let Some(r) = &ruling
            && r.leaves_sandbox(answer.is_some())
        {
            ctx.sandbox = loom_sandbox::SandboxSpec::off();
        }
        let snapshot_command = match (&ruling, command) {
            (Some(r), Some(c)) if r.assessment.snapshot => Some(c.command),
            _ => None,
        };
        let post = self.post_tool_use(&id, &name, &args, &ctx);
        let run = ToolRun {
            post,
            registry: self.work.registry.clone(),
            changelog: self.persistence.changelog(),
            turn: self.persistence.turn(),
            ctx,
            id,
            tx: self.internal_tx.clone(),
        };
        let work = match prepared {
            Some(changes) => Work::Write { changes, answer },
            None => Work::Call {
                name,
                args,
                snapshot_command,
            },
        };
        self.schedule.spawn(run.run(work));
    }

    pub(super) fn run_hooks(&mut self, files: Vec<String>) {
        let hooks = self.work.hooks.clone();
        let mut ctx = self.work.ctx.clone();
        ctx.cancel = self.schedule.call_token();
        let events = self.events.clone();
        let tx = self.internal_tx.clone();
        self.schedule.spawn(async move {
            let mut messages = Vec::new();
            for hook in hooks.hooks() {
                if ctx.cancel.is_cancelled() {
                    return;
                }
                let started = std::time::Instant::now();
                let outcome = hook.run(&files, &ctx).await;
                let _ = events.send(AgentEvent::HookResult {
                    name: hook.name(),
                    success: outcome.success,
                    output: outcome.output.clone(),
                    duration_ms: started.elapsed().as_millis() as u64,
                });
                if let Some(m) = outcome.message_for_model {
                    messages.push(m);
                }
            }
            let _ = tx.send(Internal::Machine(Event::HooksFinished { messages }));
        });
    }
}

/// The verdict the PreToolUse hooks hear. Headless, a question no one can answer is a
/// refusal; the hooks still hear it as the question it is (their allow may skip it), and
/// what is left of it after them is refused ([`settle`]).
fn verdict_before_hooks(ruling: &loom_policy::Ruling) -> Verdict {
    match &ruling.decision {
        Decision::Deny { .. } if ruling.unanswered.is_some() => Verdict::Ask {
            reason: ruling.unanswered.clone().unwrap_or_default(),
        },
        Decision::Deny { reason } => Verdict::Deny {
            reason: reason.clone(),
        },
        Decision::Allow => Verdict::Allow,
        Decision::Ask { reason } => Verdict::Ask {
            reason: reason.clone(),
        },
    }
}

/// Where no one can answer (`loom exec`, a scheduled run): the policy's question, if it
/// had one, and the refusal it gave for it.
struct Headless {
    policy_asked: Option<String>,
    refusal: Option<String>,
}

impl Headless {
    /// What `ruling` says for a headless run.
    fn of(ruling: &loom_policy::Ruling) -> Headless {
        Headless {
            policy_asked: ruling.unanswered.clone(),
            refusal: match &ruling.decision {
                Decision::Deny { reason } => Some(reason.clone()),
                _ => None,
            },
        }
    }
}

/// The verdict as it stands where no one may be there to answer (`headless`): a question
/// left after the hooks — the policy's, or a PreToolUse hook's "ask" — is a refusal that
/// says why. Sent as a question, it waited for an answer forever.
fn settle(verdict: Verdict, headless: Option<&Headless>) -> Verdict {
    match (verdict, headless) {
        (Verdict::Ask { reason }, Some(h)) => Verdict::Deny {
            reason: match &h.refusal {
                Some(refusal) if h.policy_asked.as_deref() == Some(reason.as_str()) => {
                    refusal.clone()
                }
                _ => format!("{reason}, and no one can answer it in headless mode"),
            },
        },
        (verdict, _) => verdict,
    }
}

/// What a call that runs does.
enum Work {
    /// Write the previewed changes (the hunks the person chose).
    Write {
        changes: Vec<FileChange>,
        answer: Option<ApprovalAnswer>,
    },
    /// Run the tool, with workspace snapshots around a command that may write.
    Call {
        name: String,
        args: ToolArgs,
        snapshot_command: Option<String>,
    },
}

/// A call on its way to run, with what it runs with.
struct ToolRun {
    /// The call's PostToolUse hooks, run on its result before the machine hears it.
    post: Option<super::event_hooks::PostToolUse>,
    registry: Arc<ToolRegistry>,
    changelog: Option<Arc<Mutex<Changelog>>>,
    /// The turn its changes are recorded under.
    turn: u64,
    ctx: ToolContext,
    id: String,
    tx: mpsc::UnboundedSender<Internal>,
}

impl ToolRun {
    /// Do `work` and tell the machine the result (and the journal's failure, if any).
    async fn run(self, work: Work) {
        let started = Instant::now();
        let changelog = self.changelog;
        let (registry, ctx, id, turn) = (&self.registry, &self.ctx, &self.id, self.turn);
        let (mut result, journal_error): (ToolResult, Option<String>) = match work {
            Work::Write { changes, answer } => {
                let selection = match answer {
                    Some(ApprovalAnswer::ApproveHunks { hunks }) => HunkSelection::Only(hunks),
                    _ => HunkSelection::All,
                };
                let applied = applied_events(id, &changes, &selection);
                let done =
                    write_with_record(registry, changes, selection, changelog, turn, id, ctx).await;
                if done.0.success {
                    for event in applied {
                        let _ = self.tx.send(Internal::Applied(event));
                    }
                }
                done
            }
            Work::Call {
                name,
                args,
                snapshot_command,
            } => match (snapshot_command, changelog) {
                (Some(command), Some(changelog)) => {
                    let (result, journal_error, files) = run_with_snapshots(
                        registry, &name, args, &command, changelog, turn, id, ctx,
                    )
                    .await;
                    command_changed(&self.tx, id, files);
                    (result, journal_error)
                }
                _ => (registry.run(&name, &args, ctx).await, None),
            },
        };
        if let Some(message) = journal_error {
            let _ = self.tx.send(Internal::JournalFailed(message));
        }
        if let Some(post) = self.post
            && !self.ctx.cancel.is_cancelled()
        {
            post.apply(&mut result).await;
        }
        let event = Event::ToolFinished {
            id: self.id,
            result,
            duration_ms: started.elapsed().as_millis() as u64,
        };
        let _ = self.tx.send(Internal::Machine(event));
    }
}

/// Tell front ends the files command `id` changed, with their line counts (nothing when
/// it changed none).
pub(super) fn command_changed(
    tx: &mpsc::UnboundedSender<Internal>,
    id: &str,
    files: Vec<crate::protocol::changes::FileLines>,
) {
    if !files.is_empty() {
        let event = AgentEvent::CommandChanged {
            id: id.to_string(),
            files,
        };
        let _ = tx.send(Internal::Applied(event));
    }
}

/// One [`AgentEvent::ChangeApplied`] per file a write under `selection` changes.
fn applied_events(id: &str, changes: &[FileChange], selection: &HunkSelection) -> Vec<AgentEvent> {
    let Ok(parts) = crate::tools::change::split_selection(changes, selection) else {
        return Vec::new();
    };
    changes
        .iter()
        .zip(parts)
        .filter_map(|(change, part)| {
            let part = part?;
            Some(AgentEvent::ChangeApplied {
                id: id.to_string(),
                path: change.display_path.clone(),
                hunks: written_hunks(change, &part),
                creates: change.creates(),
                deleted: change.deletes(),
                moved_from: change.move_source().map(str::to_string),
            })
        })
        .collect()
}

/// The hunks a write under `selection` puts in the file: the whole diff, or for a per-hunk
/// approval the diff of what is written (its line numbers are the file's after the write).
fn written_hunks(
    change: &FileChange,
    selection: &HunkSelection,
) -> Arc<Vec<crate::base::diff::Hunk>> {
    match selection {
        HunkSelection::All => Arc::new(change.diff.hunks.clone()),
        HunkSelection::Only(_) if change.deletes() || change.diff.hunks.is_empty() => {
            Arc::new(change.diff.hunks.clone())
        }
        HunkSelection::Only(_) => {
            let content = crate::tools::change::content_for(change, selection);
            let old = change.old.as_deref().unwrap_or("");
            Arc::new(crate::base::diff::FileDiff::compute(old, &content).hunks)
        }
    }
}
