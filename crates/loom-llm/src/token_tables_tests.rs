//! The compact tables against `tiktoken-rs`'s own (text) tables: the same ranks, the same
//! tokens for every text.

use super::*;

/// Every tokenizer `tiktoken-rs` names.
const TOKENIZERS: [Tokenizer; 7] = [
    Tokenizer::O200kHarmony,
    Tokenizer::O200kBase,
    Tokenizer::Cl100kBase,
    Tokenizer::P50kBase,
    Tokenizer::P50kEdit,
    Tokenizer::R50kBase,
    Tokenizer::Gpt2,
];

fn reference(tokenizer: Tokenizer) -> &'static CoreBPE {
    tiktoken_rs::bpe_for_tokenizer(tokenizer).unwrap()
}

/// Each table holds exactly tiktoken's ordinary tokens: as many, each at its rank, and the
/// rank after the last is not an ordinary token there either.
#[test]
fn every_rank_is_tiktokens() {
    for (tokenizer, table, count) in [
        (Tokenizer::O200kBase, Table::O200k, 199_998),
        (Tokenizer::Cl100kBase, Table::Cl100k, 100_256),
        (Tokenizer::P50kBase, Table::P50k, 50_280),
        (Tokenizer::R50kBase, Table::R50k, 50_256),
    ] {
        let theirs = reference(tokenizer);
        let ours = table.ranks().unwrap();
        assert_eq!(ours.len(), count, "{table:?}");
        let mut last = 0;
        for (token, rank) in &ours {
            assert_eq!(
                theirs.decode_bytes(&[*rank]).ok().as_ref(),
                Some(token),
                "{table:?} rank {rank}"
            );
            last = last.max(*rank);
        }
        if let Ok(after) = theirs.decode_bytes(&[last + 1]) {
            assert!(after.starts_with(b"<|"), "{table:?}: {after:?}");
        }
    }
}

/// Texts that exercise each pattern's branches: code, prose with contractions, numbers,
/// whitespace runs and line ends, accents, CJK and emoji.
fn samples() -> Vec<String> {
    vec![
        include_str!("tokens.rs").to_string(),
        include_str!("../../../assets/system_prompt.md").to_string(),
        "I'm sure you'll see they've said it's THEIR cat's toy; WE'LL know.".into(),
        "3.14159 + 2,718,281 = 1234567890123; 0x1F ff 007\n".into(),
        "a  b   c\t\td\r\n\r\n\n    indented\n\n\n   \n".into(),
        "café naïve Ærøskøbing Überweisung — “quotes” …".into(),
        "日本語のテキストと中文文本，한국어 텍스트。".into(),
        "emoji 🎉🚀 and 👩‍👩‍👧 families, flags 🇳🇿".into(),
        " ".repeat(300) + &"=".repeat(200) + "\n",
        String::new(),
    ]
}

/// Token counts (and the tokens themselves) equal tiktoken's for every tokenizer.
#[test]
fn tokens_equal_tiktokens_on_sample_texts() {
    let texts = samples();
    for tokenizer in TOKENIZERS {
        let (ours, theirs) = (bpe(tokenizer).unwrap(), reference(tokenizer));
        for text in &texts {
            assert_eq!(
                ours.encode_ordinary(text),
                theirs.encode_ordinary(text),
                "{tokenizer:?} on {:?}",
                text.chars().take(40).collect::<String>()
            );
        }
    }
}

/// A damaged table is an error that says what to do, never a panic or a partial table.
#[test]
fn a_damaged_table_is_explained() {
    let mut ranks = FxHashMap::default();
    let err = read(b"not zlib at all", 0, &mut ranks).unwrap_err();
    assert!(err.to_string().contains("rebuild Loom"), "{err}");
    let mut truncated = Vec::new();
    {
        use std::io::Write;
        let mut z = flate2::write::ZlibEncoder::new(&mut truncated, flate2::Compression::fast());
        z.write_all(&[2, b'a', b'b', 5, b'c']).unwrap();
        z.finish().unwrap();
    }
    let err = read(&truncated, 0, &mut ranks).unwrap_err();
    assert!(
        err.to_string().contains("rank 1 runs past the end"),
        "{err}"
    );
}
