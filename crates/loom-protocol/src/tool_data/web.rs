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
