//! One browser session: a headless Chromium started on first use, one page in it, every
//! request of that page judged by [`super::guard`], its console messages and errors kept
//! until the model reads them.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::broadcast::error::RecvError;

use super::cdp::{CdpEvent, Chromium};
use super::gate::LoopbackGate;
use super::guard;
use super::proxy::{Proxy, Rules};
use crate::policy::address_guard::AllowPrivate;
use loom_sandbox::browser_jail::Confinement;

/// How long one protocol command may take.
pub const COMMAND_LIMIT: Duration = Duration::from_secs(15);
/// The viewport every page gets (screenshots have this size unless full-page).
pub const VIEWPORT: (u32, u32) = (1280, 800);
/// Console entries kept between two `console` calls.
const CONSOLE_KEEP: usize = 500;
/// Refused requests remembered for the next result.
const REFUSED_KEEP: usize = 50;

/// The live browser and its page.
pub struct Session {
    chromium: Arc<Chromium>,
    page: String,
    /// Which requests and connections may reach this machine (see `gate`).
    gate: Arc<LoopbackGate>,
    console: Arc<Mutex<Vec<String>>>,
    refused: Arc<Mutex<Vec<String>>>,
    /// The browser's way out; it stops with the session.
    _proxy: Proxy,
    /// How the browser is confined.
    pub confinement: Confinement,
    /// Screenshots taken, for their file names.
    pub shots: u32,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn push_bounded(list: &Mutex<Vec<String>>, entry: String, keep: usize) {
    let mut l = lock(list);
    if l.len() >= keep {
        l.remove(0);
    }
    l.push(entry);
}

/// Refuse downloads for the whole browser and open a blank page, attached: the page's
/// target id and its session.
async fn open_page(chromium: &Chromium) -> Result<(String, String), String> {
    // Downloads are refused for the whole browser.
    chromium
        .call(
            None,
            "Browser.setDownloadBehavior",
            json!({"behavior": "deny"}),
            COMMAND_LIMIT,
        )
        .await?;
    let target = chromium
        .call(
            None,
            "Target.createTarget",
            json!({"url": "about:blank"}),
            COMMAND_LIMIT,
        )
        .await?;
    let target_id = target["targetId"].as_str().unwrap_or_default().to_string();
    let attached = chromium
        .call(
            None,
            "Target.attachToTarget",
            json!({"targetId": target_id, "flatten": true}),
            COMMAND_LIMIT,
        )
        .await?;
    let page = attached["sessionId"]
        .as_str()
        .ok_or("the browser gave no session for its page")?
        .to_string();
    Ok((target_id, page))
}

impl Session {
    /// Start `executable` (confined, Landlock too when `sandbox`), open a page and guard
    /// its requests and connections with `allow`.
    pub async fn start(
        executable: &std::path::Path,
        allow: AllowPrivate,
        sandbox: bool,
    ) -> Result<Session, String> {
        let console = Arc::new(Mutex::new(Vec::new()));
        let refused = Arc::new(Mutex::new(Vec::new()));
        let gate = Arc::new(LoopbackGate::default());
        let proxy = Proxy::start(Rules {
            allow: allow.clone(),
            gate: gate.clone(),
            refused: refused.clone(),
            keep: REFUSED_KEEP,
        })
        .await
        .map_err(|e| format!("cannot start the browser's proxy: {e}"))?;
        let (chromium, confinement) = Chromium::launch(executable, proxy.addr(), sandbox).await?;
        let events = chromium.subscribe();
        let (target_id, page) = open_page(&chromium).await?;
        gate.set_main(&target_id);
        tokio::spawn(watch(
            Arc::downgrade(&chromium),
            events,
            Page {
                session: page.clone(),
                gate: gate.clone(),
            },
            allow,
            console.clone(),
            refused.clone(),
        ));
        let s = Session {
            chromium,
            page,
            gate,
            console,
            refused,
            _proxy: proxy,
            confinement,
            shots: 0,
        };
        s.guard_and_enable().await?;
        Ok(s)
    }

    /// Pause every request of the page (and of every frame, worker and popup it starts)
    /// for the guard, and turn on the page events and viewport the tools rely on.
    async fn guard_and_enable(&self) -> Result<(), String> {
        // Every request of the page pauses until the guard has judged it; so do those of
        // every frame, worker and popup it starts, which are attached paused and guarded
        // before they run (see `watch`).
        self.call("Fetch.enable", json!({"patterns": [{"urlPattern": "*"}]}))
            .await?;
        self.call("Target.setAutoAttach", auto_attach()).await?;
        self.chromium
            .call(None, "Target.setAutoAttach", auto_attach(), COMMAND_LIMIT)
            .await?;
        self.call("Page.enable", json!({})).await?;
        self.call("Runtime.enable", json!({})).await?;
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": VIEWPORT.0, "height": VIEWPORT.1, "deviceScaleFactor": 1, "mobile": false}),
        )
        .await?;
        Ok(())
    }

    /// The browser's process group.
    pub fn browser_group(&self) -> i32 {
        self.chromium.group()
    }

    /// Whether the browser is gone (a new session is needed).
    pub fn is_closed(&self) -> bool {
        self.chromium.is_closed()
    }

    /// Send `method` to the page.
    pub async fn call(&self, method: &str, params: Value) -> Result<Value, String> {
        self.chromium
            .call(Some(&self.page), method, params, COMMAND_LIMIT)
            .await
    }

    /// Go to `url` and wait (at most `limit`) for the page to load.
    pub async fn open(&self, url: &str, limit: Duration) -> Result<(), String> {
        let target = reqwest::Url::parse(url).ok();
        if target.as_ref().is_some_and(super::gate::is_loopback_url)
            && !self.gate.main_on_loopback()
        {
            // The page showing is not on loopback, and its requests in flight when the
            // loopback page commits could be judged as that page's: end it first (a blank
            // page runs nothing), so nothing of it is left to race the commit.
            self.navigate("about:blank", Duration::from_secs(5)).await?;
        }
        // A loopback URL's navigation may reach loopback while it is under way; what the
        // page then does is judged by what it shows (see `gate`).
        self.gate.opening(target.as_ref());
        let opened = self.navigate(url, limit).await;
        self.gate.opening(None);
        opened
    }

    async fn navigate(&self, url: &str, limit: Duration) -> Result<(), String> {
        let mut events = self.chromium.subscribe();
        let nav = self.call("Page.navigate", json!({"url": url})).await?;
        if let Some(err) = nav.get("errorText").and_then(Value::as_str) {
            let refused = self.take_refused();
            return Err(if refused.is_empty() {
                format!("the page did not load: {err}")
            } else {
                format!("the page was refused: {}", refused.join("; "))
            });
        }
        let _ = tokio::time::timeout(limit, async {
            loop {
                match events.recv().await {
                    Ok(e)
                        if e.method == "Page.loadEventFired"
                            && e.session.as_deref() == Some(self.page.as_str()) =>
                    {
                        return;
                    }
                    Err(RecvError::Closed) => return,
                    _ => {}
                }
            }
        })
        .await;
        Ok(())
    }

    /// Evaluate `expression` in the page and return its value (awaiting a promise).
    pub async fn eval(&self, expression: &str) -> Result<Value, String> {
        let r = self
            .call(
                "Runtime.evaluate",
                json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
            )
            .await?;
        if let Some(ex) = r.get("exceptionDetails") {
            let text = ex["exception"]["description"]
                .as_str()
                .or(ex["text"].as_str())
                .unwrap_or("the script threw");
            return Err(text.to_string());
        }
        Ok(r["result"]["value"].clone())
    }

    /// The page's current URL.
    pub async fn url(&self) -> Option<String> {
        self.eval("location.href")
            .await
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
    }

    /// Console messages and page errors since the last call.
    pub fn take_console(&self) -> Vec<String> {
        std::mem::take(&mut *lock(&self.console))
    }

    /// Requests refused since the last call.
    pub fn take_refused(&self) -> Vec<String> {
        std::mem::take(&mut *lock(&self.refused))
    }

    /// A PNG of the viewport, or of the whole page: its bytes and their base64.
    pub async fn screenshot(&self, full_page: bool) -> Result<(Vec<u8>, String), String> {
        let mut params = json!({"format": "png"});
        if full_page {
            let m = self.call("Page.getLayoutMetrics", json!({})).await?;
            let size = &m["cssContentSize"];
            let (w, h) = (
                size["width"].as_f64().unwrap_or(f64::from(VIEWPORT.0)),
                size["height"]
                    .as_f64()
                    .unwrap_or(f64::from(VIEWPORT.1))
                    .min(16384.0),
            );
            params["captureBeyondViewport"] = json!(true);
            params["clip"] = json!({"x": 0, "y": 0, "width": w, "height": h, "scale": 1});
        }
        let shot = self.call("Page.captureScreenshot", params).await?;
        let data = shot["data"].as_str().ok_or("the browser sent no image")?;
        let bytes = base64_decode(data)
            .ok_or_else(|| "the browser's image was not valid base64".to_string())?;
        Ok((bytes, data.to_string()))
    }
}

/// The page `watch` looks after: its session, and the record of which of its frames
/// show loopback pages.
struct Page {
    session: String,
    gate: Arc<LoopbackGate>,
}

/// Judge the page's paused requests and collect its console, until the browser is gone.
async fn watch(
    chromium: std::sync::Weak<Chromium>,
    mut events: tokio::sync::broadcast::Receiver<CdpEvent>,
    page: Page,
    allow: AllowPrivate,
    console: Arc<Mutex<Vec<String>>>,
    refused: Arc<Mutex<Vec<String>>>,
) {
    let mut watcher = Watcher {
        chromium,
        page,
        allow,
        console,
        refused,
        verdicts: Verdicts::default(),
    };
    loop {
        let event = match events.recv().await {
            Ok(e) => e,
            Err(RecvError::Lagged(_)) => {
                // Events were lost (a page flooding the console, say), commits among them
                // perhaps: no frame keeps loopback until it commits again.
                watcher.page.gate.forget();
                continue;
            }
            Err(RecvError::Closed) => return,
        };
        if watcher.on_event(event) == Watching::BrowserGone {
            return;
        }
    }
}

/// Whether [`Watcher::on_event`] found the browser still there.
#[derive(PartialEq, Eq)]
enum Watching {
    Going,
    BrowserGone,
}

/// What `watch` keeps between two events: the browser, the page, and where the page's
/// console and refused requests go.
struct Watcher {
    chromium: std::sync::Weak<Chromium>,
    page: Page,
    allow: AllowPrivate,
    console: Arc<Mutex<Vec<String>>>,
    refused: Arc<Mutex<Vec<String>>>,
    verdicts: Verdicts,
}

impl Watcher {
    /// Handle one event of the browser, by its method.
    fn on_event(&mut self, event: CdpEvent) -> Watching {
        let own_page = event.session.as_deref() == Some(self.page.session.as_str());
        match event.method.as_str() {
            "Target.attachedToTarget" => return self.attached_to_target(event),
            "Fetch.requestPaused" => return self.request_paused(&event),
            "Page.frameNavigated" => {
                let frame = &event.params["frame"];
                if let (Some(id), Some(url)) = (frame["id"].as_str(), frame["url"].as_str()) {
                    if let Some(loader) = frame["loaderId"].as_str() {
                        self.page.gate.document(id, loader);
                    }
                    self.page
                        .gate
                        .committed(id, frame["parentId"].as_str(), url);
                }
            }
            "Runtime.executionContextCreated"
                if event.params["context"]["auxData"]["isDefault"] == true =>
            {
                let context = &event.params["context"];
                if let (Some(frame), Some(origin)) = (
                    context["auxData"]["frameId"].as_str(),
                    context["origin"].as_str(),
                ) {
                    self.page.gate.context(frame, origin);
                }
            }
            "Page.javascriptDialogOpening" => return self.dialog_opening(&event, own_page),
            "Page.frameAttached" => {
                if let (Some(id), Some(parent)) = (
                    event.params["frameId"].as_str(),
                    event.params["parentFrameId"].as_str(),
                ) {
                    self.page.gate.attached(id, parent);
                }
            }
            // A frame moving to another process ("swap") lives on there.
            "Page.frameDetached" if event.params["reason"] != "swap" => {
                if let Some(id) = event.params["frameId"].as_str() {
                    self.page.gate.detached(id);
                }
            }
            "Runtime.consoleAPICalled" if own_page => {
                let line = console_line(&event.params);
                push_bounded(&self.console, line, CONSOLE_KEEP);
            }
            "Runtime.exceptionThrown" if own_page => {
                let d = &event.params["exceptionDetails"];
                let text = d["exception"]["description"]
                    .as_str()
                    .or(d["text"].as_str())
                    .unwrap_or("an uncaught exception");
                push_bounded(&self.console, format!("[page error] {text}"), CONSOLE_KEEP);
            }
            _ => {}
        }
        Watching::Going
    }

    /// A new target (a frame in its own process, a worker) joined: guard it, then let it run.
    fn attached_to_target(&self, event: CdpEvent) -> Watching {
        let Some(browser) = self.chromium.upgrade() else {
            return Watching::BrowserGone;
        };
        let Some(child) = event.params["sessionId"].as_str().map(str::to_string) else {
            return Watching::Going;
        };
        let info = &event.params["targetInfo"];
        if info["type"] == "iframe"
            && let Some(frame) = info["targetId"].as_str()
        {
            // A frame in a process of its own (another site): judged by its own
            // page, never by the blank page it replaced (see `gate`).
            self.page
                .gate
                .own_process(frame, info["url"].as_str().unwrap_or(""));
        }
        tokio::spawn(async move {
            let s = Some(child.as_str());
            let fetch = json!({"patterns": [{"urlPattern": "*"}]});
            // Guarded first, then let it run. A dedicated worker has no Fetch
            // domain of its own: its requests pass through its page's, which is
            // guarded. Anything else that cannot be guarded stays paused, never run.
            let guarded = browser.call(s, "Fetch.enable", fetch, COMMAND_LIMIT).await;
            let kind = event.params["targetInfo"]["type"].as_str().unwrap_or("");
            if matches!(kind, "iframe" | "page") {
                // Its frames' pages, for the loopback gate.
                let _ = browser
                    .call(s, "Page.enable", json!({}), COMMAND_LIMIT)
                    .await;
            }
            let _ = browser
                .call(s, "Target.setAutoAttach", auto_attach(), COMMAND_LIMIT)
                .await;
            if guarded.is_ok() || kind == "worker" {
                let _ = browser
                    .call(
                        s,
                        "Runtime.runIfWaitingForDebugger",
                        json!({}),
                        COMMAND_LIMIT,
                    )
                    .await;
            }
        });
        Watching::Going
    }

    /// A request waits for a verdict: let it go on or fail it.
    fn request_paused(&mut self, event: &CdpEvent) -> Watching {
        let Some(browser) = self.chromium.upgrade() else {
            return Watching::BrowserGone;
        };
        let id = event.params["requestId"].clone();
        let url = event.params["request"]["url"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let session = event.session.clone();
        let allow = self.allow.clone();
        let refused = self.refused.clone();
        // Decided now, in event order: the frame's page as committed so far. A
        // redirect gets no more than its first request did (a request the page
        // before this one started may be redirected after this one committed).
        let now = reqwest::Url::parse(&url).is_ok_and(|u| {
            self.page.gate.for_request(
                event.params["frameId"].as_str(),
                event.params["resourceType"] == "Document",
                &u,
            )
        });
        let local = self.verdicts.judge(&event.params, now);
        let gate = self.page.gate.clone();
        tokio::spawn(async move {
            let (method, params) = match guard::check(&url, &allow, local).await {
                Ok(()) => {
                    if local && let Ok(u) = reqwest::Url::parse(&url) {
                        gate.ticket(&u);
                    }
                    ("Fetch.continueRequest", json!({"requestId": id}))
                }
                Err(why) => {
                    push_bounded(&refused, format!("{url}: {why}"), REFUSED_KEEP);
                    (
                        "Fetch.failRequest",
                        json!({"requestId": id, "errorReason": "AccessDenied"}),
                    )
                }
            };
            let _ = browser
                .call(session.as_deref(), method, params, COMMAND_LIMIT)
                .await;
        });
        Watching::Going
    }

    /// A dialog (alert, confirm, beforeunload) would hold the page, and every later
    /// action, until answered: accept it and tell the model through the console.
    fn dialog_opening(&self, event: &CdpEvent, own_page: bool) -> Watching {
        let Some(browser) = self.chromium.upgrade() else {
            return Watching::BrowserGone;
        };
        let kind = event.params["type"]
            .as_str()
            .unwrap_or("dialog")
            .to_string();
        let message = event.params["message"].as_str().unwrap_or("").to_string();
        if own_page {
            push_bounded(
                &self.console,
                format!("[{kind} dialog, accepted] {message}"),
                CONSOLE_KEEP,
            );
        }
        let session = event.session.clone();
        tokio::spawn(async move {
            let _ = browser
                .call(
                    session.as_deref(),
                    "Page.handleJavaScriptDialog",
                    json!({"accept": true}),
                    COMMAND_LIMIT,
                )
                .await;
        });
        Watching::Going
    }
}

/// One console message as the model reads it: its kind and its arguments' values.
fn console_line(params: &Value) -> String {
    let kind = params["type"].as_str().unwrap_or("log");
    let text: Vec<String> = params["args"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|a| match &a["value"] {
            Value::String(s) => s.clone(),
            Value::Null => a["description"].as_str().unwrap_or("").to_string(),
            v => v.to_string(),
        })
        .collect();
    format!("[{kind}] {}", text.join(" "))
}

/// What each request was let reach first, so its redirects get no more: by its network id
/// (the same across redirects) and by its interception id (which a redirect names).
#[derive(Default)]
struct Verdicts {
    seen: std::collections::HashMap<String, bool>,
    order: std::collections::VecDeque<String>,
}

impl Verdicts {
    /// Most verdicts kept; the oldest go first.
    const KEEP: usize = 8192;

    /// The verdict for the paused request `params`, given what its frame allows `now`.
    fn judge(&mut self, params: &Value, now: bool) -> bool {
        let network = params["networkId"].as_str();
        let earlier = params["redirectedRequestId"]
            .as_str()
            .and_then(|r| self.seen.get(r))
            .or_else(|| network.and_then(|n| self.seen.get(n)))
            .copied();
        let redirect = params["redirectedRequestId"].is_string() || earlier.is_some();
        // A redirect whose first request was forgotten gets nothing.
        let verdict = now && (!redirect || earlier == Some(true));
        for key in [params["requestId"].as_str(), network]
            .into_iter()
            .flatten()
        {
            if self.seen.insert(key.to_string(), verdict).is_none() {
                self.order.push_back(key.to_string());
            }
        }
        while self.order.len() > Self::KEEP {
            if let Some(old) = self.order.pop_front() {
                self.seen.remove(&old);
            }
        }
        verdict
    }
}

/// Attach every target a session starts (frames, workers, popups) paused, so it can be
/// guarded before it runs.
fn auto_attach() -> Value {
    json!({"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true})
}

/// Standard base64 (what CDP sends images in).
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    fn value(c: u8) -> Option<u32> {
        Some(u32::from(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        }))
    }
    let bytes: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    let body = bytes
        .strip_suffix(b"==")
        .or(bytes.strip_suffix(b"="))
        .unwrap_or(&bytes);
    let mut out = Vec::with_capacity(body.len() * 3 / 4);
    for chunk in body.chunks(4) {
        let mut n = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            n |= value(*c)? << (18 - 6 * i);
        }
        let produced = match chunk.len() {
            4 => 3,
            3 => 2,
            2 => 1,
            _ => return None,
        };
        out.extend_from_slice(&n.to_be_bytes()[1..1 + produced]);
    }
    Some(out)
}

/// Where a session's screenshots go.
pub fn shots_dir(session_id: &str) -> Option<PathBuf> {
    crate::base::dirs::data_dir().map(|d| d.join("browser").join(session_id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_what_cdp_sends() {
        assert_eq!(base64_decode("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(base64_decode("aGVsbG8h").unwrap(), b"hello!");
        assert_eq!(base64_decode("aGk=").unwrap(), b"hi");
        assert!(base64_decode("a$==").is_none());
    }

    /// Invariant: a redirect never gets more than the request it answers (nor anything
    /// when that request was forgotten); a new request is judged on its own.
    #[test]
    fn redirects_get_no_more_than_their_first_request() {
        let mut v = Verdicts::default();
        let first = json!({"requestId": "i-1.0", "networkId": "n1"});
        assert!(
            !v.judge(&first, false),
            "the old page's request: no loopback"
        );
        let hop = json!({"requestId": "i-1.1", "networkId": "n1", "redirectedRequestId": "i-1.0"});
        assert!(
            !v.judge(&hop, true),
            "its redirect, judged after a loopback commit"
        );
        let dev = json!({"requestId": "i-2.0", "networkId": "n2"});
        assert!(v.judge(&dev, true));
        let dev_hop =
            json!({"requestId": "i-2.1", "networkId": "n2", "redirectedRequestId": "i-2.0"});
        assert!(v.judge(&dev_hop, true), "the dev server's own redirect");
        assert!(
            !v.judge(&dev_hop, false),
            "and no more than its frame allows now"
        );
        let orphan = json!({"requestId": "i-9.1", "redirectedRequestId": "i-9.0"});
        assert!(!v.judge(&orphan, true), "a redirect of a forgotten request");
        let again = json!({"requestId": "j-1.0", "networkId": "n1"});
        assert!(
            !v.judge(&again, true),
            "the same request paused by a second session"
        );
    }
}

#[cfg(test)]
#[path = "attack_support.rs"]
mod attack_support;

#[cfg(test)]
#[path = "loopback_rule_tests.rs"]
mod loopback_rule;

#[cfg(test)]
#[path = "foreign_navigation_tests.rs"]
mod foreign_navigations;

#[cfg(test)]
#[path = "foreign_content_tests.rs"]
mod foreign_content_in_a_dev_page;
