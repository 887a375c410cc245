//! Containment that holds when the classifier is wrong (issue 10): no process outlives its
//! call (not with `setsid`, not past `kill -9` of Loom), a command cannot read Loom's
//! environment, git cannot be turned against the person, and Loom's own git never runs
//! what a command planted. Each drives the real binary or real processes.

use std::path::Path;
use std::time::{Duration, Instant};

use loom::policy::sandbox::{self, Availability};
use serde_json::{Value, json};

use crate::exec::{exec, loom_command};
use crate::support::{self, ScriptedServer};

/// `loom tool run bash` with `args` in `dir`, Loom's environment holding a secret.
async fn tool_run(dir: &Path, args: Value, extra: &[&str]) -> (Value, Duration) {
    let home = dir.join(".home");
    std::fs::create_dir_all(&home).unwrap();
    let started = Instant::now();
    let out = loom_command(&home)
        .env("OPENAI_API_KEY", "sk-loom-secret-4242")
        .env("LOOM_TEST_SECRET_TOKEN", "tok-secret-4242")
        .args(["tool", "run", "bash", "--args"])
        .arg(args.to_string())
        .args(extra)
        .arg("-C")
        .arg(dir)
        .output()
        .await
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    (v, started.elapsed())
}

/// Whether a process with `marker` in its command line is alive (any PID namespace).
fn alive_with(marker: &str) -> bool {
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

fn gone_soon(marker: &str) -> bool {
    for _ in 0..40 {
        if !alive_with(marker) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

#[tokio::test(flavor = "multi_thread")]
async fn a_child_reading_the_parent_environment_sees_no_secret() {
    let dir = tempfile::tempdir().unwrap();
    let command = "cat /proc/$PPID/environ; cat /proc/1/environ; \
                   for f in /proc/[0-9]*/environ; do cat \"$f\"; done; echo; echo done";
    for sandbox in [
        &["--sandbox", "workspace-write"][..],
        &["--sandbox", "off"][..],
    ] {
        let (v, _) = tool_run(dir.path(), json!({ "command": command }), sandbox).await;
        let text = v.to_string();
        assert!(
            text.contains("done"),
            "{sandbox:?}: the command ran: {text}"
        );
        assert!(
            !text.contains("4242"),
            "{sandbox:?}: a secret of Loom's environment leaked: {text}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_setsid_sleeper_is_gone_and_a_timeout_keeps_partial_output() {
    let dir = tempfile::tempdir().unwrap();
    let marker = format!("25.{}3", std::process::id());
    let command = format!("echo partial; setsid sleep {marker} & sleep 30");
    let (v, took) = tool_run(
        dir.path(),
        json!({ "command": command, "timeout_secs": 2 }),
        &[],
    )
    .await;
    assert!(took < Duration::from_secs(3), "returned after {took:?}");
    assert_eq!(v["data"]["timed_out"], true, "{v}");
    assert_eq!(v["data"]["stdout"], "partial\n", "{v}");
    assert!(gone_soon(&marker), "the setsid sleeper outlived its call");

    let marker = format!("26.{}4", std::process::id());
    let command = format!("setsid sleep {marker} & echo left");
    let (v, _) = tool_run(dir.path(), json!({ "command": command }), &[]).await;
    assert_eq!(v["data"]["exit_code"], 0, "{v}");
    assert!(
        gone_soon(&marker),
        "a background process outlived a finished call"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn nothing_survives_kill_9_of_loom() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join(".home");
    std::fs::create_dir_all(&home).unwrap();
    let marker = format!("27.{}5", std::process::id());
    let mut loom = loom_command(&home)
        .args(["tool", "run", "bash", "--args"])
        .arg(json!({ "command": format!("setsid sleep {marker} & sleep {marker}") }).to_string())
        .arg("-C")
        .arg(dir.path())
        .spawn()
        .unwrap();
    let mut started = false;
    for _ in 0..50 {
        if alive_with(&marker) {
            started = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(started, "the command started");
    let pid = nix::unistd::Pid::from_raw(loom.id().unwrap() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL).unwrap();
    let _ = loom.wait().await;
    assert!(gone_soon(&marker), "the command's processes outlived Loom");
}

fn landlock() -> bool {
    match sandbox::availability() {
        Availability::Available { .. } if sandbox::protection_available() => true,
        other => {
            eprintln!("skipped: needs Landlock and namespaces here ({other:?})");
            false
        }
    }
}

fn git(dir: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs")
}

#[tokio::test(flavor = "multi_thread")]
async fn git_config_and_hooks_are_read_only_in_the_sandbox_but_commits_work() {
    if !landlock() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    assert!(git(dir.path(), &["init", "-q"]).status.success());
    std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
    std::fs::write(dir.path().join(".gitignore"), ".home/\n").unwrap();
    let config_before = std::fs::read_to_string(dir.path().join(".git/config")).unwrap();
    for (what, command) in [
        ("git config", "git config core.hooksPath .githooks"),
        ("git config", "git config core.fsmonitor 'touch pwned'"),
        ("a hook", "echo 'touch pwned' > .git/hooks/pre-commit"),
        (
            "the config file",
            "echo '[core] fsmonitor = x' >> .git/config",
        ),
        (
            "info/attributes",
            "echo '* filter=x' > .git/info/attributes",
        ),
        ("renaming .git", "mv .git .git-old"),
        (
            "replacing the config",
            "cp .git/config /tmp/c && mv /tmp/c .git/config",
        ),
    ] {
        let (v, _) = tool_run(dir.path(), json!({ "command": command }), &[]).await;
        assert_eq!(v["success"], false, "{what}: `{command}` succeeded: {v}");
    }
    assert_eq!(
        std::fs::read_to_string(dir.path().join(".git/config")).unwrap(),
        config_before
    );
    assert!(!dir.path().join(".git/hooks/pre-commit").exists());
    let (v, _) = tool_run(
        dir.path(),
        json!({"command": "git add a.txt && git -c user.name=t -c user.email=t@t commit -qm first && git log --oneline"}),
        &[],
    )
    .await;
    assert_eq!(
        v["success"], true,
        "git add and commit work in the sandbox: {v}"
    );
    assert!(v["data"]["stdout"].as_str().unwrap().contains("first"));
}

/// Regression (issue 10): with auto-commit, a `core.fsmonitor` planted in `.git/config`
/// made Loom's own unsandboxed `git status` run it with the full environment.
#[tokio::test(flavor = "multi_thread")]
async fn loom_auto_commit_never_runs_a_planted_fsmonitor_or_hook() {
    let dir = tempfile::tempdir().unwrap();
    if !git(dir.path(), &["init", "-q"]).status.success() {
        eprintln!("skipped: git is not available");
        return;
    }
    git(dir.path(), &["config", "user.name", "t"]);
    git(dir.path(), &["config", "user.email", "t@t"]);
    std::fs::write(dir.path().join(".gitignore"), ".home/\n").unwrap();
    let marker = dir.path().join("ran-fsmonitor");
    let hook_marker = dir.path().join("ran-hook");
    std::fs::create_dir_all(dir.path().join("planted")).unwrap();
    std::fs::write(
        dir.path().join("planted/pre-commit"),
        format!("#!/bin/sh\ntouch {}\n", hook_marker.display()),
    )
    .unwrap();
    std::process::Command::new("chmod")
        .args(["+x", "planted/pre-commit"])
        .current_dir(dir.path())
        .status()
        .unwrap();
    git(
        dir.path(),
        &[
            "config",
            "core.fsmonitor",
            &format!("touch {}; echo", marker.display()),
        ],
    );
    git(dir.path(), &["config", "core.hooksPath", "planted"]);
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[(
            "w",
            "write_file",
            r#"{"path": "new.txt", "content": "hello\n"}"#,
        )]),
        support::text_reply("written"),
    ])
    .await;
    let home = dir.path().join(".home");
    std::fs::create_dir_all(&home).unwrap();
    let out = loom_command(&home)
        .args(["exec", "--json", "--approval", "full-auto", "--auto-commit"])
        .args(["--model", "scripted-model", "--base-url"])
        .arg(server.base_url())
        .arg("-C")
        .arg(dir.path())
        .arg("write it")
        .output()
        .await
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log = git(
        dir.path(),
        &["-c", "core.fsmonitor=false", "log", "--oneline"],
    );
    assert!(
        String::from_utf8_lossy(&log.stdout).contains("chore(loom): add new.txt"),
        "auto-commit still commits: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(!marker.exists(), "Loom's git ran the planted fsmonitor");
    assert!(!hook_marker.exists(), "Loom's git ran the planted hook");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_approved_command_runs_isolated_even_with_the_sandbox_off() {
    let dir = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[(
            "b",
            "bash",
            r#"{"command": "echo $$; ls /proc | grep -c '^[0-9]'"}"#,
        )]),
        support::text_reply("done"),
    ])
    .await;
    let run = exec(dir.path(), &server, "full-auto", "count processes").await;
    let result = &run.of_type("tool_result")[0];
    let stdout = result["data"]["stdout"].as_str().unwrap_or("");
    if !sandbox::protection_available() {
        eprintln!("skipped: namespaces are not allowed here");
        return;
    }
    let mut lines = stdout.lines();
    assert_eq!(
        lines.next(),
        Some("1"),
        "the command is PID 1 of its namespace: {result}"
    );
    let count: u32 = lines.next().unwrap_or("0").trim().parse().unwrap_or(0);
    assert!(
        count < 10,
        "only the command's own processes are visible: {result}"
    );
}
