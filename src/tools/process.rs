//! Running a child process the way an agent must: in its own process group, stdin closed,
//! an allowlisted environment, output captured within bounds, and the whole group killed on
//! timeout or cancellation so no grandchild outlives the call.
//!
//! Kill sequence: SIGTERM to the group, a short grace period, then SIGKILL to the group.
//! When the shell exits but a background child still holds its stdout open, the group is
//! stopped after a brief wait, and the outcome says so.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio_util::sync::CancellationToken;

use super::output::HeadTail;
use crate::policy::sandbox::SandboxSpec;

/// Bytes captured per stream (head and tail halves kept beyond this).
pub const CAPTURE_BYTES: usize = 256 * 1024;
/// Time between SIGTERM and SIGKILL.
const KILL_GRACE: Duration = Duration::from_millis(1500);
/// How long to wait for pipes to close after the main process exited.
const LINGER: Duration = Duration::from_millis(300);

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
    /// Background processes that kept the output open were stopped after the shell exited.
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
        }
    }
}

async fn drain<R: AsyncRead + Unpin>(mut reader: R, mut sink: HeadTail) -> HeadTail {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        match reader.read(&mut buf).await {
            Ok(0) | Err(_) => return sink,
            Ok(n) => sink.push(&buf[..n]),
        }
    }
}

/// Run `spec` to completion, timeout or cancellation.
pub async fn run(
    spec: &CommandSpec,
    cancel: &CancellationToken,
) -> std::io::Result<CommandOutcome> {
    let started = Instant::now();
    let mut cmd = tokio::process::Command::new(&spec.program);
    cmd.args(&spec.args)
        .current_dir(&spec.cwd)
        .env_clear()
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    spec.sandbox.install(&mut cmd)?;
    let mut child = cmd.spawn()?;
    let pgid = child.id().map(|id| Pid::from_raw(id as i32));
    let mut guard = GroupGuard { pgid };
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let mut out_task = tokio::spawn(async move {
        match stdout {
            Some(s) => drain(s, HeadTail::new(CAPTURE_BYTES)).await,
            None => HeadTail::new(CAPTURE_BYTES),
        }
    });
    let mut err_task = tokio::spawn(async move {
        match stderr {
            Some(s) => drain(s, HeadTail::new(CAPTURE_BYTES)).await,
            None => HeadTail::new(CAPTURE_BYTES),
        }
    });

    let mut timed_out = false;
    let mut cancelled = false;
    let status = tokio::select! {
        status = child.wait() => Some(status?),
        _ = tokio::time::sleep(spec.timeout) => { timed_out = true; None }
        _ = cancel.cancelled() => { cancelled = true; None }
    };
    let status = match status {
        Some(s) => s,
        None => {
            if let Some(pgid) = pgid {
                let _ = killpg(pgid, Signal::SIGTERM);
            }
            let status = match tokio::time::timeout(KILL_GRACE, child.wait()).await {
                Ok(s) => s?,
                Err(_) => {
                    if let Some(pgid) = pgid {
                        let _ = killpg(pgid, Signal::SIGKILL);
                    }
                    child.wait().await?
                }
            };
            // Grandchildren may have ignored SIGTERM; the group must go.
            if let Some(pgid) = pgid {
                let _ = killpg(pgid, Signal::SIGKILL);
            }
            status
        }
    };

    let mut stopped_background = false;
    let both = async { ((&mut out_task).await, (&mut err_task).await) };
    let (out, err) = match tokio::time::timeout(LINGER, both).await {
        Ok(pair) => pair,
        Err(_) => {
            if let Some(pgid) = pgid {
                let _ = killpg(pgid, Signal::SIGKILL);
            }
            stopped_background = true;
            (out_task.await, err_task.await)
        }
    };
    guard.pgid = None;
    use std::os::unix::process::ExitStatusExt;
    Ok(CommandOutcome {
        exit_code: status.code(),
        signal: status.signal(),
        stdout: out.unwrap_or_else(|_| HeadTail::new(CAPTURE_BYTES)),
        stderr: err.unwrap_or_else(|_| HeadTail::new(CAPTURE_BYTES)),
        timed_out,
        cancelled,
        stopped_background,
        duration: started.elapsed(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(cmd: &str, timeout: Duration) -> CommandSpec {
        let env = vec![(
            "PATH".to_string(),
            std::env::var("PATH").unwrap_or_default(),
        )];
        CommandSpec::shell(cmd, std::env::temp_dir(), env, timeout)
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
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            t2.cancel();
        });
        let o = run(&spec("sleep 30", Duration::from_secs(60)), &token)
            .await
            .unwrap();
        assert!(o.cancelled);
        assert!(o.duration < Duration::from_secs(10));
    }

    #[tokio::test]
    async fn lingering_background_output_is_stopped() {
        let o = run(
            &spec("(sleep 30; echo late) & echo now", Duration::from_secs(20)),
            &CancellationToken::new(),
        )
        .await
        .unwrap();
        assert_eq!(o.exit_code, Some(0));
        assert!(o.stopped_background);
        assert_eq!(o.stdout.text(), "now\n");
    }
}
