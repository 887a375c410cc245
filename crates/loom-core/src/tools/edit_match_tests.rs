//! Tests of exact and whitespace-tolerant matching (unit cases and proptest invariants).

use super::*;
use proptest::prelude::*;

fn edit(old: &str, new: &str) -> Edit {
    Edit {
        old_str: old.into(),
        new_str: new.into(),
        replace_all: false,
    }
}

fn one(content: &str, old: &str, new: &str) -> Result<EditOutcome, String> {
    apply_edits(content, &[edit(old, new)])
}

#[test]
fn exact_single_match() {
    let out = one("fn a() {}\nfn b() {}\n", "fn b", "fn c").unwrap();
    assert_eq!(out.content, "fn a() {}\nfn c() {}\n");
    assert!(out.notes.is_empty());
}

#[test]
fn several_matches_need_replace_all() {
    let err = one("x\ny\nx\n", "x", "z").unwrap_err();
    assert!(err.contains("matches 2 times (at lines 1, 3)"), "{err}");
    let all = apply_edits(
        "x\ny\nx\n",
        &[Edit {
            replace_all: true,
            ..edit("x", "z")
        }],
    )
    .unwrap();
    assert_eq!(all.content, "z\ny\nz\n");
    assert_eq!(all.replacements, 2);
}

#[test]
fn edits_apply_in_order_all_or_nothing() {
    let edits = [edit("a", "b"), edit("b\n", "c\n")];
    assert_eq!(apply_edits("a\n", &edits).unwrap().content, "c\n");
    let bad = [edit("a", "b"), edit("zzz", "y")];
    let err = apply_edits("a\n", &bad).unwrap_err();
    assert!(
        err.starts_with("edit 2 of 2: old_str was not found"),
        "{err}"
    );
    assert!(err.contains("nothing was written"));
}

#[test]
fn empty_old_creates_or_fills_but_never_clobbers() {
    assert_eq!(one("", "", "hello\n").unwrap().content, "hello\n");
    let err = one("data\n", "", "x").unwrap_err();
    assert!(err.contains("use write_file"), "{err}");
}

#[test]
fn identical_old_and_new_is_refused() {
    assert!(one("a\n", "a", "a").unwrap_err().contains("identical"));
}

#[test]
fn crlf_files_stay_crlf() {
    let content = "one\r\ntwo\r\nthree\r\n";
    let out = one(content, "one\ntwo\n", "uno\ndos\n").unwrap();
    assert_eq!(out.content, "uno\r\ndos\r\nthree\r\n");
    let out = one(content, "two", "2\nextra").unwrap();
    assert_eq!(out.content, "one\r\n2\r\nextra\r\nthree\r\n");
}

#[test]
fn tolerant_match_reindents_spaces_to_tabs() {
    let content = "func main() {\n\tif x {\n\t\treturn 1\n\t}\n}\n";
    let old = "    if x {\n        return 1\n    }";
    let new = "    if x {\n        return 2\n    }";
    let out = one(content, old, new).unwrap();
    assert_eq!(
        out.content,
        "func main() {\n\tif x {\n\t\treturn 2\n\t}\n}\n"
    );
    assert!(
        out.notes[0].contains("whitespace-tolerant"),
        "{:?}",
        out.notes
    );
    assert!(
        out.notes[0].contains("spaces to the file's tabs"),
        "{:?}",
        out.notes
    );
}

#[test]
fn tolerant_match_shifts_base_indent() {
    let content = "class A:\n    def f(self):\n        return 1\n";
    let old = "def f(self):\n    return 1\n";
    let new = "def f(self):\n    x = 2\n    return x\n";
    let out = one(content, old, new).unwrap();
    assert_eq!(
        out.content,
        "class A:\n    def f(self):\n        x = 2\n        return x\n"
    );
}

#[test]
fn tolerant_match_ignores_trailing_spaces_without_reindenting() {
    let content = "a = 1   \nb = 2\n";
    let out = one(content, "a = 1\nb = 2", "a = 10\nb = 20").unwrap();
    assert_eq!(out.content, "a = 10\nb = 20\n");
    assert!(out.notes[0].contains("only trailing whitespace"));
}

#[test]
fn tolerant_match_refuses_ambiguity() {
    let content = "  x()\n\n    x()\n";
    let err = one(content, "x()   \n", "y()\n").unwrap_err();
    assert!(err.contains("matches 2 regions (lines 1-1, 3-3)"), "{err}");
}

#[test]
fn tolerant_match_in_crlf_file() {
    let content = "\tone\r\n\ttwo\r\n";
    let out = one(content, "one\ntwo\n", "uno\ndos\n").unwrap();
    assert_eq!(out.content, "\tuno\r\n\tdos\r\n");
}

#[test]
fn tolerant_delete_removes_whole_lines() {
    let content = "keep\n  drop me\nkeep too\n";
    let out = one(content, "    drop me\n", "").unwrap();
    assert_eq!(out.content, "keep\nkeep too\n");
}

#[test]
fn not_found_shows_closest_region_and_text_difference() {
    let content = "fn main() {\n    let x = 1;\n    println!(\"{x}\");\n}\n";
    let err = one(content, "    let x = 2;\n    println!(\"{x}\");", "z").unwrap_err();
    assert!(err.contains("Closest region (lines 2-3)"), "{err}");
    assert!(err.contains("line 2: text differs"), "{err}");
    assert!(err.contains("\"let x = 1;\""), "{err}");
}

#[test]
fn explains_tabs_vs_spaces_and_trailing() {
    let lines_content = "\tfoo();  \n\tbar();\n";
    let ls = file_lines(lines_content);
    let d = explain(lines_content, &ls, &["    foo();", "\tbar();"], 0, false);
    assert!(
        d[0].contains("tabs vs spaces: the file has 1 tab, old_str has 4 spaces"),
        "{d:?}"
    );
    assert!(
        d[1].contains("trailing whitespace: the file has 2 spaces"),
        "{d:?}"
    );
}

#[test]
fn explains_crlf() {
    let content = "a\r\nb\r\n";
    let ls = file_lines(content);
    let d = explain(content, &ls, &["a", "c"], 0, false);
    assert!(d.iter().any(|x| x.contains("CRLF")), "{d:?}");
    let lf = "a\nb\n";
    let d = explain(lf, &file_lines(lf), &["a", "c"], 0, true);
    assert!(d.iter().any(|x| x.contains("CRLF")), "{d:?}");
}

#[test]
fn empty_file_not_found_message() {
    let err = one("", "x", "y").unwrap_err();
    assert!(err.contains("The file is empty"), "{err}");
}

#[test]
fn unicode_is_handled_by_characters() {
    let out = one("héllo 日本 wörld\n", "日本", "中文").unwrap();
    assert_eq!(out.content, "héllo 中文 wörld\n");
}

fn line_strategy() -> impl Strategy<Value = String> {
    "[a-zé日 \t]{0,8}"
}

proptest! {
    // Invariant: an exact edit leaves every byte outside the replaced region identical,
    // and the byte count changes by exactly len(new) - len(old).
    #[test]
    fn outside_region_is_untouched(
        prefix in "[a-z\n日]{0,40}",
        suffix in "[a-z\n日]{0,40}",
        new in "[A-Zé\n]{0,20}",
    ) {
        let marker = "\u{1F980}UNIQUE\u{1F980}";
        let content = format!("{prefix}{marker}{suffix}");
        let out = one(&content, marker, &new).unwrap();
        prop_assert!(out.content.starts_with(&prefix));
        prop_assert!(out.content.ends_with(&suffix));
        prop_assert_eq!(out.content.len(), content.len() - marker.len() + new.len());
    }

    // Invariant: an edit followed by its inverse restores the original bytes (when the
    // replacement is itself unique in the result).
    #[test]
    fn edit_then_inverse_restores(
        lines in proptest::collection::vec(line_strategy(), 1..12),
        pick in 0usize..12,
    ) {
        let content = lines.join("\n") + "\n";
        let target = &lines[pick % lines.len()];
        prop_assume!(!target.is_empty() && content.matches(target.as_str()).count() == 1);
        let replacement = format!("<{target}>");
        prop_assume!(!content.contains(&replacement));
        let forward = one(&content, target, &replacement).unwrap();
        let back = one(&forward.content, &replacement, target).unwrap();
        prop_assert_eq!(back.content, content);
    }

    // Invariant: a tolerant match never applies when the whitespace-insensitive pattern
    // matches more than one region.
    #[test]
    fn tolerant_never_applies_ambiguous(indent_a in "[ \t]{0,4}", indent_b in "[ \t]{0,4}", body in "[a-z]{1,6}") {
        let content = format!("{indent_a}{body}\nmid\n{indent_b}{body}\n");
        let pattern = format!("  {body}  ");
        prop_assume!(!content.contains(&pattern));
        let result = one(&content, &pattern, "X");
        prop_assert!(result.is_err());
    }

    // Invariant: results are always valid text made of whole characters, whatever the
    // edits (Rust strings guarantee it; this guards the byte arithmetic from panicking).
    #[test]
    fn never_panics_on_unicode(
        content in "[a-zé日🎉 \t\r\n]{0,60}",
        old in "[a-zé日🎉 \t\r\n]{0,10}",
        new in "[a-zé日🎉 \n]{0,10}",
    ) {
        let _ = one(&content, &old, &new);
    }
}
