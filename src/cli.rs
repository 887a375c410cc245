//! The command line: flags and subcommands, parsed with clap. `loom --help` is generated
//! from the doc comments here, so they are written for the person typing.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::error::ErrorKind;
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};

/// Loom: a terminal coding assistant for any OpenAI-compatible model.
///
/// Configuration is layered: built-in defaults < ~/.config/loom/config.toml (or --config) <
/// .loom/config.toml in the workspace < environment (OPENAI_BASE_URL, OPENAI_API_KEY,
/// LOOM_MODEL) < flags. With nothing configured, Loom looks for a local server (Ollama,
/// LM Studio, llama.cpp, vLLM) on 127.0.0.1.
///
/// Options work before and after a subcommand: `loom --config F exec "..."` and
/// `loom exec --config F "..."` are the same (given on both sides, the one after the
/// subcommand wins).
#[derive(Debug, Parser)]
#[command(
    name = "loom",
    version,
    about,
    override_usage = "loom [OPTIONS] [PROMPT]\n       loom [OPTIONS] <COMMAND> [ARGS]"
)]
pub struct Cli {
    /// Options shared by every mode.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// What to do (default: open the full-screen assistant).
    #[command(subcommand)]
    pub command: Option<Command>,
    /// A first message to send as soon as the assistant opens (quoted when it has several
    /// words; after `--` when it is exactly a subcommand's name: `loom -- undo`).
    pub prompt: Option<String>,
}

impl Cli {
    /// Parse the command line (`argv`, program name first).
    ///
    /// Options shared by every mode are global, so they may come before or after the
    /// subcommand (given on both sides, the one after it wins). clap alone would also take
    /// a first message and a subcommand together (`loom "fix it" exec ...`); that is refused
    /// here, as a clap usage error, because one of the two would be silently ignored.
    pub fn try_parse_args<I, T>(argv: I) -> Result<Cli, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        let mut command = Cli::command();
        let matches = command.try_get_matches_from_mut(argv)?;
        if let (Some(prompt), Some(name)) = (
            matches.get_one::<String>("prompt"),
            matches.subcommand_name(),
        ) {
            return Err(command.error(
                ErrorKind::ArgumentConflict,
                format!(
                    "the first message {prompt:?} cannot be combined with the `{name}` \
                     subcommand; quote a message of several words as one argument \
                     (loom \"...\"), or give the subcommand and its arguments alone \
                     (loom [OPTIONS] {name} ...)"
                ),
            ));
        }
        let cli = Cli::from_arg_matches(&matches).map_err(|e| e.format(&mut command))?;
        // clap checks conflicts within one level; these two may now sit on either side of
        // the subcommand.
        if cli.global.resume.is_some() && cli.global.continue_last {
            return Err(command.error(
                ErrorKind::ArgumentConflict,
                "the argument '--resume <ID>' cannot be used with '--continue'",
            ));
        }
        if cli.global.fork.is_some() && (cli.global.resume.is_some() || cli.global.continue_last) {
            return Err(command.error(
                ErrorKind::ArgumentConflict,
                "the argument '--fork <ID[@N]>' cannot be used with '--resume' or '--continue'",
            ));
        }
        Ok(cli)
    }
}

/// Options shared by every mode.
#[derive(Debug, Args, Clone, Default)]
pub struct GlobalArgs {
    /// Workspace directory (default: the current directory).
    #[arg(short = 'C', long = "cd", global = true, value_name = "DIR")]
    pub cd: Option<PathBuf>,
    /// Base URL of an OpenAI-compatible API, e.g. http://127.0.0.1:11434/v1.
    #[arg(long, global = true, value_name = "URL")]
    pub base_url: Option<String>,
    /// Model id.
    #[arg(long, global = true, value_name = "MODEL")]
    pub model: Option<String>,
    /// Read the API key from this environment variable (default OPENAI_API_KEY).
    #[arg(long, global = true, value_name = "NAME")]
    pub api_key_env: Option<String>,
    /// Use this config file instead of ~/.config/loom/config.toml.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Approval mode: read-only, supervised (default), full-auto or plan.
    #[arg(long, global = true, value_name = "MODE")]
    pub approval: Option<String>,
    /// Command sandbox: workspace-write (default where Landlock works) or off.
    #[arg(long, global = true, value_name = "MODE")]
    pub sandbox: Option<String>,
    /// Theme: dark (default), light, high-contrast, or one of yours in
    /// ~/.config/loom/themes/NAME.toml.
    #[arg(long, global = true, value_name = "NAME")]
    pub theme: Option<String>,
    /// Commit the files Loom changes after each batch of tool calls (config: auto_commit;
    /// `/autocommit on|off` in the assistant).
    #[arg(long, global = true)]
    pub auto_commit: bool,
    /// Attach an image (PNG, JPEG, GIF or WebP, up to 8 MB) to the first message; repeat
    /// for several. For models that accept images.
    #[arg(long = "image", global = true, value_name = "FILE")]
    pub images: Vec<PathBuf>,
    /// Draw at the bottom of the normal screen instead of the alternate screen: finished
    /// messages go to the terminal's scrollback (config: inline).
    #[arg(long, global = true)]
    pub inline: bool,
    /// Continue a saved session (see `loom sessions`); without an ID, pick one from a list.
    #[arg(
        long,
        global = true,
        value_name = "ID",
        num_args = 0..=1,
        default_missing_value = "",
        conflicts_with = "continue_last"
    )]
    pub resume: Option<String>,
    /// Continue the most recent session in this workspace.
    #[arg(long = "continue", global = true)]
    pub continue_last: bool,
    /// Start a new session from saved session ID, whole or just before its prompt N
    /// (`ID@N`, numbered as `/rewind` lists them); the original stays as it is.
    #[arg(long, global = true, value_name = "ID[@N]")]
    pub fork: Option<String>,
}

/// What `loom sessions` can do besides listing.
#[derive(Debug, Subcommand)]
pub enum SessionsAction {
    /// Remove a session: its transcript, its undo journal and its sub-agents' transcripts.
    Rm {
        /// The session id (as `loom sessions` lists it).
        id: String,
    },
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run one task without the full-screen UI and exit.
    ///
    /// Exit code 0 when the task finished, 1 on a provider or runtime failure, 2 on bad
    /// usage. In read-only mode every write and command is denied; in supervised mode
    /// whatever would need a person is denied and the model is told; full-auto allows
    /// everything the policy does not forbid.
    Exec {
        /// Print one JSON object per event on stdout (schema in docs/exec.md).
        #[arg(long)]
        json: bool,
        /// The task; `-` reads it from stdin.
        prompt: String,
    },
    /// List the models the configured (or discovered) server offers.
    Models,
    /// Review changes headless: one read-only turn with a review prompt over the
    /// uncommitted changes (or a branch's since its merge base, or one commit); prints the
    /// answer, then the findings as `path:line severity text`. Exit code as `loom exec`.
    Review {
        /// Review the current branch's changes since it left BRANCH (merge base to the
        /// working tree).
        #[arg(long, value_name = "BRANCH", conflicts_with = "commit")]
        base: Option<String>,
        /// Review this commit's own change.
        #[arg(long, value_name = "SHA")]
        commit: Option<String>,
        /// Print one JSON object per event on stdout (findings as `review_findings`).
        #[arg(long)]
        json: bool,
        /// What to look at in particular.
        focus: Vec<String>,
    },
    /// List recent sessions (newest first): title, age, messages and changes.
    Sessions {
        /// Only sessions of the current workspace.
        #[arg(long)]
        here: bool,
        /// What to do with a session instead of listing them.
        #[command(subcommand)]
        action: Option<SessionsAction>,
    },
    /// Take back changes Loom made (shown as a diff first).
    Undo {
        /// Undo every change of the last turn.
        #[arg(long, conflicts_with = "all")]
        turn: bool,
        /// Undo every change of the session.
        #[arg(long, conflicts_with = "since")]
        all: bool,
        /// Undo every change from this one on (numbers as listed by /changes).
        #[arg(long, value_name = "SEQ", conflicts_with = "turn")]
        since: Option<u64>,
        /// The session (default: the latest in this workspace).
        #[arg(long, value_name = "ID")]
        session: Option<String>,
        /// Redo the last undo instead.
        #[arg(long, conflicts_with_all = ["turn", "all", "since"])]
        redo: bool,
        /// Apply without asking.
        #[arg(long, short = 'y')]
        yes: bool,
        /// Overwrite files that changed since Loom wrote them.
        #[arg(long)]
        force: bool,
    },
    /// Explain how the policy sees a command.
    #[command(subcommand)]
    Policy(PolicyCommand),
    /// Trust this workspace's .loom/config.toml, so the settings in it that loosen Loom
    /// (sandbox off, full-auto, network, allow rules, hooks, ...) apply. Shows what it
    /// loosens first; trust is remembered for this exact file (an edit asks again).
    Trust {
        /// Forget the trust of this workspace instead.
        #[arg(long, conflicts_with = "list")]
        revoke: bool,
        /// List the trusted workspaces.
        #[arg(long)]
        list: bool,
    },
    /// Inspect or run one tool directly.
    #[command(subcommand)]
    Tool(ToolCommand),
    /// The MCP servers of the configuration: their status and tools, or one call.
    #[command(subcommand)]
    Mcp(McpCommand),
    /// List, search or delete long-term memories (this workspace's and the global ones).
    #[command(subcommand)]
    Memory(MemoryCommand),
    /// Scheduled jobs of this workspace: list, add, remove, and the scheduler that runs
    /// them (`loom cron run`).
    #[command(subcommand)]
    Cron(CronCommand),
    /// Serve Loom as an MCP server on stdin/stdout, for other agents (Claude Code, Codex):
    /// a `loom` tool runs a task in a new session, `loom-reply` continues one.
    ///
    /// --approval is the most a call may ask for (a call's default is supervised); nobody
    /// can approve anything, so whatever would ask is refused and the model is told. A
    /// call's `cwd` must be inside the workspace (-C, default the current directory).
    McpServer,
    /// Serve the Agent Client Protocol on stdin/stdout, for editors (Zed, Neovim's
    /// CodeCompanion): each session is a Loom session of the workspace the editor names,
    /// supervised by default; see docs/editors.md.
    Acp,
}

/// `loom cron ...`
#[derive(Debug, Subcommand)]
pub enum CronCommand {
    /// The workspace's jobs: id, schedule, approval mode, prompt, next run, last run
    /// (outcome and session) and missed runs.
    List {
        /// Print them as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Add a job: SCHEDULE is five cron fields in local time ("0 3 * * *") or @hourly,
    /// @daily, @weekly, @monthly, @yearly. It runs with --approval MODE (default
    /// read-only), headless: what would need a person is refused.
    Add {
        /// When to run, e.g. "30 2 * * 1-5" or @daily.
        schedule: String,
        /// The task, as for `loom exec`.
        prompt: String,
    },
    /// Remove a job by id.
    Rm {
        /// The job's id (as `loom cron list` shows it).
        id: String,
    },
    /// Run due jobs in the foreground until stopped (Ctrl+C, SIGTERM): one at a time, each
    /// as a headless session visible in `loom sessions`; runs missed while no scheduler
    /// ran are reported, not replayed. One scheduler per workspace.
    Run,
}

/// `loom mcp ...`
#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// Start every enabled server, then print each one's status and tools.
    ///
    /// Exit code 0 when every enabled server is ready, 1 when one failed.
    List {
        /// Print the status as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Start one server, call one of its tools and print the result as JSON.
    ///
    /// The person typing is the approver, so nothing asks; the server's `deny` list still
    /// applies. Exit code 0 when the tool succeeded, 1 when it returned an error or the
    /// server failed, 2 for bad usage.
    Call {
        /// The server's name, as in [mcp_servers.NAME].
        server: String,
        /// The tool's name on that server.
        tool: String,
        /// Arguments as a JSON object, e.g. '{"timezone": "Europe/Paris"}'.
        #[arg(long, default_value = "{}")]
        args: String,
    },
}

/// `loom memory ...`
#[derive(Debug, Subcommand)]
pub enum MemoryCommand {
    /// The newest memories of this workspace and the global scope.
    List {
        /// Print them as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Memories matching some keywords, best first.
    Search {
        /// The keywords.
        query: String,
        /// Print them as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Delete a memory by key (of this workspace; --global for a global one).
    Rm {
        /// The key.
        key: String,
        /// Delete the global memory of that key.
        #[arg(long)]
        global: bool,
    },
}

/// `loom policy ...`
#[derive(Debug, Subcommand)]
pub enum PolicyCommand {
    /// Say how risky a command is, why, and what Loom would do with it in the current
    /// approval mode (`--approval` to try another).
    Check {
        /// The command line, e.g. "rm -rf build && cargo test".
        command: String,
        /// Print the level, reason, decision and every segment as JSON.
        #[arg(long)]
        json: bool,
    },
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

impl GlobalArgs {
    /// The flag layer of the configuration.
    pub fn flag_config(&self) -> crate::config::FlagConfig {
        crate::config::FlagConfig {
            base_url: self.base_url.clone(),
            model: self.model.clone(),
            api_key_env: self.api_key_env.clone(),
            approval: self.approval.clone(),
            theme: self.theme.clone(),
            sandbox: self.sandbox.clone(),
            auto_commit: self.auto_commit,
            inline: self.inline,
            config_file: self.config.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::error::ErrorKind;

    use super::*;

    fn parse(argv: &[&str]) -> Cli {
        Cli::try_parse_args(argv).unwrap_or_else(|e| panic!("{argv:?}: {e}"))
    }

    fn exec_prompt(cli: &Cli) -> &str {
        match &cli.command {
            Some(Command::Exec { prompt, .. }) => prompt,
            other => panic!("not exec: {other:?}"),
        }
    }

    #[test]
    fn global_flags_before_the_subcommand_are_accepted() {
        let cli = parse(&["loom", "--config", "F.toml", "exec", "do it"]);
        assert_eq!(cli.global.config, Some(PathBuf::from("F.toml")));
        assert_eq!(exec_prompt(&cli), "do it");
        assert_eq!(cli.prompt, None);

        let cli = parse(&[
            "loom",
            "-C",
            "/w",
            "--model",
            "m",
            "--approval",
            "full-auto",
            "exec",
            "--json",
            "x",
        ]);
        assert_eq!(cli.global.cd, Some(PathBuf::from("/w")));
        assert_eq!(cli.global.model.as_deref(), Some("m"));
        assert_eq!(cli.global.approval.as_deref(), Some("full-auto"));
        assert!(matches!(
            cli.command,
            Some(Command::Exec { json: true, .. })
        ));
    }

    #[test]
    fn global_flags_after_the_subcommand_are_accepted() {
        let cli = parse(&["loom", "exec", "--config", "F.toml", "do it"]);
        assert_eq!(cli.global.config, Some(PathBuf::from("F.toml")));
        assert_eq!(exec_prompt(&cli), "do it");

        let cli = parse(&["loom", "exec", "do it", "--model", "m"]);
        assert_eq!(cli.global.model.as_deref(), Some("m"));

        let cli = parse(&["loom", "tool", "run", "read_file", "-C", "/w"]);
        assert_eq!(cli.global.cd, Some(PathBuf::from("/w")));
    }

    #[test]
    fn global_flags_alone_open_the_assistant() {
        let cli = parse(&["loom", "--model", "m"]);
        assert_eq!(cli.global.model.as_deref(), Some("m"));
        assert!(cli.command.is_none() && cli.prompt.is_none());
    }

    #[test]
    fn a_bare_prompt_opens_the_assistant_with_it() {
        let cli = parse(&["loom", "fix the failing test"]);
        assert_eq!(cli.prompt.as_deref(), Some("fix the failing test"));
        assert!(cli.command.is_none());

        let cli = parse(&["loom", "--theme", "light", "fix it", "--continue"]);
        assert_eq!(cli.prompt.as_deref(), Some("fix it"));
        assert_eq!(cli.global.theme.as_deref(), Some("light"));
        assert!(cli.global.continue_last);
    }

    #[test]
    fn a_prompt_named_like_a_subcommand_goes_after_double_dash() {
        let cli = parse(&["loom", "--", "exec"]);
        assert_eq!(cli.prompt.as_deref(), Some("exec"));
        assert!(cli.command.is_none());
    }

    #[test]
    fn a_prompt_and_a_subcommand_together_are_refused() {
        for argv in [
            &["loom", "fix it", "exec", "x"][..],
            &["loom", "--model", "m", "hi", "models"],
        ] {
            let err = Cli::try_parse_args(argv).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::ArgumentConflict, "{argv:?}");
            assert!(err.use_stderr());
            let text = err.to_string();
            assert!(text.contains("cannot be combined"), "{text}");
            assert!(text.contains("quote a message"), "{text}");
        }
    }

    #[test]
    fn subcommand_flags_stay_with_their_subcommand() {
        let err = Cli::try_parse_args(["loom", "--json", "exec", "x"]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::UnknownArgument);
        let err = Cli::try_parse_args(["loom", "exec"]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::MissingRequiredArgument);
    }

    #[test]
    fn resume_and_continue_conflict_wherever_they_are_given() {
        let err = Cli::try_parse_args(["loom", "--resume", "abc", "exec", "--continue", "x"])
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ArgumentConflict);
    }

    #[test]
    fn fork_conflicts_with_resume_and_continue_wherever_they_are_given() {
        for args in [
            &["loom", "--fork", "abc@2", "exec", "--resume", "d", "x"][..],
            &["loom", "--continue", "exec", "--fork", "abc", "x"][..],
        ] {
            let err = Cli::try_parse_args(args).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::ArgumentConflict, "{args:?}");
        }
        let cli = parse(&["loom", "exec", "--fork", "abc@2", "x"]);
        assert_eq!(cli.global.fork.as_deref(), Some("abc@2"));
    }

    #[test]
    fn a_flag_given_on_both_sides_of_the_subcommand_takes_the_later_value() {
        let cli = parse(&["loom", "--model", "a", "exec", "--model", "b", "x"]);
        assert_eq!(cli.global.model.as_deref(), Some("b"));
    }

    #[test]
    fn help_and_version_are_not_failures() {
        for flag in ["--help", "--version"] {
            let err = Cli::try_parse_args(["loom", flag]).unwrap_err();
            assert!(!err.use_stderr(), "{flag}");
        }
    }

    #[test]
    fn the_command_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
