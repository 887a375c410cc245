//! Atomic file replacement: a file is either its old self or its new self, never half of
//! each, whatever happens (a crash, a kill -9, a full disk) in between.
//!
//! The new bytes go to a temporary file in the same directory, are flushed to disk, take
//! the old file's permissions, and are renamed over the target; the directory is then
//! synced so the rename itself survives a power loss.

use std::fs::{self, File, Permissions};
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Permissions given to files that did not exist before (the usual `0644`).
const NEW_FILE_MODE: u32 = 0o644;

/// Replace (or create) `path` with `bytes` atomically, creating parent directories and
/// keeping the existing file's permissions.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| std::io::Error::other("path has no parent directory"))?;
    fs::create_dir_all(dir)?;
    let permissions = match fs::metadata(path) {
        Ok(meta) if meta.is_dir() => {
            return Err(std::io::Error::other(
                "is a directory; give a file path inside it",
            ));
        }
        Ok(meta) => meta.permissions(),
        Err(_) => Permissions::from_mode(NEW_FILE_MODE),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".loom-tmp-")
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().set_permissions(permissions)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_parents_and_file_with_default_mode() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a/b/c.txt");
        write_atomic(&p, b"hi").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"hi");
        let mode = fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, NEW_FILE_MODE);
    }

    #[test]
    fn keeps_permissions_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("run.sh");
        fs::write(&p, "old").unwrap();
        fs::set_permissions(&p, Permissions::from_mode(0o755)).unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "new");
        assert_eq!(
            fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o755
        );
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn refuses_directories() {
        let dir = tempfile::tempdir().unwrap();
        let err = write_atomic(dir.path(), b"x").unwrap_err();
        assert!(err.to_string().contains("directory"));
    }
}
