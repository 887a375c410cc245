//! `loom mcp list` and `loom mcp call`: the MCP servers from the command line, to see why
//! one does not start and to try a tool without a model.

use std::io::Write;
use std::process::ExitCode;

use crate::config::Config;
use crate::mcp::{McpManager, schema};
use crate::protocol::mcp::ServerState;
use crate::tools::{ToolContext, ToolRegistry};

/// Exit code when a server failed or a tool returned an error.
pub const EXIT_FAILED: u8 = 1;
/// Exit code for bad usage (unknown server or tool, arguments that are not JSON).
pub const EXIT_USAGE: u8 = 2;

/// Start every enabled server, wait for each, print the status, stop them.
pub async fn list(config: &Config, json: bool) -> anyhow::Result<ExitCode> {
    if config.integrations.mcp_servers.is_empty() {
        // None configured is an answer, not a usage error: scripts get an empty list.
        let mut out = std::io::stdout().lock();
        if json {
            writeln!(out, "[]")?;
        } else {
            writeln!(
                out,
                "no MCP servers configured; add one to ~/.config/loom/config.toml as \
                 [mcp_servers.NAME] with `command = \"...\"` (stdio) or `url = \"...\"` \
                 (streamable HTTP); see docs/mcp.md"
            )?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let manager = McpManager::start(&config.integrations.mcp_servers);
    manager.settled().await;
    let status = manager.status();
    manager.shutdown().await;
    let mut out = std::io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut out, &status)?;
        writeln!(out)?;
    } else {
        for s in &status {
            writeln!(out, "{}  [{} {}]", s.line(), s.transport, s.target)?;
            for t in &s.tools {
                writeln!(out, "  {t}")?;
            }
            for n in &s.notices {
                writeln!(out, "  note: {n}")?;
            }
            for l in &s.stderr {
                writeln!(out, "  stderr: {l}")?;
            }
        }
    }
    let failed = status
        .iter()
        .any(|s| matches!(s.state, ServerState::Failed { .. }));
    Ok(if failed {
        ExitCode::from(EXIT_FAILED)
    } else {
        ExitCode::SUCCESS
    })
}

/// Start `server`, call its `tool` with `args_json` through the same registry door and
/// policy refusals as `loom tool run`, print the result, stop the server.
pub async fn call(
    config: &Config,
    ctx: &ToolContext,
    server: &str,
    tool: &str,
    args_json: &str,
) -> anyhow::Result<ExitCode> {
    let Some(configured) = config
        .integrations
        .mcp_servers
        .iter()
        .find(|s| s.name == server)
    else {
        let names: Vec<&str> = config
            .integrations
            .mcp_servers
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        eprintln!(
            "loom: no MCP server `{server}` is configured; configured: {}",
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        );
        return Ok(ExitCode::from(EXIT_USAGE));
    };
    if !configured.enabled {
        eprintln!("loom: the MCP server `{server}` is disabled (enabled = false)");
        return Ok(ExitCode::from(EXIT_USAGE));
    }
    let Some(full_name) = schema::tool_name(server, tool) else {
        eprintln!("loom: `{tool}` cannot name a tool of `{server}`");
        return Ok(ExitCode::from(EXIT_USAGE));
    };
    let manager = McpManager::start(std::slice::from_ref(configured));
    manager.settled().await;
    let status = manager.status().remove(0);
    let code = if let ServerState::Failed { .. } = status.state {
        eprintln!("loom: MCP server {}", status.line());
        for l in &status.stderr {
            eprintln!("  stderr: {l}");
        }
        ExitCode::from(EXIT_FAILED)
    } else if !status.tools.contains(&full_name) {
        eprintln!(
            "loom: the MCP server `{server}` offers no tool `{tool}`; it offers: {}",
            status.tools.join(", ")
        );
        ExitCode::from(EXIT_USAGE)
    } else {
        let mut registry = ToolRegistry::new();
        manager.register(&mut registry);
        let policy = crate::setup::policy(config);
        super::tool::run(&registry, &policy, ctx, &full_name, args_json).await?
    };
    manager.shutdown().await;
    Ok(code)
}
