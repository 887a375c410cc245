//! Commands that change the machine rather than the project: its network, clock, name,
//! kernel, firewall and processes. They are high (or forbidden) whether or not the
//! sandbox is on: as root outside a user namespace they reach the real host, and even
//! inside one a person should see them before they run.

use super::super::Risk;
use super::super::parse::Word;
use super::{Judgement, is_flag, judge};

/// Programs that only change the machine's configuration (beyond the package managers
/// and [`super::tables::SYSTEM_ADMIN`]): any use that is not a plain listing is high.
#[rustfmt::skip]
const MACHINE: &[&str] = &[
    "ifconfig", "route", "nmcli", "tc", "brctl", "ethtool", "hwclock", "timedatectl",
    "hostnamectl", "resolvectl", "systemd-resolve", "rfkill", "arp", "iwconfig", "setenforce",
    "auditctl", "udevadm", "sysctl", "ip6tables-restore", "iptables-restore", "ebtables",
    "ipset", "wg", "tunctl", "vconfig", "ntpdate", "chronyc", "adjtimex", "setpci", "kexec",
];

/// Judge `name` when it changes the machine; `None` for every other program.
pub(super) fn machine(name: &str, args: &[Word]) -> Option<Judgement> {
    Some(match name {
        "killall5" => judge(
            Risk::Forbidden,
            "`killall5` signals every process on the machine",
        ),
        "kill" => kill(args),
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
        _ => return None,
    })
}

/// `-s`, `--set`, `--set=…`, or short flags holding `s` (`-us`).
fn sets_date(t: &str) -> bool {
    t == "--set"
        || t.starts_with("--set=")
        || (t.starts_with('-')
            && !t.starts_with("--")
            && t[1..].chars().all(|c| c.is_ascii_alphabetic())
            && t.contains('s'))
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
        assert_eq!(level("hostnamectl", "set-hostname x"), Risk::High);
        assert_eq!(level("hostnamectl", ""), Risk::ReadOnly);
        assert_eq!(level("sysctl", "-w kernel.x=1"), Risk::High);
        assert_eq!(level("sysctl", "kernel.x=1"), Risk::High);
        assert_eq!(level("sysctl", "-a"), Risk::ReadOnly);
        assert_eq!(level("ifconfig", "lo down"), Risk::High);
        assert_eq!(level("ifconfig", "-a"), Risk::ReadOnly);
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
