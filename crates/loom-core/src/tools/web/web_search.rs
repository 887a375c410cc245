//! `web_search`: a ranked list of `{title, url, snippet}` from the configured provider.
//!
//! The query goes to the provider the person configured (`[web_search] provider`), never
//! anywhere the model chooses; that endpoint is the person's own choice (a SearxNG on
//! 127.0.0.1 included), so it is not subject to the private-address guard, which protects
//! against URLs a model writes. Rate limits (429), server errors (5xx), timeouts and
//! dropped connections are retried with exponential backoff and jitter, a bounded number
//! of times, honouring a short `Retry-After`. The API key never appears in what the call
//! shows.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::client::send;
use super::search::{Provider, parse_hits};
use super::{SharedWeb, intent_for};
use crate::llm::retry::{RetryPolicy, parse_retry_after};
use crate::policy::NetAccess;
use crate::protocol::tool_data::WebSearchData;
use crate::tools::{CallIntent, ToolContext, ToolError, ToolKind, ToolResult, TypedTool};

/// Results returned when the call does not say.
pub const DEFAULT_RESULTS: usize = 5;
/// The most results a call may ask for.
pub const MAX_RESULTS: usize = 10;

/// Arguments of `web_search`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebSearchArgs {
    /// What to search for, in natural language or keywords.
    pub query: String,
    /// How many results (default 5, 1 to 10).
    pub max_results: Option<usize>,
}

/// The `web_search` tool.
pub struct WebSearch {
    web: SharedWeb,
    provider: Provider,
    retry: RetryPolicy,
}

impl WebSearch {
    /// A `web_search` asking `provider`, retrying as `retry` says.
    pub fn new(web: SharedWeb, provider: Provider, retry: RetryPolicy) -> WebSearch {
        WebSearch {
            web,
            provider,
            retry,
        }
    }
}

const DESCRIPTION: &str = "Search the web and return a ranked list of results ({title, url, \
snippet}), 5 by default (max_results 1 to 10). Use it to find documentation, error messages, \
release notes or APIs; then read a result with web_fetch.";

#[async_trait]
impl TypedTool for WebSearch {
    type Args = WebSearchArgs;
    fn name(&self) -> &'static str {
        "web_search"
    }
    fn description(&self) -> &'static str {
        DESCRIPTION
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Network
    }
    fn check(&self, a: &WebSearchArgs) -> Result<(), ToolError> {
        check(a)
    }
    fn intent(&self, a: &WebSearchArgs) -> Result<CallIntent, ToolError> {
        let method = self.provider.request("", 1).method;
        let mut intent = intent_for(
            NetAccess::Search,
            method.as_str(),
            &self.provider.endpoint_url(),
        );
        intent.url = format!("{} ({:?})", intent.url, a.query);
        Ok(CallIntent::network(intent))
    }
    fn default_timeout(&self) -> Duration {
        let attempts = self.retry.max_attempts.max(1);
        self.web.settings.timeout * attempts + self.retry.cap * attempts + Duration::from_secs(5)
    }
    async fn run(&self, args: Arc<WebSearchArgs>, ctx: &ToolContext) -> ToolResult {
        let scrubber = self.provider.scrubber();
        let mut result = match self.search(&args, ctx).await {
            Ok(r) => r,
            Err(e) => e.into(),
        };
        result.output = scrubber.scrub(&result.output);
        if let Some(err) = &result.error {
            result.error = Some(scrubber.scrub(err));
        }
        if let Some(data) = result.data.as_mut() {
            scrubber.scrub_json(data);
        }
        result
    }
}

/// What the schema cannot say: a query with words, a count in range.
fn check(a: &WebSearchArgs) -> Result<(), ToolError> {
    if a.query.trim().is_empty() {
        return Err(ToolError::InvalidArguments(
            "query is empty; say what to search for".into(),
        ));
    }
    if let Some(n) = a.max_results
        && !(1..=MAX_RESULTS).contains(&n)
    {
        return Err(ToolError::InvalidArguments(format!(
            "max_results must be between 1 and {MAX_RESULTS}, not {n}"
        )));
    }
    Ok(())
}

impl WebSearch {
    async fn search(&self, a: &WebSearchArgs, ctx: &ToolContext) -> Result<ToolResult, ToolError> {
        let n = a.max_results.unwrap_or(DEFAULT_RESULTS);
        let kind = self.provider.kind;
        let mut attempt = 1;
        loop {
            let req = self.provider.request(a.query.trim(), n);
            let (failure, retry_after) = match send(&self.web.settings, req, &ctx.cancel).await {
                Err(super::WebError::Cancelled) => return Err(ToolError::Cancelled),
                Err(e) if e.transient() => (e.to_string(), None),
                Err(e) => return Err(ToolError::Other(e.to_string())),
                Ok(resp) if resp.status == 429 || resp.status >= 500 => {
                    let header = |n: &str| resp.headers.get(n).and_then(|v| v.to_str().ok());
                    (
                        format!("the {} search answered HTTP {}", kind.as_str(), resp.status),
                        parse_retry_after(header("retry-after"), header("retry-after-ms")),
                    )
                }
                Ok(resp) if resp.status >= 400 => {
                    let body = String::from_utf8_lossy(&resp.body);
                    return Err(ToolError::Other(format!(
                        "the {} search answered HTTP {} ({}); check the provider's key and settings \
                         ([web_search] in the config)",
                        kind.as_str(),
                        resp.status,
                        crate::base::text::preview_str(body.trim(), 300)
                    )));
                }
                Ok(resp) => {
                    let body: Value = serde_json::from_slice(&resp.body).map_err(|e| {
                        ToolError::Other(format!(
                            "the {} search did not answer JSON ({e})",
                            kind.as_str()
                        ))
                    })?;
                    let hits = parse_hits(kind, &body, n).map_err(ToolError::Other)?;
                    return Ok(render(kind.as_str(), &a.query, hits, attempt));
                }
            };
            if !self.retry.may_retry(attempt) {
                return Err(ToolError::Other(format!(
                    "{failure}; gave up after {attempt} attempts, try again later"
                )));
            }
            let wait = self.retry.delay(attempt, retry_after, fastrand::f64());
            tokio::select! {
                _ = tokio::time::sleep(wait) => {}
                _ = ctx.cancel.cancelled() => return Err(ToolError::Cancelled),
            }
            attempt += 1;
        }
    }
}

fn render(provider: &str, query: &str, hits: Vec<super::search::Hit>, attempts: u32) -> ToolResult {
    let mut out = String::new();
    if hits.is_empty() {
        out.push_str(&format!("no results for {query:?}"));
    }
    for (i, h) in hits.iter().enumerate() {
        out.push_str(&format!("{}. {}\n   {}\n", i + 1, h.title, h.url));
        if !h.snippet.is_empty() {
            out.push_str(&format!("   {}\n", h.snippet));
        }
    }
    ToolResult::ok(out.trim_end().to_string()).with(&WebSearchData {
        provider: provider.to_string(),
        query: query.to_string(),
        results: hits,
        attempts,
    })
}
