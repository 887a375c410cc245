//! Where a path word of a command points, and whether it names something protected.
//!
//! [`place`] resolves a word the way the command would see it (`~`, `$HOME`, `$PWD`, the
//! tracked working directory, symlinks) and says whether it is inside the workspace, its
//! root, the system root, a device or somewhere else. [`protected`] checks the same path
//! against the rules the file tools obey (`~/.ssh`, `~/.aws`, `~/.gnupg`, configured
//! `forbidden_paths`, `.git/` and `.loom/` for writes) plus other processes' memory and
//! environment under `/proc`, so a command cannot read what `read_file` refuses.

use std::path::{Component, Path, PathBuf};

use super::CommandContext;
use super::parse::Word;
use loom_base::paths::{Access, ForbiddenMatch};

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

/// The path a word names, before symlinks are resolved; `None` when it is only known at
/// run time.
pub(super) fn expand(word: &Word, ctx: &CommandContext) -> Option<PathBuf> {
    let text = word.text.as_str();
    let home_var = ["$HOME", "${HOME}"]
        .iter()
        .find_map(|v| text.strip_prefix(v));
    if let Some(rest) = home_var {
        if rest.contains('$') {
            return None;
        }
        return ctx
            .home
            .as_ref()
            .map(|h| h.join(rest.trim_start_matches('/')));
    }
    if word.dynamic {
        let rest = ["$PWD", "${PWD}"]
            .iter()
            .find_map(|v| text.strip_prefix(v))?;
        if rest.contains('$') {
            return None;
        }
        return Some(ctx.cwd.join(rest.trim_start_matches('/')));
    }
    // The command's own working directory, as the kernel gives it to the command (not
    // Loom's, which resolving the link here would give).
    if let Some(rest) = ["/proc/self/cwd", "/proc/thread-self/cwd"]
        .iter()
        .find_map(|p| text.strip_prefix(p))
        .filter(|r| r.is_empty() || r.starts_with('/'))
    {
        return Some(ctx.cwd.join(rest.trim_start_matches('/')));
    }
    if let Some(rest) = text
        .strip_prefix("~+")
        .filter(|r| r.is_empty() || r.starts_with('/'))
    {
        // bash reads `~+` as $PWD.
        return Some(ctx.cwd.join(rest.trim_start_matches('/')));
    }
    if text.starts_with("~-") {
        return None;
    }
    if text == "~" || text.starts_with("~/") {
        return ctx
            .home
            .as_ref()
            .map(|h| h.join(text.trim_start_matches('~').trim_start_matches('/')));
    }
    if let Some(rest) = text.strip_prefix('~') {
        let (user, tail) = rest.split_once('/').unwrap_or((rest, ""));
        let home = nix::unistd::User::from_name(user).ok().flatten()?.dir;
        return Some(home.join(tail));
    }
    Some(ctx.cwd.join(text))
}

/// Resolve a path word the way the command would see it.
pub fn place(word: &Word, ctx: &CommandContext) -> Place {
    let Some(expanded) = expand(word, ctx) else {
        return if word.text.starts_with('~') {
            Place::Outside(PathBuf::from(&word.text))
        } else {
            Place::Unknown
        };
    };
    let path = normalize(&expanded);
    let shown = path.display().to_string();
    if matches!(
        shown.as_str(),
        "/dev/null"
            | "/dev/stdout"
            | "/dev/stderr"
            | "/dev/stdin"
            | "/dev/tty"
            | "/dev/zero"
            | "/dev/full"
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
    // `/proc/self/root/dev/sda`, `/var/run/../dev/sda`: the path as the kernel resolves it.
    let resolved = real_path(&expanded);
    if let Some(dev) = resolved.to_str().and_then(|r| r.strip_prefix("/dev/"))
        && !dev.starts_with("fd/")
        && !dev.starts_with("pts/")
        && !matches!(
            dev,
            "null" | "stdout" | "stderr" | "stdin" | "tty" | "zero" | "full" | "random" | "urandom"
        )
    {
        return Place::Device(dev.to_string());
    }
    let glob_all = word.glob && matches_every_name(super::basename(&word.text));
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
    let real = real_path(&path);
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

/// Whether a glob component matches every (non-hidden) name a directory may hold, as `*`
/// does: it holds a `*` and nothing but wildcards and bracket expressions (`?*`, `*?`,
/// `[a-z]*`, `[!.]*`, `**`), so `rm -rf ?*` empties the directory like `rm -rf *`.
pub(super) fn matches_every_name(component: &str) -> bool {
    let bytes = component.as_bytes();
    let mut star = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'*' => {
                star = true;
                i += 1;
            }
            b'?' => i += 1,
            b'[' => {
                // A bracket expression: `]` right after `[` or `[!`/`[^` is a member.
                let mut j = i + 1;
                if matches!(bytes.get(j), Some(b'!' | b'^')) {
                    j += 1;
                }
                if bytes.get(j) == Some(&b']') {
                    j += 1;
                }
                match bytes[j.min(bytes.len())..].iter().position(|&b| b == b']') {
                    Some(k) => i = j + k + 1,
                    None => return false,
                }
            }
            _ => return false,
        }
    }
    star
}

/// The path with every existing prefix's symlinks resolved (the missing rest kept).
fn real_path(path: &Path) -> PathBuf {
    if let Ok(real) = std::fs::canonicalize(path) {
        return real;
    }
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    while let Some(name) = existing.file_name().map(|n| n.to_os_string()) {
        existing.pop();
        rest.push(name);
        if let Ok(real) = std::fs::canonicalize(&existing) {
            let mut out = real;
            out.extend(rest.iter().rev());
            return out;
        }
    }
    path.to_path_buf()
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

/// Files under `/proc/PID/` that expose another process's memory, environment or files.
const PROC_SECRETS: &[&str] = &[
    "environ",
    "mem",
    "root",
    "cwd",
    "fd",
    "map_files",
    "pagemap",
    "auxv",
    "maps",
    "smaps",
    "cmdline",
    "syscall",
    "stack",
    "task",
];

/// Why reading `/proc/...` this way exposes another process, if it does.
fn proc_secret(text: &str) -> Option<String> {
    let rest = text.strip_prefix("/proc/")?;
    let mut parts = rest.split('/');
    let pid = parts.next().unwrap_or("");
    let per_process = pid.chars().all(|c| c.is_ascii_digit())
        || matches!(pid, "self" | "thread-self")
        || pid.contains(['$', '*', '?', '[']);
    let file = parts.next().unwrap_or("");
    let secret = PROC_SECRETS.contains(&file) || file.contains(['$', '*', '?', '[']);
    (per_process && !pid.is_empty() && secret).then(|| {
        format!("reads {text}, another process's memory, environment or files (protected)")
    })
}

/// What is protected about a path word: `Some(reason)` when the command would read (or,
/// for `Access::Write`, write) a protected path; the reason names the path.
pub fn protected(word: &Word, ctx: &CommandContext, access: Access) -> Option<String> {
    if let Some(reason) = proc_secret(&word.text) {
        return Some(reason);
    }
    let expanded = expand(word, ctx)?;
    let path = normalize(&expanded);
    if let Some(reason) = proc_secret(&path.to_string_lossy()) {
        return Some(reason);
    }
    if word.glob {
        return glob_may_match(&path, ctx, access);
    }
    let real = real_path(&path);
    // Resolving before `..` is removed matters: `/var/run/../etc/shadow` is /etc/shadow
    // when /var/run is a symlink to /run.
    let real_raw = real_path(&expanded);
    for candidate in [&path, &real, &real_raw] {
        for rule in &ctx.protected {
            if access == Access::Read && !rule.applies_to_reads {
                continue;
            }
            let hit = match &rule.matcher {
                ForbiddenMatch::Under(dir) => candidate.starts_with(dir),
                ForbiddenMatch::ComponentNamed(name) => candidate
                    .strip_prefix(&ctx.workspace)
                    .unwrap_or(candidate)
                    .components()
                    .any(|c| c.as_os_str() == name.as_str()),
            };
            if hit {
                return Some(format!(
                    "{} {} (protected: {})",
                    match access {
                        Access::Read => "reads",
                        Access::Write => "writes",
                    },
                    word.text,
                    rule.label
                ));
            }
        }
    }
    None
}

/// For a glob, whether any protected path could be among its matches: the literal part
/// before the first glob character is a prefix of a protected directory or lies in one.
fn glob_may_match(path: &Path, ctx: &CommandContext, access: Access) -> Option<String> {
    let text = path.to_string_lossy();
    let cut = text.find(['*', '?', '[']).unwrap_or(text.len());
    let prefix = &text[..cut];
    let literal_dir = match prefix.rfind('/') {
        Some(i) => &prefix[..=i],
        None => "",
    };
    for rule in &ctx.protected {
        if access == Access::Read && !rule.applies_to_reads {
            continue;
        }
        let hit = match &rule.matcher {
            ForbiddenMatch::Under(dir) => {
                let d = dir.to_string_lossy();
                d.starts_with(literal_dir) || Path::new(literal_dir).starts_with(dir)
            }
            ForbiddenMatch::ComponentNamed(name) => text.split('/').any(|part| {
                part == name
                    || ((part.starts_with('.') || !name.starts_with('.'))
                        && globset::Glob::new(part)
                            .map(|g| g.compile_matcher().is_match(name))
                            .unwrap_or(true))
            }),
        };
        if hit {
            return Some(format!(
                "the pattern {text} may match protected files ({})",
                rule.label
            ));
        }
    }
    if access == Access::Write {
        return None;
    }
    // What the pattern matches on disk, through any symlink (a repository's `keys ->
    // ~/.ssh` makes `cat */*` read the keys).
    let Some(matches) = super::links::expand_glob(path) else {
        return Some(format!(
            "the pattern {text} matches more files than Loom checks for links to protected files"
        ));
    };
    matches.iter().find_map(|m| {
        let real = std::fs::canonicalize(m).ok()?;
        let label = super::links::protects(&real, ctx)?;
        Some(format!(
            "the pattern {text} matches {}, which leads to {} (protected: {label})",
            m.display(),
            real.display()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use loom_base::paths::ForbiddenRule;

    fn ctx() -> CommandContext {
        let home = PathBuf::from("/home/dev");
        CommandContext {
            workspace: PathBuf::from("/work/project"),
            cwd: PathBuf::from("/work/project"),
            protected: ForbiddenRule::defaults(Some(&home)),
            home: Some(home),
        }
    }

    fn w(t: &str) -> Word {
        Word::literal(t)
    }

    #[test]
    fn secrets_are_found_through_every_spelling() {
        let c = ctx();
        for t in [
            "~/.ssh/id_rsa",
            "/home/dev/.aws/credentials",
            "../../../home/dev/.gnupg/x",
        ] {
            assert!(protected(&w(t), &c, Access::Read).is_some(), "{t}");
        }
        let home = w("$HOME/.ssh/id_rsa").with_dynamic(true);
        assert!(protected(&home, &c, Access::Read).is_some());
        let mut g = w("/home/*/.ssh/id_rsa");
        g.glob = true;
        assert!(protected(&g, &c, Access::Read).is_some());
        for t in ["/proc/self/environ", "/proc/1/mem", "/proc/$PPID/environ"] {
            assert!(protected(&w(t), &c, Access::Read).is_some(), "{t}");
        }
        for t in ["src/main.rs", "/etc/hosts", "/proc/cpuinfo", ".git/config"] {
            assert!(protected(&w(t), &c, Access::Read).is_none(), "{t}");
        }
        assert!(protected(&w(".git/hooks/pre-commit"), &c, Access::Write).is_some());
        let mut g = w("src/*.rs");
        g.glob = true;
        assert!(protected(&g, &c, Access::Read).is_none());
    }
}
