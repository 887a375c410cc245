//! Symbolic links already on disk that lead to protected paths.
//!
//! A repository can hold a symlink (`keys -> ../../../root/.ssh`, `home -> ~`); a clone
//! brings it into the workspace before Loom starts. `cat keys/id_rsa` is judged through
//! the link already, but a glob (`cat *`, `head */*`) or a search that follows links
//! (`grep -R`, `rg -L`) reads through it without naming it. So a glob is expanded on disk
//! and every match judged as the path it resolves to, and a tree read that follows links
//! is searched for links that lead to protected paths. Both are bounded: past the budget
//! the answer is "may", which asks.

use std::path::{Path, PathBuf};

use super::CommandContext;
use loom_base::paths::ForbiddenMatch;

/// Most directory entries one glob expansion or tree search looks at.
pub const MAX_ENTRIES: usize = 20_000;

/// What a search for links found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// No link leads to a protected path.
    Nothing,
    /// This link does (its path, and the protected path's label).
    Link(PathBuf, String),
    /// Too many entries to look at all of them.
    TooMany,
}

/// The label of the protected path (read rules only) that `real` lies in or holds.
pub fn protects(real: &Path, ctx: &CommandContext) -> Option<String> {
    ctx.protected
        .iter()
        .filter(|r| r.applies_to_reads)
        .find_map(|rule| match &rule.matcher {
            ForbiddenMatch::Under(dir) if real.starts_with(dir) || dir.starts_with(real) => {
                Some(rule.label.clone())
            }
            _ => None,
        })
}

/// Every existing path the glob `pattern` (absolute, normalised) matches, as the shell
/// would expand it (hidden names only when the component starts with `.`); `None` when
/// expanding it would look at more than [`MAX_ENTRIES`] entries.
pub fn expand_glob(pattern: &Path) -> Option<Vec<PathBuf>> {
    let mut current = vec![PathBuf::from("/")];
    let mut seen = 0usize;
    for component in pattern.components().skip(1) {
        let part = component.as_os_str().to_string_lossy();
        let mut next = Vec::new();
        if part.contains(['*', '?', '[']) {
            let matcher = globset::GlobBuilder::new(&part)
                .literal_separator(true)
                .build()
                .ok()?
                .compile_matcher();
            for dir in &current {
                let Ok(entries) = std::fs::read_dir(dir) else {
                    continue;
                };
                for entry in entries.flatten() {
                    seen += 1;
                    if seen > MAX_ENTRIES {
                        return None;
                    }
                    let name = entry.file_name();
                    let name = name.to_string_lossy();
                    if name.starts_with('.') && !part.starts_with('.') {
                        continue;
                    }
                    if matcher.is_match(&*name) {
                        next.push(dir.join(&*name));
                    }
                }
            }
        } else {
            next.extend(current.iter().map(|dir| dir.join(&*part)));
        }
        current = next;
        if current.is_empty() {
            break;
        }
    }
    Some(current.into_iter().filter(|p| p.exists()).collect())
}

/// Search the tree at `root` (not following links) for a symbolic link that resolves to,
/// or to a directory holding, a protected path. `.git` is skipped (git keeps no links
/// there that a search reads).
pub fn links_into_protected(root: &Path, ctx: &CommandContext) -> Found {
    let walk = ignore::WalkBuilder::new(root)
        .standard_filters(false)
        .follow_links(false)
        .filter_entry(|e| e.file_name() != ".git")
        .build();
    for (seen, entry) in walk.enumerate() {
        if seen > MAX_ENTRIES {
            return Found::TooMany;
        }
        let Ok(entry) = entry else { continue };
        if !entry.path_is_symlink() {
            continue;
        }
        if let Ok(real) = std::fs::canonicalize(entry.path())
            && let Some(label) = protects(&real, ctx)
        {
            return Found::Link(entry.path().to_path_buf(), label);
        }
    }
    Found::Nothing
}

#[cfg(test)]
mod tests {
    use super::*;
    use loom_base::paths::ForbiddenRule;

    fn ctx(home: &Path, ws: &Path) -> CommandContext {
        CommandContext {
            workspace: ws.to_path_buf(),
            cwd: ws.to_path_buf(),
            protected: ForbiddenRule::defaults(Some(home)),
            home: Some(home.to_path_buf()),
        }
    }

    #[test]
    fn links_to_secrets_are_found_in_globs_and_trees() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::write(home.join(".ssh/id_rsa"), "KEY").unwrap();
        std::fs::create_dir_all(ws.join("src")).unwrap();
        std::fs::write(ws.join("src/a.rs"), "fn main() {}").unwrap();
        let c = ctx(&home, &ws);
        assert_eq!(links_into_protected(&ws, &c), Found::Nothing);
        std::os::unix::fs::symlink(home.join(".ssh/id_rsa"), ws.join("src/key")).unwrap();
        assert!(
            matches!(links_into_protected(&ws, &c), Found::Link(p, _) if p.ends_with("src/key"))
        );
        let matches = expand_glob(&ws.join("*/*")).unwrap();
        assert!(matches.contains(&ws.join("src/key")), "{matches:?}");
        assert!(matches.contains(&ws.join("src/a.rs")));
        assert!(expand_glob(&ws.join("*.none")).unwrap().is_empty());
    }
}
