//! Commands a network client runs on this machine: ssh's `ProxyCommand`, `LocalCommand`
//! and `KnownHostsCommand` (`-o KEY=CMD`, also bundled as `-vo CMD`), scp's and sftp's
//! `-S PROGRAM`, rsync's `-e`/`--rsh` (also `-avze CMD`), mosh's `--ssh`. They are shell
//! commands like any other and are judged as such, so `ssh -o ProxyCommand='rm -rf *' x`
//! is the forbidden command it runs, not only "uses the network". rsync's deletions
//! ([`rsync_deletes`]) are judged by what they empty.

use super::super::parse::Word;
use super::super::{Place, Risk};
use super::{Judgement, State, judge};

/// ssh options whose value is a command ssh runs locally.
const SSH_COMMAND_KEYS: &[&str] = &[
    "proxycommand",
    "localcommand",
    "knownhostscommand",
    "ssh_command",
];

/// The short option letters of each client that take a value (from their manuals), so a
/// value is found inside a cluster of flags (`-vo CMD`, `-vvoCMD`, `-avze CMD`).
fn valued_letters(name: &str) -> &'static str {
    match name {
        "ssh" | "autossh" => "BbcDEeFIiJLlmMOoPpQRSWw",
        "scp" => "cDFiJloPSX",
        "sftp" => "BbcDFiJloPRSsX",
        "sshfs" => "opF",
        "mosh" => "p",
        "rsync" => "eBfMT@",
        _ => "",
    }
}

/// The values of the short option `letter` of `name`, in every spelling: its own word
/// (`-o V`), glued (`-oV`), or at the end or middle of a cluster (`-vo V`, `-vvoV`).
fn short_values(name: &str, args: &[Word], letter: char) -> Vec<Word> {
    let valued = valued_letters(name);
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let w = &args[i];
        i += 1;
        if w.text == "--" {
            break;
        }
        let Some(cluster) = w.text.strip_prefix('-').filter(|c| !c.starts_with('-')) else {
            continue;
        };
        for (k, c) in cluster.char_indices() {
            if !valued.contains(c) {
                continue;
            }
            let rest = &cluster[k + c.len_utf8()..];
            let value = if rest.is_empty() {
                i += 1;
                args.get(i - 1).cloned()
            } else {
                Some(Word::literal(rest).with_dynamic(w.dynamic))
            };
            if c == letter {
                out.extend(value);
            }
            break;
        }
    }
    out
}

/// The values of a long option given as `--NAME=V` or `--NAME V`.
fn long_values(args: &[Word], long: &str) -> Vec<Word> {
    let mut out = Vec::new();
    for (i, w) in args.iter().enumerate() {
        if w.text == format!("--{long}") {
            out.extend(args.get(i + 1).cloned());
        } else if let Some(v) = w.text.strip_prefix(&format!("--{long}=")) {
            out.push(Word::literal(v).with_dynamic(w.dynamic));
        }
    }
    out
}

/// The local shell commands `name` runs, as far as its arguments show them.
pub(super) fn local_commands(name: &str, args: &[Word]) -> Vec<Word> {
    let mut out = Vec::new();
    match name {
        "ssh" | "scp" | "sftp" | "autossh" | "sshfs" => {
            for option in short_values(name, args, 'o') {
                out.extend(ssh_option(&option, name == "sshfs"));
            }
            if matches!(name, "scp" | "sftp") {
                out.extend(short_values(name, args, 'S'));
            }
            if name == "sftp" {
                out.extend(short_values(name, args, 'D'));
            }
        }
        "mosh" => out.extend(long_values(args, "ssh")),
        "rsync" => {
            out.extend(short_values(name, args, 'e'));
            out.extend(long_values(args, "rsh"));
        }
        _ => {}
    }
    out
}

/// The command in one `-o` value: `KEY=VALUE` or `KEY VALUE` for a command key (sshfs
/// also takes a comma-separated list of them).
fn ssh_option(option: &Word, list: bool) -> Vec<Word> {
    let parts: Vec<&str> = if list {
        option.text.split(',').collect()
    } else {
        vec![option.text.as_str()]
    };
    let mut out = Vec::new();
    for part in parts {
        let text = part.trim_start();
        let split = text
            .find(|c: char| c == '=' || c.is_whitespace())
            .unwrap_or(text.len());
        let key = text[..split].to_ascii_lowercase();
        if SSH_COMMAND_KEYS.contains(&key.as_str()) {
            let value = text[split..].trim_start_matches(|c: char| c == '=' || c.is_whitespace());
            out.push(Word::literal(value).with_dynamic(option.dynamic));
        }
    }
    out
}

/// rsync long options that take a value as the next word (so it is not an operand).
#[rustfmt::skip]
const RSYNC_VALUED: &[&str] = &[
    "rsh", "filter", "exclude", "include", "exclude-from", "include-from", "files-from",
    "password-file", "log-file", "log-file-format", "out-format", "partial-dir", "temp-dir",
    "link-dest", "compare-dest", "copy-dest", "backup-dir", "suffix", "chmod", "chown",
    "usermap", "groupmap", "timeout", "contimeout", "bwlimit", "port", "address", "sockopts",
    "info", "debug", "max-size", "min-size", "max-delete", "max-alloc", "modify-window", "iconv",
    "checksum-choice", "cc", "compress-choice", "zc", "compress-level", "zl", "skip-compress",
    "outbuf", "stop-after", "stop-at", "write-batch", "read-batch", "only-write-batch",
    "protocol", "remote-option", "block-size", "rsync-path", "early-input", "checksum-seed",
    "config", "dparam", "copy-as",
];

/// What rsync deletes: with `--delete` (any spelling) the destination ends up holding only
/// what the source has, and `--remove-source-files` empties the sources. Either applied
/// to the workspace, a directory holding it, home or `/` empties the workspace: forbidden.
pub(super) fn rsync_deletes(args: &[Word], state: &State) -> Judgement {
    let mut operands: Vec<&Word> = Vec::new();
    let mut delete = false;
    let mut remove_sources = false;
    let valued = valued_letters("rsync");
    let mut i = 0;
    while i < args.len() {
        let w = &args[i];
        let t = w.text.as_str();
        i += 1;
        if t == "--" {
            operands.extend(&args[i..]);
            break;
        }
        if let Some(long) = t.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or(long);
            delete |= name == "del" || name.starts_with("delete");
            remove_sources |= name == "remove-source-files";
            if !long.contains('=') && RSYNC_VALUED.contains(&name) {
                i += 1;
            }
        } else if let Some(cluster) = t.strip_prefix('-').filter(|c| !c.is_empty()) {
            if let Some(k) = cluster.find(|c| valued.contains(c))
                && k + 1 == cluster.len()
            {
                i += 1;
            }
        } else {
            operands.push(w);
        }
    }
    let mut j = judge(Risk::ReadOnly, "rsync deletes nothing it was not asked to");
    let Some((dest, sources)) = operands.split_last() else {
        return j;
    };
    let empties = |w: &Word, what: &str| {
        let remote = w.text.starts_with("rsync://")
            || w.text.find(':').is_some_and(|c| !w.text[..c].contains('/'));
        if remote {
            return judge(Risk::ReadOnly, "a remote path");
        }
        super::worst_over(w, state, |_, place| {
            let whole = match place {
                Place::WorkspaceRoot => "the workspace".to_string(),
                Place::SystemRoot(s) => s.clone(),
                Place::Outside(p) if state.ctx.workspace.starts_with(p) => {
                    format!("{}, which holds the workspace", p.display())
                }
                _ => return judge(Risk::ReadOnly, "part of a tree"),
            };
            judge(Risk::Forbidden, format!("rsync {what} {whole}"))
        })
    };
    if delete {
        j = j.worst(empties(
            dest,
            "--delete removes everything the source lacks from",
        ));
    }
    if remove_sources {
        for s in sources {
            j = j.worst(empties(s, "--remove-source-files empties"));
        }
    }
    j
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commands(name: &str, args: &[&str]) -> Vec<String> {
        let args: Vec<Word> = args.iter().map(|a| Word::literal(a)).collect();
        local_commands(name, &args)
            .into_iter()
            .map(|w| w.text)
            .collect()
    }

    #[test]
    fn ssh_command_options_are_found_in_every_spelling() {
        assert_eq!(
            commands("ssh", &["-o", "ProxyCommand=rm -rf *", "x"]),
            vec!["rm -rf *"]
        );
        assert_eq!(
            commands(
                "ssh",
                &["-oLocalCommand=id", "-o", "PermitLocalCommand=yes", "x"]
            ),
            vec!["id"]
        );
        assert_eq!(
            commands("scp", &["-o", "proxycommand nc %h %p", "a", "b:"]),
            vec!["nc %h %p"]
        );
        assert!(commands("ssh", &["-o", "User=me", "x"]).is_empty());
        assert_eq!(
            commands("rsync", &["-e", "ssh -p 2", "a", "b:"]),
            vec!["ssh -p 2"]
        );
        assert_eq!(
            commands("rsync", &["--rsh=rm -rf *", "a", "b:"]),
            vec!["rm -rf *"]
        );
    }

    #[test]
    fn values_are_found_inside_clusters_of_short_flags() {
        assert_eq!(
            commands("ssh", &["-vo", "ProxyCommand=x", "-p", "22", "h"]),
            vec!["x"]
        );
        assert_eq!(commands("ssh", &["-vvoProxyCommand=y", "h"]), vec!["y"]);
        assert!(
            commands("ssh", &["-vp", "-oProxyCommand=z", "h"]).is_empty(),
            "-p takes the next word as its value"
        );
        assert_eq!(
            commands("rsync", &["-avze", "ssh -p 2", "a", "b:"]),
            vec!["ssh -p 2"]
        );
        assert!(commands("rsync", &["-avz", "a", "b:"]).is_empty());
        assert_eq!(
            commands("scp", &["-qS", "./wrap", "a", "b:"]),
            vec!["./wrap"]
        );
        assert_eq!(
            commands("sshfs", &["-o", "reconnect,ssh_command=nc h 22", "h:", "m"]),
            vec!["nc h 22"]
        );
    }
}
