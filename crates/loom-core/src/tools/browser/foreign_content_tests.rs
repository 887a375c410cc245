//! Foreign content inside a dev page, each case against a real Chromium: a foreign frame,
//! popup, image host or worker (this machine's LAN address, listed in `allow_private`)
//! tries to make the browser reach a service on 127.0.0.1 that the dev page never used
//! (the third security review's attacks). The first five failed before their fix; the last was tried and found
//! blocked, and stays as a regression test.
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::attack_support::{
    Route, html, lan, open, page, redirect, serve, skip, start, until_refused, untouched,
    wait_until,
};

/// Regression: a foreign iframe's first navigation was judged by its parent (the dev
/// page), so the foreign server's 302 to a loopback service passed (no gesture needed).
#[tokio::test(flavor = "multi_thread")]
async fn a_foreign_frames_redirect_gets_no_loopback() {
    if skip() {
        return;
    }
    let (secret, secret_seen) = serve("127.0.0.1".parse().unwrap(), page("secret".into())).await;
    let target = format!("http://{secret}/csrf-by-iframe-redirect");
    let (frame, _) = serve(
        lan(),
        Arc::new(move |_p: &str| (Duration::ZERO, redirect("302 Found", &target))),
    )
    .await;
    let (dev, _) = serve(
        "127.0.0.1".parse().unwrap(),
        page(format!(
            r#"<title>dev</title><iframe src="http://{frame}/widget"></iframe>"#
        )),
    )
    .await;
    let s = start().await;
    open(&s, dev).await;
    until_refused(
        &s,
        &[&secret.to_string()],
        1,
        &secret_seen,
        Duration::from_secs(2),
    )
    .await;
    untouched(&secret_seen, "a foreign iframe's redirect");
}

/// Regression: the dev page's image from a foreign host, redirected by that host to a
/// loopback service, reached it.
#[tokio::test(flavor = "multi_thread")]
async fn a_foreign_hosts_redirect_of_a_dev_page_image_gets_no_loopback() {
    if skip() {
        return;
    }
    let (secret, secret_seen) = serve("127.0.0.1".parse().unwrap(), page("secret".into())).await;
    let target = format!("http://{secret}/csrf-by-img-redirect");
    let (cdn, _) = serve(
        lan(),
        Arc::new(move |_p: &str| (Duration::ZERO, redirect("302 Found", &target))),
    )
    .await;
    let (dev, _) = serve(
        "127.0.0.1".parse().unwrap(),
        page(format!(
            r#"<title>dev</title><img src="http://{cdn}/logo.png">"#
        )),
    )
    .await;
    let s = start().await;
    open(&s, dev).await;
    until_refused(
        &s,
        &[&secret.to_string()],
        1,
        &secret_seen,
        Duration::from_secs(2),
    )
    .await;
    untouched(&secret_seen, "a foreign host's redirect");
}

/// Regression: a foreign popup the dev page opened navigated its opener (the loopback main
/// frame) to another loopback service; main-frame navigations passed while main showed
/// loopback.
#[tokio::test(flavor = "multi_thread")]
async fn a_popup_of_the_dev_page_cannot_send_it_to_another_local_service() {
    if skip() {
        return;
    }
    let (secret, secret_seen) = serve("127.0.0.1".parse().unwrap(), page("secret".into())).await;
    let (popup, popup_seen) = serve(lan(), page(format!(
        r#"<script>setTimeout(() => {{ opener.location = 'http://{secret}/navigated-by-popup'; }}, 500);</script>"#
    ))).await;
    let (dev, _) = serve(
        "127.0.0.1".parse().unwrap(),
        page(format!(
            r#"<title>dev</title><input id=q oninput="window.open('http://{popup}/', '_blank')">"#
        )),
    )
    .await;
    let s = start().await;
    s.open(&format!("http://{dev}/"), Duration::from_secs(10))
        .await
        .unwrap();
    s.eval("document.getElementById('q').focus()")
        .await
        .unwrap();
    s.call("Input.insertText", serde_json::json!({"text": "hi"}))
        .await
        .unwrap();
    let opened = wait_until(Duration::from_secs(10), || {
        !popup_seen.lock().unwrap().is_empty()
    })
    .await;
    assert!(opened, "the popup opened");
    // The popup tries 0.5 s after it loads.
    until_refused(
        &s,
        &[&secret.to_string()],
        1,
        &secret_seen,
        Duration::from_secs(3),
    )
    .await;
    let hits = secret_seen.lock().unwrap().clone();
    assert!(
        hits.is_empty(),
        "the dev page's popup sent the main frame to loopback: {hits:?}"
    );
}

/// Regression: a foreign iframe's host:port became a proxy ticket (its navigation was
/// judged by the dev page); by name, a later DNS answer of 127.0.0.1 would then pass.
#[tokio::test(flavor = "multi_thread")]
async fn a_foreign_frames_host_gets_no_proxy_ticket() {
    if skip() {
        return;
    }
    let (frame, frame_seen) = serve(lan(), page("<title>ad</title>ad".into())).await;
    let (dev, _) = serve(
        "127.0.0.1".parse().unwrap(),
        page(format!(
            r#"<title>dev</title><iframe src="http://{frame}/ad"></iframe>"#
        )),
    )
    .await;
    let s = start().await;
    open(&s, dev).await;
    // The frame's request reached its server, so its navigation has been judged.
    let loaded = wait_until(Duration::from_secs(10), || {
        !frame_seen.lock().unwrap().is_empty()
    })
    .await;
    assert!(loaded, "the frame loaded");
    assert!(
        !s.gate.for_connection(&frame.ip().to_string(), frame.port()),
        "the foreign frame's host:port is a loopback ticket"
    );
}

/// Regression: a foreign iframe in the dev page, with a click in it (the model clicking a
/// button), sent the top to another loopback service.
#[tokio::test(flavor = "multi_thread")]
async fn a_clicked_foreign_frame_cannot_send_the_top_to_another_local_service() {
    if skip() {
        return;
    }
    let (secret, secret_seen) = serve("127.0.0.1".parse().unwrap(), page("secret".into())).await;
    let (frame, frame_seen) = serve(lan(), page(format!(
        r#"<body style="margin:0"><button style="width:300px;height:150px" onclick="top.location='http://{secret}/top-nav-after-click'">Accept</button></body>"#
    ))).await;
    let (dev, _) = serve("127.0.0.1".parse().unwrap(), page(format!(
        r#"<title>dev</title><body style="margin:0"><iframe style="border:0" width=300 height=150 src="http://{frame}/"></iframe></body>"#
    ))).await;
    let s = start().await;
    open(&s, dev).await;
    let loaded = wait_until(Duration::from_secs(10), || {
        !frame_seen.lock().unwrap().is_empty()
    })
    .await;
    assert!(loaded, "the frame loaded");
    // A click lands on the button once the frame is drawn: click until the navigation
    // it starts is refused (or reaches the service, failing below).
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    let mut refused = false;
    while !refused
        && secret_seen.lock().unwrap().is_empty()
        && tokio::time::Instant::now() < deadline
    {
        for t in ["mousePressed", "mouseReleased"] {
            s.call(
                "Input.dispatchMouseEvent",
                serde_json::json!({"type": t, "x": 100, "y": 50, "button": "left", "clickCount": 1}),
            )
            .await
            .unwrap();
        }
        refused = until_refused(
            &s,
            &[&format!("{secret}/top-nav-after-click")],
            1,
            &secret_seen,
            Duration::from_millis(500),
        )
        .await
        .iter()
        .any(|r| r.contains("top-nav-after-click"));
    }
    let hits = secret_seen.lock().unwrap().clone();
    assert!(
        hits.is_empty(),
        "a clicked foreign frame sent the top to loopback: {hits:?}"
    );
    assert!(
        refused,
        "the click started the navigation, and it was refused"
    );
}

/// Found blocked: a foreign frame in the dev page tries workers (dedicated, nested, shared,
/// service), prefetch/preload, beacons and no-cors fetches to the dev server and another
/// service; none arrives.
#[tokio::test(flavor = "multi_thread")]
async fn a_foreign_frames_workers_prefetches_and_beacons_get_no_loopback() {
    if skip() {
        return;
    }
    let (secret, secret_seen) = serve("127.0.0.1".parse().unwrap(), page("secret".into())).await;
    let dev_addr: Arc<Mutex<Option<SocketAddr>>> = Arc::default();
    let da = dev_addr.clone();
    let route: Route = Arc::new(move |path: &str| {
        let dev = da.lock().unwrap().unwrap();
        let hit = |tag: &str| {
            format!(
                "fetch('http://{secret}/{tag}',{{mode:'no-cors'}}).catch(()=>{{}}); fetch('http://{dev}/{tag}',{{mode:'no-cors'}}).catch(()=>{{}});"
            )
        };
        let js = |body: String| {
            format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/javascript\r\nservice-worker-allowed: /\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            )
        };
        if path.starts_with("/w.js") {
            (
                Duration::ZERO,
                js(format!(
                    "{} try {{ new Worker('/nested.js'); }} catch(e) {{}}",
                    hit("dedicated-worker")
                )),
            )
        } else if path.starts_with("/nested.js") {
            (Duration::ZERO, js(hit("nested-worker")))
        } else if path.starts_with("/s.js") {
            (
                Duration::ZERO,
                js(format!(
                    "onconnect = () => {{ {} }}; {}",
                    hit("shared-worker-c"),
                    hit("shared-worker")
                )),
            )
        } else if path.starts_with("/sw.js") {
            (
                Duration::ZERO,
                js(format!(
                    "self.addEventListener('install', e => {{ {} }}); self.addEventListener('activate', e => {{ {} }}); self.addEventListener('fetch', e => {{ if (e.request.url.includes('via-sw')) e.respondWith(fetch('http://{secret}/sw-fetch', {{mode:'no-cors'}})); }});",
                    hit("sw-install"),
                    hit("sw-activate")
                )),
            )
        } else if path.starts_with("/frame") {
            (
                Duration::ZERO,
                html(&format!(
                    r#"<link rel=prefetch href="http://{secret}/prefetch"><link rel=preload as=fetch crossorigin href="http://{secret}/preload"><link rel=prefetch href="http://{dev}/prefetch-dev">
<img src="http://{dev}/img-dev"><img src="http://{secret}/img">
<script>
{beacon}
navigator.sendBeacon('http://{secret}/beacon', 'x'); navigator.sendBeacon('http://{dev}/beacon-dev', 'x');
try {{ new Worker('/w.js'); }} catch (e) {{}}
try {{ new Worker(URL.createObjectURL(new Blob([`{blobw}`], {{type:'text/javascript'}}))); }} catch (e) {{}}
try {{ new SharedWorker('/s.js').port.start(); }} catch (e) {{}}
navigator.serviceWorker && navigator.serviceWorker.register('/sw.js').then(() => setTimeout(() => fetch('/via-sw').catch(()=>{{}}), 800)).catch(e => fetch('/sw-err?' + e));
const ws = new WebSocket('ws://{secret}/ws'); 
</script>"#,
                    beacon = hit("frame-fetch"),
                    blobw = hit("blob-worker")
                )),
            )
        } else {
            (Duration::ZERO, html("x"))
        }
    });
    let (frame, lan_seen) = serve(lan(), route).await;
    let (dev, dev_seen) = serve(
        "127.0.0.1".parse().unwrap(),
        page(format!(
            r#"<title>dev</title><iframe src="http://{frame}/frame"></iframe>"#
        )),
    )
    .await;
    *dev_addr.lock().unwrap() = Some(dev);
    let s = start().await;
    open(&s, dev).await;
    // The frame's own requests are judged before its page loads; those of its workers
    // come after, the nested worker's last.
    until_refused(
        &s,
        &[
            &format!("{secret}/frame-fetch"),
            &format!("{secret}/beacon"),
            &format!("{secret}/dedicated-worker"),
            &format!("{secret}/nested-worker"),
            &format!("{secret}/blob-worker"),
            &format!("{secret}/shared-worker"),
        ],
        1,
        &secret_seen,
        Duration::from_secs(4),
    )
    .await;
    assert!(
        lan_seen
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.starts_with("GET /w.js")),
        "the frame started its workers"
    );
    let hits = secret_seen.lock().unwrap().clone();
    let dev_hits: Vec<String> = dev_seen
        .lock()
        .unwrap()
        .iter()
        .filter(|l| !l.starts_with("GET / ") && !l.starts_with("GET /favicon.ico"))
        .cloned()
        .collect();
    assert!(
        hits.is_empty() && dev_hits.is_empty(),
        "secret: {hits:?}; dev: {dev_hits:?}"
    );
}

/// Regression (fourth review): nothing answered JavaScript dialogs, so a page's `alert` or
/// `beforeunload` prompt held the page and every later call timed out. Dialogs are
/// accepted and reported in the console.
#[tokio::test(flavor = "multi_thread")]
async fn a_dialog_does_not_hold_the_page() {
    if skip() {
        return;
    }
    let (dev, _) = serve(
        "127.0.0.1".parse().unwrap(),
        page("<title>dev</title><script>alert('hello from the app');</script>".into()),
    )
    .await;
    let s = start().await;
    s.open(&format!("http://{dev}/"), Duration::from_secs(10))
        .await
        .unwrap();
    let title = tokio::time::timeout(Duration::from_secs(10), s.eval("document.title"))
        .await
        .expect("the page answers")
        .unwrap();
    assert_eq!(title, "dev");
    let console = s.take_console().join("\n");
    assert!(
        console.contains("[alert dialog, accepted] hello from the app"),
        "{console}"
    );
}
