//! `update_plan`: each error and limit, and the short result with the plan in its data.

use serde_json::{Value, json};

use super::*;
use crate::tools::Tool;

fn steps(n: usize, status: &str) -> Value {
    Value::Array(
        (0..n)
            .map(|i| json!({"step": format!("step {i}"), "status": status}))
            .collect(),
    )
}

/// The error the model reads for `args`.
fn error(args: Value) -> String {
    match Tool::parse(&UpdatePlan, args) {
        Ok(call) => panic!("accepted: {:?}", call.args),
        Err(e) => e.to_string(),
    }
}

async fn run(args: Value) -> ToolResult {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::for_workspace(dir.path()).unwrap();
    Tool::execute(&UpdatePlan, args, &ctx).await
}

#[tokio::test]
async fn a_plan_is_recorded_in_a_short_result() {
    let r = run(json!({
        "explanation": "  Fix the parser first.  ",
        "plan": [
            {"step": "Read the parser", "status": "completed"},
            {"step": " Fix the bug ", "status": "in_progress"},
            {"text": "Run the tests", "status": "pending"},
        ]
    }))
    .await;
    assert!(r.success, "{r:?}");
    assert_eq!(r.output, "Plan updated: step 2/3 in progress.");
    let plan = plan_of(&r).unwrap();
    assert_eq!(plan.explanation.as_deref(), Some("Fix the parser first."));
    assert_eq!(plan.steps[1].step, "Fix the bug");
    assert_eq!(plan.steps[1].status, StepStatus::InProgress);
    assert_eq!(
        plan.steps[2].step, "Run the tests",
        "`text` is read as `step`"
    );
    let done = run(json!({"plan": [{"step": "a", "status": "done"}]})).await;
    assert_eq!(done.output, "Plan updated: 1/1 steps completed.");
    assert_eq!(plan_of(&done).unwrap().explanation, None);
}

#[test]
fn an_empty_plan_is_refused() {
    assert!(error(json!({"plan": []})).contains("plan is empty"));
}

#[test]
fn more_than_the_most_steps_is_refused() {
    assert!(Tool::parse(&UpdatePlan, json!({"plan": steps(MAX_STEPS, "pending")})).is_ok());
    let e = error(json!({"plan": steps(MAX_STEPS + 1, "pending")}));
    assert!(e.contains("21 steps, at most 20"), "{e}");
}

#[test]
fn two_steps_in_progress_are_refused() {
    let e = error(json!({"plan": steps(3, "in_progress")}));
    assert!(e.contains("steps 1, 2, 3 are all in_progress"), "{e}");
    assert!(e.contains("at most one step"), "{e}");
}

#[test]
fn a_blank_or_long_step_is_refused() {
    let e = error(json!({"plan": [{"step": "  ", "status": "pending"}]}));
    assert!(e.contains("step 1 has no text"), "{e}");
    let long = "x".repeat(MAX_STEP_CHARS + 1);
    let e = error(json!({"plan": [{"step": "a", "status": "pending"},
                                  {"step": long, "status": "pending"}]}));
    assert!(e.contains("step 2 is 201 characters, at most 200"), "{e}");
}

#[test]
fn a_long_explanation_is_refused() {
    let e = error(json!({"plan": steps(1, "pending"),
                         "explanation": "x".repeat(MAX_EXPLANATION_CHARS + 1)}));
    assert!(e.contains("explanation is 501 characters"), "{e}");
}

#[test]
fn an_unknown_status_or_field_is_refused() {
    let e = error(json!({"plan": [{"step": "a", "status": "started"}]}));
    assert!(e.contains("started"), "{e}");
    let e = error(json!({"plan": steps(1, "pending"), "steps": []}));
    assert!(e.contains("steps"), "{e}");
    let e = error(json!({"explanation": "x"}));
    assert!(e.contains("plan"), "{e}");
}

#[test]
fn a_failed_result_carries_no_plan() {
    assert_eq!(plan_of(&ToolResult::err("no")), None);
}
