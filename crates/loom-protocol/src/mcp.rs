//! What a front end shows of each MCP server: starting, ready with its tools, or failed
//! with the reason and the last lines it wrote to stderr. Plain data, so the status line,
//! `/mcp`, `loom mcp list` and the JSONL events all read the same thing.

use serde::{Deserialize, Serialize};

/// Where a server stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ServerState {
    /// Configured with `enabled = false`.
    Disabled,
    /// Being started (or restarted) and asked for its tools.
    Starting,
    /// Answering; its tools are offered to the model.
    Ready,
    /// Not usable: it did not start, or stopped.
    Failed {
        /// Why, in words.
        reason: String,
        /// Whether the next call to one of its tools starts it again (once per session).
        restarts_on_next_call: bool,
    },
}

/// One server as a front end shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerStatus {
    /// Its configured name.
    pub name: String,
    /// `stdio` or `http`.
    pub transport: String,
    /// The command line or URL.
    pub target: String,
    /// Where it stands.
    #[serde(flatten)]
    pub state: ServerState,
    /// The tools offered to the model, by full name (`mcp__NAME__TOOL`).
    pub tools: Vec<String>,
    /// Tools left out or simplified, and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<String>,
    /// The last lines it wrote to stderr (stdio servers).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stderr: Vec<String>,
}

impl ServerStatus {
    /// One line: `git: ready, 12 tools`, `db: failed: connection refused`.
    pub fn line(&self) -> String {
        match &self.state {
            ServerState::Disabled => format!("{}: disabled", self.name),
            ServerState::Starting => format!("{}: starting", self.name),
            ServerState::Ready => format!(
                "{}: ready, {} tool{}",
                self.name,
                self.tools.len(),
                if self.tools.len() == 1 { "" } else { "s" }
            ),
            ServerState::Failed {
                reason,
                restarts_on_next_call,
            } => {
                let again = if *restarts_on_next_call {
                    " (restarted on the next call)"
                } else {
                    ""
                };
                format!("{}: failed: {reason}{again}", self.name)
            }
        }
    }
}

/// The short form for a status line: `mcp 2/3` (ready of enabled), `mcp …` while any
/// starts, `mcp 1/2 !` when one failed; `None` without servers.
pub fn summary(servers: &[ServerStatus]) -> Option<String> {
    let enabled: Vec<&ServerStatus> = servers
        .iter()
        .filter(|s| s.state != ServerState::Disabled)
        .collect();
    if enabled.is_empty() {
        return None;
    }
    let ready = enabled
        .iter()
        .filter(|s| s.state == ServerState::Ready)
        .count();
    let starting = enabled.iter().any(|s| s.state == ServerState::Starting);
    let failed = enabled
        .iter()
        .any(|s| matches!(s.state, ServerState::Failed { .. }));
    let mut text = format!("mcp {ready}/{}", enabled.len());
    if starting {
        text.push_str(" starting");
    } else if failed {
        text.push_str(" failed");
    }
    Some(text)
}

/// `/mcp`: the servers in a few lines that fit a screen however many tools they offer —
/// a count line, every failed server first with its reason and last stderr lines, then
/// the others with their tool counts (tool names are in [`detail`]).
pub fn overview(servers: &[ServerStatus]) -> String {
    let failed = |s: &&ServerStatus| matches!(s.state, ServerState::Failed { .. });
    let ready = servers
        .iter()
        .filter(|s| s.state == ServerState::Ready)
        .count();
    let tools: usize = servers.iter().map(|s| s.tools.len()).sum();
    let down = servers.iter().filter(failed).count();
    let mut text = format!(
        "MCP: {ready} of {} server{} ready, {tools} tool{}",
        servers.len(),
        if servers.len() == 1 { "" } else { "s" },
        if tools == 1 { "" } else { "s" },
    );
    if down > 0 {
        text.push_str(&format!(", {down} failed"));
    }
    for s in servers.iter().filter(failed) {
        text.push_str(&format!("\n{} ({} {})", s.line(), s.transport, s.target));
        for l in &s.stderr {
            text.push_str(&format!("\n  stderr: {l}"));
        }
    }
    for s in servers.iter().filter(|s| !failed(s)) {
        text.push_str(&format!("\n{} ({} {})", s.line(), s.transport, s.target));
        if !s.notices.is_empty() {
            let n = s.notices.len();
            text.push_str(&format!(
                "\n  {n} note{} (/mcp {})",
                if n == 1 { "" } else { "s" },
                s.name
            ));
        }
    }
    text.push_str("\n/mcp NAME lists a server's tools and notes");
    text
}

/// `/mcp NAME`: one server in full — its state, every tool, its notes and stderr lines.
pub fn detail(s: &ServerStatus) -> String {
    let mut text = format!("{} ({} {})", s.line(), s.transport, s.target);
    for t in &s.tools {
        text.push_str(&format!("\n  {t}"));
    }
    for n in &s.notices {
        text.push_str(&format!("\n  note: {n}"));
    }
    for l in &s.stderr {
        text.push_str(&format!("\n  stderr: {l}"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(name: &str, state: ServerState, tools: usize) -> ServerStatus {
        ServerStatus {
            name: name.into(),
            transport: "stdio".into(),
            target: "x".into(),
            state,
            tools: (0..tools).map(|i| format!("mcp__{name}__t{i}")).collect(),
            notices: Vec::new(),
            stderr: Vec::new(),
        }
    }

    #[test]
    fn lines_and_summary() {
        let failed = ServerState::Failed {
            reason: "exited with status 1".into(),
            restarts_on_next_call: false,
        };
        let all = [
            status("a", ServerState::Ready, 1),
            status("b", failed, 0),
            status("c", ServerState::Disabled, 0),
        ];
        assert_eq!(all[0].line(), "a: ready, 1 tool");
        assert_eq!(all[1].line(), "b: failed: exited with status 1");
        assert_eq!(all[2].line(), "c: disabled");
        assert_eq!(summary(&all).as_deref(), Some("mcp 1/2 failed"));
        let starting = [status("a", ServerState::Starting, 0)];
        assert_eq!(summary(&starting).as_deref(), Some("mcp 0/1 starting"));
        assert_eq!(summary(&all[2..]), None);
        let json = serde_json::to_value(&all[1]).unwrap();
        assert_eq!(json["state"], "failed");
        assert_eq!(json["reason"], "exited with status 1");
    }
}
