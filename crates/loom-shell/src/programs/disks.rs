//! Disk, volume and firmware tools: the subcommands that erase a disk (`nvme format`,
//! `cryptsetup luksFormat`, `badblocks -w`, `zpool destroy`, `hdparm --security-erase`,
//! `mdadm --zero-superblock`, `flashrom -w`, …) are forbidden like `mkfs`; their listings
//! are read-only; anything else they do is high. A program Loom does not know that is
//! handed a disk (`/dev/sda`, `/dev/nvme0n1`, `of=/dev/vdb`) is high as well.

use super::super::parse::Word;
use super::super::{Place, Risk};
use super::{Judgement, State, is_flag, judge};

/// Programs that change disks, volumes or filesystems in place: high unless a rule below
/// makes a call read-only or forbidden.
#[rustfmt::skip]
const DISK_ADMIN: &[&str] = &[
    "nvme", "cryptsetup", "badblocks", "hdparm", "sdparm", "mdadm", "zpool", "zfs", "flashrom",
    "tune2fs", "e2fsck", "fsck", "resize2fs", "debugfs", "xfs_repair", "xfs_admin", "btrfs",
    "dmsetup", "partprobe", "blockdev", "smartctl", "zerofree", "e2label", "pvcreate",
    "pvremove", "pvmove", "pvresize", "pvchange", "vgcreate", "vgremove", "vgreduce",
    "vgextend", "vgchange", "lvcreate", "lvremove", "lvreduce", "lvresize", "lvextend",
    "lvchange", "lvconvert", "sg_format", "sg_sanitize", "sg_unmap", "sg_write_same",
];

/// LVM listings.
const LVM_LISTINGS: &[&str] = &[
    "pvs",
    "vgs",
    "lvs",
    "pvdisplay",
    "vgdisplay",
    "lvdisplay",
    "pvscan",
    "vgscan",
    "lvscan",
];

/// Judge `name` when it is a disk, volume or firmware tool; `None` otherwise.
pub(super) fn disk_tool(name: &str, args: &[Word]) -> Option<Judgement> {
    if LVM_LISTINGS.contains(&name) {
        return Some(judge(Risk::ReadOnly, format!("`{name}` lists volumes")));
    }
    if !DISK_ADMIN.contains(&name) && !name.starts_with("fsck.") && !name.starts_with("sg_") {
        return None;
    }
    let words: Vec<&str> = args.iter().map(|w| w.text.as_str()).collect();
    let sub = args
        .iter()
        .find(|w| !is_flag(w))
        .map(|w| w.text.as_str())
        .unwrap_or("");
    if erases(name, sub, &words) {
        return Some(judge(
            Risk::Forbidden,
            format!("`{name} {sub}` erases or overwrites a disk or its firmware"),
        ));
    }
    Some(
        if only_lists(name, sub) && args.iter().all(|w| !w.dynamic) {
            judge(Risk::ReadOnly, format!("`{name} {sub}` only lists"))
        } else {
            judge(
                Risk::High,
                format!("`{name}` changes disks, volumes or filesystems"),
            )
        },
    )
}

/// Whether the disk tool `name` with subcommand `sub` and `words` erases or overwrites
/// a disk or its firmware.
fn erases(name: &str, sub: &str, words: &[&str]) -> bool {
    let long = |l: &str| {
        words
            .iter()
            .any(|w| *w == l || w.starts_with(&format!("{l}=")))
    };
    let short = |c: char| {
        words
            .iter()
            .any(|w| w.starts_with('-') && !w.starts_with("--") && w[1..].contains(c))
    };
    let force = short('f') || short('y') || long("--force") || long("--yes");
    match name {
        "nvme" => matches!(
            sub,
            "format"
                | "sanitize"
                | "delete-ns"
                | "write-zeroes"
                | "dsm"
                | "write"
                | "write-uncor"
                | "security-send"
                | "admin-passthru"
                | "io-passthru"
                | "fw-download"
                | "fw-commit"
                | "fw-activate"
        ),
        "cryptsetup" => words.iter().any(|w| {
            ["luksformat", "erase", "lukserase", "lukskillslot"]
                .contains(&w.to_ascii_lowercase().as_str())
        }),
        "badblocks" => short('w'),
        "pvcreate" | "pvremove" | "vgremove" | "lvremove" => force,
        "zpool" => {
            matches!(sub, "destroy" | "labelclear")
                || (matches!(sub, "create" | "add" | "attach" | "replace") && force)
        }
        "zfs" => sub == "destroy",
        "hdparm" => words.iter().any(|w| {
            w.starts_with("--security-erase")
                || w.starts_with("--trim-sector-ranges")
                || w.starts_with("--fwdownload")
                || matches!(*w, "--write-sector" | "--make-bad-sector" | "--dco-restore")
        }),
        "mdadm" => long("--zero-superblock") || long("--create") || long("--build") || short('C'),
        "flashrom" => short('w') || short('E') || long("--write") || long("--erase"),
        "sg_format" | "sg_sanitize" | "sg_unmap" | "sg_write_same" => true,
        _ => false,
    }
}

/// Whether the disk tool `name` with subcommand `sub` only lists.
fn only_lists(name: &str, sub: &str) -> bool {
    match name {
        "nvme" => matches!(
            sub,
            "list"
                | "list-subsys"
                | "list-ns"
                | "id-ctrl"
                | "id-ns"
                | "smart-log"
                | "error-log"
                | "fw-log"
                | "version"
                | "help"
        ),
        "zpool" => matches!(sub, "list" | "status" | "iostat" | "get" | "history"),
        "zfs" => matches!(sub, "list" | "get"),
        _ => false,
    }
}

/// Whether `/dev/NAME` is a disk, a partition or raw memory.
fn is_disk(name: &str) -> bool {
    const DISKS: &[&str] = &[
        "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "loop", "dm-", "md", "mapper/", "disk/", "sr",
        "nbd", "zd", "rbd", "bcache", "ubi", "mtd", "sg", "root", "mem", "kmem", "port",
    ];
    DISKS.iter().any(|d| name.starts_with(d))
}

/// For a program Loom does not know: a disk among its arguments (`/dev/sda`,
/// `--device=/dev/nvme0n1`, `of=/dev/vdb`) makes it high, since it may write the disk.
pub(super) fn disk_operand(args: &[Word], state: &State) -> Option<Judgement> {
    for w in args {
        let text = match w.text.split_once('=') {
            Some((_, value)) if !w.text.starts_with('/') => value,
            _ => w.text.as_str(),
        };
        if !text.starts_with("/dev/") {
            continue;
        }
        if let Place::Device(d) = state.place(&Word::literal(text))
            && is_disk(&d)
        {
            return Some(judge(
                Risk::High,
                format!("is given the disk /dev/{d}, which it may overwrite"),
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(name: &str, line: &str) -> Option<Risk> {
        let args: Vec<Word> = line.split_whitespace().map(Word::literal).collect();
        disk_tool(name, &args).map(|j| j.level)
    }

    #[test]
    fn erasing_subcommands_are_forbidden_and_listings_read_only() {
        assert_eq!(level("nvme", "format /dev/nvme0n1"), Some(Risk::Forbidden));
        assert_eq!(level("nvme", "list"), Some(Risk::ReadOnly));
        assert_eq!(level("nvme", "set-feature /dev/nvme0"), Some(Risk::High));
        assert_eq!(
            level("cryptsetup", "-q LUKSFORMAT /dev/sda"),
            Some(Risk::Forbidden)
        );
        assert_eq!(level("badblocks", "-nsv /dev/sda"), Some(Risk::High));
        assert_eq!(level("pvcreate", "/dev/sda"), Some(Risk::High));
        assert_eq!(level("pvcreate", "-y /dev/sda"), Some(Risk::Forbidden));
        assert_eq!(level("zpool", "create tank sdb"), Some(Risk::High));
        assert_eq!(level("zpool", "create -f tank sdb"), Some(Risk::Forbidden));
        assert_eq!(level("fsck.ext4", "-y /dev/sda1"), Some(Risk::High));
        assert_eq!(level("lvs", ""), Some(Risk::ReadOnly));
        assert_eq!(level("ls", "-l"), None);
    }

    #[test]
    fn disks_are_told_apart_from_other_devices() {
        for d in [
            "sda",
            "sda1",
            "nvme0n1p2",
            "mmcblk0",
            "vdb",
            "mapper/root",
            "mem",
        ] {
            assert!(is_disk(d), "{d}");
        }
        for d in ["ttyUSB0", "input/event0", "snd/controlC0"] {
            assert!(!is_disk(d), "{d}");
        }
    }
}
