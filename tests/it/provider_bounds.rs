//! Bounded provider input (issues 10 and 23): an endless stream, an endless line, a
//! response with 200 tool calls and a server that never answers each end with a clear error
//! naming the limit, in bounded time and memory; the silent case is retried like a cut
//! stream; the model probes and a reader that stops reading cost bounded memory.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use loom::llm::{ChatRequest, LlmClient, Message, ProviderSettings, StreamEvent};
use tokio_util::sync::CancellationToken;

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

/// How a measured run prints.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Output {
    /// `loom exec --json`: events on stdout.
    Json,
    /// `loom exec`: the answer on stdout, errors on stderr (what a person reads).
    Plain,
}

/// Forks and runs the program in argv[2:], waits for it, and writes its peak memory
/// (`ru_maxrss`, KiB, from `wait4`) to the file argv[1]; exits with its exit code. A child
/// started straight from the test process would inherit that process's high-water mark
/// (vfork and exec keep it in the kernel's account), and other tests in the process make it
/// large (an in-process agent loads a tokeniser's tables, ~100 MB); forked from a small
/// Python, `loom` starts from Python's few megabytes.
const MEASURE: &str = "import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
open(sys.argv[1], 'w').write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
";

/// One `loom exec` run and its peak memory (KiB), as the kernel accounted it for exactly
/// that process (`wait4`, through [`MEASURE`]), killed if it does not end within a minute.
/// Returns the exit code, what it said about the error (stdout events or stderr) and the
/// peak.
// `wait4` reaps the child, which std cannot see: its own `wait` would find nothing.
#[allow(clippy::zombie_processes)]
async fn run_measured(dir: &Path, server: &ScriptedServer, output: Output) -> (i32, String, i64) {
    let home = dir.join(".home");
    let out_path = dir.join(".home/stdout");
    let err_path = dir.join(".home/stderr");
    let peak_path = dir.join(".home/peak");
    let mut cmd = std::process::Command::new("python3");
    cmd.arg("-c")
        .arg(MEASURE)
        .arg(&peak_path)
        .arg(env!("CARGO_BIN_EXE_loom"))
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("LOOM_MODEL")
        .arg("exec");
    if output == Output::Json {
        cmd.arg("--json");
    }
    let child = cmd
        .args(["--model", "scripted-model", "--base-url"])
        .arg(server.base_url())
        .arg("-C")
        .arg(dir)
        .arg("go")
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let pid = child.id() as nix::libc::pid_t;
    let waited = tokio::task::spawn_blocking(move || {
        let mut status = 0;
        // SAFETY: rusage is plain data, all zeroes is a valid value.
        let mut usage: nix::libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `pid` is our own child, not yet reaped (std never waits for it: `child`
        // is only dropped); both pointers are valid for the call.
        let rc = unsafe { nix::libc::wait4(pid, &raw mut status, 0, &raw mut usage) };
        assert_eq!(rc, pid, "{}", std::io::Error::last_os_error());
        if nix::libc::WIFEXITED(status) {
            nix::libc::WEXITSTATUS(status)
        } else {
            -1
        }
    });
    let code = match tokio::time::timeout(Duration::from_secs(60), waited).await {
        Ok(r) => r.unwrap(),
        Err(_) => {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
            panic!("loom did not end within a minute");
        }
    };
    drop(child);
    let peak: i64 = std::fs::read_to_string(&peak_path)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let said = match output {
        Output::Json => std::fs::read_to_string(&out_path).unwrap(),
        Output::Plain => std::fs::read_to_string(&err_path).unwrap(),
    };
    (code, said, peak)
}

/// The most memory a run that reads an endless stream may take (issue 23's target).
const PEAK_LIMIT_KIB: i64 = 64 * 1024;

/// Regression (issues 10 and 23): an endless stream took 7.9 GiB in 75 s, and then still
/// 0.9–2.9 GB when its deltas were long unbroken words. With the default limits (4 MiB of
/// text) it ends at the limit, and Loom's peak memory stays under 64 MiB whether the
/// deltas are long unbroken words, ordinary prose or a single endless line (which the event
/// parser would buffer whole), in `loom exec` as a person runs it and with `--json`.
#[tokio::test(flavor = "multi_thread")]
async fn endless_streams_end_within_bounded_memory_at_the_default_limits() {
    let prose = "The quick brown fox jumps over the lazy dog, twice. ";
    for (reply, what, output) in [
        (
            Reply::EndlessDeltas("x".repeat(8000)),
            "8,000-character words",
            Output::Plain,
        ),
        (
            Reply::EndlessDeltas("x".repeat(8000)),
            "8,000-character words (json)",
            Output::Json,
        ),
        (
            Reply::EndlessDeltas(prose.into()),
            "ordinary deltas",
            Output::Plain,
        ),
        (Reply::Endless, "1,024-character words (json)", Output::Json),
        (Reply::EndlessLine, "endless line", Output::Plain),
    ] {
        let dir = workspace("");
        let server = ScriptedServer::start(vec![reply]).await;
        let (code, said, peak_kib) = run_measured(dir.path(), &server, output).await;
        eprintln!("{what}: peak {} MiB", peak_kib / 1024);
        assert_eq!(code, 1, "{what}: {said}");
        assert!(said.contains("max_response_bytes"), "{what}: {said}");
        assert_eq!(server.requests().len(), 1, "{what}: not retried");
        assert!(
            peak_kib < PEAK_LIMIT_KIB,
            "{what}: peak memory {peak_kib} KiB for a 4 MiB limit"
        );
    }
}

/// Regression (issue 23): the probes that learn the model's context window (`/v1/models`,
/// llama.cpp's `/props`, Ollama's `/api/show`) read whole bodies within a 3 s timeout; a
/// local server answering them without end put a gigabyte into memory before the first
/// request. Each is now read up to a cap, and the turn goes on.
#[tokio::test(flavor = "multi_thread")]
async fn endless_answers_to_the_model_probes_cost_bounded_memory() {
    let dir = workspace("");
    let server = ScriptedServer::start(vec![support::text_reply("fine")]).await;
    server.stream_info_endlessly();
    let (code, said, peak_kib) = run_measured(dir.path(), &server, Output::Json).await;
    eprintln!("endless probes: peak {} MiB", peak_kib / 1024);
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("fine"), "{said}");
    assert!(
        peak_kib < PEAK_LIMIT_KIB,
        "peak memory {peak_kib} KiB while probing"
    );
}

/// Regression (issue 23): the response is read only as fast as Loom takes its events. The
/// stream was parsed by a task of its own into an unbounded queue, so a reader that paused
/// (a busy machine) let the queue take the whole body's cap (65 MiB at the defaults, about
/// a kilobyte of memory per small event once parsed). Here the reader stops at the first
/// piece of text; what the server gets rid of meanwhile is what sockets buffer.
#[tokio::test(flavor = "multi_thread", worker_threads = 3)]
async fn a_response_is_not_read_ahead_of_its_reader() {
    let taken = Arc::new(AtomicU64::new(0));
    let server =
        ScriptedServer::start(vec![Reply::EndlessCounted("x".repeat(8000), taken.clone())]).await;
    let client =
        LlmClient::new(ProviderSettings::new(&server.base_url(), "scripted-model")).unwrap();
    let (release, paused) = std::sync::mpsc::channel::<()>();
    let cancel = CancellationToken::new();
    let reader = tokio::spawn({
        let cancel = cancel.clone();
        async move {
            let mut first = true;
            // The reader's thread stops here, as a busy reader would.
            let mut sink = move |_: StreamEvent| {
                if std::mem::take(&mut first) {
                    let _ = paused.recv();
                }
            };
            let messages = [Message::User {
                content: "go".into(),
                images: Vec::new(),
            }];
            let request = ChatRequest {
                messages: &messages,
                tools: &[],
            };
            client.stream(request, &cancel, &mut sink).await.is_ok()
        }
    });
    // Wait until the server's bytes stop being taken (half a second without progress), or
    // far more than sockets hold was taken.
    let (mut last, mut still_since) = (0, Instant::now());
    while still_since.elapsed() < Duration::from_millis(500) && last < 64 << 20 {
        tokio::time::sleep(Duration::from_millis(20)).await;
        let now = taken.load(Ordering::SeqCst);
        if now != last {
            (last, still_since) = (now, Instant::now());
        }
    }
    let _ = release.send(());
    cancel.cancel();
    let _ = reader.await;
    eprintln!("taken while the reader paused: {} KiB", last / 1024);
    assert!(
        last < 24 << 20,
        "{last} bytes were read ahead of a reader that stopped"
    );
}
