//! Exclusive `flock`s on lock files, for work that two Loom processes must not do at once
//! (a workspace's job store, moving a damaged memory database aside). The kernel drops a
//! `flock` when its holder dies, so a crash never leaves a stale lock behind.

use std::path::Path;

use nix::fcntl::{Flock, FlockArg};

/// An exclusive `flock` on `path` (created if missing, with its directory): waits when
/// `wait`, else `None` when someone else holds it. Held until dropped.
pub fn exclusive(path: &Path, wait: bool) -> std::io::Result<Option<Flock<std::fs::File>>> {
    if let Some(dir) = path.parent() {
        crate::private::create_dir_all(dir)?;
    }
    let file = crate::private::options()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(path)?;
    let arg = if wait {
        FlockArg::LockExclusive
    } else {
        FlockArg::LockExclusiveNonblock
    };
    match Flock::lock(file, arg) {
        Ok(l) => Ok(Some(l)),
        Err((_, nix::errno::Errno::EWOULDBLOCK)) if !wait => Ok(None),
        Err((_, errno)) => Err(errno.into()),
    }
}
