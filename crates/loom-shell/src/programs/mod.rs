//! What each program does: the rule table behind [`super::classify`].
//!
//! One function per family of programs, each returning a [`Judgement`]. Wrappers (`sudo`,
//! `env`, `timeout`, `xargs`, `strace`, ...) are peeled off first; `sh -c`, `eval`, `trap`
//! and `alias` strings are classified recursively. Paths are judged with
//! [`super::place`] against the workspace, following `cd` through the command line. A
//! program Loom does not know is medium at least, and its arguments are still searched for
//! a forbidden command it might run (`strace rm -rf /`).

mod awk;
mod build;
mod build_tools;
mod builtins;
mod dev;
mod disks;
mod dispatch;
mod editors;
mod evaluate;
mod files;
mod find;
mod git;
mod git_config;
mod git_repos;
mod git_subcommands;
mod machine;
mod make;
mod package_runners;
mod packages;
mod power;
mod readonly;
mod readonly_table;
mod remote;
mod sed;
mod state;
mod stdin_code;
mod tables;
mod tar;
mod trees;
pub(super) mod var_values;
mod wrappers;
mod written;

pub use state::{PipedInput, State};
use trees::searches_trees;
use trees::{follows_links, reads_tree, reads_tree_through_links};

use super::parse::{SimpleCommand, Word};
use super::place::protected;
use super::{Place, Risk, Segment, basename, classify_nested, display, place};
use loom_base::paths::Access;

/// The verdict on one program invocation.
#[derive(Debug, Clone)]
pub(super) struct Judgement {
    pub(super) level: Risk,
    pub(super) reason: String,
    pub(super) prefix: Vec<String>,
    pub(super) argv: Vec<String>,
    pub(super) network: bool,
    pub(super) nested: Vec<Segment>,
    /// Whether a session grant of the program's prefix may cover calls like this one.
    /// False when the risk comes from something a prefix does not pin down (an
    /// unrecognised option, inline code, a run-time word): granting `rg` after
    /// `rg --zz` would also let `rg --pre ./x` through.
    pub(super) grantable: bool,
}

pub(super) fn judge(level: Risk, reason: impl Into<String>) -> Judgement {
    Judgement {
        level,
        reason: reason.into(),
        prefix: Vec::new(),
        argv: Vec::new(),
        network: false,
        nested: Vec::new(),
        grantable: true,
    }
}

/// A call whose words could not all be proven harmless: medium, and never covered by a
/// session grant.
pub(super) fn unproven(e: super::options::Unproven, program: &str) -> Judgement {
    judge(Risk::Medium, e.reason(program)).ungrantable()
}

impl Judgement {
    pub(super) fn net(mut self) -> Judgement {
        self.network = true;
        self
    }

    /// The same judgement, never covered by a session grant.
    pub(super) fn ungrantable(mut self) -> Judgement {
        self.grantable = false;
        self
    }

    /// Raise to `other` if it is worse; keep the first prefix and argv found.
    pub(super) fn worst(self, other: Judgement) -> Judgement {
        let (hi, lo) = if other.level > self.level {
            (other, self)
        } else {
            (self, other)
        };
        Judgement {
            prefix: if hi.prefix.is_empty() {
                lo.prefix
            } else {
                hi.prefix
            },
            argv: if hi.argv.is_empty() { lo.argv } else { hi.argv },
            network: hi.network || lo.network,
            nested: [lo.nested, hi.nested].concat(),
            grantable: hi.grantable && lo.grantable,
            level: hi.level,
            reason: hi.reason,
        }
    }

    /// Raise to at least `level`, with `reason` when that raises it.
    pub(super) fn at_least(self, level: Risk, reason: impl Into<String>) -> Judgement {
        self.worst(judge(level, reason))
    }
}

/// Classify one simple command into one or more segments.
pub fn classify_command(
    cmd: &SimpleCommand,
    state: &mut State,
    depth: usize,
    piped: Option<PipedInput>,
) -> Vec<Segment> {
    state.chain = cmd.chain;
    state.piped = match &cmd.stdin {
        Some(s) if s.expands => Some(PipedInput::Built(s.text.clone())),
        Some(s) => Some(PipedInput::Text(s.text.clone())),
        None => piped,
    };
    let shown = display(cmd);
    let evaluated = with_known_values(cmd, state);
    let cmd = evaluated.as_ref().unwrap_or(cmd);
    let fed = fed_by_process_substitution(cmd, state);
    let cmd = fed.as_ref().unwrap_or(cmd);
    let redirect = redirects(cmd, state);
    let mut j = if cmd.words.is_empty() {
        judge(Risk::ReadOnly, "only sets variables or redirects")
    } else {
        program(&cmd.words, state, depth, false)
    };
    j = j.worst(var_values::judged_with_values(cmd, state, depth));
    j = j.worst(written::runs_written(cmd, state, depth));
    let j = with_assignments(j, cmd, state, depth);
    let j = expanded_as_code(j, cmd);
    let grantable = redirect.level <= j.level && j.grantable;
    let j = j.worst(redirect);
    written::record(cmd, state);
    state.piped = None;
    let mut out = vec![Segment {
        command: shown,
        part: String::new(),
        level: j.level,
        reason: j.reason,
        prefix: j.prefix,
        network: j.network,
        argv: j.argv,
        grantable,
    }];
    out.extend(j.nested);
    out
}

/// `j`, worse for the command's assignments: a variable a program reads as a command
/// (`GIT_PAGER`, `LD_PRELOAD`, ...) or a value holding code.
fn with_assignments(
    mut j: Judgement,
    cmd: &SimpleCommand,
    state: &mut State,
    depth: usize,
) -> Judgement {
    for a in &cmd.assignments {
        if let Some(reason) = super::vars::dangerous(&a.name) {
            j = j.at_least(Risk::High, reason);
            if !a.value.dynamic && state.scan_unknown {
                // `GIT_PAGER='rm -rf ~' git log`: the value is a command the program runs.
                j = j.worst(forbidden_among(
                    std::slice::from_ref(&a.value),
                    state,
                    depth,
                ));
            }
        }
        if a.name == "HISTFILE" {
            // An interactive shell (`bash -i`) truncates and rewrites its history file:
            // `HISTFILE=~/.bashrc` is a write of that file.
            j = j.worst(writes_at(
                &a.value,
                state,
                "has the shell rewrite its history file at",
            ));
        }
        if matches!(a.name.as_str(), "HOME" | "PWD" | "OLDPWD") {
            state.home_or_pwd_set = true;
        }
        j = j.worst(code_in_value(&a.name, &a.value, state, depth));
    }
    j
}

/// `j`, worse for words that expand a variable's value as code (`${x@P}`, `${!x}`) and
/// for a heredoc with an unquoted delimiter.
fn expanded_as_code(mut j: Judgement, cmd: &SimpleCommand) -> Judgement {
    let words = cmd
        .words
        .iter()
        .chain(cmd.redirects.iter().map(|r| &r.target));
    for w in words.chain(cmd.assignments.iter().map(|a| &a.value)) {
        if w.subs.iter().any(|s| expands_value_as_code(&s.source)) {
            j = j.worst(
                judge(
                    Risk::Medium,
                    format!(
                        "`{}` expands a variable's value as code (prompt expansion or an \
                         indirect name), which runs substitutions in it",
                        w.text
                    ),
                )
                .ungrantable(),
            );
        }
    }
    if cmd.heredoc_expands {
        j = j.worst(
            judge(
                Risk::Medium,
                "the heredoc's delimiter is unquoted, so `$(...)` and `${...}` in its text run \
                 when the command does",
            )
            .ungrantable(),
        );
    }
    j
}

/// `sh < <(echo CODE)`, `bash <(echo CODE)`, `source <(printf CODE)`: a process
/// substitution read as the command's input, or as the one file it is given, feeds it
/// what its command prints, exactly as `echo CODE | sh` does. The input is set to that
/// text when Loom knows it (else, for `< <(CMD)`, to another program's output), and the
/// file argument is written `-`, so every rule for "runs its input" judges the text.
/// Returns the command with the argument replaced, if one was.
fn fed_by_process_substitution(cmd: &SimpleCommand, state: &mut State) -> Option<SimpleCommand> {
    let is_input = |w: &Word| w.text.starts_with("<(");
    if let Some(r) = cmd
        .redirects
        .iter()
        .rev()
        .find(|r| matches!(r.op.as_str(), "<" | "<>") && is_input(&r.target))
    {
        if cmd.stdin.is_none() {
            state.piped = Some(match evaluate::process_output(&r.target, state) {
                Some(text) => PipedInput::Text(text),
                None => PipedInput::Unknown,
            });
        }
        return None;
    }
    if state.piped.is_some() {
        return None;
    }
    let mut inputs = cmd
        .words
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(_, w)| is_input(w));
    let (at, w) = inputs.next()?;
    if inputs.next().is_some() {
        return None;
    }
    let text = evaluate::process_output(w, state)?;
    state.piped = Some(PipedInput::Text(text));
    let mut out = cmd.clone();
    out.words[at] = Word::literal("-");
    Some(out)
}

/// `${x@P}` (prompt expansion) and `${!x}` (indirection, which evaluates a subscript in
/// x's value) run command substitutions held in a variable's value.
fn expands_value_as_code(source: &str) -> bool {
    source.starts_with("${") && (source.contains("@P") || source.starts_with("${!"))
}

/// A variable set to literal text holding a substitution (`x='a[$(rm -rf *)]'`): bash runs
/// it wherever the variable is read as code, which arithmetic does without `eval`
/// (`$((x))`, `(( x ))`, `[[ $x -eq 1 ]]`). The text is judged as a command, and asks.
fn code_in_value(name: &str, value: &Word, state: &State, depth: usize) -> Judgement {
    if value.dynamic || !(value.text.contains("$(") || value.text.contains('`')) {
        return judge(Risk::ReadOnly, "a plain value");
    }
    judge(
        Risk::Medium,
        format!(
            "the value of {name} holds a command substitution, which runs wherever the \
             variable is read as code (eval, arithmetic)"
        ),
    )
    .ungrantable()
    .worst(nested(
        &format!(": {}", value.text),
        state,
        depth,
        &format!("the value of {name}"),
    ))
}

/// `cmd` with the substitutions whose values Loom knows replaced by those values
/// ([`evaluate`]), or `None` when there are none.
fn with_known_values(cmd: &SimpleCommand, state: &State) -> Option<SimpleCommand> {
    let words = evaluate::resolve(&cmd.words, state);
    let mut redirects = cmd.redirects.clone();
    let mut changed = words.is_some();
    for r in &mut redirects {
        if let Some(mut values) = evaluate::resolve(std::slice::from_ref(&r.target), state)
            && values.len() == 1
        {
            r.target = values.remove(0);
            changed = true;
        }
    }
    changed.then(|| SimpleCommand {
        words: words.unwrap_or_else(|| cmd.words.clone()),
        redirects,
        ..cmd.clone()
    })
}

pub(super) fn redirects(cmd: &SimpleCommand, state: &State) -> Judgement {
    let mut j = judge(Risk::ReadOnly, "reads only");
    for r in &cmd.redirects {
        if r.writes() {
            j = j.worst(writes_at(&r.target, state, "writes"));
        } else if matches!(r.op.as_str(), "<" | "<>") {
            j = j.worst(reads(&r.target, state));
        }
    }
    j
}

/// The worst of judging each path `w` may name (see [`State::alternatives`]).
pub(super) fn worst_over(
    w: &Word,
    state: &State,
    judge_one: impl Fn(&Word, &Place) -> Judgement,
) -> Judgement {
    let mut alternatives = state.alternatives(w).into_iter();
    let first = alternatives.next().unwrap_or_else(|| w.clone());
    let mut j = judge_one(w, &state.place(&first));
    for alt in alternatives {
        j = j.worst(judge_one(&alt, &place(&alt, &state.ctx)));
    }
    j
}

/// The risk of writing (or deleting, per `verb`) at `p`.
pub(super) fn write_to(p: &Place, shown: &str, verb: &str) -> Judgement {
    match p {
        Place::Harmless => judge(Risk::ReadOnly, "writes to a harmless device"),
        Place::Inside(_) | Place::WorkspaceRoot => {
            judge(Risk::Medium, format!("{verb} {shown} in the workspace"))
        }
        Place::Outside(path) => judge(
            Risk::High,
            format!("{verb} outside the workspace ({})", path.display()),
        ),
        Place::SystemRoot(s) => judge(Risk::High, format!("{verb} {s}")),
        Place::Device(d) => judge(
            Risk::Forbidden,
            format!("{verb} the device /dev/{d}, which can destroy a disk"),
        ),
        Place::Unknown => judge(
            Risk::High,
            format!("{verb} {shown}, a path only known at run time"),
        ),
    }
}

/// Writing at a path word: where it is, and whether it is protected (`.git/`, `.loom/`,
/// credentials).
pub(super) fn writes_at(w: &Word, state: &State, verb: &str) -> Judgement {
    worst_over(w, state, |alt, p| {
        if let Place::Outside(path) = p
            && let Some(reason) = power::power_file(&path.to_string_lossy())
        {
            return judge(Risk::Forbidden, reason);
        }
        let j = write_to(p, &alt.text, verb);
        match protected(alt, &state.ctx, Access::Write) {
            Some(reason) => j.at_least(Risk::High, reason),
            None => j,
        }
    })
}

/// Reading a path word: harmless, unless it names a protected path (high) or is only known
/// at run time (medium: it could name one).
pub(super) fn reads(w: &Word, state: &State) -> Judgement {
    if w.text.starts_with("<(") || w.text.starts_with(">(") {
        return judge(
            Risk::ReadOnly,
            "reads a process substitution (its command is judged on its own)",
        );
    }
    if state.depends_on_moved_variables(w) {
        return judge(
            Risk::Medium,
            format!(
                "reads {}, a path through HOME or PWD, which this command line changes",
                w.text
            ),
        )
        .ungrantable();
    }
    for alt in state.alternatives(w) {
        if let Some(reason) = protected(&alt, &state.ctx, Access::Read) {
            return judge(Risk::High, reason);
        }
    }
    if state.cwd_unknown && !w.dynamic && !w.text.starts_with(['/', '~', '$']) {
        return judge(
            Risk::Medium,
            format!(
                "reads {} from a directory only known at run time, which could hold protected \
                 files",
                w.text
            ),
        )
        .ungrantable();
    }
    let fixed_home = ["$HOME", "${HOME}", "$PWD", "${PWD}"]
        .iter()
        .any(|p| w.text.starts_with(p) && !w.text[p.len()..].contains('$'));
    if w.dynamic && !fixed_home {
        return judge(
            Risk::Medium,
            format!(
                "reads {}, a path only known at run time that could be a protected file",
                w.text
            ),
        )
        .ungrantable();
    }
    if let Place::Device(d) = place(w, &state.ctx) {
        return judge(Risk::High, format!("reads the device /dev/{d} directly"));
    }
    judge(Risk::ReadOnly, "reads files")
}

pub(super) fn is_flag(w: &Word) -> bool {
    w.text.starts_with('-') && w.text.len() > 1 && !w.dynamic
}

/// Whether a short flag letter or a long flag is present.
pub(super) fn has_flag(args: &[Word], short: char, long: &str) -> bool {
    args.iter().take_while(|w| w.text != "--").any(|w| {
        if let Some(l) = w.text.strip_prefix("--") {
            !long.is_empty() && (l == long || l.starts_with(&format!("{long}=")))
        } else if let Some(s) = w.text.strip_prefix('-') {
            !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric()) && s.contains(short)
        } else {
            false
        }
    })
}

pub(super) fn operands(args: &[Word]) -> Vec<&Word> {
    let mut out = Vec::new();
    let mut after_dd = false;
    for w in args {
        if !after_dd && w.text == "--" {
            after_dd = true;
            continue;
        }
        if after_dd || !is_flag(w) {
            out.push(w);
        }
    }
    out
}

/// Deepest chain of programs run by programs (`sudo nice timeout 1 env … rm`) that is
/// followed; each level is a few stack frames, and a line of thousands of wrappers must
/// not overflow the stack (it is refused instead).
pub(super) const MAX_PROGRAM_DEPTH: usize = 64;

thread_local! {
    static PROGRAM_DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// One level of [`program`] recursion on this thread, released when dropped.
struct ProgramDepth;

impl ProgramDepth {
    /// Enter one more level; `None` past [`MAX_PROGRAM_DEPTH`].
    fn enter() -> Option<ProgramDepth> {
        PROGRAM_DEPTH.with(|d| {
            (d.get() < MAX_PROGRAM_DEPTH).then(|| {
                d.set(d.get() + 1);
                ProgramDepth
            })
        })
    }
}

impl Drop for ProgramDepth {
    fn drop(&mut self) {
        PROGRAM_DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
    }
}

/// Classify `words` (program first). `extra_dynamic`: an xargs-style unknown argument list
/// is appended at run time.
pub(super) fn program(
    words: &[Word],
    state: &mut State,
    depth: usize,
    extra_dynamic: bool,
) -> Judgement {
    let Some(first) = words.first() else {
        return judge(Risk::ReadOnly, "nothing to run");
    };
    let Some(_level) = ProgramDepth::enter() else {
        return judge(
            Risk::Forbidden,
            format!(
                "programs wrapped in one another more than {MAX_PROGRAM_DEPTH} deep (`nice nice …`) \
                 cannot be analysed"
            ),
        );
    };
    if first.dynamic {
        return judge(
            Risk::High,
            format!(
                "the program name `{}` is only known at run time",
                first.text
            ),
        );
    }
    if first.glob {
        return wrappers::globbed_program(words, state, depth, extra_dynamic);
    }
    if !first.text.is_ascii() {
        return judge(
            Risk::High,
            format!(
                "the program name `{}` contains non-ASCII characters and may imitate another command",
                first.text
            ),
        );
    }
    let stdin_named = stdin_paths_as_dash(words);
    let words = stdin_named.as_deref().unwrap_or(words);
    let mut j = dispatch::named_program(words, state, depth, extra_dynamic);
    let unproven = !j.grantable || j.level >= Risk::High;
    if j.level >= Risk::Medium && j.level < Risk::Forbidden && unproven && state.scan_unknown {
        j = j.worst(forbidden_among(&words[1..], state, depth));
    }
    j = with_name_marks(j, first);
    let name = basename(&first.text).to_string();
    if j.prefix.is_empty() {
        j.prefix = vec![name.clone()];
    }
    if j.argv.is_empty() {
        j.argv = std::iter::once(name)
            .chain(words[1..].iter().map(|w| w.text.clone()))
            .collect();
    }
    j
}

/// `j`, worse for a program name built at run time (`$(echo rm)`), with ANSI-C quoting
/// or by brace expansion: none of them is covered by a session grant.
fn with_name_marks(mut j: Judgement, first: &Word) -> Judgement {
    if first.ansi_c || first.brace || first.evaluated {
        j = j.ungrantable();
    }
    if first.evaluated {
        j = j.at_least(
            Risk::High,
            format!(
                "the program name `{}` is built by a substitution at run time",
                first.text
            ),
        );
    }
    if first.ansi_c {
        j = j.at_least(
            Risk::Medium,
            format!(
                "the program name is built with ANSI-C quoting (`{}`), which shells read differently",
                first.text
            ),
        );
    }
    if first.brace {
        j = j.at_least(
            Risk::Medium,
            "brace expansion in the program name changes what runs",
        );
    }
    j
}

/// Whether `text` names the standard input as a file.
pub(super) fn is_stdin_path(text: &str) -> bool {
    matches!(
        text,
        "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0" | "/proc/thread-self/fd/0"
    )
}

/// `words` with every argument that names the standard input as a file (`/dev/stdin`,
/// `/dev/fd/0`) written `-`, the name every program's rules already read as "my input":
/// `python3 /dev/stdin <<< CODE`, `make -f /dev/stdin`, `sed -f /dev/fd/0` run the text
/// they are fed exactly as `python3 -`, `make -f -` and `sed -f -` do, and are judged by
/// it. `None` when there is none.
fn stdin_paths_as_dash(words: &[Word]) -> Option<Vec<Word>> {
    if !words
        .iter()
        .skip(1)
        .any(|w| !w.dynamic && is_stdin_path(&w.text))
    {
        return None;
    }
    let mut out = words.to_vec();
    for w in out.iter_mut().skip(1) {
        if !w.dynamic && is_stdin_path(&w.text) {
            *w = Word::literal("-");
        }
    }
    Some(out)
}

/// The worst of judging each suffix of `args` as a command and each argument as a shell
/// command string (or a payload inside one, see [`payloads`]), kept only when forbidden
/// (any other level is already covered by the caller's floor).
pub(super) fn forbidden_among(args: &[Word], state: &State, depth: usize) -> Judgement {
    let mut scratch = State::new(state.ctx.clone());
    scratch.scan_unknown = false;
    for (start, w) in args.iter().enumerate() {
        if w.dynamic {
            continue;
        }
        if !super::spend_analysis() {
            return judge(Risk::Forbidden, super::TOO_MANY_ANALYSES);
        }
        if !is_flag(w) {
            let inner = program(&args[start..], &mut scratch, depth + 1, false);
            if inner.level == Risk::Forbidden {
                return inner;
            }
        }
        for text in payloads(&w.text) {
            if !text.contains(' ') && text == w.text {
                continue;
            }
            let nested = classify_nested(text, &state.ctx, depth + 1);
            if nested.level == Risk::Forbidden {
                return judge(
                    Risk::Forbidden,
                    format!("may run `{text}`: {}", nested.reason),
                );
            }
        }
    }
    judge(Risk::ReadOnly, "no forbidden command among the arguments")
}

/// Where a command may hide inside one argument: the whole of it, what follows an `=`
/// (`--checkpoint-action=exec=CMD`, `-oProxyCommand=CMD`, `alias.x=!CMD`), and what follows
/// a `!` (vim's `-c '!CMD'`, a git alias). At most eight, shortest last.
pub(super) fn payloads(text: &str) -> Vec<&str> {
    let mut out = vec![text];
    for (i, c) in text.char_indices() {
        if out.len() >= 8 {
            break;
        }
        if matches!(c, '=' | '!') {
            let rest = text[i + 1..].trim_start_matches(['!', ':', ' ']);
            if !rest.trim().is_empty() && !out.contains(&rest) {
                out.push(rest);
            }
        }
    }
    out
}

/// Quote a word for a shell, so a joined command line splits back into the same words.
pub(super) fn shell_quote(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
    {
        return text.to_string();
    }
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// Words joined back into a command line that splits into the same words.
pub(super) fn join_words(words: &[Word]) -> String {
    words
        .iter()
        .map(|w| shell_quote(&w.text))
        .collect::<Vec<_>>()
        .join(" ")
}

pub(super) fn nested(text: &str, state: &State, depth: usize, via: &str) -> Judgement {
    let inner = classify_nested(text, &state.ctx, depth + 1);
    let mut j = judge(inner.level, format!("{via} runs: {}", inner.reason));
    j.network = inner.uses_network();
    j.prefix = inner
        .segments
        .iter()
        .find(|s| s.level == inner.level)
        .map(|s| s.prefix.clone())
        .unwrap_or_default();
    j.nested = inner
        .segments
        .into_iter()
        .map(|mut s| {
            if s.part.is_empty() {
                s.part = format!("run by {via}");
            }
            s
        })
        .collect();
    j
}

pub(super) fn nested_shell(code: &Word, state: &State, depth: usize) -> Judgement {
    if code.dynamic {
        judge(Risk::High, "runs a shell command built at run time")
    } else {
        nested(&code.text, state, depth, "the shell")
    }
}

/// The short option letters Loom recognises for `program` called with `args` (for the
/// property test that inserts unrecognised ones).
#[cfg(test)]
pub(crate) fn known_short_options(program: &str, args: &[String]) -> String {
    let spec_chars = |s: super::options::Spec| format!("{}{}", s.flags, s.valued);
    match program {
        "git" => {
            let sub = args
                .iter()
                .find(|a| !a.starts_with('-'))
                .map(String::as_str)
                .unwrap_or("");
            let mut known = "cCPp".to_string();
            if let Some(s) = git::read_only_spec_for_tests(sub) {
                known.push_str(&spec_chars(s));
            }
            known
        }
        "sed" => spec_chars(sed::SPEC),
        "awk" => spec_chars(awk::SPEC),
        "find" => "adoHLPDO".to_string(),
        "tar" => "ctxruAdvzjJapkUOmhSwWiBGMnloqfCTXbgKLNVH".to_string(),
        _ => readonly::lookup(program)
            .map(|r| spec_chars(r.spec))
            .unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(t: &str) -> Word {
        Word::literal(t)
    }

    #[test]
    fn flags_are_found_in_combined_short_options() {
        let args = vec![w("-rf"), w("x")];
        assert!(has_flag(&args, 'r', "recursive"));
        assert!(has_flag(&args, 'f', "force"));
        assert!(!has_flag(&[w("--"), w("-r")], 'r', "recursive"));
        assert!(has_flag(&[w("--recursive")], 'R', "recursive"));
    }
}
