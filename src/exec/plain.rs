//! The plain form of `loom exec` (without `--json`): what a person reads in a terminal.
//!
//! The model's answer streams to stdout, each assistant message in its own paragraph (a
//! blank line between messages, one newline at the end, newlines at either end of a
//! message dropped). Everything else is one short line on stderr: `→ read_file src/main.rs`
//! when a call is proposed, `  ✓ read_file src/main.rs (3 ms)` or `  ✗ bash make: …` when it
//! ends — a denial is reported once, by its result —, retries, hooks and errors. Before a
//! stderr line the open stdout line is ended, so the two never run together in a terminal.
//!
//! Text on either stream comes from the model (its answer, paths, commands) and from tools;
//! control characters in it are shown escaped (`\u{1b}`, [`crate::printable`]), so neither
//! the answer nor a call can drive the terminal: clear it, set its clipboard, or overwrite a
//! line with a carriage return.

use std::collections::HashMap;
use std::io::Write;

use crate::agent::AgentEvent;
use crate::base::text::truncate;
use crate::printable;
use crate::tools::ToolResult;
use crate::tools::summary::call_line;

/// Columns a call's line is cut to on stderr.
const CALL_COLUMNS: usize = 160;

/// Prints agent events as plain text: the answer to `out`, the activity to `err`.
pub struct Plain<O: Write, E: Write> {
    out: O,
    err: E,
    /// Text of the current message was printed and not yet ended with a newline.
    open_line: bool,
    /// The current message has printed visible text.
    in_message: bool,
    /// Some message was printed before, so the next one starts after a blank line.
    printed: bool,
    /// Line breaks at the end of the text so far, printed only if more text follows in the
    /// same message.
    held: String,
    /// The line of each call still waiting for its result, by call id.
    calls: HashMap<String, String>,
    /// The MCP server failures already reported (name and reason), each said once.
    mcp_failures: Vec<String>,
}

impl<O: Write, E: Write> Plain<O, E> {
    /// A printer writing the answer to `out` and the activity to `err`.
    pub fn new(out: O, err: E) -> Self {
        Plain {
            out,
            err,
            open_line: false,
            in_message: false,
            printed: false,
            held: String::new(),
            calls: HashMap::new(),
            mcp_failures: Vec::new(),
        }
    }

    /// A line from Loom itself (`loom: …`) on stderr.
    pub fn notice(&mut self, text: &str) {
        self.end_message();
        self.say(&format!("loom: {}", indented(text)));
    }

    /// Print one event.
    pub fn event(&mut self, event: &AgentEvent) {
        match event {
            AgentEvent::TextDelta { text } => self.text(text),
            AgentEvent::Compacted { .. } => self.compacted(event),
            AgentEvent::AssistantMessage { .. } | AgentEvent::TurnComplete { .. } => {
                self.end_message()
            }
            AgentEvent::ToolCall {
                id,
                name,
                arguments,
                intent,
            } => self.call(
                "",
                id.clone(),
                &call_line(name, arguments, intent.as_deref()),
            ),
            AgentEvent::ToolResult {
                id,
                name,
                result,
                duration_ms,
            } => self.result("", id, name, result, *duration_ms),
            AgentEvent::Retry {
                attempt,
                max_attempts,
                reason,
                wait_ms,
            } => {
                self.end_message();
                self.say(&format!(
                    "  ↻ attempt {attempt}/{max_attempts} in {wait_ms} ms: {}",
                    indented(reason)
                ));
            }
            AgentEvent::Error { message } => self.notice(message),
            // What Loom did on its own (a tool schema refused, tools left out), as in --json.
            AgentEvent::Notice { message } => self.notice(message),
            AgentEvent::McpStatus { servers } => self.mcp_failures(servers),
            AgentEvent::ReviewFindings { findings } => self.findings(findings),
            AgentEvent::SubAgent { parent_id, event } => self.sub_event(parent_id, event, 1),
            AgentEvent::HookResult {
                name,
                success,
                output,
                ..
            } => self.hook(name, *success, output),
            // A denial is reported by the call's result, which names the call and says why;
            // an approval is the start of the run its result reports; a plan's progress is
            // in its update_plan call's line.
            AgentEvent::Approval { .. }
            | AgentEvent::PlanUpdated { .. }
            | AgentEvent::LspStatus { .. }
            | AgentEvent::ReasoningDelta { .. }
            | AgentEvent::StateChanged { .. }
            | AgentEvent::UserMessage { .. }
            | AgentEvent::ApprovalRequested { .. }
            | AgentEvent::ToolStarted { .. }
            | AgentEvent::Usage { .. }
            | AgentEvent::ContextWindow { .. }
            | AgentEvent::ChangeApplied { .. }
            | AgentEvent::CommandChanged { .. }
            | AgentEvent::CustomCommandNotSent { .. }
            | AgentEvent::UndoPlanned { .. }
            | AgentEvent::UndoApplied { .. }
            | AgentEvent::Changes { .. }
            | AgentEvent::Attachment { .. }
            | AgentEvent::Models { .. }
            | AgentEvent::RewindPrompts { .. }
            | AgentEvent::RewindPlanned { .. }
            | AgentEvent::Rewound { .. }
            | AgentEvent::Forked { .. }
            | AgentEvent::CustomCommands { .. }
            | AgentEvent::PromptHistory { .. } => {}
        }
    }

    /// What a compaction did, on one line.
    fn compacted(&mut self, event: &AgentEvent) {
        if let Some(report) = event.compaction() {
            self.end_message();
            self.say(&format!("  ⇣ {}", report.describe()));
        }
    }

    /// Each MCP server that failed, once per different failure.
    fn mcp_failures(&mut self, servers: &[crate::protocol::mcp::ServerStatus]) {
        for s in servers {
            if let crate::protocol::mcp::ServerState::Failed { .. } = s.state {
                let line = s.line();
                if !self.mcp_failures.contains(&line) {
                    self.mcp_failures.push(line.clone());
                    self.notice(&format!("MCP server {line}"));
                }
            }
        }
    }

    /// A review's findings after its answer, one `path:line severity text` line each on
    /// stdout (what a script reads), or a line on stderr saying there were none.
    fn findings(&mut self, findings: &[crate::protocol::review::ReviewFinding]) {
        self.end_message();
        if findings.is_empty() {
            return self.say("loom: review: no findings");
        }
        let mut text = if self.printed { "\n" } else { "" }.to_string();
        for finding in findings {
            text.push_str(&one_line(&finding.line_text()));
            text.push('\n');
        }
        let _ = self.out.write_all(text.as_bytes());
        let _ = self.out.flush();
        self.printed = true;
        self.say(&format!("loom: review: {} finding(s)", findings.len()));
    }

    /// A post-tools hook's result.
    fn hook(&mut self, name: &str, success: bool, output: &str) {
        self.end_message();
        self.say(&format!(
            "  {} hook {}: {}",
            if success { "✓" } else { "✗" },
            one_line(name),
            indented(output)
        ));
    }

    /// A sub-agent's event (of the delegate call `parent_id`, `depth` levels down): its calls
    /// and results indented under the delegate call, its errors named as its own; its answer
    /// reaches the output as the delegate call's result, through the parent.
    fn sub_event(&mut self, parent_id: &str, event: &AgentEvent, depth: usize) {
        let pad = "    ".repeat(depth);
        let key = |id: &str| format!("{parent_id}/{id}");
        match event {
            AgentEvent::ToolCall {
                id,
                name,
                arguments,
                intent,
            } => self.call(
                &pad,
                key(id),
                &call_line(name, arguments, intent.as_deref()),
            ),
            AgentEvent::ToolResult {
                id,
                name,
                result,
                duration_ms,
            } => self.result(&pad, &key(id), name, result, *duration_ms),
            AgentEvent::Error { message } => {
                self.end_message();
                self.say(&format!("{pad}sub-agent: {}", indented(message)));
            }
            AgentEvent::SubAgent {
                parent_id: inner_parent,
                event,
            } => self.sub_event(&key(inner_parent), event, depth + 1),
            _ => {}
        }
    }

    /// A tool call's line, `pad` in; remembered under `key` for its result.
    fn call(&mut self, pad: &str, key: String, described: &str) {
        let line = truncate(&one_line(described), CALL_COLUMNS);
        self.end_message();
        self.say(&format!("{pad}→ {line}"));
        self.calls.insert(key, line);
    }

    /// A tool result's line, naming the call it answers (`key`) as its call line did.
    fn result(&mut self, pad: &str, key: &str, name: &str, result: &ToolResult, duration_ms: u64) {
        let line = self.calls.remove(key).unwrap_or_else(|| one_line(name));
        self.end_message();
        if result.success {
            self.say(&format!("{pad}  ✓ {line} ({duration_ms} ms)"));
        } else {
            let error = result.error.as_deref().unwrap_or("failed");
            self.say(&format!("{pad}  ✗ {line}: {}", indented(error)));
        }
    }

    /// End the output: the answer's last line gets its newline.
    pub fn finish(&mut self) {
        self.end_message();
        let _ = self.out.flush();
        let _ = self.err.flush();
    }

    fn text(&mut self, piece: &str) {
        let mut piece = piece;
        if !self.in_message {
            piece = piece.trim_start_matches(['\n', '\r']);
            if piece.is_empty() {
                return;
            }
            if self.printed {
                let _ = self.out.write_all(b"\n");
            }
            self.in_message = true;
            self.printed = true;
        }
        let body = piece.trim_end_matches(['\n', '\r']);
        if !body.is_empty() {
            // Held breaks are printed as line feeds: a carriage return there would let
            // the next text overwrite the line.
            let breaks: String = self.held.chars().filter(|&c| c == '\n').collect();
            let _ = self.out.write_all(breaks.as_bytes());
            self.held.clear();
            let _ = self.out.write_all(printable::lines(body).as_bytes());
            self.open_line = true;
        }
        self.held.push_str(&piece[body.len()..]);
        let _ = self.out.flush();
    }

    /// The current message is over: end its line and drop the breaks held after it.
    fn end_message(&mut self) {
        if self.open_line {
            let _ = self.out.write_all(b"\n");
            let _ = self.out.flush();
            self.open_line = false;
        }
        self.held.clear();
        self.in_message = false;
    }

    fn say(&mut self, line: &str) {
        let _ = writeln!(self.err, "{line}");
        let _ = self.err.flush();
    }
}

/// `s` with every control character shown escaped, line breaks included.
fn one_line(s: &str) -> String {
    printable::line(s).into_owned()
}

/// `s` with control characters other than line breaks and tabs shown escaped, and every line
/// after the first indented under the line it continues.
fn indented(s: &str) -> String {
    printable::lines(s.trim_end())
        .lines()
        .collect::<Vec<_>>()
        .join("\n    ")
}

#[cfg(test)]
#[path = "plain_tests.rs"]
mod tests;
