//! `loom mcp-server`: Loom as an MCP server over stdio, so another agent (Claude Code,
//! Codex, any MCP client) can hand Loom a coding task. Two tools: `loom` starts a session
//! with a prompt (optionally in a directory inside the server's workspace, and in an
//! approval mode no higher than the server's `--approval`), `loom-reply` continues one.
//! Each returns Loom's final answer as text and, as structured content, the `sessionId`
//! and the files the turn changed with their line counts.
//!
//! Sessions start through `loom-core`'s composition root ([`loom_core::compose::Session`])
//! in headless mode, exactly as `loom exec` starts its one: the same policy, sandbox, undo
//! journal and session files.

// Unsafe code lives in `loom-sandbox` only (issue 27).
#![cfg_attr(not(test), forbid(unsafe_code))]

pub mod args;
pub mod server;
pub mod turn;

use std::path::PathBuf;

use loom_core::config::Config;
use rmcp::ServiceExt;

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The MCP handshake on stdin/stdout failed.
    #[error("the MCP client did not complete the handshake: {0}")]
    Handshake(String),
    /// The service task ended abnormally.
    #[error("the MCP service stopped: {0}")]
    Service(String),
}

/// Serve MCP on stdin/stdout for `workspace` (canonical) under `config`, whose approval
/// mode is the most a call may ask for, until the client closes the connection; then
/// stop every session's agent (each saves its session first).
pub async fn serve(config: Config, workspace: PathBuf) -> Result<(), ServeError> {
    let state = server::State::new(config, workspace);
    let handler = server::Handler {
        state: state.clone(),
    };
    let running = handler
        .serve(rmcp::transport::io::stdio())
        .await
        .map_err(|e| ServeError::Handshake(e.to_string()))?;
    let quit = running.waiting().await;
    state.shutdown().await;
    quit.map(|_| ())
        .map_err(|e| ServeError::Service(e.to_string()))
}
