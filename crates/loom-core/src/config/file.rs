//! Reading a configuration file without trusting what is at its path.
//!
//! A cloned repository decides what `.loom/config.toml` is: a symlink to `/dev/zero` made
//! Loom read until it ran out of memory, and a FIFO would block it at start. Config files
//! (and the trust store beside them) are therefore opened non-blocking, checked to be
//! regular files on the opened descriptor, and read up to a fixed size. Symlinks are
//! followed: people keep their dotfiles in other directories.

pub use crate::base::regular::{MAX_CONFIG_BYTES, read_regular};

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
