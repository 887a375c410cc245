//! Which URLs the browser may load: every request a page makes (navigation, redirect,
//! script, image, `fetch()`, form post) is paused by CDP's Fetch domain and judged here.
//!
//! The rules are web_fetch's ([`crate::policy::address_guard`]) with one difference: loopback
//! is allowed, because the app the person develops runs there (the dev server), and
//! opening it is approved per domain like any other site — but only for requests of a
//! frame that shows a loopback page (`local`, decided by [`super::gate`]). A page from
//! elsewhere (a public site, or a LAN address listed in `allow_private`) may not send
//! requests into this machine's services. Private, link-local, metadata
//! and the other non-public addresses are refused after DNS resolution unless listed in
//! `[web] allow_private`. Only `http`, `https`, `ws` and `wss` reach the network; `data:`,
//! `blob:` and `about:` are the page's own content; every other scheme (`file:`,
//! `chrome:`, …) is refused.

use std::net::IpAddr;
use std::time::Duration;

use reqwest::Url;

use crate::policy::address_guard::{AllowPrivate, Blocked, classify, vet};

/// How long one name may take to resolve.
const RESOLVE_LIMIT: Duration = Duration::from_secs(5);

/// Why a URL is refused, in words for the model.
pub type Refusal = String;

/// The verdict on one address for the browser: loopback passes while the page is `local`,
/// the rest as web_fetch.
fn vet_browser(
    allow: &AllowPrivate,
    local: bool,
    host: &str,
    ip: IpAddr,
    port: u16,
) -> Result<(), Blocked> {
    match classify(ip) {
        Some(Blocked::Loopback) if local => Ok(()),
        _ => vet(allow, host, ip, port),
    }
}

/// The addresses `host` stands for: an IP as written (brackets allowed), or what the name
/// resolves to.
async fn resolve(host: &str, port: u16) -> Result<(String, Vec<IpAddr>), Refusal> {
    let host = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase();
    let ips: Vec<IpAddr> = match host.parse::<IpAddr>() {
        Ok(ip) => vec![ip],
        Err(_) => {
            let found = tokio::time::timeout(
                RESOLVE_LIMIT,
                tokio::net::lookup_host((host.as_str(), port)),
            )
            .await
            .map_err(|_| format!("{host} did not resolve within 5 s"))?
            .map_err(|e| format!("{host} does not resolve ({e})"))?;
            let mut ips: Vec<IpAddr> = found.map(|a| a.ip()).collect();
            ips.dedup();
            ips
        }
    };
    if ips.is_empty() {
        return Err(format!("{host} resolves to no address"));
    }
    Ok((host, ips))
}

/// Why a connection cannot be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetError {
    /// The name does not resolve (not a refusal: there is nowhere to go).
    Unresolved(String),
    /// An address it stands for is one the browser may not reach.
    Refused(Refusal),
}

impl std::fmt::Display for TargetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TargetError::Unresolved(why) | TargetError::Refused(why) => f.write_str(why),
        }
    }
}

/// Whether the browser may connect to `host`:`port` (loopback only if the page is
/// `local`): every address the host stands for must pass, and the caller connects to these
/// very addresses (never resolving the name again, so a DNS answer that changes after the
/// check cannot send the connection elsewhere).
pub async fn vet_target(
    host: &str,
    port: u16,
    allow: &AllowPrivate,
    local: bool,
) -> Result<Vec<IpAddr>, TargetError> {
    let (host, ips) = resolve(host, port).await.map_err(TargetError::Unresolved)?;
    for ip in &ips {
        if let Err(why) = vet_browser(allow, local, &host, *ip, port) {
            let loopback = if why == Blocked::Loopback {
                " (this machine's own addresses serve only a page opened on loopback: its \
                 requests, and its navigations on its own host and port; to look at another \
                 local service, open its URL)"
            } else {
                ""
            };
            return Err(TargetError::Refused(format!(
                "{host} ({ip}) is {}{loopback}; the browser may reach only public addresses \
                 and this machine's own (list others in [web] allow_private)",
                why.describe()
            )));
        }
    }
    Ok(ips)
}

/// What a URL's scheme means for the browser.
#[derive(Debug, PartialEq, Eq)]
pub enum Scheme {
    /// It reaches the network: its host must be checked.
    Network,
    /// The page's own content (`data:`, `blob:`, `about:`).
    Local,
    /// Anything else: refused.
    Refused,
}

/// Classify `url`'s scheme.
pub fn scheme(url: &Url) -> Scheme {
    match url.scheme() {
        "http" | "https" | "ws" | "wss" => Scheme::Network,
        "data" | "blob" | "about" => Scheme::Local,
        _ => Scheme::Refused,
    }
}

/// Whether the browser may load `raw` (loopback only if the page is `local`): `Ok`, or
/// why not.
pub async fn check(raw: &str, allow: &AllowPrivate, local: bool) -> Result<(), Refusal> {
    let url = Url::parse(raw).map_err(|e| format!("{raw} is not a valid URL ({e})"))?;
    match scheme(&url) {
        Scheme::Local => return Ok(()),
        Scheme::Refused => {
            return Err(format!(
                "{}: URLs are not loaded by the browser (only http, https, ws and wss)",
                url.scheme()
            ));
        }
        Scheme::Network => {}
    }
    let port = url.port_or_known_default().unwrap_or(80);
    let host = url.host_str().ok_or_else(|| format!("{url} has no host"))?;
    vet_target(host, port, allow, local)
        .await
        .map(|_| ())
        .map_err(|e| e.to_string())
}
