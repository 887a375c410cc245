//! Containment that holds when the classifier is wrong (issues 10 and 23): no process
//! outlives its call (not with `setsid`, not past `kill -9` of Loom), nothing of a killed
//! command line runs after the call returned, no process of an MCP server outlives Loom, a
//! command cannot read Loom's environment, git cannot be turned against the person, and
//! Loom's own git never runs what a command planted. Each drives the real binary or real
//! processes.

use std::path::Path;
use std::time::{Duration, Instant};

use loom::tools::process::{self, CommandSpec};
use loom_sandbox::{self as sandbox, Availability, SandboxSpec};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

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
    live_processes(|cmdline| String::from_utf8_lossy(cmdline).contains(marker)) > 0
}

/// How many live processes are exactly `sleep SECONDS` (zombies are gone).
fn sleeping(seconds: &str) -> usize {
    live_processes(|cmdline| cmdline == format!("sleep\0{seconds}\0").as_bytes())
}

/// How many live processes (any PID namespace) have a command line `matches` accepts.
fn live_processes(matches: impl Fn(&[u8]) -> bool) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
        .filter(|e| {
            let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
            matches(&cmdline) && !stat.contains(") Z")
        })
        .count()
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

/// `sleep SECONDS; echo AFTER > FILE` with a timeout of 0.3 s, in `ws`, under the default
/// sandbox where it can be had.
fn killed_before_it_writes(ws: &Path, file: &str, seconds: &str) -> CommandSpec {
    let mut spec = CommandSpec::shell(
        &format!("sleep {seconds}; echo AFTER > {file}"),
        ws.to_path_buf(),
        vec![("PATH".into(), std::env::var("PATH").unwrap_or_default())],
        Duration::from_millis(300),
    );
    if matches!(sandbox::availability(), Availability::Available { .. }) {
        spec.sandbox = SandboxSpec::workspace_write(ws, &[], false);
    }
    spec
}

/// Regression (issue 23): a call killed by its timeout reported "killed" while its shell
/// went on with the rest of its command line. The kill began with SIGTERM to the process
/// group: the `sleep` died of it, but the shell, PID 1 of its namespace, ignores SIGTERM,
/// so it ran `echo AFTER > t.txt` before the proxy's death took it (2 of 8 runs one at a
/// time, 11 of 20 started together). 100 runs, 20 at a time: when a call returns, none of
/// its processes is left and its file does not exist, and no file appears afterwards.
#[tokio::test(flavor = "multi_thread")]
async fn nothing_of_a_killed_command_line_runs_after_the_call_returned() {
    let ws = tempfile::tempdir().unwrap();
    let ws_path = ws.path().canonicalize().unwrap();
    for batch in 0..5 {
        let mut runs = tokio::task::JoinSet::new();
        for i in 0..20 {
            let file = format!("after-{batch}-{i}.txt");
            // 30 s, as in the report, and unique, to find its processes: no run can reach
            // the `echo` on its own, however loaded the machine.
            let seconds = format!("30.{}{batch}{i:02}", std::process::id());
            let spec = killed_before_it_writes(&ws_path, &file, &seconds);
            let ws = ws_path.clone();
            runs.spawn(async move {
                let outcome = process::run(&spec, &CancellationToken::new())
                    .await
                    .unwrap();
                assert!(outcome.timed_out, "{outcome:?}");
                assert!(
                    !alive_with(&seconds),
                    "a process of {file}'s command outlived the call"
                );
                assert!(
                    !ws.join(&file).exists(),
                    "{file} written by the time the call returned"
                );
            });
        }
        while let Some(run) = runs.join_next().await {
            run.unwrap();
        }
    }
    // Every process was gone when its call returned, so no file can appear later; the race
    // this guards against wrote within milliseconds of the kill. One more look after a
    // pause settles it (waiting for what must not happen can only be bounded).
    tokio::time::sleep(Duration::from_millis(300)).await;
    let written: Vec<_> = std::fs::read_dir(&ws_path)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("after-"))
        .collect();
    assert!(
        written.is_empty(),
        "killed command lines went on: {written:?}"
    );
}

/// Regression (issue 23): SIGINT to `loom exec` while a sub-agent's command ran ended the
/// command the same racy way, and its command line went on after Loom had exited.
#[tokio::test(flavor = "multi_thread")]
async fn nothing_of_a_sub_agents_command_line_runs_after_loom_exec_was_interrupted() {
    let mut runs = tokio::task::JoinSet::new();
    // Several at once, as the race showed most when runs overlapped.
    for n in 0..6 {
        runs.spawn(interrupt_a_sub_agents_command(n));
    }
    while let Some(run) = runs.join_next().await {
        run.unwrap();
    }
}

async fn interrupt_a_sub_agents_command(n: u32) {
    use tokio::io::AsyncBufReadExt;
    let dir = tempfile::tempdir().unwrap();
    let sleep = format!("29.{}{n}", std::process::id());
    let command = format!("sleep {sleep}; echo AFTER > after.txt");
    // Three sub-agents, each given a write tool (so it runs with the parent's autonomy,
    // full-auto), each running the command; they are interrupted at the same moment.
    let delegate = r#"{"task": "Wait, then write.", "tools": ["bash", "write_file"]}"#;
    let bash = json!({ "command": command }).to_string();
    let mut replies = vec![support::calls_openai(&[
        ("d1", "delegate", delegate),
        ("d2", "delegate", delegate),
        ("d3", "delegate", delegate),
    ])];
    replies.extend((0..3).map(|_| support::calls_openai(&[("s", "bash", &bash)])));
    replies.extend((0..4).map(|_| support::text_reply("never reached")));
    let server = ScriptedServer::start(replies).await;
    let home = dir.path().join(".home");
    std::fs::create_dir_all(&home).unwrap();
    let mut loom = loom_command(&home)
        .args(["exec", "--json", "--approval", "full-auto", "--model", "m"])
        .arg("--base-url")
        .arg(server.base_url())
        .arg("-C")
        .arg(dir.path())
        .arg("wait")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(loom.stdout.take().unwrap()).lines();
    let saw_calls = tokio::time::timeout(Duration::from_secs(60), async {
        let mut calls = 0;
        while let Ok(Some(line)) = lines.next_line().await {
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["type"] == "tool_call" && v["name"] == "bash" {
                calls += 1;
                if calls == 3 {
                    return true;
                }
            }
        }
        false
    })
    .await
    .unwrap_or(false);
    assert!(saw_calls, "the sub-agents ran their commands");
    let started = Instant::now();
    while sleeping(&sleep) < 3 && started.elapsed() < Duration::from_secs(20) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(sleeping(&sleep), 3, "the sub-agents' commands run");
    let pid = nix::unistd::Pid::from_raw(loom.id().unwrap() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).unwrap();
    let status = tokio::time::timeout(Duration::from_secs(30), loom.wait())
        .await
        .expect("loom exits after the interrupt")
        .unwrap();
    assert_eq!(status.code(), Some(130));
    assert_eq!(sleeping(&sleep), 0, "the commands ended before Loom exited");
    // The race wrote within milliseconds of the kill, and the command's `sleep` is gone
    // (checked just above), so nothing could write later; a short look settles it.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !dir.path().join("after.txt").exists(),
        "the interrupted command line went on"
    );
}

/// Regression (found with issue 23): the sweep after a command took every child of Loom
/// started while it ran, so when two sub-agents ran commands at once, the one that ended
/// first killed the other's (its proxy was a new child of Loom). A command's PID namespace
/// now marks it as another call's, and it is spared.
#[tokio::test(flavor = "multi_thread")]
async fn parallel_sub_agents_do_not_kill_each_others_commands() {
    let dir = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[
            ("d1", "delegate", r#"{"task": "Wait briefly."}"#),
            ("d2", "delegate", r#"{"task": "Wait longer."}"#),
        ]),
        // The first sub-agent to ask gets the short command, the other the long one.
        support::calls_openai(&[("s", "bash", r#"{"command": "sleep 0.3"}"#)]),
        support::calls_openai(&[("l", "bash", r#"{"command": "sleep 2; echo survived"}"#)]),
        support::text_reply("waited"),
        support::text_reply("waited"),
        support::text_reply("Both waited."),
    ])
    .await;
    let run = exec(dir.path(), &server, "supervised", "wait twice").await;
    assert_eq!(run.code, 0, "{}\n{:#?}", run.stderr, run.events);
    let long = run
        .of_type("tool_result")
        .into_iter()
        .find(|r| r["id"] == "l")
        .cloned()
        .unwrap_or_else(|| panic!("no result of the long command: {:#?}", run.events));
    assert_eq!(long["success"], true, "{long}");
    assert_eq!(long["data"]["stdout"], "survived\n", "{long}");
}

/// Regression (issue 23): a `setsid` grandchild of an MCP server outlived Loom. The server
/// now runs in a PID namespace of its own: the grandchild ends when Loom exits and when
/// Loom is killed with `kill -9`.
#[tokio::test(flavor = "multi_thread")]
async fn a_setsid_grandchild_of_an_mcp_server_does_not_outlive_loom() {
    if !sandbox::protection_available() {
        eprintln!("skipped: namespaces are not allowed here");
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp/list_changed.py");
    for killed in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let marker = format!("31.{}{}", std::process::id(), u8::from(killed));
        let up = dir.path().join("grandchild-up");
        // The grandchild escapes twice (a subshell that exits, then `setsid`); the server
        // starts answering only once the grandchild has said it runs.
        let server = format!(
            "(setsid sh -c 'echo up > {up}; exec sleep {marker}' </dev/null >/dev/null 2>&1 &); \
             while [ ! -e {up} ]; do sleep 0.05; done; exec python3 {script}",
            up = up.display(),
            script = script.display(),
        );
        let home = dir.path().join(".home");
        std::fs::create_dir_all(home.join(".config/loom")).unwrap();
        std::fs::write(
            home.join(".config/loom/config.toml"),
            format!(
                "[mcp_servers.g]\ncommand = \"sh\"\nargs = [\"-c\", {}]\n",
                json!(server)
            ),
        )
        .unwrap();
        if killed {
            let mut loom = loom_command(&home)
                .args(["mcp", "call", "g", "hang", "-C"])
                .arg(dir.path())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap();
            let started = Instant::now();
            while !up.exists() && started.elapsed() < Duration::from_secs(20) {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            assert!(up.exists(), "the server started its grandchild");
            let pid = nix::unistd::Pid::from_raw(loom.id().unwrap() as i32);
            nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL).unwrap();
            let _ = loom.wait().await;
        } else {
            let out = loom_command(&home)
                .args(["mcp", "list", "-C"])
                .arg(dir.path())
                .output()
                .await
                .unwrap();
            assert!(
                out.status.success(),
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(up.exists(), "the server started its grandchild");
        }
        assert!(
            gone_soon(&marker),
            "the MCP server's setsid grandchild outlived Loom (killed: {killed})"
        );
    }
}
