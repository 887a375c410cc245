//! Plan mode in the real terminal (issue 28): `/plan` with a prompt, the model's plan
//! drawn as a block with "step 1/2" in the status line, its write refused while it plans,
//! the Plan ready box, `s` running it in supervised mode (the write then reviewed as a
//! diff and applied), `Shift+Tab` cycling the mode, and a resumed session redrawing its plan.

use serde_json::json;

use crate::support::{self, ScriptedServer};
use crate::tui::{Tui, workspace};

#[tokio::test(flavor = "multi_thread")]
async fn plan_with_slash_plan_approve_it_and_it_runs_supervised() {
    let dir = workspace();
    let plan = json!({"plan": [
        {"step": "Write new.txt", "status": "in_progress"},
        {"step": "Check it", "status": "pending"},
    ]})
    .to_string();
    let write = json!({"path": "new.txt", "content": "planned\n"}).to_string();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("p1", "update_plan", &plan), ("w1", "write_file", &write)]),
        support::text_reply("That is the plan."),
        support::calls_openai(&[("w2", "write_file", &write)]),
        support::text_reply("Wrote new.txt."),
    ])
    .await;
    let mut tui = Tui::start(dir.path(), &server, 140, 40);
    tui.wait_for("Ask Loom").await;
    tui.type_line("/plan Add new.txt").await;
    let screen = tui.wait_for("Plan ready").await;
    assert!(screen.contains("▸ Write new.txt"), "{screen}");
    assert!(screen.contains("step 1/2"), "{screen}");
    assert!(screen.contains("plan mode"), "{screen}");
    assert!(!dir.path().join("new.txt").exists());
    tui.send("s");
    tui.wait_for("Review the change").await;
    tui.wait_for("waiting for you").await;
    tui.send("y");
    tui.wait_for("Wrote new.txt.").await;
    assert_eq!(
        std::fs::read_to_string(dir.path().join("new.txt")).unwrap(),
        "planned\n"
    );
    let requests = server.requests();
    let refused = &support::tool_messages(&requests[1]);
    let write_result = refused.iter().find(|(id, _)| id == "w1").unwrap();
    assert!(
        write_result.1.to_string().contains("plan mode"),
        "{refused:?}"
    );
    tui.quit().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn shift_tab_in_the_message_box_cycles_the_approval_mode() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![support::text_reply("unused")]).await;
    let mut tui = Tui::start(dir.path(), &server, 140, 40);
    tui.wait_for("Ask Loom").await;
    for mode in ["full-auto", "read-only", "plan mode", "supervised"] {
        tui.send("\x1b[Z");
        status_line_shows(&tui, mode).await;
    }
    tui.quit().await;
}

/// Wait until the screen's last row (the status line) shows `mode`.
async fn status_line_shows(tui: &Tui, mode: &str) {
    let start = std::time::Instant::now();
    loop {
        let screen = tui.screen();
        let status = screen.lines().rev().find(|l| !l.trim().is_empty());
        if status.is_some_and(|l| l.contains(&format!("│ {mode} │"))) {
            return;
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(20),
            "the status line never showed {mode}:\n{screen}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// Regression (issue 28 gap): `loom --resume ID` redraws the session's last plan, as a
/// block with the step in progress and "step 1/2" in the status line, from the session file.
#[tokio::test(flavor = "multi_thread")]
async fn a_resumed_session_shows_its_plan_again() {
    let dir = workspace();
    let plan = json!({"plan": [
        {"step": "Read the parser", "status": "completed"},
        {"step": "Split the tokenizer", "status": "in_progress"},
    ]})
    .to_string();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("p1", "update_plan", &plan)]),
        support::text_reply("Working on it."),
    ])
    .await;
    let mut tui = Tui::start(dir.path(), &server, 140, 40);
    tui.wait_for("Ask Loom").await;
    tui.type_line("split the parser").await;
    tui.wait_for("Working on it.").await;
    status_line_shows(&tui, "step 2/2").await;
    tui.quit_and_wait().await;

    let sessions = dir.path().join(".home/.local/share/loom/sessions");
    let files: Vec<_> = std::fs::read_dir(&sessions)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let id = files[0].file_stem().unwrap().to_string_lossy().into_owned();
    let tui = Tui::start_with(dir.path(), &server, 140, 40, &["--resume", &id], &[]);
    tui.wait_for("Working on it.").await;
    status_line_shows(&tui, "step 2/2").await;
    let screen = tui.wait_for("▸ Split the tokenizer").await;
    assert!(screen.contains("Plan · step 2/2"), "{screen}");
    assert!(screen.contains("✓ Read the parser"), "{screen}");
    // Opened with --resume, as from the picker, the chat says which session this is.
    tui.wait_for(&format!("resumed session {id}")).await;
    tui.quit().await;
}
