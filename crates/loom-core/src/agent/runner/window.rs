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

/// How the server's reported usage corrects Loom's count of a request.
pub(super) enum Calibration {
    /// Characters per token (models whose tokeniser Loom does not know).
    Chars(f64),
    /// The server's tokens per token the tokeniser counted (framing Loom cannot see), and
    /// characters per token in case the tokeniser turns out not to be the model's.
    Tokenizer {
        /// Server tokens over counted tokens.
        ratio: f64,
        /// Characters per server token.
        chars: f64,
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
    /// Characters per token of what is sent: counted by the model's tokeniser when Loom
    /// has it, else calibrated by the server's reported usage.
    pub(super) chars_per_token: f64,
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

    /// What a request the server reported usage for says about Loom's counting.
    pub(super) fn calibrated(&mut self, calibration: Calibration) {
        match calibration {
            Calibration::Chars(ratio) => self.chars_per_token = ratio.clamp(1.5, 8.0),
            Calibration::Tokenizer { ratio, chars } => {
                if TOKENIZER_AGREES.contains(&ratio) {
                    self.tokenizer_correction = ratio;
                } else {
                    self.tokenizer = None;
                    self.chars_per_token = chars.clamp(1.5, 8.0);
                }
            }
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

    /// The tokeniser counted `tokens` for `chars` characters: that sets their worth.
    pub(super) fn counted(&mut self, tokens: u64, chars: usize) {
        let tokens = (tokens as f64 * self.tokenizer_correction).max(1.0);
        self.chars_per_token = (chars as f64 / tokens).clamp(0.5, 16.0);
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
