//! Search providers: how a query becomes a request for each, and how each one's answer
//! becomes a ranked list of `{title, url, snippet}`.
//!
//! | provider | request | key |
//! |---|---|---|
//! | Serper | `POST {base}/search` `{"q", "num"}`, header `X-API-KEY` | `SERPER_API_KEY` |
//! | Google Custom Search | `GET {base}/customsearch/v1?key&cx&q&num` | `GOOGLE_CSE_API_KEY`, `GOOGLE_CSE_ID` |
//! | SearxNG | `GET {base}/search?q&format=json` | none (self-hosted) |
//! | Loom-style proxy | `POST {base}/proxy/cse` `{"query", "max_results"}` | optional bearer token |
//!
//! Keys come from environment variables only (named in config, never written in it) and
//! are never shown: URLs are masked and any echo of a key is scrubbed.

use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue};
use reqwest::{Method, Url};
use serde_json::{Value, json};

use super::client::WebRequest;
use super::secrets::Scrubber;
use crate::config::web::ProviderKind;

/// A configured, usable provider.
#[derive(Debug, Clone)]
pub struct Provider {
    /// Which one.
    pub kind: ProviderKind,
    /// Its server (scheme, host, optional port and path prefix).
    pub base: Url,
    /// The API key (Serper, Google) or bearer token (proxy).
    pub key: Option<String>,
    /// Google's search engine id.
    pub cse_id: Option<String>,
}

/// One search result (the type `web_search`'s data carries).
pub use crate::protocol::tool_data::SearchHit as Hit;

fn endpoint(base: &Url, path: &str) -> Url {
    let mut url = base.clone();
    let joined = format!("{}/{}", base.path().trim_end_matches('/'), path);
    url.set_path(&joined);
    url
}

impl Provider {
    /// The request for `query` asking for `n` results (1..=10).
    pub fn request(&self, query: &str, n: usize) -> WebRequest {
        let mut headers = HeaderMap::new();
        let (method, url, body) = match self.kind {
            ProviderKind::Serper => {
                if let Some(v) = self
                    .key
                    .as_deref()
                    .and_then(|k| HeaderValue::from_str(k).ok())
                {
                    headers.insert("x-api-key", v);
                }
                headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
                let body = json!({"q": query, "num": n});
                (Method::POST, endpoint(&self.base, "search"), Some(body))
            }
            ProviderKind::Google => {
                let mut url = endpoint(&self.base, "customsearch/v1");
                url.query_pairs_mut()
                    .append_pair("key", self.key.as_deref().unwrap_or(""))
                    .append_pair("cx", self.cse_id.as_deref().unwrap_or(""))
                    .append_pair("q", query)
                    .append_pair("num", &n.to_string());
                (Method::GET, url, None)
            }
            ProviderKind::Searxng => {
                let mut url = endpoint(&self.base, "search");
                url.query_pairs_mut()
                    .append_pair("q", query)
                    .append_pair("format", "json");
                (Method::GET, url, None)
            }
            ProviderKind::Proxy => {
                if let Some(v) = self
                    .key
                    .as_deref()
                    .and_then(|k| HeaderValue::from_str(&format!("Bearer {k}")).ok())
                {
                    headers.insert(AUTHORIZATION, v);
                }
                headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
                let body = json!({"query": query, "max_results": n});
                (Method::POST, endpoint(&self.base, "proxy/cse"), Some(body))
            }
        };
        headers.insert(
            reqwest::header::ACCEPT,
            HeaderValue::from_static("application/json"),
        );
        WebRequest {
            method,
            url,
            headers,
            body: body.map(|b| b.to_string().into_bytes()),
            max_bytes: 2 << 20,
            follow_redirects: false,
            guarded: false,
        }
    }

    /// The URL a query goes to (for the call's intent; no credentials in it).
    pub fn endpoint_url(&self) -> Url {
        let mut r = self.request("", 1).url;
        r.set_query(None);
        r
    }

    /// What scrubs this provider's credentials from text.
    pub fn scrubber(&self) -> Scrubber {
        Scrubber::new(self.key.iter().cloned())
    }
}

/// The ranked hits in a provider's answer (at most `n`); an answer without a result list
/// is an error saying what came instead.
pub fn parse_hits(kind: ProviderKind, body: &Value, n: usize) -> Result<Vec<Hit>, String> {
    let lists: &[&str] = match kind {
        ProviderKind::Serper => &["organic"],
        ProviderKind::Google => &["items"],
        ProviderKind::Searxng => &["results"],
        ProviderKind::Proxy => &["results", "items", "organic"],
    };
    let list = lists
        .iter()
        .find_map(|k| body.get(*k).and_then(Value::as_array));
    let Some(list) = list else {
        // Google answers a query with no results without `items`.
        if kind == ProviderKind::Google && body.get("searchInformation").is_some() {
            return Ok(Vec::new());
        }
        if let Some(err) = body.get("error") {
            let msg = err
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or_else(|| err.to_string());
            return Err(format!("the search provider reported an error: {msg}"));
        }
        return Err(format!(
            "the {} answer has no result list (expected `{}`)",
            kind.as_str(),
            lists.join("` or `")
        ));
    };
    let text = |item: &Value, keys: &[&str]| {
        keys.iter()
            .find_map(|k| item.get(*k).and_then(Value::as_str))
            .unwrap_or("")
            .trim()
            .to_string()
    };
    Ok(list
        .iter()
        .map(|item| Hit {
            title: text(item, &["title", "name"]),
            url: text(item, &["link", "url", "href"]),
            snippet: text(item, &["snippet", "content", "description"]),
        })
        .filter(|h| !h.url.is_empty())
        .take(n)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn provider(kind: ProviderKind, base: &str) -> Provider {
        Provider {
            kind,
            base: Url::parse(base).unwrap(),
            key: Some("k-secret-123".into()),
            cse_id: Some("cx-1".into()),
        }
    }

    #[test]
    fn requests_have_each_providers_shape() {
        let r = provider(ProviderKind::Serper, "https://google.serper.dev").request("rust", 3);
        assert_eq!(r.method, Method::POST);
        assert_eq!(r.url.as_str(), "https://google.serper.dev/search");
        assert_eq!(r.headers["x-api-key"], "k-secret-123");
        let body: Value = serde_json::from_slice(r.body.as_ref().unwrap()).unwrap();
        assert_eq!(body, json!({"q": "rust", "num": 3}));

        let r = provider(ProviderKind::Google, "https://www.googleapis.com").request("a b", 5);
        assert_eq!(r.method, Method::GET);
        assert_eq!(
            r.url.as_str(),
            "https://www.googleapis.com/customsearch/v1?key=k-secret-123&cx=cx-1&q=a+b&num=5"
        );
        let r = provider(ProviderKind::Searxng, "http://127.0.0.1:8888/sx/").request("q", 5);
        assert_eq!(
            r.url.as_str(),
            "http://127.0.0.1:8888/sx/search?q=q&format=json"
        );
        let r = provider(ProviderKind::Proxy, "https://loom.example").request("q", 2);
        assert_eq!(r.url.as_str(), "https://loom.example/proxy/cse");
        assert_eq!(r.headers[AUTHORIZATION], "Bearer k-secret-123");
        let g = provider(ProviderKind::Google, "https://www.googleapis.com");
        assert!(!g.endpoint_url().as_str().contains("secret"));
    }

    #[test]
    fn answers_become_ranked_hits() {
        let serper = json!({"organic": [
            {"title": "A", "link": "https://a.example", "snippet": "sa", "position": 1},
            {"title": "B", "link": "https://b.example", "snippet": "sb", "position": 2}]});
        let hits = parse_hits(ProviderKind::Serper, &serper, 1).unwrap();
        assert_eq!(
            hits,
            vec![Hit {
                title: "A".into(),
                url: "https://a.example".into(),
                snippet: "sa".into()
            }]
        );
        let sx = json!({"results": [{"title": "S", "url": "https://s.example", "content": "c"}]});
        assert_eq!(
            parse_hits(ProviderKind::Searxng, &sx, 5).unwrap()[0].snippet,
            "c"
        );
        let empty_google = json!({"searchInformation": {"totalResults": "0"}});
        assert!(
            parse_hits(ProviderKind::Google, &empty_google, 5)
                .unwrap()
                .is_empty()
        );
        let err = json!({"error": {"message": "API key not valid"}});
        assert!(
            parse_hits(ProviderKind::Google, &err, 5)
                .unwrap_err()
                .contains("not valid")
        );
        assert!(
            parse_hits(ProviderKind::Serper, &json!({}), 5)
                .unwrap_err()
                .contains("organic")
        );
    }
}
