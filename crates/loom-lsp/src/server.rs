//! A started server seen as documents: the handshake, keeping each document's text in
//! step (`didOpen` the first time, a whole-text `didChange` after), and getting a
//! document's diagnostics for the text it now has — pulled (`textDocument/diagnostic`)
//! where the server offers that, else the next `publishDiagnostics` for that version.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use lsp_types::{
    ClientCapabilities, ClientInfo, Diagnostic, DiagnosticClientCapabilities, InitializeParams,
    PublishDiagnosticsClientCapabilities, TextDocumentClientCapabilities,
    TextDocumentSyncClientCapabilities, WindowClientCapabilities, WorkspaceClientCapabilities,
    WorkspaceFolder,
};
use serde_json::{Value, json};
use tokio::time::Instant;

use crate::client::{Client, uri_of};
use crate::spec::{ServerSpec, language_id};

/// How long to wait for a further publication after one without a version, for servers
/// that publish a document's diagnostics in parts (syntax first, then types).
const SETTLE: Duration = Duration::from_millis(150);

/// Why a document's diagnostics could not be had.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unavailable {
    /// The wait ran out.
    #[error("no answer within {0:?}")]
    TimedOut(Duration),
    /// The server is gone or refused.
    #[error("{0}")]
    Failed(String),
}

/// A server after its handshake, with the documents it was given.
pub struct Server {
    /// The process and its messages.
    pub client: Arc<Client>,
    pull: bool,
    docs: tokio::sync::Mutex<HashMap<String, (i32, String)>>,
}

impl Server {
    /// Complete the handshake with a started `client` (the caller bounds the wait).
    pub async fn initialize(client: Arc<Client>, spec: &ServerSpec) -> Result<Server, String> {
        let root = client.root().to_path_buf();
        let folder = uri_of(&root).ok_or("the root has no file URI")?;
        #[allow(deprecated)]
        let params = InitializeParams {
            // No process id: servers run in a PID namespace of their own, where Loom's pid
            // names no process (or another one), and a server that watches it would exit.
            // Loom ends its servers itself.
            process_id: None,
            root_uri: Some(folder.clone()),
            initialization_options: spec.initialization_options.clone(),
            capabilities: capabilities(),
            workspace_folders: Some(vec![WorkspaceFolder {
                uri: folder,
                name: root
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            }]),
            client_info: Some(ClientInfo {
                name: "loom".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            ..InitializeParams::default()
        };
        let params = serde_json::to_value(params).map_err(|e| e.to_string())?;
        let result = client.request("initialize", params).await?;
        let provider = &result["capabilities"]["diagnosticProvider"];
        let pull = !provider.is_null() && provider != &Value::Bool(false);
        client.notify("initialized", json!({})).await?;
        Ok(Server {
            client,
            pull,
            docs: tokio::sync::Mutex::new(HashMap::new()),
        })
    }

    /// Give the server `text` as the content of `path` (opening it the first time);
    /// returns the version sent, or `None` when the server already has that text.
    pub async fn sync(&self, path: &Path, text: &str) -> Result<Option<i32>, String> {
        let uri = uri_of(path).ok_or("the path has no file URI")?;
        let mut docs = self.docs.lock().await;
        let params;
        let version = match docs.get(uri.as_str()) {
            Some((_, old)) if old == text => return Ok(None),
            Some((v, _)) => {
                let version = v + 1;
                params = json!({
                    "textDocument": {"uri": uri.as_str(), "version": version},
                    "contentChanges": [{"text": text}],
                });
                self.client.notify("textDocument/didChange", params).await?;
                version
            }
            None => {
                params = json!({"textDocument": {
                    "uri": uri.as_str(),
                    "languageId": language_id(path),
                    "version": 1,
                    "text": text,
                }});
                self.client.notify("textDocument/didOpen", params).await?;
                1
            }
        };
        docs.insert(uri.as_str().to_string(), (version, text.to_string()));
        Ok(Some(version))
    }

    /// Close `path` (it was deleted).
    pub async fn close(&self, path: &Path) {
        let Some(uri) = uri_of(path) else { return };
        if self.docs.lock().await.remove(uri.as_str()).is_some() {
            let params = json!({"textDocument": {"uri": uri.as_str()}});
            let _ = self.client.notify("textDocument/didClose", params).await;
        }
    }

    /// The diagnostics of `path` for the text last synced, by `deadline`. `seq_before` is
    /// the publication count before that sync (see [`Server::seq`]).
    pub async fn diagnostics(
        &self,
        path: &Path,
        seq_before: u64,
        deadline: Instant,
    ) -> Result<Vec<Diagnostic>, Unavailable> {
        let uri = uri_of(path).ok_or_else(|| Unavailable::Failed("no file URI".into()))?;
        let version = self.docs.lock().await.get(uri.as_str()).map(|(v, _)| *v);
        let wait = deadline.saturating_duration_since(Instant::now());
        let work = async {
            if self.pull || self.client.pull_registered() {
                self.pulled(uri.as_str()).await
            } else {
                Ok(self
                    .pushed(uri.as_str(), version, seq_before, deadline)
                    .await)
            }
        };
        match tokio::time::timeout_at(deadline, work).await {
            Ok(r) => r,
            Err(_) => Err(Unavailable::TimedOut(wait)),
        }
    }

    /// How many publications `path` has had so far.
    pub fn seq(&self, path: &Path) -> u64 {
        uri_of(path)
            .and_then(|u| self.client.store.get(u.as_str()))
            .map_or(0, |p| p.seq)
    }

    async fn pulled(&self, uri: &str) -> Result<Vec<Diagnostic>, Unavailable> {
        let params = json!({"textDocument": {"uri": uri}});
        let result = self
            .client
            .request("textDocument/diagnostic", params)
            .await
            .map_err(Unavailable::Failed)?;
        let items = match result["kind"].as_str() {
            Some("unchanged") => {
                return Ok(self
                    .client
                    .store
                    .get(uri)
                    .map(|p| p.diagnostics)
                    .unwrap_or_default());
            }
            _ => result["items"].clone(),
        };
        let diags: Vec<Diagnostic> = serde_json::from_value(items)
            .map_err(|e| Unavailable::Failed(format!("a malformed diagnostic report: {e}")))?;
        self.client.store.put(uri, None, diags.clone());
        Ok(diags)
    }

    /// Wait for a publication after `seq_before` for `version`, or one without a version
    /// and then any further part within [`SETTLE`].
    async fn pushed(
        &self,
        uri: &str,
        version: Option<i32>,
        seq_before: u64,
        deadline: Instant,
    ) -> Vec<Diagnostic> {
        let mut changes = self.client.store.subscribe();
        let fits = |p: &crate::client::Published| {
            p.seq > seq_before && (p.version.is_none() || p.version == version)
        };
        loop {
            if let Some(p) = self.client.store.get(uri).filter(|p| fits(p)) {
                if p.version.is_some() {
                    // A publication for this very version is that version's whole set.
                    return p.diagnostics;
                }
                let settle = (Instant::now() + SETTLE).min(deadline);
                let mut latest = p;
                while let Ok(Ok(())) = tokio::time::timeout_at(settle, changes.changed()).await {
                    if let Some(p) = self.client.store.get(uri).filter(|p| fits(p)) {
                        latest = p;
                    }
                }
                return latest.diagnostics;
            }
            if changes.changed().await.is_err() {
                return Vec::new();
            }
        }
    }
}

/// What Loom tells servers it can do: keep documents in sync, take versioned published
/// diagnostics and pull them, and answer configuration and folder requests.
fn capabilities() -> ClientCapabilities {
    ClientCapabilities {
        workspace: Some(WorkspaceClientCapabilities {
            configuration: Some(true),
            workspace_folders: Some(true),
            ..WorkspaceClientCapabilities::default()
        }),
        text_document: Some(TextDocumentClientCapabilities {
            synchronization: Some(TextDocumentSyncClientCapabilities {
                dynamic_registration: Some(false),
                ..TextDocumentSyncClientCapabilities::default()
            }),
            publish_diagnostics: Some(PublishDiagnosticsClientCapabilities {
                version_support: Some(true),
                ..PublishDiagnosticsClientCapabilities::default()
            }),
            // Not dynamic: a server that registers pull diagnostics at run time (pyright)
            // may do so only after the first document was opened, and then pushes nothing
            // for it; offered statically or not at all, it pushes until told otherwise.
            diagnostic: Some(DiagnosticClientCapabilities {
                dynamic_registration: Some(false),
                related_document_support: Some(false),
            }),
            ..TextDocumentClientCapabilities::default()
        }),
        window: Some(WindowClientCapabilities {
            work_done_progress: Some(false),
            ..WindowClientCapabilities::default()
        }),
        ..ClientCapabilities::default()
    }
}
