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
    /// Of `prompt_tokens`, those the provider served from its prompt cache (OpenAI's
    /// `prompt_tokens_details.cached_tokens`), which `cached_input` prices.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cached_prompt_tokens: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Usage {
    /// Add another request's usage.
    pub fn add(&mut self, other: Usage) {
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
        self.estimated |= other.estimated;
        self.cached_prompt_tokens += other.cached_prompt_tokens;
    }

    /// Estimate from character counts (about four characters per token).
    pub fn estimate(prompt_chars: usize, completion_chars: usize) -> Usage {
        Usage {
            prompt_tokens: prompt_chars.div_ceil(4) as u64,
            completion_tokens: completion_chars.div_ceil(4) as u64,
            estimated: true,
            cached_prompt_tokens: 0,
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
    /// Dollars per million prompt tokens the provider served from its cache (the usage's
    /// `cached_prompt_tokens`); without it those cost `input`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_input: Option<f64>,
}

impl Price {
    /// What `usage` costs at these prices, in dollars: cached prompt tokens at
    /// `cached_input` (when given), the other prompt tokens at `input`, completion tokens
    /// at `output`.
    pub fn cost(&self, usage: &Usage) -> f64 {
        let cached = usage.cached_prompt_tokens.min(usage.prompt_tokens);
        let fresh = usage.prompt_tokens - cached;
        let cached_price = self.cached_input.unwrap_or(self.input);
        (fresh as f64 * self.input
            + cached as f64 * cached_price
            + usage.completion_tokens as f64 * self.output)
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
            cached_prompt_tokens: 0,
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
            cached_prompt_tokens: 0,
        };
        assert!((price.cost(&million) - 22.5).abs() < 1e-9);
    }

    /// Regression: `cached_input` was accepted but never applied; cached prompt tokens
    /// cost `cached_input`, the rest `input`, and without `cached_input` all cost `input`.
    #[test]
    fn cached_prompt_tokens_cost_the_cached_input_price() {
        let price = Price {
            input: 2.5,
            output: 10.0,
            cached_input: Some(1.25),
        };
        let mut usage = Usage {
            prompt_tokens: 10_000,
            completion_tokens: 1_000,
            estimated: false,
            cached_prompt_tokens: 8_000,
        };
        // 2000 * 2.5 + 8000 * 1.25 + 1000 * 10 = 5000 + 10000 + 10000 = 25000 per 1e6
        assert!(
            (price.cost(&usage) - 0.025).abs() < 1e-12,
            "{}",
            price.cost(&usage)
        );
        let no_cached_price = Price {
            cached_input: None,
            ..price
        };
        // 10000 * 2.5 + 1000 * 10 = 35000 per 1e6
        assert!((no_cached_price.cost(&usage) - 0.035).abs() < 1e-12);
        // A server reporting more cached than prompt tokens never makes a negative count.
        usage.cached_prompt_tokens = 20_000;
        assert!(
            (price.cost(&usage) - 0.0225).abs() < 1e-12,
            "{}",
            price.cost(&usage)
        );
        // Sums carry the cached tokens.
        let mut turn = Usage::default();
        turn.add(usage);
        turn.add(usage);
        assert_eq!(turn.cached_prompt_tokens, 40_000);
    }
}
