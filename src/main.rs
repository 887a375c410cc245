//! The `loom` binary: parse the command line and dispatch to a mode.

use std::process::ExitCode;

use clap::Parser;
use loom::cli::{Cli, Command, ToolCommand};
use loom::commands;
use loom::policy::{Autonomy, Policy};
use loom::tools::{ToolContext, ToolRegistry};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
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

async fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    let workspace = match &cli.global.cd {
        Some(dir) => dir.clone(),
        None => std::env::current_dir()?,
    };
    match cli.command {
        Some(Command::Tool(ToolCommand::List)) => commands::tool::list(&ToolRegistry::builtin()),
        Some(Command::Tool(ToolCommand::Run { name, args })) => {
            let ctx = match ToolContext::for_workspace(&workspace) {
                Ok(ctx) => ctx,
                Err(e) => {
                    eprintln!("loom: cannot open workspace {}: {e}", workspace.display());
                    return Ok(ExitCode::from(commands::tool::EXIT_USAGE));
                }
            };
            let policy = Policy::new(Autonomy::FullAuto);
            commands::tool::run(&ToolRegistry::builtin(), &policy, &ctx, &name, &args).await
        }
        None => {
            eprintln!("loom: the full-screen assistant is not built yet; try `loom tool list`");
            Ok(ExitCode::from(2))
        }
    }
}
