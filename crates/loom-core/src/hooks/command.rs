//! User hooks: commands from config (`[[hooks.post_tools]]`) run after a batch that changed
//! matching files — formatters, linters, quick checks. They run in the workspace through
//! the same policy (forbidden and denied commands never run) and sandbox as bash; when one
//! fails, its output goes to the model so it can fix what it broke.

use std::time::Duration;

use async_trait::async_trait;
use globset::GlobMatcher;

use super::{HookOutcome, PostToolsHook};
use crate::base::text::cut_middle;
use crate::tools::ToolContext;
use crate::tools::process::{CommandSpec, run};

/// Bytes of hook output sent to the model.
const OUTPUT_BUDGET: usize = 8 * 1024;

/// One configured command.
pub struct CommandHook {
    /// The command line.
    pub command: String,
    /// Only run when a changed file matches.
    pub glob: Option<GlobMatcher>,
    /// Time limit.
    pub timeout: Duration,
    /// Why the policy refuses this command, if it does.
    pub refusal: Option<String>,
}

#[async_trait]
impl PostToolsHook for CommandHook {
    fn name(&self) -> String {
        self.command.clone()
    }

    async fn run(&self, files: &[String], ctx: &ToolContext) -> HookOutcome {
        if let Some(glob) = &self.glob
            && !files.iter().any(|f| glob.is_match(f))
        {
            return HookOutcome {
                success: true,
                output: format!("skipped: no changed file matches {}", glob.glob()),
                message_for_model: None,
            };
        }
        if let Some(reason) = &self.refusal {
            return HookOutcome {
                success: false,
                output: format!("not run: {reason}"),
                message_for_model: None,
            };
        }
        let Some(root) = ctx.workspace.as_ref().map(|c| c.root().to_path_buf()) else {
            return HookOutcome {
                success: false,
                output: "no workspace".into(),
                message_for_model: None,
            };
        };
        let env = ctx.limits.env.filter(std::env::vars_os());
        let mut spec = CommandSpec::shell(&self.command, root, env, self.timeout);
        spec.sandbox = ctx.sandbox.clone();
        match run(&spec, &ctx.cancel).await {
            Err(e) => HookOutcome {
                success: false,
                output: format!("could not start: {e}"),
                message_for_model: None,
            },
            Ok(out) => {
                let text = format!("{}{}", out.stdout.text(), out.stderr.text());
                let (text, _) = cut_middle(text.trim_end(), OUTPUT_BUDGET);
                let ok = out.exit_code == Some(0) && !out.timed_out;
                let status = if out.timed_out {
                    format!("timed out after {}s", self.timeout.as_secs())
                } else {
                    match out.exit_code {
                        Some(c) => format!("exit code {c}"),
                        None => "killed by a signal".into(),
                    }
                };
                HookOutcome {
                    success: ok,
                    output: if text.is_empty() { status.clone() } else { format!("{status}\n{text}") },
                    message_for_model: (!ok).then(|| {
                        format!(
                            "[Loom] The post-tools hook `{}` failed ({status}) after your last changes. \
                             Its output:\n{text}\nFix what it reports.",
                            self.command
                        )
                    }),
                }
            }
        }
    }
}
