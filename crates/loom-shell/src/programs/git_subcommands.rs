//! `git`'s subcommands past the global options that have no read-only table (those are
//! judged in `git.rs`), by what they do: contact a remote, lose work (`reset --hard`,
//! `clean -f`, `checkout -- .`, `stash drop`), run a command (`rebase --exec`, `bisect
//! run`, `submodule foreach`), rewrite history, or change the repository's state. A
//! subcommand Loom does not know may be an alias or an external `git-NAME` program, so
//! it asks.

use super::super::Risk;
use super::super::parse::Word;
use super::git_config::{config, config_key};
use super::{Judgement, State, is_flag, judge, nested, writes_at};

/// Judge `git SUB REST...` for a subcommand with no read-only table (those are judged in
/// `git.rs`).
pub(super) fn by_rules(sub: &str, rest: &[Word], state: &State, depth: usize) -> Judgement {
    let args = Args::new(rest);
    if let Some(j) = with_rules(sub, &args, state, depth) {
        return j;
    }
    if let Some(j) = dangerous(sub, &args, state, depth) {
        return j;
    }
    changes_state(sub)
}

/// The words after a subcommand, with the questions its rules ask of them.
struct Args<'a> {
    words: &'a [Word],
    /// The words that are not options.
    plain: Vec<&'a str>,
}

impl<'a> Args<'a> {
    fn new(words: &'a [Word]) -> Args<'a> {
        let plain = words
            .iter()
            .filter(|w| !is_flag(w))
            .map(|w| w.text.as_str())
            .collect();
        Args { words, plain }
    }

    /// Whether the option `f` (or `f=VALUE`) is given before `--`.
    fn has(&self, f: &str) -> bool {
        self.words
            .iter()
            .take_while(|w| w.text != "--")
            .any(|w| w.text == f || w.text.starts_with(&format!("{f}=")))
    }

    /// Whether the short option `c` is given before `--`, alone or in a group (`-fd`).
    fn short(&self, c: char) -> bool {
        self.words
            .iter()
            .take_while(|w| w.text != "--")
            .any(|w| w.text.starts_with('-') && !w.text.starts_with("--") && w.text.contains(c))
    }
}

/// Subcommands with rules of their own: configuration, branches, tags, remotes, stashes,
/// worktrees and the ones that talk to a remote (the dispatch table's first part).
fn with_rules(sub: &str, args: &Args<'_>, state: &State, depth: usize) -> Option<Judgement> {
    let rest = args.words;
    Some(match sub {
        "config" => config(rest, state, depth),
        "branch" => branch(rest),
        "tag" => tag(rest),
        "remote" => match args.plain.first().copied() {
            None | Some("get-url") => judge(Risk::ReadOnly, "git remote lists remotes"),
            Some("show") if args.has("-n") => {
                judge(Risk::ReadOnly, "git remote show -n lists a remote")
            }
            Some("show" | "update" | "prune") => judge(Risk::Medium, "contacts a remote").net(),
            _ => judge(Risk::Medium, "git remote changes the remotes"),
        },
        "stash" => match args.plain.first().copied() {
            Some("list" | "show") => judge(Risk::ReadOnly, "git stash lists or shows"),
            Some("drop" | "clear") => judge(Risk::High, "git stash drop/clear loses stashed work"),
            _ => judge(Risk::Medium, "git stash changes the working tree"),
        },
        "worktree" => worktree(rest, state),
        "push" => judge(Risk::High, "git push publishes commits to a remote").net(),
        "fetch" | "pull" | "clone" | "submodule" | "lfs" | "ls-remote" => {
            fetches(sub, args, state, depth)
        }
        _ => return None,
    })
}

/// `git fetch`, `pull`, `clone`, `submodule`, `lfs`, `ls-remote`: they fetch from a
/// remote; a program or template named for git to run, `submodule foreach`'s command and
/// `-c KEY=VALUE` settings make them worse.
fn fetches(sub: &str, args: &Args<'_>, state: &State, depth: usize) -> Judgement {
    let rest = args.words;
    let mut j = judge(Risk::Medium, format!("git {sub} fetches from a remote")).net();
    if args.has("--upload-pack") || args.short('u') && sub == "clone" || args.has("--template") {
        j = j.at_least(Risk::High, "names a program or template git will run");
    }
    if sub == "submodule" && args.plain.first() == Some(&"foreach") {
        let at = rest.iter().position(|w| w.text == "foreach").unwrap_or(0);
        let code: Vec<&str> = rest[at + 1..].iter().map(|w| w.text.as_str()).collect();
        j = j.worst(nested(
            &code.join(" "),
            state,
            depth,
            "git submodule foreach",
        ));
    }
    for (k, w) in rest.iter().enumerate() {
        if (w.text == "-c" || w.text == "--config")
            && let Some(v) = rest.get(k + 1)
        {
            let (level, reason) = config_key(v.text.split('=').next().unwrap_or(""));
            j = j.at_least(level, reason);
        }
    }
    j
}

/// Subcommands (or forms of them) that lose work, run commands, rewrite history, use the
/// network or run configured programs (the dispatch table's second part, in order; a
/// form that is none of these falls through to [`changes_state`]).
fn dangerous(sub: &str, args: &Args<'_>, state: &State, depth: usize) -> Option<Judgement> {
    let (rest, plain) = (args.words, &args.plain);
    let (has, short) = (|f: &str| args.has(f), |c: char| args.short(c));
    Some(match sub {
        "reset" if has("--hard") || has("--merge") => {
            judge(Risk::High, "git reset --hard discards uncommitted changes")
        }
        "clean" if short('f') || has("--force") => {
            judge(Risk::High, "git clean -f deletes untracked files")
        }
        "checkout" | "restore" | "switch"
            if plain.contains(&".")
                || (rest.iter().any(|w| w.text == "--") && !plain.is_empty())
                || has("--force")
                || has("--discard-changes")
                || short('f') =>
        {
            judge(
                Risk::High,
                format!("git {sub} of paths (or --force) discards uncommitted changes"),
            )
        }
        "rebase" if has("--exec") || short('x') => rebase_exec(rest, state, depth),
        "bisect" if plain.first() == Some(&"run") => {
            let at = rest.iter().position(|w| w.text == "run").unwrap_or(0);
            let code = super::join_words(&rest[at + 1..]);
            judge(Risk::Medium, "git bisect run runs a command").worst(nested(
                &code,
                state,
                depth,
                "git bisect run",
            ))
        }
        "filter-branch" | "filter-repo" | "gc" | "prune" | "update-ref" | "replace"
        | "reflog-expire" | "maintenance" | "prune-packed" => {
            judge(Risk::High, format!("git {sub} rewrites or prunes history"))
        }
        "daemon" | "send-email" | "request-pull" | "http-backend" | "instaweb" => {
            judge(Risk::High, format!("git {sub} uses the network")).net()
        }
        "archive" => archive(rest, state),
        "rm" if (short('f') || has("--force")) && !has("--cached") => judge(
            Risk::High,
            "git rm -f deletes files even with uncommitted changes, which are lost",
        ),
        "difftool" | "mergetool" | "web--browse" | "credential" | "credential-store"
        | "credential-cache" => judge(
            Risk::High,
            format!("git {sub} runs a configured external program"),
        ),
        _ => return None,
    })
}

/// `git rebase --exec CMD` (`-x CMD`): runs CMD after each commit, judged as that
/// command; one Loom cannot read is high.
fn rebase_exec(rest: &[Word], state: &State, depth: usize) -> Judgement {
    let code = rest
        .iter()
        .position(|w| w.text == "--exec" || w.text == "-x")
        .and_then(|k| rest.get(k + 1));
    let base = judge(
        Risk::Medium,
        "git rebase --exec runs a command after each commit",
    );
    match code {
        Some(c) if !c.dynamic => base.worst(nested(&c.text, state, depth, "git rebase --exec")),
        _ => base.at_least(Risk::High, "git rebase runs a command Loom cannot read"),
    }
}

/// The remaining subcommands: the ones Loom knows change the repository's state, and
/// any other name, which may be an alias or an external program.
fn changes_state(sub: &str) -> Judgement {
    match sub {
        "add" | "commit" | "checkout" | "switch" | "restore" | "reset" | "merge" | "rebase"
        | "cherry-pick" | "revert" | "mv" | "rm" | "init" | "apply" | "am" | "format-patch"
        | "bisect" | "notes" | "sparse-checkout" | "clean" | "stage" | "update-index"
        | "read-tree" | "write-tree" | "commit-tree" | "hash-object" | "pack-refs" | "repack"
        | "fsck" | "range-diff" | "cherry" | "merge-tree" | "mktag" | "mktree" | "citool"
        | "gui" | "rerere" | "fast-import" | "fast-export" | "bundle" | "unpack-objects"
        | "checkout-index" | "interpret-trailers" | "mailinfo" | "mailsplit" | "stripspace" => {
            judge(Risk::Medium, format!("git {sub} changes repository state"))
        }
        "reflog" => judge(Risk::Medium, "git reflog changes the reflog"),
        _ => judge(
            Risk::Medium,
            format!(
                "`git {sub}` is not a git command Loom knows; it may be an alias or an external program"
            ),
        ),
    }
}

/// `git worktree`: `remove` deletes the worktree's directory with everything in it
/// (untracked files too, with `--force`), so it is judged as `rm -r` of that path (the
/// workspace itself is forbidden); `move` as `mv` of it.
fn worktree(rest: &[Word], state: &State) -> Judgement {
    let operands: Vec<Word> = rest.iter().filter(|w| !is_flag(w)).cloned().collect();
    match operands.first().map(|w| w.text.as_str()) {
        Some("list") => judge(Risk::ReadOnly, "git worktree lists"),
        Some("remove") => {
            let args: Vec<Word> = std::iter::once(Word::literal("-r"))
                .chain(operands[1..].iter().cloned())
                .collect();
            super::files::rm("git worktree remove", &args, state, false).at_least(
                Risk::High,
                "git worktree remove deletes a worktree's directory and the files in it",
            )
        }
        Some("move") => super::files::moves(&operands[1..], state, false)
            .at_least(Risk::Medium, "git worktree move moves a worktree"),
        _ => judge(Risk::Medium, "git worktree changes worktrees"),
    }
}

/// `git archive`: writes the archive to its output (`-o FILE`, `--output=FILE`) or prints
/// it; `--remote` fetches it over the network.
fn archive(rest: &[Word], state: &State) -> Judgement {
    let mut j = judge(Risk::Medium, "git archive writes an archive");
    let mut i = 0;
    while i < rest.len() {
        let t = rest[i].text.as_str();
        if t == "--" {
            break;
        }
        let output = match t {
            "-o" | "--output" => {
                i += 1;
                rest.get(i).cloned()
            }
            _ if t.starts_with("--output=") => Some(Word::literal(&t[9..])),
            _ if t.starts_with("-o") => Some(Word::literal(&t[2..])),
            _ => None,
        };
        if let Some(out) = output {
            j = j.worst(writes_at(&out, state, "writes the archive to"));
        }
        if t == "--remote" || t.starts_with("--remote=") {
            j = j
                .at_least(
                    Risk::High,
                    "git archive --remote fetches from another machine",
                )
                .net();
        }
        i += 1;
    }
    j
}

/// `git branch`: listing is read-only; creating, renaming and deleting are not.
fn branch(rest: &[Word]) -> Judgement {
    const LIST: &[&str] = &[
        "-a",
        "-r",
        "-v",
        "-vv",
        "-l",
        "--list",
        "--all",
        "--remotes",
        "--verbose",
        "--merged",
        "--no-merged",
        "--contains",
        "--no-contains",
        "--points-at",
        "--show-current",
        "--no-color",
        "--column",
        "--no-column",
        "-i",
        "--ignore-case",
        "--no-abbrev",
        "-av",
        "-avv",
        "-rv",
        "-vr",
    ];
    const VALUED: &[&str] = &[
        "--merged",
        "--no-merged",
        "--contains",
        "--no-contains",
        "--points-at",
    ];
    let short = |c: char| {
        rest.iter()
            .any(|w| w.text.starts_with('-') && !w.text.starts_with("--") && w.text.contains(c))
    };
    let long = |l: &str| rest.iter().any(|w| w.text == l);
    let deletes = short('d') || long("--delete");
    let force = short('f') || long("--force");
    let force_delete = short('D') || (deletes && force);
    if force_delete {
        return judge(
            Risk::High,
            "git branch -D deletes a branch even if it is not merged",
        );
    }
    let listing_mode = rest.iter().any(|w| w.text == "-l" || w.text == "--list");
    let mut i = 0;
    while i < rest.len() {
        let t = rest[i].text.as_str();
        if VALUED.contains(&t) {
            i += 2;
            continue;
        }
        let known = LIST.contains(&t)
            || ["--sort=", "--format=", "--color", "--abbrev=", "--column="]
                .iter()
                .any(|p| t.starts_with(p))
            || VALUED.iter().any(|v| t.starts_with(&format!("{v}=")));
        if t.starts_with('-') && !known {
            return judge(Risk::Medium, format!("git branch {t} changes branches"));
        }
        if !t.starts_with('-') && !listing_mode {
            return judge(Risk::Medium, "git branch NAME creates a branch");
        }
        i += 1;
    }
    judge(Risk::ReadOnly, "git branch lists branches")
}

/// `git tag`: listing is read-only; creating and deleting are not.
fn tag(rest: &[Word]) -> Judgement {
    let listing_mode = rest.iter().any(|w| w.text == "-l" || w.text == "--list");
    for w in rest {
        let t = w.text.as_str();
        let known = matches!(
            t,
            "-l" | "--list" | "--column" | "--no-column" | "-i" | "--ignore-case"
        ) || t.starts_with("-n")
            || [
                "--sort=",
                "--format=",
                "--color",
                "--contains",
                "--no-contains",
                "--points-at",
                "--merged",
                "--no-merged",
            ]
            .iter()
            .any(|p| t.starts_with(p));
        if t.starts_with('-') && !known {
            return judge(Risk::Medium, format!("git tag {t} creates or deletes tags"));
        }
        if !t.starts_with('-') && !listing_mode {
            return judge(Risk::Medium, "git tag NAME creates a tag");
        }
    }
    judge(Risk::ReadOnly, "git tag lists tags")
}
