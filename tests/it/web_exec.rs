//! The web tools end to end: the real `loom` binary (`loom exec --json`, `loom tool list`)
//! with the scripted model and a scripted web server, allowed through the user config.

use std::path::Path;

use serde_json::Value;

use crate::exec::{Run, loom_command};
use crate::support::web::{WebBody, WebReply, WebServer};
use crate::support::{self, ScriptedServer};

/// A workspace whose isolated home has `config` as the user config.
fn workspace(config: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join(".home/.config/loom");
    std::fs::create_dir_all(&conf).unwrap();
    std::fs::write(conf.join("config.toml"), config).unwrap();
    std::fs::write(dir.path().join(".gitignore"), ".home/\n").unwrap();
    dir
}

async fn exec(dir: &Path, model: &ScriptedServer, approval: &str) -> Run {
    let out = loom_command(&dir.join(".home"))
        .args([
            "exec",
            "--json",
            "--approval",
            approval,
            "--model",
            "scripted-model",
        ])
        .arg("--base-url")
        .arg(model.base_url())
        .arg("-C")
        .arg(dir)
        .arg("use the web")
        .output()
        .await
        .expect("loom runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        events: String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn allow(web: &WebServer) -> String {
    format!("[web]\nallow_private = [\"{}\"]\n", web.allow_entry())
}

fn transcript(dir: &Path) -> String {
    let sessions = dir.join(".home/.local/share/loom/sessions");
    std::fs::read_dir(sessions)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn full_auto_fetches_and_requests_with_credentials_masked_everywhere() {
    let web = WebServer::start().await;
    web.route(
        "/page",
        vec![WebReply::ok(
            "text/html",
            "<html><body><script>x()</script><h1>Hello web</h1><p>from the page</p></body></html>",
        )],
    );
    web.route(
        "/api",
        vec![WebReply {
            status: 201,
            headers: Vec::new(),
            body: WebBody::Echo,
        }],
    );
    let dir = workspace(&allow(&web));
    let fetch_args = serde_json::json!({"url": web.url("/page")}).to_string();
    let api_args = serde_json::json!({
        "method": "POST",
        "url": format!("{}?access_token=query-secret-31337", web.url("/api")),
        "headers": {"Authorization": "Bearer header-secret-4242"},
        "body": "{}"
    })
    .to_string();
    let model = ScriptedServer::start(vec![
        support::calls_openai(&[
            ("call_f", "web_fetch", &fetch_args),
            ("call_h", "http_request", &api_args),
        ]),
        support::text_reply("Fetched."),
    ])
    .await;
    let run = exec(dir.path(), &model, "full-auto").await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let results = run.of_type("tool_result");
    let fetched = results.iter().find(|r| r["name"] == "web_fetch").unwrap();
    assert_eq!(fetched["success"], true, "{fetched}");
    assert!(
        fetched["output"].as_str().unwrap().contains("# Hello web"),
        "{fetched}"
    );
    assert!(!fetched["output"].as_str().unwrap().contains("x()"));
    let api = results
        .iter()
        .find(|r| r["name"] == "http_request")
        .unwrap();
    assert_eq!(api["data"]["status"], 201, "{api}");
    let sent = web
        .seen()
        .into_iter()
        .find(|s| s.uri.starts_with("/api"))
        .unwrap();
    assert_eq!(sent.headers["authorization"], "Bearer header-secret-4242");
    // Nowhere a person or the model reads it afterwards: events, the conversation sent
    // back to the model, the transcript.
    let stdout: String = run.events.iter().map(Value::to_string).collect();
    let requests: String = model.requests().iter().map(Value::to_string).collect();
    for (place, text) in [
        ("events", stdout),
        ("model requests", requests),
        ("transcript", transcript(dir.path())),
    ] {
        assert!(!text.is_empty(), "{place} is empty");
        for secret in ["header-secret-4242", "query-secret-31337"] {
            assert!(!text.contains(secret), "{secret} leaked into the {place}");
        }
    }
    let call = run
        .of_type("tool_call")
        .into_iter()
        .find(|c| c["name"] == "http_request")
        .unwrap();
    assert_eq!(call["arguments"]["headers"]["Authorization"], "Bearer ****");
    assert_eq!(call["touches"]["network"]["domain"], "127.0.0.1");
}

#[tokio::test(flavor = "multi_thread")]
async fn supervised_exec_denies_a_request_to_a_domain_not_allowed() {
    let web = WebServer::start().await;
    web.route(
        "/api",
        vec![WebReply::json(serde_json::json!({"ok": true}))],
    );
    let args = serde_json::json!({"method": "GET", "url": web.url("/api")}).to_string();
    let script = || {
        vec![
            support::calls_openai(&[("call_h", "http_request", &args)]),
            support::text_reply("done"),
        ]
    };
    let listed_elsewhere = format!("{}allowed_domains = [\"api.github.com\"]\n", allow(&web));
    let dir = workspace(&listed_elsewhere);
    let model = ScriptedServer::start(script()).await;
    let run = exec(dir.path(), &model, "supervised").await;
    let approval = run.of_type("approval")[0].clone();
    assert_eq!(approval["decision"], "denied", "{approval}");
    let reason = approval["reason"].as_str().unwrap();
    assert!(reason.contains("not in [web] allowed_domains"), "{reason}");
    assert!(reason.contains("headless"), "{reason}");
    assert!(web.seen().is_empty(), "the request was never sent");

    // With no list, supervised asks per domain: headless, that is a denial too.
    let dir = workspace(&allow(&web));
    let model = ScriptedServer::start(script()).await;
    let run = exec(dir.path(), &model, "supervised").await;
    let reason = run.of_type("approval")[0]["reason"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(reason.contains("once per domain"), "{reason}");
    assert!(web.seen().is_empty());

    // Listed, it runs without asking.
    let listed = format!("{}allowed_domains = [\"127.0.0.1\"]\n", allow(&web));
    let dir = workspace(&listed);
    let model = ScriptedServer::start(script()).await;
    let run = exec(dir.path(), &model, "supervised").await;
    let approval = run.of_type("approval")[0].clone();
    assert_eq!(approval["decision"], "approved", "{approval}");
    assert_eq!(web.seen().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn read_only_mode_fetches_only_when_configured() {
    let web = WebServer::start().await;
    web.route("/p", vec![WebReply::ok("text/plain", "words")]);
    let args = serde_json::json!({"url": web.url("/p")}).to_string();
    let script = || {
        vec![
            support::calls_openai(&[("call_f", "web_fetch", &args)]),
            support::text_reply("done"),
        ]
    };
    let dir = workspace(&allow(&web));
    let model = ScriptedServer::start(script()).await;
    let run = exec(dir.path(), &model, "read-only").await;
    let approval = run.of_type("approval")[0].clone();
    assert_eq!(approval["decision"], "denied");
    assert!(
        approval["reason"]
            .as_str()
            .unwrap()
            .contains("read_only = true")
    );
    let dir = workspace(&format!("{}read_only = true\n", allow(&web)));
    let model = ScriptedServer::start(script()).await;
    let run = exec(dir.path(), &model, "read-only").await;
    let result = run.of_type("tool_result")[0].clone();
    assert_eq!(result["output"], "words", "{result}");
}

#[tokio::test(flavor = "multi_thread")]
async fn tool_list_says_how_to_enable_web_search() {
    let dir = workspace("");
    let out = loom_command(&dir.path().join(".home"))
        .args(["tool", "list", "-C"])
        .arg(dir.path())
        .env_remove("SERPER_API_KEY")
        .output()
        .await
        .unwrap();
    assert!(out.status.success());
    let schemas: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = schemas
        .iter()
        .map(|s| s["function"]["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"web_fetch") && names.contains(&"http_request"));
    assert!(!names.contains(&"web_search"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("not offered: web_search: no search provider is configured"),
        "{stderr}"
    );
    assert!(stderr.contains("[web_search] provider"), "{stderr}");

    let dir = workspace("[web_search]\nprovider = \"serper\"\n");
    let out = loom_command(&dir.path().join(".home"))
        .args(["tool", "list", "-C"])
        .arg(dir.path())
        .env_remove("SERPER_API_KEY")
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("needs its API key in $SERPER_API_KEY"),
        "{stderr}"
    );

    let dir =
        workspace("[web_search]\nprovider = \"searxng\"\nbase_url = \"http://127.0.0.1:9\"\n");
    let out = loom_command(&dir.path().join(".home"))
        .args(["tool", "list", "-C"])
        .arg(dir.path())
        .output()
        .await
        .unwrap();
    let schemas: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        schemas
            .iter()
            .any(|s| s["function"]["name"] == "web_search")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn web_search_end_to_end_through_exec() {
    let web = WebServer::start().await;
    web.route(
        "/search",
        vec![
            WebReply::status(503, None),
            WebReply::json(serde_json::json!({"results": [
                {"title": "Loom", "url": "https://loom.example", "content": "a loom"}
            ]})),
        ],
    );
    let dir = workspace(&format!(
        "[web_search]\nprovider = \"searxng\"\nbase_url = \"{}\"\nretry_base_ms = 5\n",
        web.url("/")
    ));
    let model = ScriptedServer::start(vec![
        support::calls_openai(&[(
            "call_s",
            "web_search",
            r#"{"query": "loom", "max_results": 1}"#,
        )]),
        support::text_reply("found"),
    ])
    .await;
    let run = exec(dir.path(), &model, "full-auto").await;
    let result = run.of_type("tool_result")[0].clone();
    assert_eq!(result["success"], true, "{result}");
    assert_eq!(result["data"]["results"][0]["url"], "https://loom.example");
    assert_eq!(result["data"]["attempts"], 2);
    // Listed in load_tools' catalogue (issue 24), and loaded once called.
    let tools = model.requests()[0]["tools"].to_string();
    assert!(
        tools.contains("\\nweb_search — "),
        "offered to the model: {tools}"
    );
    let tools = model.requests()[1]["tools"].to_string();
    assert!(
        tools.contains("\"web_search\""),
        "loaded once called: {tools}"
    );
}

/// An interactive (supervised) agent with `config` as the user config.
fn start_agent(dir: &Path, model: &ScriptedServer, config: &str) -> loom::agent::AgentHandle {
    let file = dir.join(".home-config.toml");
    std::fs::write(&file, config).unwrap();
    let flags = loom::config::FlagConfig {
        base_url: Some(model.base_url()),
        model: Some("scripted-model".into()),
        approval: Some("supervised".into()),
        config_file: Some(file),
        ..loom::config::FlagConfig::default()
    };
    let config = loom::config::load(dir, &flags, &|_| None).unwrap();
    let root = std::fs::canonicalize(dir).unwrap();
    let provider = loom::setup::Provider::Ready {
        settings: loom::llm::ProviderSettings::new(&model.base_url(), "scripted-model"),
        origin: "test".into(),
    };
    let ctx = loom::setup::tool_context(&root, &config, "web-session").unwrap();
    loom::agent::Runner::spawn(loom::compose::runner_parts(
        &config,
        &provider,
        ctx,
        true,
        Vec::new(),
        loom::setup::SessionFiles::none(),
    ))
}

#[tokio::test(flavor = "multi_thread")]
async fn supervised_asks_once_per_domain_and_always_grants_that_domain() {
    use loom::agent::{AgentEvent, ApprovalAnswer, ApprovalPreview};
    let web = WebServer::start().await;
    web.route("/a", vec![WebReply::ok("text/plain", "page a")]);
    web.route("/b", vec![WebReply::ok("text/plain", "page b")]);
    let dir = workspace("");
    let fetch = |p: &str| serde_json::json!({"url": web.url(p)}).to_string();
    let (fa, fb) = (fetch("/a"), fetch("/b"));
    let post = serde_json::json!({"method": "POST", "url": web.url("/a")}).to_string();
    let model = ScriptedServer::start(vec![
        support::calls_openai(&[("c1", "web_fetch", &fa)]),
        support::calls_openai(&[("c2", "web_fetch", &fb)]),
        support::calls_openai(&[("c3", "http_request", &post)]),
        support::text_reply("done"),
    ])
    .await;
    let mut agent = start_agent(dir.path(), &model, &allow(&web));
    let mut asked = Vec::new();
    let events = crate::agent::run_turn(&mut agent, "read the pages", |name, preview| {
        asked.push((name.to_string(), preview.clone()));
        match name {
            "web_fetch" => ApprovalAnswer::ApproveForSession,
            _ => ApprovalAnswer::Deny { reason: None },
        }
    })
    .await;
    assert_eq!(
        asked.len(),
        2,
        "the second fetch from the domain did not ask: {asked:?}"
    );
    assert_eq!(asked[0].0, "web_fetch");
    match &asked[0].1 {
        ApprovalPreview::Network { method, domain, .. } => {
            assert_eq!((method.as_str(), domain.as_str()), ("GET", "127.0.0.1"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        asked[1].0, "http_request",
        "a fetch grant is not a request grant"
    );
    let outputs: Vec<(String, bool)> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolResult { name, result, .. } => Some((name.clone(), result.success)),
            _ => None,
        })
        .collect();
    assert_eq!(
        outputs,
        [
            ("web_fetch".to_string(), true),
            ("web_fetch".to_string(), true),
            ("http_request".to_string(), false)
        ]
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, AgentEvent::Notice { message }
        if message.contains("web_fetch calls to 127.0.0.1 will run without asking")))
    );
    assert_eq!(web.seen().len(), 2, "the refused POST was never sent");
}
