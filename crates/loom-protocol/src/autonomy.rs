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
}

impl Autonomy {
    /// The name used in flags, config and `/approval`.
    pub fn as_str(self) -> &'static str {
        match self {
            Autonomy::ReadOnly => "read-only",
            Autonomy::Supervised => "supervised",
            Autonomy::FullAuto => "full-auto",
        }
    }

    /// Parse a flag or config value.
    pub fn parse(s: &str) -> Option<Autonomy> {
        match s.trim() {
            "read-only" | "readonly" => Some(Autonomy::ReadOnly),
            "supervised" => Some(Autonomy::Supervised),
            "full-auto" | "full" | "auto" => Some(Autonomy::FullAuto),
            _ => None,
        }
    }
}

impl std::fmt::Display for Autonomy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
