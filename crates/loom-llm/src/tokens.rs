//! Counting a request's tokens the way OpenAI's models count them: tiktoken's byte-pair
//! encodings (o200k, cl100k, …, chosen from the model name by `tiktoken-rs`'s table).
//!
//! Other models' tokenisers are not known to Loom; they are counted with o200k
//! ([`Tokenizer::counting`]), which modern tokenisers (Llama 3's, Qwen's, Mistral's) are
//! close to — far closer than characters, as dense code is two or three characters a token
//! — and the server's reported usage corrects the count, or turns it off when the two
//! disagree too much. For OpenAI models the count
//! is exact for the text and close for the framing (each message's role markers are a few
//! tokens, counted as OpenAI's cookbook counts them), and the server's reported usage still
//! corrects what is left.
//!
//! Loading an encoding parses a few megabytes into tens of megabytes of tables, so
//! [`Tokenizer::warm`] does it once off the input path, and the runner asks for it only
//! when a conversation nears its window; counts are cached per message, so each request
//! counts only what is new.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use serde_json::Value;
use tiktoken_rs::CoreBPE;

use super::message::Message;

/// Tokens of framing per message (role and separators), as OpenAI's cookbook counts them.
const PER_MESSAGE: u64 = 4;
/// Tokens that prime the reply.
const PER_REQUEST: u64 = 3;
/// Tokens an attached image is counted as (a mid-sized image at OpenAI's detail levels).
const IMAGE_TOKENS: u64 = 850;

/// A token counter for one model's encoding.
pub struct Tokenizer {
    model: String,
    encoding: tiktoken_rs::tokenizer::Tokenizer,
    /// Tokens of each message already counted, by a hash of the message.
    counted: HashMap<u64, u64>,
}

impl std::fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokenizer")
            .field("encoding", &self.encoding)
            .field("cached", &self.counted.len())
            .finish()
    }
}

impl Tokenizer {
    /// The counter for `model` when it is one of OpenAI's (a `provider/` prefix, as routers
    /// write it, is ignored); `None` for every other model.
    pub fn for_model(model: &str) -> Option<Tokenizer> {
        let name = model.rsplit('/').next().unwrap_or(model);
        let encoding = tiktoken_rs::tokenizer::get_tokenizer(name)?;
        Some(Tokenizer {
            model: model.to_string(),
            encoding,
            counted: HashMap::new(),
        })
    }

    /// The counter for `model`: its own encoding when it is one of OpenAI's, else o200k
    /// as the nearest known (issue 24: "counted the way the server counts, or o200k").
    pub fn counting(model: &str) -> Tokenizer {
        Tokenizer::for_model(model).unwrap_or_else(|| Tokenizer {
            model: model.to_string(),
            encoding: tiktoken_rs::tokenizer::Tokenizer::O200kBase,
            counted: HashMap::new(),
        })
    }

    /// The model it counts for.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// Load the encoding (most of a second and ~46 MB for o200k the first time; call it
    /// off the input path before [`Tokenizer::count`]).
    pub fn warm(&self) {
        let _ = self.bpe();
    }

    fn bpe(&self) -> &'static CoreBPE {
        super::token_tables::bpe(self.encoding)
            .unwrap_or_else(|e| panic!("the built-in token table for {:?}: {e}", self.encoding))
    }

    /// Tokens of a request carrying `messages` and `tools`.
    pub fn count(&mut self, messages: &[Message], tools: &[Value]) -> u64 {
        let bpe = self.bpe();
        let mut seen = HashMap::with_capacity(messages.len());
        let mut total = PER_REQUEST;
        for m in messages {
            let key = key_of(m);
            let n = match self.counted.get(&key) {
                Some(n) => *n,
                None => {
                    let images = match m {
                        Message::User { images, .. } => images.len() as u64 * IMAGE_TOKENS,
                        _ => 0,
                    };
                    PER_MESSAGE + images + text_of(m).map(|t| tokens(bpe, t)).sum::<u64>()
                }
            };
            seen.insert(key, n);
            total += n;
        }
        // Keep only what this request held: a compacted conversation drops the rest.
        self.counted = seen;
        total
            + tools
                .iter()
                .map(|t| tokens(bpe, &t.to_string()))
                .sum::<u64>()
    }
}

fn tokens(bpe: &CoreBPE, text: &str) -> u64 {
    bpe.encode_ordinary(text).len() as u64
}

/// The texts of a message the model reads.
fn text_of(m: &Message) -> Box<dyn Iterator<Item = &str> + '_> {
    match m {
        Message::System { content } | Message::User { content, .. } => {
            Box::new(std::iter::once(content.as_str()))
        }
        Message::Assistant {
            content,
            tool_calls,
        } => Box::new(
            std::iter::once(content.as_str()).chain(
                tool_calls
                    .iter()
                    .flat_map(|c| [c.name.as_str(), c.arguments.as_str()]),
            ),
        ),
        Message::Tool { name, content, .. } => {
            Box::new([name.as_str(), content.as_str()].into_iter())
        }
    }
}

fn key_of(m: &Message) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    std::mem::discriminant(m).hash(&mut h);
    for t in text_of(m) {
        t.hash(&mut h);
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolCall;

    #[test]
    fn openai_models_get_their_encoding_and_others_none() {
        for model in [
            "gpt-4o",
            "gpt-4o-mini",
            "openai/gpt-4.1",
            "gpt-3.5-turbo",
            "o3-mini",
        ] {
            assert!(Tokenizer::for_model(model).is_some(), "{model}");
        }
        for model in [
            "qwen2.5-coder:14b",
            "llama3",
            "scripted-model",
            "mistral-large",
        ] {
            assert!(Tokenizer::for_model(model).is_none(), "{model}");
        }
    }

    /// Issue 24: a local model's request of dense code was estimated at 3.5 characters a
    /// token and overflowed the window; it is counted with o200k now.
    #[test]
    fn other_models_are_counted_with_o200k() {
        let mut t = Tokenizer::counting("qwen2.5-coder:14b");
        assert_eq!(t.model(), "qwen2.5-coder:14b");
        let code = "fn step_001(x: u32) -> u32 { x * 1 + 7 }\n".repeat(10);
        let n = t.count(&[Message::user(code.clone())], &[]);
        let o200k = tiktoken_rs::o200k_base_singleton()
            .encode_ordinary(&code)
            .len() as u64;
        assert_eq!(n, 3 + 4 + o200k);
        assert!(
            n > (code.len() as f64 / 3.5) as u64,
            "denser than the old estimate"
        );
        assert!(Tokenizer::counting("gpt-4o").count(&[Message::user("hello world")], &[]) == 9);
    }

    #[test]
    fn counts_match_the_encoding_plus_framing() {
        let mut t = Tokenizer::for_model("gpt-4o").unwrap();
        t.warm();
        // "hello world" is two tokens in o200k; each message adds 4, the request 3.
        let one = t.count(&[Message::user("hello world")], &[]);
        assert_eq!(one, 3 + 4 + 2);
        let two = t.count(
            &[Message::user("hello world"), Message::user("hello world")],
            &[],
        );
        assert_eq!(two, 3 + 2 * (4 + 2));
    }

    #[test]
    fn tool_calls_results_and_tools_are_counted() {
        let mut t = Tokenizer::for_model("gpt-4o").unwrap();
        let bare = t.count(&[Message::user("x")], &[]);
        let call = Message::Assistant {
            content: String::new(),
            tool_calls: vec![ToolCall {
                id: "c".into(),
                name: "read_file".into(),
                arguments: r#"{"path": "src/main.rs"}"#.into(),
            }],
        };
        let result = Message::Tool {
            tool_call_id: "c".into(),
            name: "read_file".into(),
            content: "fn main() {}".into(),
        };
        let with = t.count(&[Message::user("x"), call, result], &[]);
        assert!(with > bare + 2 * PER_MESSAGE + 8, "{with} vs {bare}");
        let schema = serde_json::json!({"type": "function", "function": {"name": "read_file"}});
        assert!(t.count(&[Message::user("x")], &[schema]) > bare);
    }

    /// The cache forgets messages a request no longer holds (a compacted conversation).
    #[test]
    fn the_cache_holds_only_the_last_request() {
        let mut t = Tokenizer::for_model("gpt-4o").unwrap();
        t.count(&[Message::user("a"), Message::user("b")], &[]);
        assert_eq!(t.counted.len(), 2);
        t.count(&[Message::user("summary")], &[]);
        assert_eq!(t.counted.len(), 1);
    }
}
