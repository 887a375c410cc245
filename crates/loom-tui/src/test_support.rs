//! What the TUI's tests start from: an app with fixed status facts and theme, talking to a
//! channel the test reads. Kept apart from the snapshot tests so any module's tests can use
//! it without the two importing each other.

use std::time::Instant;

use tokio::sync::mpsc;

use super::app::{App, StatusInfo};
use super::theme::{ColorDepth, Theme};
use crate::protocol::autonomy::Autonomy;
use crate::protocol::events::{Phase, UserOp};
use crate::protocol::usage::Usage;

/// The tools' summaries, as the binary hands them over.
pub(super) use loom_core::tools::summary::summarize;

/// What the screen says when no provider is configured, as the binary hands it over.
pub(super) fn how_to_configure() -> String {
    loom_core::llm::discover::how_to_configure()
}

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
        card: super::status_info::CardFacts {
            agents_files: vec!["AGENTS.md".into()],
            sessions_dir: Some("/data/loom/sessions".into()),
            prices: Default::default(),
        },
    };
    let theme = Theme::load(theme, ColorDepth::TrueColor).unwrap();
    let mut app = App::new(theme, status, tx);
    app.tools.summarizer = Some(summarize);
    app.now = Instant::now();
    // As once the agent has listed its custom commands (none): an unknown `/name` is
    // answered here, not passed on.
    app.draft.custom.set(Vec::new(), |_| false);
    (app, rx)
}
