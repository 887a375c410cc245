//! How risky a command is: the command classifier's verdict, shown on the approval screens.

use serde::{Deserialize, Serialize};

/// How risky a command is, from harmless to never allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Risk {
    /// Only reads.
    ReadOnly,
    /// Builds or tests inside the workspace.
    Low,
    /// Writes inside the workspace, installs packages, changes git state.
    Medium,
    /// Deletes trees, changes permissions, uses the network, runs as root, writes outside.
    High,
    /// Never run: destroys the system or runs code from the network.
    Forbidden,
}

impl Risk {
    /// The name used in JSON and prompts.
    pub fn as_str(self) -> &'static str {
        match self {
            Risk::ReadOnly => "read-only",
            Risk::Low => "low",
            Risk::Medium => "medium",
            Risk::High => "high",
            Risk::Forbidden => "forbidden",
        }
    }
}

impl std::fmt::Display for Risk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 27: the approval events carry the risk as [`Risk`], not its name; on the wire
    /// it is still the name the screens and `loom exec --json` showed.
    #[test]
    fn a_risk_travels_as_its_name() {
        for risk in [
            Risk::ReadOnly,
            Risk::Low,
            Risk::Medium,
            Risk::High,
            Risk::Forbidden,
        ] {
            let wire = serde_json::to_value(risk).unwrap();
            assert_eq!(wire, risk.as_str());
            assert_eq!(serde_json::from_value::<Risk>(wire).unwrap(), risk);
        }
    }
}
