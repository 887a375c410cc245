//! Loom's approval modes as ACP session modes: a session starts supervised (as the TUI does),
//! or read-only when that is all the configuration allows, and a client may pick any mode up
//! to the configuration's own, never beyond.

use agent_client_protocol::v1::schema::{SessionMode, SessionModeState};
use loom_protocol::autonomy::Autonomy;

/// The modes from least to most autonomy.
const ALL: [Autonomy; 4] = [
    Autonomy::Plan,
    Autonomy::ReadOnly,
    Autonomy::Supervised,
    Autonomy::FullAuto,
];

fn rank(a: Autonomy) -> usize {
    ALL.iter().position(|m| *m == a).unwrap_or(0)
}

/// The mode a session starts in under a configuration allowing at most `max`.
pub fn initial(max: Autonomy) -> Autonomy {
    if rank(max) < rank(Autonomy::Supervised) {
        max
    } else {
        Autonomy::Supervised
    }
}

/// The mode named `id`, if the configuration (at most `max`) allows it; otherwise what to
/// tell the client.
pub fn pick(id: &str, max: Autonomy) -> Result<Autonomy, String> {
    let Some(mode) = Autonomy::parse(id) else {
        return Err(format!(
            "no approval mode {id:?}; the modes are plan, read-only, supervised and full-auto"
        ));
    };
    if rank(mode) > rank(max) {
        return Err(format!(
            "the configuration allows at most {max}; set `approval.mode` in Loom's config (or start `loom acp --approval {mode}`) to allow {mode}"
        ));
    }
    Ok(mode)
}

/// The modes offered (those up to `max`) and the current one.
pub fn state(current: Autonomy, max: Autonomy) -> SessionModeState {
    let describe = |m: Autonomy| match m {
        Autonomy::ReadOnly => "Reads only: no writes, no network, only read-only commands",
        Autonomy::Supervised => "Writes and riskier commands ask first",
        Autonomy::FullAuto => "Nothing asks; what the policy forbids stays forbidden",
        Autonomy::Plan => "Read-only tools; the model investigates and ends with a plan",
    };
    let available = ALL
        .iter()
        .filter(|m| rank(**m) <= rank(max))
        .map(|m| SessionMode::new(m.as_str(), m.as_str()).description(describe(*m)))
        .collect();
    SessionModeState::new(current.as_str(), available)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_start_supervised_and_never_beyond_the_configuration() {
        assert_eq!(initial(Autonomy::FullAuto), Autonomy::Supervised);
        assert_eq!(initial(Autonomy::ReadOnly), Autonomy::ReadOnly);
        assert_eq!(
            pick("full-auto", Autonomy::FullAuto),
            Ok(Autonomy::FullAuto)
        );
        assert!(pick("full-auto", Autonomy::Supervised).is_err());
        assert!(pick("yolo", Autonomy::FullAuto).is_err());
        let s = state(Autonomy::Supervised, Autonomy::Supervised);
        let ids: Vec<_> = s
            .available_modes
            .iter()
            .map(|m| m.id.0.to_string())
            .collect();
        assert_eq!(ids, ["plan", "read-only", "supervised"]);
        assert_eq!(pick("plan", Autonomy::ReadOnly), Ok(Autonomy::Plan));
        assert_eq!(initial(Autonomy::Plan), Autonomy::Plan);
    }
}
