use super::cdp::take_messages;
use super::guard::{Scheme, check, scheme};
use super::*;
use crate::policy::{Autonomy, Decision, NetworkIntent};

/// Invariant: NUL-ended messages come out whole and in order however the bytes are split
/// across reads; what follows the last NUL waits for the next read.
#[test]
fn messages_are_split_on_nul_across_reads() {
    let mut buf = b"{\"id\":1}\0{\"id\"".to_vec();
    assert_eq!(take_messages(&mut buf), vec![b"{\"id\":1}".to_vec()]);
    assert_eq!(buf, b"{\"id\"");
    buf.extend_from_slice(b":2}\0\0{\"x\":3}\0");
    assert_eq!(
        take_messages(&mut buf),
        vec![b"{\"id\":2}".to_vec(), Vec::new(), b"{\"x\":3}".to_vec()]
    );
    assert!(buf.is_empty());
}

#[test]
fn png_size_reads_the_header_and_refuses_what_is_not_a_png() {
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    png.extend_from_slice(&1280u32.to_be_bytes());
    png.extend_from_slice(&800u32.to_be_bytes());
    assert_eq!(png_size(&png), Some((1280, 800)));
    assert_eq!(png_size(b"GIF89a............................"), None);
    assert_eq!(png_size(&png[..20]), None);
}

#[test]
fn only_web_schemes_reach_the_network_and_local_content_passes() {
    let s = |u: &str| scheme(&reqwest::Url::parse(u).unwrap());
    assert_eq!(s("https://example.com/"), Scheme::Network);
    assert_eq!(s("ws://127.0.0.1:9/"), Scheme::Network);
    assert_eq!(s("data:text/html,hi"), Scheme::Local);
    assert_eq!(s("about:blank"), Scheme::Local);
    assert_eq!(s("file:///etc/passwd"), Scheme::Refused);
    assert_eq!(s("chrome://settings"), Scheme::Refused);
}

/// The browser's rules: loopback (the dev server) passes; private, link-local, metadata
/// and IPv4-in-IPv6 forms of them do not, unless listed; other schemes are refused.
#[tokio::test]
async fn the_guard_lets_the_dev_server_through_and_nothing_private() {
    let none = AllowPrivate::default();
    assert!(check("http://127.0.0.1:5173/", &none, true).await.is_ok());
    assert!(check("http://[::1]:3000/app", &none, true).await.is_ok());
    assert!(check("http://localhost:8080/", &none, true).await.is_ok());
    assert!(check("data:text/html,<p>x</p>", &none, true).await.is_ok());
    for url in [
        "http://10.1.2.3/",
        "http://192.168.1.1/admin",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/",
        "http://[::ffff:10.0.0.1]/",
        "http://0.0.0.0:8080/",
        "file:///etc/passwd",
    ] {
        let refused = check(url, &none, true).await;
        assert!(refused.is_err(), "{url} passed");
    }
    let listed = AllowPrivate::parse(&["10.1.2.3".to_string()]).unwrap();
    assert!(check("http://10.1.2.3/", &listed, true).await.is_ok());
    assert!(
        check("http://169.254.169.254/", &listed, true)
            .await
            .is_err()
    );
}

/// Regression: loopback was open to every page, so a public page (or a LAN one listed in
/// `allow_private`) the model opened could send requests into this machine's services.
/// Loopback now serves only pages opened on loopback.
#[tokio::test]
async fn loopback_is_closed_to_pages_not_on_loopback() {
    let none = AllowPrivate::default();
    for url in [
        "http://127.0.0.1:5173/",
        "http://[::1]:3000/app",
        "http://localhost:8080/",
        "ws://127.0.0.1:5173/hmr",
        "http://[::ffff:127.0.0.1]:9000/",
    ] {
        let err = check(url, &none, false).await.unwrap_err();
        assert!(err.contains("opened on loopback"), "{url}: {err}");
    }
    assert!(check("http://93.184.215.14/", &none, false).await.is_ok());
}

fn browse(method: &str) -> NetworkIntent {
    NetworkIntent {
        access: NetAccess::Browse,
        domain: "localhost".into(),
        method: method.into(),
        url: "http://localhost:5173/".into(),
    }
}

/// Opening a page is approved per domain; the model's JavaScript asks every time in
/// supervised mode; read-only mode does not drive the browser.
#[test]
fn the_policy_asks_per_domain_and_eval_every_time() {
    use crate::policy::network::{DomainGrants, NetworkRules, decide};
    let rules = NetworkRules::default();
    let mut grants = DomainGrants::default();
    let (d, a) = decide(
        "browser",
        &browse("OPEN"),
        Autonomy::Supervised,
        &rules,
        &grants,
    );
    assert!(matches!(d, Decision::Ask { .. }));
    let (access, domain) = a.domain_grant.unwrap();
    grants.grant(access, &domain);
    let (d, _) = decide(
        "browser",
        &browse("OPEN"),
        Autonomy::Supervised,
        &rules,
        &grants,
    );
    assert_eq!(d, Decision::Allow);
    let (d, _) = decide(
        "browser",
        &browse("INTERACT"),
        Autonomy::Supervised,
        &rules,
        &grants,
    );
    assert_eq!(d, Decision::Allow);
    let (d, a) = decide(
        "browser",
        &browse("EVAL"),
        Autonomy::Supervised,
        &rules,
        &grants,
    );
    assert!(matches!(d, Decision::Ask { .. }), "{d:?}");
    assert!(a.domain_grant.is_none(), "no grant covers eval");
    let (d, _) = decide(
        "browser",
        &browse("EVAL"),
        Autonomy::FullAuto,
        &rules,
        &grants,
    );
    assert_eq!(d, Decision::Allow);
    let (d, _) = decide(
        "browser",
        &browse("READ"),
        Autonomy::ReadOnly,
        &rules,
        &grants,
    );
    assert!(matches!(d, Decision::Deny { .. }));
}

#[test]
fn calls_on_the_page_need_an_open_page_and_bad_actions_are_named() {
    let b = Browser::new(
        PathBuf::from("/nonexistent/chromium"),
        AllowPrivate::default(),
    );
    let e = b.describe(&json!({"action": "text"})).unwrap_err();
    assert!(e.to_string().contains("open"), "{e}");
    let e = b.describe(&json!({"action": "fly"})).unwrap_err();
    assert!(e.to_string().contains("fly"), "{e}");
    let intent = b
        .describe(&json!({"action": "open", "url": "http://localhost:5173/"}))
        .unwrap();
    assert_eq!(intent.as_network().unwrap().method, "OPEN");
}

/// A browser that crashed (here: killed) is started again on the next call, not reported
/// as gone for the rest of the session.
#[tokio::test(flavor = "multi_thread")]
async fn a_browser_that_died_is_started_again() {
    let Some(exe) = cdp::find(None) else {
        assert!(std::env::var_os("CI").is_none(), "CI installs Chromium");
        eprintln!("skipped: no Chromium on PATH");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::for_workspace(dir.path()).unwrap();
    let b = Browser::new(exe, AllowPrivate::default());
    let first = b
        .execute(json!({"action": "eval", "js": "6 * 7"}), &ctx)
        .await;
    assert!(first.success, "{first:?}");
    assert_eq!(first.output, "42");
    let group = b.session.lock().await.as_ref().unwrap().browser_group();
    nix::sys::signal::killpg(
        nix::unistd::Pid::from_raw(group),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    for _ in 0..100 {
        if b.session.lock().await.as_ref().unwrap().is_closed() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let again = b
        .execute(json!({"action": "eval", "js": "6 * 7"}), &ctx)
        .await;
    assert!(again.success, "{again:?}");
    assert_eq!(again.output, "42");
}
