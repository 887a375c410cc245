//! `loom-sandbox`: how Loom contains the processes it starts, and the only crate of the
//! workspace with `unsafe` code outside tests (the other crates forbid it). It holds the
//! namespaces and the reaper (every command, MCP server and browser runs isolated and is
//! reaped with Loom), Landlock and the read-only binds, the browser's process jail and its
//! UDP filter, the environment a contained process gets, and the few process-wide settings
//! made at start.
//!
//! The crate root holds the Landlock side, OS confinement for commands (Linux): what an
//! approved command can still not do.
//!
//! Every command, sandboxed or not, runs isolated ([`crate::isolate`]): in its own PID
//! namespace with a fresh `/proc`, so no process it starts outlives the call and Loom is
//! invisible to it. `workspace-write` mode adds: the child reads everywhere but writes
//! only in the workspace, the temp dir and configured extra dirs (Landlock filesystem
//! rules); TCP connect and bind are denied unless network is allowed (Landlock network
//! rules, ABI 4+). Landlock cannot carve a read-only hole out of a writable tree, so
//! `.git/config`, `.git/hooks`, `.git/info` and `.loom` are made read-only with bind
//! mounts in the private mount namespace before Landlock is applied, and `.git` itself is
//! bound onto itself so it cannot be renamed or replaced — a hook or `core.fsmonitor`
//! planted by a command would otherwise run on the person's next `git commit`. Objects,
//! refs and the index stay writable, so `git add` and `git commit` work.
//!
//! Run as root, a sandboxed command is root of its own user namespace only, with its own
//! hostname, its own network namespace when the network is off, and no capabilities
//! ([`Isolation::confined`]): it cannot rename the machine, set its clock, reconfigure its
//! network or open raw sockets. `sandbox_keep_capabilities = true` opts out of the user
//! namespace and the dropped capabilities.
//!
//! Everything that can fail is prepared in the parent; the child (in `pre_exec`, between
//! fork and exec) only makes system calls. Where Landlock is missing, [`availability`] says
//! so and Loom falls back to approvals alone.

pub mod browser_jail;
pub mod env;
pub mod isolate;
pub mod no_udp;
#[cfg(target_os = "linux")]
pub mod privileges;
pub mod process_setup;
pub mod reaper;

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::isolate::Isolation;

use landlock::{
    ABI, Access, AccessFs, AccessNet, NetPort, Ruleset, RulesetAttr, RulesetCreated,
    RulesetCreatedAttr, Scope, path_beneath_rules,
};

/// The sandbox modes a person can choose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SandboxMode {
    /// No OS confinement.
    Off,
    /// Write only in the workspace, temp and configured dirs; network per settings.
    #[default]
    WorkspaceWrite,
}

impl SandboxMode {
    /// Parse a config or flag value.
    pub fn parse(s: &str) -> Option<SandboxMode> {
        match s.trim() {
            "off" | "none" | "danger-full-access" => Some(SandboxMode::Off),
            "workspace-write" => Some(SandboxMode::WorkspaceWrite),
            _ => None,
        }
    }

    /// The name used in config and events.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::Off => "off",
            SandboxMode::WorkspaceWrite => "workspace-write",
        }
    }
}

/// Whether this system can sandbox commands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Availability {
    /// Landlock works; `network` says whether TCP rules are enforced too.
    Available {
        /// The kernel's Landlock ABI version.
        abi: i32,
        /// Whether network rules are supported (ABI 4+).
        network: bool,
    },
    /// No Landlock: the reason, for the status bar.
    Unavailable(String),
}

/// Whether a command's child can enter a private mount namespace, which keeping
/// `.git/hooks` and `.loom` read-only needs: always as root; otherwise only where
/// unprivileged user namespaces are allowed. `read` returns a `/proc/sys` file's contents.
pub fn mount_namespaces_allowed(root: bool, read: impl Fn(&str) -> Option<String>) -> bool {
    if root {
        return true;
    }
    let number = |path: &str| read(path).and_then(|v| v.trim().parse::<u64>().ok());
    number("/proc/sys/user/max_user_namespaces") != Some(0)
        && number("/proc/sys/kernel/unprivileged_userns_clone") != Some(0)
        && number("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") != Some(1)
}

/// [`mount_namespaces_allowed`] for this process on this machine.
pub fn protection_available() -> bool {
    cfg!(target_os = "linux")
        && mount_namespaces_allowed(nix::unistd::geteuid().is_root(), |p| {
            std::fs::read_to_string(p).ok()
        })
}

/// The Landlock ABI the running kernel offers (0 or negative when none).
pub fn kernel_abi() -> i32 {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: LANDLOCK_CREATE_RULESET_VERSION with a null attribute only queries the ABI.
        unsafe {
            nix::libc::syscall(
                nix::libc::SYS_landlock_create_ruleset,
                std::ptr::null::<u8>(),
                0usize,
                1u32,
            ) as i32
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        -1
    }
}

/// Whether commands can be sandboxed here.
pub fn availability() -> Availability {
    let abi = kernel_abi();
    if abi >= 1 {
        Availability::Available {
            abi,
            network: abi >= 4,
        }
    } else if cfg!(target_os = "linux") {
        Availability::Unavailable(
            "the sandbox is off: this kernel has no Landlock (Linux 5.13+ with Landlock enabled); \
             commands are guarded by approvals only"
                .into(),
        )
    } else {
        Availability::Unavailable(
            "the sandbox is off: command sandboxing needs Linux; commands are guarded by approvals only"
                .into(),
        )
    }
}

/// Which TCP connections a Landlock domain lets through.
#[derive(Debug, Clone, Copy)]
pub enum TcpRule<'a> {
    /// Every one (TCP is not handled).
    Open,
    /// Connections to these ports only (none: no TCP at all); no listening.
    Only(&'a [u16]),
}

/// The Landlock domain Loom confines processes with: read everywhere, write only under
/// `writable` and the harmless devices (`/dev/null`, `/dev/shm`, the terminal's), TCP as
/// `tcp` says (ABI 4+), and signals and abstract Unix sockets kept inside (ABI 6+). `None`
/// when this kernel has no Landlock; with the domain, whether its TCP rule is enforced.
pub fn landlock_ruleset(
    writable: &[PathBuf],
    tcp: TcpRule<'_>,
) -> Result<Option<(RulesetCreated, bool)>, String> {
    let abi = ABI::from(kernel_abi());
    if abi == ABI::Unsupported {
        return Ok(None);
    }
    let e = |e: landlock::RulesetError| e.to_string();
    let ports = match tcp {
        TcpRule::Only(ports) if abi >= ABI::V4 => Some(ports),
        _ => None,
    };
    let mut ruleset = Ruleset::default()
        .handle_access(AccessFs::from_all(abi))
        .map_err(e)?;
    if ports.is_some() {
        ruleset = ruleset
            .handle_access(AccessNet::ConnectTcp | AccessNet::BindTcp)
            .map_err(e)?;
    }
    if abi >= ABI::V6 {
        ruleset = ruleset
            .scope(Scope::AbstractUnixSocket | Scope::Signal)
            .map_err(e)?;
    }
    let devices = [
        "/dev/null",
        "/dev/zero",
        "/dev/full",
        "/dev/tty",
        "/dev/ptmx",
        "/dev/pts",
        "/dev/shm",
    ];
    let writable: Vec<&Path> = writable
        .iter()
        .map(PathBuf::as_path)
        .chain(devices.iter().map(Path::new))
        .filter(|p| p.exists())
        .collect();
    let mut created = ruleset
        .create()
        .map_err(e)?
        .add_rules(path_beneath_rules(["/"], AccessFs::from_read(abi)))
        .map_err(e)?
        .add_rules(path_beneath_rules(writable, AccessFs::from_all(abi)))
        .map_err(e)?;
    for port in ports.into_iter().flatten() {
        created = created
            .add_rule(NetPort::new(*port, AccessNet::ConnectTcp))
            .map_err(e)?;
    }
    Ok(Some((created, ports.is_some())))
}

/// How one command is confined.
#[derive(Debug, Clone, Default)]
pub struct SandboxSpec {
    /// The mode.
    pub mode: SandboxMode,
    /// Directories (and files) the command may write.
    pub writable: Vec<PathBuf>,
    /// Paths inside writable trees that stay read-only.
    pub protected: Vec<PathBuf>,
    /// Directories bound onto themselves so they cannot be renamed, replaced or removed
    /// (the workspace's `.git`).
    pub pinned: Vec<PathBuf>,
    /// Whether TCP connect and bind are allowed (and the host's network namespace kept).
    pub allow_network: bool,
    /// Whether root keeps its capabilities (the `sandbox_keep_capabilities` opt-out): no
    /// user namespace of its own for root and no capabilities dropped. Hostname and
    /// network namespaces stay the command's own.
    pub keep_capabilities: bool,
}

impl SandboxSpec {
    /// No OS confinement.
    pub fn off() -> SandboxSpec {
        SandboxSpec {
            mode: SandboxMode::Off,
            ..SandboxSpec::default()
        }
    }

    /// Writes confined to `workspace`, the temp dir and `extra`; `.git/hooks` and `.loom`
    /// read-only.
    pub fn workspace_write(
        workspace: &Path,
        extra: &[PathBuf],
        allow_network: bool,
    ) -> SandboxSpec {
        let mut writable = vec![workspace.to_path_buf(), std::env::temp_dir()];
        if Path::new("/tmp").exists() && !writable.iter().any(|p| p == Path::new("/tmp")) {
            writable.push(PathBuf::from("/tmp"));
        }
        writable.extend(extra.iter().cloned());
        SandboxSpec {
            mode: SandboxMode::WorkspaceWrite,
            writable,
            protected: vec![
                workspace.join(".git/hooks"),
                workspace.join(".git/info"),
                workspace.join(".git/config"),
                workspace.join(".loom"),
            ],
            pinned: vec![workspace.join(".git")],
            allow_network,
            keep_capabilities: false,
        }
    }

    /// Whether commands are confined.
    pub fn is_active(&self) -> bool {
        self.mode != SandboxMode::Off
    }

    fn ruleset(&self) -> Result<RulesetCreated, String> {
        let connect = if self.allow_network {
            TcpRule::Open
        } else {
            TcpRule::Only(&[])
        };
        landlock_ruleset(&self.writable, connect)?
            .map(|(r, _)| r)
            .ok_or_else(|| "Landlock is not available on this system".to_string())
    }

    /// Arrange for the child of `cmd` to be isolated (always) and confined (when the
    /// sandbox is on) before it runs anything. Fails (and the command is not started) if
    /// the sandbox cannot be built.
    pub fn install(&self, cmd: &mut tokio::process::Command) -> std::io::Result<()> {
        let ruleset = if self.is_active() {
            Some(self.ruleset().map_err(|e| {
                std::io::Error::other(format!("the sandbox could not be set up: {e}"))
            })?)
        } else {
            None
        };
        let cstrings = |paths: &[PathBuf]| -> Vec<CString> {
            paths
                .iter()
                .filter(|p| p.exists())
                .filter_map(|p| CString::new(p.as_os_str().as_encoded_bytes()).ok())
                .collect()
        };
        let (read_only, pinned) = if self.is_active() {
            // A bind mount needs something to mount on, and a command must not be able
            // to create `.loom/config.toml` or `.git/hooks/pre-commit` just because the
            // directory was missing. Create the empty directory first (git does not show
            // empty directories) wherever its parent exists: `.git/*` only in a repository.
            for dir in &self.protected {
                let is_dir_name = dir
                    .file_name()
                    .is_some_and(|n| n == "hooks" || n == "info" || n == ".loom");
                if is_dir_name && dir.parent().is_some_and(Path::is_dir) {
                    let _ = std::fs::create_dir(dir);
                }
            }
            (cstrings(&self.protected), cstrings(&self.pinned))
        } else {
            (Vec::new(), Vec::new())
        };
        let mut isolation = Isolation::for_child(read_only, pinned);
        if self.is_active() {
            isolation = isolation.confined(self.allow_network, self.keep_capabilities);
        }
        let slot = Mutex::new(ruleset);
        // SAFETY: the closure runs in the child between fork and exec. It performs only
        // system calls on data prepared in the parent (no allocation besides what the
        // landlock crate does for its own syscall wrappers).
        unsafe {
            cmd.pre_exec(move || {
                isolation.enter();
                let ruleset = slot.lock().ok().and_then(|mut g| g.take());
                if let Some(rs) = ruleset {
                    rs.restrict_self()
                        .map_err(|e| std::io::Error::other(e.to_string()))?;
                }
                isolation.drop_privileges()
            });
        }
        Ok(())
    }
}

/// Whether a failed command's output looks like the sandbox stopped it.
pub fn looks_denied(stderr: &str, stdout: &str) -> Option<String> {
    const SIGNS: &[&str] = &[
        "Permission denied",
        "Operation not permitted",
        "Read-only file system",
        "EACCES",
        "EPERM",
        "EROFS",
    ];
    stderr
        .lines()
        .chain(stdout.lines())
        .find(|l| SIGNS.iter().any(|s| l.contains(s)))
        .map(|l| loom_base::text::preview_str(l.trim(), 200))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse() {
        assert_eq!(SandboxMode::parse("off"), Some(SandboxMode::Off));
        assert_eq!(
            SandboxMode::parse("workspace-write"),
            Some(SandboxMode::WorkspaceWrite)
        );
        assert_eq!(SandboxMode::parse("yes"), None);
    }

    #[test]
    fn mount_namespaces_need_root_or_allowed_user_namespaces() {
        let sysctl = |path: &'static str, value: &'static str| {
            move |p: &str| (p == path).then(|| format!("{value}\n"))
        };
        assert!(
            mount_namespaces_allowed(false, |_| None),
            "no knobs: the kernel default"
        );
        assert!(mount_namespaces_allowed(
            false,
            sysctl("/proc/sys/user/max_user_namespaces", "63000")
        ));
        for (path, off) in [
            ("/proc/sys/user/max_user_namespaces", "0"),
            ("/proc/sys/kernel/unprivileged_userns_clone", "0"),
            (
                "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
                "1",
            ),
        ] {
            assert!(
                !mount_namespaces_allowed(false, sysctl(path, off)),
                "{path}"
            );
            assert!(
                mount_namespaces_allowed(true, sysctl(path, off)),
                "root: {path}"
            );
        }
    }

    #[test]
    fn denial_signs() {
        assert!(looks_denied("touch: cannot touch '/etc/x': Permission denied", "").is_some());
        assert!(looks_denied("error: could not compile", "").is_none());
    }
}
