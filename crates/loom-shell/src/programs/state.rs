//! What Loom knows of the shell while it reads one command line: where it may be, which
//! variables, aliases and symlinks the line itself made, and what the current command
//! reads on its input.
//!
//! The shell's state is modelled conservatively. A `cd` may fail (`cd /nope; rm -rf *`
//! empties the directory the line started in) or run in a subshell, so every directory the
//! line has named stays a candidate, and a path word is judged in each. A line that sets
//! `HOME` or `PWD` makes `~`, `$HOME` and `$PWD` unknown. A symlink the line makes with
//! `ln -s` is followed when later words go through it.

use std::path::{Path, PathBuf};

use super::super::parse::Word;
use super::super::place::{expand, normalize};
use super::super::{CommandContext, Place, place};

/// What a pipeline feeds a command on its standard input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PipedInput {
    /// The literal text an `echo` or `printf` before it prints, or a quoted heredoc holds.
    Text(String),
    /// Text the shell expands before the command reads it (an unquoted heredoc with `$x`
    /// or a substitution in it): what is written is known, what arrives is not.
    Built(String),
    /// Output of a program, only known at run time.
    Unknown,
}

/// Classification state carried across the segments of one command line.
#[derive(Clone)]
pub struct State {
    pub(in super::super) ctx: CommandContext,
    pub(in super::super) cwd_unknown: bool,
    /// Directories the line may still be in besides `ctx.cwd`: where it was before each
    /// `cd` (which may fail, or run in a subshell), with the `&&` chain of that `cd`: a
    /// command in the same chain runs only if the `cd` succeeded.
    pub(in super::super) other_cwds: Vec<(PathBuf, usize)>,
    /// The chain of the command being judged ([`super::super::parse::SimpleCommand::chain`]).
    pub(in super::super) chain: usize,
    /// The directory before the last `cd` (for `cd -`).
    previous_cwd: Option<PathBuf>,
    /// Whether the line assigns `HOME`, `PWD` or `OLDPWD`, so `~`, `$HOME` and `$PWD` are
    /// no longer what Loom knows them to be.
    pub(in super::super) home_or_pwd_set: bool,
    /// Symlinks the line makes (`ln -s TARGET LINK`): the link's path and its target.
    pub(in super::super) links: Vec<(PathBuf, PathBuf)>,
    /// Aliases the line defines: name and value.
    pub(in super::super) aliases: Vec<(String, String)>,
    /// What the current command reads from a pipe, if it is piped into.
    pub(in super::super) piped: Option<PipedInput>,
    /// Whether an unknown program's arguments are searched for forbidden commands (off
    /// while already searching, so the search stays linear).
    pub(in super::super) scan_unknown: bool,
    /// Values the line gives its variables anywhere (`x=/`, `for f in …`, a function's
    /// call arguments as `$1`…, `set -- …`), see [`super::var_values`].
    pub(in super::super) var_values: Vec<(String, Word)>,
    /// While a command is judged again with one of those values: the variable and value.
    pub(in super::super) var_choice: Option<(String, Word)>,
    /// Files the line wrote, and the text when Loom can read it (see
    /// [`super::written`]).
    pub(in super::super) written: Vec<(PathBuf, Option<String>)>,
}

/// Most directories and links remembered for one line (beyond, words are judged in the
/// ones remembered; the line asks anyway for every `cd` to a run-time path).
const MAX_REMEMBERED: usize = 32;

impl State {
    /// Start at the context's working directory.
    pub fn new(ctx: CommandContext) -> State {
        State {
            ctx,
            cwd_unknown: false,
            other_cwds: Vec::new(),
            chain: 0,
            previous_cwd: None,
            home_or_pwd_set: false,
            links: Vec::new(),
            aliases: Vec::new(),
            piped: None,
            scan_unknown: true,
            var_values: Vec::new(),
            var_choice: None,
            written: Vec::new(),
        }
    }

    /// Where a path word points from the current directory.
    pub(in super::super) fn place(&self, word: &Word) -> Place {
        if self.depends_on_moved_variables(word) {
            return Place::Unknown;
        }
        if self.cwd_unknown && relative(word) {
            return Place::Unknown;
        }
        place(&self.through_links(word), &self.ctx)
    }

    /// The word as every place the line may be in could read it: itself (through any
    /// symlink the line made), and, when it is relative, the same path from each other
    /// directory the line may be in. A judgement over paths takes the worst of these.
    pub(in super::super) fn alternatives(&self, word: &Word) -> Vec<Word> {
        let mut out = vec![self.through_links(word)];
        if relative(word) && !word.dynamic {
            let others = self
                .other_cwds
                .iter()
                .filter(|(_, chain)| *chain != self.chain);
            for (dir, _) in others {
                let absolute = Word {
                    text: dir.join(&word.text).display().to_string(),
                    ..word.clone()
                };
                out.push(self.through_links(&absolute));
            }
        }
        out
    }

    /// Whether the word names `~`, `$HOME` or `$PWD` after the line changed what they are.
    pub(in super::super) fn depends_on_moved_variables(&self, word: &Word) -> bool {
        self.home_or_pwd_set
            && (word.text.starts_with('~')
                || ["$HOME", "${HOME", "$PWD", "${PWD"]
                    .iter()
                    .any(|v| word.text.contains(v)))
    }

    /// Record a `cd` to `dir` (`None`: a directory only known at run time).
    pub(in super::super) fn change_dir(&mut self, dir: Option<PathBuf>) {
        let here = (!self.cwd_unknown).then(|| self.ctx.cwd.clone());
        if let Some(here) = &here
            && self.other_cwds.len() < MAX_REMEMBERED
        {
            let entry = (here.clone(), self.chain);
            if !self.other_cwds.contains(&entry) {
                self.other_cwds.push(entry);
            }
        }
        self.previous_cwd = here;
        match dir {
            Some(path) => {
                self.ctx.cwd = normalize(&path);
                self.cwd_unknown = false;
            }
            None => self.cwd_unknown = true,
        }
    }

    /// Record `cd -`: back to the directory before the last `cd`.
    pub(in super::super) fn change_back(&mut self) {
        let back = self.previous_cwd.clone();
        self.change_dir(back);
    }

    /// Record `ln -s TARGET LINK`.
    pub(in super::super) fn make_link(&mut self, target: &Word, link: &Word) {
        if target.dynamic || link.dynamic || self.links.len() >= MAX_REMEMBERED {
            return;
        }
        let (Some(link_path), Some(target_path)) =
            (expand(link, &self.ctx), expand(target, &self.ctx))
        else {
            return;
        };
        let link_path = normalize(&link_path);
        let target_path = if Path::new(&target.text).is_absolute() || target.text.starts_with('~') {
            normalize(&target_path)
        } else {
            // A relative target is read from the link's own directory.
            normalize(
                &link_path
                    .parent()
                    .unwrap_or(Path::new("/"))
                    .join(&target.text),
            )
        };
        self.links.push((link_path, target_path));
    }

    /// The word with a leading symlink the line made replaced by its target.
    fn through_links(&self, word: &Word) -> Word {
        if self.links.is_empty() || word.dynamic {
            return word.clone();
        }
        let Some(path) = expand(word, &self.ctx).map(|p| normalize(&p)) else {
            return word.clone();
        };
        for (link, target) in self.links.iter().rev() {
            if let Ok(rest) = path.strip_prefix(link) {
                let resolved = if rest.as_os_str().is_empty() {
                    target.clone()
                } else {
                    target.join(rest)
                };
                return Word {
                    text: resolved.display().to_string(),
                    ..word.clone()
                };
            }
        }
        word.clone()
    }
}

/// Whether a path word is read from the current directory.
fn relative(word: &Word) -> bool {
    !word.text.starts_with(['/', '~', '$'])
}
