//! Running the hooks of one event: the configured commands whose matcher selects the
//! tool, each through the same policy (a command the policy forbids or denies never runs)
//! and sandbox as `bash`, the event as JSON on stdin, with its time limit (the whole
//! process group killed when it passes) and its output capped. Their replies are combined
//! into one [`Outcome`]: a block wins over an ask, an ask over an allow.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::contract::{Effect, Ended, Reply, interpret};
use super::event::HookEvent;
use super::matcher::Matcher;
use crate::base::text::cut_middle;
use crate::config::hooks::{DEFAULT_TIMEOUT_SECS, EventHooks};
use crate::policy::Policy;
use crate::tools::ToolContext;
use crate::tools::process::{CommandSpec, run};

/// Bytes of a hook's output kept (for the model and for the person).
pub const OUTPUT_CAP: usize = 8 * 1024;

/// One configured event hook, ready to run.
#[derive(Debug, Clone)]
pub struct EventHook {
    /// Its event.
    pub event: HookEvent,
    /// The command line.
    pub command: String,
    /// Which tools it is for.
    pub matcher: Matcher,
    /// Time limit.
    pub timeout: Duration,
    /// Why the policy refuses this command, if it does.
    pub refusal: Option<String>,
}

/// The event hooks of a session (cheap to clone).
#[derive(Debug, Clone, Default)]
pub struct EventHookSet {
    hooks: Arc<Vec<EventHook>>,
}

/// What one hook run is reported as, to the person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// `EVENT: command`.
    pub name: String,
    /// Whether it ran and neither failed nor blocked.
    pub success: bool,
    /// What it said or what went wrong.
    pub output: String,
    /// How long it ran.
    pub duration_ms: u64,
}

/// The combined answer of an event's hooks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Why the event is blocked (the first blocking hook's reason, naming the hook).
    pub block: Option<String>,
    /// Why the person must be asked (PreToolUse).
    pub ask: Option<String>,
    /// Whether a hook allowed the call (PreToolUse).
    pub allow: bool,
    /// Context for the model, in hook order.
    pub context: Vec<String>,
    /// Each hook's run, for the person.
    pub reports: Vec<Report>,
}

impl EventHookSet {
    /// The hooks of `config`, each judged by `policy` as a `bash` command in `root`.
    pub fn build(config: &EventHooks, policy: &Policy, root: &Path) -> EventHookSet {
        let hooks = config
            .entries
            .iter()
            .filter_map(|(event, h)| {
                let intent = crate::policy::CallIntent::runs(crate::policy::CommandIntent {
                    command: h.command.clone(),
                    cwd: None,
                    outside_sandbox: false,
                });
                Some(EventHook {
                    event: *event,
                    command: h.command.clone(),
                    // Checked when the config was loaded.
                    matcher: Matcher::new(h.matcher.as_deref().unwrap_or("")).ok()?,
                    timeout: Duration::from_secs(
                        h.timeout_secs
                            .unwrap_or(DEFAULT_TIMEOUT_SECS)
                            .clamp(1, 3600),
                    ),
                    refusal: policy.refusal("bash", &intent, Some(root)),
                })
            })
            .collect();
        EventHookSet {
            hooks: Arc::new(hooks),
        }
    }

    /// A set of these hooks (for tests and sub-agents).
    pub fn of(hooks: Vec<EventHook>) -> EventHookSet {
        EventHookSet {
            hooks: Arc::new(hooks),
        }
    }

    /// The hooks of `event` that apply to `tool` (every hook of a tool-less event).
    pub fn selected(&self, event: HookEvent, tool: Option<&str>) -> Vec<&EventHook> {
        self.hooks
            .iter()
            .filter(|h| h.event == event)
            .filter(|h| !event.has_tool() || tool.is_some_and(|t| h.matcher.selects(t)))
            .collect()
    }

    /// Whether any hook would run for `event` on `tool`.
    pub fn any(&self, event: HookEvent, tool: Option<&str>) -> bool {
        !self.selected(event, tool).is_empty()
    }

    /// Run the hooks of `event` on `tool` one after the other with `input` on stdin, and
    /// combine what they say.
    pub async fn run(
        &self,
        event: HookEvent,
        tool: Option<&str>,
        input: &Value,
        ctx: &ToolContext,
    ) -> Outcome {
        let mut outcome = Outcome::default();
        let stdin = serde_json::to_vec(input).unwrap_or_default();
        for hook in self.selected(event, tool) {
            if ctx.cancel.is_cancelled() {
                break;
            }
            let started = Instant::now();
            let reply = run_one(hook, &stdin, ctx).await;
            let name = format!("{}: {}", event.name(), hook.command);
            let mut said = reply.system_message.clone().unwrap_or_default();
            let success = match reply.effect {
                Effect::Proceed => true,
                Effect::Allow => {
                    outcome.allow = true;
                    said = join(&said, "allowed the call");
                    true
                }
                Effect::Ask(why) => {
                    said = join(&said, &format!("asks the person: {why}"));
                    outcome.ask.get_or_insert(why);
                    true
                }
                Effect::Block(why) => {
                    said = join(&said, &format!("blocked: {why}"));
                    outcome.block.get_or_insert(why);
                    false
                }
                Effect::Failed(why) => {
                    said = join(&said, &why);
                    false
                }
            };
            if let Some(context) = reply.context {
                // Already cut to the cap by `run_one` ([`bounded`]): cut again, its marker
                // was replaced by one counting only the first marker's bytes.
                outcome.context.push(context);
            }
            outcome.reports.push(Report {
                name,
                success,
                output: if said.is_empty() { "ok".into() } else { said },
                duration_ms: started.elapsed().as_millis() as u64,
            });
        }
        outcome
    }
}

fn join(a: &str, b: &str) -> String {
    if a.is_empty() {
        b.to_string()
    } else {
        format!("{a}\n{b}")
    }
}

/// Run one hook and read its reply (a refused or unstartable hook is a non-blocking error).
async fn run_one(hook: &EventHook, stdin: &[u8], ctx: &ToolContext) -> super::contract::Reply {
    let failed = |why: String| super::contract::Reply {
        effect: Effect::Failed(why),
        context: None,
        system_message: None,
    };
    if let Some(reason) = &hook.refusal {
        return failed(format!("not run: {reason}"));
    }
    let Some(root) = ctx.workspace.as_ref().map(|c| c.root().to_path_buf()) else {
        return failed("not run: no workspace".into());
    };
    let mut env = ctx.limits.env.filter(std::env::vars_os());
    for name in ["LOOM_PROJECT_DIR", "CLAUDE_PROJECT_DIR"] {
        env.push((name.into(), root.display().to_string()));
    }
    let mut spec = CommandSpec::shell(&hook.command, root, env, hook.timeout);
    spec.sandbox = ctx.sandbox.clone();
    spec.stdin = Some(stdin.to_vec());
    match run(&spec, &ctx.cancel).await {
        Err(e) => failed(format!("could not start: {e}")),
        Ok(out) => {
            // The whole captured output is read (a JSON answer longer than the cap must
            // still parse: cut first, a long `deny` read as no answer and the call went
            // on); only what is kept and shown is cut.
            let (stdout, stderr) = (out.stdout.text(), out.stderr.text());
            let mut reply = bounded(interpret(
                hook.event,
                Ended {
                    exit_code: out.exit_code,
                    timed_out: out.timed_out,
                    stdout: &stdout,
                    stderr: &stderr,
                },
            ));
            if out.timed_out {
                reply.effect = Effect::Failed(format!(
                    "timed out after {}s; the hook was killed",
                    hook.timeout.as_secs()
                ));
            }
            reply
        }
    }
}

/// `reply` with every text it carries cut to [`OUTPUT_CAP`], for the model and the person.
fn bounded(mut reply: Reply) -> Reply {
    let cut = |t: &mut String| *t = cut_middle(t, OUTPUT_CAP).0;
    match &mut reply.effect {
        Effect::Ask(t) | Effect::Block(t) | Effect::Failed(t) => cut(t),
        Effect::Proceed | Effect::Allow => {}
    }
    reply.context.iter_mut().for_each(cut);
    reply.system_message.iter_mut().for_each(cut);
    reply
}
