//! The data of the web tools: `web_search`, `web_fetch`, `http_request`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::is_false;

/// `web_search`'s result.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct WebSearchData {
    /// The search provider's name.
    pub provider: String,
    /// The query as given.
    pub query: String,
    /// The results, best first.
    pub results: Vec<SearchHit>,
    /// How many requests it took.
    pub attempts: u32,
}

/// One search result.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SearchHit {
    /// The page's title.
    pub title: String,
    /// Its URL.
    pub url: String,
    /// A short extract.
    pub snippet: String,
}

/// `web_fetch`'s result: what the server answered (the page itself is the output).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct WebFetchData {
    /// The URL fetched in the end (secrets masked).
    pub url: String,
    /// The HTTP status.
    pub status: u16,
    /// The `Content-Type` header (`null` when absent).
    pub content_type: Option<String>,
    /// Bytes of body read.
    pub bytes: u64,
    /// Whether the body was cut at the size limit.
    pub truncated: bool,
    /// The redirects followed (secrets masked); written only when there were some.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub redirects: Vec<String>,
    /// The charset the text was decoded from (absent for a binary body).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub charset: Option<String>,
    /// An HTML page's title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Whether the text was cut to fit the output (absent for a binary body).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_truncated: Option<bool>,
}

/// `http_request`'s result: the response's head (its body is the output).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct HttpData {
    /// The method sent.
    pub method: String,
    /// The URL answered in the end (secrets masked).
    pub url: String,
    /// The HTTP status.
    pub status: u16,
    /// The response headers shown, in the server's order (values scrubbed).
    pub headers: Map<String, Value>,
    /// Bytes of body read.
    pub bytes: u64,
    /// Whether the body was cut at the size limit.
    pub truncated: bool,
    /// Whether the body is binary (written only then).
    #[serde(skip_serializing_if = "is_false")]
    pub binary: bool,
    /// Whether the text was cut to fit the output (absent for a binary body).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_truncated: Option<bool>,
}

/// A key's value kept as given, `null` included (so a present `null` is `Some(Null)` and
/// writes back as `null`, where a missing key stays `None` and is left out).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// `browser`'s result: what the action returned (each action sets its own keys), then the
/// page it left and what the browser refused.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct BrowserData {
    /// `eval`, `text`: whether the text was cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
    /// `console`: how many messages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// `open`: the page's `document.title` as evaluated (`null` when it could not be).
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub title: Option<Value>,
    /// `screenshot`: where the PNG was saved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// `screenshot`: its width in pixels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    /// `screenshot`: its height.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    /// `screenshot`: its size in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// The page's URL after the action (`null` when there is no page).
    pub url: Option<String>,
    /// How the browser was confined, on the call that started it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confinement: Option<String>,
    /// Requests of the page the browser refused (written only when there were some).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<String>,
}
