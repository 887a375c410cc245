//! Issue 30: language-server diagnostics after every write, against real servers (pyright
//! from npm, installed by `.ci/lsp-deps` into `.ci/deps/lsp/`) and a fake one that never
//! answers. Under CI a missing server fails the test; elsewhere the test says loudly that
//! it skipped.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;

use loom::config::{self, FlagConfig};
use loom::setup;
use loom::tools::{ToolContext, ToolRegistry};

/// pyright's language server from `.ci/deps/lsp`, or `None` (and a loud note) outside CI.
fn pyright() -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(".ci/deps/lsp/node_modules/.bin/pyright-langserver");
    if path.is_file() {
        return Some(path);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{} is missing: .ci/lsp-deps installs it",
        path.display()
    );
    eprintln!(
        "SKIPPED: {} is missing; run .ci/lsp-deps to test against pyright",
        path.display()
    );
    None
}

/// A workspace with a config that has `lsp_config` (and no server from PATH), its tools
/// and their context.
fn workspace(lsp_config: &str) -> (tempfile::TempDir, PathBuf, ToolRegistry, ToolContext) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let file = dir.path().join("config.toml");
    std::fs::write(&file, lsp_config).unwrap();
    let flags = FlagConfig {
        config_file: Some(file),
        ..FlagConfig::default()
    };
    let config = config::load(&ws, &flags, &|_| None).unwrap();
    let root = std::fs::canonicalize(&ws).unwrap();
    let ctx = setup::tool_context(&root, &config, "lsp-test").unwrap();
    let (registry, _) = setup::tool_registry(&config, None, &|_| None);
    (dir, root, registry, ctx)
}

fn pyright_workspace() -> Option<(tempfile::TempDir, PathBuf, ToolRegistry, ToolContext)> {
    let server = pyright()?;
    Some(workspace(&format!(
        "lsp_wait_ms = 30000\n[lsp.pyright]\ncommand = {:?}\n",
        server.display().to_string()
    )))
}

async fn run(
    registry: &ToolRegistry,
    ctx: &ToolContext,
    tool: &str,
    args: serde_json::Value,
) -> String {
    let r = registry.execute_as_person(tool, args, ctx).await;
    assert!(r.success, "{tool} failed: {:?} {}", r.error, r.output);
    r.output
}

/// The lines of a result from its diagnostics on.
fn diagnostics_of(output: &str) -> Vec<&str> {
    output
        .lines()
        .skip_while(|l| !l.starts_with("diagnostics"))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_edit_gets_exactly_the_type_error_it_introduced_and_its_fix_gets_none() {
    let Some((_dir, _root, registry, ctx)) = pyright_workspace() else {
        return;
    };
    let created = run(
        &registry,
        &ctx,
        "write_file",
        json!({"path": "a.py", "content": "y: int = \"old\"\n"}),
    )
    .await;
    let lines = diagnostics_of(&created);
    assert_eq!(lines[0], "diagnostics (pyright): 1 new error", "{created}");
    assert!(
        lines[1].starts_with("a.py:1:10: error [reportAssignmentType]"),
        "{created}"
    );
    let broke = run(
        &registry,
        &ctx,
        "edit_file",
        json!({"path": "a.py", "old_str": "y: int = \"old\"\n",
               "new_str": "y: int = \"old\"\nx: int = \"new\"\n"}),
    )
    .await;
    let lines = diagnostics_of(&broke);
    assert_eq!(lines.len(), 3, "{broke}");
    assert_eq!(lines[0], "diagnostics (pyright): 1 new error");
    assert!(
        lines[1].starts_with("a.py:2:10: error [reportAssignmentType]"),
        "{broke}"
    );
    assert!(
        lines[1].contains("Literal['new']"),
        "exactly the new error: {broke}"
    );
    assert_eq!(lines[2], "(1 error there before this edit, not listed)");
    let fixed = run(
        &registry,
        &ctx,
        "edit_file",
        json!({"path": "a.py", "old_str": "x: int = \"new\"", "new_str": "x: int = 1"}),
    )
    .await;
    assert_eq!(
        diagnostics_of(&fixed),
        [
            "diagnostics (pyright): 0 new errors",
            "(1 error there before this edit, not listed)"
        ],
        "{fixed}"
    );
    let current = run(&registry, &ctx, "diagnostics", json!({"path": "a.py"})).await;
    assert!(
        current.starts_with("diagnostics (pyright): 1 error\na.py:1:10"),
        "{current}"
    );
    let status = ctx.lsp.as_ref().unwrap().status();
    assert_eq!((status.len(), status[0].errors), (1, 1), "{status:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_killed_mid_session_is_started_again() {
    let Some((_dir, _root, registry, ctx)) = pyright_workspace() else {
        return;
    };
    let lsp = ctx.lsp.clone().unwrap();
    let first = run(
        &registry,
        &ctx,
        "write_file",
        json!({"path": "b.py", "content": "a: int = 1\n"}),
    )
    .await;
    assert!(
        first.contains("diagnostics (pyright): 0 new errors"),
        "{first}"
    );
    let groups = lsp.process_groups();
    assert_eq!(groups.len(), 1);
    let mut changes = lsp.subscribe();
    nix::sys::signal::killpg(
        nix::unistd::Pid::from_raw(groups[0] as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let exited = async {
        while lsp.status()[0].state != loom::protocol::lsp::LspState::Exited {
            changes.changed().await.unwrap();
        }
    };
    tokio::time::timeout(Duration::from_secs(30), exited)
        .await
        .expect("the exit is noticed");
    let again = run(
        &registry,
        &ctx,
        "write_file",
        json!({"path": "b.py", "content": "a: int = \"s\"\n"}),
    )
    .await;
    let lines = diagnostics_of(&again);
    assert_eq!(lines[0], "diagnostics (pyright): 1 new error", "{again}");
    let status = &lsp.status()[0];
    assert_eq!(status.state, loom::protocol::lsp::LspState::Ready);
    assert_eq!(status.detail, "restarted 1×");
    assert_ne!(lsp.process_groups(), groups);
}

/// A server that never answers: each edit costs at most the configured wait and still
/// succeeds, and the `diagnostics` tool says the server is starting.
#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_never_answers_costs_at_most_the_wait() {
    let dir = tempfile::tempdir().unwrap();
    let mute = dir.path().join("mute.sh");
    std::fs::write(&mute, "#!/bin/sh\nexec sleep 600\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&mute, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (_ws, _root, registry, ctx) = workspace(&format!(
        "lsp_wait_ms = 400\n[lsp.mute]\ncommand = {:?}\nfiletypes = [\"txt\"]\n",
        mute.display().to_string()
    ));
    for round in 0..2 {
        let started = Instant::now();
        let out = run(
            &registry,
            &ctx,
            "write_file",
            json!({"path": "a.txt", "content": format!("round {round}\n")}),
        )
        .await;
        let took = started.elapsed();
        assert!(
            out.ends_with("diagnostics unavailable: starting (mute)"),
            "{out}"
        );
        assert!(
            took < Duration::from_millis(400 + 1500),
            "round {round}: {took:?}"
        );
        assert!(
            took >= Duration::from_millis(350),
            "it waited the bound: {took:?}"
        );
    }
    let asked = run(&registry, &ctx, "diagnostics", json!({"path": "a.txt"})).await;
    assert_eq!(asked, "diagnostics unavailable: starting (mute)");
    let state = &ctx.lsp.as_ref().unwrap().status()[0];
    assert_eq!(state.state, loom::protocol::lsp::LspState::Starting);
}

/// A file no server serves gets no diagnostics line; with `lsp = false` there are no
/// servers and no `diagnostics` tool.
#[tokio::test(flavor = "multi_thread")]
async fn files_no_server_serves_and_the_off_switch_add_nothing() {
    let (_d, _r, registry, ctx) =
        workspace("[lsp.x]\ncommand = \"/bin/cat\"\nfiletypes = [\"x\"]\n");
    let out = run(
        &registry,
        &ctx,
        "write_file",
        json!({"path": "n.md", "content": "hi\n"}),
    )
    .await;
    assert!(!out.contains("diagnostics"), "{out}");
    assert!(registry.names().contains(&"diagnostics".to_string()));
    let (_d, _r, registry, ctx) = workspace("lsp = false\n");
    assert!(ctx.lsp.is_none());
    assert!(!registry.names().contains(&"diagnostics".to_string()));
}

/// Every error of the `diagnostics` tool says what to do instead: diagnostics off, a
/// directory, a file no server serves, a missing file, a path outside the workspace.
#[tokio::test(flavor = "multi_thread")]
async fn the_diagnostics_tool_refuses_what_it_cannot_check_and_says_what_to_do() {
    let (_d, root, registry, ctx) =
        workspace("[lsp.x]\ncommand = \"/bin/cat\"\nfiletypes = [\"x\"]\n");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::write(root.join("n.md"), "hi\n").unwrap();
    let failed = |r: loom::tools::ToolResult| {
        assert!(!r.success, "{}", r.output);
        r.error.unwrap_or_default()
    };
    let cases = [
        ("sub", "is a directory; give a file"),
        (
            "n.md",
            "no language server is configured for n.md; add an [lsp.NAME] table",
        ),
        ("gone.x", "gone.x does not exist"),
        ("../outside.x", "outside"),
    ];
    for (path, says) in cases {
        let r = registry
            .execute_as_person("diagnostics", json!({"path": path}), &ctx)
            .await;
        let error = failed(r);
        assert!(error.contains(says), "{path}: {error}");
    }
    let mut off = ctx.clone();
    off.lsp = None;
    let error = failed(
        registry
            .execute_as_person("diagnostics", json!({}), &off)
            .await,
    );
    assert!(error.contains("diagnostics are off here"), "{error}");
    let none_yet = run(&registry, &ctx, "diagnostics", json!({})).await;
    assert!(
        none_yet.starts_with("no language server has been started yet"),
        "{none_yet}"
    );
}

/// A server that cannot be started is reported in the write's result, which still
/// succeeds, and it is not tried again on every edit.
#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_cannot_start_is_reported_and_the_edit_succeeds() {
    let (_d, _r, registry, ctx) =
        workspace("[lsp.nope]\ncommand = \"/nonexistent/nope\"\nfiletypes = [\"x\"]\n");
    for round in 0..2 {
        let out = run(
            &registry,
            &ctx,
            "write_file",
            json!({"path": "a.x", "content": format!("{round}\n")}),
        )
        .await;
        assert!(
            out.ends_with("(is it installed and on PATH?) (nope)"),
            "{out}"
        );
        assert!(
            out.contains("diagnostics unavailable: cannot start `/nonexistent/nope`"),
            "{out}"
        );
    }
    let status = ctx.lsp.as_ref().unwrap().status();
    assert_eq!(status.len(), 1);
    assert_eq!(status[0].state, loom::protocol::lsp::LspState::Failed);
}

/// typescript-language-server with typescript from npm: the same contract in another
/// language, through `apply_patch`.
#[tokio::test(flavor = "multi_thread")]
async fn a_typescript_edit_gets_its_type_error_through_apply_patch() {
    let server = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(".ci/deps/lsp/node_modules/.bin/typescript-language-server");
    if !server.is_file() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{} is missing: .ci/lsp-deps installs it",
            server.display()
        );
        eprintln!("SKIPPED: {} is missing; run .ci/lsp-deps", server.display());
        return;
    }
    let (_d, root, registry, ctx) = workspace(&format!(
        "lsp_wait_ms = 60000\n[lsp.typescript]\ncommand = {:?}\n",
        server.display().to_string()
    ));
    std::fs::write(
        root.join("tsconfig.json"),
        "{\"compilerOptions\": {\"strict\": true}}\n",
    )
    .unwrap();
    let created = run(
        &registry,
        &ctx,
        "write_file",
        json!({"path": "a.ts", "content": "export const n: number = 1;\n"}),
    )
    .await;
    assert!(
        created.ends_with("diagnostics (typescript): 0 new errors"),
        "{created}"
    );
    let patch = "*** Begin Patch\n*** Update File: a.ts\n@@\n export const n: number = 1;\n+export const s: number = \"two\";\n*** End Patch";
    let broke = run(&registry, &ctx, "apply_patch", json!({"input": patch})).await;
    let lines = diagnostics_of(&broke);
    assert_eq!(lines[0], "diagnostics (typescript): 1 new error", "{broke}");
    assert!(lines[1].starts_with("a.ts:2:14: error [2322]"), "{broke}");
}

/// A tiny language server in Python that offers pull diagnostics (`diagnosticProvider`):
/// every line holding `BAD` is an error, coded with the word after it. It never publishes,
/// so answers can only come from `textDocument/diagnostic`.
const PULL_SERVER: &str = r#"import json, sys
docs = {}
def read():
    length = None
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            sys.exit(0)
        line = line.strip()
        if not line:
            break
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            length = int(value)
    return json.loads(sys.stdin.buffer.read(length))
def send(message):
    body = json.dumps(message).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()
while True:
    m = read()
    method, params = m.get("method"), m.get("params", {})
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"capabilities": {
            "textDocumentSync": 1,
            "diagnosticProvider": {"interFileDependencies": False, "workspaceDiagnostics": False}}}})
    elif method == "textDocument/didOpen":
        docs[params["textDocument"]["uri"]] = params["textDocument"]["text"]
    elif method == "textDocument/didChange":
        docs[params["textDocument"]["uri"]] = params["contentChanges"][-1]["text"]
    elif method == "textDocument/diagnostic":
        text = docs.get(params["textDocument"]["uri"], "")
        items = []
        for n, line in enumerate(text.split("\n")):
            col = line.find("BAD")
            if col >= 0:
                code = (line[col + 3:].split() or ["?"])[0]
                items.append({"range": {"start": {"line": n, "character": col},
                                        "end": {"line": n, "character": col + 3}},
                              "severity": 1, "code": code, "message": "bad " + code})
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"kind": "full", "items": items}})
    elif "id" in m:
        send({"jsonrpc": "2.0", "id": m["id"], "result": None})
"#;

/// Pull diagnostics: a server that offers `textDocument/diagnostic` is asked, not waited
/// for; an edit elsewhere in a file with an old error reports nothing new, and two copies of
/// one error where there was one report the second.
#[tokio::test(flavor = "multi_thread")]
async fn a_server_with_pull_diagnostics_is_asked_and_old_errors_stay_old() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("pull.py");
    std::fs::write(&script, PULL_SERVER).unwrap();
    let (_ws, _root, registry, ctx) = workspace(&format!(
        "lsp_wait_ms = 20000\n[lsp.pull]\ncommand = \"python3\"\nargs = [{:?}]\nfiletypes = [\"txt\"]\n",
        script.display().to_string()
    ));
    let created = run(
        &registry,
        &ctx,
        "write_file",
        json!({"path": "a.txt", "content": "one\nBAD old\nthree\n"}),
    )
    .await;
    assert_eq!(
        diagnostics_of(&created),
        [
            "diagnostics (pull): 1 new error",
            "a.txt:2:1: error [old] bad old"
        ],
        "{created}"
    );
    let elsewhere = run(
        &registry,
        &ctx,
        "edit_file",
        json!({"path": "a.txt", "old_str": "one\n", "new_str": "zero\none\n"}),
    )
    .await;
    assert_eq!(
        diagnostics_of(&elsewhere),
        [
            "diagnostics (pull): 0 new errors",
            "(1 error there before this edit, not listed)"
        ],
        "{elsewhere}"
    );
    let twice = run(
        &registry,
        &ctx,
        "edit_file",
        json!({"path": "a.txt", "old_str": "three\n", "new_str": "x BAD old\n"}),
    )
    .await;
    assert_eq!(
        diagnostics_of(&twice),
        [
            "diagnostics (pull): 1 new error",
            "a.txt:4:3: error [old] bad old",
            "(1 error there before this edit, not listed)"
        ],
        "{twice}"
    );
}

/// Through the agent: a model's `write_file`, approved and written through the undo
/// journal's path, reads the diagnostics in its result, and the front end is told the
/// servers' state (`AgentEvent::LspStatus`) with the error counted.
#[tokio::test(flavor = "multi_thread")]
async fn the_agent_s_write_carries_the_diagnostics_and_the_front_end_gets_the_count() {
    use crate::support::{self, ScriptedServer};
    use loom::agent::{AgentEvent, ApprovalAnswer, Runner};
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("pull.py");
    std::fs::write(&script, PULL_SERVER).unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let file = dir.path().join("config.toml");
    std::fs::write(
        &file,
        format!(
            "lsp_wait_ms = 20000\n[lsp.pull]\ncommand = \"python3\"\nargs = [{:?}]\nfiletypes = [\"txt\"]\n",
            script.display().to_string()
        ),
    )
    .unwrap();
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[(
            "w1",
            "write_file",
            r#"{"path": "a.txt", "content": "ok\nBAD e1\n"}"#,
        )]),
        support::text_reply("done"),
    ])
    .await;
    let flags = FlagConfig {
        base_url: Some(server.base_url()),
        model: Some("scripted-model".into()),
        approval: Some("supervised".into()),
        config_file: Some(file),
        ..FlagConfig::default()
    };
    let config = config::load(&ws, &flags, &|_| None).unwrap();
    let root = std::fs::canonicalize(&ws).unwrap();
    let provider = setup::Provider::Ready {
        settings: loom::llm::ProviderSettings::new(&server.base_url(), "scripted-model"),
        origin: "test".into(),
    };
    let ctx = setup::tool_context(&root, &config, "lsp-agent").unwrap();
    let mut agent = Runner::spawn(loom::compose::runner_parts(
        &config,
        &provider,
        ctx,
        true,
        Vec::new(),
        setup::SessionFiles::none(),
    ));
    let events =
        crate::agent::run_turn(&mut agent, "write it", |_, _| ApprovalAnswer::Approve).await;
    let result = events
        .iter()
        .find_map(|e| match e {
            AgentEvent::ToolResult { name, result, .. } if name == "write_file" => Some(result),
            _ => None,
        })
        .expect("the write's result");
    assert!(result.success, "{result:?}");
    assert_eq!(
        diagnostics_of(&result.output),
        [
            "diagnostics (pull): 1 new error",
            "a.txt:2:1: error [e1] bad e1"
        ],
        "{}",
        result.output
    );
    let counted = events.iter().any(|e| {
        matches!(e, AgentEvent::LspStatus { servers } if servers.len() == 1 && servers[0].errors == 1)
    });
    assert!(counted, "{events:?}");
    let sent = support::tool_messages(&server.requests()[1]);
    assert!(
        sent.iter()
            .any(|(_, v)| v.to_string().contains("a.txt:2:1: error [e1] bad e1")),
        "the model reads it: {sent:?}"
    );
}

/// A language server runs contained like a command — the first process of a PID namespace
/// of its own where the system allows one, writes only where the sandbox lets commands
/// write — and its whole process group ends when the session's tools are dropped.
#[tokio::test(flavor = "multi_thread")]
async fn a_server_runs_contained_and_ends_with_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let server = dir.path().join("server.sh");
    // A sibling temp dir: "outside" because the sandbox below lets the server write only
    // in the workspace (not even the temp dirs), wherever the checkout and the temp dir
    // live (a checkout under /tmp made CARGO_TARGET_TMPDIR writable).
    let elsewhere = tempfile::tempdir().unwrap();
    let outside = elsewhere.path().join("outside.txt");
    std::fs::write(
        &server,
        format!(
            "#!/bin/sh\necho x > {:?} 2>/dev/null\necho $$ > pid.txt\nsleep 600\n",
            outside.display().to_string()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&server, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (ws_dir, root, registry, mut ctx) = workspace(&format!(
        "lsp_wait_ms = 300\nsandbox_writable = []\n[lsp.contained]\ncommand = {:?}\nfiletypes = [\"txt\"]\n",
        server.display().to_string()
    ));
    let flags = FlagConfig {
        config_file: Some(ws_dir.path().join("config.toml")),
        ..FlagConfig::default()
    };
    let config = config::load(&root, &flags, &|_| None).unwrap();
    ctx.sandbox.writable.retain(|p| p == &root);
    ctx.lsp = setup::lsp_for(&root, &config, ctx.sandbox.clone());
    let out = run(
        &registry,
        &ctx,
        "write_file",
        json!({"path": "a.txt", "content": "x\n"}),
    )
    .await;
    assert!(
        out.ends_with("diagnostics unavailable: starting (contained)"),
        "{out}"
    );
    let pid_file = root.join("pid.txt");
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::fs::read_to_string(&pid_file).map_or(true, |t| !t.ends_with('\n')) {
        assert!(Instant::now() < deadline, "the server never started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    if loom_sandbox::protection_available() {
        assert_eq!(
            std::fs::read_to_string(&pid_file).unwrap(),
            "1\n",
            "PID 1 of its namespace"
        );
    } else {
        eprintln!("SKIPPED the namespace check: this system allows no namespaces");
    }
    eprintln!("sandbox active: {}", ctx.sandbox.is_active());
    // The write was tried before pid.txt was written: it lands only without the sandbox.
    assert_eq!(
        outside.exists(),
        !ctx.sandbox.is_active(),
        "the sandbox decides whether the server writes outside the workspace"
    );
    if ctx.sandbox.is_active() {
        // The write was tried before pid.txt was written.
        assert!(!outside.exists(), "the server wrote outside the workspace");
    }
    let groups: Vec<u32> = {
        // The server (still starting: it never answers) is the shell whose command line
        // names the script.
        let mut found = Vec::new();
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            if String::from_utf8_lossy(&cmdline).contains(&server.display().to_string()) {
                found.push(pid);
            }
        }
        found
    };
    assert!(!groups.is_empty(), "the server's shell is running");
    drop(registry);
    drop(ctx);
    let deadline = Instant::now() + Duration::from_secs(10);
    for pid in groups {
        while Path::new(&format!("/proc/{pid}")).exists()
            && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .unwrap_or_default()
                .contains(") Z")
        {
            assert!(
                Instant::now() < deadline,
                "process {pid} outlived the session"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}
