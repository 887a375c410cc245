//! `loom tool list` and `loom tool run`: a command-line door to each tool.
//!
//! People debug tools through it and outside checks drive them with it. The person typing
//! is the approver, so nothing asks; but confinement and every refusal rule of the policy
//! still apply, exactly as they do for the model.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use serde_json::Value;

use crate::compose::AgentFactory;
use crate::config::Config;
use crate::cron::JobStore;
use crate::memory::Memory;
use crate::policy::Policy;
use crate::setup::{self, SessionFiles, Unoffered};
use crate::tools::{ToolContext, ToolRegistry, ToolResult};

/// Exit code for a tool that returned an error.
pub const EXIT_TOOL_ERROR: u8 = 1;
/// Exit code for bad usage (unknown tool, arguments that are not JSON).
pub const EXIT_USAGE: u8 = 2;

/// Every tool the agent has, built as for a session in `workspace` under `config` (the
/// provider resolved as `loom exec` would, memory and cron from the data directory), with
/// those that are not offered and why. MCP servers are not started: `loom mcp` is their
/// door.
pub async fn registry(
    config: &Config,
    workspace: &Path,
    ctx: &ToolContext,
) -> (ToolRegistry, Vec<Unoffered>) {
    let mut config = config.clone();
    config.integrations.mcp_servers.clear();
    let provider = setup::resolve_provider(&config).await;
    let mut files = SessionFiles::none();
    if let Some(data) = crate::base::dirs::data_dir() {
        files.memory = Memory::open(&data.join(crate::memory::DB_FILE), workspace)
            .ok()
            .map(Arc::new);
        files.cron = Some(JobStore::for_workspace(&data, workspace));
    }
    AgentFactory::new(&config, &provider, ctx.clone(), true, &files).tools_by_hand()
}

/// Print the schema of every tool offered to the model as a JSON array (OpenAI
/// function-tool format) on stdout, and on stderr which tools are offered and, for each
/// one that is not, why and how to enable it.
pub fn list(registry: &ToolRegistry, unoffered: &[Unoffered]) -> anyhow::Result<ExitCode> {
    let schemas = Value::Array(registry.schemas());
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, &schemas)?;
    writeln!(out)?;
    let mut err = std::io::stderr().lock();
    writeln!(err, "offered: {}", registry.names().join(", "))?;
    for u in unoffered {
        writeln!(err, "not offered: {}: {}", u.name, u.why)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Run one tool with JSON arguments and print its result as JSON.
pub async fn run(
    registry: &ToolRegistry,
    policy: &Policy,
    ctx: &ToolContext,
    name: &str,
    args_json: &str,
) -> anyhow::Result<ExitCode> {
    if registry.get(name).is_none() {
        eprintln!(
            "loom: unknown tool `{name}`; available: {}",
            registry.names().join(", ")
        );
        return Ok(ExitCode::from(EXIT_USAGE));
    }
    let args: Value = match serde_json::from_str(args_json) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("loom: --args is not valid JSON: {e}");
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    };
    let workspace = ctx.workspace.as_deref().map(|c| c.root());
    let result = match registry.prepare(name, args) {
        Err(e) => ToolResult::from(e),
        Ok(call) => match policy.refusal(name, &call.intent, workspace) {
            Some(reason) => ToolResult::err(reason),
            None => {
                registry
                    .run_as_asked(name, &call.args, &call.intent, ctx)
                    .await
            }
        },
    };
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, &result).context("printing the result")?;
    writeln!(out)?;
    Ok(if result.success {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_TOOL_ERROR)
    })
}
