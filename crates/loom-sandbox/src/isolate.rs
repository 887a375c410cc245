//! Process isolation for commands (Linux): no process a command starts outlives it, and
//! none can see Loom; a sandboxed command cannot reach the machine as root either.
//!
//! Between fork and exec ([`Isolation::enter`], called from the sandbox's `pre_exec`) the
//! child asks to die with its parent (`PR_SET_PDEATHSIG`), then enters new user (when not
//! root, or as root when confined), mount and PID namespaces (and, when confined, UTS and,
//! without network, network namespaces) and forks once more: the grandchild is PID 1 of
//! the new PID namespace, mounts a fresh `/proc` (so Loom and every other process outside
//! are invisible: `/proc/$PPID/environ` has nothing to show) and goes on to exec the
//! command; the child stays behind as a proxy that waits for it and exits the same way.
//! When PID 1 of a namespace dies the kernel kills everything else in it, and its parent
//! learns of its death only once all of them are gone; so killing PID 1 (on timeout, on
//! Esc), or the proxy (through the death signal, because Loom itself died), ends every
//! process the command started, `setsid` or not, and the proxy's exit proves it.
//!
//! A confined command ([`Isolation::confined`]) has, besides, its own hostname and (without
//! network) its own network namespace with only a loopback interface, and no capability
//! at all ([`crate::privileges`], applied by [`Isolation::drop_privileges`] last before
//! exec): root inside is root of its own user namespace only, mapped to itself, and holds
//! nothing there either.
//!
//! Everything here runs in the child between fork and exec, so it makes only system calls
//! on data prepared by the parent. Where namespaces are not allowed it does nothing and
//! the caller falls back to reaping ([`crate::reaper`]).

use std::ffi::CString;

/// What to set up in a command's child before it runs.
#[derive(Debug, Clone)]
pub struct Isolation {
    /// Whether to enter new namespaces (user namespaces may be refused here).
    pub namespaces: bool,
    /// Whether the process is root.
    pub root: bool,
    /// Whether to enter a new user namespace: always when not root (the other namespaces
    /// need one); as root only when asked ([`Isolation::root_in_user_namespace`]) and
    /// allowed here. Root falls back to entering the others without one.
    pub user_namespace: bool,
    /// uid_map and gid_map lines for a user namespace (the user mapped to itself).
    pub maps: (String, String),
    /// Whether the command gets a UTS namespace of its own (its hostname is its own).
    pub own_hostname: bool,
    /// Whether the command gets a network namespace of its own, with loopback only.
    pub own_network: bool,
    /// Whether every capability is dropped and `no_new_privs` set before exec.
    pub drop_capabilities: bool,
    /// Paths to bind read-only inside the new mount namespace.
    pub read_only: Vec<CString>,
    /// Paths to bind onto themselves (read-write) so they cannot be renamed or replaced.
    pub pinned: Vec<CString>,
    /// Loom's pid, to notice a parent that died before the death signal was set.
    pub parent: i32,
}

impl Isolation {
    /// Isolation for a child of this process: PID and mount namespaces when this system
    /// allows them (in a user namespace of its own when not root).
    pub fn for_child(read_only: Vec<CString>, pinned: Vec<CString>) -> Isolation {
        let ids = (nix::unistd::getuid(), nix::unistd::getgid());
        Isolation {
            namespaces: crate::protection_available(),
            root: ids.0.is_root(),
            user_namespace: !ids.0.is_root(),
            maps: (
                format!("{0} {0} 1\n", ids.0.as_raw()),
                format!("{0} {0} 1\n", ids.1.as_raw()),
            ),
            own_hostname: false,
            own_network: false,
            drop_capabilities: false,
            read_only,
            pinned,
            parent: std::process::id() as i32,
        }
    }

    /// As root too, a user namespace of its own (root mapped to itself) where this system
    /// allows unprivileged ones, so whatever capabilities root keeps count only inside it:
    /// not on the machine's hostname, clock, network or devices.
    pub fn root_in_user_namespace(mut self) -> Isolation {
        if self.root && root_user_namespace_allowed() {
            self.user_namespace = true;
        }
        self
    }

    /// The isolation of a sandboxed command: its own user namespace (root included), its
    /// own hostname, its own network namespace unless `network` is allowed, and no
    /// capabilities unless `keep_capabilities` (the `sandbox_keep_capabilities` opt-out,
    /// which keeps root as root in the machine's user namespace, as before).
    pub fn confined(self, network: bool, keep_capabilities: bool) -> Isolation {
        let mut isolation = if keep_capabilities {
            self
        } else {
            self.root_in_user_namespace()
        };
        isolation.own_hostname = true;
        isolation.own_network = !network;
        isolation.drop_capabilities = !keep_capabilities;
        isolation
    }

    /// Last thing before exec, in the process that execs (after Landlock): drop every
    /// capability and set `no_new_privs` when confined. An error stops the command.
    ///
    /// # Safety
    /// Only call between fork and exec (from `pre_exec`).
    pub unsafe fn drop_privileges(&self) -> std::io::Result<()> {
        #[cfg(target_os = "linux")]
        if self.drop_capabilities {
            // SAFETY: the caller runs this between fork and exec.
            return unsafe { crate::privileges::drop_all() };
        }
        Ok(())
    }

    /// Run in the child between fork and exec. Returns in the process that will exec the
    /// command (the new namespace's PID 1, or the child itself when namespaces could not
    /// be entered) whether it is in new namespaces with a fresh `/proc` of its own; the
    /// proxy never returns.
    ///
    /// # Safety
    /// Only call between fork and exec (from `pre_exec`).
    #[cfg(target_os = "linux")]
    pub unsafe fn enter(&self) -> bool {
        use nix::libc;
        // SAFETY: plain system calls on data owned by `self`, between fork and exec.
        unsafe {
            libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGKILL as libc::c_ulong,
                0,
                0,
                0,
            );
            if libc::getppid() != self.parent {
                libc::_exit(137);
            }
            if !self.namespaces {
                return false;
            }
            // A non-dumpable parent leaves /proc/self owned by root, which would refuse
            // the uid_map write below; the command execs right after and is dumpable
            // again anyway.
            libc::prctl(libc::PR_SET_DUMPABLE, 1, 0, 0, 0);
            if !self.unshare_namespaces() {
                return false;
            }
            if self.own_network {
                crate::privileges::loopback_up();
            }
            self.private_mounts();
            Self::become_init()
        }
    }

    /// Unshare the namespaces asked for (in a new user namespace, with this user mapped in
    /// it, when asked and allowed); whether that worked.
    ///
    /// # Safety
    /// Only call between fork and exec (from [`Isolation::enter`]).
    #[cfg(target_os = "linux")]
    unsafe fn unshare_namespaces(&self) -> bool {
        use nix::libc;
        // SAFETY: plain system calls on data owned by `self`, between fork and exec.
        unsafe {
            let mut flags = libc::CLONE_NEWNS | libc::CLONE_NEWPID;
            if self.own_hostname {
                flags |= libc::CLONE_NEWUTS;
            }
            if self.own_network {
                flags |= libc::CLONE_NEWNET;
            }
            if !self.user_namespace {
                libc::unshare(flags) == 0
            } else if libc::unshare(libc::CLONE_NEWUSER | flags) == 0 {
                write_file(c"/proc/self/setgroups", b"deny")
                    && write_file(c"/proc/self/uid_map", self.maps.0.as_bytes())
                    && write_file(c"/proc/self/gid_map", self.maps.1.as_bytes())
            } else {
                // User namespaces refused after all: root still gets the others.
                self.root && libc::unshare(flags) == 0
            }
        }
    }

    /// Make every mount private to the new mount namespace, then bind the pinned paths
    /// over themselves and the read-only ones read-only.
    ///
    /// # Safety
    /// Only call between fork and exec, in a new mount namespace.
    #[cfg(target_os = "linux")]
    unsafe fn private_mounts(&self) {
        use nix::libc;
        // SAFETY: plain system calls on data owned by `self`, between fork and exec.
        unsafe {
            if libc::mount(
                std::ptr::null(),
                c"/".as_ptr(),
                std::ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            ) == 0
            {
                for p in &self.pinned {
                    bind(p, false);
                }
                for p in &self.read_only {
                    bind(p, true);
                }
            }
        }
    }

    /// Fork PID 1 of the new PID namespace and return in it whether it has a fresh `/proc`
    /// of its own; this process stays outside as the proxy and never returns.
    ///
    /// # Safety
    /// Only call between fork and exec, after unsharing the PID namespace.
    #[cfg(target_os = "linux")]
    unsafe fn become_init() -> bool {
        use nix::libc;
        // SAFETY: plain system calls between fork and exec; the proxy only waits and exits.
        unsafe {
            match libc::fork() {
                -1 => libc::_exit(126),
                0 => {
                    // PID 1 of the new namespace: its parent (the proxy) is outside it, so
                    // `getppid` says 0 and cannot tell whether the proxy already died; the
                    // window before this call is a few instructions.
                    libc::prctl(
                        libc::PR_SET_PDEATHSIG,
                        libc::SIGKILL as libc::c_ulong,
                        0,
                        0,
                        0,
                    );
                    // Whether it has its own `/proc` (a container may refuse the mount).
                    libc::mount(
                        c"proc".as_ptr(),
                        c"/proc".as_ptr(),
                        c"proc".as_ptr(),
                        libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                        std::ptr::null(),
                    ) == 0
                }
                init => proxy_until_exit(init),
            }
        }
    }

    /// Namespaces exist only on Linux.
    ///
    /// # Safety
    /// Trivially safe; kept `unsafe` to match the Linux version.
    #[cfg(not(target_os = "linux"))]
    pub unsafe fn enter(&self) -> bool {
        false
    }
}

/// The proxy: let go of every inherited descriptor (the exec-status pipe among them, so
/// the parent's spawn returns as soon as PID 1 execs; the output pipes, so they close when
/// the command's processes are gone), wait for PID 1 and exit as it did. It ignores the
/// polite signals a process group gets (SIGTERM, SIGINT, SIGHUP): a server asked to stop
/// that way gets them itself, and the proxy must not die first, or the death signal would
/// kill the server before it could finish. SIGKILL ends it as ever.
#[cfg(target_os = "linux")]
unsafe fn proxy_until_exit(init: nix::libc::pid_t) -> ! {
    use nix::libc;
    // SAFETY: system calls only; this process never returns to Rust code.
    unsafe {
        for sig in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
            libc::signal(sig, libc::SIG_IGN);
        }
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
        if null >= 0 {
            libc::dup2(null, 0);
            libc::dup2(null, 1);
            libc::dup2(null, 2);
        }
        if libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32) != 0 {
            for fd in 3..4096 {
                libc::close(fd);
            }
        }
        let mut status = 0;
        loop {
            let r = libc::waitpid(init, &raw mut status, 0);
            if r == init {
                break;
            }
            if r == -1 && *libc::__errno_location() != libc::EINTR {
                libc::_exit(127);
            }
        }
        if libc::WIFEXITED(status) {
            libc::_exit(libc::WEXITSTATUS(status));
        }
        let sig = libc::WTERMSIG(status);
        libc::signal(sig, libc::SIG_DFL);
        libc::kill(libc::getpid(), sig);
        libc::_exit(128 + sig);
    }
}

/// Bind `p` onto itself; read-only when asked (best effort: a path that cannot be bound
/// stays as it is, and Landlock still confines writes to the workspace).
#[cfg(target_os = "linux")]
unsafe fn bind(p: &CString, read_only: bool) {
    use nix::libc;
    // SAFETY: plain system calls on a NUL-terminated string owned by the caller.
    unsafe {
        if libc::mount(
            p.as_ptr(),
            p.as_ptr(),
            std::ptr::null(),
            libc::MS_BIND | libc::MS_REC,
            std::ptr::null(),
        ) != 0
            || !read_only
        {
            return;
        }
        let mut st: libc::statvfs = std::mem::zeroed();
        let mut flags = libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY;
        if libc::statvfs(p.as_ptr(), &raw mut st) == 0 {
            let f = st.f_flag;
            for (st_flag, ms_flag) in [
                (libc::ST_NOSUID, libc::MS_NOSUID),
                (libc::ST_NODEV, libc::MS_NODEV),
                (libc::ST_NOEXEC, libc::MS_NOEXEC),
                (libc::ST_NOATIME, libc::MS_NOATIME),
                (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
                (libc::ST_RELATIME, libc::MS_RELATIME),
            ] {
                if f & st_flag != 0 {
                    flags |= ms_flag;
                }
            }
        }
        libc::mount(
            std::ptr::null(),
            p.as_ptr(),
            std::ptr::null(),
            flags,
            std::ptr::null(),
        );
    }
}

/// Whether root's children can have a user namespace of their own here: user namespaces
/// are allowed, and root may map itself into one.
pub fn root_user_namespace_allowed() -> bool {
    crate::mount_namespaces_allowed(false, |p| std::fs::read_to_string(p).ok())
        && can_map_root_to_itself()
}

/// Whether this process may map root to itself in a user namespace it creates: the kernel
/// asks that its creator held `CAP_SETFCAP` (some containers drop it). Without it the map
/// would fail after the namespace exists, and the command would lose every namespace.
fn can_map_root_to_itself() -> bool {
    const CAP_SETFCAP: u32 = 31;
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let hex = status.lines().find_map(|l| l.strip_prefix("CapEff:"))?;
            u64::from_str_radix(hex.trim(), 16).ok()
        })
        .is_some_and(|effective| effective & (1 << CAP_SETFCAP) != 0)
}

#[cfg(target_os = "linux")]
unsafe fn write_file(path: &std::ffi::CStr, data: &[u8]) -> bool {
    use nix::libc;
    // SAFETY: open/write/close on a valid C string and buffer.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY);
        if fd < 0 {
            return false;
        }
        let n = libc::write(fd, data.as_ptr().cast(), data.len());
        libc::close(fd);
        n == data.len() as isize
    }
}

/// Isolate a long-lived child Loom keeps (an MCP server): its own PID namespace where this
/// system allows one, dying with Loom, so every process it starts, `setsid` included, ends
/// with it, when it is stopped, when Loom exits and when Loom is killed.
pub fn install_for_server(cmd: &mut tokio::process::Command) {
    let isolation = Isolation::for_child(Vec::new(), Vec::new());
    // SAFETY: the closure runs in the child between fork and exec and makes only system
    // calls on data prepared here.
    unsafe {
        cmd.pre_exec(move || {
            isolation.enter();
            Ok(())
        });
    }
}

/// Make Loom's own memory and environment private at start: not dumpable, so processes it
/// starts cannot read `/proc/<loom>/environ` or `/proc/<loom>/mem` (API keys live there),
/// and without loader variables (`LD_PRELOAD`, `LD_LIBRARY_PATH`, ...) that would be
/// passed on. Call once, first thing in `main`, before any thread starts.
pub fn harden_self() {
    #[cfg(target_os = "linux")]
    {
        use nix::libc;
        // SAFETY: prctl with constant arguments.
        unsafe {
            libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
        }
    }
    for (name, _) in std::env::vars_os() {
        let Some(name) = name.to_str() else { continue };
        if is_loader_variable(name) {
            // SAFETY: called from `main` before any other thread exists.
            unsafe { std::env::remove_var(name) };
        }
    }
}

/// Variables that make the dynamic loader load extra code into every program.
pub fn is_loader_variable(name: &str) -> bool {
    name.starts_with("LD_") || name.starts_with("DYLD_") || name == "GCONV_PATH"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loader_variables_are_recognised() {
        for n in [
            "LD_PRELOAD",
            "LD_LIBRARY_PATH",
            "LD_AUDIT",
            "DYLD_INSERT_LIBRARIES",
        ] {
            assert!(is_loader_variable(n), "{n}");
        }
        assert!(!is_loader_variable("PATH"));
        assert!(!is_loader_variable("OLDPWD"));
    }
}
