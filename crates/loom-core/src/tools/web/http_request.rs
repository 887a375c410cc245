//! `http_request`: call an HTTP API the person works with.
//!
//! Any method, headers and a text body, through the guarded client: public addresses only
//! (unless listed in `[web] allow_private`), a timeout, the response body read up to a
//! cap. Redirects are not followed: a 3xx comes back with its `Location`, so a request to
//! another domain is a new call that the policy judges on its own (an allowed API cannot
//! bounce a request with its credentials to a domain nobody approved).
//!
//! Credentials never come back: header values under credential names, credential query
//! parameters and the values themselves (wherever the server echoed them) are masked in
//! the result, and the call's arguments are masked where they are shown and recorded.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use reqwest::Method;
use reqwest::header::CONTENT_TYPE;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::client::{WebRequest, header_map, send};
use super::decode::{self, Kind};
use super::secrets::{self, Scrubber};
use super::{SharedWeb, intent_for, parse_url, web_error};
use crate::policy::NetAccess;
use crate::protocol::tool_data::HttpData;
use crate::tools::{CallIntent, ToolContext, ToolError, ToolKind, ToolResult, TypedTool, args};

/// The methods a call may use.
const METHODS: &[&str] = &["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
/// Largest request body, in bytes.
const MAX_BODY: usize = 1 << 20;

/// Arguments of `http_request`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpRequestArgs {
    /// GET, HEAD, POST, PUT, PATCH, DELETE or OPTIONS.
    pub method: String,
    /// The http:// or https:// URL.
    pub url: String,
    /// Request headers, name to value.
    pub headers: Option<std::collections::BTreeMap<String, String>>,
    /// The request body (text, e.g. JSON), at most 1 MiB.
    pub body: Option<String>,
    /// Most response bytes to read (default 2 MiB, at most 10 MiB).
    pub max_bytes: Option<usize>,
}

/// The `http_request` tool.
pub struct HttpRequest {
    web: SharedWeb,
}

impl HttpRequest {
    /// An `http_request` connecting as `web` says.
    pub fn new(web: SharedWeb) -> HttpRequest {
        HttpRequest { web }
    }
}

const DESCRIPTION: &str = "Send an HTTP request to an API and return its status, headers (in \
`data`) and body (in `output`, cut at max_bytes). Redirects are not followed: a 3xx returns its \
Location for you to request if it is right. Only public addresses can be reached. Credentials in \
headers and URLs are masked in everything shown. Use web_fetch to read web pages.";

fn method_of(raw: &str) -> Result<Method, ToolError> {
    let m = raw.trim().to_ascii_uppercase();
    if !METHODS.contains(&m.as_str()) {
        return Err(ToolError::InvalidArguments(format!(
            "method {raw:?} is not supported; use one of {}",
            METHODS.join(", ")
        )));
    }
    Method::from_bytes(m.as_bytes()).map_err(|e| ToolError::InvalidArguments(e.to_string()))
}

#[async_trait]
impl TypedTool for HttpRequest {
    type Args = HttpRequestArgs;
    fn name(&self) -> &'static str {
        "http_request"
    }
    fn description(&self) -> &'static str {
        DESCRIPTION
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Network
    }
    fn intent(&self, a: &HttpRequestArgs) -> Result<CallIntent, ToolError> {
        let method = method_of(&a.method)?;
        let url = parse_url(&a.url)?;
        Ok(CallIntent::network(intent_for(
            NetAccess::Request,
            method.as_str(),
            &url,
        )))
    }
    fn redact(&self, args: &Value) -> Value {
        let mut shown = secrets::mask_args(args);
        if let (Some(body), Some(scrubber)) = (
            shown
                .get("body")
                .and_then(Value::as_str)
                .map(str::to_string),
            args::parse::<HttpRequestArgs>(args.clone())
                .ok()
                .map(|a| secrets_of(&a)),
        ) {
            shown["body"] = Value::String(scrubber.scrub(&body));
        }
        crate::secrets::mask_json(&shown)
    }
    fn default_timeout(&self) -> Duration {
        self.web.settings.timeout + Duration::from_secs(5)
    }
    async fn run(&self, args: Arc<HttpRequestArgs>, ctx: &ToolContext) -> ToolResult {
        match request(&self.web, &args, ctx).await {
            Ok(r) => r,
            Err(e) => e.into(),
        }
    }
}

/// The credential values a call carries (secret header values, credential query
/// parameters), to scrub from whatever comes back.
fn secrets_of(a: &HttpRequestArgs) -> Scrubber {
    let mut values = Vec::new();
    for (k, v) in a.headers.iter().flatten() {
        if secrets::is_secret_header(k) {
            values.push(v.clone());
            if let Some((_, cred)) = v.split_once(' ') {
                values.push(cred.trim().to_string());
            }
        }
    }
    if let Ok(url) = reqwest::Url::parse(&a.url) {
        values.extend(
            url.query_pairs()
                .filter(|(k, _)| secrets::is_secret_param(k))
                .map(|(_, v)| v.into_owned()),
        );
        if let Some(p) = url.password() {
            values.push(p.to_string());
        }
    }
    Scrubber::new(values)
}

/// The request the arguments describe (guarded, redirects not followed); bad arguments
/// are refused with what is wrong.
fn outgoing(web: &SharedWeb, a: &HttpRequestArgs) -> Result<WebRequest, ToolError> {
    let method = method_of(&a.method)?;
    let url = parse_url(&a.url)?;
    let headers = header_map(
        a.headers
            .iter()
            .flatten()
            .map(|(k, v)| (k.as_str(), v.as_str())),
    )
    .map_err(ToolError::InvalidArguments)?;
    if a.body.as_ref().is_some_and(|b| b.len() > MAX_BODY) {
        return Err(ToolError::InvalidArguments(format!(
            "the body is larger than {MAX_BODY} bytes"
        )));
    }
    Ok(WebRequest {
        method,
        url,
        headers,
        body: a.body.clone().map(String::into_bytes),
        max_bytes: web.cap(a.max_bytes),
        follow_redirects: false,
        guarded: true,
    })
}

/// The response's headers as the model sees them: a redirect's URL and secret-looking
/// values masked, the request's own secrets scrubbed.
fn shown_headers(headers: &reqwest::header::HeaderMap, scrubber: &Scrubber) -> Map<String, Value> {
    let mut shown = Map::new();
    for (name, value) in headers {
        let v = String::from_utf8_lossy(value.as_bytes());
        let v = if name == reqwest::header::LOCATION {
            secrets::mask_url_str(&v)
        } else {
            secrets::mask_header(name.as_str(), &v)
        };
        shown.insert(name.as_str().to_string(), Value::String(scrubber.scrub(&v)));
    }
    shown
}

async fn request(
    web: &SharedWeb,
    a: &HttpRequestArgs,
    ctx: &ToolContext,
) -> Result<ToolResult, ToolError> {
    let scrubber = secrets_of(a);
    let req = outgoing(web, a)?;
    let method = req.method.clone();
    let resp = send(&web.settings, req, &ctx.cancel)
        .await
        .map_err(web_error)?;
    let shown_headers = shown_headers(&resp.headers, &scrubber);
    let content_type = resp
        .headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let mut data = HttpData {
        method: method.as_str().to_string(),
        url: secrets::mask_url(&resp.final_url),
        status: resp.status,
        headers: shown_headers,
        bytes: resp.body.len() as u64,
        truncated: resp.truncated,
        ..HttpData::default()
    };
    let output = match decode::kind(content_type.as_deref(), &resp.body) {
        Kind::Binary if !resp.body.is_empty() => {
            data.binary = true;
            format!(
                "(a binary body of {} bytes, {}, not shown)",
                resp.body.len(),
                content_type.as_deref().unwrap_or("no content type")
            )
        }
        _ => {
            let (text, _) = decode::decode(content_type.as_deref(), &resp.body, false);
            let room = ctx.limits.output_budget.saturating_sub(4096).max(1024);
            let (text, cut) = super::head(text, room);
            data.content_truncated = Some(cut);
            scrubber.scrub(&text)
        }
    };
    // Scrubbed whole: a known secret the server echoed anywhere in its head is masked.
    let mut data = serde_json::to_value(&data).unwrap_or_default();
    scrubber.scrub_json(&mut data);
    let mut result = if resp.status < 400 {
        ToolResult::ok(output)
    } else {
        let mut r = ToolResult::err(format!(
            "the server answered HTTP {}; its body is in output",
            resp.status
        ));
        r.output = output;
        r
    };
    result.data = Some(data);
    Ok(result)
}
