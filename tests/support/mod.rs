//! A scripted OpenAI-compatible server on 127.0.0.1 (random port) for end-to-end tests.
//!
//! Each `POST /v1/chat/completions` consumes the next scripted [`Reply`] and records the
//! request body, so tests can assert what Loom sent (tool results with matching
//! `tool_call_id`, the system prompt, the tools list). Replies can stream in each dialect
//! seen in the wild (OpenAI, llama.cpp, Ollama, text-embedded calls), return error statuses
//! with `Retry-After`, stall, and cut the connection mid-stream. `GET /v1/models` lists one
//! model.

#![allow(dead_code)]

pub mod web;

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use futures::StreamExt;
use serde_json::{Value, json};

/// One piece of a streamed reply.
#[derive(Debug, Clone)]
pub enum Frame {
    /// An SSE `data:` line with this payload.
    Data(String),
    /// Wait before the next frame.
    Delay(Duration),
    /// Abort the connection (the body errors; the client sees a broken stream).
    Cut,
    /// Wait until the test lets the reply go on (`notify_one`).
    Until(Arc<tokio::sync::Notify>),
}

/// One scripted reply.
#[derive(Debug, Clone)]
pub enum Reply {
    /// An SSE stream.
    Stream(Vec<Frame>),
    /// An SSE stream of text deltas that never ends.
    Endless,
    /// An SSE stream that repeats this text delta without end.
    EndlessDeltas(String),
    /// The same, counting the bytes the connection took from the server.
    EndlessCounted(String, Arc<std::sync::atomic::AtomicU64>),
    /// One SSE line that never ends (bytes without a newline, forever).
    EndlessLine,
    /// Accept the request and never answer (no headers, no bytes).
    Silent,
    /// Bytes recorded from a real server, sent event by event as they were received.
    Recorded(String),
    /// An error status with a body and optional `Retry-After` seconds.
    Status {
        /// Status code.
        code: u16,
        /// Body text.
        body: String,
        /// `Retry-After` header value.
        retry_after: Option<String>,
    },
}

#[derive(Default)]
struct Script {
    replies: VecDeque<Reply>,
    requests: Vec<Value>,
    headers: Vec<axum::http::HeaderMap>,
    /// JSON served at other paths (`/props`, `/api/show`, `/v1/models`…), by path.
    info: std::collections::HashMap<String, Value>,
    /// Answer every other path with a body that never ends.
    endless_info: bool,
}

/// A running scripted server.
pub struct ScriptedServer {
    /// Where it listens.
    pub addr: SocketAddr,
    script: Arc<Mutex<Script>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl ScriptedServer {
    /// Start a server that will give `replies` in order.
    pub async fn start(replies: Vec<Reply>) -> ScriptedServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        ScriptedServer::serve(listener, replies)
    }

    /// Start on a fixed local address (a local server's well-known port), or `None` when
    /// something else already listens there.
    pub async fn start_on(addr: &str, replies: Vec<Reply>) -> Option<ScriptedServer> {
        let listener = tokio::net::TcpListener::bind(addr).await.ok()?;
        Some(ScriptedServer::serve(listener, replies))
    }

    fn serve(listener: tokio::net::TcpListener, replies: Vec<Reply>) -> ScriptedServer {
        let script = Arc::new(Mutex::new(Script {
            replies: replies.into(),
            requests: Vec::new(),
            headers: Vec::new(),
            info: Default::default(),
            endless_info: false,
        }));
        let app = Router::new()
            .route("/v1/chat/completions", post(chat))
            .fallback(info)
            .with_state(script.clone());
        let addr = listener.local_addr().unwrap();
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        ScriptedServer { addr, script, task }
    }

    /// The base URL to give Loom.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Every request body received so far.
    pub fn requests(&self) -> Vec<Value> {
        self.script.lock().unwrap().requests.clone()
    }

    /// The HTTP headers of every chat request received so far.
    pub fn request_headers(&self) -> Vec<axum::http::HeaderMap> {
        self.script.lock().unwrap().headers.clone()
    }

    /// Serve `body` at `path` (GET or POST), like a server describing its model.
    pub fn set_info(&self, path: &str, body: Value) {
        self.script
            .lock()
            .unwrap()
            .info
            .insert(path.to_string(), body);
    }

    /// Answer every path but the chat completions (the model list, llama.cpp's `/props`,
    /// Ollama's `/api/show`…) with JSON that never ends, fast.
    pub fn stream_info_endlessly(&self) {
        self.script.lock().unwrap().endless_info = true;
    }

    /// Scripted replies not yet consumed.
    pub fn remaining(&self) -> usize {
        self.script.lock().unwrap().replies.len()
    }
}

/// `/v1/models` (one model unless the test says otherwise) and whatever else the test set.
async fn info(State(script): State<Arc<Mutex<Script>>>, uri: axum::http::Uri) -> Response {
    let (body, endless) = {
        let s = script.lock().unwrap();
        (s.info.get(uri.path()).cloned(), s.endless_info)
    };
    if endless {
        let head = futures::stream::once(async { Ok(Bytes::from_static(b"{\"data\": [")) });
        let piece = Bytes::from(r#"{"id": "scripted-model", "object": "model"},"#.repeat(1000));
        let rest = futures::stream::repeat_with(move || Ok::<_, std::io::Error>(piece.clone()));
        return Response::builder()
            .header("content-type", "application/json")
            .body(Body::from_stream(head.chain(rest)))
            .unwrap();
    }
    match (body, uri.path()) {
        (Some(body), _) => axum::Json(body).into_response(),
        (None, "/v1/models") => axum::Json(
            json!({"object": "list", "data": [{"id": "scripted-model", "object": "model"}]}),
        )
        .into_response(),
        (None, _) => StatusCode::NOT_FOUND.into_response(),
    }
}

async fn chat(
    State(script): State<Arc<Mutex<Script>>>,
    headers: axum::http::HeaderMap,
    body: Bytes,
) -> Response {
    let value: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let reply = {
        let mut s = script.lock().unwrap();
        s.requests.push(value);
        s.headers.push(headers);
        s.replies.pop_front()
    };
    let reply = reply.unwrap_or_else(|| text_reply("(the script has no more replies)"));
    match reply {
        Reply::Status {
            code,
            body,
            retry_after,
        } => {
            let mut resp = (StatusCode::from_u16(code).unwrap(), body).into_response();
            if let Some(r) = retry_after {
                resp.headers_mut()
                    .insert("retry-after", HeaderValue::from_str(&r).unwrap());
            }
            resp
        }
        Reply::Silent => futures::future::pending::<Response>().await,
        Reply::EndlessDeltas(text) => {
            let piece = Bytes::from(format!(
                "data: {}\n\n",
                chunk(json!({"content": text}), None)
            ));
            let stream =
                futures::stream::repeat_with(move || Ok::<_, std::io::Error>(piece.clone()));
            Response::builder()
                .header("content-type", "text/event-stream")
                .body(Body::from_stream(stream))
                .unwrap()
        }
        Reply::EndlessCounted(text, taken) => {
            let piece = Bytes::from(format!(
                "data: {}\n\n",
                chunk(json!({"content": text}), None)
            ));
            let stream = futures::stream::repeat_with(move || {
                taken.fetch_add(piece.len() as u64, std::sync::atomic::Ordering::SeqCst);
                Ok::<_, std::io::Error>(piece.clone())
            });
            Response::builder()
                .header("content-type", "text/event-stream")
                .body(Body::from_stream(stream))
                .unwrap()
        }
        Reply::Endless => {
            let piece = chunk(json!({"content": "x".repeat(1024)}), None);
            let stream = futures::stream::repeat_with(move || {
                Ok::<_, std::io::Error>(Bytes::from(format!("data: {piece}\n\n")))
            });
            Response::builder()
                .header("content-type", "text/event-stream")
                .body(Body::from_stream(stream))
                .unwrap()
        }
        Reply::EndlessLine => {
            let head = futures::stream::once(async { Ok(Bytes::from_static(b"data: {\"x\": \"")) });
            let rest = futures::stream::repeat_with(|| {
                Ok::<_, std::io::Error>(Bytes::from(vec![b'a'; 64 * 1024]))
            });
            Response::builder()
                .header("content-type", "text/event-stream")
                .body(Body::from_stream(head.chain(rest)))
                .unwrap()
        }
        Reply::Recorded(text) => {
            let events: Vec<Result<Bytes, std::io::Error>> = text
                .split_inclusive("\n\n")
                .map(|e| Ok(Bytes::from(e.to_string())))
                .collect();
            Response::builder()
                .header("content-type", "text/event-stream")
                .body(Body::from_stream(futures::stream::iter(events)))
                .unwrap()
        }
        Reply::Stream(frames) => {
            let stream = futures::stream::unfold(frames.into_iter(), |mut it| async move {
                loop {
                    match it.next()? {
                        Frame::Delay(d) => tokio::time::sleep(d).await,
                        Frame::Until(go) => go.notified().await,
                        Frame::Data(payload) => {
                            let bytes = Bytes::from(format!("data: {payload}\n\n"));
                            return Some((Ok::<_, std::io::Error>(bytes), it));
                        }
                        Frame::Cut => {
                            return Some((Err(std::io::Error::other("scripted cut")), it));
                        }
                    }
                }
            });
            Response::builder()
                .header("content-type", "text/event-stream")
                .body(Body::from_stream(stream))
                .unwrap()
        }
    }
}

/// A stream recorded from llama.cpp's `llama-server` (tests/fixtures/llama-server).
pub fn recorded(name: &str) -> Reply {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/llama-server")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Reply::Recorded(text)
}

// ---- building replies in each dialect ----

fn chunk(delta: Value, finish: Option<&str>) -> String {
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "model": "scripted-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    })
    .to_string()
}

fn usage_and_done(prompt: u64, completion: u64) -> Vec<Frame> {
    vec![
        Frame::Data(
            json!({"id": "chatcmpl-1", "choices": [], "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}})
                .to_string(),
        ),
        Frame::Data("[DONE]".into()),
    ]
}

/// Split text into pieces of about `n` characters.
fn pieces(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(n.max(1)).map(|c| c.iter().collect()).collect()
}

/// A plain answer streamed a few characters at a time (OpenAI style).
pub fn text_reply(text: &str) -> Reply {
    let mut frames = vec![Frame::Data(chunk(
        json!({"role": "assistant", "content": ""}),
        None,
    ))];
    for p in pieces(text, 7) {
        frames.push(Frame::Data(chunk(json!({"content": p}), None)));
    }
    frames.push(Frame::Data(chunk(json!({}), Some("stop"))));
    frames.extend(usage_and_done(100, 20));
    Reply::Stream(frames)
}

/// A plain answer that ends with `finish_reason` (e.g. `length`: cut by the token limit).
pub fn text_reply_finishing(text: &str, finish: &str) -> Reply {
    let mut frames = vec![Frame::Data(chunk(
        json!({"role": "assistant", "content": ""}),
        None,
    ))];
    for p in pieces(text, 7) {
        frames.push(Frame::Data(chunk(json!({"content": p}), None)));
    }
    frames.push(Frame::Data(chunk(json!({}), Some(finish))));
    frames.extend(usage_and_done(100, 20));
    Reply::Stream(frames)
}

/// Whole calls, then an error event inside the stream and no end (what llama-server
/// sends when its output parser fails after the calls).
pub fn calls_then_stream_error(calls: &[Call<'_>], message: &str) -> Reply {
    let Reply::Stream(mut frames) = calls_openai(calls) else {
        unreachable!("calls_openai streams")
    };
    // Drop the finish chunk, the usage chunk and [DONE].
    frames.truncate(frames.len() - 3);
    frames.push(Frame::Data(
        json!({"error": {"code": 500, "message": message, "type": "server_error"}}).to_string(),
    ));
    Reply::Stream(frames)
}

/// A call: (id, tool name, arguments JSON text).
pub type Call<'a> = (&'a str, &'a str, &'a str);

/// OpenAI dialect: id and name first, arguments in small pieces, by index.
pub fn calls_openai(calls: &[Call<'_>]) -> Reply {
    let mut frames = vec![Frame::Data(chunk(
        json!({"role": "assistant", "content": null}),
        None,
    ))];
    for (i, (id, name, args)) in calls.iter().enumerate() {
        frames.push(Frame::Data(chunk(
            json!({"tool_calls": [{"index": i, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}]}),
            None,
        )));
        for p in pieces(args, 5) {
            frames.push(Frame::Data(chunk(
                json!({"tool_calls": [{"index": i, "function": {"arguments": p}}]}),
                None,
            )));
        }
    }
    frames.push(Frame::Data(chunk(json!({}), Some("tool_calls"))));
    frames.extend(usage_and_done(200, 30));
    Reply::Stream(frames)
}

/// OpenAI dialect: some text first, then calls, in one message ("Let me read it." and a
/// read).
pub fn text_then_calls(text: &str, calls: &[Call<'_>]) -> Reply {
    let Reply::Stream(call_frames) = calls_openai(calls) else {
        unreachable!("calls_openai streams")
    };
    let mut frames = vec![Frame::Data(chunk(
        json!({"role": "assistant", "content": ""}),
        None,
    ))];
    for p in pieces(text, 7) {
        frames.push(Frame::Data(chunk(json!({"content": p}), None)));
    }
    frames.extend(call_frames.into_iter().skip(1));
    Reply::Stream(frames)
}

/// OpenAI dialect with the calls' argument pieces interleaved (parallel calls).
pub fn calls_interleaved(calls: &[Call<'_>]) -> Reply {
    let mut frames = Vec::new();
    for (i, (id, name, _)) in calls.iter().enumerate() {
        frames.push(Frame::Data(chunk(
            json!({"tool_calls": [{"index": i, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}]}),
            None,
        )));
    }
    let split: Vec<Vec<String>> = calls.iter().map(|(_, _, a)| pieces(a, 4)).collect();
    let longest = split.iter().map(Vec::len).max().unwrap_or(0);
    for k in 0..longest {
        for (i, parts) in split.iter().enumerate() {
            if let Some(p) = parts.get(k) {
                frames.push(Frame::Data(chunk(
                    json!({"tool_calls": [{"index": i, "function": {"arguments": p}}]}),
                    None,
                )));
            }
        }
    }
    frames.push(Frame::Data(chunk(json!({}), Some("tool_calls"))));
    frames.extend(usage_and_done(200, 30));
    Reply::Stream(frames)
}

/// llama.cpp dialect: the first delta packs id, name and the start of the arguments.
pub fn calls_llamacpp(calls: &[Call<'_>]) -> Reply {
    let mut frames = Vec::new();
    for (i, (id, name, args)) in calls.iter().enumerate() {
        let (head, tail) = args.split_at(1.min(args.len()));
        frames.push(Frame::Data(chunk(
            json!({"tool_calls": [{"index": i, "id": id, "type": "function", "function": {"name": name, "arguments": head}}]}),
            None,
        )));
        for p in pieces(tail, 6) {
            frames.push(Frame::Data(chunk(
                json!({"tool_calls": [{"index": i, "function": {"arguments": p}}]}),
                None,
            )));
        }
    }
    frames.push(Frame::Data(chunk(json!({}), Some("tool_calls"))));
    frames.push(Frame::Data("[DONE]".into()));
    Reply::Stream(frames)
}

/// Ollama dialect: whole calls in one chunk, no ids, no index, arguments as objects, no
/// usage chunk.
pub fn calls_ollama(calls: &[(&str, Value)]) -> Reply {
    let tool_calls: Vec<Value> = calls
        .iter()
        .map(|(name, args)| json!({"function": {"name": name, "arguments": args}}))
        .collect();
    Reply::Stream(vec![
        Frame::Data(chunk(
            json!({"role": "assistant", "content": "", "tool_calls": tool_calls}),
            None,
        )),
        Frame::Data(chunk(json!({}), Some("stop"))),
        Frame::Data("[DONE]".into()),
    ])
}

/// A local model writing its call into the text: prose, then `<tool_call>` markup split
/// across chunks.
pub fn calls_in_text(prose: &str, name: &str, args: Value) -> Reply {
    let text = format!(
        "{prose}<tool_call>\n{}\n</tool_call>",
        json!({"name": name, "arguments": args})
    );
    let mut frames = Vec::new();
    for p in pieces(&text, 9) {
        frames.push(Frame::Data(chunk(json!({"content": p}), None)));
    }
    frames.push(Frame::Data(chunk(json!({}), Some("stop"))));
    frames.push(Frame::Data("[DONE]".into()));
    Reply::Stream(frames)
}

/// A whole message that is a bare JSON object naming a tool.
pub fn call_as_bare_json(name: &str, args: Value) -> Reply {
    let text = json!({"name": name, "arguments": args}).to_string();
    let mut frames = Vec::new();
    for p in pieces(&text, 10) {
        frames.push(Frame::Data(chunk(json!({"content": p}), None)));
    }
    frames.push(Frame::Data(chunk(json!({}), Some("stop"))));
    frames.push(Frame::Data("[DONE]".into()));
    Reply::Stream(frames)
}

/// A text answer cut off after `keep` pieces (the connection is aborted).
pub fn cut_after(text: &str, keep: usize) -> Reply {
    let mut frames = Vec::new();
    for p in pieces(text, 5).into_iter().take(keep) {
        frames.push(Frame::Data(chunk(json!({"content": p}), None)));
    }
    frames.push(Frame::Delay(Duration::from_millis(50)));
    frames.push(Frame::Cut);
    Reply::Stream(frames)
}

/// An error status.
pub fn status(code: u16, message: &str, retry_after: Option<&str>) -> Reply {
    Reply::Status {
        code,
        body: json!({"error": {"message": message, "type": "scripted"}}).to_string(),
        retry_after: retry_after.map(str::to_string),
    }
}

/// The tool messages of a recorded request: (tool_call_id, content parsed as JSON).
pub fn tool_messages(request: &Value) -> Vec<(String, Value)> {
    request["messages"]
        .as_array()
        .map(|msgs| {
            msgs.iter()
                .filter(|m| m["role"] == "tool")
                .map(|m| {
                    (
                        m["tool_call_id"].as_str().unwrap_or("").to_string(),
                        serde_json::from_str(m["content"].as_str().unwrap_or("null"))
                            .unwrap_or(Value::Null),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `reply` reporting `prompt` and `completion` tokens instead of its usual figures.
pub fn with_usage(reply: Reply, prompt: u64, completion: u64) -> Reply {
    match reply {
        Reply::Stream(frames) => Reply::Stream(
            frames
                .into_iter()
                .flat_map(|f| match f {
                    Frame::Data(d) if d.contains("\"usage\"") => usage_and_done(prompt, completion)
                        .into_iter()
                        .take(1)
                        .collect(),
                    other => vec![other],
                })
                .collect(),
        ),
        other => other,
    }
}

/// `reply` without its usage chunk, as from a server that reports none.
pub fn without_usage(reply: Reply) -> Reply {
    match reply {
        Reply::Stream(frames) => Reply::Stream(
            frames
                .into_iter()
                .filter(|f| !matches!(f, Frame::Data(d) if d.contains("\"usage\"")))
                .collect(),
        ),
        other => other,
    }
}
