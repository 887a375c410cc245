//! `oracle` through the real binary: the question goes to the second server named in
//! `[oracle]`, with the bounded answer length and temperature, and the answer (with its
//! token usage) comes back to the driving model.

use crate::exec::exec;
use crate::support::{self, ScriptedServer};

#[tokio::test(flavor = "multi_thread")]
async fn the_oracle_asks_the_second_server_with_bounded_parameters() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(".gitignore"), ".home/\n").unwrap();
    let oracle =
        ScriptedServer::start(vec![support::text_reply("Use a mutex around the map.")]).await;
    let config = dir.path().join(".home/.config/loom");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.toml"),
        format!(
            "[oracle]\nbase_url = \"{}\"\nmodel = \"oracle-model\"\nmax_tokens = 512\ntemperature = 0.7\n",
            oracle.base_url()
        ),
    )
    .unwrap();
    let main = ScriptedServer::start(vec![
        support::calls_openai(&[(
            "o1",
            "oracle",
            r#"{"question": "Why does this race?", "context": "static MAP: HashMap shared by two threads"}"#,
        )]),
        support::text_reply("The oracle says: use a mutex."),
    ])
    .await;
    let run = exec(dir.path(), &main, "supervised", "why does it race?").await;
    assert_eq!(run.code, 0, "{}\n{:#?}", run.stderr, run.events);

    let asked = oracle.requests();
    assert_eq!(asked.len(), 1, "one question, to the oracle's server");
    let req = &asked[0];
    assert_eq!(req["model"], "oracle-model");
    assert_eq!(req["max_tokens"], 512);
    assert!(
        (req["temperature"].as_f64().unwrap() - 0.7).abs() < 1e-6,
        "{req}"
    );
    assert!(
        req.get("tools")
            .is_none_or(|t| t.as_array().is_none_or(|a| a.is_empty())),
        "no tools: {req}"
    );
    let user = req["messages"][1]["content"].as_str().unwrap();
    assert!(
        user.contains("Why does this race?") && user.contains("static MAP"),
        "{user}"
    );

    let main_requests = main.requests();
    assert_eq!(main_requests.len(), 2);
    assert_ne!(main_requests[0]["model"], "oracle-model");
    let answered = &support::tool_messages(&main_requests[1])[0].1;
    assert_eq!(answered["success"], true, "{answered}");
    let output = answered["output"].as_str().unwrap();
    assert!(output.contains("Use a mutex around the map."), "{output}");
    assert!(
        output.contains("[oracle oracle-model:") && output.contains("tokens"),
        "the cost is shown: {output}"
    );
    let result = &run.of_type("tool_result")[0];
    assert_eq!(result["name"], "oracle");
    assert!(
        result["data"]["usage"]["completion_tokens"]
            .as_u64()
            .unwrap()
            > 0,
        "{result}"
    );
}
