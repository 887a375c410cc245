//! Custom slash commands: Markdown files whose body is a prompt, found in the workspace's
//! `.loom/commands/` and `.claude/commands/` and the person's `~/.config/loom/commands/`
//! and `~/.claude/commands/` (Claude Code's files work unchanged). A file's path below its
//! directory names the command: `review.md` is `/review`, `frontend/component.md` is
//! `/frontend:component`. Its frontmatter may give a `description`, an `argument-hint`, a
//! `model` and `allowed-tools` (`frontmatter.rs`); its body may use `$ARGUMENTS`, `$1`…`$9`,
//! `@file` and `` !`command` `` (`expand.rs`). A project's `model` and `allowed-tools` take
//! effect only in a trusted workspace; allowed tools only ever narrow what a turn may use
//! (`allowed.rs`). Nothing in a file stops it loading: problems become warnings.

pub mod allowed;
pub mod expand;
pub mod frontmatter;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use crate::protocol::custom_command::{CommandScope, CustomCommandInfo};
pub use allowed::ToolFilter;

/// The largest command file read (a prompt, not a document).
pub const MAX_FILE_BYTES: u64 = 256 * 1024;
/// How deep subdirectories are searched.
const MAX_DEPTH: usize = 6;

/// One loaded command.
#[derive(Debug, Clone, PartialEq)]
pub struct CustomCommand {
    /// What the popup shows.
    pub info: CustomCommandInfo,
    /// The prompt, before expansion.
    pub body: String,
    /// The model the command's turn uses, if it names one and may (see [`Source`]).
    pub model: Option<String>,
    /// The tools the command's turn may use, if it lists them and may.
    pub allowed: Option<ToolFilter>,
}

/// Where commands are looked for, and whether the project's may choose a model and tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The workspace root (its `.loom/commands/` and `.claude/commands/`).
    pub workspace: Option<PathBuf>,
    /// The person's command directories, first wins.
    pub user_dirs: Vec<PathBuf>,
    /// The workspace is trusted: its commands' `model` and `allowed-tools` apply.
    pub trusted: bool,
}

impl Source {
    /// The standard places: `~/.config/loom/commands/` and `~/.claude/commands/`.
    pub fn standard(workspace: &Path, trusted: bool) -> Source {
        let mut user_dirs = Vec::new();
        if let Some(config) = crate::config::user_config_path()
            && let Some(dir) = config.parent()
        {
            user_dirs.push(dir.join("commands"));
        }
        if let Some(base) = directories::BaseDirs::new() {
            user_dirs.push(base.home_dir().join(".claude").join("commands"));
        }
        Source {
            workspace: Some(workspace.to_path_buf()),
            user_dirs,
            trusted,
        }
    }

    /// Every directory searched, first wins, with its scope: the project's first in a
    /// trusted workspace; in an untrusted one the person's own come first, so a
    /// repository cannot take the name of one of their commands.
    fn dirs(&self) -> Vec<(PathBuf, CommandScope)> {
        let mut project = Vec::new();
        if let Some(ws) = &self.workspace {
            for d in [".loom", ".claude"] {
                project.push((ws.join(d).join("commands"), CommandScope::Project));
            }
        }
        let user = self
            .user_dirs
            .iter()
            .map(|d| (d.clone(), CommandScope::User));
        if self.trusted {
            project.extend(user);
            project
        } else {
            let mut dirs: Vec<_> = user.collect();
            dirs.extend(project);
            dirs
        }
    }
}

/// The loaded commands and what was wrong with their files.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Catalog {
    /// By name.
    pub commands: BTreeMap<String, CustomCommand>,
    /// Each problem, naming its file.
    pub warnings: Vec<String>,
}

impl Catalog {
    /// The list front ends show, sorted by name.
    pub fn infos(&self) -> Vec<CustomCommandInfo> {
        self.commands.values().map(|c| c.info.clone()).collect()
    }
}

/// Load every command of `source`. A name found twice keeps the first (project before
/// user, `.loom` before `.claude`) and warns about the other.
pub fn load(source: &Source) -> Catalog {
    let mut catalog = Catalog::default();
    for (dir, scope) in source.dirs() {
        let mut files = Vec::new();
        collect(&dir, &dir, 0, &mut files, &mut catalog.warnings);
        files.sort();
        for (name, path) in files {
            let shown = shown_path(&path, source.workspace.as_deref(), scope);
            if let Some(first) = catalog.commands.get(&name) {
                catalog.warnings.push(format!(
                    "{shown}: /{name} is already defined by {}; that one is used",
                    first.info.file
                ));
                continue;
            }
            let may_restrict = scope == CommandScope::User || source.trusted;
            if let Some(command) = read_one(
                &name,
                &path,
                &shown,
                scope,
                may_restrict,
                &mut catalog.warnings,
            ) {
                catalog.commands.insert(name, command);
            }
        }
    }
    catalog
}

/// The `.md` files below `dir`, named by their path below `root` (`a/b.md` is `a:b`).
fn collect(
    root: &Path,
    dir: &Path,
    depth: usize,
    out: &mut Vec<(String, PathBuf)>,
    warnings: &mut Vec<String>,
) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        // Links are not followed into directories (a loop of them would walk forever), and
        // a linked file counts only when it is a regular file inside these commands (not a
        // device that never ends, nor a secret elsewhere read in as a prompt).
        if kind.is_dir() {
            if depth < MAX_DEPTH {
                collect(root, &path, depth + 1, out, warnings);
            }
            continue;
        }
        if path.extension().is_none_or(|e| e != "md") {
            continue;
        }
        if kind.is_symlink() && !links_inside(root, &path) {
            warnings.push(format!(
                "{}: a link to something that is not a file of these commands; left out",
                path.display()
            ));
            continue;
        }
        if !kind.is_symlink() && !kind.is_file() {
            continue;
        }
        let Ok(rel) = path
            .with_extension("")
            .strip_prefix(root)
            .map(Path::to_path_buf)
        else {
            continue;
        };
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let name = parts.join(":");
        if name.is_empty() || name.contains(char::is_whitespace) || name.starts_with('/') {
            warnings.push(format!(
                "{}: a command's name cannot hold spaces; rename the file",
                path.display()
            ));
            continue;
        }
        out.push((name, path));
    }
}

/// Whether the link at `path` leads to a regular file beneath `root`.
fn links_inside(root: &Path, path: &Path) -> bool {
    match (std::fs::canonicalize(root), std::fs::canonicalize(path)) {
        (Ok(root), Ok(target)) => {
            target.starts_with(&root) && std::fs::metadata(&target).is_ok_and(|m| m.is_file())
        }
        _ => false,
    }
}

/// How a command's file is shown: workspace-relative for a project's, else whole.
fn shown_path(path: &Path, workspace: Option<&Path>, scope: CommandScope) -> String {
    match (scope, workspace) {
        (CommandScope::Project, Some(ws)) => path
            .strip_prefix(ws)
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| path.display().to_string()),
        _ => path.display().to_string(),
    }
}

/// Read one command file; `None` (with a warning) when it cannot be read at all.
fn read_one(
    name: &str,
    path: &Path,
    shown: &str,
    scope: CommandScope,
    may_restrict: bool,
    warnings: &mut Vec<String>,
) -> Option<CustomCommand> {
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    if size > MAX_FILE_BYTES {
        warnings.push(format!(
            "{shown}: {size} bytes is more than a command may hold ({} KiB); left out",
            MAX_FILE_BYTES / 1024
        ));
        return None;
    }
    // Read at most one byte past the limit, whatever the size said.
    let read = std::fs::File::open(path).and_then(|f| {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::Read::take(f, MAX_FILE_BYTES + 1), &mut bytes)
            .map(|_| bytes)
    });
    let bytes = match read {
        Ok(b) if b.len() as u64 > MAX_FILE_BYTES => {
            warnings.push(format!(
                "{shown}: more than a command may hold ({} KiB); left out",
                MAX_FILE_BYTES / 1024
            ));
            return None;
        }
        Ok(b) => b,
        Err(e) => {
            warnings.push(format!("{shown}: cannot be read ({e}); left out"));
            return None;
        }
    };
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            warnings.push(format!("{shown}: not UTF-8; odd bytes were replaced"));
            String::from_utf8_lossy(e.as_bytes()).into_owned()
        }
    };
    let parsed = frontmatter::parse(&text);
    warnings.extend(parsed.warnings.iter().map(|w| format!("{shown}: {w}")));
    let front = parsed.front;
    let ignored = |key: &str| {
        format!("{shown}: `{key}` applies only in a trusted workspace (`loom trust`); ignored")
    };
    if !may_restrict {
        if front.model.is_some() {
            warnings.push(ignored("model"));
        }
        if front.allowed_tools.is_some() {
            warnings.push(ignored("allowed-tools"));
        }
    }
    let allowed = front.allowed_tools.filter(|_| may_restrict).map(|tools| {
        let (filter, problems) = ToolFilter::parse(&tools);
        warnings.extend(problems.into_iter().map(|p| format!("{shown}: {p}")));
        filter
    });
    let description = front
        .description
        .filter(|d| !d.is_empty())
        .or_else(|| first_line(&parsed.body))
        .unwrap_or_else(|| format!("({})", scope.label()));
    Some(CustomCommand {
        info: CustomCommandInfo {
            name: name.to_string(),
            description,
            argument_hint: front.argument_hint.filter(|h| !h.is_empty()),
            scope,
            file: shown.to_string(),
        },
        body: parsed.body,
        model: front.model.filter(|_| may_restrict),
        allowed,
    })
}

/// The body's first non-empty line, as a description when the file gives none.
fn first_line(body: &str) -> Option<String> {
    let line = body.lines().map(str::trim).find(|l| !l.is_empty())?;
    Some(crate::base::text::truncate(
        line.trim_start_matches('#').trim(),
        80,
    ))
}

#[cfg(test)]
mod tests;
