//! Zero-config start: finding a model server on this machine, and listing models.
//!
//! With no base URL and no API key configured, Loom asks the usual local servers
//! (`GET /v1/models`, short timeout, all at once) and uses the first in priority order that
//! answers. When none does, [`how_to_configure`] says exactly what to set.

use std::time::Duration;

use serde_json::Value;

/// The local servers Loom looks for, in priority order: (name, base URL).
pub const LOCAL_SERVERS: &[(&str, &str)] = &[
    ("Ollama", "http://127.0.0.1:11434/v1"),
    ("LM Studio", "http://127.0.0.1:1234/v1"),
    ("llama.cpp server", "http://127.0.0.1:8080/v1"),
    ("vLLM", "http://127.0.0.1:8000/v1"),
];

/// How long a probe waits for an answer.
pub const PROBE_TIMEOUT: Duration = Duration::from_millis(600);

/// A server that answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Which kind of server.
    pub name: String,
    /// Its base URL.
    pub base_url: String,
    /// The models it offers.
    pub models: Vec<String>,
}

/// `GET {base_url}/models`: the model ids a server offers.
pub async fn list_models(
    base_url: &str,
    api_key: Option<&str>,
    timeout: Duration,
) -> Result<Vec<String>, String> {
    let client = super::net::shared().ok_or_else(|| "cannot start an HTTP client".to_string())?;
    let url = format!("{}/models", base_url.trim_end_matches('/'));
    let mut req = client.get(&url).timeout(timeout);
    if let Some(key) = api_key.filter(|k| !k.is_empty()) {
        req = req.bearer_auth(key);
    }
    let resp = req.send().await.map_err(|e| format!("{url}: {e}"))?;
    let status = resp.status();
    let body: Value = super::bounded::json_capped(resp, super::bounded::PROBE_BODY_CAP)
        .await
        .ok_or_else(|| {
            format!(
                "{url}: not a model list (not JSON, cut off, or longer than {} MiB)",
                super::bounded::PROBE_BODY_CAP >> 20
            )
        })?;
    if !status.is_success() {
        let msg = body
            .get("error")
            .map(super::wire::error_message)
            .unwrap_or_else(|| body.to_string());
        return Err(format!("{url}: HTTP {status}: {msg}"));
    }
    let models = body
        .get("data")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|m| m.get("id").and_then(Value::as_str).map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    Ok(models)
}

/// Probe `candidates` concurrently; the first (in the given order) that answers wins.
pub async fn discover_among(candidates: &[(&str, &str)], timeout: Duration) -> Option<Found> {
    let probes = candidates.iter().map(|(name, url)| async move {
        list_models(url, None, timeout)
            .await
            .ok()
            .map(|models| Found {
                name: name.to_string(),
                base_url: url.to_string(),
                models,
            })
    });
    futures::future::join_all(probes)
        .await
        .into_iter()
        .flatten()
        .next()
}

/// Probe the usual local servers.
pub async fn discover() -> Option<Found> {
    discover_among(LOCAL_SERVERS, PROBE_TIMEOUT).await
}

/// Whether a base URL points at this machine or a private network, where servers usually
/// need no API key.
pub fn is_local(base_url: &str) -> bool {
    let host = base_url
        .split("://")
        .nth(1)
        .unwrap_or(base_url)
        .split(['/', '?'])
        .next()
        .unwrap_or("");
    let host = host.rsplit_once('@').map(|(_, h)| h).unwrap_or(host);
    let host = if host.starts_with('[') {
        host.split(']')
            .next()
            .unwrap_or(host)
            .trim_start_matches('[')
    } else {
        host.split(':').next().unwrap_or(host)
    };
    host == "localhost"
        || host.ends_with(".local")
        || host
            .parse::<std::net::IpAddr>()
            .map(|ip| match ip {
                std::net::IpAddr::V4(v4) => {
                    v4.is_loopback() || v4.is_private() || v4.is_link_local()
                }
                std::net::IpAddr::V6(v6) => v6.is_loopback(),
            })
            .unwrap_or(false)
}

/// Instructions for connecting a provider, naming what was tried.
pub fn how_to_configure() -> String {
    let tried: Vec<String> = LOCAL_SERVERS
        .iter()
        .map(|(name, url)| format!("{name} ({url})"))
        .collect();
    format!(
        "No model provider is configured and no local server answered (looked for {}).\n\
         Connect one of these ways:\n\
         - OpenAI or any hosted API: export OPENAI_API_KEY=... (and OPENAI_BASE_URL=... for a \
         non-OpenAI host), then run loom again\n\
         - flags: loom --base-url http://host:port/v1 --model NAME [--api-key-env VAR]\n\
         - config: base_url, model and api_key_env in ~/.config/loom/config.toml or \
         .loom/config.toml\n\
         - local: start Ollama (ollama serve), LM Studio, llama.cpp's llama-server or vLLM",
        tried.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_hosts() {
        for url in [
            "http://127.0.0.1:11434/v1",
            "http://localhost:8080/v1",
            "http://[::1]:8000/v1",
            "http://192.168.1.20:1234/v1",
            "http://user@10.0.0.5/v1",
        ] {
            assert!(is_local(url), "{url}");
        }
        for url in [
            "https://api.openai.com/v1",
            "https://openrouter.ai/api/v1",
            "http://8.8.8.8/v1",
        ] {
            assert!(!is_local(url), "{url}");
        }
    }

    #[tokio::test]
    async fn nothing_answers_on_closed_ports() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let url = format!("http://127.0.0.1:{port}/v1");
        let found = discover_among(&[("nothing", &url)], Duration::from_millis(300)).await;
        assert!(found.is_none());
        assert!(how_to_configure().contains("OPENAI_API_KEY"));
    }
}
