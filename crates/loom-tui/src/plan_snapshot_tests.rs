//! Plans and plan mode on the screen (issue 28): the plan block (pending, in progress,
//! done) updated in place, "step 2/5" in the status line, the mode cycle on `Shift+Tab`,
//! `/plan` and the plan approval at the end of a turn in plan mode.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;
use tokio::sync::mpsc::UnboundedReceiver;

use super::app::{App, Focus};
use super::snapshot_tests::{ev, text};
use super::test_support::app;
use crate::protocol::autonomy::Autonomy;
use crate::protocol::events::{AgentEvent, Phase, TurnEnd, UserOp};
use crate::protocol::plan::{Plan, PlanStep, StepStatus};
use crate::protocol::usage::Usage;

/// A plan of `statuses`, its steps named after a small refactor.
fn plan(statuses: &[StepStatus], explanation: Option<&str>) -> Plan {
    let names = [
        "Read the parser and its tests",
        "Move the tokenizer into its own module",
        "Update the callers",
        "Run cargo test",
        "Summarise the change",
    ];
    Plan {
        explanation: explanation.map(String::from),
        steps: statuses
            .iter()
            .zip(names)
            .map(|(status, step)| PlanStep {
                step: step.into(),
                status: *status,
            })
            .collect(),
    }
}

fn asked(app: &mut App, text: &str) {
    ev(
        app,
        AgentEvent::UserMessage {
            text: text.into(),
            queued: false,
        },
    );
}

/// The model called update_plan with `p`: its row, result and the plan event.
fn planned(app: &mut App, id: &str, p: &Plan) {
    ev(
        app,
        AgentEvent::ToolCall {
            id: id.into(),
            name: "update_plan".into(),
            arguments: json!({ "plan": p.steps }),
            intent: None,
        },
    );
    ev(app, AgentEvent::PlanUpdated { plan: p.clone() });
}

fn done(app: &mut App) {
    ev(app, AgentEvent::StateChanged { phase: Phase::Idle });
    ev(
        app,
        AgentEvent::TurnComplete {
            usage: Usage::default(),
            end: TurnEnd::Done,
            unsent: Vec::new(),
            unsent_images: Vec::new(),
        },
    );
}

fn ops(rx: &mut UnboundedReceiver<UserOp>) -> Vec<UserOp> {
    std::iter::from_fn(|| rx.try_recv().ok()).collect()
}

fn shift_tab(app: &mut App) {
    app.on_key(KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT));
}

use StepStatus::{Completed as Done, InProgress as Now, Pending as Todo};

#[test]
fn the_plan_block_shows_pending_steps() {
    let (mut app, _rx) = app("dark");
    asked(&mut app, "split the parser");
    planned(&mut app, "p1", &plan(&[Todo, Todo, Todo, Todo], None));
    insta::assert_snapshot!(text(&mut app, 80, 16));
}

/// The plan is one block, updated in place: the second update replaces the first (the
/// chat holds one plan block), with the step in progress marked and in the status line.
#[test]
fn the_plan_block_is_updated_in_place_with_the_step_in_progress() {
    let (mut app, _rx) = app("dark");
    asked(&mut app, "split the parser");
    ev(
        &mut app,
        AgentEvent::StateChanged {
            phase: Phase::ExecutingTools,
        },
    );
    planned(&mut app, "p1", &plan(&[Todo, Todo, Todo, Todo, Todo], None));
    let first = plan(
        &[Done, Now, Todo, Todo, Todo],
        Some("The tokenizer is tangled with the parser."),
    );
    planned(&mut app, "p2", &first);
    let screen = text(&mut app, 100, 20);
    assert_eq!(screen.matches("Plan · ").count(), 1, "{screen}");
    assert!(
        screen.lines().last().unwrap().contains("step 2/5"),
        "{screen}"
    );
    insta::assert_snapshot!(screen);
}

#[test]
fn the_plan_block_shows_every_step_done() {
    let (mut app, _rx) = app("dark");
    asked(&mut app, "split the parser");
    planned(&mut app, "p1", &plan(&[Done, Done, Done], None));
    done(&mut app);
    let screen = text(&mut app, 80, 16);
    assert!(screen.contains("plan 3/3 done"), "{screen}");
    insta::assert_snapshot!(screen);
}

/// A later turn that changes the plan gets its own block under the person's message
/// (the earlier turn's stays as it was).
#[test]
fn a_later_turn_gets_a_new_plan_block() {
    let (mut app, _rx) = app("dark");
    asked(&mut app, "split the parser");
    planned(&mut app, "p1", &plan(&[Now, Todo], None));
    done(&mut app);
    asked(&mut app, "go on");
    planned(&mut app, "p2", &plan(&[Done, Now], None));
    let screen = text(&mut app, 80, 30);
    assert_eq!(screen.matches("Plan · ").count(), 2, "{screen}");
}

/// `Shift+Tab` in the message box cycles plan → supervised → full-auto → read-only →
/// plan, each shown in the status line and sent to the agent; in another pane it still
/// moves focus back.
#[test]
fn shift_tab_cycles_the_mode_from_the_message_box() {
    let (mut app, mut rx) = app("dark");
    app.status.autonomy = Autonomy::ReadOnly;
    let mut seen = Vec::new();
    for _ in 0..4 {
        shift_tab(&mut app);
        let status = text(&mut app, 100, 12);
        seen.push(app.status.autonomy);
        assert!(
            status
                .lines()
                .last()
                .unwrap()
                .contains(app.status.autonomy.as_str()),
            "{status}"
        );
        if app.status.autonomy == Autonomy::Plan {
            insta::assert_snapshot!("plan_mode_status_line", status);
        }
    }
    use Autonomy::*;
    assert_eq!(seen, [Plan, Supervised, FullAuto, ReadOnly]);
    let sent: Vec<UserOp> = ops(&mut rx);
    assert_eq!(
        sent,
        seen.iter()
            .map(|a| UserOp::SetAutonomy { autonomy: *a })
            .collect::<Vec<_>>()
    );
    app.focus = Focus::Chat;
    shift_tab(&mut app);
    assert_eq!(
        app.focus,
        Focus::Composer,
        "Shift+Tab from the chat moves focus"
    );
    assert_eq!(app.status.autonomy, ReadOnly);
}

/// `/plan PROMPT` enters plan mode and sends the prompt; at the end of the turn the plan
/// is offered to run: `f` runs it in full-auto (one op, the mode shown at once).
#[test]
fn plan_then_approve_it_to_run_in_full_auto() {
    let (mut app, mut rx) = app("dark");
    app.submit("/plan split the parser");
    let sent = ops(&mut rx);
    assert_eq!(
        sent[0],
        UserOp::SetAutonomy {
            autonomy: Autonomy::Plan
        }
    );
    assert!(
        matches!(&sent[1], UserOp::Submit { text, .. } if text == "split the parser"),
        "{sent:?}"
    );
    asked(&mut app, "split the parser");
    let p = plan(&[Todo, Todo, Todo], Some("Small steps, tests after each."));
    planned(&mut app, "p1", &p);
    ev(
        &mut app,
        AgentEvent::AssistantMessage {
            text: "Here is the plan.".into(),
        },
    );
    done(&mut app);
    insta::assert_snapshot!("plan_approval", text(&mut app, 100, 24));
    app.on_key(KeyEvent::from(KeyCode::Char('f')));
    assert_eq!(
        ops(&mut rx),
        [UserOp::ApprovePlan {
            autonomy: Autonomy::FullAuto
        }]
    );
    assert_eq!(app.status.autonomy, Autonomy::FullAuto);
    assert!(app.layers.last().is_none(), "the approval closed");
}

/// `k` keeps planning: the box closes, the mode stays plan and nothing is sent; outside
/// plan mode a finished turn offers nothing.
#[test]
fn keep_planning_closes_the_offer_and_other_modes_offer_nothing() {
    let (mut app, mut rx) = app("dark");
    app.status.autonomy = Autonomy::Plan;
    asked(&mut app, "split the parser");
    done(&mut app);
    assert!(app.layers.last().is_some(), "a plan is offered");
    app.on_key(KeyEvent::from(KeyCode::Char('k')));
    assert!(app.layers.last().is_none());
    assert_eq!(app.status.autonomy, Autonomy::Plan);
    assert!(ops(&mut rx).is_empty());
    app.status.autonomy = Autonomy::Supervised;
    asked(&mut app, "and now?");
    done(&mut app);
    assert!(app.layers.last().is_none());
}

/// Regression (issue 28 review): the plan offer is a question, so keys typed as the turn
/// ends go to the message box and never approve the plan; Tab reaches the box. A new
/// message withdraws the offer, and offers never pile up.
#[test]
fn keys_typed_as_the_plan_is_offered_do_not_approve_it() {
    let (mut app, mut rx) = app("dark");
    app.status.autonomy = Autonomy::Plan;
    asked(&mut app, "split the parser");
    app.on_key(KeyEvent::from(KeyCode::Char('x')));
    done(&mut app);
    app.on_key(KeyEvent::from(KeyCode::Char('s')));
    assert!(ops(&mut rx).is_empty(), "s typed into the message box");
    assert_eq!(app.composer.text(), "xs");
    insta::assert_snapshot!("plan_approval_waiting", text(&mut app, 100, 24));
    app.on_key(KeyEvent::from(KeyCode::Tab));
    app.on_key(KeyEvent::from(KeyCode::Char('s')));
    assert_eq!(
        ops(&mut rx),
        [UserOp::ApprovePlan {
            autonomy: Autonomy::Supervised
        }]
    );
    app.status.autonomy = Autonomy::Plan;
    done(&mut app);
    done(&mut app);
    let mut offers = 0;
    app.layers.retain(|_| {
        offers += 1;
        true
    });
    assert_eq!(offers, 1, "one offer at a time");
    asked(&mut app, "change step 2");
    assert!(
        app.layers.last().is_none(),
        "a new message withdraws the offer"
    );
}
