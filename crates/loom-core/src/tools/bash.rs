//! `bash`: run a shell command in the workspace.
//!
//! `sh -c COMMAND` in its own PID namespace and process group with stdin closed and an
//! allowlisted environment ([`loom_sandbox::env`]); the working directory goes through
//! confinement. When the call ends, every process it started ends too.
//! Each stream is captured up to 256 KiB (head and tail kept) and what the model sees is cut
//! in the middle to the configured budget. Whether a command may run at all is decided
//! above this tool, by the policy; this file only runs what it is given, safely.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::process::{CommandOutcome, CommandSpec, run};
use super::{CallIntent, CommandIntent, ToolContext, ToolError, ToolKind, ToolResult, TypedTool};
use crate::base::text::cut_middle;
use crate::policy::paths::{Access, Confinement};
use crate::protocol::tool_data::BashData;
use loom_sandbox::looks_denied;

/// Default timeout in seconds.
pub const DEFAULT_TIMEOUT_SECS: u64 = 60;
/// Longest timeout a call may ask for.
pub const MAX_TIMEOUT_SECS: u64 = 300;

/// Arguments of `bash`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BashArgs {
    /// The command line.
    pub command: String,
    /// Working directory, relative to the workspace root.
    pub cwd: Option<String>,
    /// Default 60, at most 300.
    pub timeout_secs: Option<u64>,
    /// Only after a sandbox denial, when really needed (the user must approve).
    pub outside_sandbox: Option<bool>,
}

/// The `bash` tool.
pub struct Bash;

const DESCRIPTION: &str = "Run a shell command (`sh -c`) in the workspace; returns \
exit_code, stdout and stderr (long output cut in the middle). No stdin; it is killed with its \
children after timeout_secs. Read and edit files with the file tools, not bash.";

#[async_trait]
impl TypedTool for Bash {
    type Args = BashArgs;
    fn name(&self) -> &'static str {
        "bash"
    }
    fn description(&self) -> &'static str {
        DESCRIPTION
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Execute
    }
    fn check(&self, a: &BashArgs) -> Result<(), ToolError> {
        if a.command.trim().is_empty() {
            return Err(ToolError::InvalidArguments(
                "command is empty; give the shell command to run".into(),
            ));
        }
        Ok(())
    }
    fn intent(&self, a: &BashArgs) -> Result<CallIntent, ToolError> {
        Ok(CallIntent::runs(CommandIntent {
            command: a.command.clone(),
            cwd: a.cwd.clone(),
            outside_sandbox: a.outside_sandbox == Some(true),
        }))
    }
    fn default_timeout(&self) -> Duration {
        Duration::from_secs(DEFAULT_TIMEOUT_SECS)
    }
    fn timeout(&self, a: &BashArgs) -> Duration {
        let secs = a
            .timeout_secs
            .unwrap_or(DEFAULT_TIMEOUT_SECS)
            .clamp(1, MAX_TIMEOUT_SECS);
        // The tool enforces its own timeout; the registry's is a backstop after the kill.
        Duration::from_secs(secs + 10)
    }
    async fn run(&self, args: Arc<BashArgs>, ctx: &ToolContext) -> ToolResult {
        match execute(&args, ctx).await {
            Ok(r) => r,
            Err(e) => e.into(),
        }
    }
}

/// Run the command in `ctx.sandbox`: whether a call leaves the sandbox was decided before
/// it got here (by the policy's ruling, or by the person running the tool directly), so
/// the call's own `outside_sandbox` is not read again.
async fn execute(args: &BashArgs, ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    let conf = ctx.confinement()?;
    let cwd = working_dir(args, ctx, conf)?;
    let mut notes = Vec::new();
    let requested = args.timeout_secs.unwrap_or(DEFAULT_TIMEOUT_SECS);
    let secs = requested.clamp(1, MAX_TIMEOUT_SECS);
    if secs != requested {
        notes.push(format!("timeout_secs {requested} was clamped to {secs}"));
    }
    let env = ctx.limits.env.filter(std::env::vars_os());
    let mut spec = CommandSpec::shell(&args.command, cwd.clone(), env, Duration::from_secs(secs));
    spec.sandbox = ctx.sandbox.clone();
    let sandboxed = spec.sandbox.is_active();
    let outcome = run(&spec, &ctx.cancel)
        .await
        .map_err(|e| ToolError::Other(format!("could not start sh: {e}")))?;
    if outcome.cancelled {
        return Err(ToolError::Cancelled);
    }
    let budget = ctx.limits.bash_stream_budget;
    let (stdout, cut_out) = cut_middle(&outcome.stdout.text(), budget);
    let (stderr, cut_err) = cut_middle(&outcome.stderr.text(), budget);
    let truncated =
        cut_out || cut_err || outcome.stdout.dropped() > 0 || outcome.stderr.dropped() > 0;
    let duration_ms = outcome.duration.as_millis() as u64;
    let mut summary = summary_line(&outcome, secs);
    if truncated {
        summary.push_str(" (output cut in the middle)");
    }
    if outcome.stopped_background {
        notes.push(
            "processes the command left running in the background were stopped when it \
             finished: no process outlives its call"
                .into(),
        );
    }
    for n in &notes {
        summary.push_str("\nNote: ");
        summary.push_str(n);
    }
    let mut data = BashData {
        exit_code: outcome.exit_code.map(i64::from),
        stdout,
        stderr,
        timed_out: outcome.timed_out,
        truncated,
        duration_ms: Some(duration_ms),
        cwd: Some(conf.display(&cwd)),
        sandboxed: Some(sandboxed),
        sandbox_denied: false,
    };
    let success = outcome.exit_code == Some(0) && !outcome.timed_out;
    let denial = if sandboxed {
        looks_denied(&outcome.stderr.text(), &outcome.stdout.text())
    } else {
        None
    };
    if let Some(line) = &denial {
        data.sandbox_denied = true;
        if success {
            summary.push_str(&format!(
                "\nNote: part of the command may have been blocked by the sandbox ({line})"
            ));
        }
    }
    let mut result = ToolResult::ok(summary).with(&data);
    if !success {
        result.success = false;
        result.error = Some(failure(
            &outcome,
            denial.as_deref(),
            secs,
            spec.sandbox.allow_network,
        ));
    }
    Ok(result)
}

/// The directory the command runs in: `cwd` when given (resolved in the workspace), else
/// the session's; it must be a directory inside the workspace.
fn working_dir(
    args: &BashArgs,
    ctx: &ToolContext,
    conf: &Confinement,
) -> Result<PathBuf, ToolError> {
    let cwd = match &args.cwd {
        Some(dir) => conf.resolve(dir, Access::Read)?,
        None => ctx.cwd.clone(),
    };
    if !cwd.starts_with(conf.root()) {
        return Err(ToolError::Other(format!(
            "the working directory {} is outside the workspace",
            cwd.display()
        )));
    }
    if !cwd.exists() {
        return Err(ToolError::NotFound(conf.display(&cwd)));
    }
    if !cwd.is_dir() {
        return Err(ToolError::NotDirectory(conf.display(&cwd)));
    }
    Ok(cwd)
}

/// The first line of the result: how the command ended, how long it took, how much it
/// printed. `secs` is its timeout.
fn summary_line(outcome: &CommandOutcome, secs: u64) -> String {
    let mut summary = match (outcome.exit_code, outcome.signal) {
        _ if outcome.timed_out => {
            format!("timed out after {secs}s; the command and its child processes were killed")
        }
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(sig)) => format!("killed by signal {sig}"),
        (None, None) => "ended without an exit code".to_string(),
    };
    summary.push_str(&format!(
        " in {:.2}s; stdout {} bytes, stderr {} bytes",
        outcome.duration.as_secs_f64(),
        outcome.stdout.total(),
        outcome.stderr.total()
    ));
    summary
}

/// The error of a failed command: the sandbox's refusal (`denial`, the line that shows it)
/// with what to do next, the timeout, or the exit.
fn failure(
    outcome: &CommandOutcome,
    denial: Option<&str>,
    secs: u64,
    allow_network: bool,
) -> String {
    if let Some(line) = denial {
        let net = if allow_network {
            ""
        } else {
            " and has no network access"
        };
        format!(
            "the sandbox blocked this command: it may only write inside the workspace and the \
             temp dir{net} ({line}). If it truly must run outside the sandbox, call bash again \
             with outside_sandbox: true and the user will be asked to approve it"
        )
    } else if outcome.timed_out {
        format!("command timed out after {secs}s and was killed")
    } else {
        match outcome.exit_code {
            Some(code) => format!("command failed with exit code {code}"),
            None => "command was killed by a signal".to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::{Tool, ToolLimits};
    use loom_sandbox::env::EnvPolicy;
    use serde_json::{Value, json};
    use std::sync::Arc;

    fn ws() -> (tempfile::TempDir, ToolContext) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let ctx = ToolContext::for_workspace(dir.path()).unwrap();
        (dir, ctx)
    }

    fn data(r: &ToolResult) -> &Value {
        r.data.as_ref().unwrap()
    }

    #[tokio::test]
    async fn runs_in_workspace_with_streams() {
        let (d, ctx) = ws();
        let r = Bash
            .execute(json!({"command": "pwd; echo e >&2"}), &ctx)
            .await;
        assert!(r.success, "{r:?}");
        let root = std::fs::canonicalize(d.path()).unwrap();
        assert_eq!(data(&r)["stdout"], format!("{}\n", root.display()));
        assert_eq!(data(&r)["stderr"], "e\n");
        assert_eq!(data(&r)["exit_code"], 0);
        let r = Bash
            .execute(json!({"command": "pwd", "cwd": "sub"}), &ctx)
            .await;
        assert!(data(&r)["stdout"].as_str().unwrap().ends_with("/sub\n"));
    }

    #[tokio::test]
    async fn nonzero_exit_is_a_failed_result() {
        let (_d, ctx) = ws();
        let r = Bash
            .execute(json!({"command": "echo nope; exit 2"}), &ctx)
            .await;
        assert!(!r.success);
        assert_eq!(r.error.as_deref(), Some("command failed with exit code 2"));
        assert_eq!(data(&r)["stdout"], "nope\n");
    }

    #[tokio::test]
    async fn errors_for_bad_arguments_and_cwd() {
        let (_d, ctx) = ws();
        for (args, expected) in [
            (json!({"command": "  "}), "command is empty"),
            (json!({}), "missing field `command`"),
            (
                json!({"command": "ls", "cwd": "../"}),
                "outside the workspace",
            ),
            (json!({"command": "ls", "cwd": "missing"}), "does not exist"),
            (
                json!({"command": "ls", "timeout": 3}),
                "unknown field `timeout`",
            ),
        ] {
            let r = Bash.execute(args.clone(), &ctx).await;
            let err = r.error.unwrap();
            assert!(err.contains(expected), "{args}: {err}");
        }
    }

    #[tokio::test]
    async fn timeout_kills_background_grandchildren() {
        let (_d, ctx) = ws();
        let marker = format!("1000.{}2", std::process::id());
        let cmd = format!("sleep {marker} & sleep 1000");
        let r = Bash
            .execute(json!({"command": cmd, "timeout_secs": 1}), &ctx)
            .await;
        assert_eq!(data(&r)["timed_out"], true);
        assert!(r.error.unwrap().contains("timed out"));
        assert!(
            process_gone(&marker),
            "grandchild {marker} survived the timeout"
        );
    }

    /// True when no process with `marker` in its command line runs any more.
    fn process_gone(marker: &str) -> bool {
        for _ in 0..50 {
            if !crate::tools::process::tests::alive_with(marker) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        false
    }

    #[tokio::test]
    async fn huge_output_is_bounded() {
        let (_d, ctx) = ws();
        let r = Bash
            .execute(
                json!({"command": "yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 10000000"}),
                &ctx,
            )
            .await;
        assert!(r.success, "{r:?}");
        let out = data(&r)["stdout"].as_str().unwrap();
        assert!(
            out.len() <= ctx.limits.bash_stream_budget + 200,
            "{}",
            out.len()
        );
        assert!(out.contains("omitted"));
        assert_eq!(data(&r)["truncated"], true);
        assert!(r.output.contains("stdout 10000000 bytes"), "{}", r.output);
    }

    #[tokio::test]
    async fn secrets_are_not_in_the_child_environment() {
        let (_d, mut ctx) = ws();
        // SAFETY: tests in this process do not read this variable concurrently.
        unsafe { std::env::set_var("LOOM_TEST_API_KEY", "sk-very-secret") };
        unsafe { std::env::set_var("LOOM_TEST_PLAIN", "visible") };
        ctx.limits = Arc::new(ToolLimits {
            env: EnvPolicy {
                extra: vec!["LOOM_TEST_*".into()],
            },
            ..ToolLimits::default()
        });
        let r = Bash.execute(json!({"command": "env"}), &ctx).await;
        let out = data(&r)["stdout"].as_str().unwrap();
        assert!(!out.contains("sk-very-secret"), "{out}");
        assert!(out.contains("LOOM_TEST_PLAIN=visible"), "{out}");
        assert!(out.contains("PATH="));
    }

    #[tokio::test]
    async fn timeout_is_clamped_with_a_note() {
        let (_d, ctx) = ws();
        let r = Bash
            .execute(json!({"command": "true", "timeout_secs": 900}), &ctx)
            .await;
        assert!(r.output.contains("clamped to 300"), "{}", r.output);
        assert_eq!(
            Bash.timeout_for(&json!({"command": "true", "timeout_secs": 900})),
            Duration::from_secs(310)
        );
    }

    /// Issue 27: bash read `outside_sandbox` from its raw arguments and dropped the
    /// sandbox itself, a second decision after the policy's. A prepared call now runs in
    /// the sandbox its context carries, whatever its arguments ask.
    #[tokio::test]
    async fn a_prepared_call_runs_in_the_sandbox_it_is_given() {
        if !matches!(
            loom_sandbox::availability(),
            loom_sandbox::Availability::Available { .. }
        ) {
            return;
        }
        let (d, mut ctx) = ws();
        let root = ctx.confinement().unwrap().root().to_path_buf();
        ctx.sandbox = loom_sandbox::SandboxSpec::workspace_write(&root, &[], false);
        let registry = crate::tools::ToolRegistry::builtin();
        let call = registry
            .prepare("bash", json!({"command": "true", "outside_sandbox": true}))
            .unwrap();
        assert!(call.intent.as_command().unwrap().outside_sandbox);
        let r = registry.run("bash", &call.args, &ctx).await;
        assert!(r.success, "{r:?}");
        assert_eq!(data(&r)["sandboxed"], true, "{r:?}");
        let direct = registry
            .execute_as_person(
                "bash",
                json!({"command": "true", "outside_sandbox": true}),
                &ctx,
            )
            .await;
        assert_eq!(data(&direct)["sandboxed"], false, "{direct:?}");
        drop(d);
    }

    #[tokio::test]
    async fn unicode_output() {
        let (_d, ctx) = ws();
        let r = Bash
            .execute(json!({"command": "printf '日本語 ✓\\n'"}), &ctx)
            .await;
        assert_eq!(data(&r)["stdout"], "日本語 ✓\n");
    }
}
