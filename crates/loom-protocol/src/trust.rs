//! What a project's config would loosen, as the person deciding whether to trust it is
//! shown it. `loom-core`'s config classifies the file; the front ends ask the question.

use serde::Serialize;

/// One thing a project config loosens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Loosening {
    /// The key, as written in the file (`sandbox`, `approval.rules`).
    pub key: String,
    /// What it does, in words for the person deciding.
    pub what: String,
}
