//! Bounded provider input (issue 10): an endless stream, an endless line, a response with
//! 200 tool calls and a server that never answers each end with a clear error naming the
//! limit, in bounded time and memory; the silent case is retried like a cut stream.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::exec::{Run, exec};
use crate::support::{self, Reply, ScriptedServer};

/// A workspace whose user config (in its own HOME) sets small bounds.
fn workspace(config: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join(".home/.config/loom");
    std::fs::create_dir_all(&conf).unwrap();
    std::fs::write(conf.join("config.toml"), config).unwrap();
    dir
}

async fn run(dir: &Path, replies: Vec<Reply>) -> (Run, ScriptedServer, Duration) {
    let server = ScriptedServer::start(replies).await;
    let started = Instant::now();
    let run = tokio::time::timeout(
        Duration::from_secs(60),
        exec(dir, &server, "full-auto", "go"),
    )
    .await
    .expect("loom ends on its own");
    (run, server, started.elapsed())
}

fn error(run: &Run) -> String {
    run.of_type("error")
        .iter()
        .map(|e| e["message"].as_str().unwrap_or("").to_string())
        .collect::<Vec<_>>()
        .join(" | ")
}

#[tokio::test(flavor = "multi_thread")]
async fn an_endless_stream_stops_at_the_size_limit() {
    let dir = workspace("max_response_bytes = 65536\nmax_retries = 2\n");
    let (run, server, took) = run(dir.path(), vec![Reply::Endless, Reply::Endless]).await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    let err = error(&run);
    assert!(err.contains("max_response_bytes"), "{err}");
    assert_eq!(server.requests().len(), 1, "a size limit is not retried");
    assert!(took < Duration::from_secs(20), "{took:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_endless_line_stops_at_the_raw_limit() {
    let dir = workspace("max_response_bytes = 8192\nmax_retries = 2\n");
    let (run, server, _) = run(dir.path(), vec![Reply::EndlessLine, Reply::EndlessLine]).await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    let err = error(&run);
    assert!(err.contains("max_response_bytes"), "{err}");
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn two_hundred_tool_calls_are_refused_and_none_runs() {
    let dir = workspace("max_tool_calls_per_response = 64\n");
    let args: Vec<(String, String, String)> = (0..200)
        .map(|i| {
            (
                format!("c{i}"),
                "write_file".to_string(),
                format!(r#"{{"path": "f{i}.txt", "content": "x"}}"#),
            )
        })
        .collect();
    let calls: Vec<(&str, &str, &str)> = args
        .iter()
        .map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str()))
        .collect();
    let (run, server, _) = run(dir.path(), vec![support::calls_openai(&calls)]).await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    let err = error(&run);
    assert!(err.contains("64 tool calls"), "{err}");
    assert!(err.contains("max_tool_calls_per_response"), "{err}");
    assert!(run.of_type("tool_result").is_empty());
    assert!(!dir.path().join("f0.txt").exists(), "none of them ran");
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_silent_server_times_out_and_is_retried() {
    let dir = workspace("stream_idle_timeout_secs = 1\nmax_retries = 3\n");
    let (run, server, took) = run(
        dir.path(),
        vec![Reply::Silent, Reply::Silent, Reply::Silent],
    )
    .await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    let err = error(&run);
    assert!(err.contains("stream_idle_timeout_secs"), "{err}");
    assert_eq!(
        server.requests().len(),
        3,
        "each attempt timed out and was retried"
    );
    assert_eq!(run.of_type("retry").len(), 2);
    assert!(took < Duration::from_secs(30), "{took:?}");
}

/// One `loom exec --json` run and its peak memory (KiB), as the kernel accounted it for
/// exactly that process (`wait4`), killed if it does not end within a minute.
// `wait4` reaps the child, which std cannot see: its own `wait` would find nothing.
#[allow(clippy::zombie_processes)]
async fn run_measured(dir: &Path, server: &ScriptedServer) -> (i32, String, i64) {
    use std::io::Read;
    let home = dir.join(".home");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_loom"))
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("LOOM_MODEL")
        .args(["exec", "--json", "--model", "scripted-model", "--base-url"])
        .arg(server.base_url())
        .arg("-C")
        .arg(dir)
        .arg("go")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id() as nix::libc::pid_t;
    let mut stdout = child.stdout.take().unwrap();
    let waited = tokio::task::spawn_blocking(move || {
        let mut out = String::new();
        stdout.read_to_string(&mut out).unwrap();
        let mut status = 0;
        // SAFETY: rusage is plain data, all zeroes is a valid value.
        let mut usage: nix::libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `pid` is our own child, not yet reaped (std never waits for it: `child`
        // is only dropped); both pointers are valid for the call.
        let rc = unsafe { nix::libc::wait4(pid, &mut status, 0, &mut usage) };
        assert_eq!(rc, pid, "{}", std::io::Error::last_os_error());
        let code = if nix::libc::WIFEXITED(status) {
            nix::libc::WEXITSTATUS(status)
        } else {
            -1
        };
        (code, out, usage.ru_maxrss)
    });
    match tokio::time::timeout(Duration::from_secs(60), waited).await {
        Ok(r) => r.unwrap(),
        Err(_) => {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
            panic!("loom did not end within a minute");
        }
    }
}

/// Regression (issue 10): an endless stream took 7.9 GiB in 75 s. With the default limits
/// (4 MiB of text) it ends at the limit, and Loom's peak memory stays a small multiple of
/// it, whether the stream is endless text or a single endless line (which the event parser
/// would buffer whole).
#[tokio::test(flavor = "multi_thread")]
async fn endless_streams_end_within_bounded_memory_at_the_default_limits() {
    for (reply, what) in [
        (Reply::Endless, "endless text"),
        (Reply::EndlessLine, "endless line"),
    ] {
        let dir = workspace("");
        let server = ScriptedServer::start(vec![reply]).await;
        let (code, stdout, peak_kib) = run_measured(dir.path(), &server).await;
        eprintln!("{what}: peak {} MiB", peak_kib / 1024);
        assert_eq!(code, 1, "{what}: {stdout}");
        assert!(stdout.contains("max_response_bytes"), "{what}: {stdout}");
        assert_eq!(server.requests().len(), 1, "{what}: not retried");
        assert!(
            peak_kib < 256 * 1024,
            "{what}: peak memory {peak_kib} KiB for a 4 MiB limit"
        );
    }
}
