//! OpenAI's byte-pair encodings, loaded from compact tables when first needed.
//!
//! `tiktoken-rs` embeds its encodings as text (about 7 MB of base64 for o200k, cl100k,
//! p50k and r50k) in any executable that can load them, which was a third of Loom's and
//! counted against every session's memory, whether or not it ever counted a token. Loom
//! uses `tiktoken-rs` for the byte-pair algorithm only and keeps the same ranks as
//! zlib-compressed records (1.7 MB, written at build time by `build.rs` from `tiktoken-rs`),
//! decoded into an encoding the first time a model needs it. The tests check every rank and
//! the token counts of sample texts against `tiktoken-rs`'s own tables.

use std::io::Read;
use std::sync::OnceLock;

use rustc_hash::FxHashMap;
use tiktoken_rs::tokenizer::Tokenizer;
use tiktoken_rs::{CoreBPE, O200K_BASE_PAT_STR, Rank};

/// r50k's ranks (GPT-2 and GPT-3).
const R50K: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/r50k_base.bin"));
/// The ranks p50k adds after r50k's.
const P50K_EXTRA: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/p50k_extra.bin"));
/// cl100k's ranks (GPT-3.5, GPT-4).
const CL100K: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/cl100k_base.bin"));
/// o200k's ranks (GPT-4o and later).
const O200K: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k_base.bin"));

/// How r50k and p50k split text before merging (tiktoken's pattern for them).
const R50K_PATTERN: &str =
    "'(?:[sdmt]|ll|ve|re)| ?\\p{L}++| ?\\p{N}++| ?[^\\s\\p{L}\\p{N}]++|\\s++$|\\s+(?!\\S)|\\s";
/// How cl100k splits text before merging (tiktoken's pattern for it).
const CL100K_PATTERN: &str = "'(?i:[sdmt]|ll|ve|re)|[^\\r\\n\\p{L}\\p{N}]?+\\p{L}++|\\p{N}{1,3}+| ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*+|\\s++$|\\s*[\\r\\n]|\\s+(?!\\S)|\\s";

/// Why an encoding could not be built (only a damaged build could cause it).
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// The compressed records did not decode.
    #[error("the token table is damaged ({0}); rebuild Loom from a clean checkout")]
    Damaged(String),
    /// `tiktoken-rs` refused the table or the pattern.
    #[error("could not build the encoding: {0}")]
    Bpe(String),
}

/// The four tables the encodings `tiktoken-rs` names are built from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    /// o200k (also o200k_harmony, whose ordinary tokens are the same).
    O200k,
    /// cl100k.
    Cl100k,
    /// p50k (also p50k_edit).
    P50k,
    /// r50k (also gpt2).
    R50k,
}

impl Table {
    /// The table a `tiktoken-rs` tokenizer uses.
    pub fn of(tokenizer: Tokenizer) -> Table {
        match tokenizer {
            Tokenizer::O200kHarmony | Tokenizer::O200kBase => Table::O200k,
            Tokenizer::Cl100kBase => Table::Cl100k,
            Tokenizer::P50kBase | Tokenizer::P50kEdit => Table::P50k,
            Tokenizer::R50kBase | Tokenizer::Gpt2 => Table::R50k,
        }
    }

    /// Every ordinary token with its rank.
    pub fn ranks(self) -> Result<FxHashMap<Vec<u8>, Rank>, TableError> {
        let mut ranks = FxHashMap::default();
        match self {
            Table::O200k => read(O200K, 0, &mut ranks)?,
            Table::Cl100k => read(CL100K, 0, &mut ranks)?,
            Table::R50k => read(R50K, 0, &mut ranks)?,
            Table::P50k => {
                let next = read(R50K, 0, &mut ranks)?;
                read(P50K_EXTRA, next, &mut ranks)?
            }
        };
        Ok(ranks)
    }

    /// Special tokens, as `tiktoken-rs` gives them (counting uses ordinary tokens only;
    /// these keep the encoding whole).
    fn specials(self) -> FxHashMap<String, Rank> {
        let list: &[(&str, Rank)] = match self {
            Table::O200k => &[("<|endoftext|>", 199_999), ("<|endofprompt|>", 200_018)],
            Table::Cl100k => &[
                ("<|endoftext|>", 100_257),
                ("<|fim_prefix|>", 100_258),
                ("<|fim_middle|>", 100_259),
                ("<|fim_suffix|>", 100_260),
                ("<|endofprompt|>", 100_276),
            ],
            Table::P50k | Table::R50k => &[("<|endoftext|>", 50_256)],
        };
        list.iter().map(|(s, r)| (s.to_string(), *r)).collect()
    }

    fn pattern(self) -> &'static str {
        match self {
            Table::O200k => O200K_BASE_PAT_STR,
            Table::Cl100k => CL100K_PATTERN,
            Table::P50k | Table::R50k => R50K_PATTERN,
        }
    }

    /// Build the encoding (a few hundred milliseconds for o200k; use [`bpe`]).
    pub fn build(self) -> Result<CoreBPE, TableError> {
        CoreBPE::new(self.ranks()?, self.specials(), self.pattern())
            .map_err(|e| TableError::Bpe(e.to_string()))
    }
}

/// The encoding for `tokenizer`, built on first use and kept for the process.
pub fn bpe(tokenizer: Tokenizer) -> Result<&'static CoreBPE, &'static TableError> {
    static O200K_BPE: OnceLock<Result<CoreBPE, TableError>> = OnceLock::new();
    static CL100K_BPE: OnceLock<Result<CoreBPE, TableError>> = OnceLock::new();
    static P50K_BPE: OnceLock<Result<CoreBPE, TableError>> = OnceLock::new();
    static R50K_BPE: OnceLock<Result<CoreBPE, TableError>> = OnceLock::new();
    let table = Table::of(tokenizer);
    let cell = match table {
        Table::O200k => &O200K_BPE,
        Table::Cl100k => &CL100K_BPE,
        Table::P50k => &P50K_BPE,
        Table::R50k => &R50K_BPE,
    };
    cell.get_or_init(|| table.build()).as_ref()
}

/// Decode records (a length byte, then the token; 0 for a rank that is not an ordinary
/// token) into `ranks` from rank `first`; returns the rank after the last.
fn read(
    compressed: &[u8],
    first: Rank,
    ranks: &mut FxHashMap<Vec<u8>, Rank>,
) -> Result<Rank, TableError> {
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(compressed)
        .read_to_end(&mut raw)
        .map_err(|e| TableError::Damaged(e.to_string()))?;
    ranks.reserve(raw.len() / 6);
    let mut rank = first;
    let mut at = 0;
    while at < raw.len() {
        let len = usize::from(raw[at]);
        let token = raw
            .get(at + 1..at + 1 + len)
            .ok_or_else(|| TableError::Damaged(format!("rank {rank} runs past the end")))?;
        if len > 0 && ranks.insert(token.to_vec(), rank).is_some() {
            return Err(TableError::Damaged(format!("rank {rank} repeats a token")));
        }
        at += 1 + len;
        rank += 1;
    }
    Ok(rank)
}

#[cfg(test)]
#[path = "token_tables_tests.rs"]
mod tests;
