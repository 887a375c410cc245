//! Where trust is remembered: `trust.json` in Loom's data directory, one entry per
//! workspace with the SHA-256 of the project config the person trusted.
//!
//! Reads never block on or trust a damaged file: an unreadable or damaged store trusts
//! nothing, and the error says so (the caller turns it into a notice). Changes are
//! serialised with a lock file and written atomically (temp file, fsync, rename), so two
//! Loom processes trusting at once both land and a crash leaves the old store or the new
//! one. A damaged store is moved aside (`trust.json.damaged`), not overwritten, when the
//! next change needs a fresh one.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::config::file::read_regular;

/// The largest trust store Loom reads (about 50,000 workspaces).
const MAX_STORE_BYTES: u64 = 8 * 1024 * 1024;

/// The trust store could not be used.
#[derive(Debug, Error)]
pub enum StoreError {
    /// The file could not be read (permissions, not a regular file, too large).
    #[error("cannot read the trust store {path}: {message}")]
    Read {
        /// The store file.
        path: PathBuf,
        /// The OS error or what is wrong with the file.
        message: String,
    },
    /// The file is not a trust store Loom wrote.
    #[error(
        "the trust store {path} is damaged ({message}); the next `loom trust` moves it aside and starts a new one"
    )]
    Damaged {
        /// The store file.
        path: PathBuf,
        /// What the JSON parser said.
        message: String,
    },
    /// A change could not be saved; the store is as it was.
    #[error("cannot save the trust store {path}: {source}")]
    Write {
        /// The store file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

/// One trusted workspace config.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrustEntry {
    /// The workspace root (canonical).
    pub workspace: PathBuf,
    /// SHA-256 of the project config file's bytes, in hex.
    pub sha256: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Store {
    trusted: Vec<TrustEntry>,
}

/// What a change to the store did besides the change itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Update {
    /// Whether the workspace had an entry before.
    pub had_entry: bool,
    /// Where a damaged store file was moved before a new one was started.
    pub set_aside: Option<PathBuf>,
}

/// Where trust is remembered (`trust.json` in the data directory).
pub fn store_path() -> Option<PathBuf> {
    crate::base::dirs::data_dir().map(|d| d.join("trust.json"))
}

/// The hex SHA-256 of `bytes`.
pub fn fingerprint(bytes: &[u8]) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, bytes);
    digest.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

fn load(path: &Path) -> Result<Store, StoreError> {
    let bytes = read_regular(path, MAX_STORE_BYTES).map_err(|e| StoreError::Read {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    match bytes {
        None => Ok(Store::default()),
        Some(b) => serde_json::from_slice(&b).map_err(|e| StoreError::Damaged {
            path: path.to_path_buf(),
            message: e.to_string(),
        }),
    }
}

/// Whether the config with fingerprint `sha256` is trusted for `workspace`. An
/// unreadable or damaged store trusts nothing (the error says why).
pub fn is_trusted(store: &Path, workspace: &Path, sha256: &str) -> Result<bool, StoreError> {
    Ok(load(store)?
        .trusted
        .iter()
        .any(|e| e.workspace == workspace && e.sha256 == sha256))
}

/// Every trusted workspace config.
pub fn list(store: &Path) -> Result<Vec<TrustEntry>, StoreError> {
    Ok(load(store)?.trusted)
}

/// Remember that the config with fingerprint `sha256` is trusted for `workspace`
/// (replacing an earlier entry for it).
pub fn trust(store: &Path, workspace: &Path, sha256: &str) -> Result<Update, StoreError> {
    update(
        store,
        |entries| {
            entries.push(TrustEntry {
                workspace: workspace.to_path_buf(),
                sha256: sha256.to_string(),
            })
        },
        workspace,
    )
}

/// Forget the trust of `workspace`.
pub fn revoke(store: &Path, workspace: &Path) -> Result<Update, StoreError> {
    update(store, |_| {}, workspace)
}

/// Under the store's lock: drop `workspace`'s entry, let `change` add what it adds, save.
fn update(
    store: &Path,
    change: impl FnOnce(&mut Vec<TrustEntry>),
    workspace: &Path,
) -> Result<Update, StoreError> {
    let write_err = |source: std::io::Error| StoreError::Write {
        path: store.to_path_buf(),
        source,
    };
    let _lock =
        crate::lockfile::exclusive(&store.with_extension("json.lock"), true).map_err(write_err)?;
    let (mut s, set_aside) = match load(store) {
        Ok(s) => (s, None),
        Err(StoreError::Damaged { .. }) => {
            let aside = store.with_extension("json.damaged");
            std::fs::rename(store, &aside).map_err(write_err)?;
            (Store::default(), Some(aside))
        }
        Err(e) => return Err(e),
    };
    let before = s.trusted.len();
    s.trusted.retain(|e| e.workspace != workspace);
    let had_entry = s.trusted.len() != before;
    change(&mut s.trusted);
    let text = serde_json::to_vec_pretty(&s).map_err(|e| write_err(std::io::Error::other(e)))?;
    crate::private::write_atomic(store, &text).map_err(write_err)?;
    Ok(Update {
        had_entry,
        set_aside,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trust_is_per_workspace_and_content() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("data/trust.json");
        let ws = Path::new("/work/repo");
        let sha = fingerprint(b"sandbox = \"off\"");
        assert!(!is_trusted(&store, ws, &sha).unwrap(), "no store yet");
        let first = trust(&store, ws, &sha).unwrap();
        assert_eq!(
            first,
            Update {
                had_entry: false,
                set_aside: None
            }
        );
        assert!(is_trusted(&store, ws, &sha).unwrap());
        assert!(!is_trusted(&store, ws, &fingerprint(b"sandbox = \"off\" ")).unwrap());
        assert!(!is_trusted(&store, Path::new("/work/other"), &sha).unwrap());
        trust(&store, Path::new("/work/other"), &sha).unwrap();
        let again = trust(&store, ws, &fingerprint(b"x")).unwrap();
        assert!(again.had_entry, "one entry per workspace");
        assert!(!is_trusted(&store, ws, &sha).unwrap(), "replaced");
        assert_eq!(list(&store).unwrap().len(), 2);
        assert!(revoke(&store, ws).unwrap().had_entry);
        assert!(!revoke(&store, ws).unwrap().had_entry);
        assert_eq!(
            list(&store).unwrap(),
            [TrustEntry {
                workspace: "/work/other".into(),
                sha256: sha
            }]
        );
    }

    #[test]
    fn the_fingerprint_is_sha256() {
        assert_eq!(
            fingerprint(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    /// A damaged store trusts nothing and says why; the next change moves it aside
    /// (nothing lost) and starts a new one.
    #[test]
    fn a_damaged_store_trusts_nothing_and_is_kept_aside() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("trust.json");
        let ws = Path::new("/work/repo");
        let sha = fingerprint(b"x");
        std::fs::write(&store, "{ not json").unwrap();
        let err = is_trusted(&store, ws, &sha).unwrap_err();
        assert!(matches!(err, StoreError::Damaged { .. }), "{err}");
        assert!(err.to_string().contains("moves it aside"), "{err}");
        assert!(list(&store).is_err());
        let up = trust(&store, ws, &sha).unwrap();
        let aside = dir.path().join("trust.json.damaged");
        assert_eq!(up.set_aside.as_deref(), Some(aside.as_path()));
        assert_eq!(std::fs::read_to_string(&aside).unwrap(), "{ not json");
        assert!(is_trusted(&store, ws, &sha).unwrap());
    }

    /// A store that is not a regular file is never read, moved or replaced.
    #[test]
    fn a_store_that_is_not_a_file_is_an_error_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("trust.json");
        std::fs::create_dir(&store).unwrap();
        let ws = Path::new("/work/repo");
        let err = is_trusted(&store, ws, "00").unwrap_err();
        assert!(matches!(err, StoreError::Read { .. }), "{err}");
        assert!(trust(&store, ws, "00").is_err());
        assert!(store.is_dir());
        std::fs::remove_dir(&store).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &store).unwrap();
        assert!(matches!(
            is_trusted(&store, ws, "00").unwrap_err(),
            StoreError::Read { .. }
        ));
    }

    /// The store is replaced whole: after many changes it parses, holds every entry, and
    /// no temporary file is left beside it.
    #[test]
    fn writes_are_whole_and_leave_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("trust.json");
        let threads: Vec<_> = (0..8)
            .map(|i| {
                let store = store.clone();
                std::thread::spawn(move || {
                    for j in 0..10 {
                        let ws = PathBuf::from(format!("/w/{i}/{j}"));
                        trust(&store, &ws, &fingerprint(ws.as_os_str().as_encoded_bytes()))
                            .unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(list(&store).unwrap().len(), 80, "the lock lost no update");
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["trust.json", "trust.json.lock"]);
    }
}
