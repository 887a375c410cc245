//! The runner's tool calls: the policy's decision, asking the person, running the tool
//! with snapshots, and the post-tools hooks (moved from runner.rs).

use super::*;

impl Runner {
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
        let workspace = self.ctx.workspace.as_deref().map(|c| c.root());
        let ruling = self
            .policy
            .decide(&name, &intent, workspace, Instant::now());
        let verdict = match &ruling.decision {
            Decision::Deny { reason } => Verdict::Deny {
                reason: reason.clone(),
            },
            Decision::Allow => Verdict::Allow,
            Decision::Ask { reason } => Verdict::Ask {
                reason: reason.clone(),
            },
        };
        self.rulings.insert(id.clone(), ruling);
        if matches!(verdict, Verdict::Deny { .. }) || kind != ToolKind::Write {
            let _ = tx.send(Internal::Machine(Event::Decided { id, verdict }));
            return;
        }
        let registry = self.registry.clone();
        let ctx = self.ctx.clone();
        tokio::spawn(async move {
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

    pub(super) fn ask_user(&mut self, id: String, reason: String) {
        let Some(call) = self.machine.call(&id) else {
            return;
        };
        let command = call.intent.and_then(|i| i.as_command().cloned());
        let network = call
            .intent
            .and_then(|i| i.as_network().cloned().map(Box::new));
        let mcp = call.intent.and_then(|i| i.as_mcp().cloned().map(Box::new));
        let schedule = call
            .intent
            .and_then(|i| i.as_schedule().cloned().map(Box::new));
        let preview = match (self.prepared.get(&id), command, self.rulings.get(&id)) {
            (None, None, Some(ruling)) if network.is_some() => {
                let n = *network.expect("checked above");
                ApprovalPreview::Network {
                    method: n.method,
                    url: n.url,
                    domain: n.domain,
                    risk: ruling.assessment.risk,
                    risk_reason: ruling.assessment.reason.clone(),
                }
            }
            (Some(changes), _, _) => match changes.as_slice() {
                [change] if change.op == crate::tools::change::ChangeOp::Write => {
                    ApprovalPreview::FileChange {
                        path: change.display_path.clone(),
                        unified: change.unified(),
                        diff: change.diff.clone(),
                        creates: change.creates(),
                        notes: change.notes.clone(),
                    }
                }
                _ => ApprovalPreview::Files {
                    files: changes.iter().map(FilePreview::of).collect(),
                },
            },
            (None, Some(command), Some(ruling)) => {
                let a = &ruling.assessment;
                ApprovalPreview::Command {
                    command: command.command,
                    cwd: command.cwd.unwrap_or_else(|| ".".into()),
                    risk: a.risk,
                    risk_reason: a.reason.clone(),
                    grant_offered: a.grant.is_some(),
                    grant_prefix: a.grant_label(),
                    network: a.network,
                    outside_sandbox: command.outside_sandbox,
                }
            }
            (None, None, ruling) if let Some(m) = mcp.map(|m| *m) => ApprovalPreview::McpTool {
                server: m.server,
                tool: m.tool,
                arguments: serde_json::to_string_pretty(&call.args).unwrap_or_default(),
                read_only_hint: m.read_only_hint,
                grant_offered: ruling.is_some_and(|r| r.assessment.grant.is_some()),
            },
            (None, None, _) if let Some(change) = schedule.map(|s| *s) => {
                ApprovalPreview::Schedule { change }
            }
            _ => ApprovalPreview::Other {
                arguments: call.args.value().clone(),
            },
        };
        let name = call.name_owned();
        self.emit(AgentEvent::ApprovalRequested {
            id: id.clone(),
            name,
            reason,
            preview,
        });
    }

    pub(super) fn run_tool(&mut self, id: String, answer: Option<ApprovalAnswer>) {
        let Some(call) = self.machine.call(&id) else {
            return;
        };
        let (name, kind, args) = (call.name_owned(), call.kind, call.args.clone());
        let command = call.intent.and_then(|i| i.as_command().cloned());
        self.policy.record_action(kind, Instant::now());
        let prepared = self.prepared.remove(&id);
        let ruling = self.rulings.remove(&id);
        let registry = self.registry.clone();
        let mut ctx = self.ctx.clone();
        ctx.cancel = self.tool_cancel.child_token();
        ctx.call_id = id.clone();
        ctx.turn = self.turn;
        if let Some(r) = &ruling
            && r.opens_network(answer.is_some())
        {
            ctx.sandbox.allow_network = true;
        }
        if let Some(r) = &ruling
            && r.leaves_sandbox(answer.is_some())
        {
            ctx.sandbox = crate::policy::sandbox::SandboxSpec::off();
        }
        let snapshot_command = match (&ruling, command) {
            (Some(r), Some(c)) if r.assessment.snapshot => Some(c.command),
            _ => None,
        };
        let changelog = self.changelog.clone();
        let turn = self.turn;
        let tx = self.internal_tx.clone();
        tokio::spawn(async move {
            let started = Instant::now();
            let (result, journal_error): (ToolResult, Option<String>) = match prepared {
                Some(changes) => {
                    let selection = match answer {
                        Some(ApprovalAnswer::ApproveHunks { hunks }) => HunkSelection::Only(hunks),
                        _ => HunkSelection::All,
                    };
                    let applied = applied_events(&id, &changes, &selection);
                    let done = write_with_record(
                        &registry, changes, selection, changelog, turn, &id, &ctx,
                    )
                    .await;
                    if done.0.success {
                        for event in applied {
                            let _ = tx.send(Internal::Applied(event));
                        }
                    }
                    done
                }
                None => match (snapshot_command, changelog) {
                    (Some(command), Some(changelog)) => {
                        run_with_snapshots(
                            &registry, &name, args, &command, changelog, turn, &id, &ctx,
                        )
                        .await
                    }
                    _ => (registry.run(&name, &args, &ctx).await, None),
                },
            };
            if let Some(message) = journal_error {
                let _ = tx.send(Internal::JournalFailed(message));
            }
            let event = Event::ToolFinished {
                id,
                result,
                duration_ms: started.elapsed().as_millis() as u64,
            };
            let _ = tx.send(Internal::Machine(event));
        });
    }

    pub(super) fn run_hooks(&mut self, files: Vec<String>) {
        let hooks = self.hooks.clone();
        let mut ctx = self.ctx.clone();
        ctx.cancel = self.tool_cancel.child_token();
        let events = self.events.clone();
        let tx = self.internal_tx.clone();
        tokio::spawn(async move {
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
