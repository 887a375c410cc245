//! One running language server: its process (contained like a command: the sandbox's
//! isolation, its own process group, reaped with Loom), the JSON-RPC exchange over its
//! stdio, and what it published. Requests are answered by id; the server's own requests
//! (configuration, capability registration, progress) get the minimal answers a client
//! that edits nothing owes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use lsp_types::{Diagnostic, PublishDiagnosticsParams, Uri};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use serde_json::{Value, json};
use tokio::io::BufReader;
use tokio::process::{ChildStdin, Command};
use tokio::sync::{oneshot, watch};

use crate::framing::{read_message, write_message};
use crate::spec::ServerSpec;
use loom_sandbox::SandboxSpec;
use loom_sandbox::env::EnvPolicy;

type Pending = Arc<Mutex<HashMap<i64, oneshot::Sender<Result<Value, String>>>>>;

/// What a server last published for one document.
#[derive(Debug, Clone, Default)]
pub struct Published {
    /// The document version it is for, if the server said.
    pub version: Option<i32>,
    /// Counts publications for this document (to wait for the next one).
    pub seq: u64,
    /// The diagnostics.
    pub diagnostics: Vec<Diagnostic>,
}

/// The diagnostics a server published, by document URI, and a signal on each publication.
#[derive(Debug)]
pub struct Store {
    by_uri: Mutex<HashMap<String, Published>>,
    changed: watch::Sender<u64>,
}

impl Store {
    fn new() -> Store {
        Store {
            by_uri: Mutex::new(HashMap::new()),
            changed: watch::channel(0).0,
        }
    }

    /// What was last published for `uri`.
    pub fn get(&self, uri: &str) -> Option<Published> {
        self.by_uri.lock().ok()?.get(uri).cloned()
    }

    /// Every document's last publication.
    pub fn all(&self) -> Vec<(String, Published)> {
        self.by_uri
            .lock()
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default()
    }

    /// Record `diagnostics` for `uri` (from a push or a pull).
    pub fn put(&self, uri: &str, version: Option<i32>, diagnostics: Vec<Diagnostic>) {
        if let Ok(mut map) = self.by_uri.lock() {
            let entry = map.entry(uri.to_string()).or_default();
            entry.version = version;
            entry.seq += 1;
            entry.diagnostics = diagnostics;
        }
        self.changed.send_modify(|n| *n += 1);
    }

    /// A receiver that wakes on every publication.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }
}

/// A running server. Dropping it kills its process group.
pub struct Client {
    stdin: tokio::sync::Mutex<ChildStdin>,
    next_id: AtomicI64,
    pending: Pending,
    /// What the server published.
    pub store: Arc<Store>,
    alive: Arc<AtomicBool>,
    /// Set when the server registers pull diagnostics at run time.
    pull_registered: Arc<AtomicBool>,
    group: u32,
    root: PathBuf,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("group", &self.group)
            .finish()
    }
}

/// The file URI of `path`.
pub fn uri_of(path: &Path) -> Option<Uri> {
    let url = url::Url::from_file_path(path).ok()?;
    url.as_str().parse().ok()
}

/// The path of a file URI.
pub fn path_of(uri: &str) -> Option<PathBuf> {
    url::Url::parse(uri).ok()?.to_file_path().ok()
}

impl Client {
    /// Start `spec`'s program in `root`, contained by `sandbox`, with the allowlisted
    /// environment of `env` and the spec's own variables. `on_exit` runs when its output
    /// ends (it exited or crashed).
    pub fn spawn(
        spec: &ServerSpec,
        root: &Path,
        sandbox: &SandboxSpec,
        env: &EnvPolicy,
        on_exit: impl FnOnce() + Send + 'static,
    ) -> Result<Arc<Client>, String> {
        let mut vars = env.filter(std::env::vars_os());
        for (k, v) in &spec.env {
            vars.retain(|(name, _)| name != k);
            vars.push((k.clone(), v.clone()));
        }
        let mut cmd = Command::new(&spec.command);
        cmd.args(&spec.args)
            .current_dir(root)
            .env_clear()
            .envs(vars)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .kill_on_drop(true);
        sandbox.install(&mut cmd).map_err(|e| e.to_string())?;
        let mut child = loom_sandbox::reaper::spawn_kept(&mut cmd).map_err(|e| {
            let hint = if e.kind() == std::io::ErrorKind::NotFound {
                " (is it installed and on PATH?)"
            } else {
                ""
            };
            format!("cannot start `{}`: {e}{hint}", spec.command)
        })?;
        let group = child.id().unwrap_or(0);
        let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
            return Err("its stdin or stdout could not be connected".into());
        };
        let client = Arc::new(Client {
            stdin: tokio::sync::Mutex::new(stdin),
            next_id: AtomicI64::new(1),
            pending: Arc::default(),
            store: Arc::new(Store::new()),
            alive: Arc::new(AtomicBool::new(true)),
            pull_registered: Arc::new(AtomicBool::new(false)),
            group,
            root: root.to_path_buf(),
        });
        let reader = Reader {
            pending: client.pending.clone(),
            store: client.store.clone(),
            alive: client.alive.clone(),
            pull_registered: client.pull_registered.clone(),
        };
        let weak = Arc::downgrade(&client);
        tokio::spawn(async move {
            reader.run(BufReader::new(stdout), weak).await;
            // The process is waited for so it does not stay a zombie.
            let _ = child.wait().await;
            on_exit();
        });
        Ok(client)
    }

    /// Whether the server's output is still open.
    pub fn is_alive(&self) -> bool {
        self.alive.load(Ordering::SeqCst)
    }

    /// Whether the server registered pull diagnostics at run time.
    pub fn pull_registered(&self) -> bool {
        self.pull_registered.load(Ordering::SeqCst)
    }

    /// The server's process group.
    pub fn group(&self) -> u32 {
        self.group
    }

    /// The directory the server was started in.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Send a request and wait for its answer (the caller bounds the wait).
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, String> {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let (tx, rx) = oneshot::channel();
        if let Ok(mut p) = self.pending.lock() {
            p.insert(id, tx);
        }
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        if let Err(e) = self.send(&message).await {
            if let Ok(mut p) = self.pending.lock() {
                p.remove(&id);
            }
            return Err(e);
        }
        rx.await
            .unwrap_or_else(|_| Err("the server exited before it answered".into()))
    }

    /// Send a notification.
    pub async fn notify(&self, method: &str, params: Value) -> Result<(), String> {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await
    }

    async fn send(&self, message: &Value) -> Result<(), String> {
        if !self.is_alive() {
            return Err("the server has exited".into());
        }
        let mut stdin = self.stdin.lock().await;
        write_message(&mut *stdin, message)
            .await
            .map_err(|e| format!("writing to the server failed: {e}"))
    }

    async fn reply(&self, id: Value, result: Result<Value, (i64, &str)>) {
        let message = match result {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err((code, text)) => {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": text}})
            }
        };
        let _ = self.send(&message).await;
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        if self.group == 0 {
            return;
        }
        loom_sandbox::reaper::kill_descendants(self.group as i32);
        let _ = killpg(Pid::from_raw(self.group as i32), Signal::SIGKILL);
        loom_sandbox::reaper::release(self.group);
    }
}

/// The task that reads the server's messages.
struct Reader {
    pending: Pending,
    store: Arc<Store>,
    alive: Arc<AtomicBool>,
    pull_registered: Arc<AtomicBool>,
}

impl Reader {
    async fn run<R>(self, mut out: BufReader<R>, client: std::sync::Weak<Client>)
    where
        R: tokio::io::AsyncRead + Unpin,
    {
        // The server's requests are answered by a task of their own, so a slow write to
        // the server never stops this loop from reading.
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(Value, Value)>();
        let replier = tokio::spawn({
            let client = client.clone();
            async move {
                while let Some((id, request)) = rx.recv().await {
                    let Some(c) = client.upgrade() else { return };
                    let method = request["method"].as_str().unwrap_or("");
                    c.reply(id, answer(method, &request["params"], &c.root))
                        .await;
                }
            }
        });
        while let Ok(message) = read_message(&mut out).await {
            let method = message.get("method").and_then(Value::as_str);
            match (message.get("id"), method) {
                (Some(id), Some(method)) => {
                    if method == "client/registerCapability" && registers_pull(&message["params"]) {
                        self.pull_registered.store(true, Ordering::SeqCst);
                    }
                    let _ = tx.send((id.clone(), message));
                }
                (None, Some("textDocument/publishDiagnostics")) => {
                    if let Ok(p) = serde_json::from_value::<PublishDiagnosticsParams>(
                        message["params"].clone(),
                    ) {
                        self.store.put(p.uri.as_str(), p.version, p.diagnostics);
                    }
                }
                (Some(id), None) => self.answered(id, &message),
                _ => {}
            }
        }
        self.alive.store(false, Ordering::SeqCst);
        replier.abort();
        if let Ok(mut p) = self.pending.lock() {
            p.clear();
        }
    }

    fn answered(&self, id: &Value, message: &Value) {
        let Some(id) = id.as_i64() else { return };
        let Some(tx) = self.pending.lock().ok().and_then(|mut p| p.remove(&id)) else {
            return;
        };
        let result = match message.get("error") {
            Some(e) => Err(e["message"].as_str().unwrap_or("an error").to_string()),
            None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
        };
        let _ = tx.send(result);
    }
}

/// Whether a `client/registerCapability` request registers pull diagnostics.
fn registers_pull(params: &Value) -> bool {
    params["registrations"]
        .as_array()
        .is_some_and(|r| r.iter().any(|r| r["method"] == "textDocument/diagnostic"))
}

/// The answer to a request from the server.
fn answer(method: &str, params: &Value, root: &Path) -> Result<Value, (i64, &'static str)> {
    match method {
        "workspace/configuration" => {
            let n = params["items"].as_array().map_or(0, Vec::len);
            Ok(Value::Array(vec![Value::Null; n]))
        }
        "workspace/workspaceFolders" => Ok(json!([{
            "uri": uri_of(root).map(|u| u.as_str().to_string()),
            "name": root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        }])),
        "client/registerCapability"
        | "client/unregisterCapability"
        | "window/workDoneProgress/create"
        | "window/showMessageRequest"
        | "workspace/diagnostic/refresh"
        | "workspace/semanticTokens/refresh"
        | "workspace/inlayHint/refresh"
        | "workspace/codeLens/refresh" => Ok(Value::Null),
        _ => Err((-32601, "not supported by Loom")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_s_requests_get_minimal_answers() {
        let root = Path::new("/w/proj");
        let items = json!({"items": [{"section": "python"}, {"section": "python.analysis"}]});
        assert_eq!(
            answer("workspace/configuration", &items, root),
            Ok(json!([null, null]))
        );
        assert_eq!(
            answer("workspace/workspaceFolders", &Value::Null, root),
            Ok(json!([{"uri": "file:///w/proj", "name": "proj"}]))
        );
        assert_eq!(
            answer("window/workDoneProgress/create", &Value::Null, root),
            Ok(Value::Null)
        );
        assert!(answer("workspace/applyEdit", &Value::Null, root).is_err());
        assert!(registers_pull(
            &json!({"registrations": [{"id": "1", "method": "textDocument/diagnostic"}]})
        ));
    }

    #[test]
    fn uris_round_trip_paths_with_spaces() {
        let p = Path::new("/tmp/a dir/x.py");
        let uri = uri_of(p).unwrap();
        assert_eq!(uri.as_str(), "file:///tmp/a%20dir/x.py");
        assert_eq!(path_of(uri.as_str()).unwrap(), p);
    }
}
