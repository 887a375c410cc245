//! What the runner knows of the model's context window and how Loom counts against it: the
//! window's size (from config, the server, or a server's error), characters per token
//! (calibrated by reported usage), and the model's tokeniser, loaded only when a
//! conversation nears the window.

use tokio::sync::mpsc;

use super::Internal;
use crate::llm::Message;
use crate::llm::tokens::Tokenizer;
use serde_json::Value;

/// Characters per token before the server has reported any usage: a little below the
/// usual four, as code and JSON tokenise denser than prose (compaction comes early rather
/// than late).
const DEFAULT_CHARS_PER_TOKEN: f64 = 3.5;

/// Share of the window (estimated) at which the tokeniser starts loading.
const TOKENIZER_LOAD_AT: f64 = 0.4;
/// Share of the window (estimated) above which a request waits for it.
const TOKENIZER_WAIT_AT: f64 = 0.6;

/// How far the server's count may be from the tokeniser's before Loom decides the model
/// does not use that tokeniser (a local model with an OpenAI name) and estimates instead.
const TOKENIZER_AGREES: std::ops::RangeInclusive<f64> = 0.7..=1.5;

/// Below this many characters, a request's conversation is too short to measure what
/// its characters are worth (its framing would dominate).
const MEASURABLE_CONVERSATION: usize = 1_000;

/// A request as the server counted it: its characters, the prefix's (system prompt and
/// tools) apart from the conversation's, and the server's tokens for the whole.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Measured {
    /// Characters of the system prompt and the tool schemas.
    pub(super) prefix_chars: usize,
    /// Characters of the conversation.
    pub(super) conversation_chars: usize,
    /// The server's prompt tokens.
    pub(super) tokens: u64,
}

/// How the server's reported usage corrects Loom's count of a request.
pub(super) enum Calibration {
    /// What the request's characters are worth (models whose tokeniser Loom does not
    /// know).
    Chars(Measured),
    /// What the tokeniser counted of a request the server counted too: how far the two
    /// agree (framing Loom cannot see, or another tokeniser).
    Tokenizer {
        /// The tokeniser's count of the prefix.
        prefix: u64,
        /// The tokeniser's count of the whole request.
        total: u64,
        /// The request as the server counted it.
        measured: Measured,
    },
}

/// Whether a tokeniser's tables are in memory. They cost tens of megabytes and most of a
/// second to load, so they are loaded only once a conversation nears its window (the
/// estimate is good enough far from it), and a request waits for them only when close.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Loaded {
    /// Not asked for yet.
    No,
    /// Loading on a blocking thread.
    Loading,
    /// Ready to count.
    Yes,
}

/// The model's window and Loom's measure of what is sent.
pub(super) struct Window {
    /// The model's context window, when known (config, or learned from the server).
    pub(super) tokens: Option<u64>,
    /// Characters per token of the conversation: counted by the model's tokeniser when
    /// Loom has it, else calibrated by the server's reported usage.
    pub(super) chars_per_token: f64,
    /// Characters per token of the prefix (system prompt and tool schemas), measured
    /// apart (`None`: not yet; the conversation's is used). Prose and schemas tokenise
    /// unlike dense tool output: with one ratio for both, a 4k window's prefix looked
    /// nearly twice its size after a search result, and the turn was refused.
    prefix_chars_per_token: Option<f64>,
    /// Whether the prefix's worth is the server's measure (then the tokeniser's count does
    /// not replace it: two measures taking turns flipped the prefix between requests).
    prefix_from_server: bool,
    /// Whether `chars_per_token` was measured on a conversation long enough to tell (until
    /// then, it is the whole request's).
    conversation_measured: bool,
    /// The model's tokeniser (OpenAI's own, else o200k), and how far it is loaded.
    tokenizer: Option<(Tokenizer, Loaded)>,
    /// The server's count over the tokeniser's, from the last reported usage.
    tokenizer_correction: f64,
    /// Whether the server is still being asked about the model (its window).
    pub(super) discovering: bool,
}

impl Window {
    /// A window of `tokens` (from config), or one still unknown.
    pub(super) fn new(tokens: Option<u64>) -> Window {
        Window {
            tokens,
            chars_per_token: DEFAULT_CHARS_PER_TOKEN,
            prefix_chars_per_token: None,
            prefix_from_server: false,
            conversation_measured: false,
            tokenizer: None,
            tokenizer_correction: 1.0,
            discovering: false,
        }
    }

    /// The server is being asked about `model`: its tokeniser counts from now on (loaded
    /// when needed).
    pub(super) fn discovering(&mut self, model: &str) {
        self.discovering = true;
        self.tokenizer = Some((Tokenizer::counting(model), Loaded::No));
        self.tokenizer_correction = 1.0;
    }

    /// Another model answers from now on: what characters are worth is measured afresh,
    /// as it may tokenise otherwise. Until then the last measures stand, the prefix's
    /// apart from the conversation's (the conversation's alone priced a 4k window's
    /// prefix far above its size).
    pub(super) fn model_switched(&mut self) {
        self.prefix_from_server = false;
        self.conversation_measured = false;
    }

    /// Characters per token of the prefix.
    pub(super) fn prefix_chars_per_token(&self) -> f64 {
        self.prefix_chars_per_token.unwrap_or(self.chars_per_token)
    }

    /// What a request the server reported usage for says about Loom's counting.
    pub(super) fn calibrated(&mut self, calibration: Calibration) {
        match calibration {
            Calibration::Chars(measured) => self.measured(measured, 1.5..=8.0),
            Calibration::Tokenizer {
                prefix,
                total,
                measured,
            } => {
                let ratio = measured.tokens as f64 / total.max(1) as f64;
                if !TOKENIZER_AGREES.contains(&ratio) {
                    // Not the model's tokeniser: what it measured goes with it.
                    self.tokenizer = None;
                    if !self.prefix_from_server {
                        self.prefix_chars_per_token = None;
                        self.conversation_measured = false;
                    }
                    self.measured(measured, 1.5..=8.0);
                    return;
                }
                self.measured(measured, 0.5..=16.0);
                // The tokeniser counts the conversation from now on: corrected by what the
                // server counted for it (the whole less the prefix at its measured worth).
                let server = measured.tokens as f64
                    - measured.prefix_chars as f64 / self.prefix_chars_per_token();
                let counted = total.saturating_sub(prefix) as f64;
                self.tokenizer_correction = if measured.conversation_chars
                    >= MEASURABLE_CONVERSATION
                    && server >= measured.tokens as f64 / 10.0
                    && counted > 0.0
                {
                    (server / counted).clamp(*TOKENIZER_AGREES.start(), *TOKENIZER_AGREES.end())
                } else {
                    ratio
                };
            }
        }
    }

    /// Set what characters are worth from a request of known tokens (ratios kept within
    /// `range`). The prefix is the same in every request and the conversation grows: a
    /// request that is nearly all prefix (a session's first) measures the prefix, counting
    /// its conversation at the ratio known so far; a request with conversation enough to
    /// measure then measures the conversation, with the prefix at its own ratio.
    fn measured(&mut self, m: Measured, range: std::ops::RangeInclusive<f64>) {
        let tokens = m.tokens.max(1) as f64;
        let clamp = |r: f64| r.clamp(*range.start(), *range.end());
        if m.prefix_chars > 0 && m.conversation_chars * 10 <= m.prefix_chars {
            let conversation = m.conversation_chars as f64 / self.chars_per_token;
            let prefix = (tokens - conversation).max(tokens / 2.0);
            self.prefix_chars_per_token = Some(clamp(m.prefix_chars as f64 / prefix));
            self.prefix_from_server = true;
        } else if !self.prefix_from_server && !self.conversation_measured {
            // Too much conversation to tell the prefix apart (a resumed session's first
            // request): both take the request's ratio as a whole for now.
            let chars = m.prefix_chars + m.conversation_chars;
            self.chars_per_token = clamp(chars as f64 / tokens);
            return;
        }
        let prefix = m.prefix_chars as f64 / self.prefix_chars_per_token();
        let conversation = tokens - prefix;
        let measurable = m.conversation_chars >= MEASURABLE_CONVERSATION;
        if measurable && conversation >= tokens / 10.0 {
            self.chars_per_token = clamp(m.conversation_chars as f64 / conversation);
            self.conversation_measured = true;
        } else if measurable || m.prefix_chars == 0 || !self.conversation_measured {
            // The counts do not split (the server counted the whole for hardly more than
            // the prefix was measured at), or there is no conversation to measure yet:
            // the request's ratio as a whole is the best guess.
            let chars = m.prefix_chars + m.conversation_chars;
            self.chars_per_token = clamp(chars as f64 / tokens);
        }
    }

    /// The tokeniser for `model` finished loading (`loaded`: it can count).
    pub(super) fn tokenizer_ready(&mut self, model: &str, loaded: bool) {
        match &mut self.tokenizer {
            // A tokeniser for a model switched away from is of no use.
            Some((t, _)) if t.model() != model => {}
            Some((_, state)) if loaded => *state = Loaded::Yes,
            _ => self.tokenizer = None,
        }
    }

    /// The tokens of a request, when the tokeniser is loaded (`None`: estimate instead).
    pub(super) fn count(&mut self, messages: &[Message], tools: &[Value]) -> Option<u64> {
        match &mut self.tokenizer {
            Some((tokenizer, Loaded::Yes)) => Some(tokenizer.count(messages, tools)),
            _ => None,
        }
    }

    /// The tokeniser counted a request (`m`, `prefix_tokens` of it the prefix's; its
    /// counts corrected by what the server said of the last one): that sets what the
    /// conversation's characters are worth, and the prefix's until the server measured it.
    pub(super) fn counted(&mut self, prefix_tokens: u64, m: Measured) {
        let correct = |t: u64| t as f64 * self.tokenizer_correction;
        if m.prefix_chars > 0 && !self.prefix_from_server {
            let prefix = correct(prefix_tokens).max(1.0);
            self.prefix_chars_per_token = Some((m.prefix_chars as f64 / prefix).clamp(0.5, 16.0));
        }
        let conversation = correct(m.tokens.saturating_sub(prefix_tokens));
        if m.conversation_chars >= MEASURABLE_CONVERSATION && conversation >= 1.0 {
            self.chars_per_token = (m.conversation_chars as f64 / conversation).clamp(0.5, 16.0);
            self.conversation_measured = true;
        } else if !self.conversation_measured {
            let prefix = m.prefix_chars as f64 / self.prefix_chars_per_token();
            let chars = m.prefix_chars + m.conversation_chars;
            self.chars_per_token =
                (chars as f64 / (prefix + conversation).max(1.0)).clamp(0.5, 16.0);
        }
    }

    /// Whether a request whose estimate takes `share` of the window must wait for the
    /// tokeniser: it starts loading (reporting on `tx`) once the estimate passes
    /// [`TOKENIZER_LOAD_AT`], and is waited for above [`TOKENIZER_WAIT_AT`] (below, the
    /// estimate cannot be far enough off to matter).
    pub(super) fn wait_for_tokenizer(
        &mut self,
        share: f64,
        tx: &mpsc::UnboundedSender<Internal>,
    ) -> bool {
        let Some((tokenizer, state)) = &mut self.tokenizer else {
            return false;
        };
        if *state == Loaded::No && share >= TOKENIZER_LOAD_AT {
            *state = Loaded::Loading;
            let model = tokenizer.model().to_string();
            let tx = tx.clone();
            tokio::task::spawn_blocking(move || {
                let loaded = std::panic::catch_unwind(|| Tokenizer::counting(&model).warm());
                let loaded = loaded.is_ok();
                let _ = tx.send(Internal::TokenizerReady { model, loaded });
            });
        }
        *state == Loaded::Loading && share >= TOKENIZER_WAIT_AT
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::budget::Budget;

    /// A server whose tokeniser makes 2.8 characters of the prefix a token and 1.6 of the
    /// conversation's dense tool output (a search result, JSON).
    fn server_tokens(prefix_chars: usize, conversation_chars: usize) -> u64 {
        (prefix_chars as f64 / 2.8 + conversation_chars as f64 / 1.6).round() as u64
    }

    fn request(prefix_chars: usize, conversation_chars: usize) -> Measured {
        Measured {
            prefix_chars,
            conversation_chars,
            tokens: server_tokens(prefix_chars, conversation_chars),
        }
    }

    /// The invariant: after a session's first request (mostly prefix) and one carrying
    /// dense tool output, the prefix is estimated at what the server counts for it, within
    /// 5 %. With one ratio for the whole request, the dense output made a 4k window's
    /// prefix look 15 % larger here, and much more with larger outputs: "the system
    /// prompt and tool definitions alone need about 3508 of 4096 tokens".
    #[test]
    fn the_prefix_is_measured_apart_from_dense_tool_output() {
        let mut w = Window::new(Some(4096));
        let prefix_chars = 7_000;
        w.calibrated(Calibration::Chars(request(prefix_chars, 120)));
        w.calibrated(Calibration::Chars(request(prefix_chars, 2_400)));
        let budget = Budget {
            window: 4096,
            chars_per_token: w.chars_per_token,
            overhead_chars: prefix_chars,
            prefix_chars_per_token: w.prefix_chars_per_token(),
        };
        let truth = prefix_chars as f64 / 2.8;
        let estimate = budget.prefix_tokens() as f64;
        assert!(
            (estimate / truth - 1.0).abs() < 0.05,
            "{estimate} vs {truth}"
        );
        assert!(
            (w.chars_per_token - 1.6).abs() < 0.16,
            "{}",
            w.chars_per_token
        );
        let whole = (prefix_chars + 2_400) as f64 / server_tokens(prefix_chars, 2_400) as f64;
        assert!(
            prefix_chars as f64 / whole > truth * 1.15,
            "the old estimate was off"
        );
        assert!(budget.conversation_chars().is_some());
    }

    /// Regression (review): a resumed session's first request, mostly conversation, set
    /// the prefix's worth as if the conversation were at the default ratio: dense output
    /// made the prefix 82 % too large, and it stuck. Now the prefix is measured only from a
    /// request that is nearly all prefix; until then the request's ratio as a whole stands
    /// for both, and the conversation is measured once the prefix is.
    #[test]
    fn a_request_mostly_conversation_does_not_measure_the_prefix() {
        let mut w = Window::new(Some(8192));
        w.calibrated(Calibration::Chars(request(7_000, 6_000)));
        let whole = 13_000.0 / server_tokens(7_000, 6_000) as f64;
        assert!((w.prefix_chars_per_token() - whole).abs() < 0.01);
        assert!((w.chars_per_token - whole).abs() < 0.01);
        // One request cannot tell the two apart: the whole's ratio prices the prefix 35 %
        // high here, against 82 % before.
        let truth = 7_000.0 / 2.8;
        let estimate = 7_000.0 / w.prefix_chars_per_token();
        assert!(estimate < truth * 1.4, "{estimate} vs {truth}");
        // A later request that is nearly all prefix (after a compaction) measures it.
        w.calibrated(Calibration::Chars(request(7_000, 300)));
        let estimate = 7_000.0 / w.prefix_chars_per_token();
        assert!(
            (estimate / truth - 1.0).abs() < 0.05,
            "{estimate} vs {truth}"
        );
    }

    /// Until a conversation long enough to tell has been measured, what the request's
    /// characters are worth as a whole stands for the conversation too; a server whose
    /// counts do not split (the whole counted below the prefix's measure) gets that too.
    #[test]
    fn counts_that_do_not_split_fall_back_to_the_whole_request() {
        let mut w = Window::new(Some(8192));
        w.calibrated(Calibration::Chars(request(7_000, 120)));
        let whole = 7_120.0 / server_tokens(7_000, 120) as f64;
        assert!((w.chars_per_token - whole).abs() < 0.01);
        w.calibrated(Calibration::Chars(Measured {
            prefix_chars: 7_000,
            conversation_chars: 20_000,
            tokens: 200,
        }));
        assert_eq!(w.chars_per_token, 8.0, "the whole request's, kept in range");
    }

    /// With the tokeniser loaded, the prefix's count sets its worth (until the server
    /// measured it) and the rest of the request the conversation's.
    #[test]
    fn the_tokenisers_count_is_split_the_same_way() {
        let mut w = Window::new(Some(4096));
        let request = Measured {
            prefix_chars: 7_000,
            conversation_chars: 3_200,
            tokens: 4_500,
        };
        w.counted(2_500, request);
        assert!((w.prefix_chars_per_token() - 2.8).abs() < 0.01);
        assert!((w.chars_per_token - 1.6).abs() < 0.01);
    }

    /// The invariant: once the server measured the prefix, the tokeniser's count (another
    /// tokeniser, corrected by one ratio) does not replace it, so the prefix's estimate
    /// stays put between requests; the server's count corrects the tokeniser's count of
    /// the conversation alone. (The two measures taking turns flipped a 4k window's prefix
    /// between the full and the short one on every request.)
    #[test]
    fn the_servers_measure_of_the_prefix_holds_against_the_tokeniser() {
        let mut w = Window::new(Some(4096));
        // The tokeniser counts the prefix at 3.5 characters a token, the conversation at
        // 2.4; the server at 2.8 and 1.6.
        let counted = |prefix_chars: usize, conversation_chars: usize| {
            let prefix = (prefix_chars as f64 / 3.5) as u64;
            (prefix, prefix + (conversation_chars as f64 / 2.4) as u64)
        };
        let (prefix, total) = counted(7_000, 120);
        w.calibrated(Calibration::Tokenizer {
            prefix,
            total,
            measured: request(7_000, 120),
        });
        let measured = w.prefix_chars_per_token();
        assert!((measured - 2.8).abs() < 0.05, "{measured}");
        for conversation in [2_400, 3_000, 1_500] {
            let (prefix, total) = counted(7_000, conversation);
            w.counted(
                prefix,
                Measured {
                    prefix_chars: 7_000,
                    conversation_chars: conversation,
                    tokens: total,
                },
            );
            assert_eq!(
                w.prefix_chars_per_token(),
                measured,
                "held at {conversation}"
            );
            w.calibrated(Calibration::Tokenizer {
                prefix,
                total,
                measured: request(7_000, conversation),
            });
        }
        let (prefix, total) = counted(7_000, 2_000);
        w.counted(
            prefix,
            Measured {
                prefix_chars: 7_000,
                conversation_chars: 2_000,
                tokens: total,
            },
        );
        assert!(
            (w.chars_per_token - 1.6).abs() < 0.1,
            "{}",
            w.chars_per_token
        );
    }
}
