//! Finding and ending the processes a command left behind, where PID namespaces could not
//! be used.
//!
//! Loom is a child subreaper ([`crate::policy::isolate::harden_self`]), so a process that
//! escapes its command's process group (`setsid`, double fork) is re-parented to Loom
//! rather than to init. After a call, [`sweep`] kills every descendant of the call's
//! child still alive and every child of Loom that appeared during the call, and reaps the
//! ones that became Loom's children. In Loom's normal operation only one command runs at a
//! time, so a new child of Loom during a call can only come from that call.

use std::collections::{HashMap, HashSet};

use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{WaitPidFlag, waitpid};
use nix::unistd::Pid;

/// One process as `/proc/PID/stat` describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Proc {
    pid: i32,
    ppid: i32,
}

fn processes() -> Vec<Proc> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let rest = stat.rsplit_once(')')?.1;
            let ppid = rest.split_whitespace().nth(1)?.parse().ok()?;
            Some(Proc { pid, ppid })
        })
        .collect()
}

/// Whether this process adopts orphaned descendants.
pub fn is_subreaper() -> bool {
    #[cfg(target_os = "linux")]
    {
        let mut flag: nix::libc::c_int = 0;
        // SAFETY: PR_GET_CHILD_SUBREAPER writes one int through the pointer.
        let r = unsafe {
            nix::libc::prctl(
                nix::libc::PR_GET_CHILD_SUBREAPER,
                &mut flag as *mut nix::libc::c_int,
                0,
                0,
                0,
            )
        };
        r == 0 && flag != 0
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

/// The children this process has now (taken before a call starts).
pub fn children() -> HashSet<i32> {
    let me = std::process::id() as i32;
    processes()
        .into_iter()
        .filter(|p| p.ppid == me)
        .map(|p| p.pid)
        .collect()
}

/// Kill what a call left behind: descendants of `root` (the call's child), and — when
/// this process is a subreaper — its children that were not there before the call
/// (`before`), with their descendants. Returns how many processes were killed.
pub fn sweep(root: Option<i32>, before: &HashSet<i32>) -> usize {
    let me = std::process::id() as i32;
    let all = processes();
    let mut by_parent: HashMap<i32, Vec<i32>> = HashMap::new();
    for p in &all {
        by_parent.entry(p.ppid).or_default().push(p.pid);
    }
    let mut seeds: Vec<i32> = root.into_iter().collect();
    let adopted: Vec<i32> = if is_subreaper() {
        all.iter()
            .filter(|p| p.ppid == me && !before.contains(&p.pid) && Some(p.pid) != root)
            .map(|p| p.pid)
            .collect()
    } else {
        Vec::new()
    };
    seeds.extend(&adopted);
    let mut doomed = Vec::new();
    let mut seen = HashSet::new();
    while let Some(pid) = seeds.pop() {
        if !seen.insert(pid) {
            continue;
        }
        if Some(pid) != root {
            doomed.push(pid);
        }
        if let Some(kids) = by_parent.get(&pid) {
            seeds.extend(kids);
        }
    }
    for pid in &doomed {
        let _ = kill(Pid::from_raw(*pid), Signal::SIGKILL);
    }
    for pid in adopted {
        for _ in 0..50 {
            match waitpid(Pid::from_raw(pid), Some(WaitPidFlag::WNOHANG)) {
                Ok(nix::sys::wait::WaitStatus::StillAlive) => {
                    std::thread::sleep(std::time::Duration::from_millis(2))
                }
                _ => break,
            }
        }
    }
    doomed.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descendants_of_a_child_are_found_and_killed() {
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sleep 30 & sleep 30 & wait"])
            .spawn()
            .unwrap();
        let root = child.id() as i32;
        std::thread::sleep(std::time::Duration::from_millis(200));
        let killed = sweep(Some(root), &HashSet::new());
        assert_eq!(killed, 2, "both sleeps");
        let status = child.wait().unwrap();
        assert!(
            status.success(),
            "the shell's `wait` returns once they are gone"
        );
    }
}
