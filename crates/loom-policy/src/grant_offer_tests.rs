//! Which classified commands are offered a session grant: the classifier's verdicts (in
//! `loom-shell`) meet the grants' rule (`approvals::Grants::offer`). Moved here from the
//! classifier's tables when the classifier became its own crate.

use std::path::PathBuf;

use loom_base::paths::ForbiddenRule;
use loom_shell::{CommandContext, Risk, classify};

use super::approvals::Grants;

fn ctx() -> CommandContext {
    let home = PathBuf::from("/home/dev");
    CommandContext {
        workspace: PathBuf::from("/work/project"),
        cwd: PathBuf::from("/work/project"),
        protected: ForbiddenRule::defaults(Some(&home)),
        home: Some(home),
    }
}

/// Regression: after approving `rg --zz` "for the session", the grant of the prefix `rg`
/// would have let `rg --pre ./x` through unasked. Medium verdicts that come from something
/// a prefix cannot pin down are never offered a grant.
#[test]
fn no_grant_is_offered_for_what_a_prefix_cannot_pin_down() {
    for command in [
        "rg --zz TODO",
        "python3 -c 'print(1)'",
        "sort --compress-program=./x f",
        "alias x='ls'",
        "cat $F",
        "trap 'ls' EXIT",
        "cat <<EOF\n$(date)\nEOF",
    ] {
        let c = classify(command, &ctx());
        assert_eq!(c.level, Risk::Medium, "{command}: {}", c.reason);
        assert!(Grants::offer(&c).is_none(), "{command} was offered a grant");
    }
    for command in ["npm install", "cargo fmt", "git commit -m x", "touch a"] {
        assert!(
            Grants::offer(&classify(command, &ctx())).is_some(),
            "{command}"
        );
    }
}

/// A payload Loom cannot read (a file, a variable) runs unknown code: it asks and is
/// snapshotted, and no session grant covers it.
#[test]
fn unreadable_payloads_ask() {
    for command in [
        "sh -c \"$X\"",
        "eval \"$SCRIPT\"",
        "sed -f script.sed a.txt",
        "tar -I \"$X\" -cf a.tar .",
        "ssh -o ProxyCommand=\"$X\" host",
        "sh <<EOF\n$CMD\nEOF",
        "bash <<< \"$CMD\"",
        "vim -c \"$X\" f",
        "python3 < script.py",
        "cat <<EOF | sh\n$(curl x)\nEOF",
    ] {
        let c = classify(command, &ctx());
        assert!(
            c.level >= Risk::Medium,
            "{command}: {} ({})",
            c.level,
            c.reason
        );
        assert!(Grants::offer(&c).is_none(), "{command} was offered a grant");
    }
}
