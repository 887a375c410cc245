//! Writes Loom's compact token tables into `OUT_DIR` from `tiktoken-rs`'s own encodings.
//!
//! `tiktoken-rs` embeds its encodings as base64 text (about 7 MB for o200k, cl100k, p50k
//! and r50k) in any executable that calls its constructors. Loom calls them only here, at
//! build time, and embeds the same ranks as zlib-compressed records instead (about 1.7 MB;
//! read by `src/token_tables.rs`): for ranks `first, first + 1, …`, a length byte and
//! then the token's bytes, a length of 0 for a rank that is not an ordinary token (a
//! special token, or a gap). p50k is r50k plus a few ranks, so only those are stored for it.
//! Nothing is fetched: the ranks come from the `tiktoken-rs` crate the build already has.

use std::collections::HashSet;
use std::io::Write;
use std::path::Path;

use tiktoken_rs::{CoreBPE, Rank};

/// Past the largest ordinary rank of any of the four encodings (o200k's is 199,997).
const SCAN: Rank = 300_000;

/// The ordinary tokens of `bpe` by rank, `None` where a rank is special or unused, up to
/// the last ordinary one.
fn ordinary(bpe: &CoreBPE) -> Vec<Option<Vec<u8>>> {
    let special: HashSet<Rank> = bpe
        .special_tokens()
        .into_iter()
        .flat_map(|s| bpe.encode_with_special_tokens(s))
        .collect();
    let mut tokens: Vec<Option<Vec<u8>>> = (0..SCAN)
        .map(|rank| {
            (!special.contains(&rank))
                .then(|| bpe.decode_bytes(&[rank]).ok())
                .flatten()
        })
        .collect();
    while tokens.last().is_some_and(Option::is_none) {
        tokens.pop();
    }
    tokens
}

/// The records of `tokens[first..]`, compressed.
fn records(tokens: &[Option<Vec<u8>>], first: usize) -> Vec<u8> {
    let mut raw = Vec::new();
    for token in &tokens[first..] {
        match token {
            Some(t) => {
                let len = u8::try_from(t.len()).expect("a token is shorter than 256 bytes");
                raw.push(len);
                raw.extend_from_slice(t);
            }
            None => raw.push(0),
        }
    }
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&raw).expect("compressing in memory");
    z.finish().expect("compressing in memory")
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let out = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR");
    let out = Path::new(&out);
    let write = |name: &str, bytes: Vec<u8>| {
        std::fs::write(out.join(name), bytes).expect("writing OUT_DIR");
    };
    let r50k = ordinary(&tiktoken_rs::r50k_base().expect("tiktoken-rs's r50k"));
    let p50k = ordinary(&tiktoken_rs::p50k_base().expect("tiktoken-rs's p50k"));
    assert!(
        r50k.iter().zip(&p50k).all(|(r, p)| r == p),
        "p50k extends r50k"
    );
    write("r50k_base.bin", records(&r50k, 0));
    write("p50k_extra.bin", records(&p50k, r50k.len()));
    write(
        "cl100k_base.bin",
        records(
            &ordinary(&tiktoken_rs::cl100k_base().expect("tiktoken-rs's cl100k")),
            0,
        ),
    );
    write(
        "o200k_base.bin",
        records(
            &ordinary(&tiktoken_rs::o200k_base().expect("tiktoken-rs's o200k")),
            0,
        ),
    );
}
