//! Tokens a model request used, as the model client reports them and the front ends show.

use serde::{Deserialize, Serialize};

/// Tokens used by one request, or summed over a turn.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens in the prompt.
    pub prompt_tokens: u64,
    /// Tokens generated.
    pub completion_tokens: u64,
    /// Whether these figures were estimated because the server sent none.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub estimated: bool,
}

impl Usage {
    /// Add another request's usage.
    pub fn add(&mut self, other: Usage) {
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
        self.estimated |= other.estimated;
    }

    /// Estimate from character counts (about four characters per token).
    pub fn estimate(prompt_chars: usize, completion_chars: usize) -> Usage {
        Usage {
            prompt_tokens: prompt_chars.div_ceil(4) as u64,
            completion_tokens: completion_chars.div_ceil(4) as u64,
            estimated: true,
        }
    }
}
