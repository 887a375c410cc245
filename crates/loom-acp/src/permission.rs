//! Approvals as `session/request_permission`: the options offered for what Loom asks, and
//! the client's choice as Loom's answer. Never more than the policy allows: "allow always"
//! is offered only where Loom's policy offers a session grant (as the TUI's `a` key), a
//! choice that was not offered is a refusal, and what the policy forbids is refused by the
//! agent before anyone is asked.

use agent_client_protocol::v1::schema::{
    PermissionOption, PermissionOptionKind, RequestPermissionOutcome,
};
use loom_protocol::events::{ApprovalAnswer, ApprovalPreview};

/// The option that runs the call this once.
pub const ALLOW_ONCE: &str = "allow_once";
/// The option that runs it and grants calls like it for the rest of the session.
pub const ALLOW_ALWAYS: &str = "allow_always";
/// The option that refuses it.
pub const REJECT: &str = "reject";

/// What "allow always" would grant for this request, in words, or `None` when the policy
/// offers no grant (high-risk commands, schedule changes, other calls).
pub fn grant_of(preview: &ApprovalPreview) -> Option<String> {
    match preview {
        ApprovalPreview::FileChange { .. } | ApprovalPreview::Files { .. } => {
            Some("Allow all edits this session".into())
        }
        ApprovalPreview::Command {
            grant_offered: true,
            grant_prefix,
            ..
        } => Some(match grant_prefix {
            Some(p) => format!("Always allow `{p}` this session"),
            None => "Always allow this session".into(),
        }),
        ApprovalPreview::Network { domain, .. } => {
            Some(format!("Always allow {domain} this session"))
        }
        ApprovalPreview::McpTool {
            grant_offered: true,
            tool,
            ..
        } => Some(format!("Always allow {tool} this session")),
        _ => None,
    }
}

/// The options offered for a request: allow once, allow always (only with a grant), reject.
pub fn options(preview: &ApprovalPreview) -> Vec<PermissionOption> {
    let mut options = vec![PermissionOption::new(
        ALLOW_ONCE,
        "Allow once",
        PermissionOptionKind::AllowOnce,
    )];
    if let Some(grant) = grant_of(preview) {
        options.push(PermissionOption::new(
            ALLOW_ALWAYS,
            grant,
            PermissionOptionKind::AllowAlways,
        ));
    }
    options.push(PermissionOption::new(
        REJECT,
        "Reject",
        PermissionOptionKind::RejectOnce,
    ));
    options
}

/// Loom's answer to the client's choice among `offered`: a choice that was not offered (or a
/// cancelled request) refuses the call.
pub fn answer(outcome: &RequestPermissionOutcome, offered: &[PermissionOption]) -> ApprovalAnswer {
    let chosen = match outcome {
        RequestPermissionOutcome::Selected(s) => offered
            .iter()
            .find(|o| o.option_id == s.option_id)
            .map(|o| o.option_id.0.as_ref()),
        _ => None,
    };
    match chosen {
        Some(ALLOW_ONCE) => ApprovalAnswer::Approve,
        Some(ALLOW_ALWAYS) => ApprovalAnswer::ApproveForSession,
        Some(_) => ApprovalAnswer::Deny {
            reason: Some("rejected in the editor".into()),
        },
        None => ApprovalAnswer::Deny {
            reason: Some("the request was cancelled in the editor".into()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_client_protocol::v1::schema::SelectedPermissionOutcome;
    use loom_protocol::risk::Risk;

    fn command(grant_offered: bool) -> ApprovalPreview {
        ApprovalPreview::Command {
            command: "git commit -m x".into(),
            cwd: ".".into(),
            risk: if grant_offered {
                Risk::Medium
            } else {
                Risk::High
            },
            risk_reason: "why".into(),
            grant_offered,
            grant_prefix: grant_offered.then(|| "git commit".into()),
            network: false,
            outside_sandbox: false,
        }
    }

    fn ids(options: &[PermissionOption]) -> Vec<&str> {
        options.iter().map(|o| o.option_id.0.as_ref()).collect()
    }

    fn pick(id: &str) -> RequestPermissionOutcome {
        RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(id.to_string()))
    }

    #[test]
    fn always_is_offered_only_where_the_policy_offers_a_grant() {
        assert_eq!(
            ids(&options(&command(true))),
            [ALLOW_ONCE, ALLOW_ALWAYS, REJECT]
        );
        assert_eq!(ids(&options(&command(false))), [ALLOW_ONCE, REJECT]);
        let other = ApprovalPreview::Other {
            arguments: serde_json::json!({}),
        };
        assert_eq!(ids(&options(&other)), [ALLOW_ONCE, REJECT]);
    }

    #[test]
    fn a_choice_that_was_not_offered_refuses() {
        let offered = options(&command(false));
        assert!(matches!(
            answer(&pick(ALLOW_ALWAYS), &offered),
            ApprovalAnswer::Deny { .. }
        ));
        assert_eq!(answer(&pick(ALLOW_ONCE), &offered), ApprovalAnswer::Approve);
        assert!(matches!(
            answer(&pick(REJECT), &offered),
            ApprovalAnswer::Deny { .. }
        ));
        assert!(matches!(
            answer(&RequestPermissionOutcome::Cancelled, &offered),
            ApprovalAnswer::Deny { .. }
        ));
        let granted = options(&command(true));
        assert_eq!(
            answer(&pick(ALLOW_ALWAYS), &granted),
            ApprovalAnswer::ApproveForSession
        );
    }
}
