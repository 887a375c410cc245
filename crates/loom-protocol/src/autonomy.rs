//! How much the agent may do without asking: the approval mode the person chose.

use serde::{Deserialize, Serialize};

/// How much Loom may do without asking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Autonomy {
    /// Reads only: no writes, no network, only read-only commands.
    ReadOnly,
    /// Reads, read-only and build/test commands run; writes and riskier commands ask.
    #[default]
    Supervised,
    /// Nothing asks; what the policy forbids outright stays forbidden.
    FullAuto,
    /// Plan mode: read-only tools only (like read-only), and the model ends with a plan the
    /// person approves before anything is changed (issue 28).
    Plan,
}

impl Autonomy {
    /// The name used in flags, config and `/approval`.
    pub fn as_str(self) -> &'static str {
        match self {
            Autonomy::ReadOnly => "read-only",
            Autonomy::Supervised => "supervised",
            Autonomy::FullAuto => "full-auto",
            Autonomy::Plan => "plan",
        }
    }

    /// Whether only reads and read-only commands may run: read-only mode and plan mode.
    pub fn reads_only(self) -> bool {
        matches!(self, Autonomy::ReadOnly | Autonomy::Plan)
    }

    /// The next mode of the `Shift+Tab` cycle: plan → supervised → full-auto → read-only →
    /// plan.
    pub fn cycled(self) -> Autonomy {
        match self {
            Autonomy::Plan => Autonomy::Supervised,
            Autonomy::Supervised => Autonomy::FullAuto,
            Autonomy::FullAuto => Autonomy::ReadOnly,
            Autonomy::ReadOnly => Autonomy::Plan,
        }
    }

    /// Parse a flag or config value.
    pub fn parse(s: &str) -> Option<Autonomy> {
        match s.trim() {
            "read-only" | "readonly" => Some(Autonomy::ReadOnly),
            "supervised" => Some(Autonomy::Supervised),
            "full-auto" | "full" | "auto" => Some(Autonomy::FullAuto),
            "plan" => Some(Autonomy::Plan),
            _ => None,
        }
    }
}

impl std::fmt::Display for Autonomy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::Autonomy;

    /// The `Shift+Tab` cycle visits every mode once and comes back: plan → supervised →
    /// full-auto → read-only → plan.
    #[test]
    fn the_cycle_visits_every_mode_in_order() {
        let mut mode = Autonomy::Plan;
        let mut seen = Vec::new();
        for _ in 0..4 {
            seen.push(mode.as_str());
            mode = mode.cycled();
        }
        assert_eq!(seen, ["plan", "supervised", "full-auto", "read-only"]);
        assert_eq!(mode, Autonomy::Plan);
    }

    #[test]
    fn plan_parses_and_reads_only() {
        assert_eq!(Autonomy::parse("plan"), Some(Autonomy::Plan));
        assert!(Autonomy::Plan.reads_only() && Autonomy::ReadOnly.reads_only());
        assert!(!Autonomy::Supervised.reads_only() && !Autonomy::FullAuto.reads_only());
    }
}
