//! Command risk classification: what a shell command line may do, in words a person can
//! read, so approvals ask about what matters and never about `ls`.
//!
//! The command is parsed properly ([`parse`]: quotes, escapes, lists, pipelines,
//! subshells, substitutions, heredocs), wrappers are seen through (`sudo`, `env`,
//! `command`, `xargs`, `nice`, `timeout`, `bash -c '...'`, absolute paths, `\rm`), and
//! every simple command gets a [`Risk`] with a reason ([`programs`]). The command's level
//! is its worst segment's. Writes hidden in syntax count: redirects, `tee`, heredocs into
//! files, `sed -i`, `find -delete`, `xargs rm`. Some shapes are forbidden outright: `rm -rf`
//! of `/`, `~` or the workspace, disk formatting, fork bombs, `curl | sh`.

pub mod parse;
pub mod programs;

use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use parse::{Script, SimpleCommand, Word};

/// How risky a command is, from harmless to never allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Risk {
    /// Only reads.
    ReadOnly,
    /// Builds or tests inside the workspace.
    Low,
    /// Writes inside the workspace, installs packages, changes git state.
    Medium,
    /// Deletes trees, changes permissions, uses the network, runs as root, writes outside.
    High,
    /// Never run: destroys the system or runs code from the network.
    Forbidden,
}

impl Risk {
    /// The name used in JSON and prompts.
    pub fn as_str(self) -> &'static str {
        match self {
            Risk::ReadOnly => "read-only",
            Risk::Low => "low",
            Risk::Medium => "medium",
            Risk::High => "high",
            Risk::Forbidden => "forbidden",
        }
    }
}

impl std::fmt::Display for Risk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One simple command's verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Segment {
    /// The command as parsed (words joined).
    pub command: String,
    /// Its level.
    pub level: Risk,
    /// Why.
    pub reason: String,
    /// The prefix a session grant would record (`["cargo", "test"]`).
    #[serde(skip)]
    pub prefix: Vec<String>,
    /// Whether it uses the network.
    #[serde(skip)]
    pub network: bool,
    /// The words of the program actually run (wrappers such as `sudo` or `timeout` removed),
    /// for matching approval rules.
    #[serde(skip)]
    pub argv: Vec<String>,
    /// Whether a session grant for the program's prefix may cover this segment. False
    /// when the risk comes from a redirect (`echo x > f`): granting `echo` would let any
    /// later `echo … > file` through.
    #[serde(skip)]
    pub grantable: bool,
}

/// The whole command's verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Classification {
    /// The worst segment's level.
    pub level: Risk,
    /// The worst segment's reason.
    pub reason: String,
    /// Every segment, in source order.
    pub segments: Vec<Segment>,
}

impl Classification {
    /// Whether any segment uses the network.
    pub fn uses_network(&self) -> bool {
        self.segments.iter().any(|s| s.network)
    }
}

/// Where the command would run.
#[derive(Debug, Clone)]
pub struct CommandContext {
    /// Workspace root (canonical).
    pub workspace: PathBuf,
    /// Working directory.
    pub cwd: PathBuf,
    /// The user's home directory.
    pub home: Option<PathBuf>,
}

impl CommandContext {
    /// Commands run at the workspace root.
    pub fn at(workspace: &Path) -> CommandContext {
        CommandContext {
            workspace: workspace.to_path_buf(),
            cwd: workspace.to_path_buf(),
            home: std::env::var_os("HOME").map(PathBuf::from),
        }
    }
}

/// Longest command analysed; longer ones are treated as high risk.
pub const MAX_COMMAND_BYTES: usize = 256 * 1024;
/// How deep `bash -c '...'` nesting is followed.
const MAX_NESTING: usize = 4;

/// Classify a command line.
pub fn classify(command: &str, ctx: &CommandContext) -> Classification {
    classify_nested(command, ctx, 0)
}

fn classify_nested(command: &str, ctx: &CommandContext, depth: usize) -> Classification {
    if command.trim().is_empty() {
        return Classification {
            level: Risk::ReadOnly,
            reason: "the command is empty".into(),
            segments: Vec::new(),
        };
    }
    if command.len() > MAX_COMMAND_BYTES {
        return single(command, Risk::High, "the command is too long to analyse");
    }
    if depth > MAX_NESTING {
        return single(
            command,
            Risk::High,
            "shell commands nested too deeply to analyse",
        );
    }
    let Some(script) = parse::parse(command) else {
        return single(command, Risk::High, "the command could not be parsed");
    };
    let mut state = programs::State::new(ctx.clone());
    let mut segments: Vec<Segment> = Vec::new();
    for (i, cmd) in script.commands.iter().enumerate() {
        let mut verdicts = programs::classify_command(cmd, &mut state, depth);
        for v in &mut verdicts {
            if v.command.is_empty() {
                v.command = display(cmd);
            }
        }
        let _ = i;
        segments.extend(verdicts);
    }
    if let Some(reason) = fork_bomb(&script) {
        segments.push(seg(command, Risk::Forbidden, &reason));
    }
    if let Some(reason) = remote_execution(&script) {
        segments.push(seg(command, Risk::Forbidden, &reason));
    }
    if script.too_deep {
        segments.push(seg(
            command,
            Risk::High,
            "the command is nested too deeply to analyse",
        ));
    }
    if script.has_errors {
        segments.push(seg(
            command,
            Risk::Medium,
            "part of the command could not be parsed, so it may do more than it shows",
        ));
    }
    summarize(segments)
}

/// The joined words of a command, for display.
pub fn display(cmd: &SimpleCommand) -> String {
    if cmd.words.is_empty() {
        return cmd.text.clone();
    }
    cmd.words
        .iter()
        .map(|w| {
            if w.text.contains(' ') || w.text.is_empty() {
                format!("{:?}", w.text)
            } else {
                w.text.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn seg(command: &str, level: Risk, reason: &str) -> Segment {
    Segment {
        command: command.to_string(),
        level,
        reason: reason.to_string(),
        prefix: Vec::new(),
        network: false,
        argv: Vec::new(),
        grantable: false,
    }
}

fn single(command: &str, level: Risk, reason: &str) -> Classification {
    summarize(vec![seg(command, level, reason)])
}

fn summarize(segments: Vec<Segment>) -> Classification {
    let worst = segments
        .iter()
        .map(|s| s.level)
        .max()
        .unwrap_or(Risk::ReadOnly);
    let reason = segments
        .iter()
        .find(|s| s.level == worst)
        .map(|s| s.reason.clone())
        .unwrap_or_else(|| "nothing to run".into());
    Classification {
        level: worst,
        reason,
        segments,
    }
}

/// Program name of a command after wrappers (basename, lowercased ASCII).
fn program_of(cmd: &SimpleCommand) -> Option<String> {
    let first = cmd.words.first()?;
    if first.dynamic {
        return None;
    }
    Some(basename(&first.text).to_string())
}

/// The last path component of a program name.
pub fn basename(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

/// A function whose body runs itself in a pipeline or in the background: `:(){ :|:& };:`.
fn fork_bomb(script: &Script) -> Option<String> {
    for (name, body) in &script.functions {
        let calls_self = body
            .iter()
            .filter(|&&i| program_of(&script.commands[i]).as_deref() == Some(name.as_str()))
            .count();
        if calls_self >= 2
            || (calls_self >= 1 && body.iter().any(|i| script.background.contains(i)))
        {
            return Some(format!(
                "defines `{name}` to start copies of itself (a fork bomb) and would exhaust the system"
            ));
        }
    }
    None
}

const FETCHERS: &[&str] = &[
    "curl", "wget", "fetch", "aria2c", "nc", "ncat", "netcat", "http", "xh",
];
const INTERPRETERS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "python", "python2", "python3",
    "perl", "ruby", "node", "php", "lua", "deno", "bun", "source", ".", "eval", "sudo", "pwsh",
];

fn is_fetcher(script: &Script, i: usize) -> bool {
    program_of(&script.commands[i]).is_some_and(|p| FETCHERS.contains(&p.as_str()))
}

fn is_interpreter(name: &str) -> bool {
    INTERPRETERS.contains(&name) || name.starts_with("python")
}

/// Code downloaded and run: `curl … | sh`, `sh <(curl …)`, `bash -c "$(wget -O- …)"`.
fn remote_execution(script: &Script) -> Option<String> {
    for stages in &script.pipelines {
        let mut fetched = false;
        for stage in stages {
            if fetched
                && stage
                    .iter()
                    .any(|&i| program_of(&script.commands[i]).is_some_and(|p| is_interpreter(&p)))
            {
                return Some(
                    "downloads code from the network and runs it (`curl | sh`)".to_string(),
                );
            }
            fetched |= stage.iter().any(|&i| is_fetcher(script, i));
        }
    }
    for cmd in &script.commands {
        let Some(p) = program_of(cmd) else { continue };
        if !is_interpreter(&p) {
            continue;
        }
        let feeds_download = cmd
            .words
            .iter()
            .skip(1)
            .chain(cmd.redirects.iter().map(|r| &r.target))
            .any(|w: &Word| w.inner.iter().any(|&i| is_fetcher(script, i)));
        if feeds_download {
            return Some(format!("runs code downloaded from the network with `{p}`"));
        }
    }
    None
}

/// Where a path argument points, relative to the workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// Inside the workspace (not its root).
    Inside(PathBuf),
    /// The workspace root itself (or everything in it).
    WorkspaceRoot,
    /// The filesystem root, `/*`, or the home directory.
    SystemRoot(String),
    /// A block device or kernel memory.
    Device(String),
    /// `/dev/null` and friends.
    Harmless,
    /// Somewhere else on the system.
    Outside(PathBuf),
    /// Only known at run time.
    Unknown,
}

/// Resolve a path word the way the command would see it.
pub fn place(word: &Word, ctx: &CommandContext) -> Place {
    let text = word.text.as_str();
    let home_var = ["$HOME", "${HOME}"]
        .iter()
        .find_map(|v| text.strip_prefix(v));
    let expanded: PathBuf = if let Some(rest) = home_var {
        match &ctx.home {
            Some(h) => h.join(rest.trim_start_matches('/')),
            None => return Place::Unknown,
        }
    } else if word.dynamic {
        if let Some(rest) = ["$PWD", "${PWD}"].iter().find_map(|v| text.strip_prefix(v)) {
            ctx.cwd.join(rest.trim_start_matches('/'))
        } else {
            return Place::Unknown;
        }
    } else if text == "~" || text.starts_with("~/") {
        match &ctx.home {
            Some(h) => h.join(text.trim_start_matches('~').trim_start_matches('/')),
            None => return Place::Unknown,
        }
    } else if text.starts_with('~') {
        return Place::Outside(PathBuf::from(text));
    } else {
        ctx.cwd.join(text)
    };
    let path = normalize(&expanded);
    let shown = path.display().to_string();
    if matches!(
        shown.as_str(),
        "/dev/null"
            | "/dev/stdout"
            | "/dev/stderr"
            | "/dev/tty"
            | "/dev/zero"
            | "/dev/random"
            | "/dev/urandom"
    ) || shown.starts_with("/dev/fd/")
        || shown.starts_with("/dev/pts/")
    {
        return Place::Harmless;
    }
    if let Some(dev) = shown.strip_prefix("/dev/") {
        return Place::Device(dev.to_string());
    }
    let glob_all = word.glob && basename(text) == "*";
    let parent_if_glob = if glob_all {
        path.parent().map(Path::to_path_buf)
    } else {
        None
    };
    let target = parent_if_glob.as_deref().unwrap_or(&path);
    if target == Path::new("/") {
        return Place::SystemRoot(if glob_all { "/*".into() } else { "/".into() });
    }
    if ctx.home.as_deref().is_some_and(|h| target == normalize(h))
        && !target.starts_with(&ctx.workspace)
    {
        return Place::SystemRoot("~".into());
    }
    let real = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
    let ws = &ctx.workspace;
    if target == ws.as_path() {
        return Place::WorkspaceRoot;
    }
    if path.starts_with(ws) && real.starts_with(ws) {
        return Place::Inside(path);
    }
    if ctx.home.as_deref().is_some_and(|h| target == normalize(h)) {
        return Place::SystemRoot("~".into());
    }
    Place::Outside(real)
}

/// Lexically normalise `.` and `..` (the path need not exist).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() {
        out.push("/");
    }
    out
}

#[cfg(test)]
#[path = "commands_table.rs"]
mod table;
