//! What the end-to-end benches read about the running `loom` process from `/proc`: its
//! resident memory split by kind, its CPU time, and when it has settled.

use std::time::{Duration, Instant};

/// Resident memory of a process, in MB, as the kernel counts it in `/proc/PID/status`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Resident {
    /// Everything resident (`VmRSS`).
    pub total: f64,
    /// Heap, stacks and other private anonymous pages (`RssAnon`): what Loom allocated.
    pub anon: f64,
    /// Pages of the executable and shared libraries mapped in (`RssFile`): depends on what
    /// code ran and on how much of the files the page cache holds (the kernel maps cached
    /// neighbours of a faulting page too).
    pub file: f64,
    /// The peak of `total` (`VmHWM`).
    pub peak: f64,
    /// Threads alive.
    pub threads: f64,
}

fn status_field(status: &str, field: &str) -> f64 {
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(0.0)
}

/// The resident memory of `pid` now.
pub fn resident(pid: u32) -> Resident {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let mb = |field| status_field(&status, field) / 1024.0;
    Resident {
        total: mb("VmRSS:"),
        anon: mb("RssAnon:"),
        file: mb("RssFile:"),
        peak: mb("VmHWM:"),
        threads: status_field(&status, "Threads:"),
    }
}

/// User plus system CPU seconds of a process (all its threads).
pub fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or("");
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)
        .ok()
        .flatten()
        .unwrap_or(100) as f64;
    let utime: f64 = fields.get(11).and_then(|v| v.parse().ok()).unwrap_or(0.0);
    let stime: f64 = fields.get(12).and_then(|v| v.parse().ok()).unwrap_or(0.0);
    (utime + stime) / ticks
}

/// Wait until `pid` is idle: at least `min` has passed and its CPU time has not moved for
/// half a second (what it starts in the background, such as asking the server about the
/// model or loading highlighting, is done), or `limit` has passed. Whether it settled.
pub fn settle(pid: u32, min: Duration, limit: Duration) -> bool {
    let start = Instant::now();
    let mut last = cpu_seconds(pid);
    let mut still_since = Instant::now();
    loop {
        std::thread::sleep(Duration::from_millis(100));
        let now = cpu_seconds(pid);
        if now != last {
            last = now;
            still_since = Instant::now();
        }
        if start.elapsed() >= min && still_since.elapsed() >= Duration::from_millis(500) {
            return true;
        }
        if start.elapsed() >= limit {
            return false;
        }
    }
}

/// The median of `v` (the upper one of an even count); 0 when empty.
pub fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}
