//! Real llama-server streams replayed through the scripted server (issue 12): what Loom
//! does when a response is cut by the token limit, or an error arrives inside the stream.

use serde_json::Value;

use crate::exec::exec;
use crate::support::{self, ScriptedServer};

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hello.py"), "print('hello')\n").unwrap();
    dir
}

fn errors(run: &crate::exec::Run) -> Vec<String> {
    run.of_type("error")
        .iter()
        .map(|e| e["message"].as_str().unwrap_or("").to_string())
        .collect()
}

/// A recorded stream end to end: the call is assembled from llama-server's deltas (the
/// tiny model added an argument read_file does not take, which the model is told), and the
/// turn goes on to the answer.
#[tokio::test(flavor = "multi_thread")]
async fn a_recorded_llama_server_tool_call_is_assembled_and_answered() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        support::recorded("tool-call.sse"),
        support::text_reply("It prints hello."),
    ])
    .await;
    let run = exec(dir.path(), &server, "supervised", "what does hello.py do?").await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let calls = run.of_type("tool_call");
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0]["id"], "4TEfGKGDZjjPwAiFLgJbXV2jjskhpnrV");
    assert_eq!(calls[0]["name"], "read_file");
    let results = run.of_type("tool_result");
    assert!(
        results[0]["error"]
            .to_string()
            .contains("unknown field `text`"),
        "{results:?}"
    );
    let told = support::tool_messages(&server.requests()[1]);
    assert_eq!(told[0].0, "4TEfGKGDZjjPwAiFLgJbXV2jjskhpnrV");
    assert_eq!(
        run.of_type("assistant_message")[0]["text"],
        "It prints hello."
    );
}

/// Regression (issue 12): in full-auto Loom ran every complete call of a response cut by
/// the token limit (38 writes over one file in the recording). Now none runs, the last,
/// incomplete one is dropped, and the model is told and asked to go on.
#[tokio::test(flavor = "multi_thread")]
async fn calls_of_a_response_cut_by_length_are_not_run_even_in_full_auto() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        support::recorded("parallel-calls-cut-by-length.trimmed.sse"),
        support::text_reply("I will do it in smaller steps."),
    ])
    .await;
    let run = exec(dir.path(), &server, "full-auto", "rewrite hello.py").await;
    assert_eq!(
        std::fs::read_to_string(dir.path().join("hello.py")).unwrap(),
        "print('hello')\n",
        "nothing of the cut response was run"
    );
    let calls: Vec<&str> = run
        .of_type("tool_call")
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        calls,
        ["read_file", "write_file", "edit_file"],
        "the incomplete fourth call is dropped"
    );
    for r in run.of_type("tool_result") {
        assert_eq!(r["success"], false, "{r}");
        assert!(r["error"].to_string().contains("not run"), "{r}");
    }
    let errors = errors(&run);
    assert!(
        errors
            .iter()
            .any(|e| e.contains("cut off") && e.contains("none of them was run")),
        "{errors:?}"
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "the model is asked to go on");
    let told = support::tool_messages(&requests[1]);
    assert_eq!(told.len(), 3);
    assert!(told[0].1.to_string().contains("finish_reason"), "{told:?}");
    assert_eq!(run.of_type("turn_completed")[0]["end"], "done");
}

/// The recorded `finish-length.sse`: one complete read cut by `length` is not run either.
#[tokio::test(flavor = "multi_thread")]
async fn a_recorded_length_cut_call_is_reported_not_run() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        support::recorded("finish-length.sse"),
        support::text_reply("Let me try again."),
    ])
    .await;
    let run = exec(dir.path(), &server, "supervised", "read hello.py").await;
    let results = run.of_type("tool_result");
    assert_eq!(results.len(), 1);
    assert!(results[0]["error"].to_string().contains("not run"));
    assert_eq!(server.requests().len(), 2);
}

/// Regression (issue 12): a text answer cut by the token limit ended as `done`, exit 0,
/// nothing said.
#[tokio::test(flavor = "multi_thread")]
async fn a_text_answer_cut_by_length_is_reported_as_truncated() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![support::text_reply_finishing(
        "The three causes are: first, the",
        "length",
    )])
    .await;
    let run = exec(dir.path(), &server, "supervised", "explain").await;
    assert_eq!(run.code, 1, "a cut answer is not a finished task");
    assert_eq!(run.of_type("turn_completed")[0]["end"], "truncated");
    let errors = errors(&run);
    assert!(
        errors.iter().any(|e| e.contains("output token limit")),
        "{errors:?}"
    );
    let answer = run.of_type("assistant_message");
    assert_eq!(answer[0]["text"], "The three causes are: first, the");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_content_filter_stop_is_reported() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![support::text_reply_finishing(
        "I can't",
        "content_filter",
    )])
    .await;
    let run = exec(dir.path(), &server, "supervised", "hm").await;
    assert_eq!(run.code, 1);
    assert!(
        errors(&run).iter().any(|e| e.contains("content filter")),
        "{:?}",
        errors(&run)
    );
}

/// Regression (issue 12): a complete call followed by an in-stream error event was thrown
/// away and the request retried as a 500. Now the call is kept and runs, the error is
/// reported, and the model is told before it goes on.
#[tokio::test(flavor = "multi_thread")]
async fn a_complete_call_before_an_in_stream_error_is_kept_and_the_model_told() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        support::calls_then_stream_error(
            &[("c1", "read_file", r#"{"path": "hello.py"}"#)],
            "The model produced output that does not match the expected peg-native format",
        ),
        support::text_reply("It prints hello."),
    ])
    .await;
    let run = exec(dir.path(), &server, "supervised", "what does it do?").await;
    let results = run.of_type("tool_result");
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["success"], true, "{results:?}");
    assert!(
        errors(&run).iter().any(|e| e.contains("peg-native")),
        "{:?}",
        errors(&run)
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "not retried: continued");
    let last_user = requests[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .cloned()
        .unwrap_or(Value::Null);
    assert!(
        last_user["content"]
            .to_string()
            .contains("error in the middle"),
        "{last_user}"
    );
}

/// Issue 24: a turn that recovered from an in-stream error and ended `done` made
/// `loom exec` exit 1; the final state decides, so it exits 0 and still reports the error.
#[tokio::test(flavor = "multi_thread")]
async fn exec_exits_0_after_a_turn_that_recovered_and_ended_done() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        support::calls_then_stream_error(
            &[("c1", "read_file", r#"{"path": "hello.py"}"#)],
            "upstream hiccup",
        ),
        support::text_reply("It prints hello."),
    ])
    .await;
    let run = exec(dir.path(), &server, "supervised", "what does it do?").await;
    assert_eq!(run.of_type("turn_completed")[0]["end"], "done");
    assert!(errors(&run).iter().any(|e| e.contains("upstream hiccup")));
    assert_eq!(run.code, 0, "{:?}", errors(&run));
}

/// The recorded in-stream error follows a call whose arguments never closed: nothing whole
/// arrived, so the request failed and is retried like any other server error.
#[tokio::test(flavor = "multi_thread")]
async fn a_recorded_in_stream_error_after_an_unfinished_call_is_retried() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        support::recorded("error-event-after-tool-call.sse"),
        support::text_reply("Done."),
    ])
    .await;
    let run = exec(dir.path(), &server, "supervised", "go").await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.of_type("retry").len(), 1);
    assert!(
        run.of_type("tool_result").is_empty(),
        "the unfinished call never ran"
    );
}

/// Regression (issue 12): a stream cut mid-answer failed the turn with a transport error.
/// What arrived is kept and the model is asked to continue from there.
#[tokio::test(flavor = "multi_thread")]
async fn an_answer_cut_mid_stream_is_continued() {
    let dir = workspace();
    let support::Reply::Stream(mut cut) = support::text_reply("The first half of the answer")
    else {
        unreachable!()
    };
    // Keep the text, drop the end (finish, usage, [DONE]) and break the connection.
    cut.truncate(cut.len() - 3);
    cut.push(support::Frame::Delay(std::time::Duration::from_millis(300)));
    cut.push(support::Frame::Cut);
    let server = ScriptedServer::start(vec![
        support::Reply::Stream(cut),
        support::text_reply(" and the second half."),
    ])
    .await;
    let run = exec(dir.path(), &server, "supervised", "explain").await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.of_type("retry").len(), 1);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let messages = requests[1]["messages"].as_array().unwrap();
    let n = messages.len();
    assert_eq!(messages[n - 2]["role"], "assistant", "{messages:?}");
    assert_eq!(messages[n - 2]["content"], "The first half of the answer");
    assert!(
        messages[n - 1]["content"]
            .to_string()
            .contains("Continue exactly where")
    );
    assert_eq!(
        run.of_type("assistant_message").last().unwrap()["text"],
        " and the second half."
    );
}

/// Regression: a body that simply stopped (the connection closed cleanly, with neither a
/// finish reason nor `[DONE]`) was taken for the whole answer, and the turn ended `done`
/// on half a sentence. It is a cut like any other: the model is asked to continue.
#[tokio::test(flavor = "multi_thread")]
async fn an_answer_whose_stream_just_stops_is_continued() {
    let dir = workspace();
    let support::Reply::Stream(mut stopped) = support::text_reply("The first half of the answer")
    else {
        unreachable!()
    };
    // Keep the text, drop the end (finish, usage, [DONE]); the body then ends cleanly.
    stopped.truncate(stopped.len() - 3);
    let server = ScriptedServer::start(vec![
        support::Reply::Stream(stopped),
        support::text_reply(" and the second half."),
    ])
    .await;
    let run = exec(dir.path(), &server, "supervised", "explain").await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.of_type("retry").len(), 1, "{:?}", run.events);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let messages = requests[1]["messages"].as_array().unwrap();
    let n = messages.len();
    assert_eq!(messages[n - 2]["content"], "The first half of the answer");
    assert!(
        messages[n - 1]["content"]
            .to_string()
            .contains("Continue exactly where")
    );
}

/// Regression: a tool call whose stream simply stopped before its finish reason (and
/// `[DONE]`) was run: a response is acted on only when it is whole. The request is made
/// again and what the model answers then is what happens.
#[tokio::test(flavor = "multi_thread")]
async fn a_call_whose_stream_just_stops_is_not_run() {
    let dir = workspace();
    let support::Reply::Stream(mut frames) = support::calls_openai(&[(
        "c1",
        "write_file",
        r#"{"path": "new.txt", "content": "half"}"#,
    )]) else {
        unreachable!()
    };
    frames.truncate(frames.len() - 3);
    let server = ScriptedServer::start(vec![
        support::Reply::Stream(frames),
        support::text_reply("I will not write it after all."),
    ])
    .await;
    let run = exec(dir.path(), &server, "full-auto", "write it").await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.of_type("retry").len(), 1, "{:?}", run.events);
    assert!(run.of_type("tool_result").is_empty(), "{:?}", run.events);
    assert!(
        !dir.path().join("new.txt").exists(),
        "the unfinished call ran"
    );
}

/// Regression (issue 12): failed turns reported usage as exact zeros, although the model
/// had answered part of the way. The attempt's cost is estimated and marked so.
#[tokio::test(flavor = "multi_thread")]
async fn a_failed_turn_reports_the_tokens_it_cost() {
    let dir = workspace();
    let config = dir.path().join(".home/.config/loom");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("config.toml"), "max_retries = 1\n").unwrap();
    let server = ScriptedServer::start(vec![support::cut_after(
        "This answer will be cut somewhere in the middle",
        3,
    )])
    .await;
    let run = exec(dir.path(), &server, "supervised", "explain").await;
    assert_eq!(run.code, 1, "{:?}", run.events);
    let done = &run.of_type("turn_completed")[0];
    assert_eq!(done["end"], "failed");
    let usage = &done["usage"];
    assert!(usage["prompt_tokens"].as_u64().unwrap() > 100, "{usage}");
    assert!(usage["completion_tokens"].as_u64().unwrap() > 0, "{usage}");
    assert_eq!(usage["estimated"], true);
}

/// Issue 24: a stream cut while a tool call was arriving (nothing visible yet) failed the
/// turn with usage 0/0. The prompt was sent and the answer had begun: it is estimated.
#[tokio::test(flavor = "multi_thread")]
async fn a_turn_cut_mid_call_reports_the_tokens_it_cost() {
    let dir = workspace();
    let config = dir.path().join(".home/.config/loom");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("config.toml"), "max_retries = 1\n").unwrap();
    let support::Reply::Stream(mut frames) =
        support::calls_openai(&[("c1", "read_file", r#"{"path": "hello.py"}"#)])
    else {
        unreachable!()
    };
    frames.truncate(1);
    frames.push(support::Frame::Delay(std::time::Duration::from_millis(300)));
    frames.push(support::Frame::Cut);
    let server = ScriptedServer::start(vec![support::Reply::Stream(frames)]).await;
    let run = exec(dir.path(), &server, "supervised", "read it").await;
    let done = &run.of_type("turn_completed")[0];
    assert_eq!(done["end"], "failed", "{:?}", run.events);
    let usage = &done["usage"];
    assert!(
        usage["prompt_tokens"].as_u64().unwrap() > 100,
        "{usage} {:?}",
        run.events
    );
    assert_eq!(usage["estimated"], true, "{usage}");
}

/// Issue 24: a model server that redirects in a loop was retried five times with reqwest's
/// own words. It is said once, in plain words, and not retried.
#[tokio::test(flavor = "multi_thread")]
async fn a_redirect_loop_is_said_once_in_plain_words() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let redirector = tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                let mut buf = vec![0u8; 65536];
                let _ = socket.read(&mut buf).await;
                let _ = socket
                    .write_all(
                        b"HTTP/1.1 302 Found\r\nLocation: /v1/chat/completions\r\n\
                          Content-Length: 0\r\nConnection: close\r\n\r\n",
                    )
                    .await;
            });
        }
    });
    let dir = workspace();
    let out = crate::exec::loom_command(&dir.path().join(".home"))
        .args(["exec", "--json", "--model", "m", "--base-url"])
        .arg(format!("http://127.0.0.1:{port}/v1"))
        .arg("-C")
        .arg(dir.path())
        .arg("hi")
        .output()
        .await
        .unwrap();
    redirector.abort();
    assert_eq!(out.status.code(), Some(1));
    let events: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!events.iter().any(|e| e["type"] == "retry"), "{events:#?}");
    let error = events
        .iter()
        .find(|e| e["type"] == "error")
        .expect("an error event");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("redirects again and again") && message.contains("base_url"),
        "{message}"
    );
}

/// Review finding: a call whose name arrived but whose arguments never did counted as
/// whole, so an error right after it failed the turn (or ran `list_files` with `{}`). Now
/// nothing whole arrived, and the request is retried.
#[tokio::test(flavor = "multi_thread")]
async fn a_call_without_arguments_before_an_in_stream_error_is_not_whole() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![
        support::calls_then_stream_error(&[("c1", "list_files", "")], "parser failed"),
        support::text_reply("Here you are."),
    ])
    .await;
    let run = exec(dir.path(), &server, "full-auto", "list").await;
    assert_eq!(run.code, 0, "{:?}", run.events);
    assert_eq!(run.of_type("retry").len(), 1);
    assert!(run.of_type("tool_result").is_empty(), "{:?}", run.events);
}
