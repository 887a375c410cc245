//! The `browser` tool end to end: the real `loom exec --json` drives a real headless
//! Chromium against a small web app served on 127.0.0.1 — a page with a form, a script
//! that throws, a button that changes text, and an image on a private address. CI installs
//! Chromium (`.ci/run`), so there a missing browser fails; elsewhere the tests say why
//! they skip.

use serde_json::Value;

use crate::exec::{Run, exec};
use crate::support::web::{WebReply, WebServer};
use crate::support::{self, ScriptedServer};

const APP: &str = r#"<!doctype html><html><head><title>Test app</title></head><body>
<h1 id="h">Hello</h1>
<form onsubmit="return false"><input id="name" name="name"></form>
<button id="b" onclick="document.getElementById('h').innerText = 'Clicked by ' + document.getElementById('name').value">Go</button>
<img src="http://10.255.255.1/tracker.png">
<script>console.log('app started'); setTimeout(() => { throw new Error('boom from the app'); }, 0);</script>
</body></html>"#;

/// Whether a Chromium is here; on CI (which installs one) its absence is a failure.
fn chromium_or_skip(test: &str) -> bool {
    let found = loom::tools::browser::cdp::find(None).is_some();
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI installs Chromium (.ci/run), but none was found"
        );
        eprintln!("{test}: skipped, no Chromium on PATH (apt-get install chromium)");
    }
    found
}

/// The model's reply: one `browser` call with `args`.
fn call(id: &str, args: Value) -> support::Reply {
    support::calls_openai(&[(id, "browser", &args.to_string())])
}

fn results(run: &Run) -> Vec<&Value> {
    run.of_type("tool_result")
}

#[tokio::test(flavor = "multi_thread")]
async fn the_browser_opens_clicks_types_reads_and_reports_errors_of_a_local_app() {
    if !chromium_or_skip("browser") {
        return;
    }
    let app = WebServer::start().await;
    app.route("/", vec![WebReply::ok("text/html", APP)]);
    let url = format!("http://{}/", app.addr);
    let server = ScriptedServer::start(vec![
        call("o", serde_json::json!({"action": "open", "url": url})),
        call("s", serde_json::json!({"action": "screenshot"})),
        call("t", serde_json::json!({"action": "type", "selector": "#name", "text": "Ada"})),
        call("c", serde_json::json!({"action": "click", "selector": "#b"})),
        call("x", serde_json::json!({"action": "text", "selector": "#h"})),
        call("l", serde_json::json!({"action": "console"})),
        call(
            "m",
            serde_json::json!({"action": "open", "url": "http://169.254.169.254/latest/meta-data/"}),
        ),
        support::text_reply("done"),
    ])
    .await;
    let dir = tempfile::tempdir().unwrap();
    let run = exec(dir.path(), &server, "full-auto", "look at the app").await;
    assert_eq!(run.code, 0, "{}\n{:#?}", run.stderr, run.events);
    let r = results(&run);
    assert_eq!(r.len(), 7, "{r:#?}");

    assert_eq!(r[0]["success"], true, "{}", r[0]);
    assert!(
        r[0]["output"].as_str().unwrap().contains("Test app"),
        "{}",
        r[0]
    );
    let refused = r[0]["data"]["refused"].to_string();
    assert!(
        refused.contains("10.255.255.1") && refused.contains("private"),
        "the page's image on a private address was refused: {}",
        r[0]
    );

    assert_eq!(r[1]["success"], true, "{}", r[1]);
    let path = r[1]["data"]["path"].as_str().unwrap();
    let png = std::fs::read(path).unwrap();
    assert_eq!(
        loom::tools::browser::png_size(&png),
        Some((1280, 800)),
        "a PNG of the viewport"
    );

    // The screenshot reaches the model as an image, after the call's result.
    let requests = server.requests();
    let last = requests[2]["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(last["role"], "user", "{last}");
    let url = last["content"][1]["image_url"]["url"]
        .as_str()
        .unwrap_or("");
    assert!(
        url.starts_with("data:image/png;base64,iVBORw0KGgo"),
        "{last}"
    );

    assert_eq!(r[2]["success"], true, "{}", r[2]);
    assert_eq!(r[3]["success"], true, "{}", r[3]);
    assert_eq!(r[4]["output"], "Clicked by Ada", "{}", r[4]);

    let console = r[5]["output"].as_str().unwrap();
    assert!(console.contains("app started"), "{console}");
    assert!(console.contains("boom from the app"), "{console}");

    assert_eq!(r[6]["success"], false, "{}", r[6]);
    let why = r[6]["error"].as_str().unwrap();
    assert!(why.contains("169.254.169.254"), "{why}");
}

/// Supervised `loom exec` cannot ask, and opening a page is approved per domain: refused.
#[tokio::test(flavor = "multi_thread")]
async fn supervised_exec_refuses_to_open_a_page() {
    if !chromium_or_skip("browser") {
        return;
    }
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[(
            "o",
            "browser",
            r#"{"action": "open", "url": "http://127.0.0.1:9/"}"#,
        )]),
        support::text_reply("refused"),
    ])
    .await;
    let dir = tempfile::tempdir().unwrap();
    let run = exec(dir.path(), &server, "supervised", "open it").await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let approval = run.of_type("approval");
    assert_eq!(approval[0]["decision"], "denied", "{approval:#?}");
    assert!(
        approval[0]["reason"].as_str().unwrap().contains("browser"),
        "{}",
        approval[0]
    );
}

const FRAMED: &str = r#"<!doctype html><html><body>
<iframe src="/frame"></iframe>
<script>
const w = new Worker(URL.createObjectURL(new Blob(
  ["fetch('http://10.255.255.3/from-worker').then(() => postMessage('reached'), () => postMessage('refused'))"],
  {type: 'text/javascript'})));
w.onmessage = (e) => { const p = document.createElement('p'); p.id = 'worker'; p.innerText = e.data; document.body.appendChild(p); };
</script></body></html>"#;

const FRAME: &str =
    r#"<!doctype html><html><body><img src="http://10.255.255.2/from-frame.png"></body></html>"#;

/// What a page starts — a cross-site frame, a worker — is guarded like the page itself:
/// their requests to a private address are refused too.
#[tokio::test(flavor = "multi_thread")]
async fn frames_and_workers_of_a_page_are_guarded_too() {
    if !chromium_or_skip("browser") {
        return;
    }
    let app = WebServer::start().await;
    app.route("/", vec![WebReply::ok("text/html", FRAMED)]);
    app.route("/frame", vec![WebReply::ok("text/html", FRAME)]);
    // Another site than the page (localhost vs 127.0.0.1), so the frame may run apart.
    let frame_host = format!("http://localhost:{}/", app.addr.port());
    let page = FRAMED.replace("/frame", &format!("{frame_host}frame"));
    app.route("/", vec![WebReply::ok("text/html", page)]);
    let url = format!("http://{}/", app.addr);
    let server = ScriptedServer::start(vec![
        call("o", serde_json::json!({"action": "open", "url": url})),
        call(
            "w",
            serde_json::json!({"action": "wait_for", "selector": "#worker", "timeout": 10}),
        ),
        call(
            "x",
            serde_json::json!({"action": "text", "selector": "#worker"}),
        ),
        support::text_reply("done"),
    ])
    .await;
    let dir = tempfile::tempdir().unwrap();
    let run = exec(dir.path(), &server, "full-auto", "look").await;
    assert_eq!(run.code, 0, "{}\n{:#?}", run.stderr, run.events);
    let r = results(&run);
    let refused: String = r.iter().map(|x| x["data"]["refused"].to_string()).collect();
    assert!(
        refused.contains("10.255.255.2"),
        "the frame's image: {r:#?}"
    );
    assert_eq!(
        r[2]["output"], "refused",
        "the worker's fetch failed: {r:#?}"
    );
    assert!(
        refused.contains("10.255.255.3"),
        "the worker's fetch: {r:#?}"
    );
}

/// This machine's address on its network (not loopback), if it has one.
fn lan_ipv4() -> Option<std::net::IpAddr> {
    let s = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    s.connect("198.51.100.1:9").ok()?;
    let ip = s.local_addr().ok()?.ip();
    (!ip.is_loopback() && !ip.is_unspecified()).then_some(ip)
}

/// Serve `page` at `ip`, port 0, to every request; returns the address and the request
/// lines seen.
async fn serve_on(
    ip: std::net::IpAddr,
    page: String,
) -> (
    std::net::SocketAddr,
    std::sync::Arc<std::sync::Mutex<Vec<String>>>,
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind((ip, 0)).await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let page = page.clone();
            let log = log.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 8192];
                let n = sock.read(&mut buf).await.unwrap_or(0);
                let head = String::from_utf8_lossy(&buf[..n]);
                log.lock()
                    .unwrap()
                    .push(head.lines().next().unwrap_or("").to_string());
                let reply = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{page}",
                    page.len()
                );
                let _ = sock.write_all(reply.as_bytes()).await;
            });
        }
    });
    (addr, seen)
}

/// Regression: loopback was open to every page, so a page not on this machine (a public
/// site, or here a LAN address the person listed in `allow_private`) could send requests
/// into the services on 127.0.0.1 — the dev server's API, a database's web console.
/// Loopback now serves only pages opened on loopback.
#[tokio::test(flavor = "multi_thread")]
async fn a_page_not_on_loopback_cannot_reach_this_machine() {
    if !chromium_or_skip("browser") {
        return;
    }
    let Some(lan) = lan_ipv4() else {
        eprintln!("browser: skipped, this machine has no address besides loopback");
        return;
    };
    let local = WebServer::start().await;
    local.route("/secret", vec![WebReply::ok("text/plain", "secret")]);
    let page = format!(
        r#"<!doctype html><html><body><p id="s">waiting</p>
<img src="http://{local}/secret-img">
<script>
const done = (t) => {{ document.getElementById('s').innerText = t;
  const d = document.createElement('i'); d.id = 'done'; document.body.appendChild(d); }};
fetch('http://{local}/secret').then(() => done('reached'), () => done('refused'));
</script></body></html>"#,
        local = local.addr
    );
    let (lan_addr, lan_seen) = serve_on(lan, page).await;
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join(".home/.config/loom");
    std::fs::create_dir_all(&conf).unwrap();
    std::fs::write(
        conf.join("config.toml"),
        format!("[web]\nallow_private = [\"{lan_addr}\"]\n"),
    )
    .unwrap();
    let server = ScriptedServer::start(vec![
        call(
            "o",
            serde_json::json!({"action": "open", "url": format!("http://{lan_addr}/")}),
        ),
        call(
            "w",
            serde_json::json!({"action": "wait_for", "selector": "#done", "timeout": 10}),
        ),
        call("x", serde_json::json!({"action": "text", "selector": "#s"})),
        support::text_reply("done"),
    ])
    .await;
    let run = exec(dir.path(), &server, "full-auto", "look").await;
    assert_eq!(run.code, 0, "{}\n{:#?}", run.stderr, run.events);
    let r = results(&run);
    assert_eq!(r[0]["success"], true, "the LAN page opens: {r:#?}");
    assert!(
        lan_seen
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.starts_with("GET / ")),
        "the page came from the LAN address"
    );
    assert_eq!(r[2]["output"], "refused", "the page's fetch(): {r:#?}");
    assert!(
        !local.seen().iter().any(|s| s.uri.starts_with("/secret")),
        "nothing reached the loopback service: {:?}",
        local
            .seen()
            .iter()
            .map(|s| s.uri.clone())
            .collect::<Vec<_>>()
    );
    let refused: String = r.iter().map(|x| x["data"]["refused"].to_string()).collect();
    assert!(refused.contains("opened on loopback"), "{r:#?}");
}

/// Regression: DevTools' request interception never pauses a WebSocket handshake, so a
/// page's script could open a WebSocket to an address the guard refuses (a handshake to
/// 169.254.169.254 went out). Every connection of the browser now goes through Loom's
/// proxy, which refuses it before anything is sent; here to a server on this machine's LAN
/// address, which the page on loopback may not reach.
#[tokio::test(flavor = "multi_thread")]
async fn a_page_cannot_open_a_websocket_to_a_refused_address() {
    if !chromium_or_skip("browser") {
        return;
    }
    let Some(lan) = lan_ipv4() else {
        eprintln!("browser: skipped, this machine has no address besides loopback");
        return;
    };
    let (lan_addr, lan_seen) = serve_on(lan, String::new()).await;
    let app = WebServer::start().await;
    let page = format!(
        r#"<!doctype html><html><body><p id="s">waiting</p><script>
const done = (t) => {{ document.getElementById('s').innerText = t;
  const d = document.createElement('i'); d.id = 'done'; document.body.appendChild(d); }};
const ws = new WebSocket('ws://{lan_addr}/socket');
ws.onopen = () => done('open'); ws.onerror = () => done('refused');
</script></body></html>"#
    );
    app.route("/", vec![WebReply::ok("text/html", page)]);
    let server = ScriptedServer::start(vec![
        call(
            "o",
            serde_json::json!({"action": "open", "url": format!("http://{}/", app.addr)}),
        ),
        call(
            "w",
            serde_json::json!({"action": "wait_for", "selector": "#done", "timeout": 10}),
        ),
        call("x", serde_json::json!({"action": "text", "selector": "#s"})),
        support::text_reply("done"),
    ])
    .await;
    let dir = tempfile::tempdir().unwrap();
    let run = exec(dir.path(), &server, "full-auto", "look").await;
    assert_eq!(run.code, 0, "{}\n{:#?}", run.stderr, run.events);
    let r = results(&run);
    assert_eq!(r[2]["output"], "refused", "the page's WebSocket: {r:#?}");
    assert!(
        lan_seen.lock().unwrap().is_empty(),
        "no handshake reached the LAN server: {:?}",
        lan_seen.lock().unwrap()
    );
    let refused: String = r.iter().map(|x| x["data"]["refused"].to_string()).collect();
    assert!(
        refused.contains(&format!("connection to {lan_addr}")) && refused.contains("private"),
        "{r:#?}"
    );
}

/// The browser runs confined like a command (own namespaces) and, with the sandbox on,
/// writes only its profile and connects only to Loom's proxy; the first result says so.
#[tokio::test(flavor = "multi_thread")]
async fn the_browser_says_how_it_is_confined() {
    if !chromium_or_skip("browser") {
        return;
    }
    let app = WebServer::start().await;
    app.route("/", vec![WebReply::ok("text/html", APP)]);
    let server = ScriptedServer::start(vec![
        call(
            "o",
            serde_json::json!({"action": "open", "url": format!("http://{}/", app.addr)}),
        ),
        call("e", serde_json::json!({"action": "eval", "js": "2 + 2"})),
        support::text_reply("done"),
    ])
    .await;
    let dir = tempfile::tempdir().unwrap();
    let run = exec(dir.path(), &server, "full-auto", "look").await;
    assert_eq!(run.code, 0, "{}\n{:#?}", run.stderr, run.events);
    let r = results(&run);
    assert_eq!(r[1]["output"], "4", "{r:#?}");
    let said = r[0]["data"]["confinement"].as_str().unwrap_or_default();
    let landlock_net = loom_sandbox::kernel_abi() >= 4;
    if loom_sandbox::protection_available() && landlock_net {
        assert_eq!(
            said,
            "The browser runs with its own PID and mount namespaces, writes only in its \
             temporary profile, TCP only to Loom's proxy, no UDP.",
            "{r:#?}"
        );
    } else {
        assert!(said.starts_with("The browser runs"), "{r:#?}");
    }
    assert!(
        r[1]["data"].get("confinement").is_none(),
        "said once, when the browser starts: {r:#?}"
    );
}

/// A model that cannot take images: the screenshot is taken out and the request sent
/// again, so the turn goes on with the file's path instead of failing.
#[tokio::test(flavor = "multi_thread")]
async fn a_text_only_model_gets_the_screenshot_path_and_the_turn_goes_on() {
    if !chromium_or_skip("browser") {
        return;
    }
    let app = WebServer::start().await;
    app.route("/", vec![WebReply::ok("text/html", APP)]);
    let url = format!("http://{}/", app.addr);
    let server = ScriptedServer::start(vec![
        call("o", serde_json::json!({"action": "open", "url": url})),
        call("s", serde_json::json!({"action": "screenshot"})),
        support::status(400, "image input is not supported by this model", None),
        support::text_reply("Seen the path."),
    ])
    .await;
    let dir = tempfile::tempdir().unwrap();
    let run = exec(dir.path(), &server, "full-auto", "look").await;
    assert_eq!(run.code, 0, "{}\n{:#?}", run.stderr, run.events);
    let requests = server.requests();
    assert_eq!(requests.len(), 4, "the refused request was sent again");
    let last = requests[3].to_string();
    assert!(!last.contains("data:image/png"), "the image was taken out");
    assert!(last.contains(".png"), "the result still names the file");
    assert!(
        run.of_type("turn_completed")
            .iter()
            .any(|t| t["end"] == "done"),
        "{:#?}",
        run.events
    );
}

/// Issue 23: the browser runs under the same containment as commands and MCP servers, so
/// no Chromium process outlives Loom, not even after `kill -9` of Loom in the middle of a
/// call. Loom gets a temp dir of its own, which names the browser's profile, to find them.
#[tokio::test(flavor = "multi_thread")]
async fn no_browser_process_outlives_kill_9_of_loom() {
    if !chromium_or_skip("no_browser_process_outlives_kill_9_of_loom") {
        return;
    }
    // A page that never answers keeps the call (and Loom) busy; its first request says
    // the browser is up and loading.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (requested, mut loading) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            held.push(stream);
            let _ = requested.send(());
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    let home = dir.path().join(".home");
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let marker = tmp.display().to_string();
    let url = format!("http://127.0.0.1:{port}/");
    let mut loom = crate::exec::loom_command(&home)
        .env("TMPDIR", &tmp)
        .args(["tool", "run", "browser", "--args"])
        .arg(serde_json::json!({"action": "open", "url": url}).to_string())
        .arg("-C")
        .arg(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let browsers = || processes_naming(&marker);
    let loaded = tokio::time::timeout(std::time::Duration::from_secs(30), loading.recv()).await;
    assert!(
        matches!(loaded, Ok(Some(()))),
        "the browser asked for the page"
    );
    assert!(browsers() > 1, "the browser's processes run");
    let pid = nix::unistd::Pid::from_raw(loom.id().unwrap() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL).unwrap();
    let _ = loom.wait().await;
    let killed = std::time::Instant::now();
    while browsers() > 0 && killed.elapsed() < std::time::Duration::from_secs(10) {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(browsers(), 0, "browser processes outlived Loom");
}

/// How many live processes (any PID namespace) name `text` in their command line.
fn processes_naming(text: &str) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
        .filter(|e| {
            let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
            String::from_utf8_lossy(&cmdline).contains(text) && !stat.contains(") Z")
        })
        .count()
}
