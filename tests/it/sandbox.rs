//! The command sandbox with real processes: writes outside the workspace fail, inside and
//! in the temp dir succeed, `.git/hooks` stays read-only, TCP to a local listener fails
//! unless network is allowed, and a denial is reported as a sandbox denial.
//!
//! On a system without Landlock these tests say so and check the fallback instead.

use std::path::Path;

use loom::tools::{ToolContext, ToolRegistry, ToolResult};
use loom_sandbox::{self as sandbox, Availability, SandboxSpec};
use serde_json::{Value, json};

fn landlock() -> Option<bool> {
    match sandbox::availability() {
        Availability::Available { network, .. } => Some(network),
        Availability::Unavailable(reason) => {
            eprintln!("no Landlock here ({reason}); checking the fallback only");
            None
        }
    }
}

fn ctx(dir: &Path, allow_network: bool) -> ToolContext {
    let mut ctx = ToolContext::for_workspace(dir).unwrap();
    let root = ctx.workspace.as_ref().unwrap().root().to_path_buf();
    ctx.sandbox = SandboxSpec::workspace_write(&root, &[], allow_network);
    ctx
}

/// A sandbox whose only writable root is the workspace (not even the temp dir), so a
/// sibling temp dir is "outside" wherever the checkout and the temp dir live.
fn ctx_workspace_only(dir: &Path) -> ToolContext {
    let mut ctx = ctx(dir, false);
    let root = ctx.workspace.as_ref().unwrap().root().to_path_buf();
    ctx.sandbox.writable = vec![root];
    ctx
}

async fn bash(ctx: &ToolContext, args: Value) -> ToolResult {
    ToolRegistry::builtin()
        .execute_as_person("bash", args, ctx)
        .await
}

#[tokio::test]
async fn writes_are_confined_to_the_workspace_and_temp() {
    let Some(_) = landlock() else {
        assert_eq!(
            loom::setup::sandbox_for(Path::new("/"), &default_config()).label,
            "unavailable"
        );
        return;
    };
    let ws = tempfile::tempdir().unwrap();
    let ctx = ctx(ws.path(), false);
    let strict = ctx_workspace_only(ws.path());
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("escaped.txt");

    let r = bash(
        &ctx,
        json!({"command": "echo in > inside.txt && cat inside.txt"}),
    )
    .await;
    assert!(r.success, "{r:?}");
    assert_eq!(
        std::fs::read_to_string(ws.path().join("inside.txt")).unwrap(),
        "in\n"
    );

    let tmp_file = std::env::temp_dir().join(format!("loom-sandbox-{}", std::process::id()));
    let r = bash(
        &ctx,
        json!({"command": format!("echo t > {}", tmp_file.display())}),
    )
    .await;
    assert!(r.success, "the temp dir is writable: {r:?}");
    let _ = std::fs::remove_file(&tmp_file);

    let r = bash(
        &strict,
        json!({"command": format!("echo out > {}", target.display())}),
    )
    .await;
    assert!(!r.success, "{r:?}");
    assert!(!target.exists(), "the write outside the workspace happened");
    let data = r.data.as_ref().unwrap();
    assert_eq!(data["sandbox_denied"], true, "{r:?}");
    let err = r.error.unwrap();
    assert!(err.contains("the sandbox blocked this command"), "{err}");
    assert!(err.contains("outside_sandbox: true"), "{err}");

    let r = bash(
        &strict,
        json!({"command": format!("echo out > {}", target.display()), "outside_sandbox": true}),
    )
    .await;
    assert!(
        r.success,
        "an approved rerun outside the sandbox works: {r:?}"
    );
    assert!(target.exists());
}

#[tokio::test]
async fn git_hooks_stay_read_only_while_the_repo_is_writable() {
    if landlock().is_none() {
        return;
    }
    let ws = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(ws.path().join(".git/hooks")).unwrap();
    std::fs::create_dir_all(ws.path().join(".git/objects")).unwrap();
    let ctx = ctx(ws.path(), false);
    let r = bash(
        &ctx,
        json!({"command": "echo evil > .git/hooks/pre-commit"}),
    )
    .await;
    assert!(!r.success, "{r:?}");
    assert!(!ws.path().join(".git/hooks/pre-commit").exists());
    let r = bash(
        &ctx,
        json!({"command": "echo ok > .git/objects/x && echo ok > .git/index.lock"}),
    )
    .await;
    assert!(r.success, "the rest of .git stays writable: {r:?}");
}

/// Protection does not depend on the directories existing beforehand: a repository
/// without `.git/hooks` and a workspace without `.loom/` are protected all the same.
#[tokio::test]
async fn missing_protected_directories_cannot_be_created_with_content() {
    if landlock().is_none() {
        return;
    }
    let ws = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(ws.path().join(".git/objects")).unwrap();
    let ctx = ctx(ws.path(), false);
    let r = bash(
        &ctx,
        json!({"command": "mkdir -p .loom .git/hooks; echo 'sandbox = \"off\"' > .loom/config.toml; echo evil > .git/hooks/pre-commit"}),
    )
    .await;
    assert!(!r.success, "{r:?}");
    assert!(!ws.path().join(".loom/config.toml").exists(), "{r:?}");
    assert!(!ws.path().join(".git/hooks/pre-commit").exists(), "{r:?}");
}

#[tokio::test]
async fn tcp_connect_is_denied_unless_network_is_allowed() {
    let Some(network_rules) = landlock() else {
        return;
    };
    if !network_rules {
        eprintln!("this kernel's Landlock has no network rules; skipping the TCP check");
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            drop(stream);
        }
    });
    let connect = format!("bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected'");
    let ws = tempfile::tempdir().unwrap();

    let denied = bash(&ctx(ws.path(), false), json!({"command": connect})).await;
    assert!(!denied.success, "{denied:?}");
    let stdout = denied.data.as_ref().unwrap()["stdout"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(!stdout.contains("connected"));

    let allowed = bash(&ctx(ws.path(), true), json!({"command": connect})).await;
    assert!(allowed.success, "{allowed:?}");
    assert_eq!(allowed.data.as_ref().unwrap()["stdout"], "connected\n");
}

#[tokio::test]
async fn reads_anywhere_still_work() {
    if landlock().is_none() {
        return;
    }
    let ws = tempfile::tempdir().unwrap();
    let r = bash(
        &ctx(ws.path(), false),
        json!({"command": "head -c 5 /etc/hostname >/dev/null && ls / >/dev/null && echo fine"}),
    )
    .await;
    assert!(r.success, "{r:?}");
}

fn default_config() -> loom::config::Config {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("c.toml");
    std::fs::write(&empty, "").unwrap();
    let flags = loom::config::FlagConfig {
        config_file: Some(empty),
        ..Default::default()
    };
    loom::config::load(dir.path(), &flags, &|_| None).unwrap()
}

#[test]
fn sandbox_status_reports_the_mode() {
    let cfg = default_config();
    let status = loom::setup::sandbox_for(Path::new("/tmp"), &cfg);
    match sandbox::availability() {
        Availability::Available { .. } => assert_eq!(status.label, "workspace-write"),
        Availability::Unavailable(_) => {
            assert_eq!(status.label, "unavailable");
            assert!(status.notice.unwrap().contains("approvals only"));
        }
    }
}
