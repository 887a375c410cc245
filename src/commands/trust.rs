//! `loom trust`: trust a workspace's `.loom/config.toml` from the command line (the
//! full-screen assistant asks in a prompt instead), revoke it, or list what is trusted.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use crate::config::trust::{self, ProjectTrust};
use crate::config::{self, FlagConfig};

/// Show what the project config loosens and record trust in it (or revoke, or list).
pub fn run(
    flags: &FlagConfig,
    workspace: &Path,
    revoke: bool,
    list: bool,
) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let Some(store) = trust::store_path() else {
        eprintln!("loom: no data directory, so trust cannot be remembered");
        return Ok(ExitCode::FAILURE);
    };
    if list {
        match trust::list(&store) {
            Ok(entries) if entries.is_empty() => writeln!(out, "No workspace config is trusted.")?,
            Ok(entries) => {
                for e in entries {
                    writeln!(
                        out,
                        "{}  (sha256 {})",
                        e.workspace.display(),
                        &e.sha256[..12]
                    )?;
                }
            }
            Err(e) => {
                eprintln!("loom: the trust store cannot be read ({e}); nothing is trusted");
                return Ok(ExitCode::FAILURE);
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    if revoke {
        if trust::revoke(&store, workspace)? {
            writeln!(out, "{} is no longer trusted.", workspace.display())?;
        } else {
            writeln!(out, "{} was not trusted.", workspace.display())?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let file = workspace.join(".loom/config.toml");
    let bytes = match std::fs::read(&file) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            writeln!(
                out,
                "{} has no .loom/config.toml; there is nothing to trust.",
                workspace.display()
            )?;
            return Ok(ExitCode::SUCCESS);
        }
        Err(e) => {
            eprintln!("loom: {}: {e}", file.display());
            return Ok(ExitCode::FAILURE);
        }
    };
    let config = match config::load(workspace, flags, &|k| std::env::var(k).ok()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("loom: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let loosened = match &config.project_trust {
        ProjectTrust::NotNeeded => {
            writeln!(
                out,
                "{} loosens nothing; it applies without trust.",
                file.display()
            )?;
            return Ok(ExitCode::SUCCESS);
        }
        ProjectTrust::Trusted(l) => l.clone(),
        ProjectTrust::Untrusted { ignored, .. } => ignored.clone(),
    };
    writeln!(out, "Trusting {} lets it:", file.display())?;
    for l in &loosened {
        writeln!(out, "  - {} ({})", l.what, l.key)?;
    }
    trust::trust(&store, workspace, &bytes)?;
    writeln!(
        out,
        "Trusted. Editing the file will ask again; `loom trust --revoke` undoes this."
    )?;
    Ok(ExitCode::SUCCESS)
}
