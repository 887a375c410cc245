//! Reading a configuration file without trusting what is at its path.
//!
//! A cloned repository decides what `.loom/config.toml` is: a symlink to `/dev/zero` made
//! Loom read until it ran out of memory, and a FIFO would block it at start. Config files
//! (and the trust store beside them) are therefore opened non-blocking, checked to be
//! regular files on the opened descriptor, and read up to a fixed size. Symlinks are
//! followed: people keep their dotfiles in other directories.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// The largest configuration file Loom reads (1 MiB; real ones are a few hundred bytes).
pub const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// The bytes of the regular file at `path`, at most `limit` of them; `Ok(None)` when
/// nothing is there. Anything else at the path (a device, a FIFO, a directory) or a file
/// over `limit` is an error that says what to do.
pub fn read_regular(path: &Path, limit: u64) -> std::io::Result<Option<Vec<u8>>> {
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::other(
            "not a regular file (a device, FIFO or directory); Loom reads configuration only \
             from regular files",
        ));
    }
    if meta.len() > limit {
        return Err(too_large(meta.len(), limit));
    }
    read_at_most(file, limit).map(Some)
}

/// Read `file` to its end, failing past `limit` bytes (a file that grows while read).
fn read_at_most(file: File, limit: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(bytes.len() as u64, limit));
    }
    Ok(bytes)
}

fn too_large(len: u64, limit: u64) -> std::io::Error {
    std::io::Error::other(format!(
        "{len} bytes is more than the {limit} bytes Loom reads from a configuration file"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_are_read_and_missing_ones_are_none() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.toml");
        assert!(read_regular(&path, 10).unwrap().is_none());
        std::fs::write(&path, "model = 1").unwrap();
        assert_eq!(read_regular(&path, 10).unwrap().unwrap(), b"model = 1");
        std::fs::write(&path, "model = 123").unwrap();
        let err = read_regular(&path, 10).unwrap_err().to_string();
        assert!(err.contains("more than the 10 bytes"), "{err}");
    }

    #[test]
    fn a_symlink_to_a_device_is_refused_without_reading_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.toml");
        std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
        let err = read_regular(&path, MAX_CONFIG_BYTES).unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.toml");
        nix::unistd::mkfifo(&path, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let err = read_regular(&path, MAX_CONFIG_BYTES).unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
        let err = read_regular(dir.path(), MAX_CONFIG_BYTES).unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
    }
}
