//! The prompt budget (issue 24): the system prompt plus the tool schemas every request
//! carries stay within 2,000 tokens (tiktoken o200k) with every built-in tool available;
//! the other tools are loaded on demand; and turns complete in small windows, announced
//! through llama.cpp's `/props` and through Ollama's `/api/show`.

use std::path::Path;

use serde_json::{Value, json};

use crate::exec::Run;
use crate::support::{self, Reply, ScriptedServer};

/// The most tokens the fixed prefix (system prompt and schemas) may take.
const PREFIX_BUDGET: usize = 2_000;

/// Tokens of `text` in o200k.
fn o200k(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton()
        .encode_ordinary(text)
        .len()
}

/// Tokens of a request's fixed prefix as the server received it: the system message's
/// text and each tool schema's JSON.
fn prefix_tokens(request: &Value) -> usize {
    let system = request["messages"][0]["content"].as_str().unwrap_or("");
    let tools: usize = request["tools"]
        .as_array()
        .map(|t| t.iter().map(|s| o200k(&s.to_string())).sum())
        .unwrap_or(0);
    o200k(system) + tools
}

/// Tokens of a whole request as the server received it (every message's text, the
/// calls' arguments and the tool schemas), plus OpenAI's framing of 4 per message.
fn request_tokens(request: &Value) -> usize {
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let mut n = 3;
    for m in &messages {
        n += 4;
        if let Some(text) = m["content"].as_str() {
            n += o200k(text);
        }
        for call in m["tool_calls"].as_array().into_iter().flatten() {
            n += o200k(call["function"]["name"].as_str().unwrap_or(""));
            n += o200k(call["function"]["arguments"].as_str().unwrap_or(""));
        }
    }
    n + request["tools"]
        .as_array()
        .map(|t| t.iter().map(|s| o200k(&s.to_string())).sum::<usize>())
        .unwrap_or(0)
}

/// The names of the tools a request offers.
fn offered(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
        .collect()
}

/// A workspace whose config (top-level keys `extra_config`) offers every built-in tool: a web search provider, and
/// (through `LOOM_BROWSER`, set by [`run`]) a browser.
fn workspace(extra_config: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(".gitignore"), ".home/\n").unwrap();
    let config = dir.path().join(".home/.config/loom");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.toml"),
        format!(
            "{extra_config}[web_search]\nprovider = \"searxng\"\nbase_url = \"http://127.0.0.1:9\"\n"
        ),
    )
    .unwrap();
    dir
}

/// `loom exec --json ARGS PROMPT` in `dir` against `server`, a browser offered.
async fn run(dir: &Path, server: &ScriptedServer, args: &[&str], prompt: &str) -> Run {
    let home = dir.join(".home");
    let out = crate::exec::loom_command(&home)
        .env("LOOM_BROWSER", "/bin/sh")
        .args([
            "exec",
            "--json",
            "--approval",
            "full-auto",
            "--model",
            "scripted-model",
        ])
        .args(args)
        .arg("--base-url")
        .arg(server.base_url())
        .arg("-C")
        .arg(dir)
        .arg(prompt)
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

/// Issue 24: the system prompt and the schemas every request carries took 4,901 tokens
/// with the 18 built-in tools. Counted from the request body the server receives, they
/// are now at most 2,000 with every built-in tool available (a web search provider and a
/// browser configured, memory, cron, oracle and delegate offered), whichever editing tool
/// is chosen, and the deferred tools are named in load_tools' catalogue.
#[tokio::test(flavor = "multi_thread")]
async fn the_prompt_and_schemas_fit_2000_tokens_with_every_built_in_tool() {
    for edit_tool in ["edit_file", "apply_patch", "both"] {
        let dir = workspace(&format!("edit_tool = \"{edit_tool}\"\n"));
        let server = ScriptedServer::start(vec![support::text_reply("Hi.")]).await;
        let run = run(dir.path(), &server, &[], "Say hi").await;
        assert_eq!(run.code, 0, "{}\n{:?}", run.stderr, run.events);
        let request = &server.requests()[0];
        let tokens = prefix_tokens(request);
        eprintln!("{edit_tool}: {tokens} tokens of system prompt and schemas");
        assert!(tokens <= PREFIX_BUDGET, "{edit_tool}: {tokens} tokens");
        let sent = offered(request);
        let core = [
            "read_file",
            "write_file",
            "list_files",
            "search_files",
            "bash",
        ];
        for name in core.iter().chain(["load_tools"].iter()) {
            assert!(sent.contains(&name.to_string()), "{edit_tool}: {sent:?}");
        }
        let editing: Vec<&str> = ["edit_file", "apply_patch"]
            .into_iter()
            .filter(|t| sent.contains(&t.to_string()))
            .collect();
        assert!(!editing.is_empty(), "{edit_tool}: {sent:?}");
        let catalogue = load_tools_description(request);
        for deferred in [
            "web_search",
            "web_fetch",
            "http_request",
            "browser",
            "memory_store",
            "memory_recall",
            "memory_forget",
            "cron_add",
            "cron_list",
            "cron_remove",
            "oracle",
            "delegate",
        ] {
            assert!(
                !sent.contains(&deferred.to_string()),
                "{deferred} is deferred"
            );
            assert!(
                catalogue.contains(&format!("\n{deferred} — ")),
                "{deferred} is in the catalogue: {catalogue}"
            );
        }
    }
}

/// The description of the `load_tools` schema a request carries (its catalogue).
fn load_tools_description(request: &Value) -> String {
    request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| t["function"]["name"] == "load_tools")
        .and_then(|t| t["function"]["description"].as_str())
        .unwrap_or("")
        .to_string()
}
