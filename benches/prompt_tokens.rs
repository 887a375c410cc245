//! The prompt budget (issue 24): how many tokens (tiktoken o200k) the fixed prefix of a
//! request — the system prompt and the tool schemas — takes, per window size, with every
//! built-in tool available, without and with 78 MCP tools (six servers of 13).
//!
//! Each figure is counted from the real request body: an agent is started the way a
//! session starts it, against the scripted server of the tests announcing the window
//! through llama.cpp's `/props`, and says hi. Run with
//! `cargo bench --bench prompt_tokens`.

#[path = "../tests/support/mod.rs"]
mod support;

use std::path::Path;
use std::time::Duration;

use loom::agent::{AgentEvent, Runner, UserOp};
use loom::compose;
use loom::config::{self, FlagConfig};
use loom::setup::{self, Provider};
use serde_json::{Value, json};
use support::ScriptedServer;

const WINDOWS: [u64; 5] = [2048, 4096, 8192, 32_768, 131_072];

/// The config: a web search provider, and, with `mcp`, six servers of 13 tools.
fn config_text(mcp: bool) -> String {
    let mut text =
        String::from("[web_search]\nprovider = \"searxng\"\nbase_url = \"http://127.0.0.1:9\"\n");
    if mcp {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp/many_tools.py");
        for i in 1..=6 {
            text.push_str(&format!(
                "[mcp_servers.srv{i}]\ncommand = \"python3\"\nargs = [{:?}, \"13\", \"srv{i}\"]\n",
                script.display().to_string()
            ));
        }
    }
    text
}

/// The first request of a session at `window` tokens saying hi.
async fn first_request(dir: &Path, window: u64, mcp: bool) -> Value {
    let server = ScriptedServer::start(vec![support::text_reply("Hi.")]).await;
    server.set_info(
        "/props",
        json!({"default_generation_settings": {"n_ctx": window},
               "chat_template_caps": {"supports_tools": true}}),
    );
    let config_file = dir.join(format!("config-{window}-{mcp}.toml"));
    std::fs::write(&config_file, config_text(mcp)).unwrap();
    let flags = FlagConfig {
        base_url: Some(server.base_url()),
        model: Some("scripted-model".into()),
        approval: Some("full-auto".into()),
        config_file: Some(config_file),
        ..FlagConfig::default()
    };
    let config = config::load(dir, &flags, &|_| None).unwrap();
    let provider = Provider::Ready {
        settings: loom::llm::ProviderSettings::new(&server.base_url(), "scripted-model"),
        origin: "bench".into(),
    };
    let sid = format!("bench-{window}-{mcp}");
    let ctx = setup::tool_context(dir, &config, &sid).unwrap();
    let files = setup::session_files(dir, &sid, "scripted-model", false);
    let parts = compose::runner_parts(&config, &provider, ctx, false, Vec::new(), files);
    if let Some(mcp) = &parts.mcp {
        mcp.settled().await;
    }
    let mut agent = Runner::spawn(parts);
    agent
        .ops
        .send(UserOp::Submit {
            text: "Say hi".into(),
            images: Vec::new(),
        })
        .unwrap();
    loop {
        let event = tokio::time::timeout(Duration::from_secs(30), agent.events.recv())
            .await
            .expect("the agent answers within 30 s")
            .expect("the agent is alive");
        if matches!(event, AgentEvent::TurnComplete { .. }) {
            break;
        }
    }
    let _ = agent.ops.send(UserOp::Shutdown);
    let _ = agent.task.await;
    server.requests().remove(0)
}

/// o200k tokens of the system message and of the tool schemas, and the tools sent.
fn prefix(request: &Value) -> (usize, usize, usize) {
    let bpe = tiktoken_rs::o200k_base_singleton();
    let count = |t: &str| bpe.encode_ordinary(t).len();
    let system = count(request["messages"][0]["content"].as_str().unwrap_or(""));
    let tools = request["tools"].as_array().cloned().unwrap_or_default();
    let schemas = tools.iter().map(|t| count(&t.to_string())).sum();
    (system, schemas, tools.len())
}

fn main() {
    // Every built-in tool: a browser (any file will do: it is not started), and a data
    // directory for memory and cron.
    let home = tempfile::tempdir().unwrap();
    // SAFETY: set before any thread is started.
    unsafe {
        std::env::set_var("LOOM_BROWSER", "/bin/sh");
        std::env::set_var("HOME", home.path());
        std::env::set_var("XDG_DATA_HOME", home.path().join(".local/share"));
        std::env::set_var("XDG_CONFIG_HOME", home.path().join(".config"));
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    println!("window    MCP tools  system  schemas  prefix  tools sent");
    for mcp in [false, true] {
        for window in WINDOWS {
            let dir = tempfile::tempdir().unwrap();
            let root = std::fs::canonicalize(dir.path()).unwrap();
            let request = rt.block_on(first_request(&root, window, mcp));
            let (system, schemas, sent) = prefix(&request);
            println!(
                "{window:>7}  {:>9}  {system:>6}  {schemas:>7}  {:>6}  {sent:>10}",
                if mcp { 78 } else { 0 },
                system + schemas
            );
        }
    }
}
