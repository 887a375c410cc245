//! `loom-shell`, Loom's command risk classification: what a shell command line may do, in words a person can
//! read, so approvals ask about what matters and never about `ls`.
//!
//! The rule is "safe by proof". The command is parsed properly ([`parse`]: quotes,
//! escapes, lists, pipelines, subshells, substitutions, heredocs) and every decoding a
//! shell could produce is judged ([`decode`]: line continuations, brace expansion). Every
//! simple command gets a [`Risk`] with a reason ([`programs`]): a segment is read-only (or
//! low) only when its program is in Loom's tables AND every option and operand is
//! recognised as safe for it ([`options`]); an unrecognised option makes it at least
//! medium, naming the option. Programs that interpret a language are judged by what they
//! run (`sh -c`, `eval`, `find -exec`, `xargs`, `env -S`, awk and sed scripts); where that
//! cannot be known they ask. Assignments that change what programs load ([`vars`]) make a
//! segment high; so do reads of protected paths ([`place`]). Syntax whose effect cannot
//! be seen statically (aliases, `trap`, `eval` of run-time text, expanding heredocs,
//! globbed or ANSI-C-quoted command names) asks. Some shapes are forbidden outright:
//! `rm -rf` of `/`, `~` or the workspace, disk formatting, fork bombs, `curl | sh`, and
//! nesting deeper than Loom analyses.

// Unsafe code lives in `loom-sandbox` only (issue 27); tests may set variables.
#![cfg_attr(not(test), forbid(unsafe_code))]

pub mod coverage;
pub mod decode;
pub mod links;
pub mod options;
pub mod parse;
pub mod place;
pub mod programs;
pub mod vars;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use loom_base::paths::ForbiddenRule;
use parse::{Script, SimpleCommand, Word};
pub use place::{Place, normalize, place};

pub use loom_protocol::risk::Risk;

/// One simple command's verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Segment {
    /// The command as parsed (words joined).
    pub command: String,
    /// Where in the line it sits, so a person can see why: `command` at the top level,
    /// else the substitution, heredoc, here-string or payload (`sh -c`, `sed e`) it is in.
    #[serde(default)]
    pub part: String,
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
    /// Paths commands must not read (or, for write-only rules, write): the same rules the
    /// file tools obey.
    pub protected: Vec<ForbiddenRule>,
}

impl CommandContext {
    /// Commands run at the workspace root, with the default protected paths.
    pub fn at(workspace: &Path) -> CommandContext {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        CommandContext {
            workspace: workspace.to_path_buf(),
            cwd: workspace.to_path_buf(),
            protected: ForbiddenRule::defaults(home.as_deref()),
            home,
        }
    }
}

/// Longest command analysed; longer ones are refused (nothing about them can be proven).
pub const MAX_COMMAND_BYTES: usize = 256 * 1024;
/// How deep `bash -c '...'` and `eval` nesting is followed; deeper is refused.
pub const MAX_NESTING: usize = 4;

/// Most command lines one classification may judge (every `sh -c` string, substitution,
/// payload and argument searched for a forbidden command counts): payloads nest, and
/// a line built to multiply the work must not stall Loom. Past it the line is refused.
pub const MAX_ANALYSES: usize = 4096;

thread_local! {
    /// Analyses left in the classification running on this thread.
    static ANALYSES_LEFT: std::cell::Cell<usize> = const { std::cell::Cell::new(MAX_ANALYSES) };
}

/// Why a line that exhausted [`MAX_ANALYSES`] is refused.
const TOO_MANY_ANALYSES: &str =
    "the command holds more nested commands than Loom analyses; split it into smaller commands";

/// Count one more analysis against this classification's budget; `false` once it is spent.
fn spend_analysis() -> bool {
    ANALYSES_LEFT.with(|left| {
        let n = left.get();
        left.set(n.saturating_sub(1));
        n > 0
    })
}

/// Classify a command line.
pub fn classify(command: &str, ctx: &CommandContext) -> Classification {
    ANALYSES_LEFT.with(|left| left.set(MAX_ANALYSES));
    let mut c = classify_nested(command, ctx, 0);
    for s in &mut c.segments {
        if s.part.is_empty() {
            s.part = "command".into();
        }
    }
    c
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
        return single(
            command,
            Risk::Forbidden,
            "the command is too long to analyse; split it into smaller commands",
        );
    }
    if !spend_analysis() {
        return single(command, Risk::Forbidden, TOO_MANY_ANALYSES);
    }
    if depth > MAX_NESTING {
        return single(
            command,
            Risk::Forbidden,
            &format!(
                "shell commands nested more than {MAX_NESTING} levels deep (sh -c, eval) cannot \
                 be analysed"
            ),
        );
    }
    let mut result = classify_source(command, ctx, depth);
    let mut extra = Vec::new();
    let joined = decode::join_continuations(command);
    if decode::continuation_inside_word(command) {
        extra.push(seg(
            command,
            Risk::Medium,
            "a backslash-newline splits a word, so the shell runs something other than what \
             is shown",
        ));
    }
    let mut variants: Vec<String> = joined.into_iter().collect();
    for source in [command.to_string()].iter().chain(variants.clone().iter()) {
        match decode::expand_braces(source) {
            Some(Ok(expanded)) => variants.push(expanded),
            Some(Err(())) => extra.push(seg(
                command,
                Risk::Forbidden,
                "brace expansion makes this command too large to analyse; split it into \
                 smaller commands",
            )),
            None => {}
        }
    }
    for variant in variants {
        let decoded = classify_source(&variant, ctx, depth);
        if decoded.level > result.level {
            let mut segments = decoded.segments;
            for s in &mut segments {
                s.reason = format!("as the shell reads it ({variant:?}): {}", s.reason);
                s.grantable = false;
            }
            result = summarize(segments);
        }
    }
    if extra.is_empty() {
        return result;
    }
    result.segments.extend(extra);
    summarize(result.segments)
}

/// Classify one decoding of a command line.
fn classify_source(command: &str, ctx: &CommandContext, depth: usize) -> Classification {
    let Some(script) = parse::parse(command) else {
        return single(command, Risk::Forbidden, "the command could not be parsed");
    };
    let mut state = programs::State::new(ctx.clone());
    state.var_values = programs::var_values::collect(&script);
    let mut segments: Vec<Segment> = Vec::new();
    for (i, cmd) in script.commands.iter().enumerate() {
        let piped_from = piped_input(&script, i, &state.ctx.cwd);
        let mut verdicts = programs::classify_command(cmd, &mut state, depth, piped_from);
        for v in &mut verdicts {
            if v.command.is_empty() {
                v.command = display(cmd);
            }
            if v.part.is_empty() {
                v.part = cmd.part.clone();
            }
        }
        segments.extend(verdicts);
    }
    segments.extend(unseen_parts(&script.coverage, ctx, depth));
    if let Some(reason) = fork_bomb(&script) {
        segments.push(seg(command, Risk::Forbidden, &reason));
    }
    if let Some(reason) = remote_execution(&script) {
        segments.push(seg(command, Risk::Forbidden, &reason));
    }
    if script.coverage.too_many {
        segments.push(seg(command, Risk::Forbidden, TOO_MANY_ANALYSES));
    }
    if script.too_deep {
        segments.push(seg(
            command,
            Risk::Forbidden,
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

/// The substitutions the parser did not produce ([`coverage`]), judged as the commands
/// they hold: at least medium (the parser read that text as plain text, so nothing about
/// it is proven), and never less than what they run.
fn unseen_parts(cov: &coverage::Coverage, ctx: &CommandContext, depth: usize) -> Vec<Segment> {
    let mut out = Vec::new();
    for u in &cov.unseen {
        let inner = classify_nested(&u.command, ctx, depth + 1);
        let part = format!("substitution {} (read as plain text by the parser)", u.text);
        let mut s = seg(
            &u.text,
            Risk::Medium,
            &format!(
                "`{}` runs a command where the parser saw plain text, so it asks",
                u.text
            ),
        );
        s.part = part.clone();
        if inner.level > s.level {
            s.level = inner.level;
            s.reason = format!("{} runs: {}", u.text, inner.reason);
        }
        out.push(s);
        out.extend(inner.segments.into_iter().map(|mut n| {
            if n.part.is_empty() {
                n.part = part.clone();
            }
            n.grantable = false;
            n
        }));
    }
    for at in &cov.unreadable {
        let mut s = seg(
            "",
            Risk::Medium,
            &format!(
                "a command substitution at character {} has no end Loom can find, so what \
                 it runs is unknown",
                at + 1
            ),
        );
        s.part = "unreadable substitution".into();
        out.push(s);
    }
    for text in &cov.backticks {
        let inner = classify_nested(text, ctx, depth + 1);
        out.extend(inner.segments.into_iter().map(|mut n| {
            n.reason = format!("as the shell reads the backticks (`{text}`): {}", n.reason);
            if n.part.is_empty() {
                n.part = format!("backtick substitution `{text}`");
            }
            n.grantable = false;
            n
        }));
    }
    out
}

/// For command `i`, the literal text the previous pipeline stage prints when that stage is
/// a plain `echo` or `printf` (so `echo 'rm -rf /' | sh` is judged by what sh will run),
/// or `pwd` (the working directory `cwd`: `pwd | xargs rm -rf` deletes it).
fn piped_input(script: &Script, i: usize, cwd: &std::path::Path) -> Option<programs::PipedInput> {
    for stages in &script.pipelines {
        let Some(pos) = stages.iter().position(|s| s.first() == Some(&i)) else {
            continue;
        };
        if pos == 0 {
            return None;
        }
        let prev = &stages[pos - 1];
        let [only] = prev.as_slice() else {
            return Some(programs::PipedInput::Unknown);
        };
        let producer = &script.commands[*only];
        let name = program_of(producer);
        let args = producer.words.get(1..).unwrap_or(&[]);
        if let Some(stdin) = &producer.stdin
            && name.as_deref() == Some("cat")
            && args.iter().all(|w| w.text == "-")
        {
            return Some(if stdin.expands {
                programs::PipedInput::Built(stdin.text.clone())
            } else {
                programs::PipedInput::Text(stdin.text.clone())
            });
        }
        if name.as_deref() == Some("pwd")
            && args.iter().all(|w| matches!(w.text.as_str(), "-L" | "-P"))
        {
            return Some(programs::PipedInput::Text(cwd.display().to_string()));
        }
        if name.as_deref() == Some("printf")
            && args.iter().all(|w| !w.dynamic)
            && let Some(text) = printf_output(args)
        {
            return Some(programs::PipedInput::Text(text));
        }
        if matches!(name.as_deref(), Some("echo" | "printf")) && args.iter().all(|w| !w.dynamic) {
            let text: Vec<&str> = args
                .iter()
                .map(|w| w.text.as_str())
                .filter(|t| !matches!(*t, "-n" | "-e" | "-E"))
                .collect();
            let text = text.join(" ");
            // With a backslash, what is printed depends on the shell (dash's `echo`
            // decodes escapes, bash's does not) and on the escapes: judged decoded, as
            // text Loom does not know for sure.
            return Some(if text.contains('\\') {
                programs::PipedInput::Built(decode::decode_escapes(&text))
            } else {
                programs::PipedInput::Text(text)
            });
        }
        return Some(programs::PipedInput::Unknown);
    }
    None
}

/// What `printf FORMAT ARG...` prints, for the formats Loom can read: the escapes `\n`,
/// `\t`, `\\`, `\"`, `\'`, and `%s`, `%b`, `%%` directives (the format repeats while
/// arguments are left, as printf does). `None` for any other directive or escape.
fn printf_output(args: &[Word]) -> Option<String> {
    let (format, mut rest) = args.split_first()?;
    let format = format.text.as_str();
    let mut out = String::new();
    for _ in 0..256 {
        let mut used = false;
        let mut chars = format.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => out.push(match chars.next()? {
                    'n' => '\n',
                    't' => '\t',
                    c @ ('\\' | '"' | '\'') => c,
                    _ => return None,
                }),
                '%' => match chars.next()? {
                    '%' => out.push('%'),
                    's' | 'b' => {
                        used = true;
                        if let Some((arg, left)) = rest.split_first() {
                            out.push_str(&arg.text);
                            rest = left;
                        }
                    }
                    _ => return None,
                },
                c => out.push(c),
            }
        }
        if rest.is_empty() || !used {
            return Some(out);
        }
    }
    None
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
        part: String::new(),
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

/// Programs that run what they read as code, beside the interpreters: fed a download,
/// they run it.
const CODE_READERS: &[&str] = &[
    "make", "gmake", "crontab", "at", "batch", "tclsh", "wish", "Rscript", "R", "julia", "pypy",
    "pypy3", "luajit", "tsx", "ts-node", "busybox",
];
/// Programs that run another program named among their words (`env sh`, `xargs sh -c`).
const RUNNERS: &[&str] = &[
    "env", "xargs", "nohup", "nice", "timeout", "stdbuf", "setsid", "command", "exec", "time",
    "doas", "su", "sg", "flock", "watch", "busybox", "ionice", "chrt", "taskset",
];

/// Whether command `i` runs what it reads as code: an interpreter, a program that reads
/// code (`make -f -`, `crontab -`), or a runner of one (`env sh`, `xargs -0 sh -c`).
fn runs_input_as_code(script: &Script, i: usize) -> bool {
    let Some(p) = program_of(&script.commands[i]) else {
        return false;
    };
    if is_interpreter(&p) || CODE_READERS.contains(&p.as_str()) {
        return true;
    }
    RUNNERS.contains(&p.as_str())
        && script.commands[i].words.iter().skip(1).any(|w| {
            let name = basename(&w.text);
            is_interpreter(name) || CODE_READERS.contains(&name)
        })
}

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
            if fetched && stage.iter().any(|&i| runs_input_as_code(script, i)) {
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

#[cfg(test)]
#[path = "commands_table.rs"]
mod table;

#[cfg(test)]
#[path = "proof_table.rs"]
mod proof_table;

#[cfg(test)]
#[path = "substitution_table.rs"]
mod substitution_table;

#[cfg(test)]
#[path = "rated_too_low_table.rs"]
mod rated_too_low_table;
#[cfg(test)]
#[path = "red_team3_table.rs"]
mod red_team3_table;
