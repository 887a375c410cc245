//! `browser`: look at the web app the person is building the way a user sees it, in a real
//! headless Chromium driven over the DevTools protocol ([`cdp`]).
//!
//! The browser starts on the first call, one per session, with a fresh profile, downloads
//! refused, and every request its page makes judged by [`guard`] (the dev server on
//! loopback passes; private, link-local and metadata addresses do not); every connection it
//! opens goes through Loom's [`proxy`], which judges it again by the same rules, and it runs
//! confined ([`jail`]): its own namespaces and, with the sandbox on, writes only in its
//! profile and TCP only to the proxy. Opening a page is a
//! network call for the policy, approved per domain in supervised mode; `eval` runs the
//! model's JavaScript and always asks there. Without Chromium the tool is not offered, and
//! `loom tool list` says how to install it.

pub mod cdp;
pub mod gate;
pub mod guard;
pub mod proxy;
pub mod session;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::policy::NetAccess;
use crate::policy::address_guard::AllowPrivate;
use crate::protocol::tool_data::BrowserData;
use crate::tools::{CallIntent, Tool, ToolContext, ToolError, ToolKind, ToolResult, TypedTool};
use session::Session;

/// Most characters of page text or script result returned.
const MAX_TEXT: usize = 64 * 1024;
/// Longest `wait_for` may wait.
const MAX_WAIT: Duration = Duration::from_secs(30);
/// How long `open` waits for the page's load event.
const LOAD_LIMIT: Duration = Duration::from_secs(20);

/// What to do.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum BrowserArgs {
    /// Load a URL (http or https; the dev server on localhost works).
    Open {
        /// The URL.
        url: String,
    },
    /// Save a PNG of the page and return its path.
    Screenshot {
        /// The whole page rather than the 1280×800 viewport.
        full_page: Option<bool>,
    },
    /// The readable text of the page, or of the first element matching a CSS selector.
    Text {
        /// A CSS selector (default: the whole page).
        selector: Option<String>,
    },
    /// Click the first element matching a CSS selector.
    Click {
        /// A CSS selector.
        selector: String,
    },
    /// Focus the first element matching a CSS selector and type text into it.
    Type {
        /// A CSS selector.
        selector: String,
        /// The text to type.
        text: String,
    },
    /// Run JavaScript in the page and return its value (asks first in supervised mode).
    Eval {
        /// The expression; a promise is awaited.
        js: String,
    },
    /// Console messages and page errors since the last `console`.
    Console,
    /// Wait until an element matching a CSS selector exists.
    WaitFor {
        /// A CSS selector.
        selector: String,
        /// Seconds to wait (default 10, at most 30).
        timeout: Option<u64>,
    },
}

impl BrowserArgs {
    /// The verb the policy and the tool row show.
    fn verb(&self) -> &'static str {
        match self {
            BrowserArgs::Open { .. } => "OPEN",
            BrowserArgs::Eval { .. } => "EVAL",
            BrowserArgs::Click { .. } | BrowserArgs::Type { .. } => "INTERACT",
            _ => "READ",
        }
    }
}

/// The `browser` tool.
pub struct Browser {
    executable: PathBuf,
    allow: AllowPrivate,
    session: tokio::sync::Mutex<Option<Session>>,
    /// The page's URL after the last call, for describing the next one.
    current: Mutex<Option<reqwest::Url>>,
}

impl Browser {
    /// A browser tool running `executable`, letting pages reach what `allow` lists.
    pub fn new(executable: PathBuf, allow: AllowPrivate) -> Browser {
        Browser {
            executable,
            allow,
            session: tokio::sync::Mutex::new(None),
            current: Mutex::new(None),
        }
    }

    fn current(&self) -> Option<reqwest::Url> {
        self.current
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

const DESCRIPTION: &str = "Drive a real headless Chromium to see a web app as a user does (the \
dev server on localhost works). `action` is one of: open {url}; screenshot {full_page?} (PNG \
saved, path returned); text {selector?} (readable text of the page or an element); click \
{selector}; type {selector, text}; eval {js} (JavaScript in the page; asks first); console \
(console messages and page errors since the last call); wait_for {selector, timeout?}. One \
page per session; private network addresses are refused.";

#[async_trait]
impl TypedTool for Browser {
    type Args = BrowserArgs;
    fn name(&self) -> &'static str {
        "browser"
    }
    fn description(&self) -> &'static str {
        DESCRIPTION
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Network
    }
    fn intent(&self, a: &BrowserArgs) -> Result<CallIntent, ToolError> {
        let url = match a {
            BrowserArgs::Open { url } => crate::tools::web::parse_url(url)?,
            _ => self.current().ok_or_else(|| {
                ToolError::InvalidArguments(
                    "no page is open yet; call browser with action \"open\" and a URL first".into(),
                )
            })?,
        };
        let mut intent = crate::tools::web::intent_for(NetAccess::Browse, a.verb(), &url);
        if let BrowserArgs::Eval { js } = a {
            let js = js.split_whitespace().collect::<Vec<_>>().join(" ");
            intent.url = format!("{} — {}", intent.url, crate::base::text::truncate(&js, 200));
        }
        Ok(CallIntent::network(intent))
    }
    fn redact(&self, args: &Value) -> Value {
        crate::secrets::mask_json(&crate::tools::web::secrets::mask_args(args))
    }
    fn default_timeout(&self) -> Duration {
        LOAD_LIMIT + MAX_WAIT
    }
    async fn run(&self, args: Arc<BrowserArgs>, ctx: &ToolContext) -> ToolResult {
        let mut guard = self.session.lock().await;
        // A browser that crashed or was killed is started again, with a fresh page.
        if guard.as_ref().is_some_and(Session::is_closed) {
            *guard = None;
            *self.current.lock().unwrap_or_else(|e| e.into_inner()) = None;
        }
        let mut started = None;
        if guard.is_none() {
            match Session::start(
                &self.executable,
                self.allow.clone(),
                ctx.sandbox.is_active(),
            )
            .await
            {
                Ok(s) => {
                    started = Some(s.confinement);
                    *guard = Some(s);
                }
                Err(e) => {
                    return ToolResult::err(format!(
                        "the browser ({}) could not start: {e}",
                        self.executable.display()
                    ));
                }
            }
        }
        let Some(session) = guard.as_mut() else {
            return ToolResult::err("the browser could not start");
        };
        let result = tokio::select! {
            r = act(session, &args, ctx) => r,
            _ = ctx.cancel.cancelled() => Err(ToolError::Cancelled),
        };
        let url = session.url().await;
        *self.current.lock().unwrap_or_else(|e| e.into_inner()) =
            url.as_deref().and_then(|u| reqwest::Url::parse(u).ok());
        let refused = session.take_refused();
        match result {
            Ok(mut r) => {
                let mut data: BrowserData = r.data_as().unwrap_or_default();
                data.url = url;
                data.confinement = started.map(|c| c.describe());
                if !refused.is_empty() {
                    r.output.push_str(&format!(
                        "\n\nRefused requests of the page:\n{}",
                        refused.join("\n")
                    ));
                }
                data.refused = refused;
                r.with(&data)
            }
            Err(e) => e.into(),
        }
    }
}

/// Do one action on the page.
async fn act(
    session: &mut Session,
    a: &BrowserArgs,
    ctx: &ToolContext,
) -> Result<ToolResult, ToolError> {
    match a {
        BrowserArgs::Open { url } => open(session, url).await,
        BrowserArgs::Screenshot { full_page } => {
            screenshot(session, full_page.unwrap_or(false), ctx).await
        }
        BrowserArgs::Text { selector } => text(session, selector.as_deref()).await,
        BrowserArgs::Click { selector } => click(session, selector).await,
        BrowserArgs::Type { selector, text } => type_into(session, selector, text).await,
        BrowserArgs::Eval { js } => {
            let value = session.eval(js).await.map_err(failed)?;
            let text = match &value {
                Value::String(s) => s.clone(),
                v => serde_json::to_string_pretty(v).unwrap_or_default(),
            };
            let (text, cut) = crate::tools::web::head(text, MAX_TEXT);
            Ok(ToolResult::ok(text).with(&BrowserData {
                truncated: Some(cut),
                ..BrowserData::default()
            }))
        }
        BrowserArgs::Console => {
            let lines = session.take_console();
            Ok(if lines.is_empty() {
                ToolResult::ok("No console messages or page errors since the last call.")
            } else {
                let (text, _) = crate::tools::web::head(lines.join("\n"), MAX_TEXT);
                ToolResult::ok(text).with(&BrowserData {
                    count: Some(lines.len() as u64),
                    ..BrowserData::default()
                })
            })
        }
        BrowserArgs::WaitFor { selector, timeout } => wait_for(session, selector, *timeout).await,
    }
}

/// A failure of the browser, as the tool reports it.
fn failed(e: String) -> ToolError {
    ToolError::Other(e)
}

/// `open`: load `url` and name the page it became.
async fn open(session: &mut Session, url: &str) -> Result<ToolResult, ToolError> {
    session.open(url, LOAD_LIMIT).await.map_err(failed)?;
    let title = session.eval("document.title").await.unwrap_or(Value::Null);
    Ok(ToolResult::ok(format!(
        "Opened {}{}",
        session.url().await.unwrap_or_else(|| url.to_string()),
        title
            .as_str()
            .filter(|t| !t.is_empty())
            .map(|t| format!(" — {t}"))
            .unwrap_or_default()
    ))
    .with(&BrowserData {
        title: Some(title),
        ..BrowserData::default()
    }))
}

/// `screenshot`: save the page as a PNG in the session's data directory and show it to
/// the model when it is small enough.
async fn screenshot(
    session: &mut Session,
    full_page: bool,
    ctx: &ToolContext,
) -> Result<ToolResult, ToolError> {
    let (png, base64) = session.screenshot(full_page).await.map_err(failed)?;
    let dir = session::shots_dir(&ctx.session_id)
        .ok_or_else(|| failed("there is no data directory to save the screenshot in".into()))?;
    crate::private::create_dir_all(&dir)
        .map_err(|e| failed(format!("cannot create {}: {e}", dir.display())))?;
    session.shots += 1;
    let path = dir.join(format!("shot-{}.png", session.shots));
    crate::private::write_atomic(&path, &png)
        .map_err(|e| failed(format!("cannot save {}: {e}", path.display())))?;
    let (w, h) = png_size(&png).unwrap_or((0, 0));
    let shown = png.len() as u64 <= crate::llm::image::MAX_IMAGE_BYTES;
    let r = ToolResult::ok(format!(
        "Saved a {w}×{h} screenshot to {}{}",
        path.display(),
        if shown {
            "; it follows as an image"
        } else {
            "; too large to show as an image"
        }
    ))
    .with(&BrowserData {
        path: Some(path.display().to_string()),
        width: Some(w),
        height: Some(h),
        bytes: Some(png.len() as u64),
        ..BrowserData::default()
    });
    Ok(if shown {
        r.with_image(crate::llm::image::Image {
            name: format!("shot-{}.png", session.shots),
            mime: "image/png".into(),
            data: base64,
        })
    } else {
        r
    })
}

/// `text`: the visible text of the element `selector` picks, or of the whole page.
async fn text(session: &mut Session, selector: Option<&str>) -> Result<ToolResult, ToolError> {
    let expr = match selector {
        Some(s) => format!(
            "(() => {{ const e = document.querySelector({}); return e ? e.innerText : null; }})()",
            js_string(s)
        ),
        None => "document.body ? document.body.innerText : ''".to_string(),
    };
    Ok(match session.eval(&expr).await.map_err(failed)? {
        Value::String(text) => {
            let (text, cut) = crate::tools::web::head(text, MAX_TEXT);
            ToolResult::ok(text).with(&BrowserData {
                truncated: Some(cut),
                ..BrowserData::default()
            })
        }
        _ => ToolResult::err(format!("no element matches {}", selector.unwrap_or("body"))),
    })
}

/// `click`: click the element `selector` picks.
async fn click(session: &mut Session, selector: &str) -> Result<ToolResult, ToolError> {
    let expr = format!(
        "(() => {{ const e = document.querySelector({}); if (!e) return false; \
         e.scrollIntoView({{block: 'center'}}); e.click(); return true; }})()",
        js_string(selector)
    );
    Ok(match session.eval(&expr).await.map_err(failed)? {
        Value::Bool(true) => {
            // Let what the click started (a handler, a navigation) settle a moment.
            tokio::time::sleep(Duration::from_millis(200)).await;
            ToolResult::ok(format!("Clicked {selector}"))
        }
        _ => ToolResult::err(format!("no element matches {selector}")),
    })
}

/// `type`: focus the element `selector` picks and type `text` into it.
async fn type_into(
    session: &mut Session,
    selector: &str,
    text: &str,
) -> Result<ToolResult, ToolError> {
    let expr = format!(
        "(() => {{ const e = document.querySelector({}); if (!e) return false; \
         e.focus(); return document.activeElement === e; }})()",
        js_string(selector)
    );
    Ok(match session.eval(&expr).await.map_err(failed)? {
        Value::Bool(true) => {
            session
                .call("Input.insertText", json!({"text": text}))
                .await
                .map_err(failed)?;
            ToolResult::ok(format!(
                "Typed {} characters into {selector}",
                text.chars().count()
            ))
        }
        _ => ToolResult::err(format!(
            "no element matching {selector} can take text (missing or not focusable)"
        )),
    })
}

/// `wait_for`: wait until `selector` matches, at most `timeout` seconds (10 by default,
/// never past [`MAX_WAIT`]).
async fn wait_for(
    session: &mut Session,
    selector: &str,
    timeout: Option<u64>,
) -> Result<ToolResult, ToolError> {
    let limit = Duration::from_secs(timeout.unwrap_or(10)).min(MAX_WAIT);
    let expr = format!("!!document.querySelector({})", js_string(selector));
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        if session.eval(&expr).await.map_err(failed)? == Value::Bool(true) {
            return Ok(ToolResult::ok(format!("{selector} is on the page")));
        }
        if tokio::time::Instant::now() >= deadline {
            return Ok(ToolResult::err(format!(
                "{selector} did not appear within {} s",
                limit.as_secs()
            )));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// `s` as a JavaScript string literal.
fn js_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// The width and height a PNG's header gives.
pub fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    if png.len() < 24 || &png[..8] != b"\x89PNG\r\n\x1a\n" || &png[12..16] != b"IHDR" {
        return None;
    }
    let w = u32::from_be_bytes(png[16..20].try_into().ok()?);
    let h = u32::from_be_bytes(png[20..24].try_into().ok()?);
    Some((w, h))
}

/// The browser tool, when a Chromium is found (`LOOM_BROWSER` from `env`, else `PATH`),
/// letting pages reach what `allow` lists; else why it is not offered.
pub fn offered(
    env: &dyn Fn(&str) -> Option<String>,
    allow: AllowPrivate,
) -> Result<Arc<dyn Tool>, String> {
    let configured = env("LOOM_BROWSER").map(PathBuf::from);
    match cdp::find(configured.as_deref()) {
        Some(exe) => Ok(Arc::new(Browser::new(exe, allow))),
        None => Err(match configured {
            Some(p) => format!("LOOM_BROWSER names {}, which is not a file", p.display()),
            None => "no Chromium found on PATH: install it (Debian/Ubuntu: `apt-get install \
                     chromium`) or set LOOM_BROWSER to its path"
                .into(),
        }),
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
