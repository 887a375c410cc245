//! Issue 24, "argument names models were trained on": a model that calls `edit_file` with
//! Claude Code's names (`old_string`, `new_string`) edits the file, and the result tells
//! it the names Loom uses; an alias sent beside the name it stands for is refused.

use loom::agent::{ApprovalAnswer, UserOp};

use crate::agent::{run_turn, start_agent};
use crate::support::{self, ScriptedServer};

/// Before: "invalid arguments: unknown field `old_string`; expected {path, edits?, …}".
#[tokio::test(flavor = "multi_thread")]
async fn edit_file_with_claude_code_names_edits_and_says_what_was_mapped() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[(
            "e1",
            "edit_file",
            r#"{"path": "a.txt", "old_string": "one", "new_string": "uno"}"#,
        )]),
        support::text_reply("done"),
    ])
    .await;
    let mut agent = start_agent(dir.path(), &server, "supervised");
    run_turn(&mut agent, "translate", |_, _| ApprovalAnswer::Approve).await;
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "uno\n"
    );
    let answered = support::tool_messages(&server.requests()[1]);
    assert_eq!(answered[0].1["success"], true, "{}", answered[0].1);
    let output = answered[0].1["output"].as_str().unwrap();
    assert!(
        output.contains("note: mapped old_string → old_str, new_string → new_str"),
        "{output}"
    );
    let _ = agent.ops.send(UserOp::Shutdown);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_alias_beside_its_real_name_is_refused_and_nothing_runs() {
    let dir = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[(
            "b1",
            "bash",
            r#"{"command": "touch made", "cmd": "touch other"}"#,
        )]),
        support::text_reply("ok"),
    ])
    .await;
    let mut agent = start_agent(dir.path(), &server, "full-auto");
    run_turn(&mut agent, "go", |_, _| ApprovalAnswer::Approve).await;
    assert!(!dir.path().join("made").exists() && !dir.path().join("other").exists());
    let answered = support::tool_messages(&server.requests()[1]);
    let err = answered[0].1["error"].as_str().unwrap();
    assert!(
        err.contains(
            "`cmd` is another name for `command`, and both were given; send only `command`"
        ),
        "{err}"
    );
    let _ = agent.ops.send(UserOp::Shutdown);
}

/// The alias table of docs/tools.md lists every alias of the code's table, on its tool's row.
#[test]
fn the_tools_page_lists_every_alias() {
    let page = include_str!("../../docs/tools.md");
    let table: Vec<&str> = page
        .lines()
        .skip_while(|l| !l.starts_with("| tool | accepted names"))
        .take_while(|l| l.starts_with('|'))
        .collect();
    for (tool, alias, name) in loom::tools::aliases::ALIASES {
        let row = table
            .iter()
            .find(|l| l.contains(&format!("`{tool}`")) && l.contains(&format!("`{alias}`")))
            .unwrap_or_else(|| {
                panic!("docs/tools.md's alias table has no row naming {tool}'s `{alias}`")
            });
        assert!(row.contains(&format!("`{name}`")), "{row}");
    }
}
