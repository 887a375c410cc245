//! What the TUI's tests start from: an app with fixed status facts and theme, talking to a
//! channel the test reads. Kept apart from the snapshot tests so any module's tests can use
//! it without the two importing each other.

use std::time::Instant;

use tokio::sync::mpsc;

use super::app::{App, StatusInfo};
use super::theme::{ColorDepth, Theme};
use crate::llm::Usage;
use crate::policy::Autonomy;
use crate::protocol::events::{Phase, UserOp};

/// An app in theme `theme` and the ops it sends.
pub(super) fn app(theme: &str) -> (App, mpsc::UnboundedReceiver<UserOp>) {
    super::highlight::load_now();
    let (tx, rx) = mpsc::unbounded_channel();
    let status = StatusInfo {
        model: "qwen2.5-coder:14b".into(),
        phase: Phase::Idle,
        usage: Usage::default(),
        last_prompt: 0,
        context_window: Some(32_768),
        autonomy: Autonomy::Supervised,
        edits_allowed: false,
        auto_commit: false,
        sandbox: "workspace-write".into(),
        workspace: "~/src/demo".into(),
        session_id: "20261122-080000-abcd".into(),
        mcp: Vec::new(),
        lsp: Vec::new(),
    };
    let theme = Theme::load(theme, ColorDepth::TrueColor).unwrap();
    let mut app = App::new(theme, status, tx);
    app.now = Instant::now();
    (app, rx)
}
