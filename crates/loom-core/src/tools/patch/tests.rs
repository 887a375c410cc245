//! The patch envelope: every feature and failure of the parser, the matching levels, and
//! an invariant tying it to Loom's own diffs.

use proptest::prelude::*;

use super::*;
use crate::base::diff::{FileDiff, LineKind as DiffKind};

fn patch(body: &str) -> String {
    format!("*** Begin Patch\n{body}*** End Patch")
}

fn update(path: &str, chunks: Vec<Chunk>) -> PatchOp {
    PatchOp::Update {
        path: path.into(),
        move_to: None,
        chunks,
    }
}

/// A chunk whose lines are the common start as context, then the rest of `old` removed,
/// then the rest of `new` added (the order the parser records for such a patch).
fn chunk(context: Option<&str>, old: &[&str], new: &[&str]) -> Chunk {
    let same = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let mut kinds = vec![LineKind::Context; same];
    kinds.extend(std::iter::repeat_n(LineKind::Removed, old.len() - same));
    kinds.extend(std::iter::repeat_n(LineKind::Added, new.len() - same));
    Chunk {
        context: context.map(str::to_string),
        old_lines: old.iter().map(|s| s.to_string()).collect(),
        new_lines: new.iter().map(|s| s.to_string()).collect(),
        end_of_file: false,
        kinds,
    }
}

#[test]
fn every_section_kind_parses() {
    let p = parse(&patch(
        "*** Add File: new.txt\n+one\n+two\n*** Delete File: gone.txt\n*** Update File: a.py\n\
         *** Move to: b.py\n@@ def f():\n-    return 1\n+    return 2\n",
    ))
    .unwrap();
    assert_eq!(
        p.ops,
        vec![
            PatchOp::Add {
                path: "new.txt".into(),
                contents: "one\ntwo\n".into()
            },
            PatchOp::Delete {
                path: "gone.txt".into()
            },
            PatchOp::Update {
                path: "a.py".into(),
                move_to: Some("b.py".into()),
                chunks: vec![chunk(
                    Some("def f():"),
                    &["    return 1"],
                    &["    return 2"]
                )],
            },
        ]
    );
}

#[test]
fn context_lines_belong_to_both_sides_and_an_empty_line_is_empty_context() {
    let p = parse(&patch("*** Update File: a\n@@\n keep\n\n-old\n+new\n")).unwrap();
    assert_eq!(
        p.ops,
        vec![update(
            "a",
            vec![chunk(None, &["keep", "", "old"], &["keep", "", "new"])]
        )]
    );
}

#[test]
fn the_first_chunk_may_omit_its_header_but_later_ones_may_not() {
    let p = parse(&patch("*** Update File: a\n-x\n+y\n@@\n-z\n+w\n")).unwrap();
    assert_eq!(
        p.ops,
        vec![update(
            "a",
            vec![chunk(None, &["x"], &["y"]), chunk(None, &["z"], &["w"])]
        )]
    );
    let err = parse(&patch("*** Update File: a\n@@\n-x\n*** End of File\n-z\n")).unwrap_err();
    assert!(
        matches!(err, ParseError::UpdateLine { line: 6, .. }),
        "{err}"
    );
}

#[test]
fn end_of_file_marks_the_chunk() {
    let p = parse(&patch(
        "*** Update File: a\n@@\n last\n+after\n*** End of File\n",
    ))
    .unwrap();
    let PatchOp::Update { chunks, .. } = &p.ops[0] else {
        panic!("an update")
    };
    assert!(chunks[0].end_of_file);
}

#[test]
fn a_heredoc_wrapper_and_crlf_line_ends_are_accepted() {
    let text = "<<'EOF'\r\n*** Begin Patch\r\n*** Add File: a\r\n+x\r\n*** End Patch\r\nEOF\r\n";
    let p = parse(text).unwrap();
    assert_eq!(
        p.ops,
        vec![PatchOp::Add {
            path: "a".into(),
            contents: "x\n".into()
        }]
    );
}

#[test]
fn a_unified_diff_range_is_not_taken_for_context() {
    let p = parse(&patch(
        "*** Update File: a\n@@ -3,2 +3,2 @@ fn main()\n-x\n+y\n@@ -9 +9 @@\n-z\n+w\n",
    ))
    .unwrap();
    let PatchOp::Update { chunks, .. } = &p.ops[0] else {
        panic!("an update")
    };
    assert_eq!(chunks[0].context.as_deref(), Some("fn main()"));
    assert_eq!(chunks[1].context, None);
    // A context line that only looks a little like a range is kept as written.
    let p = parse(&patch("*** Update File: a\n@@ -x +y @@\n-z\n")).unwrap();
    let PatchOp::Update { chunks, .. } = &p.ops[0] else {
        panic!("an update")
    };
    assert_eq!(chunks[0].context.as_deref(), Some("-x +y @@"));
}

#[test]
fn each_malformed_patch_gets_its_own_error() {
    type Expect = fn(&ParseError) -> bool;
    let cases: Vec<(String, Expect)> = vec![
        ("*** Add File: a\n+x\n*** End Patch".into(), |e| {
            *e == ParseError::NoBegin
        }),
        ("*** Begin Patch\n*** Add File: a\n+x\n".into(), |e| {
            *e == ParseError::NoEnd
        }),
        (patch(""), |e| *e == ParseError::Empty),
        (patch("*** Frobnicate File: a\n"), |e| {
            matches!(e, ParseError::ExpectedHeader { line: 2, .. })
        }),
        (patch("*** Add File:   \n"), |e| {
            matches!(e, ParseError::NoPath { line: 2, .. })
        }),
        (patch("*** Add File: a\n+x\ny\n"), |e| {
            matches!(e, ParseError::AddLine { line: 4, .. })
        }),
        (patch("*** Update File: a\n@@\n*x\n"), |e| {
            matches!(e, ParseError::UpdateLine { line: 4, .. })
        }),
        (patch("*** Update File: a\n@@ f\n@@\n-x\n"), |e| {
            matches!(e, ParseError::EmptyChunk { line: 3, .. })
        }),
        (patch("*** Update File: a\n"), |e| {
            *e == ParseError::EmptyUpdate("a".into())
        }),
        (patch("*** Delete File: a\n*** Add File: a\n+x\n"), |e| {
            *e == ParseError::Duplicate("a".into())
        }),
        (
            patch("*** Update File: a\n*** Move to: b\n*** Add File: b\n"),
            |e| *e == ParseError::Duplicate("b".into()),
        ),
    ];
    for (text, expected) in cases {
        let err = parse(&text).expect_err(&text);
        assert!(expected(&err), "{text:?} gave {err:?}");
        assert!(!err.to_string().is_empty());
    }
}

#[test]
fn a_pure_move_parses_without_chunks() {
    let p = parse(&patch("*** Update File: a\n*** Move to: b\n")).unwrap();
    assert_eq!(
        p.ops,
        vec![PatchOp::Update {
            path: "a".into(),
            move_to: Some("b".into()),
            chunks: vec![]
        }]
    );
}

#[test]
fn seeking_tries_each_level_in_turn() {
    let lines = ["fn a() {", "    let s = “x” – 1;  ", "}"];
    let at = |p: &[&str]| {
        let p: Vec<String> = p.iter().map(|s| s.to_string()).collect();
        seek::seek(&lines, &p, 0, false)
    };
    assert_eq!(at(&["fn a() {"]), Some((0, Fuzz::Exact)));
    assert_eq!(
        at(&["    let s = “x” – 1;"]),
        Some((1, Fuzz::TrailingWhitespace))
    );
    assert_eq!(at(&["let s = “x” – 1;"]), Some((1, Fuzz::Trimmed)));
    assert_eq!(at(&["let s = \"x\" - 1;"]), Some((1, Fuzz::Punctuation)));
    assert_eq!(at(&["let s = 'x' - 1;"]), None, "quotes keep their kind");
    assert_eq!(at(&["}", "extra"]), None);
}

#[test]
fn end_of_file_takes_only_the_match_that_ends_the_file() {
    let lines = ["x", "y", "x"];
    let p = vec!["x".to_string()];
    assert_eq!(seek::seek(&lines, &p, 0, false), Some((0, Fuzz::Exact)));
    assert_eq!(seek::seek(&lines, &p, 0, true), Some((2, Fuzz::Exact)));
    assert_eq!(seek::seek(&lines, &["y".to_string()], 0, true), None);
}

#[test]
fn chunks_apply_in_order_and_context_picks_the_place() {
    let text = "fn a() {\n    1\n}\nfn b() {\n    1\n}\n";
    let out = apply_chunks(
        "f.rs",
        text,
        &[chunk(Some("fn b() {"), &["    1"], &["    2"])],
    )
    .unwrap();
    assert_eq!(out.text, "fn a() {\n    1\n}\nfn b() {\n    2\n}\n");
    assert_eq!(out.loosest, Fuzz::Exact);

    let out = apply_chunks(
        "f.rs",
        text,
        &[
            chunk(None, &["    1"], &["    A"]),
            chunk(None, &["    1"], &["    B"]),
        ],
    )
    .unwrap();
    assert_eq!(out.text, "fn a() {\n    A\n}\nfn b() {\n    B\n}\n");
}

#[test]
fn a_chunk_must_come_after_the_one_before_it() {
    let text = "one\ntwo\nthree\n";
    let err = apply_chunks(
        "f",
        text,
        &[
            chunk(None, &["three"], &["3"]),
            chunk(None, &["one"], &["1"]),
        ],
    )
    .unwrap_err();
    assert!(
        err.contains("chunk 2 of f") && err.contains("after line 3"),
        "{err}"
    );
}

#[test]
fn a_pure_addition_goes_after_its_context_line_or_at_the_end() {
    let text = "a\nb\nc\n";
    let out = apply_chunks("f", text, &[chunk(Some("a"), &[], &["a2"])]).unwrap();
    assert_eq!(out.text, "a\na2\nb\nc\n");
    let out = apply_chunks("f", text, &[chunk(None, &[], &["d"])]).unwrap();
    assert_eq!(out.text, "a\nb\nc\nd\n");
}

#[test]
fn line_ends_and_the_final_newline_are_kept() {
    let out = apply_chunks("f", "a\r\nb\r\n", &[chunk(None, &["b"], &["B", "C"])]).unwrap();
    assert_eq!(out.text, "a\r\nB\r\nC\r\n");
    let out = apply_chunks("f", "a\nb", &[chunk(None, &["b"], &["B"])]).unwrap();
    assert_eq!(out.text, "a\nB");
}

#[test]
fn a_trailing_empty_line_in_a_chunk_may_stand_for_the_final_newline() {
    let out = apply_chunks("f", "a\nb\n", &[chunk(None, &["b", ""], &["B", ""])]).unwrap();
    assert_eq!(out.text, "a\nB\n");
}

#[test]
fn missing_lines_and_a_missing_context_are_explained() {
    let err = apply_chunks("f", "a\n", &[chunk(None, &["zzz"], &["y"])]).unwrap_err();
    assert!(err.contains("chunk 1 of f") && err.contains("zzz"), "{err}");
    let err = apply_chunks("f", "a\n", &[chunk(Some("fn nope"), &["a"], &["b"])]).unwrap_err();
    assert!(err.contains("`fn nope` is not in the file"), "{err}");
}

#[test]
fn loose_matches_are_reported_and_the_loosest_wins() {
    let out = apply_chunks(
        "f",
        "  x  \ny\n",
        &[chunk(None, &["x"], &["X"]), chunk(None, &["y"], &["Y"])],
    )
    .unwrap();
    assert_eq!(out.text, "X\nY\n");
    assert_eq!(out.loosest, Fuzz::Trimmed);
}

/// A patch chunk for each hunk of Loom's own diff (its context, removed and added lines).
fn chunks_of(old: &str, new: &str) -> Vec<Chunk> {
    FileDiff::compute(old, new)
        .hunks
        .iter()
        .map(|h| {
            let mut c = Chunk::default();
            for l in &h.lines {
                let text = l.text().to_string();
                match l.kind {
                    DiffKind::Context => {
                        c.old_lines.push(text.clone());
                        c.new_lines.push(text);
                        c.kinds.push(LineKind::Context);
                    }
                    DiffKind::Removed => {
                        c.old_lines.push(text);
                        c.kinds.push(LineKind::Removed);
                    }
                    DiffKind::Added => {
                        c.new_lines.push(text);
                        c.kinds.push(LineKind::Added);
                    }
                }
            }
            c.end_of_file = h.old_start + h.old_len > old.lines().count();
            c
        })
        .collect()
}

proptest! {
    /// Invariant: a patch made of a diff's hunks, applied to the old text, gives the new
    /// text exactly (lines drawn from a small alphabet, so repeats and ambiguity are common).
    #[test]
    fn a_patch_of_a_diff_reproduces_the_new_text(
        old in prop::collection::vec("[abc]{0,2}", 1..30),
        new in prop::collection::vec("[abc]{0,2}", 1..30),
    ) {
        let old = old.join("\n") + "\n";
        let new = new.join("\n") + "\n";
        let chunks = chunks_of(&old, &new);
        prop_assume!(chunks.iter().all(|c| !c.old_lines.is_empty()));
        let out = apply_chunks("f", &old, &chunks).map_err(TestCaseError::fail)?;
        prop_assert_eq!(out.text, new);
    }

    /// Invariant: the parser never panics, whatever it is given.
    #[test]
    fn parsing_never_panics(body in "(\\*\\*\\* (Add|Update|Delete) File: [a-c]\n|\\*\\*\\* Move to: [a-c]\n|@@[ a-c]*\n|[ +\\-][a-c]*\n|\\*\\*\\* End of File\n){0,12}") {
        let _ = parse(&patch(&body));
    }
}

/// Review finding: a context line that looks like a file header (` *** Delete File: x`,
/// e.g. in a patch to this very parser's tests) started a real deletion.
#[test]
fn a_context_line_that_looks_like_a_header_stays_context() {
    let p = parse(&patch(
        "*** Update File: README.md\n@@\n-old\n+new\n *** Delete File: src/main.rs\n",
    ))
    .unwrap();
    assert_eq!(p.ops.len(), 1, "{:?}", p.ops);
    let PatchOp::Update { chunks, .. } = &p.ops[0] else {
        panic!("an update")
    };
    assert_eq!(chunks[0].old_lines, ["old", "*** Delete File: src/main.rs"]);
}

/// Review finding: an `@@` behind a multi-byte space panicked (byte slicing), which hung
/// the turn; ` @@` and ` *** End of File` inside a chunk are context lines.
#[test]
fn markers_are_recognised_only_where_they_start_the_line() {
    let err = parse(&patch("*** Update File: f\n\u{3000}@@\n-c\n")).unwrap_err();
    assert!(
        matches!(err, ParseError::UpdateLine { line: 3, .. }),
        "{err:?}"
    );
    let p = parse(&patch(
        "*** Update File: f\n@@\n @@\n *** End of File\n-x\n+y\n",
    ))
    .unwrap();
    let PatchOp::Update { chunks, .. } = &p.ops[0] else {
        panic!("an update")
    };
    assert_eq!(chunks.len(), 1);
    assert_eq!(chunks[0].old_lines, ["@@", "*** End of File", "x"]);
    assert!(!chunks[0].end_of_file);
}

/// Review finding: a blank line before the first `@@` became a chunk of one empty line,
/// which pushed the real chunk past the file's first blank line onto the wrong function.
#[test]
fn blank_lines_between_chunks_are_not_context() {
    let p = parse(&patch(
        "*** Update File: f\n\n@@\n-    return 1\n+    return 2\n\n@@\n-x\n+y\n",
    ))
    .unwrap();
    let PatchOp::Update { chunks, .. } = &p.ops[0] else {
        panic!("an update")
    };
    assert_eq!(chunks.len(), 2, "{chunks:?}");
    let text = "def a():\n    return 1\n\ndef b():\n    return 1\nx\n";
    let out = apply_chunks("f", text, chunks).unwrap();
    assert_eq!(
        out.text,
        "def a():\n    return 2\n\ndef b():\n    return 1\ny\n"
    );
}

/// Review finding: a context line matched loosely was replaced by the patch's version (it
/// lost its indentation); it keeps the file's own text.
#[test]
fn a_loosely_matched_context_line_keeps_the_files_text() {
    let p = parse(&patch("*** Update File: f\n@@\n foo()\n-bar()\n+baz()\n")).unwrap();
    let PatchOp::Update { chunks, .. } = &p.ops[0] else {
        panic!("an update")
    };
    let out = apply_chunks("f", "def f():\n    foo()\n    bar()\n", chunks).unwrap();
    assert_eq!(out.text, "def f():\n    foo()\nbaz()\n");
    assert_eq!(out.loosest, Fuzz::Trimmed);
}

/// Review finding: one CRLF anywhere turned the whole file into CRLF.
#[test]
fn a_file_with_mixed_line_ends_keeps_each_lines_own() {
    let p = parse(&patch("*** Update File: f\n@@\n c\n-d\n+D\n")).unwrap();
    let PatchOp::Update { chunks, .. } = &p.ops[0] else {
        panic!("an update")
    };
    let out = apply_chunks("f", "a\r\nb\nc\nd\n", chunks).unwrap();
    assert_eq!(out.text, "a\r\nb\nc\nD\n");
}

/// Review finding: a chunk marked `*** End of File` matched anywhere when it did not match
/// at the end; like Codex, it matches only at the end.
#[test]
fn end_of_file_is_enforced() {
    let p = parse(&patch("*** Update File: f\n@@\n-a\n+A\n*** End of File\n")).unwrap();
    let PatchOp::Update { chunks, .. } = &p.ops[0] else {
        panic!("an update")
    };
    assert!(apply_chunks("f", "a\nb\nc\n", chunks).is_err());
    assert_eq!(apply_chunks("f", "b\na\n", chunks).unwrap().text, "b\nA\n");
}
