//! The context budget: how much of the model's window a request may fill, and what
//! compaction aims for.
//!
//! Every request carries a fixed prefix (the system prompt and the tool schemas) and the
//! conversation, and the answer needs room in the same window. Compaction used to aim at
//! 60 % of the whole window; at `n_ctx` 4096 a prefix of ~1,900 tokens left the
//! conversation almost nothing, and a 5 KB file read ended the turn. Now the answer's room
//! is kept aside ([`Budget::reserve`]), the prefix is taken off, and compaction aims at a
//! share of what is left: the space the conversation really has.

use crate::llm::Message;

/// Share of the window kept for the answer (at least [`MIN_RESERVE`], at most
/// [`MAX_RESERVE`] tokens).
pub const RESERVE_PERCENT: u64 = 15;
/// The least room kept for an answer, in tokens.
pub const MIN_RESERVE: u64 = 256;
/// The most room kept for an answer, in tokens.
pub const MAX_RESERVE: u64 = 16_384;

/// Share of the conversation's space (the window less the answer's room and the prefix)
/// the compacted conversation aims at, leaving room for the turns that follow.
pub const TARGET_PERCENT: u64 = 60;

/// The least room, in tokens, a prefix must leave the conversation to be sent at all
/// (below it, Loom sends fewer tools or a shorter prompt: see `ToolOffer`'s levels).
pub const MIN_CONVERSATION: u64 = 256;

/// The sizes compaction works with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// The model's context window in tokens.
    pub window: u64,
    /// Characters per token of the conversation (calibrated from the server's reported
    /// usage).
    pub chars_per_token: f64,
    /// Characters every request carries besides the conversation (system prompt, tools).
    pub overhead_chars: usize,
    /// Characters per token of those (measured apart: prose and schemas tokenise unlike
    /// the conversation's tool output).
    pub prefix_chars_per_token: f64,
}

impl Budget {
    /// Tokens kept for the answer.
    pub fn reserve(&self) -> u64 {
        Budget::reserve_of(self.window)
    }

    /// Tokens kept for the answer in a window of `window` tokens.
    pub fn reserve_of(window: u64) -> u64 {
        (window * RESERVE_PERCENT / 100).clamp(MIN_RESERVE, MAX_RESERVE)
    }

    /// Tokens a request may fill: the window less the answer's room.
    pub fn usable(&self) -> u64 {
        self.window.saturating_sub(self.reserve())
    }

    /// Estimated tokens of the fixed prefix.
    pub fn prefix_tokens(&self) -> u64 {
        (self.overhead_chars as f64 / self.prefix_chars_per_token.max(0.5)).ceil() as u64
    }

    /// Estimated tokens of a request of `prefix_chars` (system prompt and tools) and
    /// `conversation_chars`.
    pub fn request_tokens(&self, prefix_chars: usize, conversation_chars: usize) -> u64 {
        (prefix_chars as f64 / self.prefix_chars_per_token.max(0.5)
            + conversation_chars as f64 / self.chars_per_token.max(0.5))
        .ceil() as u64
    }

    /// Tokens the conversation has: what a request may fill less the prefix (0 when the
    /// prefix alone fills it).
    pub fn conversation_tokens(&self) -> u64 {
        self.usable().saturating_sub(self.prefix_tokens())
    }

    /// Characters the conversation may take after compaction; `None` when the system
    /// prompt and tool definitions alone leave no room.
    pub fn conversation_chars(&self) -> Option<usize> {
        let room = self.conversation_tokens() * TARGET_PERCENT / 100;
        let chars = (room as f64 * self.chars_per_token) as usize;
        (chars > 0).then_some(chars)
    }

    /// Estimated tokens of a request carrying `conversation`.
    pub fn tokens(&self, conversation: &[Message]) -> u64 {
        self.request_tokens(self.overhead_chars, chars(conversation))
    }

    /// Whether a request carrying `conversation` should be compacted first: it would leave
    /// the answer less than its room.
    pub fn is_full(&self, conversation: &[Message]) -> bool {
        self.tokens(conversation) > self.usable()
    }

    /// The window in which a conversation of `conversation_chars` must shrink to two
    /// thirds (for a server that said the prompt is too long without saying its window).
    pub fn window_shrinking(&self, conversation_chars: usize) -> u64 {
        let cpt = self.chars_per_token.max(0.5);
        let prefix = self.prefix_tokens() as f64;
        let room = conversation_chars as f64 * 2.0 / 3.0 / cpt / (TARGET_PERCENT as f64 / 100.0);
        let usable = prefix + room;
        // usable = window − reserve, with the reserve a share of the window.
        (usable / (1.0 - RESERVE_PERCENT as f64 / 100.0))
            .ceil()
            .max(1.0) as u64
    }
}

/// Characters of a conversation (with a little for each message's framing).
pub fn chars(conversation: &[Message]) -> usize {
    conversation.iter().map(|m| m.char_len() + 16).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 24: at `n_ctx` 4096 with a 1,900-token prefix, compaction aimed at 60 % of the
    /// window (2,457 tokens) left the conversation ~550; now it aims at 60 % of the space
    /// after the prefix and the answer's room.
    #[test]
    fn the_target_is_a_share_of_the_space_after_the_prefix() {
        let b = Budget {
            window: 4096,
            chars_per_token: 4.0,
            overhead_chars: 1_900 * 4,
            prefix_chars_per_token: 4.0,
        };
        assert_eq!(b.reserve(), 614);
        assert_eq!(b.usable(), 4096 - 614);
        assert_eq!(b.conversation_tokens(), 4096 - 614 - 1_900);
        assert_eq!(
            b.conversation_chars(),
            Some(((4096 - 614 - 1_900) * 60 / 100) as usize * 4)
        );
        let old_room = (4096 * 60 / 100) as usize * 4 - 1_900 * 4;
        assert!(b.conversation_chars().unwrap() > old_room);
    }

    #[test]
    fn a_prefix_that_fills_the_window_leaves_no_room() {
        let b = Budget {
            window: 2048,
            chars_per_token: 4.0,
            overhead_chars: 2_000 * 4,
            prefix_chars_per_token: 4.0,
        };
        assert_eq!(b.conversation_tokens(), 0);
        assert_eq!(b.conversation_chars(), None);
        assert!(b.is_full(&[]));
    }

    #[test]
    fn the_answer_keeps_its_room_in_every_window() {
        for (window, reserve) in [(2048, 307), (1000, 256), (128_000, 16_384), (8192, 1228)] {
            let b = Budget {
                window,
                chars_per_token: 4.0,
                overhead_chars: 0,
                prefix_chars_per_token: 4.0,
            };
            assert_eq!(b.reserve(), reserve, "{window}");
        }
    }

    #[test]
    fn an_unknown_window_is_one_where_the_conversation_shrinks_to_two_thirds() {
        let sizes = Budget {
            window: 1,
            chars_per_token: 4.0,
            overhead_chars: 4_000,
            prefix_chars_per_token: 4.0,
        };
        let b = Budget {
            window: sizes.window_shrinking(30_000),
            ..sizes
        };
        let room = b.conversation_chars().unwrap();
        assert!((19_900..=20_100).contains(&room), "{room}");
    }
}
