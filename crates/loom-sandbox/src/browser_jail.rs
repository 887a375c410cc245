//! The browser's confinement: Chromium runs in the same namespaces as a command
//! ([`crate::isolate`]) and, when the sandbox is on, under a Landlock domain
//! stricter than a command's, so a page that exploited Chromium itself would still be
//! boxed in.
//!
//! - **Namespaces** (where this system allows them): its own PID namespace with a fresh
//!   `/proc` (Loom and every other process are invisible; killing the browser ends every
//!   process it started) and mount namespace; it dies with Loom.
//! - **Files** (Landlock): it reads everywhere (fonts, its own binaries, shared libraries)
//!   but writes only its temporary profile (which is also its `HOME` and `TMPDIR`),
//!   `/dev/shm` and the device files a command may write (the sandbox's own domain,
//!   [`landlock_ruleset`]). Not the workspace: the browser looks at the app, it never
//!   edits it.
//! - **Network** (Landlock ABI 4+): TCP connections only to Loom's proxy
//!   (`tools::browser::proxy` in `loom-core`), which vets every one; no listening sockets. Landlock judges ports,
//!   not addresses, so "only the proxy" means "only the proxy's port". Landlock has no UDP
//!   rules: a seccomp filter ([`crate::no_udp`], in every sandbox mode) refuses UDP, raw
//!   and packet sockets.
//! - **Environment**: what a command gets (no API keys), with the profile as `HOME`.
//!
//! What this kernel cannot do is said in [`Confinement::describe`], never silently skipped.

use std::ffi::CString;
use std::path::Path;
use std::sync::Mutex;

use landlock::{AccessFs, PathBeneath, RulesetCreated, RulesetCreatedAttr};

use crate::isolate::Isolation;
use crate::{TcpRule, landlock_ruleset};

/// What confines a browser, as set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Confinement {
    /// Own PID and mount namespaces.
    pub namespaces: bool,
    /// Writes only in its profile, `/dev/shm` and harmless devices.
    pub files: bool,
    /// TCP only to Loom's proxy.
    pub network: bool,
    /// No UDP, raw or packet sockets (seccomp).
    pub no_udp: bool,
}

impl Confinement {
    /// In words, for the tool's result: what holds and what this system lacks.
    pub fn describe(&self) -> String {
        let mut held = Vec::new();
        let mut lacking = Vec::new();
        let mut say = |on: bool, what: &'static str, missing: &'static str| {
            if on {
                held.push(what);
            } else {
                lacking.push(missing);
            }
        };
        say(
            self.namespaces,
            "its own PID and mount namespaces",
            "no namespaces (user namespaces are not allowed here)",
        );
        say(
            self.files,
            "writes only in its temporary profile",
            "no file confinement (the sandbox is off or this kernel has no Landlock)",
        );
        say(
            self.network,
            "TCP only to Loom's proxy",
            "no network confinement (needs the sandbox on and Landlock ABI 4+); its \
             connections still go through Loom's proxy",
        );
        say(
            self.no_udp,
            "no UDP",
            "UDP is not filtered on this machine (WebRTC is still told to send none)",
        );
        let mut out = format!("The browser runs with {}", held.join(", "));
        if held.is_empty() {
            out = "The browser runs unconfined".into();
        }
        if !lacking.is_empty() {
            out.push_str(&format!("; {}", lacking.join("; ")));
        }
        out.push('.');
        out
    }
}

/// Confine the process `cmd` starts: namespaces always (where allowed); when `sandbox` is
/// on, Landlock as above. The profile becomes its `HOME` and `TMPDIR`. Call before any
/// other `pre_exec` that moves descriptors to fixed numbers: the Landlock ruleset is an
/// open descriptor until the child restricts itself.
pub fn install(
    cmd: &mut tokio::process::Command,
    profile: &Path,
    proxy_port: u16,
    sandbox: bool,
) -> Result<Confinement, String> {
    // Loom's environment holds API keys: the browser gets what a command would.
    cmd.env_clear()
        .envs(crate::env::EnvPolicy::default().filter(std::env::vars_os()))
        .env("HOME", profile)
        .env("TMPDIR", profile)
        .env("XDG_CONFIG_HOME", profile.join(".config"))
        .env("XDG_CACHE_HOME", profile.join(".cache"))
        .env("XDG_DATA_HOME", profile.join(".local/share"));
    let landlock = if sandbox {
        // The sandbox's domain, with only the profile writable and TCP only to the proxy.
        landlock_ruleset(&[profile.to_path_buf()], TcpRule::Only(&[proxy_port]))
            .map_err(|e| format!("the browser's sandbox could not be set up: {e}"))?
    } else {
        None
    };
    // Root's capabilities (raw sockets, the host's network settings, …) would follow it
    // into Chromium: as root too, the browser gets a user namespace (root mapped to itself)
    // where the system allows one, so they count only inside it.
    let isolation =
        Isolation::for_child(Vec::<CString>::new(), Vec::new()).root_in_user_namespace();
    let root = isolation.root;
    let confinement = Confinement {
        namespaces: isolation.namespaces,
        files: landlock.is_some(),
        network: landlock.as_ref().is_some_and(|(_, net)| *net),
        no_udp: crate::no_udp::available(),
    };
    // Chromium's own sandbox, outside root, enters a user namespace of its own and must
    // write its `/proc/PID/uid_map`; the fresh `/proc` exists only in the child, so its rule
    // is added there. Root runs Chromium without its sandbox and gets no such rule (root
    // mapped to itself could write `/proc/sys`).
    let proc_writes = isolation.namespaces && !root;
    let slot = Mutex::new(landlock.map(|(r, _)| r));
    // SAFETY: the closure runs in the child between fork and exec and makes only system
    // calls on data prepared here (the landlock crate's wrappers allocate nothing new on
    // success).
    unsafe {
        cmd.pre_exec(move || {
            let entered = isolation.enter();
            let ruleset = slot.lock().ok().and_then(|mut g| g.take());
            if let Some(mut rs) = ruleset {
                if entered && proc_writes {
                    rs = allow_own_proc_writes(rs)?;
                }
                rs.restrict_self()
                    .map_err(|e| std::io::Error::other(e.to_string()))?;
            }
            // Between fork and exec, as `install` requires.
            crate::no_udp::install()
        });
    }
    Ok(confinement)
}

/// In the child, inside its PID namespace: let it write files of the fresh `/proc`, which
/// shows only its own processes (and the kernel still lets a user write only its own).
fn allow_own_proc_writes(rs: RulesetCreated) -> std::io::Result<RulesetCreated> {
    use nix::libc;
    use std::os::fd::BorrowedFd;
    // SAFETY: open and close on a static C string, between fork and exec.
    let fd = unsafe { libc::open(c"/proc".as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and stays open until the close below.
    let proc_root = unsafe { BorrowedFd::borrow_raw(fd) };
    let added = rs.add_rule(PathBeneath::new(proc_root, AccessFs::WriteFile));
    // SAFETY: as above.
    unsafe { libc::close(fd) };
    added.map_err(|e| std::io::Error::other(e.to_string()))
}

/// Make the child's fd 3 and fd 4 the ends of the DevTools pipes (`read` and `write` in
/// this process's numbering), left open across exec: Chromium's `--remote-debugging-pipe`
/// talks on those two descriptors.
pub fn pipes_onto_3_and_4(cmd: &mut tokio::process::Command, read_fd: i32, write_fd: i32) {
    // SAFETY: between fork and exec only async-signal-safe calls are made (fcntl, dup2).
    unsafe {
        cmd.pre_exec(move || {
            if !onto_3_and_4(read_fd, write_fd) {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// In the child: make `read` its fd 3 and `write` its fd 4, both left open across exec.
/// Each is first copied above 10, so neither can be overwritten by the other's `dup2`
/// and `dup2` never gets equal numbers (which would keep close-on-exec set).
fn onto_3_and_4(read: i32, write: i32) -> bool {
    use nix::libc::{F_DUPFD_CLOEXEC, dup2, fcntl};
    // SAFETY: fcntl and dup2 on descriptors this process owns; async-signal-safe.
    unsafe {
        let r = fcntl(read, F_DUPFD_CLOEXEC, 10);
        let w = fcntl(write, F_DUPFD_CLOEXEC, 10);
        r >= 0 && w >= 0 && dup2(r, 3) == 3 && dup2(w, 4) == 4
    }
}

#[cfg(test)]
#[path = "browser_jail_tests.rs"]
mod tests;
