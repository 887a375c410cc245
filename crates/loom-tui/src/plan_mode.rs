//! Plan mode on the screen (issue 28): `Shift+Tab` in the message box cycles the approval
//! mode (plan → supervised → full-auto → read-only → plan), `/plan [prompt]` enters plan
//! mode (and sends the prompt), and a turn that ends in plan mode offers its plan for
//! approval ([`PlanApproval`]).

use super::app::App;
use super::layers::{PLAN_APPROVAL_ID, PlanApproval};
use super::transcript::NoticeLevel;
use crate::protocol::autonomy::Autonomy;
use crate::protocol::events::{TurnEnd, UserOp};

impl App {
    /// Switch to `autonomy`: the status line shows it and the agent follows.
    pub(crate) fn set_mode(&mut self, autonomy: Autonomy) {
        self.status.autonomy = autonomy;
        self.status.edits_allowed = false;
        self.send(UserOp::SetAutonomy { autonomy });
    }

    /// `Shift+Tab` in the message box: the next approval mode of the cycle.
    pub(crate) fn cycle_mode(&mut self) {
        self.set_mode(self.status.autonomy.cycled());
    }

    /// `/plan [prompt]`: plan mode, and the prompt (if any) sent as a message.
    pub(crate) fn plan_command(&mut self, prompt: &str) {
        if self.status.autonomy != Autonomy::Plan {
            self.set_mode(Autonomy::Plan);
        } else if prompt.is_empty() {
            self.transcript.push_notice(
                NoticeLevel::Info,
                "already in plan mode: describe the task, then approve the plan",
            );
        }
        if !prompt.is_empty() {
            self.submit(prompt);
        }
    }

    /// A turn ended: in plan mode, a finished one offers its plan to run.
    pub(crate) fn offer_plan(&mut self, end: &TurnEnd) {
        if self.status.autonomy == Autonomy::Plan
            && *end == TurnEnd::Done
            && !self.progress.reviewed()
        {
            let plan = self.progress.plan().cloned();
            self.push_question(Box::new(PlanApproval::new(plan)));
        }
    }

    /// A new message starts another turn: the plan offered before it is no longer the
    /// question.
    pub(crate) fn withdraw_plan_offer(&mut self) {
        self.layers.close_call(PLAN_APPROVAL_ID);
    }

    /// The person approved the plan to run in `autonomy` (see [`PlanApproval`]).
    pub(crate) fn plan_approved(&mut self, autonomy: Autonomy) {
        self.status.autonomy = autonomy;
        self.status.edits_allowed = false;
    }
}
