//! Which of the browser's requests may reach this machine's loopback (the dev server).
//!
//! Loopback serves a request only when the frame that makes it shows a page on loopback:
//! the page as committed, not the URL the model asked for (a navigation that never commits
//! leaves the old page with no loopback), judged per frame (a foreign frame or a popup in
//! a loopback page gets none), and by the URL's host as written — `localhost`,
//! `*.localhost`, `127.0.0.0/8` or `[::1]` — never by a DNS answer (a name that resolves
//! to 127.0.0.1 once and elsewhere later would otherwise open loopback to its own page).
//!
//! The one navigation that needs loopback before anything is committed there is the
//! model's own `open` of a loopback URL: it is let through to that host and port only,
//! while the open is under way. When the page showing is not on loopback, the session
//! shows a blank page first, so none of its requests still in flight can be judged after
//! the loopback page commits.
//!
//! Connections (the proxy) cannot be told apart by frame: they get loopback for the host
//! and port being opened, and, while the main frame shows a loopback page, for the hosts
//! and ports that loopback frames' requests were let reach ([`LoopbackGate::ticket`]). A
//! WebSocket, which only the proxy sees, can so reach the dev server but no other service.

use std::collections::HashMap;
use std::sync::Mutex;

use reqwest::Url;

/// Most frames remembered (detached ones are forgotten; this bounds a page that attaches
/// frames without end).
const MAX_FRAMES: usize = 4096;

/// Whether `url` is a page on this machine by its host as written.
pub fn is_loopback_url(url: &Url) -> bool {
    if !matches!(url.scheme(), "http" | "https" | "ws" | "wss") {
        return false;
    }
    let Some(host) = url.host_str() else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    match host.parse::<std::net::IpAddr>() {
        Ok(ip) => ip.is_loopback(),
        Err(_) => {
            let d = host.trim_end_matches('.').to_ascii_lowercase();
            d == "localhost" || d.ends_with(".localhost")
        }
    }
}

#[derive(Debug, Default)]
struct State {
    /// The main frame's id.
    main: String,
    /// Frames that committed a document: whether it is on loopback.
    frames: HashMap<String, bool>,
    /// Each attached frame's parent.
    parents: HashMap<String, String>,
    /// Frames showing a blank page (`about:blank`, `about:srcdoc`), judged by the origin
    /// of its script context when that is created: a blank page takes the origin of
    /// whoever navigated the frame there, not its parent's.
    blank: std::collections::HashSet<String>,
    /// The host and port of a loopback URL the model is opening.
    opening: Option<(String, u16)>,
    /// The host and port of each frame's loopback page.
    origins: HashMap<String, (String, u16)>,
    /// The loader of the main frame's document, to tell a new document from a repeat.
    main_loader: Option<String>,
    /// Hosts and ports that frames on loopback pages were let reach (the proxy's
    /// loopback tickets), while the main frame stays on loopback.
    tickets: std::collections::HashSet<(String, u16)>,
}

impl State {
    fn frame_loopback(&self, id: &str) -> Option<bool> {
        self.frames.get(id).copied()
    }

    fn set_origin(&mut self, frame: &str, origin: Option<(String, u16)>) {
        match origin {
            Some(o) if self.origins.len() < MAX_FRAMES || self.origins.contains_key(frame) => {
                self.origins.insert(frame.to_string(), o);
            }
            _ => {
                self.origins.remove(frame);
            }
        }
    }
}

/// The per-session record of which frames show loopback pages.
#[derive(Debug, Default)]
pub struct LoopbackGate {
    state: Mutex<State>,
}

/// A URL's host (lowercase, no brackets) and port, as a connection names them.
fn host_port(url: &Url) -> Option<(String, u16)> {
    let host = url
        .host_str()?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase();
    Some((host, url.port_or_known_default()?))
}

impl LoopbackGate {
    /// A gate for a page whose main frame is `main` (its target id).
    pub fn new(main: &str) -> LoopbackGate {
        LoopbackGate {
            state: Mutex::new(State {
                main: main.to_string(),
                ..State::default()
            }),
        }
    }

    /// The main frame is `main` (known once the page's target exists).
    pub fn set_main(&self, main: &str) {
        self.lock().main = main.to_string();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A frame was attached under `parent`.
    pub fn attached(&self, frame: &str, parent: &str) {
        let mut s = self.lock();
        if s.parents.len() < MAX_FRAMES {
            s.parents.insert(frame.to_string(), parent.to_string());
        }
    }

    /// Events were lost: no frame keeps loopback (or its tickets) until it commits again.
    pub fn forget(&self) {
        let mut s = self.lock();
        s.frames.clear();
        s.blank.clear();
        s.origins.clear();
        s.tickets.clear();
    }

    /// A frame went away.
    pub fn detached(&self, frame: &str) {
        let mut s = self.lock();
        s.parents.remove(frame);
        s.frames.remove(frame);
        s.blank.remove(frame);
        s.origins.remove(frame);
    }

    /// `frame` (child of `parent`, if any) committed a document at `url`. An `about:`
    /// document has no loopback until its context's origin says so ([`Self::context`]).
    pub fn committed(&self, frame: &str, parent: Option<&str>, url: &str) {
        let mut s = self.lock();
        if let Some(p) = parent
            && s.parents.len() < MAX_FRAMES
        {
            s.parents.insert(frame.to_string(), p.to_string());
        }
        let parsed = Url::parse(url).ok();
        let blank = parsed.as_ref().is_some_and(|u| u.scheme() == "about");
        let origin = parsed.filter(is_loopback_url).and_then(|u| host_port(&u));
        let loopback = origin.is_some();
        if frame == s.main {
            let before = s.origins.get(frame).cloned();
            if !loopback || before != origin {
                // Another page: what the last one was let reach is not this one's; its own
                // host and port it reached by loading (the ticket of that request must not
                // go with the last page's, or its hot-reload WebSocket could come first).
                s.tickets.clear();
                if let Some(own) = &origin {
                    s.tickets.insert(own.clone());
                }
            }
        }
        s.set_origin(frame, origin);
        if s.frames.len() < MAX_FRAMES || s.frames.contains_key(frame) {
            s.frames.insert(frame.to_string(), loopback);
            if blank {
                s.blank.insert(frame.to_string());
            } else {
                s.blank.remove(frame);
            }
        }
    }

    /// `frame` committed the document of `loader`: when that is a new document of the main
    /// frame, the frames of the last one are gone (a page reloaded again and again must
    /// not fill the tables with frames that no longer exist). The same commit reported
    /// twice (the page is attached twice) clears nothing the second time.
    pub fn document(&self, frame: &str, loader: &str) {
        let mut s = self.lock();
        if frame != s.main || s.main_loader.as_deref() == Some(loader) {
            return;
        }
        s.main_loader = Some(loader.to_string());
        let main = s.main.clone();
        s.frames.retain(|f, _| *f == main);
        s.parents.clear();
        s.blank.retain(|f| *f == main);
        s.origins.retain(|f, _| *f == main);
    }

    /// The default script context of `frame` was created with `origin`: for a blank page
    /// (or a frame's first, unreported one) that origin decides, as it is the page's.
    pub fn context(&self, frame: &str, origin: &str) {
        let mut s = self.lock();
        let decides = s.blank.contains(frame) || !s.frames.contains_key(frame);
        if decides && (s.frames.len() < MAX_FRAMES || s.frames.contains_key(frame)) {
            let origin = Url::parse(origin)
                .ok()
                .filter(is_loopback_url)
                .and_then(|u| host_port(&u));
            s.frames.insert(frame.to_string(), origin.is_some());
            s.set_origin(frame, origin);
            // Still a blank page: its verdict goes if it moves to a process of its own.
            s.blank.insert(frame.to_string());
        }
    }

    /// `frame` moved into a process of its own (another site), attached with `url`
    /// (often empty: its commit may be reported before or after). A real URL is its page;
    /// without one it keeps a page it already committed, but a blank page's verdict goes.
    pub fn own_process(&self, frame: &str, url: &str) {
        if Url::parse(url).is_ok_and(|u| u.scheme() != "about") {
            return self.committed(frame, None, url);
        }
        let mut s = self.lock();
        let known = s.frames.contains_key(frame) && !s.blank.contains(frame);
        if !known && (s.frames.len() < MAX_FRAMES || s.frames.contains_key(frame)) {
            s.frames.insert(frame.to_string(), false);
            s.blank.remove(frame);
        }
    }

    /// The model's `open` of `url` begins (`Some`) or is over (`None`).
    pub fn opening(&self, url: Option<&Url>) {
        self.lock().opening = url.filter(|u| is_loopback_url(u)).and_then(host_port);
    }

    /// Whether the main frame shows a loopback page.
    pub fn main_on_loopback(&self) -> bool {
        let s = self.lock();
        s.frame_loopback(&s.main).unwrap_or(false)
    }

    /// Whether a request for `url` made by `frame` (a navigation of that frame when
    /// `document`) may reach loopback.
    ///
    /// Only a URL that names loopback (by its host as written) may reach it: a request for
    /// any other name (a CDN, the foreign site of a frame) that resolves, or is redirected,
    /// to this machine gets nothing. A navigation of a frame that shows a loopback page
    /// stays on that page's host and port (a popup or a foreign frame may start one, with
    /// the person's click or not); reaching another local service needs the model's `open`.
    pub fn for_request(&self, frame: Option<&str>, document: bool, url: &Url) -> bool {
        let s = self.lock();
        let Some(frame) = frame.filter(|f| !f.is_empty()) else {
            return false;
        };
        if !is_loopback_url(url) {
            return false;
        }
        if !document {
            return s.frame_loopback(frame).unwrap_or(false);
        }
        let target = host_port(url);
        let stays =
            |f: &str| s.frame_loopback(f) == Some(true) && s.origins.get(f) == target.as_ref();
        if frame == s.main {
            return stays(frame) || (s.opening.is_some() && s.opening == target);
        }
        // A frame's navigation: judged by what it shows, or, before it showed anything (the
        // page that holds it asked for the URL), by that page.
        match s.frame_loopback(frame) {
            Some(_) => stays(frame),
            // With the table full, a frame's own page could not have been recorded: no
            // falling back to its parent's then.
            None if s.frames.len() >= MAX_FRAMES => false,
            None => s
                .parents
                .get(frame)
                .and_then(|p| s.frame_loopback(p))
                .unwrap_or(false),
        }
    }

    /// A request for `url` that may reach loopback was let through: its host and port
    /// become a ticket for the proxy (the connection for it comes next).
    pub fn ticket(&self, url: &Url) {
        let mut s = self.lock();
        if s.tickets.len() < MAX_FRAMES
            && let Some(hp) = host_port(url)
        {
            s.tickets.insert(hp);
        }
    }

    /// Whether a connection to `host`:`port` (the proxy's view) may reach loopback: the
    /// host and port being opened, or, while the main frame shows a loopback page, one a
    /// loopback frame's request was let reach. A connection the proxy cannot attribute (a
    /// WebSocket, which request interception never sees) thus reaches only what the dev
    /// page itself uses, never another service on this machine.
    pub fn for_connection(&self, host: &str, port: u16) -> bool {
        let s = self.lock();
        let wanted = (
            host.trim_start_matches('[')
                .trim_end_matches(']')
                .to_ascii_lowercase(),
            port,
        );
        s.opening.as_ref() == Some(&wanted)
            || (s.frame_loopback(&s.main).unwrap_or(false) && s.tickets.contains(&wanted))
    }
}

#[cfg(test)]
#[path = "gate_tests.rs"]
mod tests;
