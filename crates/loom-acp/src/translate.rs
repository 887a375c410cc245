//! Loom's agent events as ACP session updates: what a tool call is (kind, title, the files
//! it touches), its status as it moves on, and a written change as a diff. Pure functions
//! of the events, so the mapping is tested without a connection.

use std::path::Path;

use agent_client_protocol::v1::schema::{
    ContentBlock, Diff, Plan, PlanEntry, PlanEntryPriority, PlanEntryStatus, StopReason,
    TextContent, ToolCall, ToolCallContent, ToolCallLocation, ToolCallStatus, ToolCallUpdate,
    ToolCallUpdateFields, ToolKind,
};
use loom_base::diff::{Hunk, LineKind};
use loom_protocol::events::{ApprovalPreview, TurnEnd};
use loom_protocol::intent::CallIntent;
use loom_protocol::plan::{Plan as LoomPlan, StepStatus};
use loom_protocol::tool_result::ToolResult;
use serde_json::Value;

/// The most characters of a tool's output shown in the editor (the model gets its own copy).
const OUTPUT_SHOWN: usize = 4_000;

/// The ACP kind of a Loom tool call, from what it touches (and, among reads, whether it
/// searches).
pub fn kind_of(name: &str, intent: Option<&CallIntent>) -> ToolKind {
    match intent {
        Some(CallIntent::Reads(_)) if matches!(name, "search_files" | "list_files") => {
            ToolKind::Search
        }
        Some(CallIntent::Reads(_) | CallIntent::GlobalMemory(_)) => ToolKind::Read,
        Some(CallIntent::Writes(_)) => ToolKind::Edit,
        Some(CallIntent::Runs(_)) => ToolKind::Execute,
        Some(CallIntent::Network(_)) => ToolKind::Fetch,
        Some(CallIntent::Mcp(_) | CallIntent::Schedule(_)) | None => ToolKind::Other,
    }
}

/// A one-line title for a tool call, in the words the TUI uses: the command, the files, the
/// URL, the MCP tool; the tool's name otherwise.
pub fn title_of(name: &str, intent: Option<&CallIntent>) -> String {
    let paths = |verb: &str, paths: &[String]| match paths {
        [] => name.to_string(),
        [one] => format!("{verb} {one}"),
        [first, rest @ ..] => format!("{verb} {first} (+{} more)", rest.len()),
    };
    match intent {
        Some(CallIntent::Reads(p)) => paths(
            if name == "search_files" {
                "Search"
            } else {
                "Read"
            },
            p,
        ),
        Some(CallIntent::Writes(p)) => paths("Edit", p),
        Some(CallIntent::Runs(c)) => format!("`{}`", c.command),
        Some(CallIntent::Network(n)) => format!("{} {}", n.method, n.url),
        Some(CallIntent::Mcp(m)) => format!("{}: {}", m.server, m.tool),
        Some(i @ (CallIntent::Schedule(_) | CallIntent::GlobalMemory(_))) => i.summary(),
        None => name.to_string(),
    }
}

/// The files a call touches, as absolute paths beneath `workspace` (the editor opens them).
pub fn locations_of(workspace: &Path, intent: Option<&CallIntent>) -> Vec<ToolCallLocation> {
    let paths: &[String] = match intent {
        Some(CallIntent::Reads(p) | CallIntent::Writes(p)) => p,
        _ => &[],
    };
    paths
        .iter()
        .map(|p| ToolCallLocation::new(workspace.join(p)))
        .collect()
}

/// The `tool_call` update announcing a call the model proposed.
pub fn tool_call(
    workspace: &Path,
    id: &str,
    name: &str,
    arguments: &Value,
    intent: Option<&CallIntent>,
) -> ToolCall {
    ToolCall::new(id.to_string(), title_of(name, intent))
        .kind(kind_of(name, intent))
        .status(ToolCallStatus::Pending)
        .locations(locations_of(workspace, intent))
        .raw_input(arguments.clone())
}

/// A status change of call `id`, with optional content (which replaces what was shown).
pub fn status(
    id: &str,
    status: ToolCallStatus,
    content: Option<Vec<ToolCallContent>>,
) -> ToolCallUpdate {
    ToolCallUpdate::new(
        id.to_string(),
        ToolCallUpdateFields::new().status(status).content(content),
    )
}

/// Text as tool-call content.
pub fn text(s: impl Into<String>) -> ToolCallContent {
    ToolCallContent::from(ContentBlock::Text(TextContent::new(s)))
}

/// What a finished call shows: its output (cut to [`OUTPUT_SHOWN`]) or its error.
pub fn result_text(result: &ToolResult) -> String {
    let body = match (&result.error, result.output.is_empty()) {
        (Some(e), true) => e.clone(),
        (Some(e), false) => format!("{e}\n{}", result.output),
        (None, _) => result.output.clone(),
    };
    match body.char_indices().nth(OUTPUT_SHOWN) {
        Some((cut, _)) => format!("{}\n… (cut)", &body[..cut]),
        None => body,
    }
}

/// A written change as an ACP diff: the old and new text of the hunks written (context
/// lines included), for the file's absolute path. A created file has no old text; a deleted
/// one has empty new text.
pub fn diff(workspace: &Path, path: &str, hunks: &[Hunk], creates: bool) -> Diff {
    let (mut old, mut new) = (String::new(), String::new());
    for (i, hunk) in hunks.iter().enumerate() {
        if i > 0 {
            old.push_str("…\n");
            new.push_str("…\n");
        }
        for line in &hunk.lines {
            match line.kind {
                LineKind::Context => {
                    old.push_str(&line.raw);
                    new.push_str(&line.raw);
                }
                LineKind::Removed => old.push_str(&line.raw),
                LineKind::Added => new.push_str(&line.raw),
            }
        }
    }
    let d = Diff::new(workspace.join(path), new);
    if creates { d } else { d.old_text(old) }
}

/// The diffs an approval request shows: every file change it would make.
pub fn preview_diffs(workspace: &Path, preview: &ApprovalPreview) -> Vec<ToolCallContent> {
    match preview {
        ApprovalPreview::FileChange {
            path,
            diff: d,
            creates,
            ..
        } => vec![ToolCallContent::from(diff(
            workspace, path, &d.hunks, *creates,
        ))],
        ApprovalPreview::Files { files } => files
            .iter()
            .map(|f| ToolCallContent::from(diff(workspace, &f.path, &f.diff.hunks, f.creates)))
            .collect(),
        ApprovalPreview::Command {
            command,
            risk_reason,
            ..
        } => vec![text(format!("$ {command}\n{risk_reason}"))],
        ApprovalPreview::Network {
            url, risk_reason, ..
        } => {
            vec![text(format!("{url}\n{risk_reason}"))]
        }
        ApprovalPreview::McpTool { arguments, .. } => vec![text(arguments.clone())],
        ApprovalPreview::Schedule { change } => vec![text(format!("{change:?}"))],
        ApprovalPreview::Other { arguments } => vec![text(arguments.to_string())],
    }
}

/// How an ACP prompt turn ended, from how Loom's turn ended (`None`: it failed, and the
/// prompt is answered with an error).
pub fn stop_reason(end: &TurnEnd) -> Option<StopReason> {
    match end {
        TurnEnd::Done => Some(StopReason::EndTurn),
        TurnEnd::Interrupted => Some(StopReason::Cancelled),
        TurnEnd::RoundCap => Some(StopReason::MaxTurnRequests),
        TurnEnd::Truncated => Some(StopReason::MaxTokens),
        TurnEnd::Failed => None,
    }
}

/// The model's plan (`update_plan`) as an ACP plan: the whole list each time, as the
/// protocol asks. Loom's steps have no priority; they are all sent as medium.
pub fn plan(plan: &LoomPlan) -> Plan {
    Plan::new(
        plan.steps
            .iter()
            .map(|s| {
                let status = match s.status {
                    StepStatus::Pending => PlanEntryStatus::Pending,
                    StepStatus::InProgress => PlanEntryStatus::InProgress,
                    StepStatus::Completed => PlanEntryStatus::Completed,
                };
                PlanEntry::new(s.step.clone(), PlanEntryPriority::Medium, status)
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use loom_base::diff::FileDiff;
    use loom_protocol::intent::CommandIntent;

    #[test]
    fn kinds_follow_what_a_call_touches() {
        let read = CallIntent::reads(["a.rs".to_string()]);
        assert_eq!(kind_of("read_file", Some(&read)), ToolKind::Read);
        assert_eq!(kind_of("search_files", Some(&read)), ToolKind::Search);
        assert_eq!(
            kind_of("edit_file", Some(&CallIntent::writes("a.rs"))),
            ToolKind::Edit
        );
        let run = CallIntent::runs(CommandIntent {
            command: "ls".into(),
            cwd: None,
            outside_sandbox: false,
        });
        assert_eq!(kind_of("bash", Some(&run)), ToolKind::Execute);
        assert_eq!(title_of("bash", Some(&run)), "`ls`");
        assert_eq!(kind_of("nonsense", None), ToolKind::Other);
        assert_eq!(title_of("nonsense", None), "nonsense");
    }

    #[test]
    fn locations_are_absolute_beneath_the_workspace() {
        let w = Path::new("/w");
        let locs = locations_of(w, Some(&CallIntent::writes("src/a.rs")));
        assert_eq!(locs.len(), 1);
        assert_eq!(locs[0].path, Path::new("/w/src/a.rs"));
        assert!(locations_of(w, None).is_empty());
    }

    #[test]
    fn a_diff_carries_the_old_and_new_text_of_its_hunks() {
        let d = FileDiff::compute("a\nb\nc\n", "a\nB\nc\n");
        let acp = diff(Path::new("/w"), "f.txt", &d.hunks, false);
        assert_eq!(acp.path, Path::new("/w/f.txt"));
        assert_eq!(acp.old_text.as_deref(), Some("a\nb\nc\n"));
        assert_eq!(acp.new_text, "a\nB\nc\n");
        let created = FileDiff::compute("", "new\n");
        let acp = diff(Path::new("/w"), "n.txt", &created.hunks, true);
        assert_eq!((acp.old_text, acp.new_text.as_str()), (None, "new\n"));
    }

    #[test]
    fn long_output_is_cut_and_errors_come_first() {
        let long = ToolResult::ok("x".repeat(OUTPUT_SHOWN + 10));
        assert!(result_text(&long).ends_with("… (cut)"));
        assert_eq!(result_text(&ToolResult::err("boom")), "boom");
    }

    #[test]
    fn a_failed_turn_has_no_stop_reason_and_an_interrupt_is_a_cancel() {
        assert_eq!(stop_reason(&TurnEnd::Failed), None);
        assert_eq!(
            stop_reason(&TurnEnd::Interrupted),
            Some(StopReason::Cancelled)
        );
        assert_eq!(stop_reason(&TurnEnd::Done), Some(StopReason::EndTurn));
    }

    #[test]
    fn a_plan_is_sent_whole_with_each_steps_status() {
        use loom_protocol::plan::PlanStep;
        let loom = LoomPlan {
            explanation: Some("why".into()),
            steps: vec![
                PlanStep {
                    step: "read".into(),
                    status: StepStatus::Completed,
                },
                PlanStep {
                    step: "edit".into(),
                    status: StepStatus::InProgress,
                },
                PlanStep {
                    step: "test".into(),
                    status: StepStatus::Pending,
                },
            ],
        };
        let acp = plan(&loom);
        let shown: Vec<(&str, &PlanEntryStatus)> = acp
            .entries
            .iter()
            .map(|e| (e.content.as_str(), &e.status))
            .collect();
        assert_eq!(
            shown,
            [
                ("read", &PlanEntryStatus::Completed),
                ("edit", &PlanEntryStatus::InProgress),
                ("test", &PlanEntryStatus::Pending),
            ]
        );
    }
}
