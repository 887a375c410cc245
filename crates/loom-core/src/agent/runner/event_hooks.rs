//! The runner's side of the hooks of Claude Code's events: what each event's hook gets on
//! stdin, and what its answer does — SessionStart context before the first prompt, a
//! prompt blocked or given context (in order, by one worker), a call refused or asked
//! about before it runs, a result the model hears more about, a turn that must go on, and
//! the person notified when an approval waits. Each run is reported as a `HookResult`.

use serde_json::{Map, json};

use super::*;
use crate::agent::events::UserInput;
use crate::hooks::contract::{Common, input};
use crate::hooks::dispatch::{EventHookSet, Outcome};
use crate::hooks::event::HookEvent;
use crate::tools::ToolArgs;

/// The fields of an event's input after the common ones.
fn fields(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// Tell the person about each hook run.
fn report(events: &mpsc::UnboundedSender<AgentEvent>, outcome: &Outcome) {
    for r in &outcome.reports {
        let _ = events.send(AgentEvent::HookResult {
            name: r.name.clone(),
            success: r.success,
            output: r.output.clone(),
            duration_ms: r.duration_ms,
        });
    }
}

/// The message that carries hooks' context to the model.
fn context_message(event: HookEvent, context: &[String]) -> Option<String> {
    (!context.is_empty()).then(|| {
        format!(
            "[Loom] Context from the {} hook:\n{}",
            event.name(),
            context.join("\n")
        )
    })
}

/// A call's PreToolUse hooks, ready to run off the runner.
pub(super) struct PreToolUse {
    set: EventHookSet,
    name: String,
    input: Value,
    ctx: ToolContext,
    events: mpsc::UnboundedSender<AgentEvent>,
    /// Whether the policy offers a session grant for the call (only then may a hook's
    /// allow skip the person's approval).
    grantable: bool,
}

impl PreToolUse {
    /// The verdict after the hooks: a block refuses the call, an ask asks the person even
    /// where the policy would allow it, and an allow skips asking only where the policy
    /// asks and would accept a session grant. A policy refusal is never undone.
    pub(super) async fn rule(self, verdict: Verdict) -> Verdict {
        let outcome = self
            .set
            .run(
                HookEvent::PreToolUse,
                Some(&self.name),
                &self.input,
                &self.ctx,
            )
            .await;
        report(&self.events, &outcome);
        match (verdict, outcome) {
            (Verdict::Deny { reason }, _) => Verdict::Deny { reason },
            (
                _,
                Outcome {
                    block: Some(why), ..
                },
            ) => Verdict::Blocked {
                reason: format!("a PreToolUse hook refused this call: {why}"),
            },
            (Verdict::Allow, Outcome { ask: Some(why), .. }) => Verdict::Ask {
                reason: format!("a PreToolUse hook asks: {why}"),
            },
            (Verdict::Ask { .. }, Outcome { allow: true, .. }) if self.grantable => Verdict::Allow,
            (verdict, _) => verdict,
        }
    }
}

/// A call's PostToolUse hooks, run when its result is in.
pub(super) struct PostToolUse {
    set: EventHookSet,
    name: String,
    input: Value,
    ctx: ToolContext,
    events: mpsc::UnboundedSender<AgentEvent>,
}

impl PostToolUse {
    /// Run the hooks with the result as `tool_response`; a block's reason and the hooks'
    /// context are added to the result the model reads.
    pub(super) async fn apply(mut self, result: &mut ToolResult) {
        if let Value::Object(map) = &mut self.input {
            map.insert(
                "tool_response".into(),
                serde_json::to_value(&*result).unwrap_or(Value::Null),
            );
        }
        let outcome = self
            .set
            .run(
                HookEvent::PostToolUse,
                Some(&self.name),
                &self.input,
                &self.ctx,
            )
            .await;
        report(&self.events, &outcome);
        if let Some(why) = &outcome.block {
            crate::tools::registry::with_note(
                result,
                &format!("[Loom] A PostToolUse hook reported a problem with this call: {why}"),
            );
        }
        if let Some(context) = context_message(HookEvent::PostToolUse, &outcome.context) {
            crate::tools::registry::with_note(result, &context);
        }
    }
}

impl Runner {
    /// What every hook input carries for this session.
    fn hook_common(&self) -> Common {
        Common {
            session_id: self.work.ctx.session_id.clone(),
            transcript_path: self
                .persistence
                .transcript_path()
                .map(|p| p.display().to_string()),
            cwd: self
                .work
                .ctx
                .workspace
                .as_deref()
                .map(|c| c.root().display().to_string())
                .unwrap_or_else(|| self.work.ctx.cwd.display().to_string()),
        }
    }

    /// The input of a tool event's hook for call `id`.
    fn tool_input(&self, event: HookEvent, id: &str, name: &str, args: &ToolArgs) -> Value {
        input(
            event,
            &self.hook_common(),
            fields(json!({
                "tool_name": name,
                "tool_input": args.value(),
                "tool_use_id": id,
            })),
        )
    }

    /// The PreToolUse hooks of call `id`, if any apply.
    pub(super) fn pre_tool_use(
        &self,
        id: &str,
        name: &str,
        args: &ToolArgs,
        grantable: bool,
    ) -> Option<PreToolUse> {
        let set = self.work.hooks.events();
        set.any(HookEvent::PreToolUse, Some(name)).then(|| {
            let mut ctx = self.work.ctx.clone();
            ctx.cancel = self.schedule.call_token();
            PreToolUse {
                set: set.clone(),
                name: name.to_string(),
                input: self.tool_input(HookEvent::PreToolUse, id, name, args),
                ctx,
                events: self.events.clone(),
                grantable,
            }
        })
    }

    /// The PostToolUse hooks of call `id`, if any apply; they run with `ctx` (the call's).
    pub(super) fn post_tool_use(
        &self,
        id: &str,
        name: &str,
        args: &ToolArgs,
        ctx: &ToolContext,
    ) -> Option<PostToolUse> {
        let set = self.work.hooks.events();
        set.any(HookEvent::PostToolUse, Some(name))
            .then(|| PostToolUse {
                set: set.clone(),
                name: name.to_string(),
                input: self.tool_input(HookEvent::PostToolUse, id, name, args),
                ctx: ctx.clone(),
                events: self.events.clone(),
            })
    }

    /// Run the SessionStart hooks (before any op is read); their context goes to the model.
    pub(super) async fn session_start(&mut self) {
        let set = self.work.hooks.events().clone();
        if !set.any(HookEvent::SessionStart, None) {
            return;
        }
        let source = if self.machine.conversation().is_empty() {
            "startup"
        } else {
            "resume"
        };
        let input = input(
            HookEvent::SessionStart,
            &self.hook_common(),
            fields(json!({ "source": source })),
        );
        let mut ctx = self.work.ctx.clone();
        ctx.cancel = self.schedule.call_token();
        let outcome = set.run(HookEvent::SessionStart, None, &input, &ctx).await;
        report(&self.events, &outcome);
        if let Some(message) = context_message(HookEvent::SessionStart, &outcome.context) {
            self.step(Event::Note(message));
        }
    }

    /// A prompt to send, the person's or a custom command's: through the UserPromptSubmit
    /// hooks when there are any (their worker passes it on, or blocks it), else straight to
    /// the machine.
    pub(super) fn submit_prompt(&self, input: UserInput) -> Option<Event> {
        match &self.prompt_hooks {
            Some(hooks) => hooks.send(input).err().map(|e| Event::Submit(e.0)),
            None => Some(Event::Submit(input)),
        }
    }

    /// The worker that runs the UserPromptSubmit hooks on each prompt, in the order sent:
    /// a blocked prompt is not sent (the person is told why), the others reach the
    /// machine with the hooks' context. `None` when there are no such hooks.
    pub(super) fn start_prompt_hooks(&self) -> Option<mpsc::UnboundedSender<UserInput>> {
        let set = self.work.hooks.events().clone();
        if !set.any(HookEvent::UserPromptSubmit, None) {
            return None;
        }
        let (tx, mut rx) = mpsc::unbounded_channel::<UserInput>();
        let common = self.hook_common();
        let mut ctx = self.work.ctx.clone();
        ctx.cancel = CancellationToken::new();
        let events = self.events.clone();
        let internal = self.internal_tx.clone();
        tokio::spawn(async move {
            while let Some(prompt) = rx.recv().await {
                let event = HookEvent::UserPromptSubmit;
                let input = input(event, &common, fields(json!({ "prompt": prompt.text })));
                let outcome = set.run(event, None, &input, &ctx).await;
                report(&events, &outcome);
                let submit = match outcome.block {
                    Some(reason) => Event::PromptBlocked {
                        input: prompt,
                        reason,
                    },
                    None => Event::SubmitWithContext {
                        input: prompt,
                        context: context_message(event, &outcome.context),
                    },
                };
                if internal.send(Internal::Machine(submit)).is_err() {
                    return;
                }
            }
        });
        Some(tx)
    }

    /// Run the Stop hooks; the machine hears whether one blocked the end of the turn.
    pub(super) fn run_stop_hooks(&mut self, stop_hook_active: bool) {
        let set = self.work.hooks.events().clone();
        let last = self
            .machine
            .conversation()
            .iter()
            .rev()
            .find_map(|m| match m {
                crate::llm::Message::Assistant { content, .. } => Some(content.clone()),
                _ => None,
            })
            .unwrap_or_default();
        let input = input(
            HookEvent::Stop,
            &self.hook_common(),
            fields(json!({
                "stop_hook_active": stop_hook_active,
                "last_assistant_message": last,
            })),
        );
        let mut ctx = self.work.ctx.clone();
        ctx.cancel = self.schedule.call_token();
        let events = self.events.clone();
        let tx = self.internal_tx.clone();
        tokio::spawn(async move {
            let outcome = set.run(HookEvent::Stop, None, &input, &ctx).await;
            report(&events, &outcome);
            if !ctx.cancel.is_cancelled() {
                let block = outcome.block;
                let _ = tx.send(Internal::Machine(Event::StopHooksFinished { block }));
            }
        });
    }

    /// Run the Notification hooks with `message` (an approval waits); nothing waits for
    /// them.
    pub(super) fn notify_hooks(&self, message: String) {
        let set = self.work.hooks.events().clone();
        if !set.any(HookEvent::Notification, None) {
            return;
        }
        let input = input(
            HookEvent::Notification,
            &self.hook_common(),
            fields(json!({
                "message": message,
                "notification_type": "permission_prompt",
            })),
        );
        let mut ctx = self.work.ctx.clone();
        ctx.cancel = self.schedule.call_token();
        let events = self.events.clone();
        tokio::spawn(async move {
            let outcome = set.run(HookEvent::Notification, None, &input, &ctx).await;
            report(&events, &outcome);
        });
    }
}

#[cfg(test)]
#[path = "event_hooks_tests.rs"]
mod tests;
