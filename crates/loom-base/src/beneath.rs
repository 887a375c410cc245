//! File access beneath the workspace, with no window between checking a path and using it.
//!
//! [`crate::paths::Confinement`] turns what the model gave into a canonical path
//! inside the workspace — a path with no symlinks left in it. Between that check and the
//! open, another process could swap a directory of that path for a symlink to somewhere
//! else (a `renameat2(RENAME_EXCHANGE)` loop wins such races reliably). So every open,
//! create, rename and unlink here starts from a handle on the workspace root and resolves
//! the rest with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`: no component may leave
//! the root or be a symlink *now*, whatever it was when checked. Where `openat2` is missing
//! (kernels before 5.6) the same holds by walking component by component with
//! `O_NOFOLLOW`.
//!
//! Only regular files are read or replaced: FIFOs, sockets and device nodes are refused
//! after `fstat` on the opened descriptor (opened with `O_NONBLOCK`, so a FIFO without a
//! writer cannot hang the open), and reads stop at their limit without touching the rest.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use nix::errno::Errno;
use nix::fcntl::{OFlag, OpenHow, ResolveFlag, openat, openat2, renameat};
use nix::sys::stat::{FileStat, Mode, SFlag, fchmod, fstat, mkdirat};
use nix::unistd::{UnlinkatFlags, unlinkat};

/// Permissions given to files that did not exist before (the usual `0644`).
pub const NEW_FILE_MODE: u32 = 0o644;

/// A handle on the workspace root through which every file operation goes.
#[derive(Debug)]
pub struct Beneath {
    root: PathBuf,
    fd: OwnedFd,
}

/// What kind of file a descriptor refers to, in words.
fn kind_of(st: &FileStat) -> &'static str {
    match SFlag::from_bits_truncate(st.st_mode & SFlag::S_IFMT.bits()) {
        SFlag::S_IFDIR => "a directory",
        SFlag::S_IFIFO => "a FIFO (named pipe)",
        SFlag::S_IFSOCK => "a socket",
        SFlag::S_IFCHR => "a character device",
        SFlag::S_IFBLK => "a block device",
        SFlag::S_IFLNK => "a symbolic link",
        _ => "a regular file",
    }
}

fn is_regular(st: &FileStat) -> bool {
    st.st_mode & SFlag::S_IFMT.bits() == SFlag::S_IFREG.bits()
}

fn is_dir(st: &FileStat) -> bool {
    st.st_mode & SFlag::S_IFMT.bits() == SFlag::S_IFDIR.bits()
}

/// The error for a path that is not a regular file.
pub fn not_regular(kind: &str) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!("it is {kind}, not a regular file; Loom only reads and writes regular files"),
    )
}

fn moved(e: Errno) -> std::io::Error {
    match e {
        Errno::ELOOP | Errno::EXDEV => std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            "a component of the path is a symlink or leads out of the workspace now (it \
             changed after the path was checked); refused",
        ),
        other => std::io::Error::from(other),
    }
}

impl Beneath {
    /// Open a handle on `root` (a canonical directory).
    pub fn open(root: &Path) -> std::io::Result<Beneath> {
        let fd = nix::fcntl::open(
            root,
            OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC,
            Mode::empty(),
        )?;
        Ok(Beneath {
            root: root.to_path_buf(),
            fd,
        })
    }

    /// The workspace root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `path` relative to the root; an absolute path outside it, or one with `..` or
    /// other non-plain components, is refused.
    pub fn relative<'a>(&self, path: &'a Path) -> std::io::Result<&'a Path> {
        let rel = if path.is_absolute() {
            path.strip_prefix(&self.root).map_err(|_| {
                std::io::Error::new(
                    std::io::ErrorKind::PermissionDenied,
                    format!("{} is outside the workspace", path.display()),
                )
            })?
        } else {
            path
        };
        if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{} is not a plain path inside the workspace", rel.display()),
            ));
        }
        Ok(rel)
    }

    /// Open `rel` (relative to the root) with `flags`, never through a symlink or out of
    /// the root.
    fn open_at(&self, rel: &Path, flags: OFlag, mode: Mode) -> std::io::Result<OwnedFd> {
        let rel = if rel.as_os_str().is_empty() {
            Path::new(".")
        } else {
            rel
        };
        let how = OpenHow::new()
            .flags(flags | OFlag::O_CLOEXEC)
            .mode(mode)
            .resolve(ResolveFlag::RESOLVE_BENEATH | ResolveFlag::RESOLVE_NO_SYMLINKS);
        match openat2(self.fd.as_fd(), rel, how) {
            Ok(fd) => Ok(fd),
            Err(Errno::ENOSYS) | Err(Errno::EPERM) if openat2_missing() => {
                self.open_walking(rel, flags, mode)
            }
            Err(e) => Err(moved(e)),
        }
    }

    /// The fallback for kernels without `openat2`: one `O_NOFOLLOW` step per component.
    fn open_walking(&self, rel: &Path, flags: OFlag, mode: Mode) -> std::io::Result<OwnedFd> {
        let parts: Vec<&OsStr> = rel
            .components()
            .filter_map(|c| match c {
                Component::Normal(n) => Some(n),
                _ => None,
            })
            .collect();
        let mut dir = openat(
            self.fd.as_fd(),
            ".",
            OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC,
            Mode::empty(),
        )?;
        let Some((last, dirs)) = parts.split_last() else {
            return Ok(openat(dir.as_fd(), ".", flags | OFlag::O_CLOEXEC, mode)?);
        };
        for name in dirs {
            dir = openat(
                dir.as_fd(),
                *name,
                OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
                Mode::empty(),
            )
            .map_err(moved)?;
        }
        openat(
            dir.as_fd(),
            *last,
            flags | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
            mode,
        )
        .map_err(moved)
    }

    /// A handle on the directory `rel` (relative to the root), for looking up names in it
    /// (`fstatat`) with no path walked again and no symlink followed on the way.
    pub fn open_dir(&self, rel: &Path) -> std::io::Result<OwnedFd> {
        self.open_at(rel, OFlag::O_PATH | OFlag::O_DIRECTORY, Mode::empty())
    }

    /// Metadata of `rel` without following a final symlink; `None` when it does not exist.
    pub fn stat(&self, rel: &Path) -> std::io::Result<Option<FileStat>> {
        match self.open_at(rel, OFlag::O_PATH, Mode::empty()) {
            Ok(fd) => Ok(Some(fstat(fd.as_fd())?)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Open the regular file `rel` for reading. Directories, FIFOs, sockets and devices
    /// are refused (a directory with `ErrorKind::IsADirectory`).
    pub fn open_regular(&self, rel: &Path) -> std::io::Result<(File, FileStat)> {
        let fd = self.open_at(
            rel,
            OFlag::O_RDONLY | OFlag::O_NONBLOCK | OFlag::O_NOCTTY,
            Mode::empty(),
        )?;
        let st = fstat(fd.as_fd())?;
        if is_dir(&st) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::IsADirectory,
                "it is a directory",
            ));
        }
        if !is_regular(&st) {
            return Err(not_regular(kind_of(&st)));
        }
        // O_NONBLOCK has no effect on a regular file's reads, so it can stay set.
        Ok((File::from(fd), st))
    }

    /// The contents and permission bits of the regular file `rel`, reading at most
    /// `limit` bytes (more is an error naming the size); `None` when it does not exist.
    pub fn read_regular(&self, rel: &Path, limit: u64) -> std::io::Result<Option<(Vec<u8>, u32)>> {
        let (file, st) = match self.open_regular(rel) {
            Ok(x) => x,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        if st.st_size as u64 > limit {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "it is {} bytes, more than the {} bytes Loom reads to change a file",
                    st.st_size, limit
                ),
            ));
        }
        let mut bytes = Vec::with_capacity(st.st_size.max(0) as usize);
        file.take(limit + 1).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > limit {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("it grew past {limit} bytes while it was read"),
            ));
        }
        Ok(Some((bytes, st.st_mode & 0o7777)))
    }

    /// The directory `rel`, created (with missing parents) when `create`.
    fn dir(&self, rel: &Path, create: bool) -> std::io::Result<OwnedFd> {
        let flags = OFlag::O_PATH | OFlag::O_DIRECTORY;
        match self.open_at(rel, flags, Mode::empty()) {
            Ok(fd) => return Ok(fd),
            Err(e) if create && e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        let mut done = PathBuf::new();
        let mut fd = self.open_at(Path::new(""), flags, Mode::empty())?;
        for part in rel.components() {
            let Component::Normal(name) = part else {
                continue;
            };
            done.push(name);
            match mkdirat(fd.as_fd(), name, Mode::from_bits_truncate(0o755)) {
                Ok(()) | Err(Errno::EEXIST) => {}
                Err(e) => return Err(moved(e)),
            }
            fd = self.open_at(&done, flags, Mode::empty())?;
        }
        Ok(fd)
    }

    /// The parent directory of `rel` (created when `create`) and the final name.
    fn parent<'a>(&self, rel: &'a Path, create: bool) -> std::io::Result<(OwnedFd, &'a OsStr)> {
        let name = rel.file_name().ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "the path names no file")
        })?;
        let dir = self.dir(rel.parent().unwrap_or(Path::new("")), create)?;
        Ok((dir, name))
    }

    /// Replace (or create) the regular file `rel` with `bytes` atomically: a temporary file
    /// in the same directory (through the same handle), flushed, given `mode` (or the old
    /// file's permissions, or 0644), renamed over the target, and the directory synced.
    pub fn write_atomic(&self, rel: &Path, bytes: &[u8], mode: Option<u32>) -> std::io::Result<()> {
        let (dir, name) = self.parent(rel, true)?;
        let old_mode = match openat(
            dir.as_fd(),
            name,
            OFlag::O_PATH | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
            Mode::empty(),
        ) {
            Ok(fd) => {
                let st = fstat(fd.as_fd())?;
                if is_dir(&st) {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::IsADirectory,
                        "is a directory; give a file path inside it",
                    ));
                }
                if !is_regular(&st) {
                    return Err(not_regular(kind_of(&st)));
                }
                Some(st.st_mode & 0o7777)
            }
            Err(Errno::ENOENT) => None,
            Err(e) => return Err(moved(e)),
        };
        let mode = mode.or(old_mode).unwrap_or(NEW_FILE_MODE);
        let (tmp_name, tmp) = create_temp(&dir, name)?;
        let result = (|| {
            let mut file = File::from(tmp);
            file.write_all(bytes)?;
            fchmod(file.as_fd(), Mode::from_bits_truncate(mode))?;
            file.sync_all()?;
            renameat(dir.as_fd(), tmp_name.as_os_str(), dir.as_fd(), name).map_err(moved)?;
            Ok(())
        })();
        if result.is_err() {
            let _ = unlinkat(
                dir.as_fd(),
                tmp_name.as_os_str(),
                UnlinkatFlags::NoRemoveDir,
            );
            return result;
        }
        if let Ok(d) = openat(
            dir.as_fd(),
            ".",
            OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC,
            Mode::empty(),
        ) {
            let _ = File::from(d).sync_all();
        }
        Ok(())
    }

    /// Remove the directory `rel` if it is empty; `Ok(false)` when it holds something or is
    /// already gone (never removes a file or follows a symlink).
    pub fn remove_empty_dir(&self, rel: &Path) -> std::io::Result<bool> {
        let (dir, name) = match self.parent(rel, false) {
            Ok(x) => x,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
            Err(e) => return Err(e),
        };
        match unlinkat(dir.as_fd(), name, UnlinkatFlags::RemoveDir) {
            Ok(()) => Ok(true),
            Err(Errno::ENOTEMPTY | Errno::EEXIST | Errno::ENOENT | Errno::ENOTDIR) => Ok(false),
            Err(e) => Err(std::io::Error::from(e)),
        }
    }

    /// Remove the file `rel` (not a directory); a file already gone is not an error.
    pub fn remove_file(&self, rel: &Path) -> std::io::Result<()> {
        let (dir, name) = match self.parent(rel, false) {
            Ok(x) => x,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
        };
        match unlinkat(dir.as_fd(), name, UnlinkatFlags::NoRemoveDir) {
            Ok(()) | Err(Errno::ENOENT) => Ok(()),
            Err(e) => Err(std::io::Error::from(e)),
        }
    }
}

/// Create a fresh temporary file next to `name` in `dir`.
fn create_temp(dir: &OwnedFd, name: &OsStr) -> std::io::Result<(PathBuf, OwnedFd)> {
    for _ in 0..16 {
        let mut tmp = b".loom-tmp-".to_vec();
        tmp.extend_from_slice(&name.as_bytes()[..name.len().min(40)]);
        tmp.extend_from_slice(format!("-{:08x}", fastrand::u32(..)).as_bytes());
        let tmp = PathBuf::from(OsStr::from_bytes(&tmp));
        match openat(
            dir.as_fd(),
            tmp.as_os_str(),
            OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
            Mode::from_bits_truncate(0o600),
        ) {
            Ok(fd) => return Ok((tmp, fd)),
            Err(Errno::EEXIST) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(std::io::Error::other("could not create a temporary file"))
}

/// Whether this kernel lacks `openat2` (checked once).
fn openat2_missing() -> bool {
    static MISSING: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *MISSING.get_or_init(|| {
        let how = OpenHow::new().flags(OFlag::O_PATH | OFlag::O_CLOEXEC);
        matches!(
            openat2(nix::fcntl::AT_FDCWD, "/", how),
            Err(Errno::ENOSYS | Errno::EPERM)
        )
    })
}

#[cfg(test)]
#[path = "beneath_tests.rs"]
mod tests;
