//! Building the web tools from configuration: web_fetch and http_request always (the
//! policy decides when they run), web_search only with a usable provider — a provider
//! named, its server known, its keys present in the environment. What is missing is said
//! in words that tell the person how to enable it (`loom tool list`). The `browser` is
//! offered when a Chromium is found (on PATH, or named by `LOOM_BROWSER`).

use std::sync::Arc;
use std::time::Duration;

use reqwest::Url;

use super::Unoffered;
use crate::config::Config;
use crate::config::web::ProviderKind;
use crate::llm::retry::RetryPolicy;
use crate::policy::address_guard::AllowPrivate;
use crate::tools::Tool;
use crate::tools::web::http_request::HttpRequest;
use crate::tools::web::search::Provider;
use crate::tools::web::web_fetch::WebFetch;
use crate::tools::web::web_search::WebSearch;
use crate::tools::web::{WebContext, WebSettings};

/// How to configure web_search, for messages.
const HOW: &str = "set [web_search] provider = \"serper\" (with SERPER_API_KEY), \"google\" \
(with GOOGLE_CSE_API_KEY and GOOGLE_CSE_ID), \"searxng\" (with base_url = your instance) or \
\"proxy\" (with base_url = the server) in ~/.config/loom/config.toml";

/// The web context `config` describes.
pub fn web_context(config: &Config) -> WebContext {
    let w = &config.tools.web;
    WebContext {
        settings: WebSettings {
            allow_private: AllowPrivate::parse(w.allow_private.as_deref().unwrap_or(&[]))
                .unwrap_or_default(),
            timeout: Duration::from_secs(w.timeout_secs.unwrap_or(30).clamp(1, 600)),
            connect_timeout: Duration::from_secs(10),
            max_redirects: w.max_redirects.unwrap_or(5).min(20),
        },
        max_download_bytes: w.max_download_bytes,
    }
}

/// The configured search provider, or why there is none.
pub fn search_provider(
    config: &Config,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Provider, String> {
    let s = &config.tools.web_search;
    let Some(name) = &s.provider else {
        return Err(format!("no search provider is configured: {HOW}"));
    };
    let kind = ProviderKind::parse(name)
        .ok_or_else(|| format!("unknown search provider {name:?}: {HOW}"))?;
    let Some(base) = s.base_url.as_deref().or(kind.default_base()) else {
        return Err(format!(
            "the {} provider needs its server: set [web_search] base_url",
            kind.as_str()
        ));
    };
    let base = Url::parse(base)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
        .ok_or_else(|| format!("[web_search] base_url {base:?} is not an http(s) URL"))?;
    let nonempty = |k: &str| env(k).filter(|v| !v.trim().is_empty());
    let key_env = s
        .api_key_env
        .clone()
        .or_else(|| kind.default_key_env().map(str::to_string));
    let key = key_env.as_deref().and_then(nonempty);
    if matches!(kind, ProviderKind::Serper | ProviderKind::Google) && key.is_none() {
        return Err(format!(
            "the {} provider needs its API key in ${}",
            kind.as_str(),
            key_env.unwrap_or_default()
        ));
    }
    let cse_id = if kind == ProviderKind::Google {
        let id_env = s
            .cse_id_env
            .clone()
            .unwrap_or_else(|| "GOOGLE_CSE_ID".into());
        Some(nonempty(&id_env).ok_or_else(|| {
            format!("the google provider needs the search engine id in ${id_env}")
        })?)
    } else {
        None
    };
    Ok(Provider {
        kind,
        base,
        key,
        cse_id,
    })
}

/// The retry bounds of a search under `config`.
pub fn search_retry(config: &Config) -> RetryPolicy {
    let s = &config.tools.web_search;
    RetryPolicy {
        max_attempts: s.max_retries.unwrap_or(3).clamp(1, 10),
        base: Duration::from_millis(s.retry_base_ms.unwrap_or(500).min(10_000)),
        cap: Duration::from_secs(8),
        max_retry_after: Duration::from_secs(10),
    }
}

/// The web tools `config` offers, and web_search's absence explained when it is absent.
pub fn web_tools(
    config: &Config,
    env: &dyn Fn(&str) -> Option<String>,
) -> (Vec<Arc<dyn Tool>>, Vec<Unoffered>) {
    let web = Arc::new(web_context(config));
    let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
    let mut missing = Vec::new();
    match search_provider(config, env) {
        Ok(provider) => tools.push(Arc::new(WebSearch::new(
            web.clone(),
            provider,
            search_retry(config),
        ))),
        Err(why) => missing.push(Unoffered {
            name: "web_search",
            why,
        }),
    }
    tools.push(Arc::new(WebFetch::new(web.clone())));
    tools.push(Arc::new(HttpRequest::new(web.clone())));
    match crate::tools::browser::offered(env, web.settings.allow_private.clone()) {
        Ok(browser) => tools.push(browser),
        Err(why) => missing.push(Unoffered {
            name: "browser",
            why,
        }),
    }
    (tools, missing)
}
