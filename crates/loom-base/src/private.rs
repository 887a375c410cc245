//! Loom's own files are the user's alone: directories `0700`, files `0600`.
//!
//! The data directory holds whole conversations (sessions), copies of every file an edit
//! touched (the undo journal and its snapshots), memories, schedules and the trust store;
//! created with the process umask they were `0755`/`0644`, readable by every local user.
//! Everything Loom writes there goes through this module, which gives the mode when the
//! file or directory is created (`OpenOptions::mode`, `DirBuilder::mode`), so there is no
//! moment when it is open to others, whatever the umask (even `0`). A data directory made
//! by an older Loom is closed once at start ([`close_data_dir`]): nothing below a `0700`
//! directory is reachable by others.

use std::fs::{self, DirBuilder, File, OpenOptions, Permissions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// The mode of every directory Loom creates for itself.
pub const DIR_MODE: u32 = 0o700;
/// The mode of every file Loom creates for itself.
pub const FILE_MODE: u32 = 0o600;

/// `path` and its missing parents, each created `0700` (as the XDG base directory
/// specification asks of a missing data directory). Directories already there are left
/// as they are.
pub fn create_dir_all(path: &Path) -> std::io::Result<()> {
    DirBuilder::new()
        .recursive(true)
        .mode(DIR_MODE)
        .create(path)
}

/// Options that create a file `0600`; the caller adds read, write, append, create…
pub fn options() -> OpenOptions {
    let mut options = OpenOptions::new();
    options.mode(FILE_MODE);
    options
}

/// Create `path` (`0600`) if it does not exist, leaving an existing file untouched: for
/// files another library opens by name (SQLite gives its `-wal` and `-shm` files the mode
/// of the database file).
pub fn touch(path: &Path) -> std::io::Result<()> {
    options().create(true).append(true).open(path).map(drop)
}

/// Replace (or create) `path` with `bytes` atomically, `0600`, creating parent directories
/// `0700`: the file is either its old self or its new self, never half of each, whatever
/// happens (a crash, a kill -9, a full disk) in between. The bytes go to a temporary file
/// in the same directory (created `0600`), are flushed, and are renamed over the target;
/// the directory is then synced so the rename itself survives a power loss.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| std::io::Error::other("path has no parent directory"))?;
    create_dir_all(dir)?;
    if fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        return Err(std::io::Error::other(
            "is a directory; give a file path inside it",
        ));
    }
    let mut tmp = tempfile::Builder::new()
        .prefix(".loom-tmp-")
        .permissions(Permissions::from_mode(FILE_MODE))
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Close a data directory an older Loom left open to others (`0755`): its contents were
/// made with the umask, and a `0700` directory above them keeps everyone else out.
pub fn close_data_dir(dir: &Path) {
    if let Ok(meta) = fs::symlink_metadata(dir)
        && meta.is_dir()
        && meta.permissions().mode() & 0o077 != 0
    {
        let _ = fs::set_permissions(dir, Permissions::from_mode(DIR_MODE));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(p: &Path) -> u32 {
        fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn directories_and_files_are_created_private() {
        let dir = tempfile::tempdir().unwrap();
        let deep = dir.path().join("a/b/c");
        create_dir_all(&deep).unwrap();
        for d in ["a", "a/b", "a/b/c"] {
            assert_eq!(mode(&dir.path().join(d)), DIR_MODE, "{d}");
        }
        let f = deep.join("f");
        options().create(true).append(true).open(&f).unwrap();
        assert_eq!(mode(&f), FILE_MODE);
        let t = deep.join("t");
        touch(&t).unwrap();
        assert_eq!(mode(&t), FILE_MODE);
    }

    #[test]
    fn atomic_writes_are_private_and_leave_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a/b/c.json");
        write_atomic(&p, b"one").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"one");
        assert_eq!(mode(&p), FILE_MODE);
        assert_eq!(mode(&dir.path().join("a")), DIR_MODE);
        // A file an older Loom made 0644 becomes private when rewritten.
        fs::set_permissions(&p, Permissions::from_mode(0o644)).unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "two");
        assert_eq!(mode(&p), FILE_MODE);
        let names: Vec<_> = fs::read_dir(p.parent().unwrap()).unwrap().collect();
        assert_eq!(names.len(), 1);
        let err = write_atomic(dir.path(), b"x").unwrap_err();
        assert!(err.to_string().contains("directory"));
    }

    #[test]
    fn an_open_data_directory_is_closed() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("loom");
        fs::create_dir(&data).unwrap();
        fs::set_permissions(&data, Permissions::from_mode(0o755)).unwrap();
        close_data_dir(&data);
        assert_eq!(mode(&data), DIR_MODE);
        close_data_dir(&dir.path().join("missing"));
    }
}
