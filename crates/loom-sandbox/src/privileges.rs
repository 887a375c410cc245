//! Taking root's power away from a sandboxed command (Linux), between fork and exec.
//!
//! Run as root (CI machines, containers, many development VMs), a command would otherwise
//! keep almost every capability: set the clock, rename the machine, reconfigure its network,
//! open raw sockets, load kernel modules. [`drop_all`] empties every capability set
//! (effective, permitted, inheritable, ambient and the bounding set) and sets
//! `no_new_privs`, so neither root's own `exec` nor a setuid or file-capability program
//! gives any back. Together with the command's own user, UTS and network namespaces
//! ([`crate::isolate`]), root inside the sandbox reaches nothing of the machine that
//! needs a capability; only ordinary file permissions remain, which Landlock confines.
//!
//! [`loopback_up`] brings up the loopback interface of a new network namespace, which
//! starts down.
//!
//! Everything here makes plain system calls only, as code between fork and exec must.

use nix::libc;

/// `_LINUX_CAPABILITY_VERSION_3`: two 32-bit words per set.
const CAPABILITY_VERSION_3: u32 = 0x2008_0522;
/// The capability that allows changing the bounding set.
const CAP_SETPCAP: u32 = 8;

/// `struct __user_cap_header_struct`.
#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

/// `struct __user_cap_data_struct`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// Empty every capability set of the calling process and set `no_new_privs`. Fails (so
/// the command is not started) if a capability it holds could not be dropped. A process
/// without `CAP_SETPCAP` (an ordinary user where user namespaces are refused) cannot change
/// its bounding set, and needs not: with `no_new_privs` and no capability it never gains one.
///
/// # Safety
/// Only call between fork and exec (from `pre_exec`).
pub unsafe fn drop_all() -> std::io::Result<()> {
    let failed = std::io::Error::last_os_error;
    // SAFETY: prctl and the capget/capset system calls on memory owned by this frame.
    unsafe {
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            return Err(failed());
        }
        // Ambient capabilities exist since Linux 4.3; an older kernel has none to clear.
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        );
        let mut header = CapHeader {
            version: CAPABILITY_VERSION_3,
            pid: 0,
        };
        let mut held = [CapData::default(); 2];
        if libc::syscall(libc::SYS_capget, &mut header, held.as_mut_ptr()) != 0 {
            return Err(failed());
        }
        if held[0].effective & (1 << CAP_SETPCAP) != 0 {
            for cap in 0..64 {
                if libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 {
                    // EINVAL: past the last capability this kernel knows.
                    if *libc::__errno_location() == libc::EINVAL {
                        break;
                    }
                    return Err(failed());
                }
            }
        }
        let header = CapHeader {
            version: CAPABILITY_VERSION_3,
            pid: 0,
        };
        let none = [CapData::default(); 2];
        if libc::syscall(libc::SYS_capset, &header, none.as_ptr()) != 0 {
            return Err(failed());
        }
    }
    Ok(())
}

/// Bring up `lo` in the calling process's network namespace, so programs that talk to
/// themselves over 127.0.0.1 still can (a new namespace's loopback starts down). Best
/// effort: without it only loopback traffic fails, nothing reaches outside either way.
///
/// # Safety
/// Only call between fork and exec (from `pre_exec`).
pub unsafe fn loopback_up() {
    // SAFETY: socket, ioctl and close on a zeroed `ifreq` owned by this frame.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if fd < 0 {
            return;
        }
        let mut request: libc::ifreq = std::mem::zeroed();
        request.ifr_name[0] = b'l' as libc::c_char;
        request.ifr_name[1] = b'o' as libc::c_char;
        if libc::ioctl(fd, libc::SIOCGIFFLAGS as _, &mut request) == 0 {
            request.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
            libc::ioctl(fd, libc::SIOCSIFFLAGS as _, &request);
        }
        libc::close(fd);
    }
}
