//! The one way web tools reach the network: a request whose every connection is checked
//! by the address guard, hop by hop.
//!
//! Why this is safe against the model reaching private addresses (SSRF):
//! - An IP written in the URL (in any spelling the URL parser accepts: `2130706433`,
//!   `0x7f.1`, `[::ffff:127.0.0.1]`) is parsed to the address first and vetted.
//! - A name is resolved by Loom's own resolver, which vets every address the name has and
//!   hands the connector only those; the connection uses exactly the addresses that were
//!   checked, so a DNS answer that changes between check and use (rebinding) cannot slip
//!   in. A name with any refused address is refused whole.
//! - Proxies from the environment are ignored (a proxy would resolve names itself).
//! - Redirects are never followed by the HTTP library: each `Location` is a new hop, vetted
//!   like the first, with a bounded count; credentials are dropped when a redirect leaves
//!   the origin.
//! - Bodies are read up to a cap and the rest is never downloaded; every hop has a
//!   timeout, and the caller's cancellation stops it.

use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, LOCATION};
use reqwest::{Method, Url};
use thiserror::Error;
use tokio_util::sync::CancellationToken;

use super::secrets::mask_url;
use crate::policy::address_guard::{AllowPrivate, Blocked, vet};

/// How web calls connect: the guard's exceptions and the bounds of one call.
#[derive(Debug, Clone)]
pub struct WebSettings {
    /// Non-public addresses the person lets web tools reach.
    pub allow_private: AllowPrivate,
    /// Longest a hop (connect, request, body) may take.
    pub timeout: Duration,
    /// Longest a connection may take to open.
    pub connect_timeout: Duration,
    /// Most redirects followed in one call.
    pub max_redirects: usize,
}

impl Default for WebSettings {
    fn default() -> Self {
        WebSettings {
            allow_private: AllowPrivate::default(),
            timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(10),
            max_redirects: 5,
        }
    }
}

/// One request to make.
#[derive(Debug, Clone)]
pub struct WebRequest {
    /// The method.
    pub method: Method,
    /// The URL.
    pub url: Url,
    /// Headers to send.
    pub headers: HeaderMap,
    /// The body, if any.
    pub body: Option<Vec<u8>>,
    /// Most body bytes read; the rest is not downloaded.
    pub max_bytes: usize,
    /// Whether redirects are followed (each hop vetted) or returned as they are.
    pub follow_redirects: bool,
    /// Whether the guard applies. Only requests to endpoints the person configured (a
    /// search provider) skip it; any URL a model chose is always guarded.
    pub guarded: bool,
}

/// What came back.
#[derive(Debug, Clone)]
pub struct WebResponse {
    /// The URL that answered (after redirects).
    pub final_url: Url,
    /// The HTTP status.
    pub status: u16,
    /// Response headers.
    pub headers: HeaderMap,
    /// The body, up to the cap.
    pub body: Vec<u8>,
    /// Whether the body was cut at the cap.
    pub truncated: bool,
    /// The URLs redirected through, in order (the first request's URL not included).
    pub redirects: Vec<Url>,
}

/// Why a web request did not produce a response. Messages name the URL masked.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum WebError {
    /// Not an http(s) URL.
    #[error("{0}: only http:// and https:// URLs can be fetched")]
    Scheme(String),
    /// The URL has no host.
    #[error("{0}: the URL has no host")]
    NoHost(String),
    /// The guard refused an address.
    #[error(
        "refused: {url} {via}resolves to {ip}, {what}; web tools only reach public addresses \
         (the person can allow this one with [web] allow_private = [\"{allow_hint}\"] in the config)"
    )]
    Refused {
        /// The URL (masked).
        url: String,
        /// `"(a redirect from …) "` or empty.
        via: String,
        /// The refused address.
        ip: IpAddr,
        /// Its class in words.
        what: &'static str,
        /// The `allow_private` entry that would allow it.
        allow_hint: String,
    },
    /// The name did not resolve.
    #[error("{host} could not be resolved: {message}")]
    Dns {
        /// The host.
        host: String,
        /// What the resolver said.
        message: String,
    },
    /// Too many redirects.
    #[error("{url}: more than {max} redirects; fetch the last URL directly if it is right")]
    TooManyRedirects {
        /// The URL where it stopped (masked).
        url: String,
        /// The limit.
        max: usize,
    },
    /// The hop took too long.
    #[error("{url}: no complete answer within {secs} s")]
    Timeout {
        /// The URL (masked).
        url: String,
        /// The limit.
        secs: u64,
    },
    /// Connecting or talking failed.
    #[error("{url}: {message}")]
    Transport {
        /// The URL (masked).
        url: String,
        /// What went wrong.
        message: String,
    },
    /// The user or the call's timeout cancelled it.
    #[error("cancelled")]
    Cancelled,
}

impl WebError {
    /// Whether trying again later may work (timeouts and connection failures).
    pub fn transient(&self) -> bool {
        matches!(self, WebError::Timeout { .. } | WebError::Transport { .. })
    }
}

type RefusalSlot = Arc<Mutex<Option<(IpAddr, Blocked)>>>;

/// The resolver every guarded client uses: resolves the name, vets every address, and
/// returns only vetted ones (or fails, recording why).
struct GuardResolver {
    allow: AllowPrivate,
    port: u16,
    refused: RefusalSlot,
}

impl Resolve for GuardResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_ascii_lowercase();
        let allow = self.allow.clone();
        let port = self.port;
        let slot = self.refused.clone();
        Box::pin(async move {
            let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), port))
                .await?
                .collect();
            if addrs.is_empty() {
                return Err("the name has no addresses".into());
            }
            for a in &addrs {
                if let Err(why) = vet(&allow, &host, a.ip(), port) {
                    if let Ok(mut s) = slot.lock() {
                        *s = Some((a.ip(), why));
                    }
                    return Err(format!("{} is {}", a.ip(), why.describe()).into());
                }
            }
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

/// The host of `url` as written for matching `allow_private` (lowercase, IPv6 without
/// brackets).
fn host_of(url: &Url) -> Option<String> {
    Some(match url.host()? {
        url::Host::Domain(d) => d.to_ascii_lowercase(),
        url::Host::Ipv4(ip) => ip.to_string(),
        url::Host::Ipv6(ip) => ip.to_string(),
    })
}

fn literal_ip(url: &Url) -> Option<IpAddr> {
    match url.host()? {
        url::Host::Ipv4(ip) => Some(IpAddr::V4(ip)),
        url::Host::Ipv6(ip) => Some(IpAddr::V6(ip)),
        url::Host::Domain(_) => None,
    }
}

fn refused(url: &Url, from: Option<&Url>, ip: IpAddr, why: Blocked, port: u16) -> WebError {
    let allow_hint = match ip {
        IpAddr::V6(v6) => format!("[{v6}]:{port}"),
        IpAddr::V4(v4) => format!("{v4}:{port}"),
    };
    WebError::Refused {
        url: mask_url(url),
        via: from
            .map(|f| format!("(a redirect from {}) ", mask_url(f)))
            .unwrap_or_default(),
        ip,
        what: why.describe(),
        allow_hint,
    }
}

/// Make `req`, following redirects by hand when asked, every hop vetted.
pub async fn send(
    settings: &WebSettings,
    mut req: WebRequest,
    cancel: &CancellationToken,
) -> Result<WebResponse, WebError> {
    crate::llm::ensure_tls();
    let mut redirects = Vec::new();
    let mut previous: Option<Url> = None;
    loop {
        let hop = tokio::select! {
            r = one_hop(settings, &req, previous.as_ref()) => r?,
            _ = cancel.cancelled() => return Err(WebError::Cancelled),
        };
        let location = hop
            .headers
            .get(LOCATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|l| req.url.join(l).ok());
        let is_redirect = matches!(hop.status, 301 | 302 | 303 | 307 | 308);
        let (true, true, Some(next)) = (req.follow_redirects, is_redirect, location) else {
            return Ok(WebResponse { redirects, ..hop });
        };
        if redirects.len() >= settings.max_redirects {
            return Err(WebError::TooManyRedirects {
                url: mask_url(&next),
                max: settings.max_redirects,
            });
        }
        if hop.status == 303 || (matches!(hop.status, 301 | 302) && req.method == Method::POST) {
            req.method = Method::GET;
            req.body = None;
        }
        if next.origin() != req.url.origin() {
            let names: Vec<HeaderName> = req
                .headers
                .keys()
                .filter(|n| super::secrets::is_secret_header(n.as_str()))
                .cloned()
                .collect();
            for n in names {
                req.headers.remove(n);
            }
        }
        previous = Some(std::mem::replace(&mut req.url, next.clone()));
        redirects.push(next);
    }
}

async fn one_hop(
    settings: &WebSettings,
    req: &WebRequest,
    from: Option<&Url>,
) -> Result<WebResponse, WebError> {
    let url = &req.url;
    let shown = mask_url(url);
    if !matches!(url.scheme(), "http" | "https") {
        return Err(WebError::Scheme(shown));
    }
    let host = host_of(url).ok_or_else(|| WebError::NoHost(shown.clone()))?;
    let port = url.port_or_known_default().unwrap_or(80);
    if req.guarded
        && let Some(ip) = literal_ip(url)
        && let Err(why) = vet(&settings.allow_private, &host, ip, port)
    {
        return Err(refused(url, from, ip, why, port));
    }
    let slot: RefusalSlot = Arc::default();
    let client = hop_client(settings, req, port, &slot).map_err(|e| WebError::Transport {
        url: shown.clone(),
        message: e.without_url().to_string(),
    })?;
    let mut builder = client
        .request(req.method.clone(), url.clone())
        .headers(req.headers.clone());
    if let Some(body) = &req.body {
        builder = builder.body(body.clone());
    }
    let timeout = settings.timeout;
    let work = async {
        let mut resp = builder.send().await?;
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let (body, truncated) = read_capped(&mut resp, req.max_bytes).await?;
        Ok::<_, reqwest::Error>(WebResponse {
            final_url: url.clone(),
            status,
            headers,
            body,
            truncated,
            redirects: Vec::new(),
        })
    };
    let failed = |e: reqwest::Error| {
        if let Some((ip, why)) = slot.lock().ok().and_then(|s| *s) {
            return refused(url, from, ip, why, port);
        }
        hop_error(e, shown.clone(), host, timeout)
    };
    match tokio::time::timeout(timeout, work).await {
        Err(_) => Err(WebError::Timeout {
            url: shown.clone(),
            secs: timeout.as_secs(),
        }),
        Ok(Ok(r)) => Ok(r),
        Ok(Err(e)) => Err(failed(e)),
    }
}

/// The HTTP client for one hop: no proxy, no redirects followed, and for a guarded
/// request a resolver that vets every address (a refusal is left in `slot`).
fn hop_client(
    settings: &WebSettings,
    req: &WebRequest,
    port: u16,
    slot: &RefusalSlot,
) -> Result<reqwest::Client, reqwest::Error> {
    let mut builder = crate::llm::net::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(settings.connect_timeout)
        .user_agent(concat!("loom/", env!("CARGO_PKG_VERSION")));
    if req.guarded {
        builder = builder.dns_resolver(Arc::new(GuardResolver {
            allow: settings.allow_private.clone(),
            port,
            refused: slot.clone(),
        }));
    }
    builder.build()
}

/// A response's body, read up to `max_bytes` (the rest is never downloaded), and whether
/// it was cut there.
async fn read_capped(
    resp: &mut reqwest::Response,
    max_bytes: usize,
) -> Result<(Vec<u8>, bool), reqwest::Error> {
    let mut body = Vec::new();
    while let Some(chunk) = resp.chunk().await? {
        let room = max_bytes.saturating_sub(body.len());
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            return Ok((body, true));
        }
        body.extend_from_slice(&chunk);
    }
    Ok((body, false))
}

/// A failed hop's error (other than a refused address): a timeout, a name that did not
/// resolve, or another transport failure.
fn hop_error(e: reqwest::Error, shown: String, host: String, timeout: Duration) -> WebError {
    if e.is_timeout() {
        return WebError::Timeout {
            url: shown,
            secs: timeout.as_secs(),
        };
    }
    let connect = e.is_connect();
    let message = error_chain(&e.without_url());
    if connect && message.contains("dns error") {
        return WebError::Dns { host, message };
    }
    WebError::Transport {
        url: shown,
        message,
    }
}

/// An error and its sources in one line (reqwest's own message is often just "error
/// sending request").
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = s.source();
    }
    out
}

/// Build a header map from name/value pairs; a bad name or value is an error naming it.
pub fn header_map<'a>(
    pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Result<HeaderMap, String> {
    let mut map = HeaderMap::new();
    for (k, v) in pairs {
        let name = HeaderName::from_bytes(k.as_bytes())
            .map_err(|_| format!("{k:?} is not a valid header name"))?;
        let value = HeaderValue::from_str(v).map_err(|_| {
            format!("the value of header {k} is not valid (no line breaks or control characters)")
        })?;
        map.append(name, value);
    }
    Ok(map)
}
