//! The `[web]` and `[web_search]` tables: how the web tools connect, what they may reach,
//! and which search provider answers `web_search`.
//!
//! Keys of search providers are never written in a config file: `[web_search]` names the
//! environment variables they are read from. Which of these settings a project config may
//! set without trust is decided in `config::trust::classify` ([`split`] here does the
//! comparing).

use serde::Deserialize;

use super::trust::Loosening;

/// Which search service answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderKind {
    /// serper.dev.
    Serper,
    /// Google Custom Search JSON API.
    Google,
    /// A SearxNG instance's JSON API.
    Searxng,
    /// A Loom-style server proxy (`POST /proxy/cse`).
    Proxy,
}

impl ProviderKind {
    /// Parse the config value.
    pub fn parse(s: &str) -> Option<ProviderKind> {
        match s.trim().to_ascii_lowercase().as_str() {
            "serper" => Some(ProviderKind::Serper),
            "google" | "google-cse" | "cse" => Some(ProviderKind::Google),
            "searxng" | "searx" => Some(ProviderKind::Searxng),
            "proxy" | "loom" => Some(ProviderKind::Proxy),
            _ => None,
        }
    }

    /// The name shown.
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::Serper => "serper",
            ProviderKind::Google => "google",
            ProviderKind::Searxng => "searxng",
            ProviderKind::Proxy => "proxy",
        }
    }

    /// The server a provider uses when `base_url` is not set (`None`: it must be set).
    pub fn default_base(self) -> Option<&'static str> {
        match self {
            ProviderKind::Serper => Some("https://google.serper.dev"),
            ProviderKind::Google => Some("https://www.googleapis.com"),
            ProviderKind::Searxng | ProviderKind::Proxy => None,
        }
    }

    /// The variable the key is read from by default.
    pub fn default_key_env(self) -> Option<&'static str> {
        match self {
            ProviderKind::Serper => Some("SERPER_API_KEY"),
            ProviderKind::Google => Some("GOOGLE_CSE_API_KEY"),
            ProviderKind::Searxng | ProviderKind::Proxy => None,
        }
    }
}

/// The `[web]` table.
#[derive(Debug, Default, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WebConfig {
    /// Non-public addresses web tools may reach (`127.0.0.1:8080`, `[::1]:3000`,
    /// `intranet.local`).
    pub allow_private: Option<Vec<String>>,
    /// Domains `http_request` calls without asking (`api.github.com`, `*.example.com`).
    pub allowed_domains: Option<Vec<String>>,
    /// Whether web_search and web_fetch run in read-only mode (default false).
    pub read_only: Option<bool>,
    /// Seconds one request (connect, answer, body) may take (default 30).
    pub timeout_secs: Option<u64>,
    /// Most bytes one web_fetch or http_request call downloads (default 10 MiB ceiling).
    pub max_download_bytes: Option<usize>,
    /// Most redirects web_fetch follows (default 5).
    pub max_redirects: Option<usize>,
}

/// The `[web_search]` table.
#[derive(Debug, Default, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WebSearchConfig {
    /// `serper`, `google`, `searxng` or `proxy`.
    pub provider: Option<String>,
    /// The provider's server (required for searxng and proxy).
    pub base_url: Option<String>,
    /// The variable holding the API key (default SERPER_API_KEY or GOOGLE_CSE_API_KEY; for
    /// the proxy, an optional bearer token).
    pub api_key_env: Option<String>,
    /// The variable holding Google's search engine id (default GOOGLE_CSE_ID).
    pub cse_id_env: Option<String>,
    /// Attempts per search, the first included (default 3).
    pub max_retries: Option<u32>,
    /// Wait before the first retry in milliseconds, doubled each time (default 500).
    pub retry_base_ms: Option<u64>,
}

impl WebConfig {
    /// `other`'s values over this one's.
    pub fn overlay(self, other: WebConfig) -> WebConfig {
        WebConfig {
            allow_private: other.allow_private.or(self.allow_private),
            allowed_domains: other.allowed_domains.or(self.allowed_domains),
            read_only: other.read_only.or(self.read_only),
            timeout_secs: other.timeout_secs.or(self.timeout_secs),
            max_download_bytes: other.max_download_bytes.or(self.max_download_bytes),
            max_redirects: other.max_redirects.or(self.max_redirects),
        }
    }
}

impl WebSearchConfig {
    /// `other`'s values over this one's.
    pub fn overlay(self, other: WebSearchConfig) -> WebSearchConfig {
        WebSearchConfig {
            provider: other.provider.or(self.provider),
            base_url: other.base_url.or(self.base_url),
            api_key_env: other.api_key_env.or(self.api_key_env),
            cse_id_env: other.cse_id_env.or(self.cse_id_env),
            max_retries: other.max_retries.or(self.max_retries),
            retry_base_ms: other.retry_base_ms.or(self.retry_base_ms),
        }
    }
}

/// Overlay two optional tables.
pub fn overlay_opt<T>(a: Option<T>, b: Option<T>, f: impl FnOnce(T, T) -> T) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(f(a, b)),
        (a, b) => b.or(a),
    }
}

fn loosening(key: &str, what: String) -> Loosening {
    Loosening {
        key: key.to_string(),
        what,
    }
}

/// Split a project's `[web]` into what applies without trust and what loosens beyond
/// `user`'s: new `allow_private` or `allowed_domains` entries, `read_only = true`.
pub fn split_web(user: Option<&WebConfig>, w: WebConfig, loose: &mut Vec<Loosening>) -> WebConfig {
    let WebConfig {
        allow_private,
        allowed_domains,
        read_only,
        timeout_secs,
        max_download_bytes,
        max_redirects,
    } = w;
    let mine = user.cloned().unwrap_or_default();
    let mut kept = WebConfig {
        timeout_secs,
        max_download_bytes,
        max_redirects,
        ..WebConfig::default()
    };
    let new_entries = |list: &Option<Vec<String>>, ours: &Option<Vec<String>>| -> Vec<String> {
        let ours = ours.clone().unwrap_or_default();
        list.iter()
            .flatten()
            .filter(|e| !ours.contains(e))
            .cloned()
            .collect()
    };
    let fresh = new_entries(&allow_private, &mine.allow_private);
    if fresh.is_empty() {
        kept.allow_private = allow_private;
    } else {
        loose.push(loosening(
            "web.allow_private",
            format!("lets web tools reach {}", fresh.join(", ")),
        ));
    }
    let fresh = new_entries(&allowed_domains, &mine.allowed_domains);
    if fresh.is_empty() {
        kept.allowed_domains = allowed_domains;
    } else {
        loose.push(loosening(
            "web.allowed_domains",
            format!(
                "sends http_request calls to {} without asking",
                fresh.join(", ")
            ),
        ));
    }
    match read_only {
        Some(true) if mine.read_only != Some(true) => loose.push(loosening(
            "web.read_only",
            "lets web_search and web_fetch run in read-only mode".into(),
        )),
        other => kept.read_only = other,
    }
    kept
}

/// Split a project's `[web_search]`: a provider, server or key variable other than
/// `user`'s loosens (queries, and a key, would go elsewhere).
pub fn split_search(
    user: Option<&WebSearchConfig>,
    s: WebSearchConfig,
    loose: &mut Vec<Loosening>,
) -> WebSearchConfig {
    let WebSearchConfig {
        provider,
        base_url,
        api_key_env,
        cse_id_env,
        max_retries,
        retry_base_ms,
    } = s;
    let mine = user.cloned().unwrap_or_default();
    let mut kept = WebSearchConfig {
        max_retries,
        retry_base_ms,
        ..WebSearchConfig::default()
    };
    let mut check =
        |key: &str, value: Option<String>, ours: &Option<String>, what: &str| match value {
            Some(v) if Some(&v) != ours.as_ref() => {
                loose.push(loosening(key, format!("{what} {v}")));
                None
            }
            other => other,
        };
    kept.provider = check(
        "web_search.provider",
        provider,
        &mine.provider,
        "sends your web searches to",
    );
    kept.base_url = check(
        "web_search.base_url",
        base_url,
        &mine.base_url,
        "sends your web searches to",
    );
    kept.api_key_env = check(
        "web_search.api_key_env",
        api_key_env,
        &mine.api_key_env,
        "sends to the search provider the value of the variable",
    );
    kept.cse_id_env = check(
        "web_search.cse_id_env",
        cse_id_env,
        &mine.cse_id_env,
        "sends to the search provider the value of the variable",
    );
    kept
}
