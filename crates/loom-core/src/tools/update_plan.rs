//! `update_plan`: the model's plan for multi-step work (issue 28), shown to the person as a
//! block in the chat and as "step 2/5" in the status line.
//!
//! Each call gives the whole plan (every step with its status, and an optional short
//! explanation); the newest replaces the last. It touches nothing, so to the policy it is
//! a read and it is offered in plan mode too. The result the model reads is one short line;
//! the plan itself travels in the result's data, from which the agent sends
//! [`crate::protocol::events::AgentEvent::PlanUpdated`] to the front ends.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{CallIntent, ToolContext, ToolError, ToolKind, ToolResult, TypedTool};
use crate::protocol::plan::{Plan, PlanStep, StepStatus};

/// The tool's name.
pub const UPDATE_PLAN: &str = "update_plan";
/// Most steps a plan may have: a plan is a short list, not a task tracker.
pub const MAX_STEPS: usize = 20;
/// Most characters of one step's text.
pub const MAX_STEP_CHARS: usize = 200;
/// Most characters of the explanation.
pub const MAX_EXPLANATION_CHARS: usize = 500;

/// A step's status as the model writes it.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Not started.
    Pending,
    /// Being worked on (at most one step).
    InProgress,
    /// Done.
    #[serde(alias = "done")]
    Completed,
}

impl From<Status> for StepStatus {
    fn from(s: Status) -> StepStatus {
        match s {
            Status::Pending => StepStatus::Pending,
            Status::InProgress => StepStatus::InProgress,
            Status::Completed => StepStatus::Completed,
        }
    }
}

/// One step as the model writes it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StepArgs {
    /// The step, in a few words.
    #[serde(alias = "text")]
    pub step: String,
    /// pending, in_progress or completed.
    pub status: Status,
}

/// Arguments of `update_plan`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdatePlanArgs {
    /// Every step, in order.
    #[schemars(schema_with = "steps_schema")]
    pub plan: Vec<StepArgs>,
    /// One sentence.
    pub explanation: Option<String>,
}

/// The schema of `plan` the model sees: the derived one described every status and the
/// step type in words, which cost tokens of every request's fixed prefix (the statuses'
/// names say it all).
fn steps_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "step": {"type": "string"},
                "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]}
            },
            "required": ["step", "status"]
        }
    })
}

impl UpdatePlanArgs {
    /// The plan as front ends receive it (texts trimmed).
    fn to_plan(&self) -> Plan {
        Plan {
            explanation: self
                .explanation
                .as_deref()
                .map(str::trim)
                .filter(|e| !e.is_empty())
                .map(String::from),
            steps: self
                .plan
                .iter()
                .map(|s| PlanStep {
                    step: s.step.trim().to_string(),
                    status: s.status.into(),
                })
                .collect(),
        }
    }
}

/// The `update_plan` tool.
pub struct UpdatePlan;

const DESCRIPTION: &str = "Your plan for multi-step work, shown to the user: give every step \
     each call, at most one in_progress.";

fn invalid(message: String) -> ToolError {
    ToolError::InvalidArguments(message)
}

#[async_trait]
impl TypedTool for UpdatePlan {
    type Args = UpdatePlanArgs;
    fn name(&self) -> &'static str {
        UPDATE_PLAN
    }
    fn description(&self) -> &'static str {
        DESCRIPTION
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }
    fn check(&self, a: &UpdatePlanArgs) -> Result<(), ToolError> {
        if a.plan.is_empty() {
            return Err(invalid(
                "plan is empty; give every step of the plan, each with a status".into(),
            ));
        }
        if a.plan.len() > MAX_STEPS {
            return Err(invalid(format!(
                "plan has {} steps, at most {MAX_STEPS} are allowed; merge small steps",
                a.plan.len()
            )));
        }
        for (i, s) in a.plan.iter().enumerate() {
            let chars = s.step.trim().chars().count();
            if chars == 0 {
                return Err(invalid(format!(
                    "step {} has no text; say what it does",
                    i + 1
                )));
            }
            if chars > MAX_STEP_CHARS {
                return Err(invalid(format!(
                    "step {} is {chars} characters, at most {MAX_STEP_CHARS}; keep steps short",
                    i + 1
                )));
            }
        }
        let busy: Vec<String> = (a.plan.iter().enumerate())
            .filter(|(_, s)| matches!(s.status, Status::InProgress))
            .map(|(i, _)| (i + 1).to_string())
            .collect();
        if busy.len() > 1 {
            return Err(invalid(format!(
                "steps {} are all in_progress; at most one step may be in progress, mark the \
                 others pending or completed",
                busy.join(", ")
            )));
        }
        let explained = a
            .explanation
            .as_deref()
            .map_or(0, |e| e.trim().chars().count());
        if explained > MAX_EXPLANATION_CHARS {
            return Err(invalid(format!(
                "explanation is {explained} characters, at most {MAX_EXPLANATION_CHARS}; keep \
                 it to a sentence"
            )));
        }
        Ok(())
    }
    fn intent(&self, _a: &UpdatePlanArgs) -> Result<CallIntent, ToolError> {
        Ok(CallIntent::reads([]))
    }
    fn default_timeout(&self) -> Duration {
        Duration::from_secs(5)
    }
    async fn run(&self, a: Arc<UpdatePlanArgs>, _ctx: &ToolContext) -> ToolResult {
        let plan = a.to_plan();
        let total = plan.steps.len();
        let text = match plan.in_progress() {
            Some((at, _)) => format!("Plan updated: step {at}/{total} in progress."),
            None => format!(
                "Plan updated: {}/{total} steps completed.",
                plan.completed()
            ),
        };
        match serde_json::to_value(&plan) {
            Ok(data) => ToolResult::ok(text).with_data(data),
            Err(e) => ToolResult::err(format!("the plan could not be recorded: {e}")),
        }
    }
}

/// The plan a successful `update_plan` result carries, for the agent's event.
pub fn plan_of(result: &ToolResult) -> Option<Plan> {
    if !result.success {
        return None;
    }
    result.data_as()
}

#[cfg(test)]
#[path = "update_plan_tests.rs"]
mod tests;
