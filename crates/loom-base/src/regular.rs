//! Reading a configuration file (or a theme file) without trusting what is at its path.
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
