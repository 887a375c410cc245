//! `loom mcp-server`: serve Loom over MCP on stdin/stdout until the client hangs up (the
//! server itself is `loom-mcp-server`).

use std::path::PathBuf;
use std::process::ExitCode;

use crate::cli::GlobalArgs;
use crate::config::Config;

/// A global flag that means nothing to the server (it starts sessions per call), so it is
/// refused rather than silently ignored.
pub fn unused_flag(global: &GlobalArgs) -> Option<&'static str> {
    if global.resume.is_some() {
        Some("--resume")
    } else if global.continue_last {
        Some("--continue")
    } else if !global.images.is_empty() {
        Some("--image")
    } else {
        None
    }
}

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
