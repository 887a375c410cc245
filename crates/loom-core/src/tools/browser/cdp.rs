//! A thin Chrome DevTools Protocol client over `--remote-debugging-pipe`.
//!
//! Chromium reads commands from its fd 3 and writes answers and events to its fd 4, each
//! message one JSON object ended by a NUL byte. That needs no WebSocket and no generated
//! protocol types (the crates that have them cost minutes of CI compile time): commands
//! are `serde_json::Value`s, answers are routed to their caller by id, and events go to
//! every subscriber. The browser runs in its own process group with a fresh profile in a
//! temporary directory; dropping [`Chromium`] kills the group and deletes the profile.

use std::collections::HashMap;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::unix::pipe;
use tokio::sync::{broadcast, oneshot};

/// One event: its method, parameters and the session it belongs to (if any).
#[derive(Debug, Clone)]
pub struct CdpEvent {
    /// E.g. `Fetch.requestPaused`.
    pub method: String,
    /// Its parameters.
    pub params: Value,
    /// The target session it came from.
    pub session: Option<String>,
}

type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Result<Value, String>>>>>;

/// The largest message accepted from Chromium (a full-page screenshot is the biggest).
const MAX_MESSAGE: usize = 64 << 20;

/// Split `buf` into NUL-ended messages; what follows the last NUL stays in `buf`.
pub fn take_messages(buf: &mut Vec<u8>) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    while let Some(end) = buf.iter().position(|b| *b == 0) {
        let rest = buf.split_off(end + 1);
        let mut message = std::mem::replace(buf, rest);
        message.pop();
        out.push(message);
    }
    out
}

/// A running headless Chromium and the connection to it.
pub struct Chromium {
    writer: tokio::sync::Mutex<pipe::Sender>,
    pending: Pending,
    events: broadcast::Sender<CdpEvent>,
    next_id: AtomicU64,
    closed: Arc<std::sync::atomic::AtomicBool>,
    group: i32,
    _child: tokio::process::Child,
    _profile: tempfile::TempDir,
}

impl Drop for Chromium {
    fn drop(&mut self) {
        let group = nix::unistd::Pid::from_raw(self.group);
        let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
        loom_sandbox::reaper::release(self.group as u32);
    }
}

/// The Chromium executables Loom looks for, in order, when none is configured.
pub const CANDIDATES: &[&str] = &["chromium", "chromium-browser", "google-chrome", "chrome"];

/// The Chromium to run: `configured` if given, else the first candidate on `PATH`.
pub fn find(configured: Option<&Path>) -> Option<PathBuf> {
    if let Some(path) = configured {
        return path.is_file().then(|| path.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| CANDIDATES.iter().map(move |name| dir.join(name)))
        .find(|p| p.is_file())
}

/// A fresh, empty browser profile directory, with WebRTC kept to the proxy.
fn fresh_profile() -> Result<tempfile::TempDir, String> {
    let profile = tempfile::Builder::new()
        .prefix("loom-browser-")
        .tempdir()
        .map_err(|e| format!("cannot make the browser's profile directory: {e}"))?;
    // WebRTC sends UDP outside any proxy unless told not to (the command-line switch
    // for it is ignored by headless Chromium; the profile's preference is not). The
    // seccomp filter in `jail` refuses UDP anyway where it exists.
    let prefs = profile.path().join("Default");
    std::fs::create_dir_all(&prefs)
        .and_then(|()| {
            std::fs::write(
                prefs.join("Preferences"),
                r#"{"webrtc":{"ip_handling_policy":"disable_non_proxied_udp","multiple_routes_enabled":false,"nonproxied_udp_enabled":false}}"#,
            )
        })
        .map_err(|e| format!("cannot write the browser's preferences: {e}"))?;
    Ok(profile)
}

/// The command that starts Chromium headless at `executable`, talking over pipes 3 and 4,
/// every connection sent through the proxy at `proxy`, with the profile at `profile`.
fn command(
    executable: &Path,
    proxy: std::net::SocketAddr,
    profile: &Path,
) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(executable);
    cmd.args([
        "--headless",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-extensions",
        "--disable-default-apps",
        "--mute-audio",
        "--hide-scrollbars",
        "--remote-debugging-pipe",
        "--dns-prefetch-disable",
        // Loopback too: Chromium otherwise connects to localhost directly.
        "--proxy-bypass-list=<-loopback>",
    ])
    .arg(format!("--proxy-server=http://{proxy}"))
    .arg(format!("--user-data-dir={}", profile.display()))
    .stdin(std::process::Stdio::null())
    .stdout(std::process::Stdio::null())
    .stderr(std::process::Stdio::null())
    .process_group(0)
    .kill_on_drop(true);
    // Chromium's own sandbox cannot start as root; as anyone else it stays on.
    if nix::unistd::geteuid().is_root() {
        cmd.arg("--no-sandbox");
    }
    cmd.arg("about:blank");
    cmd
}

impl Chromium {
    /// Start `executable` headless with a fresh profile, every connection sent through the
    /// proxy at `proxy`, confined as [`super::jail`] says (Landlock only when `sandbox`),
    /// and connect to it.
    pub async fn launch(
        executable: &Path,
        proxy: std::net::SocketAddr,
        sandbox: bool,
    ) -> Result<(Arc<Chromium>, loom_sandbox::browser_jail::Confinement), String> {
        let profile = fresh_profile()?;
        let (to_child_read, to_child_write) = pipe_pair()?;
        let (from_child_read, from_child_write) = pipe_pair()?;
        let mut cmd = command(executable, proxy, profile.path());
        // Confinement first: its Landlock ruleset is an open descriptor that may well be
        // numbered 3 or 4, which the pipes below take (the ruleset is used and closed by
        // then). In the other order a browser started now and then with its ruleset
        // replaced by a pipe, and failed.
        let confinement =
            loom_sandbox::browser_jail::install(&mut cmd, profile.path(), proxy.port(), sandbox)?;
        let (read_fd, write_fd) = (to_child_read.as_raw_fd(), from_child_write.as_raw_fd());
        loom_sandbox::browser_jail::pipes_onto_3_and_4(&mut cmd, read_fd, write_fd);
        let child = loom_sandbox::reaper::spawn_kept(&mut cmd)
            .map_err(|e| format!("cannot start {}: {e}", executable.display()))?;
        let group = child.id().unwrap_or(0) as i32;
        drop(to_child_read);
        drop(from_child_write);
        let writer = pipe::Sender::from_owned_fd(to_child_write)
            .map_err(|e| format!("cannot talk to the browser: {e}"))?;
        let reader = pipe::Receiver::from_owned_fd(from_child_read)
            .map_err(|e| format!("cannot listen to the browser: {e}"))?;
        let pending: Pending = Arc::default();
        let (events, _) = broadcast::channel(4096);
        let closed = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let reading = read_loop(reader, pending.clone(), events.clone());
        let flag = closed.clone();
        tokio::spawn(async move {
            reading.await;
            flag.store(true, Ordering::Relaxed);
        });
        let chromium = Arc::new(Chromium {
            writer: tokio::sync::Mutex::new(writer),
            pending,
            events,
            next_id: AtomicU64::new(1),
            closed,
            group,
            _child: child,
            _profile: profile,
        });
        Ok((chromium, confinement))
    }

    /// The browser's process group (its leader's pid).
    pub fn group(&self) -> i32 {
        self.group
    }

    /// Whether the browser is gone (it crashed or was killed).
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Relaxed)
    }

    /// Every event from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<CdpEvent> {
        self.events.subscribe()
    }

    /// Send `method` (to `session`, or the browser) and wait up to `limit` for its answer.
    pub async fn call(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
        limit: Duration,
    ) -> Result<Value, String> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            message["sessionId"] = json!(s);
        }
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id, tx);
        let mut bytes = serde_json::to_vec(&message).map_err(|e| e.to_string())?;
        bytes.push(0);
        let sent = {
            let mut writer = self.writer.lock().await;
            writer.write_all(&bytes).await
        };
        if let Err(e) = sent {
            lock(&self.pending).remove(&id);
            return Err(format!("the browser stopped listening ({e})"));
        }
        match tokio::time::timeout(limit, rx).await {
            Ok(Ok(answer)) => answer.map_err(|e| format!("{method}: {e}")),
            Ok(Err(_)) => Err("the browser exited".into()),
            Err(_) => {
                lock(&self.pending).remove(&id);
                Err(format!(
                    "{method} got no answer within {} s",
                    limit.as_secs()
                ))
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn pipe_pair() -> Result<(OwnedFd, OwnedFd), String> {
    nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)
        .map_err(|e| format!("cannot make a pipe for the browser: {e}"))
}

async fn read_loop(
    mut reader: pipe::Receiver,
    pending: Pending,
    events: broadcast::Sender<CdpEvent>,
) {
    let mut buf = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = match reader.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        buf.extend_from_slice(&chunk[..n]);
        if buf.len() > MAX_MESSAGE {
            break;
        }
        for message in take_messages(&mut buf) {
            let Ok(v) = serde_json::from_slice::<Value>(&message) else {
                continue;
            };
            if let Some(id) = v.get("id").and_then(Value::as_u64) {
                let answer = match v.get("error") {
                    Some(e) => Err(e
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("failed")
                        .to_string()),
                    None => Ok(v.get("result").cloned().unwrap_or(Value::Null)),
                };
                if let Some(tx) = lock(&pending).remove(&id) {
                    let _ = tx.send(answer);
                }
            } else if let Some(method) = v.get("method").and_then(Value::as_str) {
                let _ = events.send(CdpEvent {
                    method: method.to_string(),
                    params: v.get("params").cloned().unwrap_or(Value::Null),
                    session: v
                        .get("sessionId")
                        .and_then(Value::as_str)
                        .map(str::to_string),
                });
            }
        }
    }
    // The browser is gone: every caller still waiting learns it now.
    lock(&pending).clear();
}
