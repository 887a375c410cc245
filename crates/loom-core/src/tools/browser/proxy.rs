//! The browser's only way out: an HTTP proxy on 127.0.0.1 that Chromium must use for every
//! connection (`--proxy-server`, loopback included), which judges each one with
//! [`super::guard`]'s rules and then connects to the very addresses it judged.
//!
//! CDP's Fetch interception (in [`super::session`]) sees requests, not connections, and it
//! never pauses a WebSocket handshake; Chromium also resolves host names again after that
//! check, so a DNS answer that changes in between (rebinding) would reach an address nobody
//! checked. Here every connection — page loads, `fetch()`, WebSockets, whatever a frame or
//! worker opens — arrives as `CONNECT host:port` (https, wss, and ws) or as a plain-HTTP
//! request with an absolute URL, is refused with a 403 naming the rule, or is connected to
//! an address vetted a moment ago. Where Landlock can say so, the browser's processes may
//! open TCP connections only to this proxy's port ([`super::jail`]).

use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::gate::LoopbackGate;
use super::guard;
use crate::policy::address_guard::AllowPrivate;

/// The longest request head accepted (request line and headers).
const MAX_HEAD: usize = 32 * 1024;
/// How long a client may take to send its request head.
const HEAD_LIMIT: Duration = Duration::from_secs(10);
/// How long connecting to one address may take.
const CONNECT_LIMIT: Duration = Duration::from_secs(10);
/// Most connections served at once (Chromium opens a few dozen; anyone else on this
/// machine who connects cannot make Loom run out of descriptors).
const MAX_CONNECTIONS: usize = 512;

/// What the proxy judges connections by: the session's rules and page state.
#[derive(Clone)]
pub struct Rules {
    /// The private addresses the person listed.
    pub allow: AllowPrivate,
    /// Which connections may reach this machine's loopback.
    pub gate: Arc<LoopbackGate>,
    /// Where refusals are reported for the next tool result.
    pub refused: Arc<Mutex<Vec<String>>>,
    /// How many refusals are kept.
    pub keep: usize,
}

impl Rules {
    /// Keep `refusal` for the next tool result (the oldest goes when the list is full).
    fn report(&self, refusal: String) {
        let mut l = self.refused.lock().unwrap_or_else(|e| e.into_inner());
        if l.len() >= self.keep {
            l.remove(0);
        }
        l.push(refusal);
    }
}

/// A running proxy; dropping it stops taking connections.
pub struct Proxy {
    addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Proxy {
    /// Listen on 127.0.0.1 (a free port) and judge every connection by `rules`.
    pub async fn start(rules: Rules) -> std::io::Result<Proxy> {
        Proxy::start_limited(rules, MAX_CONNECTIONS).await
    }

    /// [`Proxy::start`], serving at most `limit` connections at once (the rest get 503).
    async fn start_limited(rules: Rules, limit: usize) -> std::io::Result<Proxy> {
        let listener = TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, 0)).await?;
        let addr = listener.local_addr()?;
        let slots = Arc::new(tokio::sync::Semaphore::new(limit));
        let task = tokio::spawn(async move {
            loop {
                let Ok((mut client, _)) = listener.accept().await else {
                    // Out of descriptors, most likely: let some connections end first.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                };
                let Ok(slot) = slots.clone().try_acquire_owned() else {
                    tokio::spawn(async move {
                        let why = "too many connections at once";
                        let _ = reply(&mut client, "503 Service Unavailable", why).await;
                    });
                    continue;
                };
                let rules = rules.clone();
                tokio::spawn(async move {
                    let _ = serve(client, &rules).await;
                    drop(slot);
                });
            }
        });
        Ok(Proxy { addr, task })
    }

    /// Where the proxy listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

/// One request's target, as the proxy must reach it.
#[derive(Debug, PartialEq, Eq)]
pub enum Target {
    /// `CONNECT host:port`: a tunnel, opened with `200` and then copied both ways.
    Tunnel {
        /// The host as written (a name, or an IP, IPv6 in brackets).
        host: String,
        /// The port.
        port: u16,
    },
    /// A plain-HTTP request for an absolute URL: sent on in origin form.
    Forward {
        /// The host as written.
        host: String,
        /// The port (the URL's, else 80).
        port: u16,
        /// The request head to send to the server.
        head: Vec<u8>,
    },
}

/// Why a request head cannot be served.
#[derive(Debug, PartialEq, Eq)]
pub struct BadRequest(pub String);

/// Read the request line and headers; what follows the head stays in `rest`.
async fn read_head(client: &mut TcpStream) -> Result<(Vec<u8>, Vec<u8>), BadRequest> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    let read = async {
        loop {
            if let Some(end) = find_head_end(&buf) {
                let rest = buf.split_off(end);
                return Ok((buf, rest));
            }
            if buf.len() > MAX_HEAD {
                return Err(BadRequest("the request head is too large".into()));
            }
            let n = client
                .read(&mut chunk)
                .await
                .map_err(|e| BadRequest(e.to_string()))?;
            if n == 0 {
                return Err(BadRequest("the connection closed mid-request".into()));
            }
            buf.extend_from_slice(&chunk[..n]);
        }
    };
    tokio::time::timeout(HEAD_LIMIT, read)
        .await
        .map_err(|_| BadRequest("no request head within 10 s".into()))?
}

/// Where the head ends: just after the first blank line.
fn find_head_end(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4)
}

/// Split `host:port` (IPv6 in brackets) as a CONNECT target names it.
fn host_port(authority: &str) -> Option<(String, u16)> {
    let (host, port) = authority.rsplit_once(':')?;
    let port = port.parse().ok()?;
    let host_ok = !host.is_empty()
        && (host.starts_with('[') == host.ends_with(']'))
        && !host.contains(['/', '@', ' ']);
    host_ok.then(|| (host.to_string(), port))
}

/// Understand one request head: a tunnel, or a plain-HTTP request rewritten for the server
/// (origin-form request line; `Proxy-*` headers dropped; `Connection: close` unless the
/// request upgrades, so the server closes after its answer). Once joined to a server, a
/// connection is copied as it is: a server that ignores `close` gets what else the client
/// sends on it, and Chromium reuses a proxy connection only for the same destination, so
/// that never carries a request to another host.
pub fn parse(head: &[u8]) -> Result<Target, BadRequest> {
    let text = std::str::from_utf8(head)
        .map_err(|_| BadRequest("the request head is not UTF-8".into()))?;
    let mut lines = text.split("\r\n");
    let request = lines.next().unwrap_or_default();
    let mut parts = request.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(BadRequest(format!("not an HTTP request line: {request:?}")));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(BadRequest(format!("unsupported version {version}")));
    }
    if method.eq_ignore_ascii_case("CONNECT") {
        let (host, port) = host_port(target)
            .ok_or_else(|| BadRequest(format!("not a host:port to connect to: {target}")))?;
        return Ok(Target::Tunnel { host, port });
    }
    let url = reqwest::Url::parse(target)
        .map_err(|_| BadRequest(format!("a proxy request needs an absolute URL: {target}")))?;
    if !matches!(url.scheme(), "http" | "ws") {
        return Err(BadRequest(format!(
            "{}: only http goes through the proxy unencrypted",
            url.scheme()
        )));
    }
    let host = url
        .host_str()
        .ok_or_else(|| BadRequest(format!("{target} has no host")))?
        .to_string();
    let port = url.port_or_known_default().unwrap_or(80);
    let headers: Vec<&str> = lines.take_while(|l| !l.is_empty()).collect();
    let upgrade = headers.iter().any(|h| header_is(h, "upgrade"));
    let mut out = format!(
        "{method} {}{} {version}\r\n",
        url.path(),
        url.query().map(|q| format!("?{q}")).unwrap_or_default()
    );
    for h in headers {
        let dropped = header_is(h, "proxy-connection")
            || header_is(h, "proxy-authorization")
            || (!upgrade && header_is(h, "connection"));
        if !dropped {
            out.push_str(h);
            out.push_str("\r\n");
        }
    }
    if !upgrade {
        out.push_str("Connection: close\r\n");
    }
    out.push_str("\r\n");
    Ok(Target::Forward {
        host,
        port,
        head: out.into_bytes(),
    })
}

fn header_is(line: &str, name: &str) -> bool {
    line.split_once(':')
        .is_some_and(|(n, _)| n.trim().eq_ignore_ascii_case(name))
}

/// Serve one client connection.
async fn serve(mut client: TcpStream, rules: &Rules) -> std::io::Result<()> {
    let (head, rest) = match read_head(&mut client).await {
        Ok(h) => h,
        Err(BadRequest(why)) => return reply(&mut client, "400 Bad Request", &why).await,
    };
    let target = match parse(&head) {
        Ok(t) => t,
        Err(BadRequest(why)) => return reply(&mut client, "400 Bad Request", &why).await,
    };
    let (host, port) = match &target {
        Target::Tunnel { host, port } | Target::Forward { host, port, .. } => (host.clone(), *port),
    };
    let local = rules.gate.for_connection(&host, port);
    let ips = match guard::vet_target(&host, port, &rules.allow, local).await {
        Ok(ips) => ips,
        Err(guard::TargetError::Refused(why)) => {
            rules.report(format!("connection to {host}:{port}: {why}"));
            return reply(&mut client, "403 Forbidden", &why).await;
        }
        // Nowhere to go is not a refusal (and Chromium's own background requests to
        // hosts a closed network cannot resolve are not the page's doing).
        Err(guard::TargetError::Unresolved(why)) => {
            return reply(&mut client, "502 Bad Gateway", &why).await;
        }
    };
    let mut server = match connect(&ips, port).await {
        Ok(s) => s,
        Err(e) => {
            let why = format!("cannot connect to {host}:{port}: {e}");
            return reply(&mut client, "502 Bad Gateway", &why).await;
        }
    };
    match target {
        Target::Tunnel { .. } => {
            client
                .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                .await?;
        }
        Target::Forward { head, .. } => server.write_all(&head).await?,
    }
    if !rest.is_empty() {
        server.write_all(&rest).await?;
    }
    tokio::io::copy_bidirectional(&mut client, &mut server).await?;
    Ok(())
}

/// Connect to the first of `ips` that answers (the vetted addresses, nothing else).
async fn connect(ips: &[IpAddr], port: u16) -> std::io::Result<TcpStream> {
    let mut last = std::io::Error::other("no address to connect to");
    for ip in ips {
        match tokio::time::timeout(CONNECT_LIMIT, TcpStream::connect((*ip, port))).await {
            Ok(Ok(s)) => return Ok(s),
            Ok(Err(e)) => last = e,
            Err(_) => last = std::io::Error::new(std::io::ErrorKind::TimedOut, "timed out"),
        }
    }
    Err(last)
}

/// Answer with `status` and `why` as plain text, then close.
async fn reply(client: &mut TcpStream, status: &str, why: &str) -> std::io::Result<()> {
    let body = format!("Loom's browser proxy: {why}\n");
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n",
        body.len()
    );
    client.write_all(head.as_bytes()).await?;
    client.write_all(body.as_bytes()).await?;
    client.shutdown().await
}

#[cfg(test)]
#[path = "proxy_tests.rs"]
mod tests;
