//! Commands that change the machine rather than the project: its network, clock, name,
//! kernel, firewall and processes. They are high (or forbidden) whether or not the
//! sandbox is on: as root outside a user namespace they reach the real host, and even
//! inside one a person should see them before they run.

use super::super::Risk;
use super::super::options::{Spec, parse};
use super::super::parse::Word;
use super::{Judgement, is_flag, judge};

/// Programs that only change the machine's configuration (beyond the package managers
/// and [`super::tables::SYSTEM_ADMIN`]): any use that is not a plain listing is high.
#[rustfmt::skip]
const MACHINE: &[&str] = &[
    "ifconfig", "route", "nmcli", "tc", "brctl", "ethtool", "hwclock", "timedatectl",
    "hostnamectl", "resolvectl", "systemd-resolve", "rfkill", "arp", "iwconfig", "setenforce",
    "auditctl", "udevadm", "sysctl", "ip6tables-restore", "iptables-restore", "ebtables",
    "ipset", "wg", "tunctl", "vconfig", "ntpdate", "chronyc", "adjtimex", "setpci",
];

/// Judge `name` when it changes the machine; `None` for every other program.
pub(super) fn machine(name: &str, args: &[Word]) -> Option<Judgement> {
    Some(match name {
        "killall5" => judge(
            Risk::Forbidden,
            "`killall5` signals every process on the machine",
        ),
        "kill" => kill(args),
        "pkill" | "killall" | "skill" | "xkill" => kill_by_name(name, args),
        "ip" => ip(args),
        "date" if args.iter().any(|w| sets_date(&w.text)) => {
            judge(Risk::High, "`date -s` sets the machine's clock")
        }
        m if MACHINE.contains(&m) => {
            if lists_only(name, args) {
                judge(Risk::ReadOnly, format!("`{name}` only shows settings"))
            } else {
                judge(
                    Risk::High,
                    format!("`{name}` changes the machine's configuration"),
                )
            }
        }
        _ => {
            return super::power::power(name, args).or_else(|| super::disks::disk_tool(name, args));
        }
    })
}

/// Whether a process-name pattern (an extended regular expression matched anywhere in
/// the name) matches every process: only `.`, `*`, `+`, `?` and parentheses once anchors
/// are removed (`.`, `.*`, `^.*$`, the empty pattern), in one of its alternatives.
fn matches_every_name(pattern: &str) -> bool {
    pattern.split('|').any(|alt| {
        alt.trim_start_matches('^')
            .trim_end_matches('$')
            .chars()
            .all(|c| matches!(c, '.' | '*' | '+' | '?' | '(' | ')'))
    })
}

/// `pkill`, `killall`, `skill`, `xkill`: high; forbidden when what they match is every
/// process (`pkill -f .`, `killall -r '.*'`) or every process of a user (`pkill -u dev`,
/// `killall -u dev` with no name), as `kill -9 -1` is.
fn kill_by_name(name: &str, args: &[Word]) -> Judgement {
    let high = judge(Risk::High, format!("`{name}` stops running processes"));
    let every = |what: &str| {
        judge(
            Risk::Forbidden,
            format!("`{name}` {what}, like `kill -9 -1`"),
        )
    };
    let signal_free = without_signals(args);
    let Some(spec) = kill_spec(name) else {
        return high;
    };
    let Ok(parsed) = parse(&spec, &signal_free, false) else {
        return high;
    };
    if parsed.operands.iter().any(|w| w.dynamic) {
        return high;
    }
    let by_user = parsed.has(&["-u", "--euid", "-U", "--uid", "--user", "-G", "--group"]);
    let patterns: Vec<&str> = parsed.operands.iter().map(|w| w.text.as_str()).collect();
    if by_user && patterns.is_empty() {
        return every("signals every process of a user");
    }
    if name == "pkill" && parsed.has(&["-v", "--inverse"]) {
        return every("signals every process but the ones it names");
    }
    let regex = name == "pkill" || parsed.has(&["-r", "--regexp"]);
    if regex && patterns.iter().any(|p| matches_every_name(p)) {
        return every("matches every process");
    }
    high
}

/// `args` without the signal options (`-9`, `-KILL`, `-HUP`), which the option tables
/// do not list.
fn without_signals(args: &[Word]) -> Vec<Word> {
    args.iter()
        .filter(|w| {
            let t = w.text.as_str();
            let sig = t.strip_prefix('-').unwrap_or("");
            !(t.starts_with('-')
                && !sig.is_empty()
                && (sig.chars().all(|c| c.is_ascii_digit())
                    || (sig.len() >= 2
                        && sig.starts_with(|c: char| c.is_ascii_uppercase())
                        && sig
                            .chars()
                            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()))))
        })
        .cloned()
        .collect()
}

/// The options of `pkill` and `killall` (the others are only judged high).
fn kill_spec(name: &str) -> Option<Spec> {
    Some(match name {
        "pkill" => Spec {
            flags: "efinoxcLAvwhVHe",
            valued: "gGPstuUFOrqd",
            long: &[
                "signal=",
                "echo",
                "full",
                "ignore-case",
                "newest",
                "oldest",
                "exact",
                "count",
                "pgroup=",
                "group=",
                "parent=",
                "session=",
                "terminal=",
                "euid=",
                "uid=",
                "pidfile=",
                "logpidfile",
                "older=",
                "runstates=",
                "ignore-ancestors",
                "queue=",
                "require-handler",
                "inverse",
                "help",
                "version",
                "ns=",
                "nslist=",
                "cgroup=",
                "env=",
            ],
            numeric: false,
        },
        "killall" => Spec {
            flags: "eIgiqrvwlVh",
            valued: "suyoZn",
            long: &[
                "exact",
                "ignore-case",
                "process-group",
                "interactive",
                "list",
                "quiet",
                "regexp",
                "signal=",
                "user=",
                "verbose",
                "version",
                "wait",
                "younger-than=",
                "older-than=",
                "context=",
                "ns=",
                "help",
            ],
            numeric: false,
        },
        _ => return None,
    })
}

/// `-s`, `--set`, `--set=…`, or `s` among short flags (`-us`) before a letter whose value
/// takes the rest of the word (`-Iseconds` is `-I seconds`, `-d@0` is a date).
fn sets_date(t: &str) -> bool {
    if t == "--set" || t.starts_with("--set=") {
        return true;
    }
    let Some(letters) = t.strip_prefix('-').filter(|l| !l.starts_with('-')) else {
        return false;
    };
    for c in letters.chars() {
        match c {
            's' => return true,
            'd' | 'f' | 'r' | 'I' => return false,
            c if c.is_ascii_alphabetic() => {}
            _ => return false,
        }
    }
    false
}

/// `kill`: high; forbidden when its target is `-1` (every process it may signal).
fn kill(args: &[Word]) -> Judgement {
    let mut targets = args;
    if let Some(first) = args.first() {
        let t = first.text.as_str();
        if matches!(t, "-s" | "-n" | "--signal") {
            targets = args.get(2..).unwrap_or(&[]);
        } else if t == "--" || (t.starts_with('-') && t.len() > 1 && !args[1..].is_empty()) {
            targets = &args[1..];
        }
    }
    let targets = match targets.first() {
        Some(w) if w.text == "--" => &targets[1..],
        _ => targets,
    };
    if targets.iter().any(|w| w.text == "-1" || w.dynamic) {
        let all = targets.iter().any(|w| w.text == "-1");
        return if all {
            judge(
                Risk::Forbidden,
                "`kill -1` signals every process the user may signal",
            )
        } else {
            judge(
                Risk::High,
                "`kill` signals processes chosen at run time (it could be every process)",
            )
        };
    }
    judge(Risk::High, "`kill` stops running processes")
}

/// `ip`: listing objects is read-only; anything else changes the network.
fn ip(args: &[Word]) -> Judgement {
    const OBJECTS: &[&str] = &[
        "a",
        "addr",
        "address",
        "l",
        "link",
        "r",
        "ro",
        "route",
        "n",
        "neigh",
        "neighbour",
        "rule",
        "ru",
        "maddr",
        "maddress",
        "mroute",
        "netns",
        "tunnel",
        "tuntap",
        "-br",
        "-c",
        "-4",
        "-6",
        "-j",
        "-json",
        "-brief",
        "-color",
        "-s",
        "-stats",
        "-d",
        "-details",
    ];
    const VIEWS: &[&str] = &["show", "list", "ls", "lst", "get", "sh", "s"];
    let words: Vec<&str> = args.iter().map(|w| w.text.as_str()).collect();
    let verb = words
        .iter()
        .find(|w| !OBJECTS.contains(w) && !w.starts_with('-'));
    let all_known = args.iter().all(|w| !w.dynamic);
    match verb {
        None if all_known => judge(Risk::ReadOnly, "`ip` only lists network settings"),
        Some(v) if all_known && VIEWS.contains(v) && !words.contains(&"exec") => {
            judge(Risk::ReadOnly, "`ip` only shows network settings")
        }
        _ => judge(
            Risk::High,
            "`ip` changes the machine's network configuration",
        ),
    }
}

/// Whether a machine-configuration program is only asked to show its settings.
fn lists_only(name: &str, args: &[Word]) -> bool {
    if args.iter().any(|w| w.dynamic) {
        return false;
    }
    let plain: Vec<&str> = args
        .iter()
        .filter(|w| !is_flag(w))
        .map(|w| w.text.as_str())
        .collect();
    match name {
        "ifconfig" | "iwconfig" | "arp" | "route" => {
            plain.is_empty()
                && args
                    .iter()
                    .all(|w| matches!(w.text.as_str(), "-a" | "-n" | "-v"))
        }
        "timedatectl" | "hostnamectl" | "resolvectl" => {
            matches!(plain.as_slice(), [] | ["status"] | ["show"])
        }
        "sysctl" => {
            plain.iter().all(|p| !p.contains('='))
                && args
                    .iter()
                    .all(|w| !is_flag(w) || matches!(w.text.as_str(), "-a" | "-n" | "-N" | "--all"))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(name: &str, line: &str) -> Risk {
        let args: Vec<Word> = line.split_whitespace().map(Word::literal).collect();
        machine(name, &args).map_or(Risk::ReadOnly, |j| j.level)
    }

    #[test]
    fn changes_to_the_machine_are_high_and_listings_read_only() {
        assert_eq!(level("ip", "link set lo down"), Risk::High);
        assert_eq!(level("ip", "addr add 10.0.0.1/24 dev eth0"), Risk::High);
        assert_eq!(level("ip", "netns exec x sh"), Risk::High);
        assert_eq!(level("ip", "a"), Risk::ReadOnly);
        assert_eq!(level("ip", "-br addr show"), Risk::ReadOnly);
        assert_eq!(level("ip", "route get 1.1.1.1"), Risk::ReadOnly);
        assert_eq!(level("date", "-s 2020-01-01"), Risk::High);
        assert_eq!(level("date", "--set=2020-01-01"), Risk::High);
        assert_eq!(level("date", "-us 2020-01-01"), Risk::High);
        assert_eq!(level("date", "-Iseconds"), Risk::ReadOnly);
        assert_eq!(level("date", "-d@5"), Risk::ReadOnly);
        assert_eq!(level("hostnamectl", "set-hostname x"), Risk::High);
        assert_eq!(level("hostnamectl", ""), Risk::ReadOnly);
        assert_eq!(level("sysctl", "-w kernel.x=1"), Risk::High);
        assert_eq!(level("sysctl", "kernel.x=1"), Risk::High);
        assert_eq!(level("sysctl", "-a"), Risk::ReadOnly);
        assert_eq!(level("ifconfig", "lo down"), Risk::High);
        assert_eq!(level("ifconfig", "-a"), Risk::ReadOnly);
    }

    #[test]
    fn killing_every_process_by_name_or_user_is_forbidden() {
        assert_eq!(level("pkill", "-9 ."), Risk::Forbidden);
        assert_eq!(level("pkill", "-SIGKILL -f ^.*$"), Risk::Forbidden);
        assert_eq!(level("pkill", "-f x|."), Risk::Forbidden);
        assert_eq!(level("pkill", "-U 1000"), Risk::Forbidden);
        assert_eq!(level("pkill", "-v -f firefox"), Risk::Forbidden);
        assert_eq!(level("killall", "-9 -r (.*)"), Risk::Forbidden);
        assert_eq!(level("killall", "-u dev"), Risk::Forbidden);
        assert_eq!(level("killall", "-u dev node"), Risk::High);
        assert_eq!(
            level("killall", "."),
            Risk::High,
            "without -r names are exact"
        );
        assert_eq!(level("pkill", "-f node.server"), Risk::High);
        assert_eq!(level("pkill", "-P 1234"), Risk::High);
        assert_eq!(level("xkill", ""), Risk::High);
    }

    #[test]
    fn signalling_every_process_is_forbidden() {
        assert_eq!(level("killall5", "-9"), Risk::Forbidden);
        assert_eq!(level("kill", "-9 -1"), Risk::Forbidden);
        assert_eq!(level("kill", "-s KILL -1"), Risk::Forbidden);
        assert_eq!(level("kill", "-- -1"), Risk::Forbidden);
        assert_eq!(level("kill", "-KILL -1"), Risk::Forbidden);
        assert_eq!(level("kill", "-1 1234"), Risk::High, "-1 here is SIGHUP");
        assert_eq!(level("kill", "1234"), Risk::High);
    }
}
