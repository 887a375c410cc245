//! Credentials in calls are masked where calls are recorded (issue 23): a form body in a
//! `curl -d` (`client_secret=…&password=…`), JSON fields named like secrets in a command and
//! in a tool's arguments never reach the session file or `loom exec --json` events; the
//! calls still run as given.

use std::path::Path;

use crate::exec::loom_command;
use crate::support::{self, ScriptedServer};

const SECRETS: [&str; 4] = [
    "CS-abcdef123",
    "PW-hunter2x",
    "AK-secret987",
    "TK-mcptoken55",
];

fn quoted(p: &Path) -> String {
    format!("{:?}", p.display().to_string())
}

#[tokio::test(flavor = "multi_thread")]
async fn form_bodies_and_secret_json_fields_are_masked_in_the_transcript_and_events() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(home.join(".config/loom")).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp/big_output.py");
    std::fs::write(
        home.join(".config/loom/config.toml"),
        format!(
            "[mcp_servers.big]\ncommand = \"python3\"\nargs = [{}]\n",
            quoted(&script)
        ),
    )
    .unwrap();
    let form = serde_json::json!({
        "command": "curl -sS -d 'grant_type=password&client_secret=CS-abcdef123&password=PW-hunter2x' http://127.0.0.1:9/token; true"
    })
    .to_string();
    let json_body = serde_json::json!({
        "command": r#"curl -sS -H 'Content-Type: application/json' -d '{"user": "bob", "api_key": "AK-secret987"}' http://127.0.0.1:9/v1; true"#
    })
    .to_string();
    let mcp_args = serde_json::json!({"token": "TK-mcptoken55", "path": "a.txt"}).to_string();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[
            ("form", "bash", &form),
            ("json", "bash", &json_body),
            ("mcp", "mcp__big__structured_only", &mcp_args),
        ]),
        support::text_reply("done"),
    ])
    .await;
    let out = loom_command(&home)
        .args([
            "exec",
            "--json",
            "--approval",
            "full-auto",
            "--model",
            "scripted-model",
        ])
        .arg("--base-url")
        .arg(server.base_url())
        .arg("-C")
        .arg(&ws)
        .arg("log in")
        .output()
        .await
        .unwrap();
    let events = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}\n{events}");
    let calls: Vec<serde_json::Value> = events
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|e| e["type"] == "tool_call")
        .collect();
    assert_eq!(calls.len(), 3, "{events}");
    let form_call = calls[0]["arguments"]["command"].as_str().unwrap();
    assert!(
        form_call.contains("client_secret=****&password=****"),
        "{form_call}"
    );
    assert!(form_call.contains("grant_type=password"), "{form_call}");
    assert!(
        calls[1]["arguments"]["command"]
            .as_str()
            .unwrap()
            .contains(r#""api_key": "****""#),
        "{}",
        calls[1]
    );
    assert_eq!(calls[2]["arguments"]["token"], "****");
    assert_eq!(calls[2]["arguments"]["path"], "a.txt");

    let sessions = home.join(".local/share/loom/sessions");
    let session = std::fs::read_dir(&sessions)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect::<String>();
    assert!(session.contains("client_secret=****"), "{session}");
    for secret in SECRETS {
        assert!(
            !events.contains(secret),
            "{secret} in the events:\n{events}"
        );
        assert!(
            !session.contains(secret),
            "{secret} in the session file:\n{session}"
        );
    }
    let requests = server.requests();
    let sent = requests[1]["messages"].to_string();
    assert!(
        sent.contains("client_secret=****"),
        "the conversation records the masked call"
    );
}
