//! Tests of notifications: the channel each setting picks in each terminal, the bytes
//! written for each, only while the terminal is not focused, the title, and the payload
//! `notify_command` reads.

use std::path::Path;

use super::*;
use crate::protocol::usage::Usage;
use crate::snapshot_tests::app;

fn env(program: Option<&str>, term: Option<&str>, tmux: bool) -> TermEnv {
    TermEnv {
        program: program.map(str::to_string),
        term: term.map(str::to_string),
        kitty: false,
        tmux,
    }
}

fn done() -> AgentEvent {
    AgentEvent::TurnComplete {
        usage: Usage::default(),
        end: TurnEnd::Done,
        unsent: Vec::new(),
        unsent_images: Vec::new(),
    }
}

#[test]
fn auto_picks_osc9_where_it_shows_osc777_in_foot_and_the_bell_elsewhere() {
    for program in ["iTerm.app", "WezTerm", "ghostty"] {
        let e = env(Some(program), Some("xterm-256color"), false);
        assert_eq!(e.channel(NotifyMode::Auto), Channel::Osc9, "{program}");
    }
    let kitty = env(None, Some("xterm-kitty"), false);
    assert_eq!(kitty.channel(NotifyMode::Auto), Channel::Osc9);
    let foot = env(None, Some("foot-extra"), false);
    assert_eq!(foot.channel(NotifyMode::Auto), Channel::Osc777);
    for other in [
        env(Some("Apple_Terminal"), Some("xterm-256color"), false),
        env(None, Some("xterm"), false),
        env(None, None, false),
        env(Some("iTerm.app"), Some("tmux-256color"), true),
    ] {
        assert_eq!(other.channel(NotifyMode::Auto), Channel::Bel, "{other:?}");
    }
    let plain = env(None, Some("xterm"), true);
    assert_eq!(plain.channel(NotifyMode::Osc9), Channel::Osc9);
    assert_eq!(plain.channel(NotifyMode::Bel), Channel::Bel);
    assert_eq!(plain.channel(NotifyMode::Off), Channel::Off);
}

#[test]
fn the_bytes_of_each_channel() {
    let e = env(None, None, false);
    assert_eq!(
        e.bytes(Channel::Osc9, "Loom is done"),
        b"\x1b]9;Loom is done\x07"
    );
    assert_eq!(
        e.bytes(Channel::Osc777, "a;b"),
        b"\x1b]777;notify;Loom;a,b\x07"
    );
    assert_eq!(e.bytes(Channel::Bel, "x"), b"\x07");
    assert!(e.bytes(Channel::Off, "x").is_empty());
    // A message cannot end the sequence early or start another one.
    assert_eq!(
        e.bytes(Channel::Osc9, "a\x07b\x1b]2;pwned\nc"),
        b"\x1b]9;a b ]2;pwned c\x07"
    );
    let tmux = env(None, None, true);
    assert_eq!(
        tmux.bytes(Channel::Osc9, "hi"),
        b"\x1bPtmux;\x1b\x1b]9;hi\x07\x1b\\",
        "tmux's passthrough, the inner ESC doubled"
    );
    assert_eq!(tmux.bytes(Channel::Bel, "hi"), b"\x07");
}

#[test]
fn the_title_shows_the_state_and_the_workspace() {
    let ws = Path::new("/home/me/myrepo");
    assert_eq!(title(Phase::Idle, ws), "loom · ready · myrepo");
    assert_eq!(title(Phase::CallingLlm, ws), "loom · working · myrepo");
    assert_eq!(
        title(Phase::AwaitingApproval, ws),
        "loom · waiting for approval · myrepo"
    );
}

/// Flush `events` through a notifier in `mode` with the terminal focused as `focused`
/// reports; the bytes written.
fn written(mode: NotifyMode, focused: Option<bool>, events: Vec<AgentEvent>) -> Vec<u8> {
    let (mut app, _rx) = app("dark");
    if let Some(f) = focused {
        app.on_focus(f);
    }
    let settings = NotifySettings {
        mode,
        command: Vec::new(),
    };
    let mut n = Notifier::new(
        settings,
        env(Some("WezTerm"), None, false),
        "/w/repo".into(),
    );
    let mut first = Vec::new();
    n.flush(&mut app, &mut first);
    for e in events {
        app.on_agent_event(e);
    }
    let mut out = Vec::new();
    n.flush(&mut app, &mut out);
    out
}

#[test]
fn a_notification_only_while_the_terminal_is_not_focused() {
    let approval = AgentEvent::ApprovalRequested {
        id: "c1".into(),
        name: "bash".into(),
        reason: "r".into(),
        preview: crate::protocol::events::ApprovalPreview::Other {
            arguments: serde_json::json!({}),
        },
    };
    let lost = written(NotifyMode::Auto, Some(false), vec![done()]);
    assert_eq!(lost, b"\x1b]9;Loom is done\x07");
    let asked = written(NotifyMode::Osc9, Some(false), vec![approval.clone()]);
    assert_eq!(asked, b"\x1b]9;Loom waits for your approval: bash\x07");
    let sub = AgentEvent::SubAgent {
        parent_id: "d1".into(),
        event: Box::new(approval),
    };
    assert_eq!(
        written(NotifyMode::Bel, Some(false), vec![sub]),
        b"\x07",
        "a sub-agent's approval waits too"
    );
    assert!(written(NotifyMode::Auto, Some(true), vec![done()]).is_empty());
    assert!(
        written(NotifyMode::Auto, None, vec![done()]).is_empty(),
        "a terminal that never reports focus is taken to be focused"
    );
    assert!(written(NotifyMode::Off, Some(false), vec![done()]).is_empty());
}

#[test]
fn the_title_is_written_when_the_state_changes_and_given_back() {
    let (mut app, _rx) = app("dark");
    let mut n = Notifier::new(
        NotifySettings::default(),
        TermEnv::default(),
        "/w/repo".into(),
    );
    let mut out = Vec::new();
    n.flush(&mut app, &mut out);
    let text = String::from_utf8(out).unwrap();
    assert!(text.ends_with("\x1b]2;loom · ready · repo\x07"), "{text:?}");
    let mut again = Vec::new();
    n.flush(&mut app, &mut again);
    assert!(again.is_empty(), "unchanged: nothing written");
    app.on_agent_event(AgentEvent::StateChanged {
        phase: Phase::CallingLlm,
    });
    let mut working = Vec::new();
    n.flush(&mut app, &mut working);
    assert_eq!(working, "\x1b]2;loom · working · repo\x07".as_bytes());
    let mut restored = Vec::new();
    restore_title(&mut restored);
    assert_eq!(restored, b"\x1b[23;0t");
}

#[tokio::test]
async fn notify_command_reads_the_payload_on_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let got = dir.path().join("payload.json");
    let (mut app, _rx) = app("dark");
    app.on_focus(false);
    app.status.session_id = "sess-1".into();
    let settings = NotifySettings {
        mode: NotifyMode::Off,
        command: vec![
            "sh".into(),
            "-c".into(),
            format!("cat > {}.part && mv {0}.part {0}", got.display()),
        ],
    };
    let mut n = Notifier::new(settings, TermEnv::default(), dir.path().to_path_buf());
    app.on_agent_event(done());
    let mut out = Vec::new();
    n.flush(&mut app, &mut out);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !got.exists() {
        assert!(std::time::Instant::now() < deadline, "the command ran");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let payload: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&got).unwrap()).unwrap();
    assert_eq!(payload["event"], "turn_complete");
    assert_eq!(payload["session_id"], "sess-1");
    assert_eq!(payload["workspace"], dir.path().display().to_string());
    assert_eq!(payload["message"], "Loom is done");
}
