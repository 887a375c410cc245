//! What front ends are told of the language servers (issue 30): each server's state and
//! the diagnostics it holds, for the status line's count and `/lsp`.

use serde::{Deserialize, Serialize};

/// Where a language server stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LspState {
    /// Started, its handshake not done yet.
    Starting,
    /// Answering.
    Ready,
    /// Exited or crashed; started again on the next need.
    Exited,
    /// Could not be started (the reason is in `detail`); not tried again.
    Failed,
}

impl LspState {
    /// The word shown for it.
    pub fn as_str(&self) -> &'static str {
        match self {
            LspState::Starting => "starting",
            LspState::Ready => "ready",
            LspState::Exited => "exited",
            LspState::Failed => "failed",
        }
    }
}

/// One language server as front ends show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LspServerStatus {
    /// Its configured name (`pyright`).
    pub name: String,
    /// The directory it serves, relative to the workspace (`.` for the workspace).
    pub root: String,
    /// Its state.
    pub state: LspState,
    /// Why it failed or exited, or how often it was restarted.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
    /// Errors it reports now, over the files it was given.
    pub errors: usize,
    /// Warnings it reports now.
    pub warnings: usize,
}

impl LspServerStatus {
    /// One line for `/lsp`: `pyright (.) ready: 2 errors, 1 warning`.
    pub fn line(&self) -> String {
        let mut line = format!("{} ({}) {}", self.name, self.root, self.state.as_str());
        if self.state == LspState::Ready {
            line.push_str(&format!(": {}", counts(self.errors, self.warnings)));
        }
        if !self.detail.is_empty() {
            line.push_str(&format!(" — {}", self.detail));
        }
        line
    }
}

fn counts(errors: usize, warnings: usize) -> String {
    let s = |n: usize| if n == 1 { "" } else { "s" };
    format!(
        "{errors} error{}, {warnings} warning{}",
        s(errors),
        s(warnings)
    )
}

/// The status line's part: the diagnostics the servers hold (`lsp 2E 1W`), or that one is
/// starting; `None` before any server was needed.
pub fn summary(servers: &[LspServerStatus]) -> Option<String> {
    if servers.is_empty() {
        return None;
    }
    let errors: usize = servers.iter().map(|s| s.errors).sum();
    let warnings: usize = servers.iter().map(|s| s.warnings).sum();
    if servers.iter().all(|s| s.state == LspState::Starting) {
        return Some("lsp starting".into());
    }
    Some(format!("lsp {errors}E {warnings}W"))
}

/// What `/lsp` shows: one line per server.
pub fn overview(servers: &[LspServerStatus]) -> String {
    let mut lines = vec![format!("language servers ({}):", servers.len())];
    lines.extend(servers.iter().map(|s| format!("  {}", s.line())));
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(state: LspState, errors: usize) -> LspServerStatus {
        LspServerStatus {
            name: "pyright".into(),
            root: ".".into(),
            state,
            detail: String::new(),
            errors,
            warnings: 1,
        }
    }

    #[test]
    fn the_summary_counts_diagnostics_and_says_when_servers_start() {
        assert_eq!(summary(&[]), None);
        assert_eq!(
            summary(&[server(LspState::Starting, 0)]).as_deref(),
            Some("lsp starting")
        );
        assert_eq!(
            summary(&[server(LspState::Ready, 2), server(LspState::Exited, 0)]).as_deref(),
            Some("lsp 2E 2W")
        );
    }

    #[test]
    fn the_overview_has_a_line_per_server_with_its_state() {
        let mut gone = server(LspState::Exited, 0);
        gone.detail = "the server exited".into();
        assert_eq!(
            overview(&[server(LspState::Ready, 1), gone]),
            "language servers (2):\n  pyright (.) ready: 1 error, 1 warning\n  pyright (.) \
             exited — the server exited"
        );
    }
}
