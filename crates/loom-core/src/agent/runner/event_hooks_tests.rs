//! How a PreToolUse hook's answer combines with the policy's verdict, with real hook
//! processes.

use super::*;
use crate::hooks::dispatch::EventHook;
use crate::hooks::matcher::Matcher;

fn pre(dir: &std::path::Path, command: &str, grantable: bool) -> PreToolUse {
    let hook = EventHook {
        event: HookEvent::PreToolUse,
        command: command.into(),
        matcher: Matcher::new("Bash").unwrap(),
        timeout: std::time::Duration::from_secs(10),
        refusal: None,
    };
    let (events, _) = mpsc::unbounded_channel();
    PreToolUse {
        set: EventHookSet::of(vec![hook]),
        name: "bash".into(),
        input: json!({"hook_event_name": "PreToolUse", "tool_name": "bash"}),
        ctx: ToolContext::for_workspace(dir).unwrap(),
        events,
        grantable,
    }
}

const ALLOW: &str = r#"echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'"#;
const ASK: &str = r#"echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"why"}}'"#;

fn ask() -> Verdict {
    Verdict::Ask {
        reason: "policy asks".into(),
    }
}

/// Regression for the rule the hooks must keep: an allow never undoes a refusal and never
/// skips a question the policy asks without offering a grant.
#[tokio::test]
async fn a_hook_allow_never_loosens_a_refusal_or_an_ungrantable_ask() {
    let dir = tempfile::tempdir().unwrap();
    let deny = Verdict::Deny {
        reason: "forbidden".into(),
    };
    assert_eq!(pre(dir.path(), ALLOW, true).rule(deny.clone()).await, deny);
    assert_eq!(pre(dir.path(), ALLOW, false).rule(ask()).await, ask());
    assert_eq!(
        pre(dir.path(), ALLOW, true).rule(ask()).await,
        Verdict::Allow
    );
}

#[tokio::test]
async fn a_hook_ask_or_block_makes_an_allowed_call_stricter() {
    let dir = tempfile::tempdir().unwrap();
    assert!(matches!(
        pre(dir.path(), ASK, true).rule(Verdict::Allow).await,
        Verdict::Ask { reason } if reason.contains("why")
    ));
    assert!(matches!(
        pre(dir.path(), "echo no >&2; exit 2", true).rule(Verdict::Allow).await,
        Verdict::Blocked { reason } if reason.contains("no")
    ));
    // A failing hook changes nothing.
    assert_eq!(
        pre(dir.path(), "exit 1", true).rule(Verdict::Allow).await,
        Verdict::Allow
    );
}
