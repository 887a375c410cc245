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
    exec_against(dir, &server).await
}

/// `loom exec --json` in `dir` against `server`, with a secret in the environment.
async fn exec_against(dir: &Path, server: &ScriptedServer) -> Run {
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

fn project_config(dir: &Path, text: &str) {
    std::fs::create_dir_all(dir.join(".loom")).unwrap();
    std::fs::write(dir.join(".loom/config.toml"), text).unwrap();
}

async fn trust(dir: &Path, extra: &[&str]) -> String {
    let (stdout, stderr) = trust_output(dir, extra).await;
    assert!(stderr.is_empty(), "{stderr}");
    stdout
}

/// `loom trust EXTRA -C DIR`, which must succeed: its stdout and stderr.
async fn trust_output(dir: &Path, extra: &[&str]) -> (String, String) {
    let out = loom_command(&dir.join(".home"))
        .arg("trust")
        .args(extra)
        .arg("-C")
        .arg(dir)
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    (String::from_utf8_lossy(&out.stdout).into_owned(), stderr)
}

#[tokio::test(flavor = "multi_thread")]
async fn an_untrusted_project_config_loosens_nothing_until_trusted() {
    let dir = tempfile::tempdir().unwrap();
    project_config(dir.path(), LOOSE);

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
    let repeated = trust(dir.path(), &[]).await;
    assert!(repeated.contains("is already trusted"), "{repeated}");
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
    assert!(listed.contains("changed since it was trusted"), "{listed}");
    let again = trust(dir.path(), &[]).await;
    assert!(
        again.contains("  - lets sandboxed commands use the network (network)"),
        "the edited file shows its new setting: {again}"
    );
    assert!(trust(dir.path(), &["--list"]).await.contains("  trusted"));
    let revoked = trust(dir.path(), &["--revoke"]).await;
    assert!(revoked.contains("no longer trusted"), "{revoked}");
    let fourth = run(dir.path()).await;
    assert_ne!(fourth.events[0]["sandbox"], "off", "revoked");
}

/// A project must not make Loom send a secret as the API key, nor add headers (which can
/// carry someone else's identity), until trusted.
#[tokio::test(flavor = "multi_thread")]
async fn an_untrusted_project_config_cannot_send_a_secret_or_headers_to_the_server() {
    let dir = tempfile::tempdir().unwrap();
    project_config(
        dir.path(),
        "api_key_env = \"LOOM_TRUST_TEST_TOKEN\"\nheaders = { \"X-Project\" = \"theirs\" }\n",
    );
    let server = ScriptedServer::start(vec![support::text_reply("hi")]).await;
    let first = exec_against(dir.path(), &server).await;
    assert_eq!(first.code, 0, "{}", first.stderr);
    let notice = first.events[0]["notice"].as_str().unwrap_or("");
    assert!(
        notice.contains("api_key_env (sends the value of $LOOM_TRUST_TEST_TOKEN"),
        "{notice}"
    );
    assert!(
        notice.contains("headers (sends the header X-Project"),
        "{notice}"
    );
    let sent = &server.request_headers()[0];
    assert!(
        sent.iter()
            .all(|(_, v)| !v.to_str().unwrap_or("").contains("tok-4242")),
        "the secret was sent: {sent:?}"
    );
    assert!(sent.get("x-project").is_none(), "{sent:?}");

    trust(dir.path(), &[]).await;
    let server = ScriptedServer::start(vec![support::text_reply("hi")]).await;
    let second = exec_against(dir.path(), &server).await;
    assert_eq!(second.code, 0, "{}", second.stderr);
    let sent = &server.request_headers()[0];
    assert_eq!(
        sent["authorization"], "Bearer tok-4242",
        "trusted: it applies"
    );
    assert_eq!(sent["x-project"], "theirs");
}

/// A damaged trust store trusts nothing and says so; `loom trust` moves it aside (it is
/// not lost) and starts a new one. Commands without a session say it on stderr.
#[tokio::test(flavor = "multi_thread")]
async fn a_damaged_trust_store_trusts_nothing_says_so_and_is_set_aside() {
    let dir = tempfile::tempdir().unwrap();
    project_config(dir.path(), "sandbox = \"off\"\n");
    let data = dir.path().join(".home/.local/share/loom");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(data.join("trust.json"), "{\"trusted\": [").unwrap();

    let first = run(dir.path()).await;
    assert_eq!(
        first.events[0]["type"], "session_started",
        "{}",
        first.stderr
    );
    assert_ne!(first.events[0]["sandbox"], "off");
    let notice = first.events[0]["notice"].as_str().unwrap_or("");
    assert!(notice.contains("is damaged"), "{notice}");
    assert!(!first.stderr.contains("panicked"), "{}", first.stderr);

    let policy = loom_command(&dir.path().join(".home"))
        .args(["policy", "check", "ls", "-C"])
        .arg(dir.path())
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&policy.stderr);
    assert!(
        stderr.contains("sandbox (switches the command sandbox off)"),
        "{stderr}"
    );

    let (_, said) = trust_output(dir.path(), &[]).await;
    assert!(said.contains("trust.json.damaged"), "{said}");
    assert_eq!(
        std::fs::read_to_string(data.join("trust.json.damaged")).unwrap(),
        "{\"trusted\": ["
    );
    let second = run(dir.path()).await;
    assert_eq!(second.events[0]["sandbox"], "off", "{}", second.stderr);
}

/// Regression: `.loom/config.toml` a symlink to /dev/zero made Loom read until memory ran
/// out; a FIFO would block it at start. Both are refused at once, saying why.
#[tokio::test(flavor = "multi_thread")]
async fn a_project_config_that_is_a_device_or_a_fifo_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".loom")).unwrap();
    let file = dir.path().join(".loom/config.toml");
    std::os::unix::fs::symlink("/dev/zero", &file).unwrap();
    for kind in ["device", "fifo"] {
        if kind == "fifo" {
            std::fs::remove_file(&file).unwrap();
            nix::unistd::mkfifo(&file, nix::sys::stat::Mode::S_IRWXU).unwrap();
        }
        let out = tokio::time::timeout(
            std::time::Duration::from_secs(20),
            loom_command(&dir.path().join(".home"))
                .args(["policy", "check", "ls", "-C"])
                .arg(dir.path())
                .output(),
        )
        .await
        .unwrap_or_else(|_| panic!("{kind}: loom did not return"))
        .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{kind}: {stderr}");
        assert!(stderr.contains("not a regular file"), "{kind}: {stderr}");
    }
}

/// Regression: in a workspace that contains Loom's own config and data (Loom opened in the
/// home directory), a model in full-auto wrote the user config (`sandbox = "off"` for the
/// next session) and the trust store with `write_file`. Those are Loom's, like `.loom/`.
#[tokio::test(flavor = "multi_thread")]
async fn a_model_cannot_write_looms_own_config_or_trust_store() {
    let dir = tempfile::tempdir().unwrap();
    let user_config = dir.path().join(".home/.config/loom/config.toml");
    std::fs::create_dir_all(user_config.parent().unwrap()).unwrap();
    std::fs::write(&user_config, "model = \"scripted-model\"\n").unwrap();
    let targets = [
        ".home/.config/loom/config.toml",
        ".home/.config/loom/themes/x.toml",
        ".home/.local/share/loom/trust.json",
    ];
    let calls: Vec<(String, String)> = targets
        .iter()
        .enumerate()
        .map(|(i, path)| {
            (
                format!("w{i}"),
                serde_json::json!({"path": path, "content": "sandbox = \"off\"\n"}).to_string(),
            )
        })
        .collect();
    let call_refs: Vec<(&str, &str, &str)> = calls
        .iter()
        .map(|(id, args)| (id.as_str(), "write_file", args.as_str()))
        .collect();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&call_refs),
        support::text_reply("done"),
    ])
    .await;
    let run = crate::exec::exec(dir.path(), &server, "full-auto", "loosen yourself").await;
    let results = run.of_type("tool_result");
    assert_eq!(results.len(), targets.len(), "{:#?}", run.events);
    for (r, path) in results.iter().zip(targets) {
        assert_eq!(r["success"], false, "{path}: {r}");
    }
    assert_eq!(
        std::fs::read_to_string(&user_config).unwrap(),
        "model = \"scripted-model\"\n"
    );
    assert!(!dir.path().join(targets[1]).exists());
    assert!(!dir.path().join(targets[2]).exists());
}
