//! The browser's loopback rule and network confinement (the holes the first security
//! review found), each replayed against a real Chromium: a page on this machine's LAN
//! address (listed in `allow_private`, standing in for a public site) tries to reach a
//! service on 127.0.0.1 or to send UDP. Every test fails on the code before the fix.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;

use super::attack_support::{self as support, Seen, html, open, until_refused, wait_until};

/// This machine's non-loopback address; `None` (with the reason printed) where it or a
/// Chromium is missing. On CI (which installs Chromium) a missing one fails.
fn setup() -> Option<IpAddr> {
    (!support::skip()).then(support::lan)
}

/// Serve `page` (or, when `status` is given, an empty answer with it) on `ip`, after
/// `delay`; logs request lines.
async fn serve(
    ip: IpAddr,
    page: String,
    delay: Duration,
    status: Option<&'static str>,
) -> (SocketAddr, Seen) {
    let reply = match status {
        Some(status) => format!("HTTP/1.1 {status}\r\nconnection: close\r\n\r\n"),
        None => html(&page),
    };
    support::serve(ip, Arc::new(move |_| (delay, reply.clone()))).await
}

/// A page script that keeps calling `target` every 25 ms.
fn prober(target: SocketAddr, tag: &str) -> String {
    format!(
        r#"<title>elsewhere</title><script>
setInterval(() => fetch('http://{target}/{tag}?' + Date.now(), {{mode: 'no-cors'}}).catch(() => {{}}), 25);
</script>"#
    )
}

/// Regression: loopback opened when the model asked for a loopback URL, before it loaded;
/// the page still showing (not on loopback) reached this machine's services meanwhile.
#[tokio::test(flavor = "multi_thread")]
async fn the_old_page_gets_no_loopback_while_a_loopback_page_loads() {
    let Some(lan) = setup() else {
        return;
    };
    let (secret, secret_seen) = serve(
        "127.0.0.1".parse().unwrap(),
        "secret".into(),
        Duration::ZERO,
        None,
    )
    .await;
    let (dev, _) = serve(
        "127.0.0.1".parse().unwrap(),
        "<title>dev</title>dev".into(),
        Duration::from_millis(1500),
        None,
    )
    .await;
    let (elsewhere, _) = serve(lan, prober(secret, "from-old-page"), Duration::ZERO, None).await;
    let s = support::start().await;
    s.open(&format!("http://{elsewhere}/"), Duration::from_secs(10))
        .await
        .unwrap();
    s.open(&format!("http://{dev}/"), Duration::from_secs(10))
        .await
        .unwrap();
    let hits = secret_seen.lock().unwrap().clone();
    assert!(
        hits.is_empty(),
        "{} requests reached loopback, e.g. {:?}",
        hits.len(),
        hits.first()
    );
}

/// Regression: when the loopback URL never became the page (here a 204), loopback stayed
/// open to the page that was still showing.
#[tokio::test(flavor = "multi_thread")]
async fn a_loopback_open_that_never_commits_leaves_loopback_closed() {
    let Some(lan) = setup() else {
        return;
    };
    let (secret, secret_seen) = serve(
        "127.0.0.1".parse().unwrap(),
        "secret".into(),
        Duration::ZERO,
        None,
    )
    .await;
    let (nothing, _) = serve(
        "127.0.0.1".parse().unwrap(),
        String::new(),
        Duration::ZERO,
        Some("204 No Content"),
    )
    .await;
    let (elsewhere, _) = serve(lan, prober(secret, "after-204"), Duration::ZERO, None).await;
    let s = support::start().await;
    s.open(&format!("http://{elsewhere}/"), Duration::from_secs(10))
        .await
        .unwrap();
    let _ = s
        .open(&format!("http://{nothing}/ping"), Duration::from_secs(3))
        .await;
    secret_seen.lock().unwrap().clear();
    s.take_refused();
    // The old page keeps probing every 25 ms: five of its tries refused after the open.
    until_refused(
        &s,
        &["after-204"],
        5,
        &secret_seen,
        Duration::from_millis(1000),
    )
    .await;
    let hits = secret_seen.lock().unwrap().clone();
    assert!(
        hits.is_empty(),
        "{} requests reached loopback after the open",
        hits.len()
    );
}

/// Regression: a frame from elsewhere inside a loopback page (an embed, an ad) reached
/// every service on loopback, because the page as a whole was on loopback.
#[tokio::test(flavor = "multi_thread")]
async fn a_foreign_frame_in_a_loopback_page_gets_no_loopback() {
    let Some(lan) = setup() else {
        return;
    };
    let (secret, secret_seen) = serve(
        "127.0.0.1".parse().unwrap(),
        "secret".into(),
        Duration::ZERO,
        None,
    )
    .await;
    let (frame, frame_seen) = serve(lan, prober(secret, "from-frame"), Duration::ZERO, None).await;
    let (dev, _) = serve(
        "127.0.0.1".parse().unwrap(),
        format!(r#"<title>dev</title><iframe src="http://{frame}/"></iframe>"#),
        Duration::ZERO,
        None,
    )
    .await;
    let s = support::start().await;
    open(&s, dev).await;
    until_refused(
        &s,
        &["from-frame"],
        5,
        &secret_seen,
        Duration::from_millis(1000),
    )
    .await;
    assert!(!frame_seen.lock().unwrap().is_empty(), "the frame loaded");
    let hits = secret_seen.lock().unwrap().clone();
    assert!(
        hits.is_empty(),
        "the frame reached loopback: {:?}",
        hits.first()
    );
}

/// Regression: WebRTC sent STUN and TURN packets (UDP, which no proxy carries and Landlock
/// cannot rule) to any address a page named, private ones included.
#[tokio::test(flavor = "multi_thread")]
async fn no_udp_leaves_the_browser() {
    let Some(lan) = setup() else {
        return;
    };
    let got: Seen = Arc::default();
    let mut targets = Vec::new();
    for ip in ["127.0.0.1".parse().unwrap(), lan] {
        let u = Arc::new(tokio::net::UdpSocket::bind((ip, 0)).await.unwrap());
        targets.push(u.local_addr().unwrap());
        let got = got.clone();
        tokio::spawn(async move {
            let mut b = [0u8; 2048];
            while let Ok((n, from)) = u.recv_from(&mut b).await {
                got.lock().unwrap().push(format!("{n} bytes from {from}"));
            }
        });
    }
    let page = format!(
        r#"<title>udp</title><script>
const pcs = [];
for (const s of ['stun:{a}', 'stun:{b}', 'turn:{b}?transport=udp']) {{
  const pc = new RTCPeerConnection({{iceServers: [{{urls: s, username: 'u', credential: 'c'}}]}});
  pcs.push(pc);
  pc.onicegatheringstatechange = () => {{
    if (pcs.every(p => p.iceGatheringState === 'complete')) document.title = 'gathered';
  }};
  pc.createDataChannel('x');
  pc.createOffer().then(o => pc.setLocalDescription(o));
}}
</script>"#,
        a = targets[0],
        b = targets[1]
    );
    let (elsewhere, _) = serve(lan, page, Duration::ZERO, None).await;
    let s = support::start().await;
    open(&s, elsewhere).await;
    // Every packet a connection sends to its STUN or TURN server leaves while it gathers
    // candidates: once all three are done, whatever would leave has left.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
    while tokio::time::Instant::now() < deadline
        && s.eval("document.title").await.ok() != Some(serde_json::json!("gathered"))
    {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let got = got.lock().unwrap().clone();
    assert!(got.is_empty(), "UDP left the browser: {got:?}");
}

/// Regression: a popup a page from elsewhere opened lived on, and got loopback as soon as
/// the model opened the dev server in the main tab (one flag served every page).
#[tokio::test(flavor = "multi_thread")]
async fn a_popup_of_another_page_gets_no_loopback_when_the_main_page_is_local() {
    let Some(lan) = setup() else {
        return;
    };
    let (secret, secret_seen) = serve(
        "127.0.0.1".parse().unwrap(),
        "secret".into(),
        Duration::ZERO,
        None,
    )
    .await;
    let (dev, _) = serve(
        "127.0.0.1".parse().unwrap(),
        "<title>dev</title>dev".into(),
        Duration::ZERO,
        None,
    )
    .await;
    let (popup, popup_seen) = serve(lan, prober(secret, "from-popup"), Duration::ZERO, None).await;
    let opener = format!(
        r#"<title>elsewhere</title>
<input id=q oninput="window.open('http://{popup}/', '_blank')">"#
    );
    let (elsewhere, _) = serve(lan, opener, Duration::ZERO, None).await;
    let s = support::start().await;
    s.open(&format!("http://{elsewhere}/"), Duration::from_secs(10))
        .await
        .unwrap();
    // The tool's `type` (focus, then typed text) is a user gesture: the popup opens.
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
    until_refused(
        &s,
        &["from-popup"],
        5,
        &secret_seen,
        Duration::from_millis(1000),
    )
    .await;
    let hits = secret_seen.lock().unwrap().clone();
    assert!(
        hits.is_empty(),
        "the popup reached loopback: {:?}",
        hits.first()
    );
}

/// What the per-frame rule must still allow: a dev page on 127.0.0.1 framing another
/// local app on `localhost` (another site, so a frame in a process of its own), whose
/// script calls a local API.
#[tokio::test(flavor = "multi_thread")]
async fn a_loopback_frame_in_a_loopback_page_reaches_loopback() {
    if setup().is_none() {
        return;
    }
    let (api, api_seen) = serve(
        "127.0.0.1".parse().unwrap(),
        "ok".into(),
        Duration::ZERO,
        None,
    )
    .await;
    let (inner, _) = serve(
        "127.0.0.1".parse().unwrap(),
        prober(api, "from-local-frame"),
        Duration::ZERO,
        None,
    )
    .await;
    let (dev, _) = serve(
        "127.0.0.1".parse().unwrap(),
        format!(
            r#"<title>dev</title><iframe src="http://localhost:{}/"></iframe>"#,
            inner.port()
        ),
        Duration::ZERO,
        None,
    )
    .await;
    let s = support::start().await;
    open(&s, dev).await;
    wait_until(Duration::from_secs(10), || {
        !api_seen.lock().unwrap().is_empty()
    })
    .await;
    assert!(
        !api_seen.lock().unwrap().is_empty(),
        "the local frame's calls got through; refused: {:?}",
        s.take_refused()
    );
}

/// Regression: the proxy let every connection reach loopback while the main page was on
/// loopback, so a foreign frame inside the dev page could open a WebSocket (which request
/// interception never sees) to any service on this machine. Now a connection reaches only
/// what the loopback page's own requests were let reach.
#[tokio::test(flavor = "multi_thread")]
async fn a_foreign_frame_cannot_open_a_websocket_to_another_local_service() {
    let Some(lan) = setup() else {
        return;
    };
    let service = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let service_addr = service.local_addr().unwrap();
    let reached: Seen = Arc::default();
    let log = reached.clone();
    tokio::spawn(async move {
        while let Ok((_, from)) = service.accept().await {
            log.lock().unwrap().push(from.to_string());
        }
    });
    let frame = format!(
        r#"<script>setInterval(() => {{ try {{ new WebSocket('ws://{service_addr}/'); }} catch (e) {{}} }}, 100);</script>"#
    );
    let (frame_addr, frame_seen) = serve(lan, frame, Duration::ZERO, None).await;
    let (dev, _) = serve(
        "127.0.0.1".parse().unwrap(),
        format!(r#"<title>dev</title><iframe src="http://{frame_addr}/"></iframe>"#),
        Duration::ZERO,
        None,
    )
    .await;
    let s = support::start().await;
    open(&s, dev).await;
    // The frame opens one every 100 ms: three refused.
    let refused = until_refused(
        &s,
        &[&format!("connection to {service_addr}")],
        3,
        &reached,
        Duration::from_secs(10),
    )
    .await
    .join("\n");
    assert!(!frame_seen.lock().unwrap().is_empty(), "the frame loaded");
    let reached = reached.lock().unwrap().clone();
    assert!(
        reached.is_empty(),
        "WebSockets reached the service: {reached:?}"
    );
    assert!(
        refused.contains(&format!("connection to {service_addr}")),
        "{refused}"
    );
}

/// What the ticket rule must still allow: the dev page's own WebSocket to its server (hot
/// reload), which request interception never sees either.
#[tokio::test(flavor = "multi_thread")]
async fn the_dev_pages_own_websocket_reaches_its_server() {
    if setup().is_none() {
        return;
    }
    let (dev, dev_seen) = serve(
        "127.0.0.1".parse().unwrap(),
        "<title>dev</title><script>new WebSocket('ws://' + location.host + '/hmr');</script>"
            .into(),
        Duration::ZERO,
        None,
    )
    .await;
    let s = support::start().await;
    open(&s, dev).await;
    wait_until(Duration::from_secs(10), || {
        dev_seen
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.starts_with("GET /hmr"))
    })
    .await;
    let seen = dev_seen.lock().unwrap().clone();
    assert!(
        seen.iter().any(|l| l.starts_with("GET /hmr")),
        "the handshake reached the dev server: {seen:?}; refused: {:?}",
        s.take_refused()
    );
}
