//! `loom mcp-server`: serve Loom over MCP on stdin/stdout until the client hangs up (the
//! server itself is `loom-mcp-server`).

use std::path::PathBuf;
use std::process::ExitCode;

use crate::config::Config;

/// Serve until the client closes stdin; exit code 0 then, 1 when the connection failed.
pub async fn run(config: Config, workspace: PathBuf) -> anyhow::Result<ExitCode> {
    match loom_mcp_server::serve(config, workspace).await {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) => {
            eprintln!("loom mcp-server: {e}");
            Ok(ExitCode::FAILURE)
        }
    }
}
