//! The system prompt: who Loom is, where it works, how to work, and the project's
//! own instructions from `AGENTS.md` files (repository root down to the working directory,
//! bounded in size).

use std::path::Path;

/// The prompt template, embedded at build time.
const TEMPLATE: &str = include_str!("../../../../assets/system_prompt.md");
/// Most bytes of AGENTS.md text included in total.
pub const AGENTS_MD_BUDGET: usize = 32 * 1024;

/// An instructions file found in the project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectInstructions {
    /// Workspace-relative path of the file.
    pub path: String,
    /// Its text (possibly cut to the budget).
    pub text: String,
}

/// `AGENTS.md` files from `root` down to `cwd` (outermost first), within the budget.
///
/// Each is opened beneath the workspace root with no symlink followed and read only when it
/// is a regular file, at most the budget: a repository's `AGENTS.md` that is a symlink to
/// `~/.aws/credentials` (or a FIFO) would otherwise go to the model provider in the system
/// prompt of every session.
pub fn agents_md(root: &Path, cwd: &Path) -> Vec<ProjectInstructions> {
    let Ok(beneath) = crate::base::beneath::Beneath::open(root) else {
        return Vec::new();
    };
    let mut dirs = vec![std::path::PathBuf::new()];
    if let Ok(rel) = cwd.strip_prefix(root) {
        let mut dir = std::path::PathBuf::new();
        for c in rel.components() {
            dir.push(c);
            dirs.push(dir.clone());
        }
    }
    let mut budget = AGENTS_MD_BUDGET;
    let mut found = Vec::new();
    for dir in dirs {
        let rel = dir.join("AGENTS.md");
        if budget == 0 {
            break;
        }
        let Ok((file, _)) = beneath.open_regular(&rel) else {
            continue;
        };
        let mut bytes = Vec::new();
        if std::io::Read::read_to_end(
            &mut std::io::Read::take(file, budget as u64 + 1),
            &mut bytes,
        )
        .is_err()
        {
            continue;
        }
        let mut text = String::from_utf8_lossy(&bytes).into_owned();
        if text.len() > budget {
            let cut = crate::base::text::floor_char_boundary(&text, budget);
            text.truncate(cut);
            text.push_str("\n[… cut: AGENTS.md files exceed 32 KiB …]");
        }
        budget = budget.saturating_sub(text.len());
        let path = rel.to_string_lossy().into_owned();
        found.push(ProjectInstructions { path, text });
    }
    found
}

/// The system prompt for a session. The tools are not named here: their schemas (or, for
/// a template without tools, their text) name them.
pub fn system_prompt(workspace: &str, instructions: &[ProjectInstructions]) -> String {
    let shell = "sh (POSIX)";
    let os = format!("{} {}", std::env::consts::OS, std::env::consts::ARCH);
    let mut prompt = TEMPLATE
        .replace("{workspace}", workspace)
        .replace("{os}", &os)
        .replace("{shell}", shell);
    for ins in instructions {
        prompt.push_str(&format!(
            "\n\nProject instructions from {} (follow them):\n{}",
            ins.path,
            ins.text.trim_end()
        ));
    }
    prompt
}

/// The prompt for a window too small for the full one (issue 24): who Loom is and where
/// it works, in one paragraph; no guidelines, project instructions or memories.
pub fn short_system_prompt(workspace: &str) -> String {
    format!(
        "You are Loom, a coding assistant in the user's repository ({workspace}). Read files \
         before editing them; edit with the editing tool, not through bash. Be brief."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_names_workspace_os_and_instructions() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("sub/deeper")).unwrap();
        std::fs::write(dir.path().join("AGENTS.md"), "Use tabs.").unwrap();
        std::fs::write(dir.path().join("sub/AGENTS.md"), "Run make test.").unwrap();
        std::fs::write(dir.path().join("other.md"), "ignored").unwrap();
        let found = agents_md(dir.path(), &dir.path().join("sub/deeper"));
        assert_eq!(
            found.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(),
            vec!["AGENTS.md", "sub/AGENTS.md"]
        );
        let p = system_prompt("/w", &found);
        assert!(p.contains("Workspace: /w"));
        assert!(p.contains(std::env::consts::OS));
        assert!(p.contains("Use tabs.") && p.contains("Run make test."));
        assert!(!p.contains("{workspace}"));
    }

    /// Regression (found with issue 16's `/init`): an `AGENTS.md` that is a symlink out of
    /// the workspace was read, so a repository could send any file of the user's to the
    /// model provider in the system prompt. Symlinks and special files are skipped.
    #[test]
    fn a_symlinked_or_special_agents_md_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("credentials"), "aws_secret=XYZ").unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("credentials"),
            dir.path().join("AGENTS.md"),
        )
        .unwrap();
        std::fs::create_dir_all(dir.path().join("sub")).unwrap();
        nix::unistd::mkfifo(
            &dir.path().join("sub/AGENTS.md"),
            nix::sys::stat::Mode::from_bits_truncate(0o600),
        )
        .unwrap();
        let found = agents_md(dir.path(), &dir.path().join("sub"));
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn instructions_are_bounded() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("AGENTS.md"), "x".repeat(100_000)).unwrap();
        let found = agents_md(dir.path(), dir.path());
        assert!(found[0].text.len() < AGENTS_MD_BUDGET + 100);
        assert!(found[0].text.contains("cut"));
    }
}
