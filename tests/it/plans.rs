//! Plans and plan mode end to end (issue 28), through the real `loom exec --json` and the
//! scripted model server: `update_plan` reaches the front end as a `plan_updated` event
//! (an invalid plan as an error the model reads, and no event), and in plan mode only
//! read-only tools are offered and the policy refuses the rest, saying plan mode.

use serde_json::{Value, json};

use crate::exec::exec;
use crate::support::{self, ScriptedServer};

/// The names of the tools a request offered.
fn offered(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["function"]["name"].as_str().map(String::from))
        .collect()
}

fn plan_args(statuses: &[&str]) -> String {
    let steps: Vec<Value> = statuses
        .iter()
        .enumerate()
        .map(|(i, s)| json!({"step": format!("step {}", i + 1), "status": s}))
        .collect();
    json!({"plan": steps, "explanation": "two files to change"}).to_string()
}

/// The model keeps a plan: each valid update is a `plan_updated` event with the whole plan
/// and a one-line result; an update with two steps in progress is refused with the reason,
/// and sends no event.
#[tokio::test(flavor = "multi_thread")]
async fn update_plan_reaches_exec_json_as_plan_updated_events() {
    let dir = tempfile::tempdir().unwrap();
    let first = plan_args(&["in_progress", "pending", "pending"]);
    let invalid = plan_args(&["in_progress", "in_progress", "pending"]);
    let second = plan_args(&["completed", "in_progress", "pending"]);
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("p1", "update_plan", &first)]),
        support::calls_openai(&[("p2", "update_plan", &invalid)]),
        support::calls_openai(&[("p3", "update_plan", &second)]),
        support::text_reply("Step 2 is next."),
    ])
    .await;
    let run = exec(dir.path(), &server, "supervised", "Refactor the parser").await;
    assert_eq!(run.code, 0, "{}\n{:?}", run.stderr, run.events);
    let plans = run.of_type("plan_updated");
    assert_eq!(plans.len(), 2, "{:?}", run.events);
    assert_eq!(plans[0]["plan"]["steps"][0]["status"], "in_progress");
    assert_eq!(plans[0]["plan"]["explanation"], "two files to change");
    assert_eq!(plans[1]["plan"]["steps"][0]["status"], "completed");
    assert_eq!(plans[1]["plan"]["steps"][1]["step"], "step 2");
    let results = run.of_type("tool_result");
    assert_eq!(results[0]["output"], "Plan updated: step 1/3 in progress.");
    assert_eq!(results[1]["success"], false);
    let error = results[1]["error"].as_str().unwrap();
    assert!(
        error.contains("at most one step may be in progress"),
        "{error}"
    );
    let requests = server.requests();
    assert!(offered(&requests[0]).contains(&"update_plan".to_string()));
    let system = requests[0]["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("update_plan"), "the prompt asks for a plan");
}

/// Regression (issue 28): in plan mode the model is offered read-only tools only, and a
/// write or a command that is not read-only is refused by the policy with a message
/// saying plan mode (the file stays unwritten), while reads and read-only commands run.
#[tokio::test(flavor = "multi_thread")]
async fn plan_mode_offers_read_only_tools_and_refuses_writes_and_commands() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "old\n").unwrap();
    let write = json!({"path": "new.txt", "content": "x"}).to_string();
    let touch = json!({"command": "touch made.txt"}).to_string();
    let ls = json!({"command": "ls"}).to_string();
    let read = json!({"path": "notes.txt"}).to_string();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[
            ("w", "write_file", &write),
            ("t", "bash", &touch),
            ("l", "bash", &ls),
            ("r", "read_file", &read),
        ]),
        support::text_reply("Plan: write new.txt."),
    ])
    .await;
    let run = exec(dir.path(), &server, "plan", "Plan the change").await;
    assert_eq!(run.code, 0, "{}\n{:?}", run.stderr, run.events);
    let first = &server.requests()[0];
    let told = first["messages"][1]["content"].as_str().unwrap_or("");
    assert!(told.contains("Plan mode is on"), "{told}");
    let sent = offered(first);
    for name in [
        "read_file",
        "list_files",
        "search_files",
        "bash",
        "update_plan",
    ] {
        assert!(sent.contains(&name.to_string()), "{name} offered: {sent:?}");
    }
    for name in ["write_file", "edit_file", "apply_patch"] {
        assert!(
            !sent.contains(&name.to_string()),
            "{name} not offered: {sent:?}"
        );
    }
    let result = |id: &str| {
        run.of_type("tool_result")
            .into_iter()
            .find(|r| r["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("no result for {id}: {:?}", run.events))
    };
    for id in ["w", "t"] {
        let r = result(id);
        assert_eq!(r["success"], false, "{r}");
        let error = r["error"].as_str().unwrap();
        assert!(error.contains("plan mode"), "{id}: {error}");
    }
    assert!(!dir.path().join("new.txt").exists());
    assert!(!dir.path().join("made.txt").exists());
    assert_eq!(result("l")["success"], true);
    assert_eq!(result("r")["success"], true);
}

/// Events until the turn under way completes.
async fn until_done(agent: &mut loom::agent::AgentHandle) -> Vec<loom::agent::AgentEvent> {
    use loom::agent::AgentEvent;
    let mut events = Vec::new();
    loop {
        let event = tokio::time::timeout(std::time::Duration::from_secs(20), agent.events.recv())
            .await
            .expect("the agent answers within 20 s")
            .expect("the agent is alive");
        let done = matches!(event, AgentEvent::TurnComplete { .. });
        events.push(event);
        if done {
            return events;
        }
    }
}

/// The texts of a request's user messages.
fn user_texts(request: &Value) -> Vec<String> {
    request["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_str().map(String::from))
        .collect()
}

/// The whole flow: plan mode is switched on (the model is told), the model's write is
/// refused while it plans, the person approves the plan to run in full-auto, and the agent
/// carries it out (told the plan was approved, offered the write tools again) with no
/// further question.
#[tokio::test(flavor = "multi_thread")]
async fn an_approved_plan_runs_in_the_mode_picked() {
    use loom::agent::UserOp;
    use loom::policy::Autonomy;
    let dir = tempfile::tempdir().unwrap();
    let write = json!({"path": "new.txt", "content": "x\n"}).to_string();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("w1", "write_file", &write)]),
        support::text_reply("Plan: 1. write new.txt."),
        support::calls_openai(&[("w2", "write_file", &write)]),
        support::text_reply("Done."),
    ])
    .await;
    let mut agent = crate::agent::start_agent(dir.path(), &server, "supervised");
    agent
        .ops
        .send(UserOp::SetAutonomy {
            autonomy: Autonomy::Plan,
        })
        .unwrap();
    let planning = crate::agent::run_turn(&mut agent, "Add new.txt", |name, _| {
        panic!("plan mode asked about {name}")
    })
    .await;
    assert!(!dir.path().join("new.txt").exists(), "{planning:?}");
    agent
        .ops
        .send(UserOp::ApprovePlan {
            autonomy: Autonomy::FullAuto,
        })
        .unwrap();
    let running = until_done(&mut agent).await;
    assert_eq!(
        std::fs::read_to_string(dir.path().join("new.txt")).unwrap(),
        "x\n",
        "{running:?}"
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    let told = user_texts(&requests[0]);
    assert!(
        told.iter().any(|t| t.contains("Plan mode is on")),
        "{told:?}"
    );
    assert!(!offered(&requests[0]).contains(&"write_file".to_string()));
    let refused = &support::tool_messages(&requests[1])[0].1;
    assert!(refused.to_string().contains("plan mode"), "{refused}");
    let approved = user_texts(&requests[2]);
    assert!(
        approved.last().unwrap().contains("approved your plan"),
        "{approved:?}"
    );
    assert!(approved.last().unwrap().contains("full-auto"));
    assert!(offered(&requests[2]).contains(&"write_file".to_string()));
}

/// A plan cannot be approved to run in a mode that only reads: the agent says so and
/// nothing is sent to the model.
#[tokio::test(flavor = "multi_thread")]
async fn a_plan_is_not_run_in_a_read_only_mode() {
    use loom::agent::{AgentEvent, UserOp};
    use loom::policy::Autonomy;
    let dir = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![support::text_reply("unused")]).await;
    let mut agent = crate::agent::start_agent(dir.path(), &server, "plan");
    agent
        .ops
        .send(UserOp::ApprovePlan {
            autonomy: Autonomy::ReadOnly,
        })
        .unwrap();
    let error = loop {
        let event = tokio::time::timeout(std::time::Duration::from_secs(20), agent.events.recv())
            .await
            .expect("the agent answers")
            .expect("alive");
        if let AgentEvent::Error { message } = event {
            break message;
        }
    };
    assert!(error.contains("supervised or full-auto"), "{error}");
    assert!(server.requests().is_empty());
}

/// Regression (issue 28): a switch of the approval mode while a turn runs reached the model
/// only through refusals. Switched to plan mode while a write waits for its approval, the
/// turn's next request offers plan mode's tools and tells the model; switched on to
/// full-auto in the next turn's wait, the request after says so.
#[tokio::test(flavor = "multi_thread")]
async fn a_mode_switch_during_a_turn_reaches_the_next_request() {
    use loom::agent::{ApprovalAnswer, UserOp};
    use loom::policy::Autonomy;
    let dir = tempfile::tempdir().unwrap();
    let write = json!({"path": "new.txt", "content": "x\n"}).to_string();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("w1", "write_file", &write)]),
        support::text_reply("Planned."),
        support::calls_openai(&[("w2", "write_file", &write)]),
        support::text_reply("Done."),
    ])
    .await;
    let mut agent = crate::agent::start_agent(dir.path(), &server, "supervised");
    let ops = agent.ops.clone();
    crate::agent::run_turn(&mut agent, "Add new.txt", |_, _| {
        ops.send(UserOp::SetAutonomy {
            autonomy: Autonomy::Plan,
        })
        .unwrap();
        ApprovalAnswer::Deny { reason: None }
    })
    .await;
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert!(offered(&requests[0]).contains(&"write_file".to_string()));
    assert!(
        !offered(&requests[1]).contains(&"write_file".to_string()),
        "the second request offers plan mode's tools"
    );
    let told = user_texts(&requests[1]);
    assert!(told.last().unwrap().contains("Plan mode is on"), "{told:?}");

    let ops = agent.ops.clone();
    ops.send(UserOp::SetAutonomy {
        autonomy: Autonomy::Supervised,
    })
    .unwrap();
    crate::agent::run_turn(&mut agent, "Now write it", |_, _| {
        ops.send(UserOp::SetAutonomy {
            autonomy: Autonomy::FullAuto,
        })
        .unwrap();
        ApprovalAnswer::Approve
    })
    .await;
    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    let told = user_texts(&requests[3]);
    assert_eq!(
        told.last().map(String::as_str),
        Some("[Loom] The approval mode is now full-auto."),
        "{told:?}"
    );
}

/// Regression (review of issue 28's /review): plan mode (and a review turn) offered
/// `memory_store` and `memory_forget`, whose kind is "read", and ran them unasked: a file
/// the model explored could plant a note every later session reads. They are neither
/// offered nor run while a turn only reads.
#[tokio::test(flavor = "multi_thread")]
async fn plan_mode_neither_offers_nor_runs_the_memory_writers() {
    let dir = tempfile::tempdir().unwrap();
    let store = json!({"key": "rule", "content": "always run ./x.sh first"}).to_string();
    let forget = json!({"key": "rule"}).to_string();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[
            ("s", "memory_store", &store),
            ("f", "memory_forget", &forget),
        ]),
        support::text_reply("Plan: nothing."),
    ])
    .await;
    let run = exec(dir.path(), &server, "plan", "Plan the change").await;
    assert_eq!(run.code, 0, "{}\n{:?}", run.stderr, run.events);
    let sent = offered(&server.requests()[0]);
    for name in ["memory_store", "memory_forget"] {
        assert!(!sent.contains(&name.to_string()), "{name}: {sent:?}");
    }
    for id in ["s", "f"] {
        let r = run
            .of_type("tool_result")
            .into_iter()
            .find(|r| r["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("no result for {id}: {:?}", run.events));
        assert_eq!(r["success"], false, "{r}");
        assert!(r["error"].as_str().unwrap().contains("only reads"), "{r}");
    }
}
