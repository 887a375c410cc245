//! The web tools: `web_search`, `web_fetch` and `http_request`, and what keeps them safe.
//!
//! Every connection goes through [`client::send`], where the address guard
//! ([`crate::policy::address_guard`]) refuses private, loopback, link-local, metadata and
//! other non-public addresses after DNS resolution and on every redirect (unless the
//! person listed one in `[web] allow_private`). What a call shows — results, the
//! transcript, events, the screen — has credentials masked ([`secrets`]). Which calls run
//! without asking is the policy's business (`policy::network`): the tools only describe
//! where a call goes.
//!
//! Search providers (Serper, Google Custom Search, SearxNG, a Loom-style proxy) live in
//! [`search`]; a provider is offered to the model only when it is configured.

pub mod client;
pub mod decode;
pub mod html;
pub mod http_request;
pub mod search;
pub mod secrets;
pub mod web_fetch;
pub mod web_search;

use std::sync::Arc;

use reqwest::Url;

pub use client::{WebError, WebSettings};

use super::ToolError;
use crate::policy::{NetAccess, NetworkIntent};

/// Bytes downloaded at most by one web_fetch or http_request call, unless the call asks for
/// less (or the config for another bound).
pub const DEFAULT_DOWNLOAD_BYTES: usize = 2 << 20;
/// The most any call may ask to download.
pub const MAX_DOWNLOAD_BYTES: usize = 10 << 20;

/// What the web tools share: how they connect and how much they download.
#[derive(Debug, Clone, Default)]
pub struct WebContext {
    /// The guard's exceptions and the bounds of a call.
    pub settings: WebSettings,
    /// Bytes downloaded at most per call (config `[web] max_download_bytes`).
    pub max_download_bytes: Option<usize>,
}

impl WebContext {
    /// The download cap for a call asking for `asked` bytes.
    pub fn cap(&self, asked: Option<usize>) -> usize {
        let ceiling = self
            .max_download_bytes
            .unwrap_or(MAX_DOWNLOAD_BYTES)
            .clamp(1024, MAX_DOWNLOAD_BYTES);
        asked.unwrap_or(DEFAULT_DOWNLOAD_BYTES).clamp(1, ceiling)
    }
}

/// Shared handle the tools hold.
pub type SharedWeb = Arc<WebContext>;

/// Parse a URL a model gave, with an error the model can act on.
pub fn parse_url(raw: &str) -> Result<Url, ToolError> {
    let url = Url::parse(raw.trim()).map_err(|e| {
        ToolError::InvalidArguments(format!(
            "url {:?} is not a valid absolute URL ({e}); give it with its scheme, e.g. https://example.com/page",
            secrets::mask_url_str(raw)
        ))
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(ToolError::InvalidArguments(format!(
            "only http:// and https:// URLs can be used, not {}:",
            url.scheme()
        )));
    }
    if url.host().is_none() {
        return Err(ToolError::InvalidArguments("the URL has no host".into()));
    }
    Ok(url)
}

/// The host of `url` as grants and domain lists see it (lowercase, IPv6 in brackets).
pub fn domain_of(url: &Url) -> String {
    url.host_str().unwrap_or("").to_ascii_lowercase()
}

/// The intent of a call to `url`.
pub fn intent_for(access: NetAccess, method: &str, url: &Url) -> NetworkIntent {
    NetworkIntent {
        access,
        domain: domain_of(url),
        method: method.to_string(),
        url: secrets::mask_url(url),
    }
}

/// `text` cut to at most `max` bytes at a character boundary, and whether it was cut.
pub fn head(text: String, max: usize) -> (String, bool) {
    if text.len() <= max {
        return (text, false);
    }
    let cut = crate::base::text::floor_char_boundary(&text, max);
    (text[..cut].to_string(), true)
}

/// How a call's web error reads for the model.
pub fn web_error(e: WebError) -> ToolError {
    match e {
        WebError::Cancelled => ToolError::Cancelled,
        other => ToolError::Other(other.to_string()),
    }
}
