//! `git`: global options, configuration keys that run programs, and each subcommand.
//!
//! Read-only subcommands are read-only only with options from their tables (`git log
//! --output=F` writes, `git diff --ext-diff` and `git grep -O` run programs, so they are
//! not in the tables). `-c KEY=VALUE`, `--config-env` and `git config` writes are judged by
//! the key: keys that name a program to run (`core.pager`, `core.fsmonitor`, `alias.*`,
//! filters, `*.editor`, ...) are high. A subcommand Loom does not know may be an alias or
//! an external `git-NAME` program, so it asks. Subcommands that lose work (`reset
//! --hard`, `clean -f`, `branch -D`, `checkout -- .`, `stash drop`) are high.
//!
//! This file holds the global options and the read-only tables; the other subcommands
//! are judged in `git_subcommands.rs`, which imports nothing from here.

use super::super::options::{Parsed, Spec, parse};
use super::super::parse::Word;
use super::super::{Place, Risk};
use super::git_config::{config_key, config_payload, config_writes};
use super::{Judgement, State, judge, reads};

macro_rules! long {
    ($($list:expr),* $(,)?) => {{
        const N: usize = 0 $(+ $list.len())*;
        const fn concat() -> [&'static str; N] {
            let mut out = [""; N];
            let mut n = 0;
            $(
                let mut i = 0;
                while i < $list.len() {
                    out[n] = $list[i];
                    n += 1;
                    i += 1;
                }
            )*
            out
        }
        const OUT: [&'static str; N] = concat();
        &OUT
    }};
}

#[rustfmt::skip]
const DIFF: &[&str] = &[
    "patch", "no-patch", "unified=", "stat?", "numstat", "shortstat", "dirstat?", "summary",
    "patch-with-stat", "patch-with-raw", "name-only", "name-status", "submodule?", "color?",
    "no-color", "color-moved?", "no-color-moved", "color-words?", "word-diff?",
    "word-diff-regex=", "no-renames", "renames", "find-renames?", "find-copies?",
    "find-copies-harder", "break-rewrites?", "irreversible-delete", "diff-filter=", "minimal",
    "patience", "histogram", "anchored=", "diff-algorithm=", "ignore-space-at-eol",
    "ignore-space-change", "ignore-all-space", "ignore-blank-lines", "ignore-cr-at-eol",
    "ignore-matching-lines=", "indent-heuristic", "no-indent-heuristic", "inter-hunk-context=",
    "function-context", "exit-code", "quiet", "no-ext-diff", "no-textconv", "ignore-submodules?",
    "src-prefix=", "dst-prefix=", "no-prefix", "default-prefix", "line-prefix=", "full-index",
    "binary", "abbrev?", "relative?", "no-relative", "text", "raw", "check", "stat-width=",
    "stat-name-width=", "stat-count=", "compact-summary", "cumulative", "pickaxe-all",
    "pickaxe-regex", "rotate-to=", "skip-to=", "ita-invisible-in-index", "ws-error-highlight=",
    "color-moved-ws=", "no-color-moved-ws", "follow", "no-follow",
];

#[rustfmt::skip]
const REVS: &[&str] = &[
    "oneline", "graph", "all", "decorate?", "no-decorate", "decorate-refs=",
    "decorate-refs-exclude=", "clear-decorations", "source", "use-mailmap", "mailmap",
    "no-mailmap", "full-diff", "log-size", "format=", "pretty?", "abbrev-commit",
    "no-abbrev-commit", "encoding=", "expand-tabs?", "no-expand-tabs", "notes?", "no-notes",
    "show-notes?", "date=", "parents", "children", "left-right", "cherry-pick", "cherry-mark",
    "cherry", "reverse", "max-count=", "skip=", "since=", "after=", "until=", "before=",
    "since-as-filter=", "author=", "committer=", "grep=", "grep-reflog=", "all-match",
    "invert-grep", "regexp-ignore-case", "basic-regexp", "extended-regexp", "fixed-strings",
    "perl-regexp", "remove-empty", "merges", "no-merges", "min-parents=", "max-parents=",
    "no-min-parents", "no-max-parents", "first-parent", "exclude-first-parent-only", "not",
    "branches?", "tags?", "remotes?", "glob=", "exclude=", "reflog", "alternate-refs",
    "single-worktree", "ignore-missing", "bisect", "walk-reflogs", "merge", "boundary",
    "simplify-by-decoration", "full-history", "dense", "sparse", "simplify-merges",
    "ancestry-path?", "topo-order", "date-order", "author-date-order", "no-walk?", "do-walk",
    "relative-date", "show-linear-break?", "cc", "combined-all-paths", "dd", "diff-merges=",
    "no-diff-merges", "show-pulls", "count", "objects", "objects-edge", "no-object-names",
    "timestamp", "in-commit-order", "header", "show-signature?",
];

const REV_VALUED: &str = "nSGULOl";

fn spec(
    flags: &'static str,
    valued: &'static str,
    long: &'static [&'static str],
    numeric: bool,
) -> Spec {
    Spec {
        flags,
        valued,
        long,
        numeric,
    }
}

/// The option table of a read-only subcommand, or `None` when it changes something.
#[rustfmt::skip]
fn read_only_spec(sub: &str) -> Option<Spec> {
    Some(match sub {
        "log" | "whatchanged" | "shortlog" | "rev-list" | "show" | "reflog" => spec(
            "puszawbRMCDBWtinEFPgmcrfe",
            REV_VALUED,
            long!(
                DIFF,
                REVS,
                ["numbered", "summary", "email", "group=", "committer"]
            ),
            true,
        ),
        "diff" | "diff-tree" | "diff-index" | "diff-files" => spec(
            "puszawbRMCDBWtr123",
            REV_VALUED,
            long!(
                DIFF,
                [
                    "cached", "staged", "merge-base", "no-index", "ours", "theirs",
                    "base"
                ]
            ),
            false,
        ),
        "status" => spec(
            "sbvz",
            "u",
            &[
                "short", "branch", "show-stash", "porcelain?", "long", "verbose",
                "untracked-files?", "ignore-submodules?", "ignored?", "column?", "no-column",
                "ahead-behind", "no-ahead-behind", "renames", "no-renames", "find-renames?",
                "null",
            ],
            false,
        ),
        "blame" | "annotate" => spec(
            "bcflnpstswMCe",
            "LS",
            &[
                "root", "show-stats", "score-debug", "show-name", "show-number", "porcelain",
                "line-porcelain", "incremental", "contents=", "date=", "reverse=",
                "first-parent", "encoding=", "ignore-rev=", "ignore-revs-file=", "color-lines",
                "color-by-age", "progress", "no-progress", "abbrev?", "minimal", "show-email",
            ],
            false,
        ),
        "grep" => spec(
            "iIvwaElLcHhnbzqoWpFGPr",
            "efABCm",
            &[
                "cached", "untracked", "no-index", "index", "exclude-standard",
                "no-exclude-standard", "recurse-submodules", "text", "textconv?", "no-textconv",
                "ignore-case", "word-regexp", "invert-match", "full-name", "extended-regexp",
                "basic-regexp", "perl-regexp", "fixed-strings", "line-number", "column",
                "files-with-matches", "name-only", "files-without-match", "null",
                "only-matching", "count", "color?", "no-color", "break", "heading",
                "show-function", "function-context", "context=", "after-context=",
                "before-context=", "threads=", "max-depth=", "max-count=", "and", "or", "not",
                "all-match", "quiet", "regexp=", "file=",
            ],
            true,
        ),
        "ls-files" => spec(
            "cdmoiskuzftv",
            "xX",
            &[
                "cached", "deleted", "modified", "others", "ignored", "stage", "unmerged",
                "killed", "directory", "no-empty-directory", "exclude=", "exclude-from=",
                "exclude-per-directory=", "exclude-standard", "full-name", "recurse-submodules",
                "abbrev?", "error-unmatch", "eol", "deduplicate", "format=", "debug", "sparse",
                "with-tree=", "resolve-undo", "others",
            ],
            false,
        ),
        "ls-tree" => spec(
            "rdtlz",
            "",
            &[
                "long", "name-only", "name-status", "object-only", "full-name", "full-tree",
                "abbrev?", "format=",
            ],
            false,
        ),
        "rev-parse" => spec(
            "q",
            "",
            &[
                "short?", "abbrev-ref?", "show-toplevel", "git-dir", "absolute-git-dir",
                "git-common-dir", "is-inside-work-tree", "is-inside-git-dir",
                "is-bare-repository", "is-shallow-repository", "verify", "quiet", "symbolic",
                "symbolic-full-name", "show-prefix", "show-cdup",
                "show-superproject-working-tree", "show-object-format?", "all", "branches?",
                "tags?", "remotes?", "glob=", "exclude=", "default=", "sq", "sq-quote",
                "local-env-vars", "path-format=", "git-path=", "resolve-git-dir=", "since=",
                "until=", "revs-only", "no-revs", "flags", "no-flags", "prefix=",
                "disambiguate=", "shared-index-path", "show-ref-format", "not",
            ],
            false,
        ),
        "describe" => spec(
            "",
            "",
            &[
                "tags", "all", "long", "abbrev=", "always", "dirty?", "broken?", "exact-match",
                "match=", "exclude=", "contains", "first-parent", "candidates=", "debug",
            ],
            false,
        ),
        "show-ref" => spec(
            "dsq",
            "",
            &[
                "heads", "tags", "head", "dereference", "hash?", "verify", "abbrev?", "quiet",
                "exists", "branches",
            ],
            false,
        ),
        "merge-base" => spec(
            "a",
            "",
            &["all", "octopus", "independent", "is-ancestor", "fork-point"],
            false,
        ),
        "name-rev" => spec(
            "",
            "",
            &[
                "name-only", "tags", "refs=", "exclude=", "all", "annotate-stdin", "always",
                "undefined", "no-undefined",
            ],
            false,
        ),
        "count-objects" => spec("vH", "", &["verbose", "human-readable"], false),
        "for-each-ref" => spec(
            "sp",
            "",
            &[
                "format=", "sort=", "count=", "points-at=", "merged?", "no-merged?", "contains?",
                "no-contains?", "shell", "perl", "python", "tcl", "color?", "ignore-case",
                "omit-empty", "exclude=", "include-root-refs",
            ],
            false,
        ),
        "check-ignore" => spec(
            "qvnz",
            "",
            &["quiet", "verbose", "non-matching", "no-index"],
            false,
        ),
        "check-attr" => spec("az", "", &["all", "cached", "source="], false),
        "check-ref-format" => spec(
            "",
            "",
            &[
                "normalize", "allow-onelevel", "no-allow-onelevel", "refspec-pattern", "branch",
            ],
            false,
        ),
        "cat-file" => spec(
            "tspe",
            "",
            &[
                "batch?", "batch-check?", "batch-all-objects", "buffer", "unordered",
                "follow-symlinks", "allow-unknown-type", "mailmap", "no-mailmap", "use-mailmap",
            ],
            false,
        ),
        "var" => spec("l", "", &[], false),
        "version" => spec("", "", &["build-options"], false),
        "help" => spec(
            "agci",
            "",
            &[
                "all", "guides", "config", "info", "man", "verbose", "no-verbose",
                "external-commands", "aliases", "no-external-commands", "no-aliases",
                "user-interfaces", "developer-interfaces",
            ],
            false,
        ),
        "symbolic-ref" => spec("q", "", &["short", "quiet", "no-recurse", "recurse"], false),
        _ => return None,
    })
}

/// [`read_only_spec`], for the property test of unrecognised options.
#[cfg(test)]
pub(super) fn read_only_spec_for_tests(sub: &str) -> Option<Spec> {
    read_only_spec(sub)
}

/// Judge `git ARGS...`: its global options, the repository it runs in, then the
/// subcommand.
pub(super) fn git(args: &[Word], state: &State, depth: usize) -> Judgement {
    let mut globals = Globals {
        floor: judge(Risk::ReadOnly, "git"),
        git_dir: state.ctx.cwd.clone(),
    };
    let mut i = 0;
    while i < args.len() {
        match globals.option(args, i, state, depth) {
            Step::Skip(n) => i += n,
            Step::Subcommand => break,
            Step::Verdict(j) => return j,
        }
    }
    let Globals { mut floor, git_dir } = globals;
    let sub = args.get(i).map(|w| w.text.as_str()).unwrap_or("");
    let rest = args.get(i + 1..).unwrap_or(&[]);
    if !matches!(sub, "" | "version" | "help" | "clone" | "init") {
        floor = floor.worst(super::git_repos::repository_in(&git_dir, state));
    }
    let mut j = subcommand(sub, rest, state, depth);
    j.prefix = vec!["git".into(), sub.to_string()];
    j.worst(floor)
}

/// The subcommand: none prints help, one with a read-only table is judged by it, the
/// others by their rules ([`super::git_subcommands`]).
fn subcommand(sub: &str, rest: &[Word], state: &State, depth: usize) -> Judgement {
    if sub.is_empty() {
        return judge(Risk::ReadOnly, "git with no subcommand prints help");
    }
    if let Some(spec) = read_only_spec(sub) {
        let parsed = match parse(&spec, rest, false) {
            Ok(p) => p,
            Err(e) => return super::unproven(e, &format!("git {sub}")),
        };
        return read_only(sub, &parsed, state);
    }
    super::git_subcommands::by_rules(sub, rest, state, depth)
}

/// What git's global options (before the subcommand) amount to so far.
struct Globals {
    /// The least the call is, whatever the subcommand.
    floor: Judgement,
    /// The directory git runs in (`-C DIR` moves it).
    git_dir: std::path::PathBuf,
}

/// How the reading of git's global options goes on after one word.
enum Step {
    /// The option took this many words.
    Skip(usize),
    /// The word is the subcommand.
    Subcommand,
    /// The call is judged already.
    Verdict(Judgement),
}

impl Globals {
    /// Read the global option at `args[i]`.
    fn option(&mut self, args: &[Word], i: usize, state: &State, depth: usize) -> Step {
        let w = &args[i];
        let t = w.text.as_str();
        if w.dynamic {
            return Step::Verdict(judge(
                Risk::Medium,
                format!("the git argument `{t}` is only known at run time"),
            ));
        }
        if t == "-c" || (t.starts_with("-c") && t.len() > 2 && !t.starts_with("--")) {
            return Step::Skip(self.config(args, i, state, depth));
        }
        if t == "--config-env" || t.starts_with("--config-env=") {
            self.floor = self.floor.clone().at_least(
                Risk::High,
                "git --config-env sets options (such as core.pager) from the environment, which can run programs",
            );
            return Step::Skip(if t.contains('=') { 1 } else { 2 });
        }
        if t == "-C" || (t.starts_with("-C") && t.len() > 2) {
            let (dir, step) = if t == "-C" {
                (args.get(i + 1).cloned(), 2)
            } else {
                (Some(Word::literal(&t[2..])), 1)
            };
            if let Some(d) = dir {
                self.directory(&d, state);
            }
            return Step::Skip(step);
        }
        self.other_option(t)
    }

    /// `-c KEY=VALUE` (or `-cKEY=VALUE`) at `args[i]`, judged by the key and the value;
    /// returns how many words it took.
    fn config(&mut self, args: &[Word], i: usize, state: &State, depth: usize) -> usize {
        let t = args[i].text.as_str();
        let (value, step) = if t == "-c" {
            (
                args.get(i + 1).map(|w| w.text.clone()).unwrap_or_default(),
                2,
            )
        } else {
            (t[2..].to_string(), 1)
        };
        let key = value.split('=').next().unwrap_or("");
        let (level, reason) = config_key(key);
        let mut floor = self.floor.clone();
        floor = floor.at_least(level, format!("git -c {key}: {reason}"));
        if let Some((_, setting)) = value.split_once('=') {
            if level == Risk::High {
                floor = floor.worst(config_payload(key, setting, state, depth));
            }
            if let Some(write) = config_writes(key, setting, state) {
                floor = floor.worst(write);
            }
        }
        self.floor = floor;
        step
    }

    /// `-C DIR`: git runs in DIR, high outside the workspace.
    fn directory(&mut self, d: &Word, state: &State) {
        if !matches!(state.place(d), Place::Inside(_) | Place::WorkspaceRoot) {
            self.floor = self.floor.clone().at_least(
                Risk::High,
                format!("runs git in {}, outside the workspace", d.text),
            );
        }
        if let Some(p) = super::super::place::expand(d, &state.ctx) {
            self.git_dir = self.git_dir.join(p);
        }
    }

    /// The global options that take no judgement of their value.
    fn other_option(&mut self, t: &str) -> Step {
        match t {
            "--git-dir" | "--work-tree" | "--namespace" => {
                self.floor = self
                    .floor
                    .clone()
                    .at_least(Risk::High, "points git at another repository");
                Step::Skip(2)
            }
            _ if t.starts_with("--git-dir=")
                || t.starts_with("--work-tree=")
                || t.starts_with("--exec-path=")
                || t.starts_with("--namespace=") =>
            {
                self.floor = self
                    .floor
                    .clone()
                    .at_least(Risk::High, "points git at another repository or program");
                Step::Skip(1)
            }
            "--no-pager"
            | "-P"
            | "--paginate"
            | "-p"
            | "--no-replace-objects"
            | "--bare"
            | "--literal-pathspecs"
            | "--glob-pathspecs"
            | "--noglob-pathspecs"
            | "--icase-pathspecs"
            | "--no-optional-locks"
            | "--no-advice"
            | "--version"
            | "--help"
            | "--html-path"
            | "--man-path"
            | "--info-path"
            | "--exec-path" => Step::Skip(1),
            _ if t.starts_with('-') => Step::Verdict(
                self.floor
                    .clone()
                    .at_least(Risk::Medium, format!("unrecognised option {t} for git")),
            ),
            _ => Step::Subcommand,
        }
    }
}

/// A read-only subcommand with recognised options: what it reads.
fn read_only(sub: &str, parsed: &Parsed<'_>, state: &State) -> Judgement {
    let mut j = judge(Risk::ReadOnly, format!("git {sub} only reads"));
    if sub == "reflog"
        && parsed
            .operands
            .first()
            .is_some_and(|w| matches!(w.text.as_str(), "expire" | "delete"))
    {
        return judge(Risk::High, "git reflog expire/delete prunes history");
    }
    if sub == "symbolic-ref" && parsed.operands.len() >= 2 {
        return judge(Risk::Medium, "git symbolic-ref changes a ref");
    }
    if sub == "help" && parsed.has(&["--web", "-w"]) {
        return judge(Risk::Medium, "git help --web opens a browser");
    }
    let no_index = parsed.has(&["--no-index"]);
    for w in &parsed.operands {
        let looks_like_path =
            no_index || w.text.starts_with(['/', '~', '$']) || w.text.contains("..");
        if looks_like_path && !w.text.contains(':') {
            j = j.worst(reads(w, state));
        }
    }
    for v in parsed.values(&[
        "--contents",
        "-S",
        "--ignore-revs-file",
        "-f",
        "--file",
        "--exclude-from",
        "-X",
    ]) {
        j = j.worst(reads(&v.word(), state));
    }
    j
}
