//! Programs that read whole directory trees (`grep -r`, `rg`, `diff -r`): what is under
//! the trees they are given, and where the links in them lead.

use super::super::Risk;
use super::super::parse::Word;
use super::{Judgement, State, has_flag, judge};

/// Whether `name` called with `args` reads every file under the directories it is given
/// (`grep -r`, `rg`, `diff -r`).
pub(super) fn searches_trees(name: &str, args: &[Word]) -> bool {
    match name {
        "rg" | "ag" | "ack" | "ack-grep" | "ugrep" => true,
        "grep" | "egrep" | "fgrep" | "zgrep" => {
            has_flag(args, 'r', "recursive")
                || has_flag(args, 'R', "dereference-recursive")
                || args
                    .iter()
                    .any(|w| w.text == "--directories=recurse" || w.text == "-drecurse")
        }
        "diff" | "colordiff" => has_flag(args, 'r', "recursive"),
        _ => false,
    }
}

/// Whether `name` called with `args` follows symbolic links inside the trees it reads
/// (`grep -R`, `rg -L`, `diff -r`), so a link in the workspace leads it anywhere.
pub(super) fn follows_links(name: &str, args: &[Word]) -> bool {
    match name {
        "rg" | "ugrep" => has_flag(args, 'L', "follow"),
        "ag" => has_flag(args, 'f', "follow"),
        "ack" | "ack-grep" => has_flag(args, '\0', "follow"),
        "grep" | "egrep" | "fgrep" | "zgrep" => has_flag(args, 'R', "dereference-recursive"),
        "diff" | "colordiff" => has_flag(args, 'r', "recursive"),
        _ => false,
    }
}

/// Reading every file under `w` following the links in it: high when a link there leads
/// to a protected path (a repository's `keys -> ~/.ssh` and `grep -R . .`), medium when
/// the tree is too large to search for links.
pub(super) fn reads_tree_through_links(w: &Word, state: &State) -> Judgement {
    for alt in state.alternatives(w) {
        let Some(path) =
            super::super::place::expand(&alt, &state.ctx).map(|p| super::super::normalize(&p))
        else {
            continue;
        };
        match super::super::links::links_into_protected(&path, &state.ctx) {
            super::super::links::Found::Nothing => {}
            super::super::links::Found::Link(link, label) => {
                return judge(
                    Risk::High,
                    format!(
                        "follows the link {} under {}, which leads to protected files ({label})",
                        link.display(),
                        w.text
                    ),
                );
            }
            super::super::links::Found::TooMany => {
                return judge(
                    Risk::Medium,
                    format!(
                        "follows links under {}, which holds more files than Loom searches for \
                         links to protected files",
                        w.text
                    ),
                )
                .ungrantable();
            }
        }
    }
    judge(Risk::ReadOnly, "no link under it leads to protected files")
}

/// Reading every file under `w`: high when a protected directory lies inside it
/// (`grep -r KEY ~` reads `~/.ssh`), also when `w` is a symlink to such a directory.
pub(super) fn reads_tree(w: &Word, state: &State) -> Judgement {
    for alt in state.alternatives(w) {
        let Some(path) =
            super::super::place::expand(&alt, &state.ctx).map(|p| super::super::normalize(&p))
        else {
            continue;
        };
        let real = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        for rule in state.ctx.protected.iter().filter(|r| r.applies_to_reads) {
            if let loom_base::paths::ForbiddenMatch::Under(dir) = &rule.matcher
                && (dir.starts_with(&path) || dir.starts_with(&real))
            {
                return judge(
                    Risk::High,
                    format!(
                        "reads every file under {}, which holds protected files ({})",
                        w.text, rule.label
                    ),
                );
            }
        }
    }
    judge(Risk::ReadOnly, "no protected files under it")
}
