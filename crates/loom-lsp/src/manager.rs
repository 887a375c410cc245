//! The language servers of one workspace: each started on first need (per server and
//! project root) in the background, waited for at most the configured bound, started
//! again after it exits, and asked for the diagnostics an edit introduced.
//!
//! Nothing here fails an edit: every way a server can be missing, slow or gone becomes
//! one line, "diagnostics unavailable: …".

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

use crate::client::{Client, path_of};
use crate::diag::{Diag, FileReport, Severity, introduced, render};
use crate::server::{Server, Unavailable};
use crate::spec::ServerSpec;
use loom_protocol::lsp::{LspServerStatus, LspState};
use loom_sandbox::SandboxSpec;
use loom_sandbox::env::EnvPolicy;

/// Restarts of one server after it exited, before Loom stops starting it.
pub const MAX_RESTARTS: u32 = 5;
/// How long a server may take to answer its `initialize` before it counts as failed.
const INIT_LIMIT: Duration = Duration::from_secs(120);

/// How the servers of a workspace are found, started and waited for.
#[derive(Debug, Clone)]
pub struct LspSettings {
    /// The servers, in order of preference (the first serving a file is used).
    pub servers: Vec<ServerSpec>,
    /// The most an edit or a `diagnostics` call waits for a server.
    pub wait: Duration,
    /// The workspace root.
    pub workspace: PathBuf,
    /// How servers are contained (the command sandbox).
    pub sandbox: SandboxSpec,
    /// Which of Loom's variables servers get.
    pub env: EnvPolicy,
}

/// One file an edit wrote: its text before (`None`: created) and after (`None`: deleted).
#[derive(Debug, Clone)]
pub struct Written {
    /// The absolute path.
    pub path: PathBuf,
    /// Its text before the edit.
    pub old: Option<String>,
    /// Its text after the edit.
    pub new: Option<String>,
}

#[derive(Clone)]
enum Phase {
    Starting,
    Ready(Arc<Server>),
    Exited(String),
    Failed(String),
}

struct Slot {
    spec: ServerSpec,
    root: PathBuf,
    phase: watch::Sender<Phase>,
    generation: AtomicU64,
    restarts: AtomicU32,
    /// The handshake under way, aborted when the slot is dropped.
    handshake: Mutex<Option<tokio::task::AbortHandle>>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Ok(mut h) = self.handshake.lock()
            && let Some(task) = h.take()
        {
            task.abort();
        }
    }
}

struct Inner {
    settings: LspSettings,
    slots: Mutex<Vec<Arc<Slot>>>,
    changed: watch::Sender<u64>,
}

/// The language servers of a workspace (cheap to clone; servers end when the last clone
/// is dropped).
#[derive(Clone)]
pub struct Lsp {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Lsp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lsp")
            .field("servers", &self.inner.settings.servers.len())
            .finish()
    }
}

impl Lsp {
    /// Servers for `settings`; none is started until a file needs it.
    pub fn new(settings: LspSettings) -> Lsp {
        Lsp {
            inner: Arc::new(Inner {
                settings,
                slots: Mutex::new(Vec::new()),
                changed: watch::channel(0).0,
            }),
        }
    }

    /// The most an edit waits for diagnostics.
    pub fn wait(&self) -> Duration {
        self.inner.settings.wait
    }

    /// A receiver that wakes when [`Lsp::status`] may have changed.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.inner.changed.subscribe()
    }

    /// Every server started so far, with its state and diagnostic counts.
    pub fn status(&self) -> Vec<LspServerStatus> {
        let slots = self
            .inner
            .slots
            .lock()
            .map(|s| s.clone())
            .unwrap_or_default();
        slots.iter().map(|s| self.slot_status(s)).collect()
    }

    fn slot_status(&self, slot: &Slot) -> LspServerStatus {
        let (mut errors, mut warnings) = (0, 0);
        let (state, mut detail) = match &*slot.phase.borrow() {
            Phase::Starting => (LspState::Starting, String::new()),
            Phase::Ready(server) => {
                for (_, p) in server.client.store.all() {
                    for d in p.diagnostics.iter().filter_map(Diag::from_lsp) {
                        match d.severity {
                            Severity::Error => errors += 1,
                            Severity::Warning => warnings += 1,
                        }
                    }
                }
                (LspState::Ready, String::new())
            }
            Phase::Exited(why) => (LspState::Exited, why.clone()),
            Phase::Failed(why) => (LspState::Failed, why.clone()),
        };
        let restarts = slot.restarts.load(Ordering::SeqCst);
        if restarts > 0 && detail.is_empty() {
            detail = format!("restarted {restarts}×");
        }
        let root = slot
            .root
            .strip_prefix(&self.inner.settings.workspace)
            .ok()
            .filter(|r| !r.as_os_str().is_empty())
            .map_or_else(|| ".".to_string(), |r| r.display().to_string());
        LspServerStatus {
            name: slot.spec.name.clone(),
            root,
            state,
            detail,
            errors,
            warnings,
        }
    }

    /// The process groups of the running servers, for whoever must end or watch them.
    pub fn process_groups(&self) -> Vec<u32> {
        let slots = self
            .inner
            .slots
            .lock()
            .map(|s| s.clone())
            .unwrap_or_default();
        slots
            .iter()
            .filter_map(|s| match &*s.phase.borrow() {
                Phase::Ready(server) => Some(server.client.group()),
                _ => None,
            })
            .collect()
    }

    /// The server serving `path`, if one is configured for it.
    fn spec_for(&self, path: &Path) -> Option<&ServerSpec> {
        let ws = &self.inner.settings.workspace;
        let relative = path.strip_prefix(ws).unwrap_or(path);
        self.inner
            .settings
            .servers
            .iter()
            .find(|s| s.serves(path, relative))
    }

    /// The workspace-relative form of `path`, as shown.
    fn shown(&self, path: &Path) -> String {
        path.strip_prefix(&self.inner.settings.workspace)
            .unwrap_or(path)
            .display()
            .to_string()
    }

    /// Start the server for `path` in the background if it is not running.
    pub fn warm(&self, path: &Path) {
        if let Some(spec) = self.spec_for(path) {
            self.slot(spec, path);
        }
    }

    /// The slot for `spec` at `path`'s root, started (or restarted) when needed.
    fn slot(&self, spec: &ServerSpec, path: &Path) -> Arc<Slot> {
        let root = spec.root_for(path, &self.inner.settings.workspace);
        let mut slots = match self.inner.slots.lock() {
            Ok(s) => s,
            Err(p) => p.into_inner(),
        };
        if let Some(slot) = slots
            .iter()
            .find(|s| s.spec.name == spec.name && s.root == root)
        {
            let slot = slot.clone();
            drop(slots);
            self.restart_if_exited(&slot);
            return slot;
        }
        let slot = Arc::new(Slot {
            spec: spec.clone(),
            root,
            phase: watch::channel(Phase::Starting).0,
            generation: AtomicU64::new(0),
            restarts: AtomicU32::new(0),
            handshake: Mutex::new(None),
        });
        slots.push(slot.clone());
        drop(slots);
        self.start(&slot);
        slot
    }

    fn restart_if_exited(&self, slot: &Arc<Slot>) {
        let exited = match &*slot.phase.borrow() {
            Phase::Exited(_) => true,
            Phase::Ready(server) => !server.client.is_alive(),
            _ => false,
        };
        if exited && slot.restarts.load(Ordering::SeqCst) < MAX_RESTARTS {
            slot.restarts.fetch_add(1, Ordering::SeqCst);
            self.start(slot);
        }
    }

    /// Start `slot`'s server in the background.
    fn start(&self, slot: &Arc<Slot>) {
        let generation = slot.generation.fetch_add(1, Ordering::SeqCst) + 1;
        slot.phase.send_replace(Phase::Starting);
        self.bump();
        let settings = &self.inner.settings;
        let exited = {
            let (slot, lsp) = (Arc::downgrade(slot), Arc::downgrade(&self.inner));
            move || {
                let (Some(slot), Some(inner)) = (slot.upgrade(), lsp.upgrade()) else {
                    return;
                };
                if slot.generation.load(Ordering::SeqCst) == generation {
                    slot.phase
                        .send_replace(Phase::Exited("the server exited".into()));
                    inner.changed.send_modify(|n| *n += 1);
                }
            }
        };
        let client = Client::spawn(
            &slot.spec,
            &slot.root,
            &settings.sandbox,
            &settings.env,
            exited,
        );
        let client = match client {
            Ok(c) => c,
            Err(e) => {
                slot.phase.send_replace(Phase::Failed(e));
                self.bump();
                return;
            }
        };
        let spec = slot.spec.clone();
        let (weak_slot, weak_lsp) = (Arc::downgrade(slot), Arc::downgrade(&self.inner));
        let task = tokio::spawn(async move {
            let init = Server::initialize(client, &spec);
            let phase = match tokio::time::timeout(INIT_LIMIT, init).await {
                Ok(Ok(server)) => Phase::Ready(Arc::new(server)),
                Ok(Err(e)) => Phase::Exited(format!("its handshake failed: {e}")),
                Err(_) => Phase::Failed(format!(
                    "it did not answer `initialize` within {INIT_LIMIT:?}"
                )),
            };
            let (Some(slot), Some(inner)) = (weak_slot.upgrade(), weak_lsp.upgrade()) else {
                return;
            };
            if slot.generation.load(Ordering::SeqCst) == generation {
                slot.phase.send_replace(phase);
                inner.changed.send_modify(|n| *n += 1);
            }
        });
        // The handshake holds the server: when the slot goes (the session ended), the
        // handshake is dropped with it, and so is the server's process group.
        if let Ok(mut handshake) = slot.handshake.lock()
            && let Some(old) = handshake.replace(task.abort_handle())
        {
            old.abort();
        }
    }

    fn bump(&self) {
        self.inner.changed.send_modify(|n| *n += 1);
    }

    /// The ready server of `slot`, waiting until `deadline`; else why not, in words.
    async fn ready(&self, slot: &Arc<Slot>, deadline: Instant) -> Result<Arc<Server>, String> {
        let mut phase = slot.phase.subscribe();
        loop {
            let current = phase.borrow_and_update().clone();
            match current {
                Phase::Ready(server) if server.client.is_alive() => return Ok(server),
                Phase::Ready(_) | Phase::Exited(_) => {
                    if slot.restarts.load(Ordering::SeqCst) >= MAX_RESTARTS {
                        return Err(format!(
                            "exited {MAX_RESTARTS} times; Loom no longer starts it"
                        ));
                    }
                    self.restart_if_exited(slot);
                }
                Phase::Failed(why) => return Err(why),
                Phase::Starting => match tokio::time::timeout_at(deadline, phase.changed()).await {
                    Ok(Ok(())) => {}
                    _ => return Err("starting".into()),
                },
            }
        }
    }

    /// The diagnostics `written` introduced, as text for the tool result; `None` when no
    /// server serves any of the files.
    pub async fn check_edit(&self, written: &[Written]) -> Option<String> {
        let deadline = Instant::now() + self.inner.settings.wait;
        let mut groups: Vec<(Arc<Slot>, Vec<&Written>)> = Vec::new();
        for w in written {
            let Some(spec) = self.spec_for(&w.path) else {
                continue;
            };
            let slot = self.slot(spec, &w.path);
            match groups.iter_mut().find(|(s, _)| Arc::ptr_eq(s, &slot)) {
                Some((_, files)) => files.push(w),
                None => groups.push((slot, vec![w])),
            }
        }
        if groups.is_empty() {
            return None;
        }
        let mut parts = Vec::new();
        for (slot, files) in groups {
            let name = slot.spec.name.clone();
            let part = match self.ready(&slot, deadline).await {
                Ok(server) => self.introduced(&server, &files, deadline).await,
                Err(why) => Err(why),
            };
            parts.push(
                part.unwrap_or_else(|why| format!("diagnostics unavailable: {why} ({name})")),
            );
        }
        self.bump();
        Some(parts.join("\n"))
    }

    async fn introduced(
        &self,
        server: &Server,
        files: &[&Written],
        deadline: Instant,
    ) -> Result<String, String> {
        let name = files
            .first()
            .and_then(|f| self.spec_for(&f.path))
            .map(|s| s.name.clone())
            .unwrap_or_default();
        let mut reports = Vec::new();
        for w in files {
            let Some(new) = &w.new else {
                server.close(&w.path).await;
                continue;
            };
            let before = match &w.old {
                Some(old) => self.current(server, &w.path, old, deadline).await?,
                None => Vec::new(),
            };
            let after = self.current(server, &w.path, new, deadline).await?;
            let new_diags = introduced(&before, &after);
            let errors = |v: &[Diag]| v.iter().filter(|d| d.severity == Severity::Error).count();
            reports.push(FileReport {
                path: self.shown(&w.path),
                errors_before: errors(&after) - errors(&new_diags),
                diags: new_diags,
            });
        }
        Ok(render(&name, &reports, "new"))
    }

    /// The diagnostics of `path` with `text`, by `deadline`.
    async fn current(
        &self,
        server: &Server,
        path: &Path,
        text: &str,
        deadline: Instant,
    ) -> Result<Vec<Diag>, String> {
        let seq = server.seq(path);
        let synced = server.sync(path, text).await?;
        let known = crate::client::uri_of(path)
            .and_then(|u| server.client.store.get(u.as_str()))
            .filter(|_| synced.is_none());
        let diags = match known {
            Some(p) => p.diagnostics,
            None => server
                .diagnostics(path, seq, deadline)
                .await
                .map_err(|e| match e {
                    Unavailable::TimedOut(_) => {
                        format!("did not answer within {:?}", self.inner.settings.wait)
                    }
                    Unavailable::Failed(why) => why,
                })?,
        };
        Ok(diags.iter().filter_map(Diag::from_lsp).collect())
    }

    /// The current diagnostics of `path` (read from disk), or of every file the servers
    /// were given, as text for the `diagnostics` tool.
    pub async fn diagnostics(&self, path: Option<&Path>) -> String {
        let deadline = Instant::now() + self.inner.settings.wait;
        let Some(path) = path else {
            return self.all(deadline).await;
        };
        let shown = self.shown(path);
        let Some(spec) = self.spec_for(path) else {
            return format!("no language server is configured for {shown}");
        };
        let name = spec.name.clone();
        let slot = self.slot(spec, path);
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => return format!("cannot read {shown}: {e}"),
        };
        let result = match self.ready(&slot, deadline).await {
            Ok(server) => self.current(&server, path, &text, deadline).await,
            Err(why) => Err(why),
        };
        self.bump();
        match result {
            Ok(diags) => render(
                &name,
                &[FileReport {
                    path: shown,
                    diags,
                    errors_before: 0,
                }],
                "",
            ),
            Err(why) => format!("diagnostics unavailable: {why} ({name})"),
        }
    }

    async fn all(&self, deadline: Instant) -> String {
        let slots = self
            .inner
            .slots
            .lock()
            .map(|s| s.clone())
            .unwrap_or_default();
        if slots.is_empty() {
            return "no language server has been started yet; give a path to start the one \
                    for that file"
                .into();
        }
        let mut parts = Vec::new();
        for slot in slots {
            let name = slot.spec.name.clone();
            let server = match self.ready(&slot, deadline).await {
                Ok(s) => s,
                Err(why) => {
                    parts.push(format!("diagnostics unavailable: {why} ({name})"));
                    continue;
                }
            };
            let mut files: Vec<FileReport> = server
                .client
                .store
                .all()
                .into_iter()
                .filter_map(|(uri, p)| {
                    let diags: Vec<Diag> =
                        p.diagnostics.iter().filter_map(Diag::from_lsp).collect();
                    let path = path_of(&uri)?;
                    (!diags.is_empty()).then(|| FileReport {
                        path: self.shown(&path),
                        diags,
                        errors_before: 0,
                    })
                })
                .collect();
            files.sort_by(|a, b| a.path.cmp(&b.path));
            parts.push(render(&name, &files, ""));
        }
        parts.join("\n")
    }
}
