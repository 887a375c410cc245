//! The web tools against real HTTP servers on 127.0.0.1 (allowed explicitly through the
//! tools' settings, as `[web] allow_private` would): each search provider's request and
//! answer, retries, HTML to markdown, the address guard after DNS and on redirects, size
//! caps and credential masking.

use std::sync::Arc;
use std::time::Duration;

use loom::config::web::ProviderKind;
use loom::llm::retry::RetryPolicy;
use loom::policy::address_guard::AllowPrivate;
use loom::tools::web::http_request::HttpRequest;
use loom::tools::web::search::Provider;
use loom::tools::web::web_fetch::WebFetch;
use loom::tools::web::web_search::WebSearch;
use loom::tools::web::{WebContext, WebSettings};
use loom::tools::{Tool, ToolContext, ToolResult};
use serde_json::{Value, json};

use crate::support::web::{WebBody, WebReply, WebServer};

fn web(allow: &[String]) -> Arc<WebContext> {
    Arc::new(WebContext {
        settings: WebSettings {
            allow_private: AllowPrivate::parse(allow).unwrap(),
            timeout: Duration::from_secs(10),
            ..WebSettings::default()
        },
        max_download_bytes: None,
    })
}

fn ctx() -> (tempfile::TempDir, ToolContext) {
    let d = tempfile::tempdir().unwrap();
    let c = ToolContext::for_workspace(d.path()).unwrap();
    (d, c)
}

fn fast_retry() -> RetryPolicy {
    RetryPolicy {
        max_attempts: 3,
        base: Duration::from_millis(5),
        cap: Duration::from_millis(50),
        max_retry_after: Duration::from_millis(50),
    }
}

fn provider(kind: ProviderKind, server: &WebServer, key: Option<&str>) -> Provider {
    Provider {
        kind,
        base: server.url("/").parse().unwrap(),
        key: key.map(str::to_string),
        cse_id: Some("engine-7".into()),
    }
}

async fn search(
    kind: ProviderKind,
    server: &WebServer,
    key: Option<&str>,
    args: Value,
) -> ToolResult {
    let (_d, c) = ctx();
    let tool = WebSearch::new(web(&[]), provider(kind, server, key), fast_retry());
    tool.execute(args, &c).await
}

fn titles(r: &ToolResult) -> Vec<String> {
    r.data.as_ref().unwrap()["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["title"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn serper_request_and_answer() {
    let server = WebServer::start().await;
    server.route(
        "/search",
        vec![WebReply::json(json!({"organic": [
            {"title": "Tokio", "link": "https://tokio.rs", "snippet": "async runtime", "position": 1},
            {"title": "Docs", "link": "https://docs.rs/tokio", "snippet": "api", "position": 2}
        ]}))],
    );
    let r = search(
        ProviderKind::Serper,
        &server,
        Some("serper-key-123456"),
        json!({"query": "tokio runtime", "max_results": 2}),
    )
    .await;
    assert!(r.success, "{r:?}");
    assert_eq!(titles(&r), ["Tokio", "Docs"]);
    assert!(
        r.output
            .starts_with("1. Tokio\n   https://tokio.rs\n   async runtime"),
        "{}",
        r.output
    );
    let seen = &server.seen()[0];
    assert_eq!(seen.method, "POST");
    assert_eq!(seen.headers["x-api-key"], "serper-key-123456");
    let body: Value = serde_json::from_slice(&seen.body).unwrap();
    assert_eq!(body, json!({"q": "tokio runtime", "num": 2}));
}

#[tokio::test]
async fn google_cse_request_and_answer_never_show_the_key() {
    let server = WebServer::start().await;
    server.route(
        "/customsearch/v1",
        vec![WebReply::json(json!({"items": [
            {"title": "Rust", "link": "https://rust-lang.org", "snippet": "a language"}
        ]}))],
    );
    let r = search(
        ProviderKind::Google,
        &server,
        Some("AIza-google-key-9"),
        json!({"query": "rust"}),
    )
    .await;
    assert!(r.success, "{r:?}");
    assert_eq!(titles(&r), ["Rust"]);
    let uri = &server.seen()[0].uri;
    assert!(uri.starts_with("/customsearch/v1?"), "{uri}");
    for part in ["key=AIza-google-key-9", "cx=engine-7", "q=rust", "num=5"] {
        assert!(uri.contains(part), "{part} in {uri}");
    }
    // A failing Google answer names the URL; the key is masked in it.
    server.route("/customsearch/v1", vec![WebReply::status(403, None)]);
    let r = search(
        ProviderKind::Google,
        &server,
        Some("AIza-google-key-9"),
        json!({"query": "x"}),
    )
    .await;
    assert!(!r.success);
    assert!(
        !serde_json::to_string(&r)
            .unwrap()
            .contains("AIza-google-key-9"),
        "{r:?}"
    );
}

#[tokio::test]
async fn searxng_request_and_answer() {
    let server = WebServer::start().await;
    server.route(
        "/search",
        vec![WebReply::json(json!({"results": [
            {"title": "One", "url": "https://one.example", "content": "first"},
            {"title": "Two", "url": "https://two.example", "content": "second"},
            {"title": "Three", "url": "https://three.example", "content": "third"}
        ]}))],
    );
    let r = search(
        ProviderKind::Searxng,
        &server,
        None,
        json!({"query": "q w", "max_results": 2}),
    )
    .await;
    assert!(r.success, "{r:?}");
    assert_eq!(titles(&r), ["One", "Two"], "max_results is honoured");
    let seen = &server.seen()[0];
    assert_eq!(seen.method, "GET");
    assert_eq!(seen.uri, "/search?q=q+w&format=json");
}

#[tokio::test]
async fn proxy_request_and_answer() {
    let server = WebServer::start().await;
    server.route(
        "/proxy/cse",
        vec![WebReply::json(json!({"results": [
            {"title": "P", "url": "https://p.example", "snippet": "via proxy"}
        ]}))],
    );
    let r = search(
        ProviderKind::Proxy,
        &server,
        Some("proxy-token-42"),
        json!({"query": "loom", "max_results": 3}),
    )
    .await;
    assert!(r.success, "{r:?}");
    assert_eq!(titles(&r), ["P"]);
    let seen = &server.seen()[0];
    assert_eq!(seen.method, "POST");
    assert_eq!(seen.headers["authorization"], "Bearer proxy-token-42");
    let body: Value = serde_json::from_slice(&seen.body).unwrap();
    assert_eq!(body, json!({"query": "loom", "max_results": 3}));
}

#[tokio::test]
async fn searches_are_retried_on_429_and_503_then_succeed() {
    let server = WebServer::start().await;
    server.route(
        "/search",
        vec![
            WebReply::status(429, Some("0")),
            WebReply::status(503, None),
            WebReply::json(json!({"results": [{"title": "ok", "url": "https://ok.example"}]})),
        ],
    );
    let r = search(ProviderKind::Searxng, &server, None, json!({"query": "x"})).await;
    assert!(r.success, "{r:?}");
    assert_eq!(r.data.as_ref().unwrap()["attempts"], 3);
    assert_eq!(server.seen().len(), 3);
}

#[tokio::test]
async fn retries_are_bounded_and_say_so() {
    let server = WebServer::start().await;
    server.route("/search", vec![WebReply::status(503, None)]);
    let r = search(ProviderKind::Searxng, &server, None, json!({"query": "x"})).await;
    assert!(!r.success);
    let err = r.error.unwrap();
    assert!(
        err.contains("HTTP 503") && err.contains("after 3 attempts"),
        "{err}"
    );
    assert_eq!(server.seen().len(), 3, "exactly max_attempts requests");
    let bad = search(
        ProviderKind::Searxng,
        &server,
        None,
        json!({"query": "x", "max_results": 11}),
    )
    .await;
    assert!(bad.error.unwrap().contains("between 1 and 10"));
}

async fn fetch(allow: &[String], args: Value) -> ToolResult {
    let (_d, c) = ctx();
    WebFetch::new(web(allow)).execute(args, &c).await
}

#[tokio::test]
async fn html_with_scripts_and_tables_becomes_markdown() {
    let server = WebServer::start().await;
    let page = r#"<!doctype html><html><head><title>Release notes</title>
        <script>document.write("tracking")</script><style>.x{}</style></head>
        <body><nav>Home | Blog</nav><h2>Changes</h2>
        <table><tr><th>Version</th><th>Date</th></tr><tr><td>1.2</td><td>May</td></tr></table>
        <p>See <a href="/docs">the docs</a>.</p><footer>© boilerplate</footer></body></html>"#;
    server.route(
        "/notes",
        vec![WebReply::ok("text/html; charset=utf-8", page)],
    );
    let r = fetch(
        &[server.allow_entry()],
        json!({"url": server.url("/notes")}),
    )
    .await;
    assert!(r.success, "{r:?}");
    let md = &r.output;
    assert!(md.contains("## Changes"), "{md}");
    assert!(md.contains("| Version | Date |"), "{md}");
    assert!(
        md.lines().any(|l| l.contains("1.2") && l.contains("May")),
        "{md}"
    );
    assert!(md.contains("[the docs](/docs)"), "{md}");
    for gone in ["tracking", "Home | Blog", "boilerplate", ".x{}"] {
        assert!(!md.contains(gone), "{gone} in {md}");
    }
    let data = r.data.unwrap();
    assert_eq!(data["title"], "Release notes");
    assert_eq!(data["status"], 200);
    assert_eq!(data["url"], server.url("/notes"));
    let text = fetch(
        &[server.allow_entry()],
        json!({"url": server.url("/notes"), "format": "text"}),
    )
    .await;
    assert!(
        text.output.contains("Changes") && !text.output.contains("##"),
        "{}",
        text.output
    );
}

#[tokio::test]
async fn a_charset_declared_in_the_page_is_honoured() {
    let server = WebServer::start().await;
    let mut page = b"<html><head><meta charset=\"iso-8859-1\"></head><body><p>caf".to_vec();
    page.extend_from_slice(b"\xe9</p></body></html>");
    server.route("/latin", vec![WebReply::ok("text/html", page)]);
    let r = fetch(
        &[server.allow_entry()],
        json!({"url": server.url("/latin")}),
    )
    .await;
    assert!(r.output.contains("café"), "{}", r.output);
}

#[tokio::test]
async fn a_redirect_chain_ending_on_a_private_address_is_refused() {
    let server = WebServer::start().await;
    server.route("/a", vec![WebReply::redirect(302, "/b")]);
    server.route(
        "/b",
        vec![WebReply::redirect(
            301,
            "http://169.254.169.254/latest/meta-data/",
        )],
    );
    let r = fetch(&[server.allow_entry()], json!({"url": server.url("/a")})).await;
    assert!(!r.success);
    let err = r.error.unwrap();
    assert!(err.contains("refused"), "{err}");
    assert!(err.contains("a redirect from"), "{err}");
    assert!(err.contains("cloud metadata endpoint"), "{err}");
    assert_eq!(
        server.seen().len(),
        2,
        "both allowed hops ran, the private one never did"
    );

    // A redirect to this same machine under another port is refused too.
    server.route("/c", vec![WebReply::redirect(307, "http://127.0.0.1:9/x")]);
    let r = fetch(&[server.allow_entry()], json!({"url": server.url("/c")})).await;
    assert!(r.error.unwrap().contains("loopback"));
}

#[tokio::test]
async fn redirects_within_bounds_are_followed_and_the_final_url_reported() {
    let server = WebServer::start().await;
    server.route("/old", vec![WebReply::redirect(301, "/new")]);
    server.route("/new", vec![WebReply::ok("text/plain", "moved here")]);
    let r = fetch(&[server.allow_entry()], json!({"url": server.url("/old")})).await;
    assert!(r.success, "{r:?}");
    assert_eq!(r.output, "moved here");
    assert_eq!(r.data.as_ref().unwrap()["url"], server.url("/new"));
    server.route("/loop", vec![WebReply::redirect(302, "/loop")]);
    let r = fetch(&[server.allow_entry()], json!({"url": server.url("/loop")})).await;
    assert!(r.error.unwrap().contains("more than 5 redirects"));
}

#[tokio::test]
async fn a_name_resolving_to_loopback_is_refused_when_not_allowed() {
    let server = WebServer::start().await;
    server.route("/", vec![WebReply::ok("text/plain", "local secret")]);
    let port = server.addr.port();
    for url in [
        format!("http://localhost:{port}/"),
        format!("http://127.0.0.1:{port}/"),
        format!("http://2130706433:{port}/"),
        format!("http://[::ffff:127.0.0.1]:{port}/"),
    ] {
        let r = fetch(&[], json!({"url": url})).await;
        assert!(!r.success, "{url}");
        let err = r.error.unwrap();
        assert!(
            err.contains("refused") && err.contains("loopback"),
            "{url}: {err}"
        );
        assert!(err.contains("allow_private"), "says how to allow it: {err}");
    }
    assert!(
        server.seen().is_empty(),
        "nothing reached the local service"
    );
    // Listed by its host name and port, the same service is reachable.
    let r = fetch(
        &[format!("localhost:{port}")],
        json!({"url": format!("http://localhost:{port}/")}),
    )
    .await;
    assert!(r.success, "{r:?}");
    assert_eq!(r.output, "local secret");
}

#[tokio::test]
async fn a_50_mb_body_is_cut_at_the_cap() {
    let server = WebServer::start().await;
    server.route(
        "/big",
        vec![WebReply {
            status: 200,
            headers: vec![("content-type".into(), "text/plain".into())],
            body: WebBody::Repeat {
                chunk: vec![b'a'; 64 * 1024],
                total: 50 << 20,
            },
        }],
    );
    let r = fetch(
        &[server.allow_entry()],
        json!({"url": server.url("/big"), "max_bytes": 1 << 20}),
    )
    .await;
    assert!(r.success, "{:?}", r.error);
    let data = r.data.unwrap();
    assert_eq!(data["bytes"], 1 << 20);
    assert_eq!(data["truncated"], true);
    assert_eq!(
        data["content_truncated"], true,
        "the model sees a bounded head"
    );
}

#[tokio::test]
async fn binaries_are_refused_clearly() {
    let server = WebServer::start().await;
    server.route(
        "/logo.png",
        vec![WebReply::ok("image/png", b"\x89PNG\r\n\x1a\nxxxx".to_vec())],
    );
    let r = fetch(
        &[server.allow_entry()],
        json!({"url": server.url("/logo.png")}),
    )
    .await;
    assert!(!r.success);
    let err = r.error.unwrap();
    assert!(err.contains("is not text (image/png"), "{err}");
}

async fn request(allow: &[String], args: Value) -> ToolResult {
    let (_d, c) = ctx();
    HttpRequest::new(web(allow)).execute(args, &c).await
}

#[tokio::test]
async fn http_request_masks_credentials_wherever_they_come_back() {
    let server = WebServer::start().await;
    server.route(
        "/api",
        vec![WebReply {
            status: 200,
            headers: vec![("set-cookie".into(), "session=server-cookie-777".into())],
            body: WebBody::Echo,
        }],
    );
    let args = json!({
        "method": "post",
        "url": format!("{}?api_key=url-secret-555&page=2", server.url("/api")),
        "headers": {"Authorization": "Bearer header-secret-999", "Accept": "application/json"},
        "body": "{\"token\": \"header-secret-999\"}"
    });
    let r = request(&[server.allow_entry()], args.clone()).await;
    assert!(r.success, "{r:?}");
    let seen = &server.seen()[0];
    assert_eq!(
        seen.headers["authorization"], "Bearer header-secret-999",
        "sent as given"
    );
    let shown = serde_json::to_string(&r).unwrap();
    for secret in ["header-secret-999", "url-secret-555", "server-cookie-777"] {
        assert!(!shown.contains(secret), "{secret} leaked: {shown}");
    }
    assert!(shown.contains("page=2"), "{shown}");
    let data = r.data.unwrap();
    assert_eq!(data["status"], 200);
    assert_eq!(data["method"], "POST");
    assert_eq!(data["headers"]["set-cookie"], "****");
    // The arguments as recorded and shown are masked as well.
    let recorded = HttpRequest::new(web(&[])).redact(&args).to_string();
    assert!(
        !recorded.contains("header-secret-999") && !recorded.contains("url-secret-555"),
        "{recorded}"
    );
}

#[tokio::test]
async fn http_request_returns_redirects_instead_of_following_them() {
    let server = WebServer::start().await;
    server.route(
        "/moved",
        vec![WebReply::redirect(
            302,
            "https://elsewhere.example/x?token=t0k3n-abc",
        )],
    );
    let r = request(
        &[server.allow_entry()],
        json!({"method": "GET", "url": server.url("/moved")}),
    )
    .await;
    assert!(r.success, "{r:?}");
    let data = r.data.unwrap();
    assert_eq!(data["status"], 302);
    assert_eq!(
        data["headers"]["location"],
        "https://elsewhere.example/x?token=****"
    );
    assert_eq!(server.seen().len(), 1);
    let r = request(&[], json!({"method": "GET", "url": server.url("/moved")})).await;
    assert!(r.error.unwrap().contains("refused"), "not allowed: refused");
    let r = request(&[], json!({"method": "TRACE", "url": "https://x.example"})).await;
    assert!(r.error.unwrap().contains("not supported"));
}
