//! Commands a network client runs on this machine: ssh's `ProxyCommand`, `LocalCommand`
//! and `KnownHostsCommand` (`-o KEY=CMD`), rsync's `-e`/`--rsh`. They are shell commands
//! like any other and are judged as such, so `ssh -o ProxyCommand='rm -rf *' x` is the
//! forbidden command it runs, not only "uses the network".

use super::super::parse::Word;

/// ssh options whose value is a command ssh runs locally.
const SSH_COMMAND_KEYS: &[&str] = &["proxycommand", "localcommand", "knownhostscommand"];

/// The local shell commands `name` runs, as far as its arguments show them.
pub(super) fn local_commands(name: &str, args: &[Word]) -> Vec<Word> {
    match name {
        "ssh" | "scp" | "sftp" | "autossh" | "sshfs" | "mosh" => ssh_options(args),
        "rsync" => rsync_shell(args),
        _ => Vec::new(),
    }
}

/// Values of `-o KEY=VALUE`, `-oKEY=VALUE` and `-o 'KEY VALUE'` for the command keys.
fn ssh_options(args: &[Word]) -> Vec<Word> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let w = &args[i];
        let option = if w.text == "-o" {
            i += 1;
            args.get(i).cloned()
        } else {
            w.text
                .strip_prefix("-o")
                .filter(|_| !w.text.starts_with("--"))
                .map(|rest| Word::literal(rest).with_dynamic(w.dynamic))
        };
        i += 1;
        let Some(option) = option else { continue };
        let text = option.text.trim_start();
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

/// `rsync -e CMD`, `--rsh=CMD`, `--rsh CMD`.
fn rsync_shell(args: &[Word]) -> Vec<Word> {
    let mut out = Vec::new();
    for (i, w) in args.iter().enumerate() {
        if w.text == "-e" || w.text == "--rsh" {
            out.extend(args.get(i + 1).cloned());
        } else if let Some(v) = w.text.strip_prefix("--rsh=") {
            out.push(Word::literal(v).with_dynamic(w.dynamic));
        } else if let Some(v) = w.text.strip_prefix("-e").filter(|v| !v.is_empty())
            && !w.text.starts_with("--")
        {
            out.push(Word::literal(v).with_dynamic(w.dynamic));
        }
    }
    out
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
}
