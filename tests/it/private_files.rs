//! Loom's own files are private (issue 23): after a session that writes a file, runs a
//! command (snapshotted), stores a memory, and after `loom cron add` and `loom trust`, every
//! directory under the data directory is `0700` and no file there is open to the group or
//! others — with the usual umask and with a umask of 0.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::exec::loom_command;
use crate::support::{self, ScriptedServer};

/// `loom ARGS` in `dir` (HOME in `dir/.home`) with the given umask: exit code and stderr.
async fn loom_with_umask(dir: &Path, umask: u32, args: &[String]) -> (i32, String) {
    let mut cmd = loom_command(&dir.join(".home"));
    cmd.args(args).arg("-C").arg(dir);
    let mask = nix::sys::stat::Mode::from_bits_truncate(umask);
    // SAFETY: umask(2) is async-signal-safe and touches no memory of the parent.
    unsafe {
        cmd.pre_exec(move || {
            nix::sys::stat::umask(mask);
            Ok(())
        });
    }
    let out = cmd.output().await.unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every path under `root` that others could read or enter: directories not `0700`, files
/// with group or other bits.
fn open_to_others(root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(p) = stack.pop() {
        let meta = std::fs::symlink_metadata(&p).unwrap();
        let mode = meta.permissions().mode() & 0o777;
        if meta.is_dir() {
            if mode != 0o700 {
                found.push(format!("{:o} {}", mode, p.display()));
            }
            for e in std::fs::read_dir(&p).unwrap() {
                stack.push(e.unwrap().path());
            }
        } else if mode & 0o077 != 0 {
            found.push(format!("{:o} {}", mode, p.display()));
        }
    }
    found
}

async fn everything_loom_writes_is_private(umask: u32) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    std::fs::write(ws.join(".gitignore"), ".home/\n").unwrap();
    std::fs::create_dir_all(ws.join(".loom")).unwrap();
    std::fs::write(ws.join(".loom/config.toml"), "network = true\n").unwrap();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[
            (
                "w",
                "write_file",
                r#"{"path": "a.txt", "content": "private\n"}"#,
            ),
            ("b", "bash", r#"{"command": "echo changed > b.txt"}"#),
            (
                "m",
                "memory_store",
                r#"{"key": "build", "content": "cargo build"}"#,
            ),
        ]),
        support::text_reply("done"),
    ])
    .await;
    let exec: Vec<String> = [
        "exec",
        "--json",
        "--approval",
        "full-auto",
        "--model",
        "scripted-model",
        "--base-url",
        &server.base_url(),
        "go",
    ]
    .map(String::from)
    .to_vec();
    let (code, stderr) = loom_with_umask(ws, umask, &exec).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        std::fs::read_to_string(ws.join("b.txt")).unwrap(),
        "changed\n"
    );
    let cron = ["cron", "add", "@daily", "check the build"].map(String::from);
    let (code, stderr) = loom_with_umask(ws, umask, &cron).await;
    assert_eq!(code, 0, "{stderr}");
    let (code, stderr) = loom_with_umask(ws, umask, &["trust".to_string()]).await;
    assert_eq!(code, 0, "{stderr}");

    let data = ws.join(".home/.local/share/loom");
    for expected in [
        "sessions",
        "changes",
        "snapshots",
        "memory.sqlite",
        "trust.json",
        "cron",
    ] {
        assert!(data.join(expected).exists(), "{expected} was written");
    }
    let open = open_to_others(&data);
    assert!(
        open.is_empty(),
        "umask {umask:03o}: open to others:\n{}",
        open.join("\n")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn data_files_are_private_with_the_usual_umask() {
    everything_loom_writes_is_private(0o022).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn data_files_are_private_even_with_a_umask_of_zero() {
    everything_loom_writes_is_private(0).await;
}
