use super::*;
use proptest::prelude::*;

/// Rules whose main frame shows a loopback page when `local`.
fn rules(local: bool) -> Rules {
    let gate = LoopbackGate::new("main");
    if local {
        gate.committed("main", None, "http://localhost:5173/");
    }
    Rules {
        allow: AllowPrivate::default(),
        gate: Arc::new(gate),
        refused: Arc::default(),
        keep: 10,
    }
}

/// Send `request` through the proxy and read until it closes (or `limit` passes).
async fn through(proxy: &Proxy, request: &[u8]) -> String {
    let mut c = TcpStream::connect(proxy.addr()).await.unwrap();
    c.write_all(request).await.unwrap();
    let mut out = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), c.read_to_end(&mut out)).await;
    String::from_utf8_lossy(&out).into_owned()
}

/// A server on 127.0.0.1 that records the first request head it gets and answers `reply`.
async fn upstream(reply: &'static str) -> (SocketAddr, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let log = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            let mut buf = vec![0u8; 4096];
            let n = s.read(&mut buf).await.unwrap_or(0);
            log.lock()
                .unwrap()
                .push(String::from_utf8_lossy(&buf[..n]).into_owned());
            let _ = s.write_all(reply.as_bytes()).await;
        }
    });
    (addr, seen)
}

#[test]
fn connect_requests_name_a_tunnel() {
    assert_eq!(
        parse(b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"),
        Ok(Target::Tunnel {
            host: "example.com".into(),
            port: 443
        })
    );
    assert_eq!(
        parse(b"CONNECT [::1]:8080 HTTP/1.1\r\n\r\n"),
        Ok(Target::Tunnel {
            host: "[::1]".into(),
            port: 8080
        })
    );
    for bad in [
        &b"CONNECT example.com HTTP/1.1\r\n\r\n"[..],
        b"CONNECT :443 HTTP/1.1\r\n\r\n",
        b"CONNECT [::1:443 HTTP/1.1\r\n\r\n",
        b"CONNECT a@b:443 HTTP/1.1\r\n\r\n",
        b"CONNECT example.com:443 HTTP/2\r\n\r\n",
        b"GET /relative HTTP/1.1\r\n\r\n",
        b"GET ftp://example.com/ HTTP/1.1\r\n\r\n",
        b"\xff\xfe\r\n\r\n",
    ] {
        assert!(parse(bad).is_err(), "{}", String::from_utf8_lossy(bad));
    }
}

#[test]
fn plain_requests_go_on_in_origin_form_and_never_keep_the_connection() {
    let Ok(Target::Forward { host, port, head }) = parse(
        b"POST http://example.com:8080/a/b?c=1 HTTP/1.1\r\nHost: example.com:8080\r\n\
          Proxy-Connection: keep-alive\r\nConnection: keep-alive\r\n\
          Proxy-Authorization: Basic eA==\r\nContent-Length: 2\r\n\r\n",
    ) else {
        panic!("not forwarded");
    };
    assert_eq!((host.as_str(), port), ("example.com", 8080));
    assert_eq!(
        String::from_utf8(head).unwrap(),
        "POST /a/b?c=1 HTTP/1.1\r\nHost: example.com:8080\r\nContent-Length: 2\r\n\
         Connection: close\r\n\r\n"
    );
}

#[test]
fn a_websocket_upgrade_keeps_its_connection_header() {
    let Ok(Target::Forward { head, .. }) = parse(
        b"GET http://127.0.0.1:5173/hmr HTTP/1.1\r\nHost: 127.0.0.1:5173\r\n\
          Connection: Upgrade\r\nUpgrade: websocket\r\n\r\n",
    ) else {
        panic!("not forwarded");
    };
    let head = String::from_utf8(head).unwrap();
    assert!(head.contains("Connection: Upgrade\r\n"), "{head}");
    assert!(!head.contains("close"), "{head}");
}

proptest! {
    /// Invariant: whatever headers a plain request carries, what reaches the server has
    /// one origin-form request line, no `Proxy-*` header, and exactly one `Connection`
    /// header, `close` unless the request upgrades.
    #[test]
    fn forwarded_heads_are_origin_form_without_proxy_headers(
        headers in proptest::collection::vec(
            (prop::sample::select(vec![
                "Host", "Connection", "connection", "Proxy-Connection", "proxy-authorization",
                "Accept", "Upgrade", "X-Thing",
            ]), "[a-zA-Z0-9 ,=-]{0,12}"),
            0..8,
        )
    ) {
        let mut raw = "GET http://h.example/p?q HTTP/1.1\r\n".to_string();
        for (n, v) in &headers {
            raw.push_str(&format!("{n}: {v}\r\n"));
        }
        raw.push_str("\r\n");
        let Ok(Target::Forward { head, .. }) = parse(raw.as_bytes()) else {
            panic!("not forwarded: {raw}");
        };
        let head = String::from_utf8(head).unwrap();
        prop_assert!(head.starts_with("GET /p?q HTTP/1.1\r\n"), "{}", head);
        prop_assert!(head.ends_with("\r\n\r\n"));
        let lines: Vec<&str> = head.trim_end().split("\r\n").skip(1).collect();
        prop_assert!(!lines.iter().any(|l| l.to_ascii_lowercase().starts_with("proxy-")));
        let upgrade = headers.iter().any(|(n, _)| *n == "Upgrade");
        let connection: Vec<&&str> = lines
            .iter()
            .filter(|l| l.to_ascii_lowercase().starts_with("connection:"))
            .collect();
        if !upgrade {
            prop_assert_eq!(connection, vec![&"Connection: close"]);
        }
    }
}

/// A tunnel to a metadata address is refused with a 403 that says why, and the refusal
/// is reported for the next tool result; nothing is connected.
#[tokio::test]
async fn a_tunnel_to_a_refused_address_gets_403_and_is_reported() {
    let r = rules(true);
    let proxy = Proxy::start(r.clone()).await.unwrap();
    let answer = through(&proxy, b"CONNECT 169.254.169.254:80 HTTP/1.1\r\n\r\n").await;
    assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
    assert!(answer.contains("169.254.169.254"), "{answer}");
    let refused = r.refused.lock().unwrap().clone();
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(refused[0].contains("169.254.169.254:80"), "{refused:?}");
}

/// A ticket for 127.0.0.1:`port`, as a loopback frame's request there leaves.
fn ticket(r: &Rules, port: u16) {
    r.gate
        .ticket(&reqwest::Url::parse(&format!("http://127.0.0.1:{port}/")).unwrap());
}

/// Loopback is reached only while the page is on loopback, and only for what the page's
/// own requests were let reach (a WebSocket of a foreign frame to another local service
/// is refused), through the tunnel it opens.
#[tokio::test]
async fn loopback_tunnels_follow_the_page_and_its_requests() {
    let (addr, seen) = upstream("pong").await;
    let r = rules(false);
    let proxy = Proxy::start(r.clone()).await.unwrap();
    let connect = format!("CONNECT 127.0.0.1:{} HTTP/1.1\r\n\r\nping", addr.port());
    let refused = through(&proxy, connect.as_bytes()).await;
    assert!(refused.starts_with("HTTP/1.1 403"), "{refused}");
    assert!(refused.contains("opened on loopback"), "{refused}");
    assert!(
        seen.lock().unwrap().is_empty(),
        "nothing reached the server"
    );

    r.gate.committed("main", None, "http://127.0.0.1:5173/");
    let refused = through(&proxy, connect.as_bytes()).await;
    assert!(
        refused.starts_with("HTTP/1.1 403"),
        "no request of the page went there: {refused}"
    );
    ticket(&r, addr.port());
    let answer = through(&proxy, connect.as_bytes()).await;
    assert_eq!(answer, "HTTP/1.1 200 Connection Established\r\n\r\npong");
    assert_eq!(seen.lock().unwrap().as_slice(), ["ping"]);
    r.gate.committed("main", None, "https://docs.example/");
    r.gate.committed("main", None, "http://127.0.0.1:5173/");
    let refused = through(&proxy, connect.as_bytes()).await;
    assert!(
        refused.starts_with("HTTP/1.1 403"),
        "tickets end when the page leaves loopback: {refused}"
    );
}

/// A plain-HTTP request reaches the server in origin form, its body after it, and the
/// server's answer comes back.
#[tokio::test]
async fn plain_http_is_forwarded_to_the_vetted_server() {
    let (addr, seen) = upstream("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok").await;
    let r = rules(true);
    ticket(&r, addr.port());
    let proxy = Proxy::start(r).await.unwrap();
    let request = format!(
        "POST http://127.0.0.1:{0}/form HTTP/1.1\r\nHost: 127.0.0.1:{0}\r\n\
         Proxy-Connection: keep-alive\r\nContent-Length: 2\r\n\r\nhi",
        addr.port()
    );
    let answer = through(&proxy, request.as_bytes()).await;
    assert!(answer.ends_with("\r\n\r\nok"), "{answer}");
    let got = seen.lock().unwrap()[0].clone();
    assert!(got.starts_with("POST /form HTTP/1.1\r\n"), "{got}");
    assert!(got.contains("Connection: close\r\n"), "{got}");
    assert!(!got.contains("Proxy-"), "{got}");
}

#[tokio::test]
async fn bad_requests_get_400_and_unreachable_servers_502() {
    let proxy = Proxy::start(rules(true)).await.unwrap();
    let answer = through(&proxy, b"HELLO\r\n\r\n").await;
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    // A port nothing listens on (bound, then let go).
    let free = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let r = rules(true);
    ticket(&r, free.port());
    let proxy = Proxy::start(r).await.unwrap();
    let connect = format!("CONNECT 127.0.0.1:{} HTTP/1.1\r\n\r\n", free.port());
    let answer = through(&proxy, connect.as_bytes()).await;
    assert!(answer.starts_with("HTTP/1.1 502"), "{answer}");
}

/// The proxy's answer to a metadata CONNECT, asked again every 10 ms until it starts with
/// `wanted` (at most 10 s): the last answer.
async fn answer_within(proxy: &Proxy, wanted: &str) -> String {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let answer = through(proxy, b"CONNECT 169.254.169.254:80 HTTP/1.1\r\n\r\n").await;
        if answer.starts_with(wanted) || tokio::time::Instant::now() >= deadline {
            return answer;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Connections beyond the limit are answered 503 at once; a slot frees when one ends.
#[tokio::test]
async fn connections_beyond_the_limit_get_503() {
    let proxy = Proxy::start_limited(rules(true), 2).await.unwrap();
    let idle: Vec<TcpStream> = vec![
        TcpStream::connect(proxy.addr()).await.unwrap(),
        TcpStream::connect(proxy.addr()).await.unwrap(),
    ];
    // The proxy takes the idle connections as it accepts them: ask until it has both.
    let answer = answer_within(&proxy, "HTTP/1.1 503").await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    drop(idle);
    // A slot frees once the proxy sees an idle connection close.
    let answer = answer_within(&proxy, "HTTP/1.1 403").await;
    assert!(
        answer.starts_with("HTTP/1.1 403"),
        "a slot is free again: {answer}"
    );
}
