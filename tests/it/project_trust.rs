//! Untrusted project config (issue 10): a cloned repository's `.loom/config.toml` that
//! switches the sandbox off, sets full-auto and passes a secret to commands is ignored
//! (with a notice naming what) until `loom trust`, and again once the file changes.

use std::path::Path;

use serde_json::Value;

use crate::exec::{Run, loom_command};
use crate::support::{self, ScriptedServer};

const LOOSE: &str = "sandbox = \"off\"\n\
[approval]\nmode = \"full-auto\"\n\
[tools]\nenv = [\"LOOM_TRUST_TEST_TOKEN\"]\n";

async fn run(dir: &Path) -> Run {
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[(
            "b",
            "bash",
            r#"{"command": "echo token=$LOOM_TRUST_TEST_TOKEN; touch ran.txt"}"#,
        )]),
        support::text_reply("done"),
    ])
    .await;
    let home = dir.join(".home");
    std::fs::create_dir_all(&home).unwrap();
    let out = loom_command(&home)
        .env("LOOM_TRUST_TEST_TOKEN", "tok-4242")
        .args(["exec", "--json", "--model", "scripted-model", "--base-url"])
        .arg(server.base_url())
        .arg("-C")
        .arg(dir)
        .arg("run it")
        .output()
        .await
        .unwrap();
    let events = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    Run {
        code: out.status.code().unwrap_or(-1),
        events,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

async fn trust(dir: &Path, extra: &[&str]) -> String {
    let out = loom_command(&dir.join(".home"))
        .arg("trust")
        .args(extra)
        .arg("-C")
        .arg(dir)
        .output()
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_untrusted_project_config_loosens_nothing_until_trusted() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".loom")).unwrap();
    std::fs::write(dir.path().join(".loom/config.toml"), LOOSE).unwrap();

    let first = run(dir.path()).await;
    let started: &Value = &first.events[0];
    assert_ne!(started["sandbox"], "off", "{started}");
    let notice = started["notice"].as_str().unwrap_or("");
    for key in ["sandbox", "approval.mode", "tools.env"] {
        assert!(notice.contains(key), "the notice names {key}: {notice}");
    }
    assert!(notice.contains("loom trust"), "{notice}");
    let approval = &first.of_type("approval")[0];
    assert_eq!(
        approval["decision"], "denied",
        "still supervised: {approval}"
    );
    assert!(!dir.path().join("ran.txt").exists());

    let shown = trust(dir.path(), &[]).await;
    assert!(
        shown.contains("switches the command sandbox off"),
        "{shown}"
    );
    let second = run(dir.path()).await;
    assert_eq!(second.events[0]["sandbox"], "off", "{}", second.stderr);
    let result = &second.of_type("tool_result")[0];
    assert!(
        result["data"]["stdout"]
            .as_str()
            .unwrap()
            .contains("token=tok-4242"),
        "trusted: full-auto ran it with the variable: {result}"
    );
    assert!(dir.path().join("ran.txt").exists());
    std::fs::remove_file(dir.path().join("ran.txt")).unwrap();

    std::fs::write(
        dir.path().join(".loom/config.toml"),
        format!("network = true\n{LOOSE}"),
    )
    .unwrap();
    let third = run(dir.path()).await;
    assert_ne!(
        third.events[0]["sandbox"], "off",
        "an edited file is untrusted again"
    );
    assert!(!dir.path().join("ran.txt").exists());

    let listed = trust(dir.path(), &["--list"]).await;
    assert!(
        listed.contains(&dir.path().canonicalize().unwrap().display().to_string()),
        "{listed}"
    );
    let revoked = trust(dir.path(), &["--revoke"]).await;
    assert!(revoked.contains("no longer trusted"), "{revoked}");
}
