//! Running a child process the way an agent must: isolated in its own PID namespace (see
//! [`loom_sandbox::isolate`]) and process group, stdin closed, an allowlisted
//! environment, output captured within bounds, and every process it started ended when
//! the call ends — by timeout, cancellation, or simply because the command finished.
//!
//! Kill sequence (timeout, cancellation): SIGKILL to PID 1 of the command's namespace,
//! whereupon the kernel kills every other process in it; the proxy outside exits only
//! once the last one is gone, and the call returns only after that exit was observed, so
//! nothing of the command line runs after the call reported it killed. No SIGTERM first:
//! the shell, as PID 1, ignores it, and went on with the rest of its command line as soon
//! as the child that did die let it. Without namespaces: SIGKILL to the whole process
//! group at once, then a sweep of whatever escaped it ([`loom_sandbox::reaper`]). Output captured
//! before a kill is kept: a timed-out call returns right after its limit with what the
//! command printed so far.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio_util::sync::CancellationToken;

use crate::base::text::HeadTail;
use loom_sandbox::SandboxSpec;

/// Bytes captured per stream (head and tail halves kept beyond this).
pub const CAPTURE_BYTES: usize = 256 * 1024;
/// How long to wait for pipes to close after the main process exited.
const LINGER: Duration = Duration::from_millis(300);
/// How long to wait for the output pipes once everything was killed, before returning
/// with what was captured.
const DRAIN_AFTER_KILL: Duration = Duration::from_millis(300);

/// What to run.
#[derive(Debug, Clone)]
pub struct CommandSpec {
    /// The program (normally `sh`).
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Working directory.
    pub cwd: PathBuf,
    /// The complete environment of the child.
    pub env: Vec<(String, String)>,
    /// Wall-clock limit.
    pub timeout: Duration,
    /// OS-level confinement applied in the child before exec.
    pub sandbox: SandboxSpec,
    /// Bytes written to the child's stdin, which is then closed (`None`: stdin is
    /// closed from the start). A hook reads its event here.
    pub stdin: Option<Vec<u8>>,
}

impl CommandSpec {
    /// `sh -c COMMAND` in `cwd`.
    pub fn shell(
        command: &str,
        cwd: PathBuf,
        env: Vec<(String, String)>,
        timeout: Duration,
    ) -> CommandSpec {
        CommandSpec {
            program: "sh".into(),
            args: vec!["-c".into(), command.into()],
            cwd,
            env,
            timeout,
            sandbox: SandboxSpec::off(),
            stdin: None,
        }
    }
}

/// How a run ended and what it printed.
#[derive(Debug)]
pub struct CommandOutcome {
    /// Exit code, when the process exited normally.
    pub exit_code: Option<i32>,
    /// The signal that ended it, if any.
    pub signal: Option<i32>,
    /// Captured stdout.
    pub stdout: HeadTail,
    /// Captured stderr.
    pub stderr: HeadTail,
    /// Killed because the timeout passed.
    pub timed_out: bool,
    /// Killed because the caller cancelled.
    pub cancelled: bool,
    /// Processes the command left running (in the background, or holding its output open)
    /// were stopped when it ended.
    pub stopped_background: bool,
    /// Wall-clock duration.
    pub duration: Duration,
}

/// Kills the process group if the run is abandoned (the future dropped) before it ended.
struct GroupGuard {
    pgid: Option<Pid>,
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if let Some(pgid) = self.pgid.take() {
            let _ = killpg(pgid, Signal::SIGKILL);
            loom_sandbox::reaper::release(pgid.as_raw() as u32);
        }
    }
}

/// End every process of a run at once: PID 1 of its namespace when it has one (see
/// [`loom_sandbox::isolate`]), else its whole process group. `leader` is the child Loom
/// started: the namespace's proxy, or the command itself.
fn kill_everything(leader: Pid) {
    match loom_sandbox::reaper::namespace_init(leader.as_raw()) {
        Some(init) => {
            let _ = kill(Pid::from_raw(init), Signal::SIGKILL);
        }
        None => {
            let _ = killpg(leader, Signal::SIGKILL);
        }
    }
}

/// Read a pipe into a shared sink, so what was captured survives if the reader is
/// abandoned (a process outside Loom's reach holding the pipe open).
async fn drain<R: AsyncRead + Unpin>(mut reader: R, sink: Arc<Mutex<HeadTail>>) {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        match reader.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if let Ok(mut s) = sink.lock() {
                    s.push(&buf[..n]);
                }
            }
        }
    }
}

/// Write `bytes` to the child's stdin in the background and close it (a child that exits
/// without reading it all is fine: the write error is ignored).
fn feed_stdin(pipe: Option<tokio::process::ChildStdin>, bytes: Option<Vec<u8>>) {
    if let (Some(mut pipe), Some(bytes)) = (pipe, bytes) {
        tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            let _ = pipe.write_all(&bytes).await;
            let _ = pipe.shutdown().await;
        });
    }
}

fn take(sink: &Arc<Mutex<HeadTail>>) -> HeadTail {
    sink.lock()
        .map(|mut s| std::mem::replace(&mut *s, HeadTail::new(CAPTURE_BYTES)))
        .unwrap_or_else(|_| HeadTail::new(CAPTURE_BYTES))
}

/// Run `spec` to completion, timeout or cancellation.
pub async fn run(
    spec: &CommandSpec,
    cancel: &CancellationToken,
) -> std::io::Result<CommandOutcome> {
    let started = Instant::now();
    let mut cmd = command(spec);
    spec.sandbox.install(&mut cmd)?;
    let before = loom_sandbox::reaper::children();
    // Without namespaces, kept while it runs, so the sweep after a call running at the
    // same time (parallel sub-agents) leaves this one alone; isolated calls are recognised
    // by their namespace instead, and spawn without waiting for each other.
    let mut child = if loom_sandbox::protection_available() {
        cmd.spawn()?
    } else {
        loom_sandbox::reaper::spawn_kept(&mut cmd)?
    };
    let pgid = child.id().map(|id| Pid::from_raw(id as i32));
    // Isolated: nothing it started can escape its namespace, so there is nothing to sweep.
    let isolated = pgid.is_some_and(|p| loom_sandbox::reaper::is_namespace_proxy(p.as_raw()));
    let mut guard = GroupGuard { pgid };
    let out_sink = Arc::new(Mutex::new(HeadTail::new(CAPTURE_BYTES)));
    let err_sink = Arc::new(Mutex::new(HeadTail::new(CAPTURE_BYTES)));
    feed_stdin(child.stdin.take(), spec.stdin.clone());
    let mut out_task = drain_task(child.stdout.take(), out_sink.clone());
    let mut err_task = drain_task(child.stderr.take(), err_sink.clone());

    let (status, end) = wait(&mut child, pgid, spec.timeout, cancel).await?;
    // Reaped: its pid may be reused from now on.
    if let Some(pgid) = pgid {
        loom_sandbox::reaper::release(pgid.as_raw() as u32);
    }

    let mut stopped_background = false;
    let both = async { ((&mut out_task).await, (&mut err_task).await) };
    if tokio::time::timeout(LINGER, both).await.is_err() {
        stopped_background = true;
        if let Some(pgid) = pgid {
            let _ = killpg(pgid, Signal::SIGKILL);
        }
        if !isolated {
            let before = before.clone();
            let _ = tokio::task::spawn_blocking(move || loom_sandbox::reaper::sweep(None, &before))
                .await;
        }
        let both = async { ((&mut out_task).await, (&mut err_task).await) };
        if tokio::time::timeout(DRAIN_AFTER_KILL, both).await.is_err() {
            out_task.abort();
            err_task.abort();
        }
    }
    if !isolated {
        let swept = tokio::task::spawn_blocking(move || loom_sandbox::reaper::sweep(None, &before))
            .await
            .unwrap_or(0);
        stopped_background |= swept > 0;
    }
    guard.pgid = None;
    use std::os::unix::process::ExitStatusExt;
    Ok(CommandOutcome {
        exit_code: status.code(),
        signal: status.signal(),
        stdout: take(&out_sink),
        stderr: take(&err_sink),
        timed_out: end == End::TimedOut,
        cancelled: end == End::Cancelled,
        stopped_background,
        duration: started.elapsed(),
    })
}

/// The command `spec` describes, before its sandbox: an allowlisted environment, stdin
/// only when there is input, output piped, a process group of its own.
fn command(spec: &CommandSpec) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(&spec.program);
    cmd.args(&spec.args)
        .current_dir(&spec.cwd)
        .env_clear()
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(if spec.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    cmd
}

/// Read one output pipe of the child (when it has one) into `sink`, in the background.
fn drain_task<R: AsyncRead + Unpin + Send + 'static>(
    pipe: Option<R>,
    sink: Arc<Mutex<HeadTail>>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        if let Some(s) = pipe {
            drain(s, sink).await;
        }
    })
}

/// How the wait for the child ended.
#[derive(PartialEq, Eq)]
enum End {
    Exited,
    TimedOut,
    Cancelled,
}

/// Wait for the child to exit, at most `timeout` and until `cancel`; stopped early, every
/// process it started is killed first (see the module's kill sequence).
async fn wait(
    child: &mut tokio::process::Child,
    pgid: Option<Pid>,
    timeout: Duration,
    cancel: &CancellationToken,
) -> std::io::Result<(std::process::ExitStatus, End)> {
    let end = tokio::select! {
        status = child.wait() => return Ok((status?, End::Exited)),
        _ = tokio::time::sleep(timeout) => End::TimedOut,
        _ = cancel.cancelled() => End::Cancelled,
    };
    if let Some(pgid) = pgid {
        kill_everything(pgid);
    }
    // The proxy exits only after every process of its namespace is gone.
    let status = child.wait().await?;
    // Without namespaces: whatever of the group is still there.
    if let Some(pgid) = pgid {
        let _ = killpg(pgid, Signal::SIGKILL);
    }
    Ok((status, end))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn spec(cmd: &str, timeout: Duration) -> CommandSpec {
        let env = vec![(
            "PATH".to_string(),
            std::env::var("PATH").unwrap_or_default(),
        )];
        CommandSpec::shell(cmd, std::env::temp_dir(), env, timeout)
    }

    #[tokio::test]
    async fn stdin_bytes_reach_the_child_and_are_closed() {
        let mut s = spec("cat; echo end", Duration::from_secs(10));
        s.stdin = Some(b"{\"hook_event_name\":\"Stop\"}\n".to_vec());
        let o = run(&s, &CancellationToken::new()).await.unwrap();
        assert_eq!(o.stdout.text(), "{\"hook_event_name\":\"Stop\"}\nend\n");
        let o = run(
            &spec("cat; echo end", Duration::from_secs(10)),
            &CancellationToken::new(),
        )
        .await
        .unwrap();
        assert_eq!(o.stdout.text(), "end\n", "no stdin: closed at once");
    }

    #[tokio::test]
    async fn captures_both_streams_and_exit_code() {
        let o = run(
            &spec("echo out; echo err >&2; exit 3", Duration::from_secs(10)),
            &CancellationToken::new(),
        )
        .await
        .unwrap();
        assert_eq!(o.exit_code, Some(3));
        assert_eq!(o.stdout.text(), "out\n");
        assert_eq!(o.stderr.text(), "err\n");
        assert!(!o.timed_out && !o.cancelled);
    }

    #[tokio::test]
    async fn stdin_is_closed() {
        let o = run(
            &spec("cat; echo done", Duration::from_secs(10)),
            &CancellationToken::new(),
        )
        .await
        .unwrap();
        assert_eq!(o.stdout.text(), "done\n");
    }

    #[tokio::test]
    async fn cancellation_kills_the_group() {
        let token = CancellationToken::new();
        let t2 = token.clone();
        let marker = format!("30.{}2", std::process::id());
        let running = marker.clone();
        // Cancel once the command runs (or after 10 s, should it never show).
        tokio::spawn(async move {
            let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
            while !alive_with(&running) && tokio::time::Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            t2.cancel();
        });
        let o = run(
            &spec(&format!("sleep {marker}"), Duration::from_secs(60)),
            &token,
        )
        .await
        .unwrap();
        assert!(o.cancelled);
        assert!(o.duration < Duration::from_secs(10));
    }

    #[tokio::test]
    async fn background_processes_end_with_the_call() {
        let o = run(
            &spec("(sleep 30; echo late) & echo now", Duration::from_secs(20)),
            &CancellationToken::new(),
        )
        .await
        .unwrap();
        assert_eq!(o.exit_code, Some(0));
        assert_eq!(o.stdout.text(), "now\n");
        assert!(o.duration < Duration::from_secs(5), "{:?}", o.duration);
    }

    /// Whether a process whose command line contains `marker` is alive (zombies count as
    /// gone). Scans every process, since a process in another PID namespace has another
    /// pid there.
    pub(crate) fn alive_with(marker: &str) -> bool {
        std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
            .any(|e| {
                let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
                let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
                String::from_utf8_lossy(&cmdline).contains(marker) && !stat.contains(") Z")
            })
    }

    /// Regression (issue 10): `setsid` escaped the process-group kill; with a 2 s timeout
    /// the call returned after 12 s without its output and the sleeper lived on.
    #[tokio::test]
    async fn a_setsid_sleeper_dies_with_a_timed_out_call_and_output_is_kept() {
        let marker = format!("25.{}1", std::process::id());
        let cmd = format!("echo started; setsid sh -c 'exec sleep {marker}' & sleep 30");
        let o = run(
            &spec(&cmd, Duration::from_secs(2)),
            &CancellationToken::new(),
        )
        .await
        .unwrap();
        assert!(o.timed_out);
        assert!(o.duration < Duration::from_secs(4), "{:?}", o.duration);
        assert_eq!(
            o.stdout.text(),
            "started\n",
            "output before the kill is kept"
        );
        let mut gone = false;
        for _ in 0..30 {
            if !alive_with(&marker) {
                gone = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        assert!(gone, "the setsid sleeper survived the call");
    }
}
