//! What the browser's security regression tests share: small HTTP servers on a given
//! address whose answers a route decides, this machine's LAN address (standing in for a
//! site elsewhere, listed in `allow_private`), and a session started on it.

use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::Session;
use crate::policy::address_guard::AllowPrivate;

pub(super) type Seen = Arc<Mutex<Vec<String>>>;
pub(super) type Route = Arc<dyn Fn(&str) -> (Duration, String) + Send + Sync>;

/// This machine's non-loopback address, if it has one.
pub(super) fn lan_address() -> Option<IpAddr> {
    let s = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    s.connect("198.51.100.1:9").ok()?;
    let ip = s.local_addr().ok()?.ip();
    (!ip.is_loopback() && !ip.is_unspecified()).then_some(ip)
}

/// Whether the test cannot run here (no Chromium, or no address besides loopback); CI
/// installs Chromium, so there a missing one fails.
pub(super) fn skip() -> bool {
    if super::super::cdp::find(None).is_none() {
        assert!(std::env::var_os("CI").is_none(), "CI installs Chromium");
        eprintln!("skipped: no Chromium on PATH");
        return true;
    }
    if lan_address().is_none() {
        eprintln!("skipped: this machine has no address besides loopback");
        return true;
    }
    false
}

pub(super) fn lan() -> IpAddr {
    lan_address().expect("checked by skip()")
}

pub(super) fn exe() -> std::path::PathBuf {
    super::super::cdp::find(None).expect("checked by skip()")
}

pub(super) fn html(body: &str) -> String {
    format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\naccess-control-allow-origin: *\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}
pub(super) fn redirect(code: &str, to: &str) -> String {
    format!("HTTP/1.1 {code}\r\nlocation: {to}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
}

pub(super) async fn serve(ip: IpAddr, route: Route) -> (SocketAddr, Seen) {
    let listener = TcpListener::bind((ip, 0)).await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen: Seen = Arc::default();
    let log = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            let (route, log) = (route.clone(), log.clone());
            tokio::spawn(async move {
                let mut buf = vec![0u8; 16384];
                let n = s.read(&mut buf).await.unwrap_or(0);
                let head = String::from_utf8_lossy(&buf[..n]).to_string();
                let line = head.lines().next().unwrap_or("").to_string();
                log.lock().unwrap().push(line.clone());
                let path = line.split(' ').nth(1).unwrap_or("/").to_string();
                let (delay, reply) = route(&path);
                tokio::time::sleep(delay).await;
                let _ = s.write_all(reply.as_bytes()).await;
            });
        }
    });
    (addr, seen)
}

pub(super) fn page(body: String) -> Route {
    Arc::new(move |_| (Duration::ZERO, html(&body)))
}

pub(super) async fn start() -> Session {
    let allow = AllowPrivate::parse(&[lan().to_string()]).unwrap();
    Session::start(&exe(), allow, true).await.unwrap()
}

/// Open `addr`'s root page and wait for it to load (its frames included).
pub(super) async fn open(s: &Session, addr: SocketAddr) {
    s.open(&format!("http://{addr}/"), Duration::from_secs(10))
        .await
        .unwrap();
}

/// Poll `done` every 20 ms until it holds or `limit` has passed; whether it held.
pub(super) async fn wait_until(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        if done() {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Wait until the attack on a loopback service is decided: for every one of `needles`,
/// the session has refused `count` requests or connections whose report names it; or
/// `reached` (the service's log) has a request, so the attack got through and the
/// caller's assertion fails on it. At most `limit`: where Chromium itself stops an
/// attempt, nothing is reported, and the test then waits as long as the attempt could
/// take. Returns every refusal taken from the session meanwhile.
pub(super) async fn until_refused(
    s: &Session,
    needles: &[&str],
    count: usize,
    reached: &Seen,
    limit: Duration,
) -> Vec<String> {
    let mut refused = Vec::new();
    let decided = wait_until(limit, || {
        refused.extend(s.take_refused());
        needles
            .iter()
            .all(|n| refused.iter().filter(|r| r.contains(n)).count() >= count)
            || !reached.lock().unwrap().is_empty()
    })
    .await;
    if !decided {
        eprintln!("no verdict on {needles:?} within {limit:?}; refused: {refused:?}");
    }
    refused
}

/// Assert that the server whose request lines are `seen` got none, naming `what` tried.
pub(super) fn untouched(seen: &Seen, what: &str) {
    let hits = seen.lock().unwrap().clone();
    assert!(hits.is_empty(), "{what} reached loopback: {hits:?}");
}
