//! Keeping secrets out of what web calls show: results the model reads, the transcript,
//! events and the screen.
//!
//! Three nets, each catching what the others cannot: header values under names that carry
//! credentials (`Authorization`, `X-API-Key`, `Cookie`, anything with `token`, `secret`,
//! `key`, `password` …) are masked; URL query parameters and user-info that look like
//! credentials (`key=`, `token=`, `sig=`, `user:pass@`) are masked; and known secret
//! values (a search provider's API key) are scrubbed from any text, wherever a server
//! echoed them. Masking keeps the shape (`Bearer ****`), so a person can still see which
//! scheme was used.

use reqwest::Url;
use serde_json::Value;

pub use crate::secrets::{MASK, is_secret_header, is_secret_param};

/// A header value as it may be shown: the scheme of an `Authorization`-style value kept,
/// the credential masked; other values unchanged.
pub fn mask_header(name: &str, value: &str) -> String {
    if !is_secret_header(name) {
        return value.to_string();
    }
    crate::secrets::mask_credential(value)
}

/// A URL as it may be shown: credential query parameters and any password in it masked.
pub fn mask_url(url: &Url) -> String {
    let mut shown = url.clone();
    if !shown.username().is_empty() || shown.password().is_some() {
        let _ = shown.set_username(MASK);
        let _ = shown.set_password(None);
    }
    if shown.query().is_some() {
        let pairs: Vec<(String, String)> = shown
            .query_pairs()
            .map(|(k, v)| {
                let v = if is_secret_param(&k) {
                    MASK.to_string()
                } else {
                    v.into_owned()
                };
                (k.into_owned(), v)
            })
            .collect();
        if pairs.iter().any(|(k, _)| is_secret_param(k)) {
            shown.query_pairs_mut().clear().extend_pairs(pairs);
        }
    }
    shown.to_string()
}

/// A URL given as text, masked when it parses; text that is not a URL is masked as a
/// whole when it has anything that looks like a credential parameter.
pub fn mask_url_str(text: &str) -> String {
    match Url::parse(text) {
        Ok(u) => mask_url(&u),
        Err(_) if text.contains('=') => MASK.to_string(),
        Err(_) => text.to_string(),
    }
}

/// Known secret values, scrubbed from any text shown.
#[derive(Debug, Clone, Default)]
pub struct Scrubber {
    secrets: Vec<String>,
}

impl Scrubber {
    /// A scrubber for these values; values shorter than 6 characters are ignored (they
    /// would mask ordinary words).
    pub fn new(secrets: impl IntoIterator<Item = String>) -> Scrubber {
        let mut secrets: Vec<String> = secrets.into_iter().filter(|s| s.len() >= 6).collect();
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        Scrubber { secrets }
    }

    /// `text` with every known secret replaced by [`MASK`].
    pub fn scrub(&self, text: &str) -> String {
        let mut out = text.to_string();
        for s in &self.secrets {
            if out.contains(s.as_str()) {
                out = out.replace(s.as_str(), MASK);
            }
        }
        out
    }

    /// Scrub every string inside a JSON value.
    pub fn scrub_json(&self, value: &mut Value) {
        match value {
            Value::String(s) if self.secrets.iter().any(|x| s.contains(x.as_str())) => {
                *s = self.scrub(s);
            }
            Value::Array(items) => items.iter_mut().for_each(|v| self.scrub_json(v)),
            Value::Object(map) => map.values_mut().for_each(|v| self.scrub_json(v)),
            _ => {}
        }
    }
}

/// The arguments of a web call as they may be shown: `url` masked, and for a `headers`
/// object each credential header's value masked. Everything else unchanged.
pub fn mask_args(args: &Value) -> Value {
    let mut shown = args.clone();
    if let Some(url) = shown.get_mut("url")
        && let Some(s) = url.as_str()
    {
        *url = Value::String(mask_url_str(s));
    }
    if let Some(Value::Object(headers)) = shown.get_mut("headers") {
        for (name, value) in headers.iter_mut() {
            if let Some(v) = value.as_str() {
                *value = Value::String(mask_header(name, v));
            }
        }
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn credential_headers_are_masked_keeping_the_scheme() {
        assert_eq!(mask_header("Authorization", "Bearer sk-abc"), "Bearer ****");
        assert_eq!(mask_header("authorization", "sk-abc"), "****");
        assert_eq!(mask_header("X-API-Key", "abc123"), "****");
        assert_eq!(mask_header("Cookie", "a=b; c=d"), "****");
        assert_eq!(mask_header("X-Auth-Token", "t"), "****");
        assert_eq!(mask_header("Accept", "text/html"), "text/html");
        assert_eq!(mask_header("Content-Type", "a b"), "a b");
    }

    #[test]
    fn credential_query_parameters_and_passwords_are_masked() {
        let u = Url::parse("https://user:pw@h.example/p?q=rust&key=AIza123&access_token=t&x=1")
            .unwrap();
        let shown = mask_url(&u);
        assert!(
            !shown.contains("AIza123") && !shown.contains("pw@"),
            "{shown}"
        );
        assert!(shown.contains("q=rust") && shown.contains("x=1"), "{shown}");
        assert!(shown.contains("key=****"), "{shown}");
        let plain = Url::parse("https://h.example/a?q=1").unwrap();
        assert_eq!(mask_url(&plain), "https://h.example/a?q=1");
    }

    #[test]
    fn known_secrets_are_scrubbed_anywhere() {
        let s = Scrubber::new(["supersecretvalue".to_string(), "abc".to_string()]);
        assert_eq!(
            s.scrub("echo: supersecretvalue and abc"),
            "echo: **** and abc"
        );
        let mut v = json!({"a": ["x supersecretvalue"], "b": 1});
        s.scrub_json(&mut v);
        assert_eq!(v, json!({"a": ["x ****"], "b": 1}));
    }

    #[test]
    fn arguments_are_masked_for_display() {
        let args = json!({
            "method": "GET",
            "url": "https://api.example/v1?token=xyz",
            "headers": {"Authorization": "Bearer xyz", "Accept": "application/json"}
        });
        let shown = mask_args(&args);
        assert_eq!(shown["headers"]["Authorization"], "Bearer ****");
        assert_eq!(shown["headers"]["Accept"], "application/json");
        assert_eq!(shown["url"], "https://api.example/v1?token=****");
        assert_eq!(shown["method"], "GET");
    }
}
