//! `loom trust`: trust a workspace's `.loom/config.toml` from the command line (the
//! full-screen assistant asks in a prompt instead), revoke it, or list what is trusted.
//!
//! What is trusted is exactly what is shown: the file is read, classified and
//! fingerprinted once (by `config::load`), and that fingerprint is recorded.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use crate::config::file::{MAX_CONFIG_BYTES, read_regular};
use crate::config::trust::{self, ProjectTrust, Update};
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
        eprintln!("loom: there is no data directory (set HOME), so trust cannot be remembered");
        return Ok(ExitCode::FAILURE);
    };
    if list {
        return list_trusted(&mut out, &store);
    }
    if revoke {
        return revoke_trust(&mut out, &store, workspace);
    }
    let config = match config::load(workspace, flags, &|k| std::env::var(k).ok()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("loom: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let file = workspace.join(".loom/config.toml");
    let (loosened, sha256) = match &config.project_trust {
        ProjectTrust::NotNeeded if config.sources.contains(&file) => {
            writeln!(
                out,
                "{} loosens nothing; it applies without trust.",
                file.display()
            )?;
            return Ok(ExitCode::SUCCESS);
        }
        ProjectTrust::NotNeeded => {
            writeln!(
                out,
                "{} has no .loom/config.toml; there is nothing to trust.",
                workspace.display()
            )?;
            return Ok(ExitCode::SUCCESS);
        }
        ProjectTrust::Trusted { loosened, .. } => {
            writeln!(out, "{} is already trusted; it:", file.display())?;
            for l in loosened {
                writeln!(out, "  - {} ({})", l.what, l.key)?;
            }
            return Ok(ExitCode::SUCCESS);
        }
        ProjectTrust::Untrusted {
            ignored, sha256, ..
        } => (ignored, sha256),
    };
    writeln!(out, "Trusting {} lets it:", file.display())?;
    for l in loosened {
        writeln!(out, "  - {} ({})", l.what, l.key)?;
    }
    match trust::trust(&store, workspace, sha256) {
        Ok(update) => say_set_aside(&update),
        Err(e) => {
            eprintln!("loom: not trusted: {e}");
            return Ok(ExitCode::FAILURE);
        }
    }
    writeln!(
        out,
        "Trusted. Editing the file will ask again; `loom trust --revoke` undoes this."
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `loom trust --revoke`: forget the workspace's trust.
fn revoke_trust(out: &mut impl Write, store: &Path, workspace: &Path) -> anyhow::Result<ExitCode> {
    let update = match trust::revoke(store, workspace) {
        Ok(u) => u,
        Err(e) => {
            eprintln!("loom: {e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    say_set_aside(&update);
    if update.had_entry {
        writeln!(out, "{} is no longer trusted.", workspace.display())?;
    } else {
        writeln!(out, "{} was not trusted.", workspace.display())?;
    }
    Ok(ExitCode::SUCCESS)
}

fn say_set_aside(update: &Update) {
    if let Some(aside) = &update.set_aside {
        eprintln!(
            "loom: the trust store was damaged; it was moved to {} and a new one started",
            aside.display()
        );
    }
}

/// Each trusted workspace, and whether its config still is the file that was trusted.
fn list_trusted(out: &mut impl Write, store: &Path) -> anyhow::Result<ExitCode> {
    let entries = match trust::list(store) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("loom: {e}; nothing is trusted");
            return Ok(ExitCode::FAILURE);
        }
    };
    if entries.is_empty() {
        writeln!(out, "No workspace config is trusted.")?;
    }
    for e in entries {
        let now = read_regular(&e.workspace.join(".loom/config.toml"), MAX_CONFIG_BYTES);
        let state = match now {
            Ok(Some(bytes)) if trust::fingerprint(&bytes) == e.sha256 => "trusted",
            Ok(Some(_)) => "changed since it was trusted, so not trusted",
            Ok(None) => "no .loom/config.toml there now",
            Err(_) => "its .loom/config.toml cannot be read",
        };
        writeln!(
            out,
            "{}  sha256 {}  {state}",
            e.workspace.display(),
            e.sha256.get(..12).unwrap_or(&e.sha256)
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
