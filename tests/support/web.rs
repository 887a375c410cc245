//! A scripted web server on 127.0.0.1 (random port) for the web tools' tests: each path
//! answers its queue of replies in order (the last one repeats), every request is recorded
//! (method, path and query, headers, body), and a reply can echo the request back or
//! stream a large body without holding it in memory.

#![allow(dead_code)]

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use serde_json::json;

/// What a reply's body is.
#[derive(Debug, Clone)]
pub enum WebBody {
    /// These bytes.
    Bytes(Vec<u8>),
    /// `chunk` repeated until `total` bytes were sent (streamed).
    Repeat {
        /// One chunk.
        chunk: Vec<u8>,
        /// Bytes in all.
        total: usize,
    },
    /// A JSON echo of the request: method, uri, headers, body.
    Echo,
}

/// One scripted reply.
#[derive(Debug, Clone)]
pub struct WebReply {
    /// Status code.
    pub status: u16,
    /// Extra headers.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: WebBody,
}

impl WebReply {
    /// A 200 with this content type and body.
    pub fn ok(content_type: &str, body: impl Into<Vec<u8>>) -> WebReply {
        WebReply {
            status: 200,
            headers: vec![("content-type".into(), content_type.into())],
            body: WebBody::Bytes(body.into()),
        }
    }

    /// A JSON 200.
    pub fn json(value: serde_json::Value) -> WebReply {
        WebReply::ok("application/json", value.to_string())
    }

    /// An error status (with an optional Retry-After).
    pub fn status(code: u16, retry_after: Option<&str>) -> WebReply {
        WebReply {
            status: code,
            headers: retry_after
                .map(|r| vec![("retry-after".to_string(), r.to_string())])
                .unwrap_or_default(),
            body: WebBody::Bytes(format!("status {code}").into_bytes()),
        }
    }

    /// A redirect to `location`.
    pub fn redirect(code: u16, location: &str) -> WebReply {
        WebReply {
            status: code,
            headers: vec![("location".into(), location.into())],
            body: WebBody::Bytes(Vec::new()),
        }
    }

    /// Add a header.
    pub fn with_header(mut self, name: &str, value: &str) -> WebReply {
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// A recorded request.
#[derive(Debug, Clone)]
pub struct Seen {
    /// Method.
    pub method: String,
    /// Path and query.
    pub uri: String,
    /// Headers.
    pub headers: HeaderMap,
    /// Body.
    pub body: Vec<u8>,
}

#[derive(Default)]
struct Routes {
    replies: HashMap<String, VecDeque<WebReply>>,
    seen: Vec<Seen>,
}

/// A running scripted web server.
pub struct WebServer {
    /// Where it listens.
    pub addr: SocketAddr,
    routes: Arc<Mutex<Routes>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for WebServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl WebServer {
    /// Start on 127.0.0.1, a random port.
    pub async fn start() -> WebServer {
        let routes = Arc::new(Mutex::new(Routes::default()));
        let app = Router::new().fallback(handle).with_state(routes.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        WebServer { addr, routes, task }
    }

    /// Answer `path` with these replies in order (the last repeats).
    pub fn route(&self, path: &str, replies: Vec<WebReply>) {
        self.routes
            .lock()
            .unwrap()
            .replies
            .insert(path.to_string(), replies.into());
    }

    /// `http://127.0.0.1:PORT{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// The `allow_private` entry for this server.
    pub fn allow_entry(&self) -> String {
        self.addr.to_string()
    }

    /// Requests seen so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.routes.lock().unwrap().seen.clone()
    }
}

async fn handle(State(routes): State<Arc<Mutex<Routes>>>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let body = axum::body::to_bytes(body, 16 << 20)
        .await
        .map(|b| b.to_vec())
        .unwrap_or_default();
    let seen = Seen {
        method: parts.method.to_string(),
        uri: parts.uri.to_string(),
        headers: parts.headers.clone(),
        body,
    };
    let reply = {
        let mut r = routes.lock().unwrap();
        r.seen.push(seen.clone());
        let queue = r.replies.get_mut(parts.uri.path());
        match queue {
            Some(q) if q.len() > 1 => q.pop_front(),
            Some(q) => q.front().cloned(),
            None => None,
        }
    };
    let Some(reply) = reply else {
        return Response::builder()
            .status(404)
            .body(Body::from("no such route"))
            .unwrap();
    };
    let mut resp = match reply.body {
        WebBody::Bytes(b) => Response::new(Body::from(b)),
        WebBody::Echo => {
            let headers: serde_json::Map<String, serde_json::Value> = seen
                .headers
                .iter()
                .map(|(k, v)| (k.to_string(), json!(String::from_utf8_lossy(v.as_bytes()))))
                .collect();
            let echo = json!({
                "method": seen.method,
                "uri": seen.uri,
                "headers": headers,
                "body": String::from_utf8_lossy(&seen.body),
            });
            let mut r = Response::new(Body::from(echo.to_string()));
            r.headers_mut()
                .insert("content-type", HeaderValue::from_static("application/json"));
            r
        }
        WebBody::Repeat { chunk, total } => {
            let chunk = Bytes::from(chunk);
            let n = total.div_ceil(chunk.len().max(1));
            let stream =
                futures::stream::iter((0..n).map(move |_| Ok::<_, std::io::Error>(chunk.clone())));
            Response::new(Body::from_stream(stream))
        }
    };
    *resp.status_mut() = StatusCode::from_u16(reply.status).unwrap();
    for (k, v) in reply.headers {
        resp.headers_mut().insert(
            HeaderName::from_bytes(k.as_bytes()).unwrap(),
            HeaderValue::from_str(&v).unwrap(),
        );
    }
    resp
}
