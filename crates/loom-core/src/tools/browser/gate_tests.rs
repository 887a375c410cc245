use super::*;

fn url(s: &str) -> Url {
    Url::parse(s).unwrap()
}

#[test]
fn loopback_pages_are_known_by_their_host_as_written() {
    for yes in [
        "http://localhost:5173/",
        "http://LOCALHOST./x",
        "http://app.localhost:3000/",
        "https://127.0.0.1/",
        "http://127.9.9.9:8080/",
        "http://[::1]:3000/",
        "ws://localhost:5173/hmr",
    ] {
        assert!(is_loopback_url(&url(yes)), "{yes}");
    }
    for no in [
        "http://10.0.0.1/",
        "http://example.com/",
        "http://localhost.example.com/",
        "http://[::ffff:127.0.0.1]/",
        "file:///etc/passwd",
        "about:blank",
        "data:text/html,x",
    ] {
        assert!(!is_loopback_url(&url(no)), "{no}");
    }
}

/// Regression (review): loopback opened when the model asked for a loopback URL, before
/// anything loaded; the public page still showing reached loopback meanwhile, and for good
/// when the navigation never committed. Now only the navigation itself passes, to that
/// host and port, while the open is under way.
#[test]
fn opening_a_loopback_url_lets_only_that_navigation_through() {
    let g = LoopbackGate::new("main");
    g.committed("main", None, "http://192.0.2.2/evil");
    let dev = url("http://127.0.0.1:5173/");
    g.opening(Some(&dev));
    assert!(g.for_request(Some("main"), true, &dev), "the navigation");
    assert!(
        !g.for_request(Some("main"), false, &url("http://127.0.0.1:9000/secret")),
        "the old page's fetch()"
    );
    assert!(g.for_connection("127.0.0.1", 5173));
    assert!(!g.for_connection("127.0.0.1", 9000), "another service");
    g.opening(None);
    assert!(!g.for_request(Some("main"), true, &dev), "the open is over");
    assert!(!g.for_connection("127.0.0.1", 5173));
    assert!(!g.main_on_loopback(), "nothing committed there");
}

/// Regression (review): one flag served every frame; a foreign frame in a loopback page
/// (or a popup) reached loopback. Each frame is judged by the page it shows.
#[test]
fn each_frame_is_judged_by_the_page_it_shows() {
    let g = LoopbackGate::new("main");
    g.committed("main", None, "http://localhost:5173/");
    assert!(g.main_on_loopback());
    let api = url("http://127.0.0.1:3000/api");
    assert!(
        g.for_request(Some("main"), false, &api),
        "the dev page's own call"
    );
    g.attached("ad", "main");
    assert!(
        g.for_request(Some("ad"), true, &url("http://localhost:5173/embed")),
        "a new frame of a loopback page may load from loopback"
    );
    g.committed("ad", Some("main"), "https://ads.example/frame");
    assert!(
        !g.for_request(Some("ad"), false, &api),
        "a foreign frame's fetch()"
    );
    assert!(!g.for_request(Some("ad"), true, &api), "nor navigate there");
    g.committed("oopif", Some("main"), "about:blank");
    g.context("oopif", "http://localhost:5173");
    assert!(
        g.for_request(Some("oopif"), false, &api),
        "blank, the dev page's"
    );
    g.own_process("oopif", "");
    assert!(
        !g.for_request(Some("oopif"), false, &api),
        "moved to its own process with no URL: not its parent's any more"
    );
    g.committed("oopif", Some("main"), "http://localhost:4000/");
    g.own_process("oopif", "");
    assert!(
        g.for_request(Some("oopif"), false, &api),
        "a page it committed itself is kept when its process attaches afterwards"
    );
    g.own_process("oopif", "https://elsewhere.example/");
    assert!(!g.for_request(Some("oopif"), false, &api));
    g.committed("blank", Some("main"), "about:blank");
    assert!(
        !g.for_request(Some("blank"), false, &api),
        "a blank page is nobody's until its context says whose"
    );
    g.context("blank", "http://localhost:5173");
    assert!(
        g.for_request(Some("blank"), false, &api),
        "the dev page's blank frame"
    );
    // Regression (second review): a foreign frame navigated a sibling to about:blank,
    // which took the parent's loopback though its page had the foreign origin.
    g.committed("blank", Some("main"), "about:blank");
    g.context("blank", "http://192.0.2.2:8000");
    assert!(
        !g.for_request(Some("blank"), false, &api),
        "a foreign blank page"
    );
    g.context("main", "http://192.0.2.2:8000");
    assert!(
        g.for_request(Some("main"), false, &api),
        "a page's own URL decides, not a later context"
    );
    g.context("new", "http://localhost:5173");
    assert!(
        g.for_request(Some("new"), false, &api),
        "a first, unreported blank page"
    );
    assert!(
        !g.for_request(Some("popup"), false, &api),
        "a frame nothing is known of (a popup) gets none"
    );
    assert!(!g.for_request(None, false, &api));
    assert!(
        !g.for_connection("127.0.0.1", 3000),
        "a connection nothing on the page was let reach (a WebSocket)"
    );
    g.ticket(&api);
    assert!(
        g.for_connection("127.0.0.1", 3000),
        "the dev page's own API"
    );
    assert!(!g.for_connection("127.0.0.1", 6379), "another service");
    g.detached("ad");
    g.committed("main", None, "https://docs.example/");
    assert!(
        !g.for_request(Some("main"), false, &api),
        "the page left loopback"
    );
    assert!(!g.for_connection("127.0.0.1", 3000));
    g.committed("main", None, "http://localhost:5173/");
    assert!(
        !g.for_connection("127.0.0.1", 3000),
        "tickets end with the page"
    );
}

/// When events were lost (the watcher lagged), no frame keeps loopback: a commit away from
/// loopback may have been among them.
#[test]
fn lost_events_leave_no_frame_with_loopback() {
    let g = LoopbackGate::new("main");
    g.committed("main", None, "http://localhost:5173/");
    let api = url("http://127.0.0.1:3000/api");
    g.ticket(&api);
    g.forget();
    assert!(!g.for_request(Some("main"), false, &api));
    assert!(!g.for_connection("127.0.0.1", 3000));
    g.committed("main", None, "http://localhost:5173/");
    assert!(
        g.for_request(Some("main"), false, &api),
        "until it commits again"
    );
}

/// Regression (third review): a loopback page's navigation could go anywhere on loopback
/// (a popup set `opener.location`, a foreign frame set `top.location` on the person's
/// click), and a name that was not loopback (a foreign frame's site, a CDN) could reach
/// loopback through a redirect or a DNS answer, and earned the proxy a ticket. Now only a
/// URL naming loopback reaches it, and a frame's navigation stays on its page's host and
/// port.
#[test]
fn navigations_stay_on_their_page_and_only_loopback_names_reach_loopback() {
    let g = LoopbackGate::new("main");
    g.committed("main", None, "http://127.0.0.1:5173/");
    assert!(g.for_request(Some("main"), true, &url("http://127.0.0.1:5173/next")));
    assert!(
        !g.for_request(Some("main"), true, &url("http://127.0.0.1:9000/admin")),
        "another local service needs the model's open"
    );
    assert!(g.for_request(Some("main"), false, &url("http://127.0.0.1:9000/api")));
    for name in [
        "http://evil.example/",
        "http://vm:9000/",
        "http://cdn.example/logo.png",
    ] {
        assert!(
            !g.for_request(Some("main"), false, &url(name)),
            "{name}: not a loopback name"
        );
    }
    g.attached("docs", "main");
    assert!(
        g.for_request(Some("docs"), true, &url("http://localhost:3000/")),
        "a frame the page holds, before it shows anything: the page asked for it"
    );
    g.committed("docs", Some("main"), "http://localhost:3000/");
    assert!(g.for_request(Some("docs"), true, &url("http://localhost:3000/b")));
    assert!(
        !g.for_request(Some("docs"), true, &url("http://localhost:6379/")),
        "sent elsewhere by someone else"
    );
    g.attached("widget", "main");
    assert!(
        !g.for_request(Some("widget"), true, &url("http://foreign.example/widget")),
        "a foreign frame's first navigation: not a loopback name, so no loopback"
    );
}

/// Regression (fourth review): frames of a reloaded page were never forgotten, so a page
/// could fill the tables, and with the frame table full a new foreign frame's navigation
/// fell back to its loopback parent's verdict. A new main document forgets the last one's
/// frames (a repeat of the same commit does not), and a full table gives no fallback.
#[test]
fn a_new_document_forgets_old_frames_and_a_full_table_gives_no_fallback() {
    let g = LoopbackGate::new("main");
    g.document("main", "L1");
    g.committed("main", None, "http://localhost:5173/");
    g.committed("child", Some("main"), "http://localhost:5173/embed");
    let api = url("http://localhost:5173/api");
    assert!(g.for_request(Some("child"), false, &api));
    g.document("main", "L1");
    assert!(
        g.for_request(Some("child"), false, &api),
        "the same commit, twice"
    );
    g.document("main", "L2");
    g.committed("main", None, "http://localhost:5173/");
    assert!(
        !g.for_request(Some("child"), false, &api),
        "gone with its page"
    );
    assert!(g.for_request(Some("main"), false, &api));

    for i in 0..MAX_FRAMES {
        g.committed(&format!("f{i}"), None, "about:blank");
    }
    g.attached("widget", "main");
    assert!(
        !g.for_request(Some("widget"), true, &url("http://127.0.0.1:9999/csrf")),
        "a frame the full table could not record is not judged by its parent"
    );
}

/// Tickets belong to the page that earned them: the main frame moving to another loopback
/// host or port (the model opening another local service) clears them.
#[test]
fn tickets_end_when_the_main_page_changes_host_or_port() {
    let g = LoopbackGate::new("main");
    g.committed("main", None, "http://localhost:5173/");
    g.ticket(&url("http://localhost:3000/api"));
    assert!(g.for_connection("localhost", 3000));
    g.committed("main", None, "http://localhost:5173/other");
    assert!(
        g.for_connection("localhost", 3000),
        "the same page's host and port"
    );
    g.committed("main", None, "http://localhost:8080/");
    assert!(!g.for_connection("localhost", 3000));
    // Regression (CI): the new page's own ticket went with the old ones, so its
    // hot-reload WebSocket, coming before any other request, was refused.
    assert!(
        g.for_connection("localhost", 8080),
        "the page's own host and port"
    );
}
