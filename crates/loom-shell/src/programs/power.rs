//! Switching the machine off by any name: `systemctl poweroff` and the targets that do the
//! same (`systemctl isolate poweroff.target`, `start reboot.target`), `loginctl reboot`,
//! D-Bus calls to logind or systemd (`dbus-send … Manager.PowerOff`), `kexec -e`, and
//! writes to `/proc/sysrq-trigger` or `/sys/power/state`. All are forbidden, like
//! `shutdown`; the rest of what these programs do is high, their listings read-only.

use super::super::Risk;
use super::super::parse::Word;
use super::{Judgement, is_flag, judge};

/// systemd units that stop, restart or suspend the machine when started.
const POWER_TARGETS: &[&str] = &[
    "poweroff.target",
    "reboot.target",
    "halt.target",
    "kexec.target",
    "shutdown.target",
    "final.target",
    "soft-reboot.target",
    "ctrl-alt-del.target",
    "rescue.target",
    "emergency.target",
    "suspend.target",
    "hibernate.target",
    "hybrid-sleep.target",
    "suspend-then-hibernate.target",
    "sleep.target",
    "exit.target",
];

/// `systemctl` verbs that stop, restart or suspend the machine.
const POWER_VERBS: &[&str] = &[
    "poweroff",
    "reboot",
    "halt",
    "kexec",
    "soft-reboot",
    "suspend",
    "hibernate",
    "hybrid-sleep",
    "suspend-then-hibernate",
    "sleep",
    "emergency",
    "rescue",
    "exit",
];

/// D-Bus method names (logind, systemd, desktop session managers) that power off,
/// restart or suspend the machine.
const POWER_METHODS: &[&str] = &[
    "PowerOff",
    "Reboot",
    "Halt",
    "KExec",
    "SoftReboot",
    "Suspend",
    "Hibernate",
    "HybridSleep",
    "SuspendThenHibernate",
    "Sleep",
    "PowerOffWithFlags",
    "RebootWithFlags",
    "HaltWithFlags",
    "SuspendWithFlags",
    "HibernateWithFlags",
    "Shutdown",
    "RequestShutdown",
    "RequestReboot",
    "ScheduleShutdown",
    "logout",
];

fn power_off(what: &str) -> Judgement {
    judge(
        Risk::Forbidden,
        format!("{what} stops, restarts or suspends the machine"),
    )
}

/// Judge `name` when it can switch the machine off; `None` for every other program.
pub(super) fn power(name: &str, args: &[Word]) -> Option<Judgement> {
    Some(match name {
        "systemctl" => systemctl(args),
        "loginctl" => {
            let verb = args.iter().find(|w| !is_flag(w)).map(|w| w.text.as_str());
            match verb {
                Some(v) if POWER_VERBS.contains(&v) => power_off(&format!("`loginctl {v}`")),
                None
                | Some(
                    "list-sessions" | "session-status" | "show-session" | "list-users"
                    | "user-status" | "show-user" | "list-seats" | "seat-status" | "show-seat",
                ) => judge(Risk::ReadOnly, "`loginctl` lists sessions"),
                Some(v) => judge(Risk::High, format!("`loginctl {v}` changes sessions")),
            }
        }
        "dbus-send" | "busctl" | "gdbus" | "qdbus" | "dbus" => dbus(name, args),
        "kexec" => {
            let loads_only = args.iter().any(|w| {
                matches!(
                    w.text.as_str(),
                    "-l" | "--load"
                        | "-p"
                        | "--load-panic"
                        | "-u"
                        | "--unload"
                        | "-h"
                        | "--help"
                        | "-v"
                        | "--version"
                        | "-S"
                        | "--status"
                )
            });
            if loads_only {
                judge(Risk::High, "`kexec` loads or unloads a kernel")
            } else {
                power_off("`kexec` (which boots another kernel at once)")
            }
        }
        _ => return None,
    })
}

fn systemctl(args: &[Word]) -> Judgement {
    let words: Vec<&str> = args
        .iter()
        .filter(|w| !is_flag(w))
        .map(|w| w.text.as_str())
        .collect();
    let verb = words.first().copied();
    if let Some(v) = verb
        && POWER_VERBS.contains(&v)
    {
        return power_off(&format!("`systemctl {v}`"));
    }
    if matches!(
        verb,
        Some("start" | "restart" | "isolate" | "reload-or-restart" | "try-restart" | "enqueue")
    ) && words[1..].iter().any(|u| POWER_TARGETS.contains(u))
    {
        return power_off("starting a shutdown target");
    }
    match verb {
        Some(
            "status" | "list-units" | "list-unit-files" | "show" | "cat" | "is-active"
            | "is-enabled" | "is-failed" | "list-timers" | "list-sockets" | "list-dependencies",
        ) if args
            .iter()
            .all(|w| !w.text.starts_with('-') || w.text == "--no-pager") =>
        {
            judge(Risk::ReadOnly, "shows service state")
        }
        _ => judge(Risk::High, "changes system services"),
    }
}

/// D-Bus calls: a power method or target anywhere in the call is forbidden; listings
/// are read-only; any other call is high (a system service may do anything asked).
fn dbus(name: &str, args: &[Word]) -> Judgement {
    for w in args {
        let t = w.text.as_str();
        let method = t.rsplit(['.', '/']).next().unwrap_or(t);
        if POWER_METHODS.contains(&method) || POWER_TARGETS.contains(&t) {
            return power_off(&format!("`{name}` calling {t}"));
        }
    }
    if args.iter().any(|w| w.dynamic) {
        return judge(
            Risk::High,
            format!("`{name}` calls a D-Bus method only known at run time"),
        );
    }
    let verb = args.iter().find(|w| !is_flag(w)).map(|w| w.text.as_str());
    if name == "busctl"
        && matches!(
            verb,
            None | Some("list" | "status" | "tree" | "introspect" | "help")
        )
    {
        return judge(Risk::ReadOnly, "`busctl` lists bus services");
    }
    judge(
        Risk::High,
        format!("`{name}` calls a system or session service, which may do anything"),
    )
}

/// Kernel files whose write stops the machine: sysrq (`o` powers off, `b` reboots, `c`
/// crashes) and the suspend state.
pub(super) fn power_file(path: &str) -> Option<String> {
    matches!(
        path,
        "/proc/sysrq-trigger" | "/sys/power/state" | "/sys/power/disk"
    )
    .then(|| format!("writing {path} stops, restarts or suspends the machine at once"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(name: &str, line: &str) -> Option<Risk> {
        let args: Vec<Word> = line.split_whitespace().map(Word::literal).collect();
        power(name, &args).map(|j| j.level)
    }

    #[test]
    fn every_spelling_of_power_off_is_forbidden() {
        for (name, line) in [
            ("systemctl", "isolate poweroff.target"),
            ("systemctl", "start --no-block reboot.target"),
            ("systemctl", "hybrid-sleep"),
            ("loginctl", "suspend"),
            (
                "busctl",
                "call org.freedesktop.login1 /org/freedesktop/login1 org.freedesktop.login1.Manager PowerOff b true",
            ),
            (
                "dbus-send",
                "--system --dest=org.gnome.SessionManager /org/gnome/SessionManager org.gnome.SessionManager.RequestReboot",
            ),
            ("kexec", "-e"),
        ] {
            assert_eq!(level(name, line), Some(Risk::Forbidden), "{name} {line}");
        }
        assert_eq!(level("systemctl", "start nginx"), Some(Risk::High));
        assert_eq!(level("systemctl", "list-timers"), Some(Risk::ReadOnly));
        assert_eq!(level("busctl", "tree"), Some(Risk::ReadOnly));
        assert_eq!(level("ls", ""), None);
        assert!(power_file("/proc/sysrq-trigger").is_some());
        assert!(power_file("/proc/sys/kernel/sysrq").is_none());
    }
}
