//! Which URLs the browser may load: every request a page makes (navigation, redirect,
//! script, image, `fetch()`, form post) is paused by CDP's Fetch domain and judged here.
//!
//! The rules are web_fetch's ([`crate::tools::web::guard`]) with one difference: loopback
//! is allowed, because the app the person develops runs there (the dev server), and
//! opening it is approved per domain like any other site. Private, link-local, metadata
//! and the other non-public addresses are refused after DNS resolution unless listed in
//! `[web] allow_private`. Only `http`, `https`, `ws` and `wss` reach the network; `data:`,
//! `blob:` and `about:` are the page's own content; every other scheme (`file:`,
//! `chrome:`, …) is refused.

use std::net::IpAddr;
use std::time::Duration;

use reqwest::Url;

use crate::tools::web::guard::{AllowPrivate, Blocked, classify, vet};

/// How long one name may take to resolve.
const RESOLVE_LIMIT: Duration = Duration::from_secs(5);

/// Why a URL is refused, in words for the model.
pub type Refusal = String;

/// The verdict on one address for the browser: loopback passes, the rest as web_fetch.
fn vet_browser(allow: &AllowPrivate, host: &str, ip: IpAddr, port: u16) -> Result<(), Blocked> {
    match classify(ip) {
        Some(Blocked::Loopback) => Ok(()),
        _ => vet(allow, host, ip, port),
    }
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

/// Whether the browser may load `raw`: `Ok`, or why not.
pub async fn check(raw: &str, allow: &AllowPrivate) -> Result<(), Refusal> {
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
    let host = url
        .host_str()
        .ok_or_else(|| format!("{raw} has no host"))?
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
            found.map(|a| a.ip()).collect()
        }
    };
    if ips.is_empty() {
        return Err(format!("{host} resolves to no address"));
    }
    for ip in ips {
        if let Err(why) = vet_browser(allow, &host, ip, port) {
            return Err(format!(
                "{host} ({ip}) is {}; the browser may reach only public addresses and this \
                 machine's own (list others in [web] allow_private)",
                why.describe()
            ));
        }
    }
    Ok(())
}
