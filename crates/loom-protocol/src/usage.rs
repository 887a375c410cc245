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

/// What a model costs, in US dollars per million tokens (`[prices."MODEL"]` in the
/// config), so `/status` can show what the session's tokens cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    /// Dollars per million prompt tokens.
    pub input: f64,
    /// Dollars per million completion tokens.
    pub output: f64,
    /// Dollars per million prompt tokens the provider served from its cache. Loom is not
    /// told which prompt tokens were cached, so this is accepted but not yet applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_input: Option<f64>,
}

impl Price {
    /// What `usage` costs at these prices, in dollars.
    pub fn cost(&self, usage: &Usage) -> f64 {
        (usage.prompt_tokens as f64 * self.input + usage.completion_tokens as f64 * self.output)
            / 1_000_000.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The arithmetic of a cost: tokens times dollars per million, prompt and completion
    /// each at their own price.
    #[test]
    fn a_cost_is_tokens_times_the_price_per_million() {
        let price = Price {
            input: 2.5,
            output: 10.0,
            cached_input: None,
        };
        let usage = Usage {
            prompt_tokens: 12_400,
            completion_tokens: 830,
            estimated: false,
        };
        // 12400 * 2.5 / 1e6 = 0.031, 830 * 10 / 1e6 = 0.0083
        assert!(
            (price.cost(&usage) - 0.0393).abs() < 1e-12,
            "{}",
            price.cost(&usage)
        );
        assert_eq!(price.cost(&Usage::default()), 0.0);
        let million = Usage {
            prompt_tokens: 1_000_000,
            completion_tokens: 2_000_000,
            estimated: true,
        };
        assert!((price.cost(&million) - 22.5).abs() < 1e-9);
    }
}
