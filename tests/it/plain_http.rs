//! A local model server over plain `http://` (llama-server, Ollama) costs no TLS: the real
//! binary works on a system whose certificate store is empty, and the full-screen UI starts
//! its agent as soon as it is up, without waiting for a key.

use std::io::Read;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

use crate::exec::loom_command;
use crate::support::{self, ScriptedServer};

/// A `loom` command whose certificate store is empty (rustls-native-certs reads
/// `SSL_CERT_FILE` and `SSL_CERT_DIR` before the system's own places).
fn without_roots(dir: &Path) -> tokio::process::Command {
    let home = dir.join(".home");
    let certs = dir.join(".no-certs");
    std::fs::create_dir_all(&certs).unwrap();
    std::fs::write(certs.join("none.pem"), "").unwrap();
    let mut cmd = loom_command(&home);
    cmd.env("SSL_CERT_FILE", certs.join("none.pem"))
        .env("SSL_CERT_DIR", &certs);
    cmd
}

// The bug this guards: every HTTP client read and parsed the system's root certificates
// when it was built, for `http://` too, so a machine with no usable store could not even
// list a local server's models, and every launch paid for the roots.
#[tokio::test]
async fn a_plain_http_server_needs_no_root_certificates() {
    let dir = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![support::text_reply("hello over plain http")]).await;
    let models = without_roots(dir.path())
        .args(["models", "--model", "scripted-model", "--base-url"])
        .arg(server.base_url())
        .arg("-C")
        .arg(dir.path())
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&models.stdout);
    assert!(
        models.status.success() && stdout.contains("* scripted-model"),
        "stdout: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&models.stderr)
    );

    let exec = without_roots(dir.path())
        .args(["exec", "--model", "scripted-model", "--base-url"])
        .arg(server.base_url())
        .arg("-C")
        .arg(dir.path())
        .arg("say hello")
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&exec.stdout);
    assert!(
        exec.status.success() && stdout.contains("hello over plain http"),
        "stdout: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&exec.stderr)
    );
}

// The bug this guards: the UI started the agent only after its loop first woke up, and at
// launch nothing had to wake it: when syntax highlighting had loaded before the first frame
// (no animation left), the agent, its session file and the provider's probes waited for
// the first key. A terminal that answers none of Loom's questions makes Loom wait for the
// answers before the first frame, long enough for the highlighting to load.
#[tokio::test]
async fn the_agent_starts_before_the_first_key() {
    let dir = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![]).await;
    let home = dir.path().join(".home");
    std::fs::create_dir_all(&home).unwrap();
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 30,
            cols: 100,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_loom"));
    cmd.args([
        "--model",
        "scripted-model",
        "--base-url",
        &server.base_url(),
        "-C",
    ]);
    cmd.arg(dir.path());
    cmd.cwd(dir.path());
    cmd.env("HOME", &home);
    cmd.env("XDG_CONFIG_HOME", home.join(".config"));
    cmd.env("XDG_DATA_HOME", home.join(".local/share"));
    cmd.env("TERM", "xterm-256color");
    for k in [
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "LOOM_MODEL",
        "COLORTERM",
    ] {
        cmd.env_remove(k);
    }
    let mut child = pair.slave.spawn_command(cmd).unwrap();
    drop(pair.slave);
    // A terminal that shows what it is sent and answers nothing (no keys either).
    let mut reader = pair.master.try_clone_reader().unwrap();
    let shown = Arc::new(Mutex::new(Vec::new()));
    let sink = shown.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            sink.lock().unwrap().extend_from_slice(&buf[..n]);
        }
    });
    let sessions = home.join(".local/share/loom/sessions");
    let start = Instant::now();
    let drawn = |shown: &Mutex<Vec<u8>>| {
        String::from_utf8_lossy(&shown.lock().unwrap()).contains("Ask Loom")
    };
    loop {
        let started = std::fs::read_dir(&sessions).is_ok_and(|mut d| d.next().is_some());
        if started && drawn(&shown) {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "after 20 s without a key: first frame drawn {}, session started {started}",
            drawn(&shown)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let _ = child.kill();
    let _ = child.wait();
}
