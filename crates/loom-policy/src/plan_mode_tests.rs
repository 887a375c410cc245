//! Plan mode (issue 28) is enforced here, not only in the prompt: only reads and read-only
//! commands run, and every refusal tells the model it is in plan mode.

use std::path::PathBuf;
use std::time::Instant;

use super::*;

fn decide(p: &Policy, name: &str, intent: CallIntent) -> Decision {
    p.decide(name, &intent, Some(&PathBuf::from("/w")), Instant::now())
        .decision
}

fn bash(cmd: &str) -> CallIntent {
    CallIntent::runs(CommandIntent {
        command: cmd.into(),
        cwd: None,
        outside_sandbox: false,
    })
}

/// The refusal's reason, which must name plan mode; panics on anything but a refusal.
fn refusal(d: Decision) -> String {
    match d {
        Decision::Deny { reason } => {
            assert!(reason.contains("plan mode"), "{reason}");
            assert!(reason.contains("update_plan"), "{reason}");
            reason
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// Regression (issue 28): a write in plan mode is refused with a message saying plan
/// mode, in an interactive session too (where supervised would ask), whatever rule allows
/// it.
#[test]
fn plan_mode_refuses_writes_with_a_plan_mode_message() {
    let allow_all = approvals::Rules::compile(&[approvals::RuleConfig {
        action: RuleAction::Allow,
        path: Some("**".into()),
        command: None,
    }])
    .unwrap();
    for p in [
        Policy::new(Autonomy::Plan),
        Policy::new(Autonomy::Plan).with_rules(allow_all),
    ] {
        let reason = refusal(decide(&p, "write_file", CallIntent::writes("src/a.rs")));
        assert!(reason.starts_with("write_file was refused"), "{reason}");
    }
}

/// Regression (issue 28): in plan mode a command runs only when it is read-only; a build,
/// a write or one outside the sandbox is refused, saying plan mode.
#[test]
fn plan_mode_runs_only_read_only_commands() {
    let p = Policy::new(Autonomy::Plan);
    assert_eq!(decide(&p, "bash", bash("git status")), Decision::Allow);
    assert_eq!(decide(&p, "bash", bash("ls -la")), Decision::Allow);
    assert_eq!(
        decide(&p, "read_file", CallIntent::reads(["a".to_string()])),
        Decision::Allow
    );
    for cmd in ["cargo build", "touch x", "rm -rf build"] {
        refusal(decide(&p, "bash", bash(cmd)));
    }
    let outside = CallIntent::runs(CommandIntent {
        command: "ls".into(),
        cwd: None,
        outside_sandbox: true,
    });
    refusal(decide(&p, "bash", outside));
    // What is never allowed keeps its own reason.
    match decide(&p, "bash", bash("rm -rf /")) {
        Decision::Deny { reason } => assert!(reason.contains("never allowed"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

/// Regression (issue 28): plan mode refuses what read-only mode refuses beyond files and
/// commands — MCP tools, scheduled jobs, the network unless read-only web is on — with a
/// plan mode message.
#[test]
fn plan_mode_refuses_mcp_schedules_and_the_network() {
    let p = Policy::new(Autonomy::Plan);
    let mcp = CallIntent::calls_mcp(McpIntent {
        server: "s".into(),
        tool: "t".into(),
        read_only_hint: true,
        summary: String::new(),
    });
    refusal(decide(&p, "mcp__s__t", mcp));
    let job = CallIntent::schedules(ScheduleIntent::Add {
        schedule: "0 9 * * *".into(),
        prompt: "check".into(),
        approval: Autonomy::ReadOnly,
    });
    refusal(decide(&p, "cron_add", job));
    let fetch = || {
        CallIntent::network(NetworkIntent {
            access: NetAccess::Fetch,
            domain: "example.com".into(),
            method: "GET".into(),
            url: "https://example.com/".into(),
        })
    };
    refusal(decide(&p, "web_fetch", fetch()));
    let web = network::NetworkRules {
        read_only_web: true,
        ..Default::default()
    };
    let p = Policy::new(Autonomy::Plan).with_network(web);
    assert_eq!(decide(&p, "web_fetch", fetch()), Decision::Allow);
}
