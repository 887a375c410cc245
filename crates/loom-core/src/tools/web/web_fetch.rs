//! `web_fetch`: read a web page as markdown (or text, or as it is).
//!
//! A GET through the guarded client ([`super::client`]): public addresses only (unless
//! listed in `[web] allow_private`), redirects followed by hand with every hop re-checked
//! (at most five), the download cut at `max_bytes`, a timeout per hop. HTML becomes
//! markdown without scripts, styles and navigation; other text is returned as it is;
//! binaries are refused with what they are. The final URL is always reported, so the
//! model knows where a redirect led.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use reqwest::Method;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::client::{WebRequest, send};
use super::decode::{self, Kind};
use super::{SharedWeb, html, intent_for, parse_url, secrets, web_error};
use crate::policy::NetAccess;
use crate::protocol::tool_data::WebFetchData;
use crate::tools::{CallIntent, ToolContext, ToolError, ToolKind, ToolResult, TypedTool};

/// How the page is returned.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// HTML converted to markdown (default); other text as it is.
    #[default]
    Markdown,
    /// Plain text: HTML's words without markup.
    Text,
    /// The body as it came (decoded to text).
    Raw,
}

/// Arguments of `web_fetch`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebFetchArgs {
    /// The http:// or https:// URL to read.
    pub url: String,
    /// Most bytes to download (default 2 MiB, at most 10 MiB); the rest is not fetched.
    pub max_bytes: Option<usize>,
    /// `markdown` (default), `text` or `raw`.
    pub format: Option<Format>,
}

/// The `web_fetch` tool.
pub struct WebFetch {
    web: SharedWeb,
}

impl WebFetch {
    /// A `web_fetch` connecting as `web` says.
    pub fn new(web: SharedWeb) -> WebFetch {
        WebFetch { web }
    }
}

const DESCRIPTION: &str = "Read a web page (http/https) and return its content: HTML as markdown \
(scripts, styles and navigation removed), other text as it is, in `output`; `data` has the final \
URL after redirects, the HTTP status, content type, title and whether the content was cut. Only \
public addresses can be reached; binary files (images, PDFs, archives) are refused. Use \
web_search first when you do not know the URL.";

#[async_trait]
impl TypedTool for WebFetch {
    type Args = WebFetchArgs;
    fn name(&self) -> &'static str {
        "web_fetch"
    }
    fn description(&self) -> &'static str {
        DESCRIPTION
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Network
    }
    fn intent(&self, a: &WebFetchArgs) -> Result<CallIntent, ToolError> {
        let url = parse_url(&a.url)?;
        Ok(CallIntent::network(intent_for(
            NetAccess::Fetch,
            "GET",
            &url,
        )))
    }
    fn redact(&self, args: &Value) -> Value {
        crate::secrets::mask_json(&secrets::mask_args(args))
    }
    fn default_timeout(&self) -> Duration {
        self.web.settings.timeout * (self.web.settings.max_redirects as u32 + 1)
            + Duration::from_secs(5)
    }
    async fn run(&self, args: Arc<WebFetchArgs>, ctx: &ToolContext) -> ToolResult {
        match fetch(&self.web, &args, ctx).await {
            Ok(r) => r,
            Err(e) => e.into(),
        }
    }
}

/// The guarded GET for a page, asking for text first, following redirects.
fn page_request(web: &SharedWeb, a: &WebFetchArgs) -> Result<WebRequest, ToolError> {
    let url = parse_url(&a.url)?;
    let mut headers = HeaderMap::new();
    headers.insert(
        ACCEPT,
        HeaderValue::from_static("text/html, text/*;q=0.9, application/json;q=0.8, */*;q=0.5"),
    );
    Ok(WebRequest {
        method: Method::GET,
        url,
        headers,
        body: None,
        max_bytes: web.cap(a.max_bytes),
        follow_redirects: true,
        guarded: true,
    })
}

async fn fetch(
    web: &SharedWeb,
    a: &WebFetchArgs,
    ctx: &ToolContext,
) -> Result<ToolResult, ToolError> {
    let req = page_request(web, a)?;
    let resp = send(&web.settings, req, &ctx.cancel)
        .await
        .map_err(web_error)?;
    let content_type = resp
        .headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let final_url = secrets::mask_url(&resp.final_url);
    let kind = decode::kind(content_type.as_deref(), &resp.body);
    let mut data = WebFetchData {
        url: final_url.clone(),
        status: resp.status,
        content_type: content_type.clone(),
        bytes: resp.body.len() as u64,
        truncated: resp.truncated,
        redirects: resp.redirects.iter().map(secrets::mask_url).collect(),
        ..WebFetchData::default()
    };
    if kind == Kind::Binary {
        return Ok(ToolResult::err(format!(
            "{final_url} is not text ({}, {} bytes{}); web_fetch only returns text and web pages",
            content_type.as_deref().unwrap_or("binary content"),
            resp.body.len(),
            if resp.truncated { " or more" } else { "" }
        ))
        .with(&data));
    }
    let format = a.format.unwrap_or_default();
    let (text, charset) = decode::decode(content_type.as_deref(), &resp.body, kind == Kind::Html);
    data.charset = Some(charset.to_string());
    let body = if kind == Kind::Html && format != Format::Raw {
        if let Some(t) = html::title(&text) {
            data.title = Some(t);
        }
        let markdown = tokio::task::spawn_blocking(move || html::to_markdown(&text))
            .await
            .unwrap_or_default();
        match format {
            Format::Text => html::markdown_to_text(&markdown),
            _ => markdown,
        }
    } else {
        text
    };
    // The model reads the page from its top; leave room for the JSON around it.
    let room = ctx.limits.output_budget.saturating_sub(2048).max(1024);
    let (content, cut) = super::head(body, room);
    data.content_truncated = Some(cut);
    if (200..400).contains(&resp.status) {
        Ok(ToolResult::ok(content).with(&data))
    } else {
        let mut r = ToolResult::err(format!(
            "{final_url} answered HTTP {}; the page's content is in output",
            resp.status
        ))
        .with(&data);
        r.output = content;
        Ok(r)
    }
}
