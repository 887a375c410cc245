//! `/status` (issue 28): one card in the chat with what the status line abbreviates — the
//! model and its context window, the tokens used, the approval mode, the sandbox, the MCP
//! and language servers, the session and its file, the `AGENTS.md` files loaded and the
//! workspace — from the facts the binary handed the screen at start and the agent's events
//! since (nothing is asked of the agent).

use super::app::App;
use super::transcript::NoticeLevel;

/// The card's text for the facts in `app.status`.
pub fn card(app: &App) -> String {
    let s = &app.status;
    let model = if s.model.is_empty() {
        "(none configured)"
    } else {
        s.model.as_str()
    };
    let window = match s.context_window {
        Some(w) => format!(
            "{w} tokens, last request {} ({}%)",
            s.last_prompt,
            s.last_prompt.saturating_mul(100) / w.max(1)
        ),
        None => "unknown".to_string(),
    };
    let estimated = if s.usage.estimated {
        " (partly estimated)"
    } else {
        ""
    };
    let mut approval = s.autonomy.as_str().to_string();
    if s.edits_allowed {
        approval.push_str(", file edits allowed for this session");
    }
    let mcp = if s.mcp.is_empty() {
        "none configured".to_string()
    } else {
        crate::protocol::mcp::overview(&s.mcp)
            .lines()
            .next()
            .unwrap_or_default()
            .trim_start_matches("MCP: ")
            .to_string()
    };
    let lsp = if s.lsp.is_empty() {
        "none started yet".to_string()
    } else {
        let names: Vec<&str> = s.lsp.iter().map(|l| l.name.as_str()).collect();
        names.join(", ")
    };
    let agents = if s.card.agents_files.is_empty() {
        "none loaded".to_string()
    } else {
        s.card.agents_files.join(", ")
    };
    let rows = [
        ("model", model.to_string()),
        ("context", window),
        (
            "tokens",
            format!(
                "{} prompt + {} completion{estimated}",
                s.usage.prompt_tokens, s.usage.completion_tokens
            ),
        ),
        ("cost", cost(app)),
        ("approval", approval),
        ("sandbox", s.sandbox.clone()),
        (
            "commits",
            if s.auto_commit {
                "after each batch"
            } else {
                "off"
            }
            .to_string(),
        ),
        ("mcp", mcp),
        ("lsp", lsp),
        ("session", s.session_id.clone()),
        ("file", session_file(app)),
        ("AGENTS.md", agents),
        ("workspace", s.workspace.clone()),
    ];
    let mut text = String::from("Status");
    for (key, value) in rows {
        text.push_str(&format!("\n  {key:<LABEL$} {value}"));
    }
    text
}

/// The width of the card's labels.
const LABEL: usize = 10;
/// Where a row's value starts: the margin, the label and a space. A value too long for
/// the chat wraps to this column, under itself.
const VALUE_COLUMN: usize = 2 + LABEL + 1;

/// The current session's file (the id names it), or why there is none.
fn session_file(app: &App) -> String {
    match &app.status.card.sessions_dir {
        Some(dir) => dir
            .join(format!("{}.jsonl", app.status.session_id))
            .display()
            .to_string(),
        None => "not recorded (no data directory)".to_string(),
    }
}

/// What the session's tokens cost at the current model's price from the config, or how
/// to give one.
pub fn cost(app: &App) -> String {
    let s = &app.status;
    match s.card.prices.get(&s.model) {
        Some(price) => {
            let estimated = if s.usage.estimated {
                ", tokens partly estimated"
            } else {
                ""
            };
            format!(
                "${:.4} (prices from config{estimated})",
                price.cost(&s.usage)
            )
        }
        None => format!("no prices: set [prices.\"{}\"]", s.model),
    }
}

/// `/status`: the card in the chat.
pub fn status_command(app: &mut App, _arg: &str) {
    let text = card(app);
    app.transcript
        .push_card(NoticeLevel::Info, &text, VALUE_COLUMN);
}
