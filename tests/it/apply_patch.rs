//! `apply_patch` end to end: offered to Codex-trained models, a multi-file patch written
//! and undone as one, refused whole in supervised exec, and chosen by config.

use std::path::Path;

use serde_json::{Value, json};

use crate::exec::{Run, loom_command};
use crate::support::{self, ScriptedServer};

/// `loom exec --json` with `model` and extra arguments.
async fn exec_as(dir: &Path, server: &ScriptedServer, model: &str, extra: &[&str]) -> Run {
    let home = dir.join(".home");
    std::fs::create_dir_all(&home).unwrap();
    let out = loom_command(&home)
        .args(["exec", "--json", "--model", model, "--base-url"])
        .arg(server.base_url())
        .args(extra)
        .arg("-C")
        .arg(dir)
        .arg("change the files")
        .output()
        .await
        .expect("loom runs");
    let events = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    Run {
        code: out.status.code().unwrap_or(-1),
        events,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn offered(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect()
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(p.join(".gitignore"), ".home/\n").unwrap();
    std::fs::write(p.join("app.py"), "def greet():\n    print(\"Hi\")\n").unwrap();
    std::fs::write(p.join("old.txt"), "obsolete\n").unwrap();
    std::fs::write(p.join("notes.md"), "# Notes\n").unwrap();
    dir
}

const PATCH: &str = "*** Begin Patch\n*** Update File: app.py\n@@ def greet():\n-    print(\"Hi\")\n\
+    print(\"Hello\")\n*** Add File: docs/new.md\n+fresh\n*** Delete File: old.txt\n\
*** Update File: notes.md\n*** Move to: docs/notes.md\n*** End Patch";

fn read(dir: &Path, path: &str) -> Option<String> {
    std::fs::read_to_string(dir.join(path)).ok()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_codex_model_patches_several_files_and_undo_takes_the_patch_back_whole() {
    let dir = workspace();
    let p = dir.path();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("p", "apply_patch", &json!({ "input": PATCH }).to_string())]),
        support::text_reply("patched"),
    ])
    .await;
    let run = exec_as(p, &server, "gpt-5-codex", &["--approval", "full-auto"]).await;
    assert_eq!(run.code, 0, "{}\n{:#?}", run.stderr, run.events);
    let tools = offered(&server.requests()[0]);
    assert!(tools.contains(&"apply_patch".to_string()), "{tools:?}");
    assert!(!tools.contains(&"edit_file".to_string()), "{tools:?}");
    assert_eq!(
        read(p, "app.py").unwrap(),
        "def greet():\n    print(\"Hello\")\n"
    );
    assert_eq!(read(p, "docs/new.md").as_deref(), Some("fresh\n"));
    assert_eq!(read(p, "old.txt"), None);
    assert_eq!(read(p, "notes.md"), None);
    assert_eq!(read(p, "docs/notes.md").as_deref(), Some("# Notes\n"));
    let result = &run.of_type("tool_result")[0];
    assert_eq!(result["success"], true, "{result}");
    let answered = support::tool_messages(&server.requests()[1]);
    assert!(
        answered[0].1["output"]
            .as_str()
            .unwrap()
            .contains("Applied the patch to 4 file(s)"),
        "{:?}",
        answered[0].1
    );

    let out = loom_command(&p.join(".home"))
        .args(["undo", "--turn", "--yes", "-C"])
        .arg(p)
        .output()
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        read(p, "app.py").unwrap(),
        "def greet():\n    print(\"Hi\")\n"
    );
    assert_eq!(read(p, "docs/new.md"), None);
    assert_eq!(read(p, "old.txt").as_deref(), Some("obsolete\n"));
    assert_eq!(read(p, "notes.md").as_deref(), Some("# Notes\n"));
    assert_eq!(read(p, "docs/notes.md"), None);
}

#[tokio::test(flavor = "multi_thread")]
async fn supervised_exec_refuses_the_whole_patch() {
    let dir = workspace();
    let p = dir.path();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("p", "apply_patch", &json!({ "input": PATCH }).to_string())]),
        support::text_reply("ok"),
    ])
    .await;
    let run = exec_as(p, &server, "gpt-5", &["--approval", "supervised"]).await;
    let approval = &run.of_type("approval")[0];
    assert_eq!(approval["decision"], "denied", "{approval}");
    assert_eq!(read(p, "old.txt").as_deref(), Some("obsolete\n"));
    assert_eq!(read(p, "notes.md").as_deref(), Some("# Notes\n"));
    assert_eq!(read(p, "docs/new.md"), None);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_patch_that_does_not_apply_is_answered_with_why_and_changes_nothing() {
    let dir = workspace();
    let p = dir.path();
    let bad = PATCH.replace("print(\"Hi\")", "print(\"Bye\")");
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("p", "apply_patch", &json!({ "input": bad }).to_string())]),
        support::text_reply("sorry"),
    ])
    .await;
    let run = exec_as(p, &server, "gpt-5", &["--approval", "full-auto"]).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let answered = support::tool_messages(&server.requests()[1]);
    let error = answered[0].1["error"].as_str().unwrap();
    assert!(
        error.contains("app.py") && error.contains("no file changed"),
        "{error}"
    );
    assert_eq!(read(p, "old.txt").as_deref(), Some("obsolete\n"));
    assert_eq!(read(p, "docs/new.md"), None);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_config_chooses_the_editing_tool() {
    let dir = workspace();
    let p = dir.path();
    let config = p.join(".home/loom.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    for (setting, model, want) in [
        ("", "qwen2.5-coder", vec!["edit_file"]),
        ("", "openai/gpt-5.1", vec!["apply_patch"]),
        (
            "edit_tool = \"both\"\n",
            "qwen2.5-coder",
            vec!["edit_file", "apply_patch"],
        ),
        (
            "edit_tool = \"edit_file\"\n",
            "gpt-5-codex",
            vec!["edit_file"],
        ),
    ] {
        std::fs::write(&config, setting).unwrap();
        let server = ScriptedServer::start(vec![support::text_reply("hi")]).await;
        let config_arg = config.to_str().unwrap();
        let run = exec_as(p, &server, model, &["--config", config_arg]).await;
        assert_eq!(run.code, 0, "{}", run.stderr);
        let tools = offered(&server.requests()[0]);
        let editing: Vec<&str> = tools
            .iter()
            .map(String::as_str)
            .filter(|t| *t == "edit_file" || *t == "apply_patch")
            .collect();
        assert_eq!(editing, want, "{setting:?} with {model}");
    }
    std::fs::write(&config, "edit_tool = \"sed\"\n").unwrap();
    let server = ScriptedServer::start(vec![]).await;
    let run = exec_as(p, &server, "m", &["--config", config.to_str().unwrap()]).await;
    assert_ne!(run.code, 0);
    assert!(run.stderr.contains("unknown edit tool"), "{}", run.stderr);
}
