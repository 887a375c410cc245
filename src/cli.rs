//! The command line: flags and subcommands, parsed with clap. `loom --help` is generated
//! from the doc comments here, so they are written for the person typing.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Loom: a terminal coding assistant for any OpenAI-compatible model.
#[derive(Debug, Parser)]
#[command(name = "loom", version, about, long_about = None)]
pub struct Cli {
    /// Options shared by every mode.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// What to do (default: open the full-screen assistant).
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Options shared by every mode.
#[derive(Debug, Args, Clone, Default)]
pub struct GlobalArgs {
    /// Workspace directory (default: the current directory).
    #[arg(short = 'C', long = "cd", global = true, value_name = "DIR")]
    pub cd: Option<PathBuf>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Inspect or run one tool directly.
    #[command(subcommand)]
    Tool(ToolCommand),
}

/// `loom tool ...`
#[derive(Debug, Subcommand)]
pub enum ToolCommand {
    /// Print every tool's JSON schema (OpenAI function-tool format).
    List,
    /// Run one tool in the workspace and print its result as JSON.
    ///
    /// Exit code 0 when the tool succeeded, 1 when it returned an error, 2 for bad usage.
    Run {
        /// Tool name, e.g. read_file.
        name: String,
        /// Arguments as a JSON object, e.g. '{"path": "src/main.rs"}'.
        #[arg(long, default_value = "{}")]
        args: String,
    },
}
