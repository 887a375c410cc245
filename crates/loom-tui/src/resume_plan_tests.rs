//! A resumed session redraws its plan (issue 28): the `update_plan` results in the session
//! file become the plan block, updated in place as they were live, and the status line's
//! "step 2/5" comes back from the last one, while the chat stays lazy (only what is on
//! screen is rendered).

use std::path::Path;

use serde_json::json;

use super::app::App;
use super::snapshot_tests::{app, text};
use crate::protocol::message::{Message, ToolCall};
use crate::protocol::plan::{Plan, PlanStep, StepStatus};
use crate::protocol::tool_result::ToolResult;
use loom_core::session::{self, Record, SessionLog};

const STEPS: [&str; 5] = [
    "Read the parser and its tests",
    "Move the tokenizer into its own module",
    "Update the callers",
    "Run cargo test",
    "Summarise the change",
];

/// A plan of `STEPS` with these statuses.
fn plan(statuses: &[StepStatus], explanation: Option<&str>) -> Plan {
    Plan {
        explanation: explanation.map(String::from),
        steps: statuses
            .iter()
            .zip(STEPS)
            .map(|(status, step)| PlanStep {
                step: step.into(),
                status: *status,
            })
            .collect(),
    }
}

/// The call and the result of an `update_plan` giving `p`, as the agent stores them (the
/// plan in the result's data); a failed call stores an error and no data.
fn put_plan(put: &mut impl FnMut(Message), id: &str, p: &Plan, ok: bool) {
    put(Message::Assistant {
        content: String::new(),
        tool_calls: vec![ToolCall {
            id: id.into(),
            name: "update_plan".into(),
            arguments: json!({ "plan": p.steps, "explanation": p.explanation }).to_string(),
        }],
    });
    let result = if ok {
        ToolResult::ok("Plan updated.").with_data(serde_json::to_value(p).unwrap())
    } else {
        ToolResult::err("steps 1, 2 are all in_progress")
    };
    put(Message::Tool {
        tool_call_id: id.into(),
        name: "update_plan".into(),
        content: serde_json::to_string(&result).unwrap(),
    });
}

/// A session of two turns: the first planned and finished its plan; the second's plan was
/// updated twice (the second update is the one to show) and a failed update came last.
fn resumed(dir: &Path) -> App {
    use StepStatus::{Completed as Done, InProgress as Now, Pending as Todo};
    let mut log = SessionLog::create(dir, "plans", Path::new("/w"), "m").unwrap();
    let mut put = |m: Message| log.append(&Record::Message { message: m }).unwrap();
    put(Message::user("read the parser"));
    put_plan(&mut put, "p0", &plan(&[Done, Done], None), true);
    put(Message::Assistant {
        content: "Read it.".into(),
        tool_calls: Vec::new(),
    });
    put(Message::user("split the parser"));
    put(Message::user(
        "[Loom] Context from the UserPromptSubmit hook:\nLOOM-NOTE-NOT-SHOWN",
    ));
    put_plan(
        &mut put,
        "p1",
        &plan(&[Now, Todo, Todo, Todo, Todo], None),
        true,
    );
    let second = plan(
        &[Done, Now, Todo, Todo, Todo],
        Some("The tokenizer is tangled with the parser."),
    );
    put_plan(&mut put, "p2", &second, true);
    put_plan(&mut put, "p3", &plan(&[Now, Now], None), false);
    let loaded = session::load(log.path()).unwrap();
    let (mut app, rx) = app("dark");
    std::mem::forget(rx);
    app.start_over(&loaded);
    app
}

/// Regression (issue 28 gap): a resumed session showed its `update_plan` calls as bare
/// rows, with no plan block and no "step 2/5" in the status line.
#[test]
fn a_resumed_session_redraws_its_last_plan_and_the_step_in_progress() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = resumed(dir.path());
    assert_eq!(app.transcript.renders(), 0, "loading renders nothing");
    let screen = text(&mut app, 100, 30);
    assert_eq!(
        screen.matches("Plan · ").count(),
        2,
        "one block a turn: {screen}"
    );
    assert!(screen.contains("Plan · 2/2 done"), "{screen}");
    // Loom's notes to the model were not shown live and stay hidden resumed.
    assert!(screen.contains("split the parser"), "{screen}");
    assert!(!screen.contains("LOOM-NOTE-NOT-SHOWN"), "{screen}");
    assert!(screen.contains("Plan · step 2/5"), "{screen}");
    // The chat is the left column (the tools pane beside it lists every call).
    let chat: Vec<String> = screen
        .lines()
        .map(|l| l.chars().take(58).collect())
        .collect();
    assert!(
        !chat.iter().any(|l| l.contains("update_plan")),
        "no bare rows in the chat: {screen}"
    );
    assert!(
        screen.lines().last().unwrap().contains("step 2/5"),
        "{screen}"
    );
    let shown = app.progress.plan().expect("the last plan is kept");
    assert_eq!(shown.in_progress(), Some((2, 5)));
    insta::assert_snapshot!(screen);
}
