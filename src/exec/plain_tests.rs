//! The plain printer, fed events directly: what lands on stdout, on stderr, and on a
//! terminal that shows both.

use std::cell::RefCell;
use std::rc::Rc;

use serde_json::json;

use super::*;
use crate::agent::{DecidedBy, TurnEnd};
use crate::llm::Usage;
use crate::policy::call::{CallIntent, CommandIntent};
use crate::tools::ToolResult;

/// One stream: its own bytes, and the shared terminal both streams write to.
struct Tap {
    own: Rc<RefCell<Vec<u8>>>,
    screen: Rc<RefCell<Vec<u8>>>,
}

impl Write for Tap {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.own.borrow_mut().extend_from_slice(buf);
        self.screen.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

struct Printed {
    stdout: String,
    stderr: String,
    screen: String,
}

fn print(events: &[AgentEvent]) -> Printed {
    let (out, err, screen) = Default::default();
    let tap = |own: &Rc<RefCell<Vec<u8>>>| Tap {
        own: own.clone(),
        screen: Rc::clone(&screen),
    };
    let mut plain = Plain::new(tap(&out), tap(&err));
    for e in events {
        plain.event(e);
    }
    plain.finish();
    let text = |b: &Rc<RefCell<Vec<u8>>>| String::from_utf8(b.borrow().clone()).unwrap();
    Printed {
        stdout: text(&out),
        stderr: text(&err),
        screen: text(&screen),
    }
}

fn delta(text: &str) -> AgentEvent {
    AgentEvent::TextDelta { text: text.into() }
}

fn message(text: &str) -> AgentEvent {
    AgentEvent::AssistantMessage { text: text.into() }
}

fn read_call(id: &str, path: &str) -> AgentEvent {
    AgentEvent::ToolCall {
        id: id.into(),
        name: "read_file".into(),
        arguments: json!({ "path": path }),
        intent: Some(Box::new(CallIntent::reads([path.to_string()]))),
    }
}

fn result(id: &str, name: &str, result: ToolResult) -> AgentEvent {
    AgentEvent::ToolResult {
        id: id.into(),
        name: name.into(),
        result,
        duration_ms: 3,
    }
}

fn done() -> AgentEvent {
    AgentEvent::TurnComplete {
        usage: Usage::default(),
        end: TurnEnd::Done,
        unsent: Vec::new(),
        unsent_images: Vec::new(),
    }
}

#[test]
fn messages_around_a_tool_call_each_start_their_own_paragraph() {
    let p = print(&[
        delta("Let me "),
        delta("read it."),
        message("Let me read it."),
        read_call("r", "greet.py"),
        result("r", "read_file", ToolResult::ok("def greet")),
        delta("I changed"),
        delta(" it."),
        message("I changed it."),
        done(),
    ]);
    assert_eq!(p.stdout, "Let me read it.\n\nI changed it.\n");
    assert_eq!(
        p.screen,
        "Let me read it.\n→ read_file greet.py\n  ✓ read_file greet.py (3 ms)\n\nI changed it.\n"
    );
}

#[test]
fn consecutive_messages_are_separated_by_a_blank_line() {
    let p = print(&[
        delta("First."),
        message("First."),
        delta("Second."),
        message("Second."),
        done(),
    ]);
    assert_eq!(p.stdout, "First.\n\nSecond.\n");
}

#[test]
fn line_breaks_at_a_message_edge_collapse_and_inner_ones_stay() {
    let p = print(&[
        delta("\n\nHello"),
        delta("\n"),
        delta("\n"),
        delta("world\n\n"),
        message("Hello\n\nworld\n\n"),
        delta("\n"),
        delta("Next"),
        done(),
    ]);
    assert_eq!(p.stdout, "Hello\n\nworld\n\nNext\n");
}

#[test]
fn no_answer_prints_nothing_on_stdout() {
    let p = print(&[
        read_call("r", "a.rs"),
        result("r", "read_file", ToolResult::ok("")),
        delta("\n"),
        done(),
    ]);
    assert_eq!(p.stdout, "");
}

#[test]
fn a_policy_denial_is_printed_once_naming_the_call() {
    let reason = "supervised mode needs a person; rerun with --approval full-auto";
    let p = print(&[
        AgentEvent::ToolCall {
            id: "e".into(),
            name: "edit_file".into(),
            arguments: json!({"path": "greet.py", "old_str": "a", "new_str": "b"}),
            intent: Some(Box::new(CallIntent::writes("greet.py"))),
        },
        AgentEvent::Approval {
            id: "e".into(),
            approved: false,
            by: DecidedBy::Policy,
            reason: Some(reason.into()),
        },
        result(
            "e",
            "edit_file",
            ToolResult::err(format!("denied by policy: {reason}")),
        ),
        done(),
    ]);
    assert_eq!(p.stderr.matches(reason).count(), 1, "{}", p.stderr);
    assert_eq!(
        p.stderr,
        format!("→ edit_file greet.py\n  ✗ edit_file greet.py: denied by policy: {reason}\n")
    );
}

#[test]
fn tool_lines_are_short_and_human_not_json() {
    let p = print(&[
        AgentEvent::ToolCall {
            id: "b".into(),
            name: "bash".into(),
            arguments: json!({"command": "cargo test", "timeout_secs": 60}),
            intent: Some(Box::new(CallIntent::runs(CommandIntent {
                command: "cargo test".into(),
                cwd: None,
                outside_sandbox: false,
            }))),
        },
        AgentEvent::ToolCall {
            id: "e".into(),
            name: "edit_file".into(),
            arguments: json!({"path": "src/lib.rs", "edits": [
                {"old_str": "a", "new_str": "b"}, {"old_str": "c", "new_str": "d"}
            ]}),
            intent: Some(Box::new(CallIntent::writes("src/lib.rs"))),
        },
    ]);
    assert_eq!(
        p.stderr,
        "→ bash cargo test\n→ edit_file src/lib.rs (2 edits)\n"
    );
}

#[test]
fn parallel_results_name_their_own_call() {
    let p = print(&[
        read_call("1", "a.rs"),
        read_call("2", "b.rs"),
        result("2", "read_file", ToolResult::ok("")),
        result("1", "read_file", ToolResult::err("no such file: a.rs")),
    ]);
    assert!(
        p.stderr.contains("  ✓ read_file b.rs (3 ms)\n"),
        "{}",
        p.stderr
    );
    assert!(
        p.stderr
            .contains("  ✗ read_file a.rs: no such file: a.rs\n"),
        "{}",
        p.stderr
    );
}

#[test]
fn an_error_in_the_middle_of_an_answer_starts_its_own_line() {
    let p = print(&[
        delta("Partial"),
        AgentEvent::Error {
            message: "the stream was cut".into(),
        },
        done(),
    ]);
    assert_eq!(p.screen, "Partial\nloom: the stream was cut\n");
}

#[test]
fn control_characters_from_the_model_are_shown_escaped_on_stderr() {
    let p = print(&[
        read_call("r", "a\u{1b}[2Jb\nc"),
        result(
            "r",
            "read_file",
            ToolResult::err("bad \u{9b}31m path\nsee above"),
        ),
    ]);
    assert!(!p.stderr.contains('\u{1b}') && !p.stderr.contains('\u{9b}'));
    assert!(
        p.stderr.starts_with("→ read_file a\\u{1b}[2Jb\\nc\n"),
        "{}",
        p.stderr
    );
    assert!(
        p.stderr.ends_with(": bad \\u{9b}31m path\n    see above\n"),
        "{}",
        p.stderr
    );
}

/// Issue 23: the model's answer went to stdout as it came, escape sequences and all: it
/// could clear the screen, set the clipboard (OSC 52), ring the bell or overwrite a line
/// with a carriage return. They are shown escaped, split across deltas or not.
#[test]
fn control_characters_in_the_answer_are_shown_escaped_on_stdout() {
    let p = print(&[
        delta("Done.\u{1b}[2J\u{1b}]52;c;cm0gLXJmIH4=\u{7}"),
        delta("\u{1b}"),
        delta("[31mred\rhidden\r"),
        delta("\nnext\r\nline\t\u{9b}0m\u{0}"),
        done(),
    ]);
    for c in ['\u{1b}', '\u{7}', '\r', '\u{9b}', '\u{0}'] {
        assert!(!p.stdout.contains(c), "{c:?} in {:?}", p.stdout);
    }
    assert_eq!(
        p.stdout,
        "Done.\\u{1b}[2J\\u{1b}]52;c;cm0gLXJmIH4=\\u{7}\\u{1b}[31mred\\rhidden\nnext\nline\t\\u{9b}0m\\u{0}\n"
    );
}

#[test]
fn a_long_command_line_is_cut() {
    let long = "echo ".to_string() + &"x".repeat(500);
    let p = print(&[AgentEvent::ToolCall {
        id: "b".into(),
        name: "bash".into(),
        arguments: json!({ "command": long }),
        intent: Some(Box::new(CallIntent::runs(CommandIntent {
            command: long.clone(),
            cwd: None,
            outside_sandbox: false,
        }))),
    }]);
    let line = p.stderr.lines().next().unwrap();
    assert!(
        line.ends_with('…') && line.chars().count() == 2 + CALL_COLUMNS,
        "{line}"
    );
}

/// A sub-agent's calls are indented under the delegate call, a level deeper per level; its
/// answer is not printed (it reaches the output through the delegate call's result).
#[test]
fn sub_agent_calls_are_indented_under_the_delegate_call() {
    let sub = |parent: &str, event: AgentEvent| AgentEvent::SubAgent {
        parent_id: parent.into(),
        event: Box::new(event),
    };
    let call = |id: &str, path: &str| AgentEvent::ToolCall {
        id: id.into(),
        name: "read_file".into(),
        arguments: json!({"path": path}),
        intent: Some(Box::new(CallIntent::reads([path.to_string()]))),
    };
    let result = |id: &str| AgentEvent::ToolResult {
        id: id.into(),
        name: "read_file".into(),
        result: ToolResult::ok("x"),
        duration_ms: 2,
    };
    let p = print(&[
        AgentEvent::ToolCall {
            id: "d1".into(),
            name: "delegate".into(),
            arguments: json!({"task": "look"}),
            intent: Some(Box::new(CallIntent::reads([]))),
        },
        sub("d1", call("c1", "a.txt")),
        sub("d1", sub("c2", call("c1", "b.txt"))),
        sub("d1", sub("c2", result("c1"))),
        sub("d1", result("c1")),
        sub(
            "d1",
            AgentEvent::AssistantMessage {
                text: "inner answer".into(),
            },
        ),
        sub(
            "d1",
            AgentEvent::Error {
                message: "slow server".into(),
            },
        ),
    ]);
    assert_eq!(p.stdout, "", "the sub-agent's answer is not the output");
    let lines: Vec<&str> = p.stderr.lines().collect();
    assert!(lines[1].starts_with("    → read_file a.txt"), "{lines:?}");
    assert!(
        lines[2].starts_with("        → read_file b.txt"),
        "{lines:?}"
    );
    assert!(
        lines[3].starts_with("          ✓ read_file b.txt (2 ms)"),
        "{lines:?}"
    );
    assert!(
        lines[4].starts_with("      ✓ read_file a.txt (2 ms)"),
        "{lines:?}"
    );
    assert_eq!(lines[5], "    sub-agent: slow server");
}

/// Regression: notices were printed only with `--json`, so a person running `loom exec`
/// never read that the provider refused a tool's schema and Loom went on without it. A
/// notice is a `loom:` line on stderr, after the open answer line is ended.
#[test]
fn a_notice_is_said_on_stderr() {
    let p = print(&[
        delta("Half"),
        AgentEvent::Notice {
            message: "The model provider refused the input schema of the `search_files` tool"
                .into(),
        },
        delta(" done."),
        message("Half done."),
        done(),
    ]);
    assert_eq!(
        p.stderr,
        "loom: The model provider refused the input schema of the `search_files` tool\n"
    );
    assert_eq!(p.stdout, "Half\n\n done.\n");
}
