//! `loom policy check`: how the policy sees a command, for a person deciding whether to
//! trust Loom with it (or to write a rule). One sentence by default; everything with
//! `--json`.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use serde_json::json;

use crate::policy::{CallIntent, CommandIntent, Decision, Policy};

/// Classify `command` as `bash` would run it at the workspace root, and print the level,
/// the reason and what would happen in the policy's approval mode.
pub fn check(
    policy: &Policy,
    workspace: &Path,
    command: &str,
    as_json: bool,
) -> anyhow::Result<ExitCode> {
    let intent = CallIntent::runs(CommandIntent {
        command: command.to_string(),
        cwd: None,
        outside_sandbox: false,
    });
    let ruling = policy.decide("bash", &intent, Some(workspace), Instant::now());
    let classification = ruling
        .assessment
        .classification
        .clone()
        .unwrap_or_else(|| policy.classify(command, Some(workspace), None));
    let mode = policy.autonomy;
    if as_json {
        let (decision, why) = match &ruling.decision {
            Decision::Allow => ("allow", None),
            Decision::Ask { reason } => ("ask", Some(reason.clone())),
            Decision::Deny { reason } => ("deny", Some(reason.clone())),
        };
        let mut v = serde_json::to_value(&classification)?;
        v["mode"] = json!(mode.as_str());
        v["decision"] = json!(decision);
        v["decision_reason"] = json!(why);
        v["grant"] = json!(ruling.assessment.grant_label());
        v["snapshot"] = json!(ruling.assessment.snapshot);
        v["network"] = json!(ruling.assessment.network);
        writeln!(std::io::stdout(), "{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    let what = match &ruling.decision {
        Decision::Allow => "it runs without asking".to_string(),
        Decision::Ask { .. } => match ruling.assessment.grant_label() {
            Some(prefix) => {
                format!("Loom asks first (you may allow `{prefix}` for the rest of the session)")
            }
            None => "Loom asks first".to_string(),
        },
        Decision::Deny { reason } => format!("it is refused ({reason})"),
    };
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{}: {}. In {mode} mode {what}.",
        classification.level, classification.reason
    )?;
    if classification.segments.len() > 1 {
        for s in &classification.segments {
            writeln!(
                out,
                "  {:<10} {}  ({})",
                s.level.as_str(),
                s.command,
                s.reason
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
