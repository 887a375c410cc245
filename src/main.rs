//! The `loom` binary: parse the command line and dispatch to a mode.

// Unsafe code lives in `loom-sandbox` only (issue 27); tests may set variables.
#![cfg_attr(not(test), forbid(unsafe_code))]

use std::io::Read;
use std::process::ExitCode;

use loom::cli::{self, Cli, Command, McpCommand, PolicyCommand, ToolCommand};
use loom::commands;
use loom::config::{self, Config};
use loom::exec;
use loom::protocol::changes::Scope;
use loom::session;
use loom::setup;
use loom::tools::ToolContext;

fn main() -> ExitCode {
    loom_sandbox::process_setup::one_malloc_arena();
    loom_sandbox::isolate::harden_self();
    let cli = match Cli::try_parse_args(std::env::args_os()) {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    loom::llm::ensure_tls();
    if let Some(data) = loom::base::dirs::data_dir() {
        loom::private::close_data_dir(&data);
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("loom: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(dispatch(cli)) {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("loom: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Output piped into `head` and closed early is not an error worth printing.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || cause
                .downcast_ref::<serde_json::Error>()
                .and_then(|e| e.io_error_kind())
                == Some(std::io::ErrorKind::BrokenPipe)
    })
}

fn load_config(cli: &Cli, workspace: &std::path::Path) -> Result<Config, ExitCode> {
    config::load(workspace, &cli.global.flag_config(), &|k| {
        std::env::var(k).ok()
    })
    .map_err(|e| {
        eprintln!("loom: {e}");
        ExitCode::from(2)
    })
}

/// Say on stderr what an untrusted project config had ignored (for the commands that
/// have no session to show it in).
fn note_untrusted(config: &Config) {
    if let Some(n) = config.project_trust.notice() {
        eprintln!("loom: {n}");
    }
}

/// The session to continue, from `--resume ID`, `--resume` (picked from a list) or
/// `--continue`.
fn resume_target(
    cli: &Cli,
    workspace: &std::path::Path,
) -> Result<Option<session::LoadedSession>, String> {
    if let Some(spec) = &cli.global.fork {
        return fork_target(spec).map(Some);
    }
    let id = if let Some(id) = &cli.global.resume {
        if id.is_empty() {
            Some(commands::sessions::choose(workspace)?)
        } else {
            Some(id.clone())
        }
    } else if cli.global.continue_last {
        Some(commands::sessions::pick_session(workspace, None)?)
    } else {
        None
    };
    let Some(id) = id else { return Ok(None) };
    let dir = session::sessions_dir().ok_or("no data directory, so no sessions are recorded")?;
    let path = session::path_of(&dir, &id)
        .ok_or_else(|| format!("no session {id:?}; see `loom sessions`"))?;
    session::load(&path)
        .map(Some)
        .map_err(|e| format!("cannot read session {id}: {e}"))
}

/// `--fork ID[@N]`: a new session from session ID (just before its prompt N), loaded to
/// continue; the original's file is only read.
fn fork_target(spec: &str) -> Result<session::LoadedSession, String> {
    let (id, prompt) = session::rewind::parse_fork_spec(spec)?;
    let dir = session::sessions_dir().ok_or("no data directory, so no sessions are recorded")?;
    let path = session::path_of(&dir, &id)
        .ok_or_else(|| format!("no session {id:?}; see `loom sessions`"))?;
    let source = session::load(&path).map_err(|e| format!("cannot read session {id}: {e}"))?;
    let (_, forked) = session::rewind::fork(&dir, &source, prompt)?;
    session::load(&forked).map_err(|e| format!("cannot read the forked session: {e}"))
}

async fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    let workspace = match open_workspace(&cli) {
        Ok(w) => w,
        Err(code) => return Ok(code),
    };
    match &cli.command {
        Some(Command::Tool(command)) => run_tool(&cli, &workspace, command).await,
        Some(Command::Mcp(command)) => run_mcp(&cli, &workspace, command).await,
        Some(Command::Policy(PolicyCommand::Check { command, json })) => {
            let config = match load_config(&cli, &workspace) {
                Ok(c) => c,
                Err(code) => return Ok(code),
            };
            note_untrusted(&config);
            commands::policy::check(&setup::policy(&config), &workspace, command, *json)
        }
        Some(Command::Trust { revoke, list }) => {
            commands::trust::run(&cli.global.flag_config(), &workspace, *revoke, *list)
        }
        Some(Command::Memory(command)) => commands::memory::run(&workspace, command),
        Some(Command::Cron(command)) => {
            commands::cron::run(&workspace, &cli.global.flag_config(), command).await
        }
        Some(Command::Sessions {
            action: Some(cli::SessionsAction::Rm { id }),
            ..
        }) => commands::sessions::remove(id),
        Some(Command::Sessions { here, action: None }) => {
            commands::sessions::list(here.then_some(workspace.as_path()))
        }
        Some(Command::Undo {
            turn,
            all,
            since,
            session,
            redo,
            yes,
            force,
        }) => {
            let scope = undo_scope(*since, *all, *turn);
            commands::sessions::undo(&workspace, session.as_deref(), scope, *redo, *yes, *force)
        }
        Some(Command::Models) => {
            let config = match load_config(&cli, &workspace) {
                Ok(c) => c,
                Err(code) => return Ok(code),
            };
            note_untrusted(&config);
            commands::models::run(&config).await
        }
        Some(Command::Exec { json, prompt }) => run_exec(&cli, &workspace, prompt, *json).await,
        Some(Command::Review {
            base,
            commit,
            json,
            focus,
        }) => {
            let target = commands::review::target(base.clone(), commit.clone());
            run_review(&cli, &workspace, target, focus.join(" "), *json).await
        }
        Some(Command::McpServer) => run_mcp_server(&cli, workspace).await,
        Some(Command::Acp) => {
            loom_acp::serve_stdio(cli.global.flag_config()).await?;
            Ok(ExitCode::SUCCESS)
        }
        None => run_tui(&cli, workspace).await,
    }
}

/// The workspace `--cd` names (or the current directory's), or the exit code after saying
/// why it cannot be opened.
fn open_workspace(cli: &Cli) -> Result<std::path::PathBuf, ExitCode> {
    setup::workspace_root(cli.global.cd.as_deref()).map_err(|e| {
        let shown = cli
            .global
            .cd
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| ".".into());
        eprintln!("loom: cannot open workspace {shown}: {e}");
        ExitCode::from(2)
    })
}

/// What `loom undo` takes back: `--since SEQ`, `--all`, `--turn`, else the last change.
fn undo_scope(since: Option<u64>, all: bool, turn: bool) -> Scope {
    if let Some(n) = since {
        Scope::Since(n)
    } else if all {
        Scope::All
    } else if turn {
        Scope::Turn
    } else {
        Scope::Last
    }
}

/// `loom mcp-server`: serve Loom over MCP on stdio (the session flags do not apply).
async fn run_mcp_server(cli: &Cli, workspace: std::path::PathBuf) -> anyhow::Result<ExitCode> {
    if let Some(flag) = commands::mcp_server::unused_flag(&cli.global) {
        eprintln!(
            "loom: {flag} does not apply to `loom mcp-server`: each `loom` call starts \
             its own session (continue one with `loom-reply`)"
        );
        return Ok(ExitCode::from(2));
    }
    let config = match load_config(cli, &workspace) {
        Ok(c) => c,
        Err(code) => return Ok(code),
    };
    note_untrusted(&config);
    commands::mcp_server::run(config, workspace).await
}

/// `loom review`: the model reviews a diff in read-only mode, headless.
async fn run_review(
    cli: &Cli,
    workspace: &std::path::Path,
    target: loom_protocol::review::ReviewTarget,
    focus: String,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let config = match load_config(cli, workspace) {
        Ok(c) => c,
        Err(code) => return Ok(code),
    };
    commands::review::run(&config, workspace, target, focus, json).await
}

/// `loom tool`: list the tools, or run one by hand.
async fn run_tool(
    cli: &Cli,
    workspace: &std::path::Path,
    command: &ToolCommand,
) -> anyhow::Result<ExitCode> {
    match command {
        ToolCommand::List => {
            let config = match load_config(cli, workspace) {
                Ok(c) => c,
                Err(code) => return Ok(code),
            };
            note_untrusted(&config);
            let ctx: ToolContext = setup::tool_context(workspace, &config, "tool-list")?;
            let (registry, unoffered) = commands::tool::registry(&config, workspace, &ctx).await;
            commands::tool::list(&registry, &unoffered)
        }
        ToolCommand::Run { name, args } => {
            let config = match load_config(cli, workspace) {
                Ok(c) => c,
                Err(code) => return Ok(code),
            };
            note_untrusted(&config);
            let ctx: ToolContext = setup::tool_context(workspace, &config, "tool-run")?;
            let policy = setup::policy(&config);
            let (registry, unoffered) = commands::tool::registry(&config, workspace, &ctx).await;
            if let Some(u) = unoffered.iter().find(|u| u.name == name.as_str()) {
                eprintln!("loom: {} is not offered: {}", u.name, u.why);
                return Ok(ExitCode::from(commands::tool::EXIT_USAGE));
            }
            commands::tool::run(&registry, &policy, &ctx, name, args).await
        }
    }
}

/// `loom mcp`: list the configured servers, or call one of their tools.
async fn run_mcp(
    cli: &Cli,
    workspace: &std::path::Path,
    command: &McpCommand,
) -> anyhow::Result<ExitCode> {
    match command {
        McpCommand::List { json } => {
            let config = match load_config(cli, workspace) {
                Ok(c) => c,
                Err(code) => return Ok(code),
            };
            note_untrusted(&config);
            commands::mcp::list(&config, *json).await
        }
        McpCommand::Call { server, tool, args } => {
            let config = match load_config(cli, workspace) {
                Ok(c) => c,
                Err(code) => return Ok(code),
            };
            note_untrusted(&config);
            let ctx: ToolContext = setup::tool_context(workspace, &config, "mcp-call")?;
            commands::mcp::call(&config, &ctx, server, tool, args).await
        }
    }
}

/// `loom exec`: one task, headless.
async fn run_exec(
    cli: &Cli,
    workspace: &std::path::Path,
    prompt: &str,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let config = match load_config(cli, workspace) {
        Ok(c) => c,
        Err(code) => return Ok(code),
    };
    let prompt = if prompt == "-" {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text)?;
        text
    } else {
        prompt.to_string()
    };
    if prompt.trim().is_empty() {
        eprintln!("loom: the prompt is empty");
        return Ok(ExitCode::from(exec::EXIT_USAGE));
    }
    let images = match load_images(&cli.global.images) {
        Ok(images) => images,
        Err(message) => {
            eprintln!("loom: {message}");
            return Ok(ExitCode::from(exec::EXIT_USAGE));
        }
    };
    let resumed = match resume_target(cli, workspace) {
        Ok(r) => r,
        Err(message) => {
            eprintln!("loom: {message}");
            return Ok(ExitCode::from(exec::EXIT_USAGE));
        }
    };
    let options = exec::StartOptions {
        resumed,
        ..exec::StartOptions::default()
    };
    match exec::start(&config, workspace, options).await {
        Ok(started) => Ok(exec::run(started.agent, started.info, prompt, images, json).await),
        Err(e) => {
            eprintln!("loom: {}", e.message);
            Ok(ExitCode::from(e.code))
        }
    }
}

/// `loom` without a command: the full-screen assistant.
async fn run_tui(cli: &Cli, workspace: std::path::PathBuf) -> anyhow::Result<ExitCode> {
    let config = match load_config(cli, &workspace) {
        Ok(c) => c,
        Err(code) => return Ok(code),
    };
    // `--resume` without an id opens the TUI's resume picker.
    let pick_session = cli.global.resume.as_deref() == Some("");
    let resume = if pick_session {
        None
    } else {
        match resume_target(cli, &workspace) {
            Ok(r) => r,
            Err(message) => {
                eprintln!("loom: {message}");
                return Ok(ExitCode::from(2));
            }
        }
    };
    if !std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        eprintln!(
            "loom: the full-screen assistant needs a terminal; use `loom exec PROMPT` for scripts"
        );
        return Ok(ExitCode::from(2));
    }
    loom::commands::tui::run(loom::commands::tui::Start {
        config,
        workspace,
        prompt: cli.prompt.clone(),
        images: match load_images(&cli.global.images) {
            Ok(images) => images,
            Err(message) => {
                eprintln!("loom: {message}");
                return Ok(ExitCode::from(2));
            }
        },
        resume,
        flags: cli.global.flag_config(),
        pick_session,
    })
    .await
}

/// The images given with `--image`, read and checked, or why one cannot be attached.
fn load_images(paths: &[std::path::PathBuf]) -> Result<Vec<loom::llm::image::Image>, String> {
    paths.iter().map(|p| loom::llm::image::load(p)).collect()
}
