//! One-line summaries of tool calls for people: `greet.py [3-9]`, `src/lib.rs (2 edits)`,
//! `/fn/ *.rs`, `cargo test`.
//!
//! Front ends show a call as a short line instead of its JSON arguments: the tool pane of
//! the full-screen assistant and the stderr lines of `loom exec`. Both read the canonical
//! arguments and, where the tool described it, the call's [`CallIntent`]; nothing here
//! formats for a particular screen (no colours, no escaping), and nothing runs a tool.

use serde_json::Value;

use crate::base::text::truncate;
use crate::policy::call::CallIntent;

/// Columns the JSON fallback of an unknown tool's arguments is cut to.
const FALLBACK_COLUMNS: usize = 80;

/// A one-line summary of a call's arguments (without the tool's name), from the arguments
/// alone: the path and range read, the path edited and how many edits, the pattern searched,
/// the command's first line. Unknown tools show their arguments as JSON, cut to 80 columns.
pub fn summarize(name: &str, args: &Value) -> String {
    let s = |k: &str| args.get(k).and_then(Value::as_str).unwrap_or("");
    match name {
        "read_file" => match args.get("line_range").and_then(Value::as_array) {
            Some(r) if r.len() == 2 => format!("{} [{}-{}]", s("path"), r[0], r[1]),
            _ => s("path").to_string(),
        },
        "write_file" => s("path").to_string(),
        "edit_file" => {
            let n = args
                .get("edits")
                .and_then(Value::as_array)
                .map(Vec::len)
                .unwrap_or(1);
            if n > 1 {
                format!("{} ({n} edits)", s("path"))
            } else {
                s("path").to_string()
            }
        }
        "list_files" => {
            let p = if s("path").is_empty() { "." } else { s("path") };
            if args.get("recursive").and_then(Value::as_bool) == Some(true) {
                format!("{p} (recursive)")
            } else {
                p.to_string()
            }
        }
        "search_files" => {
            let mut out = format!("/{}/", s("pattern"));
            if !s("glob").is_empty() {
                out.push_str(&format!(" {}", s("glob")));
            }
            if !s("path").is_empty() {
                out.push_str(&format!(" in {}", s("path")));
            }
            out
        }
        "bash" => first_line(s("command")).to_string(),
        "apply_patch" => patch_files(s("input")),
        "web_search" => format!("{:?}", s("query")),
        "web_fetch" => web_target(s("url")),
        "http_request" => format!(
            "{} {}",
            s("method").to_ascii_uppercase(),
            web_target(s("url"))
        ),
        "browser" => {
            let target = match s("action") {
                "open" => web_target(s("url")),
                "eval" => first_line(s("js")).to_string(),
                "type" => format!("{} {:?}", s("selector"), s("text")),
                _ => s("selector").to_string(),
            };
            format!("{} {target}", s("action")).trim_end().to_string()
        }
        "memory_store" | "memory_forget" => s("key").to_string(),
        "memory_recall" => format!("{:?}", s("query")),
        "oracle" => first_line(s("question")).to_string(),
        "delegate" => first_line(s("task")).to_string(),
        "cron_add" => format!("{} {}", s("schedule"), first_line(s("prompt"))),
        "cron_remove" => s("id").to_string(),
        "update_plan" => plan_line(args),
        _ => truncate(&args.to_string(), FALLBACK_COLUMNS),
    }
}

/// An `update_plan` call in a line: the step it starts, or how many steps it lists.
fn plan_line(args: &Value) -> String {
    let steps = args["plan"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let busy = steps.iter().position(|s| s["status"] == "in_progress");
    match busy {
        Some(at) => format!(
            "step {}/{}: {}",
            at + 1,
            steps.len(),
            first_line(steps[at]["step"].as_str().unwrap_or(""))
        ),
        None => format!("{} steps", steps.len()),
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

/// The files a patch touches: `src/a.rs`, `src/a.rs, docs/b.md`, `src/a.rs, b.md +3 more`
/// (moves as `old → new`, deletions marked); `(invalid patch)` when it does not parse.
fn patch_files(input: &str) -> String {
    use crate::tools::patch::{PatchOp, parse};
    let Ok(patch) = parse(input) else {
        return "(invalid patch)".to_string();
    };
    let names: Vec<String> = patch
        .ops
        .iter()
        .map(|op| match op {
            PatchOp::Add { path, .. } => format!("+{path}"),
            PatchOp::Delete { path } => format!("-{path}"),
            PatchOp::Update {
                path,
                move_to: Some(to),
                ..
            } => format!("{path} → {to}"),
            PatchOp::Update { path, .. } => path.clone(),
        })
        .collect();
    const SHOWN: usize = 2;
    let mut out = names
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > SHOWN {
        out.push_str(&format!(" +{} more", names.len() - SHOWN));
    }
    out
}

/// A URL for a row: the domain first (what a person checks), then the path; no scheme.
fn web_target(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(u) => {
            let mut out = u.host_str().unwrap_or("").to_string();
            if let Some(port) = u.port() {
                out.push_str(&format!(":{port}"));
            }
            if u.path() != "/" {
                out.push_str(u.path());
            }
            if let Some(q) = u.query() {
                out.push('?');
                out.push_str(q);
            }
            out
        }
        Err(_) => url.to_string(),
    }
}

/// The whole call in one line, name first: `read_file greet.py`, `bash cargo test`,
/// `edit_file src/lib.rs (2 edits)`.
///
/// A command comes from the intent the tool described (its first line, how many lines
/// follow, the directory it runs in, whether it asks to leave the sandbox). Other calls use
/// [`summarize`]. A call without an intent is one that cannot run (unknown tool, arguments
/// that do not parse), and says so instead of echoing its raw arguments.
pub fn call_line(name: &str, args: &Value, intent: Option<&CallIntent>) -> String {
    let Some(intent) = intent else {
        return format!("{name} (invalid call)");
    };
    let detail = match intent.as_command() {
        Some(c) => {
            let mut lines = c.command.lines();
            let mut out = lines.next().unwrap_or("").to_string();
            let more = lines.count();
            if more > 0 {
                out.push_str(&format!(
                    " (+{more} line{})",
                    if more == 1 { "" } else { "s" }
                ));
            }
            if let Some(cwd) = c.cwd.as_deref().filter(|d| !d.is_empty() && *d != ".") {
                out.push_str(&format!(" (in {cwd})"));
            }
            if c.outside_sandbox {
                out.push_str(" (outside the sandbox)");
            }
            out
        }
        None => {
            let from_args = summarize(name, args);
            if from_args.is_empty() {
                intent.summary()
            } else {
                from_args
            }
        }
    };
    if detail.is_empty() {
        name.to_string()
    } else {
        format!("{name} {detail}")
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use unicode_width::UnicodeWidthStr;

    use super::*;
    use crate::policy::call::CommandIntent;

    fn runs(command: &str, cwd: Option<&str>, outside_sandbox: bool) -> CallIntent {
        CallIntent::runs(CommandIntent {
            command: command.into(),
            cwd: cwd.map(str::to_string),
            outside_sandbox,
        })
    }

    #[test]
    fn web_calls_show_their_domain_first() {
        assert_eq!(
            summarize(
                "web_fetch",
                &json!({"url": "https://docs.rs/serde/latest/"})
            ),
            "docs.rs/serde/latest/"
        );
        assert_eq!(
            summarize(
                "http_request",
                &json!({"method": "post", "url": "http://127.0.0.1:8080/api?token=****"})
            ),
            "POST 127.0.0.1:8080/api?token=****"
        );
        assert_eq!(
            summarize("web_search", &json!({"query": "rust async"})),
            "\"rust async\""
        );
    }

    /// A plan call's row names the step it starts, of all steps, or counts its steps.
    #[test]
    fn an_update_plan_row_names_the_step_in_progress() {
        let plan = |second: &str| {
            json!({"plan": [{"step": "read", "status": "completed"},
                            {"step": "fix the\nparser", "status": second}]})
        };
        assert_eq!(
            summarize("update_plan", &plan("in_progress")),
            "step 2/2: fix the"
        );
        assert_eq!(summarize("update_plan", &plan("pending")), "2 steps");
        assert_eq!(summarize("update_plan", &json!({})), "0 steps");
    }

    #[test]
    fn summaries_are_one_line() {
        assert_eq!(
            summarize(
                "browser",
                &json!({"action": "open", "url": "http://127.0.0.1:5173/"})
            ),
            "open 127.0.0.1:5173"
        );
        assert_eq!(
            summarize("browser", &json!({"action": "click", "selector": "#go"})),
            "click #go"
        );
        assert_eq!(
            summarize("browser", &json!({"action": "console"})),
            "console"
        );
        assert_eq!(
            summarize("delegate", &json!({"task": "Read a.txt\nthen b"})),
            "Read a.txt"
        );
        assert_eq!(
            summarize(
                "cron_add",
                &json!({"schedule": "@daily", "prompt": "run tests"})
            ),
            "@daily run tests"
        );
        assert_eq!(
            summarize("read_file", &json!({"path": "a.rs", "line_range": [3, 9]})),
            "a.rs [3-9]"
        );
        assert_eq!(
            summarize("bash", &json!({"command": "cargo test\nmore"})),
            "cargo test"
        );
        assert_eq!(
            summarize("search_files", &json!({"pattern": "fn", "glob": "*.rs"})),
            "/fn/ *.rs"
        );
        assert_eq!(
            summarize("edit_file", &json!({"path": "x", "edits": [{}, {}]})),
            "x (2 edits)"
        );
        let patch = "*** Begin Patch\n*** Add File: n.rs\n+x\n*** Delete File: o.rs\n\
                     *** Update File: a.rs\n*** Move to: b.rs\n*** Update File: c.rs\n@@\n-x\n+y\n\
                     *** End Patch";
        assert_eq!(
            summarize("apply_patch", &json!({ "input": patch })),
            "+n.rs, -o.rs +2 more"
        );
        assert_eq!(
            summarize(
                "apply_patch",
                &json!({"input": "*** Begin Patch\n*** Update File: a\n*** Move to: b\n*** End Patch"})
            ),
            "a → b"
        );
        assert_eq!(
            summarize("apply_patch", &json!({"input": "nonsense"})),
            "(invalid patch)"
        );
    }

    #[test]
    fn unknown_tools_show_their_arguments_cut_to_80_columns() {
        let long = "é".repeat(200);
        let s = summarize("mystery", &json!({ "text": long }));
        assert_eq!(s.width(), 80);
        assert!(s.starts_with(r#"{"text":"éé"#) && s.ends_with('…'), "{s}");
    }

    #[test]
    fn call_lines_name_the_tool_and_what_it_touches() {
        let read = CallIntent::reads(["src/main.rs".to_string()]);
        assert_eq!(
            call_line("read_file", &json!({"path": "src/main.rs"}), Some(&read)),
            "read_file src/main.rs"
        );
        let edit = CallIntent::writes("src/lib.rs");
        assert_eq!(
            call_line(
                "edit_file",
                &json!({"path": "src/lib.rs", "edits": [{}, {}]}),
                Some(&edit)
            ),
            "edit_file src/lib.rs (2 edits)"
        );
        let search = CallIntent::reads([".".to_string()]);
        assert_eq!(
            call_line("search_files", &json!({"pattern": "todo"}), Some(&search)),
            "search_files /todo/"
        );
    }

    #[test]
    fn command_lines_come_from_the_intent() {
        let args = json!({"command": "ignored: the intent is what runs"});
        assert_eq!(
            call_line("bash", &args, Some(&runs("cargo test", None, false))),
            "bash cargo test"
        );
        assert_eq!(
            call_line(
                "bash",
                &args,
                Some(&runs("cat <<EOF > a\nx\nEOF", Some("sub"), true))
            ),
            "bash cat <<EOF > a (+2 lines) (in sub) (outside the sandbox)"
        );
        assert_eq!(
            call_line("bash", &args, Some(&runs("ls\npwd", Some("."), false))),
            "bash ls (+1 line)"
        );
    }

    #[test]
    fn an_invalid_call_says_so_instead_of_echoing_its_arguments() {
        let raw = Value::String("{\"path\": \"a.rs\"".into());
        assert_eq!(
            call_line("read_file", &raw, None),
            "read_file (invalid call)"
        );
    }

    #[test]
    fn a_call_with_nothing_to_summarise_falls_back_to_its_intent() {
        let write = CallIntent::writes("notes.md");
        assert_eq!(
            call_line("write_file", &json!({}), Some(&write)),
            "write_file notes.md"
        );
    }
}
