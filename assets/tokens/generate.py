#!/usr/bin/env python3
"""Writes Loom's compact token tables from tiktoken-rs's text ones.

tiktoken-rs embeds OpenAI's `.tiktoken` files as text (a base64 token and its rank per
line, about 7 MB for the four encodings) in every executable that names them. Loom stores
the same ranks as zlib-compressed records instead (1.7 MB) and loads one only when a
conversation needs it (src/llm/token_tables.rs). A record is a length byte then the
token's bytes, for ranks 0, 1, 2, ... in order; a length of 0 is a rank that is not an
ordinary token (p50k's 50256 is <|endoftext|>). p50k is r50k plus 24 tokens, so
`p50k_extra.bin` holds only the ranks after r50k's.

Usage: assets/tokens/generate.py ~/.cargo/registry/src/*/tiktoken-rs-0.12.1/assets
The test `llm::token_tables::tests::every_rank_is_tiktokens` checks the result.
"""
import base64
import pathlib
import sys
import zlib


def ranks(path):
    out = {}
    for line in path.read_text().splitlines():
        if line.strip():
            token, rank = line.split()
            out[int(rank)] = base64.b64decode(token)
    return out


def records(table, first):
    raw = bytearray()
    for rank in range(first, max(table) + 1):
        token = table.get(rank, b"")
        assert 0 < len(token) < 256 or rank not in table, (rank, token)
        raw.append(len(token))
        raw += token
    return zlib.compress(bytes(raw), 9)


def main():
    src = pathlib.Path(sys.argv[1])
    here = pathlib.Path(__file__).parent
    r50k = ranks(src / "r50k_base.tiktoken")
    p50k = ranks(src / "p50k_base.tiktoken")
    assert all(p50k[r] == t for r, t in r50k.items()), "p50k extends r50k"
    (here / "r50k_base.bin").write_bytes(records(r50k, 0))
    (here / "p50k_extra.bin").write_bytes(records(p50k, max(r50k) + 1))
    for name in ["cl100k_base", "o200k_base"]:
        (here / f"{name}.bin").write_bytes(records(ranks(src / f"{name}.tiktoken"), 0))


main()
