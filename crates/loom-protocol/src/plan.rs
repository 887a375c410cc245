//! The model's plan (`update_plan`, issue 28): steps with a status and an optional short
//! explanation. The agent sends it to front ends as [`crate::events::AgentEvent::PlanUpdated`]
//! each time the model changes it; the TUI draws it as one block and in the status line.

use serde::{Deserialize, Serialize};

/// Where a step of the plan stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    /// Not started.
    Pending,
    /// Being worked on (at most one step at a time).
    InProgress,
    /// Done.
    Completed,
}

/// One step of a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanStep {
    /// What the step does, in a few words.
    pub step: String,
    /// Where it stands.
    pub status: StepStatus,
}

/// The model's current plan.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Plan {
    /// Why the plan is what it is, or what changed (short; may be absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explanation: Option<String>,
    /// The steps, in order.
    pub steps: Vec<PlanStep>,
}

impl Plan {
    /// The step in progress (1-based) and the number of steps, for "step 2/5"; `None` when
    /// no step is in progress.
    pub fn in_progress(&self) -> Option<(usize, usize)> {
        let at = self
            .steps
            .iter()
            .position(|s| s.status == StepStatus::InProgress)?;
        Some((at + 1, self.steps.len()))
    }

    /// How many steps are completed.
    pub fn completed(&self) -> usize {
        self.steps
            .iter()
            .filter(|s| s.status == StepStatus::Completed)
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(text: &str, status: StepStatus) -> PlanStep {
        PlanStep {
            step: text.into(),
            status,
        }
    }

    #[test]
    fn progress_names_the_step_in_progress_of_all_steps() {
        let plan = Plan {
            explanation: None,
            steps: vec![
                step("read", StepStatus::Completed),
                step("edit", StepStatus::InProgress),
                step("test", StepStatus::Pending),
            ],
        };
        assert_eq!(plan.in_progress(), Some((2, 3)));
        assert_eq!(plan.completed(), 1);
        let json = serde_json::to_value(&plan).unwrap();
        assert_eq!(json["steps"][1]["status"], "in_progress");
        assert!(json.get("explanation").is_none());
        assert_eq!(Plan::default().in_progress(), None);
    }
}
