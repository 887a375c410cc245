//! Plan mode and the plan (issue 28): switching the approval mode in and out of plan mode
//! (with a note the model reads), the person's approval of a plan, which switches the mode
//! and sets the agent to carry the plan out, the schemas offered in plan mode (read-only
//! tools only), and the [`AgentEvent::PlanUpdated`] sent for each `update_plan` result.

use super::*;
use crate::policy::Autonomy;
use crate::protocol::plan::Plan;
use crate::tools::update_plan::{UPDATE_PLAN, plan_of};

/// What the model reads when the person switches plan mode on.
pub(super) const PLAN_MODE_ON: &str = "[Loom] Plan mode is on: only read-only tools run \
     (reads, searches, read-only commands); writes and other commands are refused. \
     Investigate, keep the plan with update_plan, and end your turn with the plan. The user \
     approves it before anything is changed.";

/// The kinds of tool offered in plan mode: those that only read, and `bash` (the policy
/// runs only read-only commands there) and the read-only web tools (the policy decides).
fn offered_in_plan_mode(kind: ToolKind) -> bool {
    matches!(kind, ToolKind::Read | ToolKind::Execute | ToolKind::Network)
}

impl Runner {
    /// The person changed the approval mode: the policy and the sub-agents follow, and the
    /// model is told when plan mode starts or ends, and of any switch made while a turn
    /// runs (before the turn's next request, which offers the new mode's tools).
    pub(super) fn set_autonomy(&mut self, autonomy: Autonomy) -> Option<Event> {
        let before = self.work.policy.autonomy;
        let running = self.machine.phase() != Phase::Idle;
        self.work.policy.autonomy = autonomy;
        if let Some(hub) = &self.services.subagents {
            hub.set_autonomy(autonomy);
        }
        self.emit(AgentEvent::Notice {
            message: format!("Approval mode: {autonomy}"),
        });
        match (before == Autonomy::Plan, autonomy == Autonomy::Plan) {
            (false, true) => Some(Event::Note(PLAN_MODE_ON.into())),
            (true, false) => Some(Event::Note(format!(
                "[Loom] Plan mode is off: you are in {autonomy} mode now."
            ))),
            _ if running && before != autonomy => Some(Event::Note(format!(
                "[Loom] The approval mode is now {autonomy}."
            ))),
            _ => None,
        }
    }

    /// A session that starts in plan mode (`--approval plan`) tells the model so before
    /// its first message, as switching to it does.
    pub(super) fn tell_plan_mode(&mut self) {
        if self.work.policy.autonomy == Autonomy::Plan {
            self.step(Event::Note(PLAN_MODE_ON.into()));
        }
    }

    /// The person approved the plan: leave plan mode for `autonomy` and carry it out (a
    /// message like a submitted one, queued if a turn is still running).
    pub(super) fn approve_plan(&mut self, autonomy: Autonomy) -> Option<Event> {
        if autonomy.reads_only() {
            self.emit(AgentEvent::Error {
                message: format!(
                    "a plan runs in supervised or full-auto mode, not {autonomy}; pick one of \
                     those, or keep planning"
                ),
            });
            return None;
        }
        self.work.policy.autonomy = autonomy;
        if let Some(hub) = &self.services.subagents {
            hub.set_autonomy(autonomy);
        }
        self.emit(AgentEvent::Notice {
            message: format!("Plan approved: running it in {autonomy} mode"),
        });
        Some(Event::Submit(crate::agent::events::UserInput::from(
            format!(
                "[Loom] The user approved your plan. Plan mode is off: you are in {autonomy} \
                 mode now. Carry the plan out step by step, keeping it up to date with \
                 update_plan."
            )
            .as_str(),
        )))
    }

    /// The schemas to offer: all of them, or in plan mode (and in a review turn) only the
    /// read-only tools'.
    pub(super) fn offered_schemas(&self) -> Vec<Value> {
        let all = self.work.registry.schemas();
        let reviewing = self.reviewing();
        if self.work.policy.autonomy != Autonomy::Plan && !reviewing {
            return all;
        }
        all.into_iter()
            .filter(|s| {
                let name = s["function"]["name"].as_str().unwrap_or("");
                let kind = self.work.registry.kind(name);
                let offered = if reviewing {
                    super::review::offered_in_review
                } else {
                    offered_in_plan_mode
                };
                kind.is_some_and(offered) && !remembers(name)
            })
            .collect()
    }

    /// Why a call is refused in plan mode or a review turn although its kind is offered:
    /// it writes Loom's long-term memory, which later sessions read as instructions (a
    /// reviewed diff or an explored file could plant a note that way).
    pub(super) fn withheld_while_reading(&self, name: &str) -> Option<String> {
        let reading = self.work.policy.autonomy == Autonomy::Plan || self.reviewing();
        (reading && remembers(name)).then(|| {
            format!(
                "{name} was refused: this turn only reads (plan mode or a review), and \
                 memory is kept for later sessions; say what to remember in your answer instead"
            )
        })
    }
}

/// The tools that change Loom's long-term memory.
fn remembers(name: &str) -> bool {
    matches!(name, "memory_store" | "memory_forget")
}

/// The plan a tool result event carries (a successful `update_plan`'s), to be sent as its
/// own event after it.
pub(super) fn plan_in(event: &AgentEvent) -> Option<Plan> {
    match event {
        AgentEvent::ToolResult { name, result, .. } if name == UPDATE_PLAN => plan_of(result),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_mode_offers_reads_commands_and_web_tools_only() {
        assert!(offered_in_plan_mode(ToolKind::Read));
        assert!(offered_in_plan_mode(ToolKind::Execute));
        assert!(offered_in_plan_mode(ToolKind::Network));
        for kind in [ToolKind::Write, ToolKind::Mcp, ToolKind::Schedule] {
            assert!(!offered_in_plan_mode(kind), "{kind:?}");
        }
    }

    #[test]
    fn only_a_successful_update_plan_result_carries_a_plan() {
        let plan = serde_json::json!({"steps": [{"step": "a", "status": "pending"}]});
        let event = |name: &str, result: ToolResult| AgentEvent::ToolResult {
            id: "c".into(),
            name: name.into(),
            result,
            duration_ms: 0,
        };
        let ok = ToolResult::ok("Plan updated").with_data(plan.clone());
        assert_eq!(
            plan_in(&event(UPDATE_PLAN, ok.clone()))
                .unwrap()
                .steps
                .len(),
            1
        );
        assert_eq!(plan_in(&event("read_file", ok)), None);
        assert_eq!(plan_in(&event(UPDATE_PLAN, ToolResult::err("bad"))), None);
    }
}
