//! Finding and ending the processes a command left behind, where PID namespaces could not
//! be used.
//!
//! Loom is a child subreaper ([`crate::isolate::harden_self`]), so a process that
//! escapes its command's process group (`setsid`, double fork) is re-parented to Loom
//! rather than to init. After a call, [`sweep`] kills every descendant of the call's
//! child still alive and every child of Loom that appeared during the call, and reaps the
//! ones that became Loom's children. A new child of Loom during a call comes from that call,
//! except the long-lived children Loom starts for itself (MCP servers, the browser), which
//! are spawned through [`spawn_kept`] and never swept, and the proxies of other isolated
//! calls running at the same time, which are recognised by their PID namespace and spared.
//! A call run without namespaces is spawned through [`spawn_kept`] while it runs, so
//! another call's sweep spares it too.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

/// Children Loom keeps on purpose (MCP servers): a sweep leaves them and theirs alone.
static KEPT: Mutex<Vec<i32>> = Mutex::new(Vec::new());

fn kept() -> std::sync::MutexGuard<'static, Vec<i32>> {
    KEPT.lock().unwrap_or_else(|e| e.into_inner())
}

/// Spawn a long-lived child that sweeps must not kill, and remember it as kept. The
/// spawn happens under the same lock a sweep takes, so no sweep can see the child before
/// it is known to be kept.
pub fn spawn_kept(cmd: &mut tokio::process::Command) -> std::io::Result<tokio::process::Child> {
    let mut kept = kept();
    let child = cmd.spawn()?;
    if let Some(pid) = child.id() {
        kept.push(pid as i32);
    }
    Ok(child)
}

/// Forget a kept child (it exited or was killed).
pub fn release(pid: u32) {
    kept().retain(|p| *p != pid as i32);
}

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

/// The children of `pid`: from `/proc/PID/task/PID/children` where the kernel offers it,
/// else by scanning every process.
fn children_of(pid: i32) -> Vec<i32> {
    match std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")) {
        Ok(list) => list
            .split_whitespace()
            .filter_map(|p| p.parse().ok())
            .collect(),
        Err(_) => processes()
            .into_iter()
            .filter(|p| p.ppid == pid)
            .map(|p| p.pid)
            .collect(),
    }
}

/// Whether `pid` is PID 1 of a PID namespace below this process's: the last of its
/// `NSpid` numbers (one per namespace, from this one down to its own) is 1.
fn is_namespace_init(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            let ids: Vec<String> = status
                .lines()
                .find_map(|l| l.strip_prefix("NSpid:"))?
                .split_whitespace()
                .map(String::from)
                .collect();
            Some(ids.len() > 1 && ids.last().is_some_and(|last| last == "1"))
        })
        .unwrap_or(false)
}

/// The PID 1 of the namespace an isolated command's proxy started (see
/// [`crate::isolate`]): the proxy's child that is a namespace's init. `None` when
/// `proxy` is the command itself (no namespaces here) or its init has already exited.
pub fn namespace_init(proxy: i32) -> Option<i32> {
    children_of(proxy)
        .into_iter()
        .find(|child| is_namespace_init(*child))
}

/// Whether `pid` is the proxy of an isolated child: it made a PID namespace for its
/// children other than this process's. Such a child needs no sweeping (everything it
/// started dies with its namespace), and must not be swept by another call's sweep.
pub fn is_namespace_proxy(pid: i32) -> bool {
    let link = |path: String| std::fs::read_link(path).ok();
    match (
        link(format!("/proc/{pid}/ns/pid_for_children")),
        link("/proc/self/ns/pid_for_children".into()),
    ) {
        (Some(theirs), Some(ours)) => theirs != ours,
        _ => false,
    }
}

/// Whether this process adopts orphaned descendants.
pub fn is_subreaper() -> bool {
    #[cfg(target_os = "linux")]
    {
        let mut flag: nix::libc::c_int = 0;
        // SAFETY: PR_GET_CHILD_SUBREAPER writes one int through the pointer.
        let r =
            unsafe { nix::libc::prctl(nix::libc::PR_GET_CHILD_SUBREAPER, &raw mut flag, 0, 0, 0) };
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

/// Which processes a sweep kills, and which of them are this process's adopted children
/// (to be reaped): the descendants of `root`, and when this process (`me`) is a subreaper
/// its children not in `before` and not `kept`, with their descendants.
fn plan(
    all: &[Proc],
    me: i32,
    root: Option<i32>,
    before: &HashSet<i32>,
    kept: &[i32],
    subreaper: bool,
) -> (Vec<i32>, Vec<i32>) {
    let mut by_parent: HashMap<i32, Vec<i32>> = HashMap::new();
    for p in all {
        by_parent.entry(p.ppid).or_default().push(p.pid);
    }
    let mut seeds: Vec<i32> = root.into_iter().collect();
    let adopted: Vec<i32> = if subreaper {
        all.iter()
            .filter(|p| {
                p.ppid == me
                    && !before.contains(&p.pid)
                    && Some(p.pid) != root
                    && !kept.contains(&p.pid)
            })
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
    (doomed, adopted)
}

/// Kill every descendant of `root` (not `root` itself), for a kept child that is being
/// stopped: where namespaces are not allowed, what it started with `setsid` is found here
/// while the tree still holds together. Returns how many were killed.
pub fn kill_descendants(root: i32) -> usize {
    let (doomed, _) = plan(&processes(), 0, Some(root), &HashSet::new(), &[], false);
    for pid in &doomed {
        let _ = kill(Pid::from_raw(*pid), Signal::SIGKILL);
    }
    doomed.len()
}

/// Kill what a call left behind: descendants of `root` (the call's child), and — when
/// this process is a subreaper — its children that were not there before the call
/// (`before`), with their descendants. Returns how many processes were killed.
pub fn sweep(root: Option<i32>, before: &HashSet<i32>) -> usize {
    let me = std::process::id() as i32;
    let all = processes();
    let kept = kept();
    // Isolated calls running at the same time (parallel sub-agents) are left alone too.
    let mut spared = kept.clone();
    spared.extend(
        all.iter()
            .filter(|p| p.ppid == me && !before.contains(&p.pid) && is_namespace_proxy(p.pid))
            .map(|p| p.pid),
    );
    let (doomed, adopted) = plan(&all, me, root, before, &spared, is_subreaper());
    drop(kept);
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

    /// Regression: an MCP server started (or restarted) in the background while a command
    /// ran was a new child of Loom, and the command's sweep killed it with its children.
    #[test]
    fn a_kept_child_started_during_a_call_survives_the_sweep() {
        let proc = |pid, ppid| Proc { pid, ppid };
        // Loom is 1; 2 was there before the call; 3 (a stray) and 4 (an MCP server, with
        // its child 5) appeared during it.
        let all = [proc(2, 1), proc(3, 1), proc(4, 1), proc(5, 4), proc(6, 3)];
        let before = HashSet::from([2]);
        let (mut doomed, adopted) = plan(&all, 1, None, &before, &[], true);
        doomed.sort_unstable();
        assert_eq!(doomed, [3, 4, 5, 6], "without keeping, the server goes too");
        assert_eq!(adopted.len(), 2);
        let (mut doomed, adopted) = plan(&all, 1, None, &before, &[4], true);
        doomed.sort_unstable();
        assert_eq!(doomed, [3, 6], "the kept server and its child stay");
        assert_eq!(adopted, [3]);
        let (doomed, _) = plan(&all, 1, None, &before, &[], false);
        assert!(doomed.is_empty(), "no adoption without being a subreaper");
    }

    /// The kill of a timed-out call aims at PID 1 of its namespace, found through the
    /// proxy; a plain child is neither a proxy nor has an init below it.
    #[tokio::test]
    async fn an_isolated_childs_init_is_found_through_its_proxy() {
        if !crate::protection_available() {
            eprintln!("skipped: namespaces are not allowed here");
            return;
        }
        let mut cmd = tokio::process::Command::new("sleep");
        cmd.arg("30").kill_on_drop(true);
        crate::SandboxSpec::off().install(&mut cmd).unwrap();
        let isolated = cmd.spawn().unwrap();
        let proxy = isolated.id().unwrap() as i32;
        assert!(is_namespace_proxy(proxy));
        let init = namespace_init(proxy).expect("the namespace's init is the proxy's child");
        assert_ne!(init, proxy);
        let cmdline = std::fs::read(format!("/proc/{init}/cmdline")).unwrap();
        assert_eq!(cmdline, b"sleep\x0030\x00");

        let mut plain = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let pid = plain.id() as i32;
        assert!(!is_namespace_proxy(pid));
        assert_eq!(namespace_init(pid), None);
        plain.kill().unwrap();
        plain.wait().unwrap();
    }

    #[test]
    fn descendants_of_a_child_are_found_and_killed() {
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sleep 30 & sleep 30 & wait"])
            .spawn()
            .unwrap();
        let root = child.id() as i32;
        // Both sleeps are running once the shell has two children.
        let children = || {
            std::fs::read_to_string(format!("/proc/{root}/task/{root}/children"))
                .unwrap_or_default()
                .split_whitespace()
                .count()
        };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while children() < 2 && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let killed = sweep(Some(root), &HashSet::new());
        assert_eq!(killed, 2, "both sleeps");
        let status = child.wait().unwrap();
        assert!(
            status.success(),
            "the shell's `wait` returns once they are gone"
        );
    }
}
