//! Trust before a project's config loosens anything.
//!
//! A cloned repository's `.loom/config.toml` is written by whoever wrote the repository.
//! It may tighten Loom freely (deny and ask rules, more forbidden paths, a stricter mode),
//! but what would loosen it — the sandbox off, full-auto, network, extra writable
//! directories, environment passed to commands, allow rules, a higher action budget, hooks
//! and auto-commit, another server, key variable or header — applies only once the person
//! has trusted that workspace: remembered per workspace path and SHA-256 of the file, so
//! an edit to the file asks again. Until then those lines are ignored, with a notice
//! naming them.
//!
//! `classify` holds the one table of every key and the split of a file by it; `store`
//! remembers trust. This module decides, for one file, what applies.

mod classify;
mod store;

use std::path::{Path, PathBuf};

pub use classify::{CLASSIFICATION, Class, KeyClass, Loosening, split};
pub use store::{
    StoreError, TrustEntry, Update, fingerprint, is_trusted, list, revoke, store_path, trust,
};

use super::FileConfig;

/// What Loom knows about trusting a workspace's config.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ProjectTrust {
    /// No project config, or nothing in it loosens anything.
    #[default]
    NotNeeded,
    /// The person trusted this exact file; everything in it applies.
    Trusted {
        /// What it loosens.
        loosened: Vec<Loosening>,
        /// The fingerprint of the file that was read.
        sha256: String,
    },
    /// Not trusted (or changed since): these lines were ignored.
    Untrusted {
        /// What was ignored.
        ignored: Vec<Loosening>,
        /// The project config file.
        file: PathBuf,
        /// The fingerprint of the bytes that were read and classified: trusting records
        /// this one, so what the person was shown is what they trust, even if the file
        /// changes meanwhile.
        sha256: String,
        /// Why the trust store could not be used, if that is (also) why.
        store_error: Option<String>,
    },
}

impl ProjectTrust {
    /// The notice for an untrusted config: what was ignored and how to trust it.
    pub fn notice(&self) -> Option<String> {
        let ProjectTrust::Untrusted {
            ignored,
            file,
            store_error,
            ..
        } = self
        else {
            return None;
        };
        let list: Vec<String> = ignored
            .iter()
            .map(|l| format!("{} ({})", l.key, l.what))
            .collect();
        let mut text = format!(
            "{} is not trusted, so these settings were ignored: {}. Run `loom trust` in this \
             workspace to see them and apply them.",
            file.display(),
            list.join("; ")
        );
        if let Some(e) = store_error {
            text.push_str(&format!(" ({e})"));
        }
        Some(text)
    }
}

/// Decide what of the project config `project` (read from `file` as `bytes`) applies in
/// `workspace`, given the person's own configuration `user` and the trust store `store`
/// (`None`: there is no data directory). Returns the part to apply and the verdict.
pub fn evaluate(
    user: &FileConfig,
    workspace: &Path,
    file: &Path,
    bytes: &[u8],
    project: FileConfig,
    store: Option<&Path>,
) -> (FileConfig, ProjectTrust) {
    let (kept, loose) = split(user, project.clone());
    if loose.is_empty() {
        return (project, ProjectTrust::NotNeeded);
    }
    let root = std::fs::canonicalize(workspace).unwrap_or_else(|_| workspace.to_path_buf());
    let sha256 = fingerprint(bytes);
    let verdict = match store {
        Some(store) => is_trusted(store, &root, &sha256).map_err(|e| e.to_string()),
        None => Err("there is no data directory, so trust cannot be remembered".to_string()),
    };
    match verdict {
        Ok(true) => (
            project,
            ProjectTrust::Trusted {
                loosened: loose,
                sha256,
            },
        ),
        Ok(false) | Err(_) => (
            kept,
            ProjectTrust::Untrusted {
                ignored: loose,
                file: file.to_path_buf(),
                sha256,
                store_error: verdict.err(),
            },
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOOSE: &str = "sandbox = \"off\"\nmodel = \"m\"\n";

    fn project() -> FileConfig {
        FileConfig::parse(LOOSE, Path::new("c.toml")).unwrap()
    }

    #[test]
    fn untrusted_until_this_exact_file_is_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("trust.json");
        let ws = dir.path();
        let file = ws.join(".loom/config.toml");
        let user = FileConfig::default();
        let (applied, verdict) =
            evaluate(&user, ws, &file, LOOSE.as_bytes(), project(), Some(&store));
        assert_eq!(applied.sandbox.sandbox, None);
        assert_eq!(
            applied.provider.model.as_deref(),
            Some("m"),
            "neutral keys apply"
        );
        let ProjectTrust::Untrusted { sha256, .. } = &verdict else {
            panic!("{verdict:?}")
        };
        assert_eq!(sha256, &fingerprint(LOOSE.as_bytes()));
        let notice = verdict.notice().unwrap();
        assert!(
            notice.contains("sandbox (switches the command sandbox off)"),
            "{notice}"
        );
        assert!(notice.contains("loom trust"), "{notice}");
        assert!(!notice.contains("model"), "{notice}");

        trust(&store, &ws.canonicalize().unwrap(), sha256).unwrap();
        let (applied, verdict) =
            evaluate(&user, ws, &file, LOOSE.as_bytes(), project(), Some(&store));
        assert_eq!(applied.sandbox.sandbox.as_deref(), Some("off"));
        assert!(
            matches!(verdict, ProjectTrust::Trusted { .. }),
            "{verdict:?}"
        );
        assert_eq!(verdict.notice(), None);

        let edited = format!("{LOOSE}\n");
        let (applied, verdict) =
            evaluate(&user, ws, &file, edited.as_bytes(), project(), Some(&store));
        assert_eq!(
            applied.sandbox.sandbox, None,
            "an edited file is untrusted again"
        );
        assert!(matches!(verdict, ProjectTrust::Untrusted { .. }));
    }

    #[test]
    fn a_damaged_or_missing_store_trusts_nothing_and_the_notice_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("trust.json");
        std::fs::write(&store, "[[[").unwrap();
        let file = dir.path().join(".loom/config.toml");
        let user = FileConfig::default();
        let (applied, verdict) = evaluate(
            &user,
            dir.path(),
            &file,
            LOOSE.as_bytes(),
            project(),
            Some(&store),
        );
        assert_eq!(applied.sandbox.sandbox, None);
        let notice = verdict.notice().unwrap();
        assert!(
            notice.contains("trust store") && notice.contains("damaged"),
            "{notice}"
        );
        let (applied, verdict) =
            evaluate(&user, dir.path(), &file, LOOSE.as_bytes(), project(), None);
        assert_eq!(applied.sandbox.sandbox, None);
        assert!(verdict.notice().unwrap().contains("no data directory"));
    }

    #[test]
    fn a_config_that_loosens_nothing_needs_no_store() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("trust.json");
        std::fs::write(&store, "[[[").unwrap();
        let text = "sandbox = \"workspace-write\"\n";
        let project = FileConfig::parse(text, Path::new("c.toml")).unwrap();
        let (applied, verdict) = evaluate(
            &FileConfig::default(),
            dir.path(),
            &dir.path().join("c.toml"),
            text.as_bytes(),
            project.clone(),
            Some(&store),
        );
        assert_eq!(applied, project);
        assert_eq!(verdict, ProjectTrust::NotNeeded);
    }
}
