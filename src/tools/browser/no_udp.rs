//! A seccomp filter that leaves the browser no way around its proxy below TCP: no UDP
//! sockets (WebRTC would send STUN and TURN packets to any address a page names, and
//! Landlock has no rule for UDP), no raw sockets and no packet sockets. `socket()` for
//! those fails with `EACCES`; everything else is untouched, and Chromium's own seccomp
//! sandbox stacks on top of it.
//!
//! Only for x86_64 and aarch64, whose `socket` system call numbers are known here; on
//! other machines [`available`] says no and the confinement says so.

/// Whether the filter exists for this machine.
pub const fn available() -> bool {
    cfg!(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    ))
}

#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
mod filter {
    use nix::libc;

    #[cfg(target_arch = "x86_64")]
    const ARCH: u32 = 0xc000_003e; // AUDIT_ARCH_X86_64
    #[cfg(target_arch = "aarch64")]
    const ARCH: u32 = 0xc000_00b7; // AUDIT_ARCH_AARCH64

    const LD_W_ABS: u16 = (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16;
    const JEQ_K: u16 = (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16;
    const AND_K: u16 = (libc::BPF_ALU | libc::BPF_AND | libc::BPF_K) as u16;
    const RET_K: u16 = (libc::BPF_RET | libc::BPF_K) as u16;

    // Offsets in `struct seccomp_data`: nr, arch, then the arguments (low halves first on
    // these little-endian machines).
    const NR: u32 = 0;
    const ARCH_AT: u32 = 4;
    const ARG0: u32 = 16;
    const ARG1: u32 = 24;

    const fn op(code: u16, jt: u8, jf: u8, k: u32) -> libc::sock_filter {
        libc::sock_filter { code, jt, jf, k }
    }

    const DENY: u32 = libc::SECCOMP_RET_ERRNO | libc::EACCES as u32;
    const ALLOW: u32 = libc::SECCOMP_RET_ALLOW;

    /// The program; jump offsets count the instructions skipped.
    pub static PROGRAM: [libc::sock_filter; 14] = [
        op(LD_W_ABS, 0, 0, ARCH_AT),
        op(JEQ_K, 0, 11, ARCH), // another ABI: allow
        op(LD_W_ABS, 0, 0, NR),
        op(JEQ_K, 0, 9, libc::SYS_socket as u32), // not socket(): allow
        op(LD_W_ABS, 0, 0, ARG0),
        op(JEQ_K, 6, 0, libc::AF_PACKET as u32), // packet socket: deny
        op(JEQ_K, 1, 0, libc::AF_INET as u32),
        op(JEQ_K, 0, 5, libc::AF_INET6 as u32), // another family: allow
        op(LD_W_ABS, 0, 0, ARG1),
        op(AND_K, 0, 0, 0xf), // the type without its flags
        op(JEQ_K, 1, 0, libc::SOCK_DGRAM as u32),
        op(JEQ_K, 0, 1, libc::SOCK_RAW as u32),
        op(RET_K, 0, 0, DENY),
        op(RET_K, 0, 0, ALLOW),
    ];
}

/// Install the filter on the calling process (and so on everything it starts).
///
/// # Safety
/// Only between fork and exec: it makes two `prctl` calls on static data.
#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
pub unsafe fn install() -> std::io::Result<()> {
    use nix::libc;
    let prog = libc::sock_fprog {
        len: filter::PROGRAM.len() as u16,
        filter: filter::PROGRAM.as_ptr() as *mut libc::sock_filter,
    };
    // SAFETY: prctl with a pointer to a program that lives for the whole process.
    let ok = unsafe {
        libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
            && libc::prctl(
                libc::PR_SET_SECCOMP,
                libc::SECCOMP_MODE_FILTER,
                &prog as *const libc::sock_fprog,
            ) == 0
    };
    if ok {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Without a filter for this machine: nothing to install.
///
/// # Safety
/// Trivially safe; `unsafe` to match the Linux version.
#[cfg(not(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
)))]
pub unsafe fn install() -> std::io::Result<()> {
    Ok(())
}
