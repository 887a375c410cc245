//! File tools that cannot be raced out of the workspace (issue 10), driving the real
//! binary: a directory swapped for a symlink while writes and reads run, undo after a
//! directory became a symlink, FIFOs, device nodes and a sparse 3 GiB file.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Value, json};

use crate::exec::{exec, loom_command};
use crate::support::{self, ScriptedServer};

/// `loom tool run NAME --args ARGS -C dir`, bounded in time (a hang fails the test).
async fn tool(dir: &Path, name: &str, args: Value) -> Value {
    tool_with(dir, name, args, None).await
}

async fn tool_with(dir: &Path, name: &str, args: Value, vm_kib: Option<u64>) -> Value {
    let home = dir.join(".home");
    std::fs::create_dir_all(&home).unwrap();
    let mut cmd = loom_command(&home);
    if let Some(limit) = vm_kib {
        // The same isolated environment, with the address space capped by the shell:
        // reading the whole file would fail to allocate.
        let mut capped = tokio::process::Command::new("sh");
        capped
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("XDG_DATA_HOME", home.join(".local/share"))
            .env_remove("OPENAI_API_KEY")
            .env_remove("OPENAI_BASE_URL")
            .env_remove("LOOM_MODEL")
            .kill_on_drop(true)
            .arg("-c")
            .arg(format!("ulimit -v {limit} && exec \"$0\" \"$@\""))
            .arg(env!("CARGO_BIN_EXE_loom"));
        cmd = capped;
    }
    cmd.args(["tool", "run", name, "--args"])
        .arg(args.to_string())
        .arg("-C")
        .arg(dir);
    let out = tokio::time::timeout(Duration::from_secs(20), cmd.output())
        .await
        .unwrap_or_else(|_| panic!("`{name}` hung"))
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {} {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// Regression (issue 10): a detached process swapping `ws/d` with a symlink to a
/// directory outside made `write_file d/new*.txt` land outside, and reads won too.
#[tokio::test(flavor = "multi_thread")]
async fn a_rename_swap_race_never_writes_or_reads_outside() {
    let base = tempfile::tempdir().unwrap();
    let ws = base.path().join("ws");
    let outside = base.path().join("outside");
    std::fs::create_dir_all(ws.join("d")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "OUTSIDE-SECRET\n").unwrap();
    std::fs::write(ws.join("d/secret.txt"), "inside\n").unwrap();
    std::os::unix::fs::symlink(&outside, ws.join("swap")).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (stop, ws) = (stop.clone(), ws.clone());
        std::thread::spawn(move || {
            let mut swaps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let _ = nix::fcntl::renameat2(
                    nix::fcntl::AT_FDCWD,
                    &ws.join("d"),
                    nix::fcntl::AT_FDCWD,
                    &ws.join("swap"),
                    nix::fcntl::RenameFlags::RENAME_EXCHANGE,
                );
                swaps += 1;
            }
            swaps
        })
    };
    for i in 0..100 {
        let w = tool(
            &ws,
            "write_file",
            json!({"path": format!("d/new{i}.txt"), "content": "x\n"}),
        )
        .await;
        let r = tool(&ws, "read_file", json!({"path": "d/secret.txt"})).await;
        assert!(
            !r.to_string().contains("OUTSIDE-SECRET"),
            "read outside the workspace: {r} (write: {w})"
        );
    }
    stop.store(true, Ordering::Relaxed);
    assert!(swapper.join().unwrap() > 1000, "the race really ran");
    let escaped: Vec<String> = std::fs::read_dir(&outside)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "secret.txt")
        .collect();
    assert!(
        escaped.is_empty(),
        "written outside the workspace: {escaped:?}"
    );
}

/// Regression (issue 10): after a recorded write to `d/victim.txt`, `d` was turned into a
/// symlink; `loom undo --all --yes` deleted the file outside that it now pointed at, and
/// `--force` overwrote another.
#[tokio::test(flavor = "multi_thread")]
async fn undo_refuses_a_path_that_became_a_symlink() {
    let base = tempfile::tempdir().unwrap();
    let ws = base.path().join("ws");
    let outside = base.path().join("outside");
    std::fs::create_dir_all(ws.join("d")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(ws.join("d/existing.txt"), "before\n").unwrap();
    std::fs::write(ws.join(".gitignore"), ".home/\n").unwrap();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[
            (
                "w1",
                "write_file",
                r#"{"path": "d/victim.txt", "content": "new\n"}"#,
            ),
            (
                "w2",
                "write_file",
                r#"{"path": "d/existing.txt", "content": "after\n"}"#,
            ),
        ]),
        support::text_reply("done"),
    ])
    .await;
    let run = exec(&ws, &server, "full-auto", "write them").await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    std::fs::rename(ws.join("d"), base.path().join("d-moved")).unwrap();
    std::fs::write(outside.join("victim.txt"), "someone else's file\n").unwrap();
    std::fs::write(outside.join("existing.txt"), "another file\n").unwrap();
    std::os::unix::fs::symlink(&outside, ws.join("d")).unwrap();
    let home = ws.join(".home");
    for extra in [&["--yes"][..], &["--yes", "--force"][..]] {
        let out = loom_command(&home)
            .args(["undo", "--all"])
            .args(extra)
            .arg("-C")
            .arg(&ws)
            .output()
            .await
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_ne!(out.status.code(), Some(0), "{extra:?}: undo went ahead");
        assert!(err.contains("symlink"), "{extra:?}: {err}");
        assert_eq!(
            std::fs::read_to_string(outside.join("victim.txt")).unwrap(),
            "someone else's file\n"
        );
        assert_eq!(
            std::fs::read_to_string(outside.join("existing.txt")).unwrap(),
            "another file\n"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn fifos_and_devices_are_refused_quickly() {
    let dir = tempfile::tempdir().unwrap();
    nix::unistd::mkfifo(
        &dir.path().join("pipe"),
        nix::sys::stat::Mode::from_bits_truncate(0o644),
    )
    .unwrap();
    let mut targets = vec!["pipe"];
    match nix::sys::stat::mknod(
        &dir.path().join("zero"),
        nix::sys::stat::SFlag::S_IFCHR,
        nix::sys::stat::Mode::from_bits_truncate(0o666),
        nix::sys::stat::makedev(1, 5),
    ) {
        Ok(()) => targets.push("zero"),
        Err(e) => eprintln!("skipped the device node: mknod is not permitted here ({e})"),
    }
    for target in targets {
        for (tool_name, args) in [
            ("read_file", json!({"path": target})),
            ("write_file", json!({"path": target, "content": "x"})),
            (
                "edit_file",
                json!({"path": target, "old_str": "a", "new_str": "b"}),
            ),
        ] {
            let r = tool(dir.path(), tool_name, args).await;
            assert_eq!(r["success"], false, "{tool_name} {target}: {r}");
            let err = r["error"].as_str().unwrap();
            assert!(
                err.contains("not a regular file"),
                "{tool_name} {target}: {err}"
            );
        }
    }
    let r = tool(dir.path(), "search_files", json!({"pattern": "x"})).await;
    assert_eq!(r["success"], true, "search skips the FIFO: {r}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_sparse_three_gib_file_costs_what_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.log");
    let mut text = String::new();
    for i in 0..2000 {
        text.push_str(&format!("line {i} of a log that goes on\n"));
    }
    std::fs::write(&path, &text).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(3 << 30)
        .unwrap();
    let one_and_a_half_gib = 1536 * 1024;
    let r = tool_with(
        dir.path(),
        "read_file",
        json!({"path": "huge.log", "max_bytes": 100}),
        Some(one_and_a_half_gib),
    )
    .await;
    assert_eq!(r["success"], true, "{r}");
    assert!(
        r["output"]
            .as_str()
            .unwrap()
            .starts_with("     1\tline 0 of"),
        "{r}"
    );
    assert_eq!(r["data"]["truncated"], true);
    for (name, args) in [
        ("write_file", json!({"path": "huge.log", "content": "x"})),
        (
            "edit_file",
            json!({"path": "huge.log", "old_str": "line 0", "new_str": "l0"}),
        ),
    ] {
        let r = tool_with(dir.path(), name, args, Some(one_and_a_half_gib)).await;
        assert_eq!(r["success"], false, "{name}: {r}");
        assert!(
            r["error"].as_str().unwrap().contains("bytes"),
            "{name}: {r}"
        );
    }
}
