//! Screens of the language servers (issue 30): the diagnostics count on the status line and
//! `/lsp`, before any server was needed and with servers in every state.

use super::snapshot_tests::{app, ev, text};
use crate::protocol::events::AgentEvent;
use crate::protocol::lsp::{LspServerStatus, LspState};

fn servers() -> Vec<LspServerStatus> {
    vec![
        LspServerStatus {
            name: "pyright".into(),
            root: ".".into(),
            state: LspState::Ready,
            detail: "restarted 1×".into(),
            errors: 2,
            warnings: 1,
        },
        LspServerStatus {
            name: "typescript".into(),
            root: "web".into(),
            state: LspState::Starting,
            detail: String::new(),
            errors: 0,
            warnings: 0,
        },
        LspServerStatus {
            name: "gopls".into(),
            root: "svc".into(),
            state: LspState::Failed,
            detail:
                "cannot start `gopls`: No such file or directory (is it installed and on PATH?)"
                    .into(),
            errors: 0,
            warnings: 0,
        },
    ]
}

/// `/lsp` lists every server with its root, state, counts and why it failed; the status
/// line counts the diagnostics the servers hold.
#[test]
fn slash_lsp_lists_servers_and_the_status_line_counts_diagnostics() {
    let (mut app, _rx) = app("dark");
    ev(&mut app, AgentEvent::LspStatus { servers: servers() });
    app.command("lsp");
    let screen = text(&mut app, 140, 30);
    assert!(
        screen.lines().last().unwrap().contains("lsp 2E 1W"),
        "the status line counts: {screen}"
    );
    assert!(
        screen.contains("pyright (.) ready: 2 errors, 1 warning — restarted 1×"),
        "{screen}"
    );
    insta::assert_snapshot!(screen);
}

/// Before any server was needed, the status line says nothing of them and `/lsp` says
/// when one starts.
#[test]
fn slash_lsp_before_any_server_says_when_one_starts() {
    let (mut app, _rx) = app("dark");
    app.command("lsp");
    let screen = text(&mut app, 100, 20);
    assert!(!screen.lines().last().unwrap().contains("lsp"), "{screen}");
    assert!(
        screen.contains("no language server has been started yet"),
        "{screen}"
    );
    insta::assert_snapshot!(screen);
}
