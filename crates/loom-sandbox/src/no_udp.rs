//! A seccomp filter that leaves the browser no way around its proxy below TCP: `socket()`
//! makes only Unix and netlink sockets and plain TCP ones (which Landlock confines to the
//! proxy's port). No UDP (WebRTC would send STUN and TURN packets to any address a page
//! names, and Landlock has no rule for UDP), no raw or packet sockets, no MPTCP or SCTP
//! (stream sockets Landlock's TCP rules do not cover) and no other family: those fail with
//! `EACCES`, and so does every way around the check: another ABI's system calls (i386
//! compat, x32) and `io_uring` (which can make sockets itself).
//! Everything else is untouched, and Chromium's own seccomp sandbox stacks on top of it.
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

    pub(super) const LD_W_ABS: u16 = (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16;
    pub(super) const JEQ_K: u16 = (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16;
    pub(super) const JGE_K: u16 = (libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K) as u16;
    pub(super) const AND_K: u16 = (libc::BPF_ALU | libc::BPF_AND | libc::BPF_K) as u16;
    pub(super) const RET_K: u16 = (libc::BPF_RET | libc::BPF_K) as u16;

    // Offsets in `struct seccomp_data`: nr, arch, then the arguments (low halves first on
    // these little-endian machines).
    const NR: u32 = 0;
    const ARCH_AT: u32 = 4;
    const ARG0: u32 = 16;
    const ARG1: u32 = 24;
    const ARG2: u32 = 32;
    /// x86_64's x32 system calls carry this bit in their number (same arch value).
    const X32_BIT: u32 = 0x4000_0000;

    const fn op(code: u16, jt: u8, jf: u8, k: u32) -> libc::sock_filter {
        libc::sock_filter { code, jt, jf, k }
    }

    pub(super) const DENY: u32 = libc::SECCOMP_RET_ERRNO | libc::EACCES as u32;
    pub(super) const ALLOW: u32 = libc::SECCOMP_RET_ALLOW;

    /// The program. A jump goes to the instruction after it plus its offset; the index of
    /// each instruction is in its comment.
    pub static PROGRAM: [libc::sock_filter; 20] = [
        op(LD_W_ABS, 0, 0, ARCH_AT),                       // 0
        op(JEQ_K, 1, 0, ARCH),                             // 1: native ABI: 3
        op(RET_K, 0, 0, DENY),                             // 2: another ABI (i386 compat): nothing
        op(LD_W_ABS, 0, 0, NR),                            // 3
        op(JGE_K, 13, 0, X32_BIT),                         // 4: an x32 call: 18
        op(JEQ_K, 12, 0, libc::SYS_io_uring_setup as u32), // 5: io_uring makes sockets too: 18
        op(JEQ_K, 0, 12, libc::SYS_socket as u32),         // 6: not socket(): 19
        op(LD_W_ABS, 0, 0, ARG0),                          // 7: the family
        op(JEQ_K, 10, 0, libc::AF_UNIX as u32),            // 8: 19
        op(JEQ_K, 9, 0, libc::AF_NETLINK as u32),          // 9: 19
        op(JEQ_K, 1, 0, libc::AF_INET as u32),             // 10: 12
        op(JEQ_K, 0, 6, libc::AF_INET6 as u32),            // 11: any other family: 18
        op(LD_W_ABS, 0, 0, ARG1),                          // 12
        op(AND_K, 0, 0, 0xf),                              // 13: the type without its flags
        op(JEQ_K, 0, 3, libc::SOCK_STREAM as u32),         // 14: not a stream: 18
        op(LD_W_ABS, 0, 0, ARG2),                          // 15: the protocol
        op(JEQ_K, 2, 0, 0),                                // 16: the default (TCP): 19
        op(JEQ_K, 1, 0, libc::IPPROTO_TCP as u32),         // 17: TCP: 19 (not MPTCP, SCTP)
        op(RET_K, 0, 0, DENY),                             // 18
        op(RET_K, 0, 0, ALLOW),                            // 19
    ];

    #[cfg(test)]
    pub(super) const NATIVE_ARCH: u32 = ARCH;
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
        filter: filter::PROGRAM.as_ptr().cast_mut(),
    };
    // SAFETY: prctl with a pointer to a program that lives for the whole process.
    let ok = unsafe {
        libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
            && libc::prctl(
                libc::PR_SET_SECCOMP,
                libc::SECCOMP_MODE_FILTER,
                &raw const prog,
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

#[cfg(all(
    test,
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
mod tests {
    use super::filter::*;
    use nix::libc;

    /// Run the program on one system call, as the kernel would.
    fn run(arch: u32, nr: u32, arg0: u32, arg1: u32, arg2: u32) -> u32 {
        let word = |at: u32| match at {
            0 => nr,
            4 => arch,
            16 => arg0,
            24 => arg1,
            32 => arg2,
            _ => panic!("the program reads offset {at}"),
        };
        let (mut acc, mut pc) = (0u32, 0usize);
        loop {
            let i = PROGRAM[pc];
            pc += 1;
            match i.code {
                LD_W_ABS => acc = word(i.k),
                AND_K => acc &= i.k,
                JEQ_K | JGE_K => {
                    let hit = if i.code == JEQ_K {
                        acc == i.k
                    } else {
                        acc >= i.k
                    };
                    pc += usize::from(if hit { i.jt } else { i.jf });
                }
                RET_K => return i.k,
                other => panic!("unexpected instruction {other:#x}"),
            }
        }
    }

    /// Invariant: every system call from another ABI, every x32 call and io_uring_setup
    /// are refused; socket() makes only Unix, netlink and plain TCP sockets; every other
    /// call passes. Checked by running the program, so a wrong jump offset fails.
    #[test]
    fn the_filter_allows_only_tcp_unix_and_netlink_sockets() {
        let native = NATIVE_ARCH;
        let socket = libc::SYS_socket as u32;
        let (inet, inet6) = (libc::AF_INET as u32, libc::AF_INET6 as u32);
        let (stream, dgram, raw) = (
            libc::SOCK_STREAM as u32,
            libc::SOCK_DGRAM as u32,
            libc::SOCK_RAW as u32,
        );
        let flags = libc::SOCK_CLOEXEC as u32 | libc::SOCK_NONBLOCK as u32;
        let tcp = libc::IPPROTO_TCP as u32;
        for (what, call, want) in [
            ("tcp", (native, socket, inet, stream, 0), ALLOW),
            (
                "tcp6, flags, IPPROTO_TCP",
                (native, socket, inet6, stream | flags, tcp),
                ALLOW,
            ),
            (
                "unix datagram",
                (native, socket, libc::AF_UNIX as u32, dgram, 0),
                ALLOW,
            ),
            (
                "netlink",
                (native, socket, libc::AF_NETLINK as u32, raw, 0),
                ALLOW,
            ),
            ("udp", (native, socket, inet, dgram, 0), DENY),
            (
                "udp6 with flags",
                (native, socket, inet6, dgram | flags, 0),
                DENY,
            ),
            ("raw", (native, socket, inet, raw, 0), DENY),
            ("mptcp", (native, socket, inet, stream, 262), DENY),
            ("sctp", (native, socket, inet6, stream, 132), DENY),
            (
                "packet",
                (native, socket, libc::AF_PACKET as u32, stream, 0),
                DENY,
            ),
            ("vsock", (native, socket, 40, stream, 0), DENY),
            (
                "io_uring",
                (native, libc::SYS_io_uring_setup as u32, 8, 0, 0),
                DENY,
            ),
            (
                "x32 socket",
                (native, socket | 0x4000_0000, inet, dgram, 0),
                DENY,
            ),
            ("another ABI", (0x4000_0003, 102, 1, 0, 0), DENY),
            ("read", (native, libc::SYS_read as u32, 3, 0, 0), ALLOW),
            (
                "connect",
                (native, libc::SYS_connect as u32, 3, 0, 0),
                ALLOW,
            ),
        ] {
            assert_eq!(run(call.0, call.1, call.2, call.3, call.4), want, "{what}");
        }
    }
}
