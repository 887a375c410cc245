//! `loom-acp`: Loom as an Agent Client Protocol agent over stdio (`loom acp`), for editors
//! such as Zed and Neovim's CodeCompanion.
//!
//! Not a second agent: each ACP session is a Loom session started through
//! `loom_core::compose::Session::start` (the TUI's and `loom exec`'s composition root), with
//! the same policy, sandbox, undo journal and session files. The server turns the agent's
//! [`AgentEvent`](loom_core::agent::AgentEvent)s into `session/update` notifications and
//! `session/request_permission` requests, and the client's requests into
//! [`UserOp`](loom_core::agent::UserOp)s.

// Unsafe code lives in `loom-sandbox` only (issue 27); tests may set variables.
#![cfg_attr(not(test), forbid(unsafe_code))]

mod commands;
mod files;
mod modes;
mod permission;
mod replay;
mod server;
mod session;
mod translate;

use std::sync::Arc;

use agent_client_protocol::v1::schema::{
    CancelNotification, InitializeRequest, LoadSessionRequest, LoadSessionResponse,
    NewSessionRequest, NewSessionResponse, PromptRequest, SetSessionModeRequest,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{
    Agent, ByteStreams, Client, ConnectTo, Error, is_connection_terminated,
    is_incoming_transport_closed, on_receive_notification, on_receive_request,
};
use loom_core::config::FlagConfig;
use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};

pub use server::Server;

/// Serve ACP on this process's stdin and stdout until the client closes them, each session
/// loading its workspace's configuration with `flags`; then stop every session's agent.
pub async fn serve_stdio(flags: FlagConfig) -> anyhow::Result<()> {
    let transport = ByteStreams::new(
        tokio::io::stdout().compat_write(),
        tokio::io::stdin().compat(),
    );
    serve(flags, transport).await
}

/// Serve ACP over `transport` (stdio in `loom acp`).
pub async fn serve(
    flags: FlagConfig,
    transport: impl ConnectTo<Agent> + 'static,
) -> anyhow::Result<()> {
    let server = Arc::new(Server::new(flags));
    let (s0, s1, s2, s3, s4, s5) = (
        server.clone(),
        server.clone(),
        server.clone(),
        server.clone(),
        server.clone(),
        server.clone(),
    );
    let served = Agent
        .v1()
        .name("loom")
        .on_receive_request(
            async move |request: InitializeRequest, responder, _cx| {
                s0.remember_client(&request);
                responder.respond(Server::initialize(&request))
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: NewSessionRequest, responder, cx| {
                cx.spawn(open_new(s1.clone(), request, responder, cx.clone()))
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: LoadSessionRequest, responder, cx| {
                cx.spawn(open_saved(s2.clone(), request, responder, cx.clone()))
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: PromptRequest, responder, cx| {
                let server = s3.clone();
                cx.spawn(async move {
                    let answer = server.prompt(request).await;
                    // A client gone before its turn ended is no failure of the connection.
                    let _ = responder.respond_with_result(answer);
                    Ok(())
                })
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: SetSessionModeRequest, responder, _cx| {
                responder.respond_with_result(s4.set_mode(&request))
            },
            on_receive_request!(),
        )
        .on_receive_notification(
            async move |notification: CancelNotification, _cx| {
                s5.cancel(&notification.session_id.0);
                Ok(())
            },
            on_receive_notification!(),
        )
        .connect_to(transport)
        .await;
    server.shutdown().await;
    match served {
        // The client closing the connection (its stdin) is how a session ends, seen from
        // either side: a read that meets the end, or a write it no longer reads.
        Err(e)
            if !is_connection_terminated(&e)
                && !is_incoming_transport_closed(&e)
                && !is_client_gone(&e) =>
        {
            Err(anyhow::anyhow!("ACP connection: {e}"))
        }
        _ => Ok(()),
    }
}

/// Whether `e` is a write to the client that failed because the client stopped reading
/// (it closed the connection while updates were still on their way): the SDK reports it
/// as an internal error carrying the OS error's text, not as the end of the connection.
fn is_client_gone(e: &Error) -> bool {
    /// `EPIPE`, the same number on Linux and the BSDs.
    const BROKEN_PIPE: i32 = 32;
    let broken_pipe = std::io::Error::from_raw_os_error(BROKEN_PIPE).to_string();
    e.code == agent_client_protocol::ErrorCode::INTERNAL_ERROR
        && e.data.as_ref().and_then(|d| d.as_str()) == Some(broken_pipe.as_str())
}

/// `session/new`, outside the dispatch loop: start the session, answer, then advertise its
/// commands (the client knows the session's id by then).
async fn open_new(
    server: Arc<Server>,
    request: NewSessionRequest,
    responder: Responder<NewSessionResponse>,
    cx: ConnectionTo<Client>,
) -> Result<(), Error> {
    let answer = server.new_session(request, &cx).await;
    let id = answer.as_ref().ok().map(|r| r.session_id.0.to_string());
    responder.respond_with_result(answer)?;
    id.map_or(Ok(()), |id| server.advertise(&cx, &id))
}

/// `session/load`, as [`open_new`].
async fn open_saved(
    server: Arc<Server>,
    request: LoadSessionRequest,
    responder: Responder<LoadSessionResponse>,
    cx: ConnectionTo<Client>,
) -> Result<(), Error> {
    let id = request.session_id.0.to_string();
    let answer = server.load_session(request, &cx).await;
    let loaded = answer.is_ok();
    responder.respond_with_result(answer)?;
    if loaded {
        server.advertise(&cx, &id)
    } else {
        Ok(())
    }
}
