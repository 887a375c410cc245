//! The proof that every substitution in a command line was seen.
//!
//! tree-sitter-bash does not parse everything a shell expands: a backtick in an unquoted
//! heredoc's text (`cat <<EOF` … `` `rm -rf *` `` … `EOF`), one inside `${x:-…}` there, or
//! one inside `$[…]` stay plain text to it, and a backslash-escaped backtick inside
//! backticks is a nested substitution to the shell but a literal to the parser. A read-only
//! verdict that missed one of those would run a command nobody judged, with no snapshot.
//!
//! So after parsing, the raw text is scanned for every place a shell could start a command
//! substitution (`` ` ``, `$(`, `<(`, `>(`), skipping only text the parser showed to be
//! literal (single quotes, `$'…'`, comments, quoted heredocs) or escaped. Each such place
//! must be the start of a substitution the parser produced *and* the walk of the tree
//! turned into commands (a parser node the walk skipped — in an array subscript, after
//! `10#`, on a function's redirect — proves nothing); one that is not is **unseen**: its
//! text is cut out and judged as a command on its own, and when it cannot be cut out the
//! line is unproven. Backtick substitutions that hold backslashes are judged once more
//! with the backslashes removed, as the shell reads them.

use std::ops::Range;

use tree_sitter::{Node, Parser};

/// What the scan found that the parser's commands do not cover.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Shell text to judge on its own, each a command line (`: $(…)`), with where it was.
    pub unseen: Vec<Unseen>,
    /// Substitutions found in the raw text whose end could not be found, by byte offset:
    /// nothing about what they run can be shown.
    pub unreadable: Vec<usize>,
    /// The contents of backtick substitutions as the shell reads them (`\``, `\\` and `\$`
    /// unescaped), where that differs from what the parser saw.
    pub backticks: Vec<String>,
    /// Whether finding the ends of `${ …}` substitutions took more tries than Loom makes
    /// ([`MAX_FUNSUB_PROBES`]): the line is refused as too much to analyse.
    pub too_many: bool,
}

/// Most parses one scan makes to find where `${ …}` substitutions end.
pub const MAX_FUNSUB_PROBES: usize = 64;

/// An expansion the parser did not produce, cut out of the raw text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unseen {
    /// Byte offset of its first character in the command line.
    pub at: usize,
    /// A command line that runs it (`: ` and the substitution), for the classifier.
    pub command: String,
    /// The substitution as written.
    pub text: String,
}

/// The spans the parser classified, gathered in one walk of the tree.
#[derive(Default)]
struct Spans {
    /// Text no shell expands: `'…'`, `$'…'`, comments, bodies of quoted heredocs.
    literal: Vec<Range<usize>>,
    /// Text expanded like a double-quoted string (no process substitution there).
    quoted: Vec<Range<usize>>,
    /// Bodies of unquoted heredocs: where an unseen substitution's text ends at the latest.
    heredocs: Vec<Range<usize>>,
    /// The substitutions the parser produced.
    parsed: Vec<Range<usize>>,
    /// Raw contents of backtick substitutions that hold a backslash.
    escaped_backticks: Vec<String>,
    /// Literal text shaped like an array subscript holding a substitution, with where.
    subscripts: Vec<(usize, String)>,
}

/// Scan `src`, parsed as `root`, for substitutions the walk did not turn into commands;
/// `walked` holds the byte offsets of those it did.
pub fn check(src: &str, root: Node<'_>, walked: &[usize]) -> Coverage {
    let spans = collect(src, root);
    let mut out = Coverage {
        backticks: spans
            .escaped_backticks
            .iter()
            .map(|raw| unescape_backtick(raw))
            .filter(|s| !s.trim().is_empty())
            .collect(),
        ..Coverage::default()
    };
    for (at, text) in &spans.subscripts {
        out.unseen.push(Unseen {
            at: *at,
            command: format!(": {text}"),
            text: text.clone(),
        });
    }
    let bytes = src.as_bytes();
    let mut probes = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        if let Some(r) = spans.literal.iter().find(|r| r.contains(&i)) {
            i = r.end.max(i + 1);
            continue;
        }
        if !opens_substitution(bytes, i, &spans) || escaped(bytes, i) {
            i += 1;
            continue;
        }
        if let Some(node) = spans.parsed.iter().find(|r| r.start == i) {
            if !walked.contains(&i) {
                let text = src[node.clone()].to_string();
                out.unseen.push(Unseen {
                    at: i,
                    command: format!(": {text}"),
                    text,
                });
                i = node.end.max(i + 1);
                continue;
            }
            i += 1;
            continue;
        }
        if closes_walked_backtick(src, i, &spans, walked) {
            i += 1;
            continue;
        }
        match unparsed_at(src, i, &spans, &mut probes, &mut out) {
            Some(next) => i = next,
            None => {
                out.too_many = true;
                return out;
            }
        }
    }
    out
}

/// Whether a substitution opens at byte `i`: `` ` ``, `$(`, `${ ` (a function
/// substitution), or `<(`/`>(` outside double quotes.
fn opens_substitution(bytes: &[u8], i: usize, spans: &Spans) -> bool {
    match bytes[i] {
        b'`' => true,
        b'$' => {
            bytes.get(i + 1) == Some(&b'(')
                || (bytes.get(i + 1) == Some(&b'{')
                    && matches!(bytes.get(i + 2), Some(b' ' | b'\t' | b'\n' | b'|')))
        }
        b'<' | b'>' => {
            bytes.get(i + 1) == Some(&b'(') && !spans.quoted.iter().any(|r| r.contains(&i))
        }
        _ => false,
    }
}

/// Whether the backtick at `i` closes a backtick substitution the walk turned into
/// commands.
fn closes_walked_backtick(src: &str, i: usize, spans: &Spans, walked: &[usize]) -> bool {
    src.as_bytes()[i] == b'`'
        && spans
            .parsed
            .iter()
            .any(|r| r.end == i + 1 && src[r.clone()].starts_with('`') && walked.contains(&r.start))
}

/// A substitution at `i` the parser did not produce: cut out of the raw text and pushed
/// to `out` as unseen (or its offset as unreadable); returns where the scan goes on, or
/// `None` once the probes for function substitutions are spent.
fn unparsed_at(
    src: &str,
    i: usize,
    spans: &Spans,
    probes: &mut usize,
    out: &mut Coverage,
) -> Option<usize> {
    let end = spans
        .heredocs
        .iter()
        .find(|r| r.contains(&i))
        .map_or(src.len(), |r| r.end);
    let text = &src[i..end];
    let cut = if text.starts_with("${") {
        cut_out_funsub(text, probes)
    } else {
        cut_out(text)
    };
    if *probes > MAX_FUNSUB_PROBES {
        return None;
    }
    match cut {
        Some(text) => {
            let next = i + text.len().max(1);
            let command = match funsub_body(&text) {
                Some(body) => body.to_string(),
                None => format!(": {text}"),
            };
            out.unseen.push(Unseen {
                at: i,
                command,
                text,
            });
            Some(next)
        }
        None => {
            out.unreadable.push(i);
            Some(i + 1)
        }
    }
}

/// Whether the byte at `i` is escaped by an odd run of backslashes before it.
fn escaped(bytes: &[u8], i: usize) -> bool {
    bytes[..i].iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 1
}

/// Walk the whole tree once (iteratively: scripts may nest deeply) and sort its spans.
fn collect(src: &str, root: Node<'_>) -> Spans {
    let mut spans = Spans::default();
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        let range = node.start_byte()..node.end_byte();
        let mut descend = true;
        match node.kind() {
            "raw_string" | "ansi_c_string" | "comment" => {
                if node.kind() != "comment" {
                    let raw = &src[range.clone()];
                    let text = match node.kind() {
                        "ansi_c_string" => super::parse::ansi_c(
                            raw.strip_prefix("$'")
                                .and_then(|s| s.strip_suffix('\''))
                                .unwrap_or(raw),
                        ),
                        _ => raw.trim_matches('\'').to_string(),
                    };
                    if subscript_substitution(&text) {
                        spans.subscripts.push((range.start, text));
                    }
                }
                spans.literal.push(range);
                descend = false;
            }
            "word" | "string_content" => {
                let text = unescape_backslashes(&src[range.clone()]);
                if subscript_substitution(&text) {
                    spans.subscripts.push((range.start, text));
                }
            }
            "string" | "translated_string" => spans.quoted.push(range),
            "heredoc_body" => {
                if heredoc_quoted(src, node) {
                    spans.literal.push(range);
                    descend = false;
                } else {
                    spans.quoted.push(range.clone());
                    spans.heredocs.push(range);
                }
            }
            "command_substitution" | "process_substitution" | "arithmetic_expansion" => {
                spans.parsed.push(range.clone());
                let text = &src[range.clone()];
                if let Some(inner) = text.strip_prefix('`') {
                    let inner = inner.strip_suffix('`').unwrap_or(inner);
                    if inner.contains('\\') {
                        spans.escaped_backticks.push(inner.to_string());
                    }
                }
            }
            _ => {}
        }
        if descend && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return spans;
            }
        }
    }
}

/// Whether literal text looks like an array element whose subscript holds a command
/// substitution (`x[$(cmd)]`, ``x[`cmd`]``): bash evaluates such text as arithmetic in many
/// places without `eval` (`(( x ))`, `let`, `test -v`, `[[ $v -eq 1 ]]`, `printf -v`,
/// `read`), and runs the substitution.
fn subscript_substitution(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut open: Option<usize> = None;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'[' if i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_') => {
                open = Some(i);
            }
            b']' => open = None,
            b'`' if open.is_some() => return true,
            b'$' if open.is_some() && bytes.get(i + 1) == Some(&b'(') => return true,
            _ => {}
        }
    }
    false
}

/// Text with every backslash escape removed (`\$` is `$`).
fn unescape_backslashes(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether a heredoc body belongs to a redirect whose delimiter is quoted (`<<'EOF'`,
/// `<<"EOF"`, `<<\EOF`), so its text is taken literally.
fn heredoc_quoted(src: &str, body: Node<'_>) -> bool {
    let Some(redirect) = body.parent() else {
        return false;
    };
    let mut cursor = redirect.walk();
    let start = redirect
        .named_children(&mut cursor)
        .find(|c| c.kind() == "heredoc_start");
    start.is_some_and(|s| {
        src.get(s.start_byte()..s.end_byte())
            .is_some_and(|t| t.contains(['\'', '"', '\\']))
    })
}

/// The substitution that starts `text` (`` `…` ``, `$(…)`, `$((…))`, `<(…)`), cut out
/// with the parser's help: `: TEXT` is parsed, and the node that starts right after `: `
/// is the substitution. `None` when there is no such node (an unterminated one).
fn cut_out(text: &str) -> Option<String> {
    if let Some(rest) = text.strip_prefix('`') {
        let mut end = None;
        let bytes = rest.as_bytes();
        for (k, &b) in bytes.iter().enumerate() {
            if b == b'`' && !escaped(bytes, k) {
                end = Some(k);
                break;
            }
        }
        return end.map(|k| text[..k + 2].to_string());
    }
    let probe = format!(": {text}");
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .ok()?;
    let tree = parser.parse(&probe, None)?;
    let mut cursor = tree.root_node().walk();
    loop {
        let node = cursor.node();
        if node.start_byte() == 2
            && matches!(
                node.kind(),
                "command_substitution" | "process_substitution" | "arithmetic_expansion"
            )
            && !node.has_error()
        {
            return probe.get(2..node.end_byte()).map(str::to_string);
        }
        if node.start_byte() > 2 {
            return None;
        }
        if !cursor.goto_first_child() && !next(&mut cursor) {
            return None;
        }
    }
}

/// A bash 5.3 command substitution run in the current shell (`${ cmd; }`, `${| cmd; }`),
/// which tree-sitter-bash does not know: it ends at the first `}` before which its text
/// parses as commands (tree-sitter alone: the commands are judged once cut out). `None`
/// when there is none (then the line is unproven). Each try is counted in `probes`.
fn cut_out_funsub(text: &str, probes: &mut usize) -> Option<String> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .ok()?;
    for (k, _) in text.match_indices('}').skip_while(|(k, _)| *k < 3) {
        let candidate = &text[..=k];
        let body = funsub_body(candidate)?;
        if body.trim().is_empty() {
            continue;
        }
        *probes += 1;
        if *probes > MAX_FUNSUB_PROBES {
            return None;
        }
        let tree = parser.parse(body, None)?;
        if !tree.root_node().has_error() {
            return Some(candidate.to_string());
        }
    }
    None
}

/// The commands inside `${ …}` / `${| …}`, or `None` for any other substitution.
fn funsub_body(text: &str) -> Option<&str> {
    let inner = text.strip_prefix("${")?.strip_suffix('}')?;
    Some(inner.strip_prefix('|').unwrap_or(inner))
}

/// Move to the next node in document order after the current subtree.
fn next(cursor: &mut tree_sitter::TreeCursor<'_>) -> bool {
    loop {
        if cursor.goto_next_sibling() {
            return true;
        }
        if !cursor.goto_parent() {
            return false;
        }
    }
}

/// Inside backticks the shell removes the backslash before `` ` ``, `\` and `$` before it
/// parses the command; that is the command that runs.
pub fn unescape_backtick(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(&n) = chars.peek()
            && matches!(n, '`' | '\\' | '$')
        {
            out.push(n);
            chars.next();
            continue;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coverage(src: &str) -> Coverage {
        super::super::parse::parse(src).unwrap().coverage
    }

    fn unseen(src: &str) -> Vec<String> {
        coverage(src).unseen.into_iter().map(|u| u.text).collect()
    }

    #[test]
    fn parsed_substitutions_are_covered() {
        for src in [
            "echo $(ls) `pwd` <(id) >(cat) $((1+2))",
            "cat <<EOF\n$(date)\nEOF",
            "echo '`rm -rf *`' $'`x`' # `rm`",
            "cat <<'EOF'\n`rm -rf *`\nEOF",
            "cat <<\\EOF\n$(rm -rf *)\nEOF",
            "echo \\`rm\\` \\$(x)",
            "echo \"a<(b)\"",
        ] {
            let c = coverage(src);
            assert!(
                c.unseen.is_empty() && c.unreadable.is_empty(),
                "{src}: {c:?}"
            );
        }
    }

    /// The issue-23 heredoc: a backtick in an unquoted heredoc's text is found and cut out.
    #[test]
    fn backticks_in_an_unquoted_heredoc_are_unseen_by_the_parser_and_cut_out() {
        assert_eq!(unseen("cat <<EOF\n`rm -rf *`\nEOF"), vec!["`rm -rf *`"]);
        assert_eq!(
            unseen("cat <<-EOF\n\tit's `cat ~/.ssh/id_rsa`\n\tEOF"),
            vec!["`cat ~/.ssh/id_rsa`"]
        );
        assert_eq!(
            unseen("cat <<EOF\n${x:-`rm -rf *`} $[1+`id`]\nEOF"),
            vec!["`rm -rf *`", "`id`"]
        );
        assert_eq!(unseen("echo \"$(date) `rm -rf *`\""), vec!["`rm -rf *`"]);
    }

    /// Round 2: bash 5.3 runs `${ cmd; }` and `${| cmd; }` as command substitutions;
    /// tree-sitter-bash reads them as a broken expansion, so they are cut out here.
    #[test]
    fn bash_53_funsubs_are_cut_out_as_commands() {
        let found = |src: &str| {
            coverage(src)
                .unseen
                .into_iter()
                .map(|u| u.command)
                .collect::<Vec<_>>()
        };
        assert_eq!(found("echo ${ rm -rf *; }"), vec![" rm -rf *; "]);
        assert_eq!(found("echo \"${| rm -rf *; }\""), vec![" rm -rf *; "]);
        assert_eq!(found("echo ${ echo ${x}; }"), vec![" echo ${x}; "]);
        assert_eq!(
            found("cat <<EOF\n${\trm -rf *\n}\nEOF"),
            vec!["\trm -rf *\n"]
        );
        assert!(found("echo '${ rm -rf *; }' ${x} ${x:-y}").is_empty());
    }

    #[test]
    fn an_unterminated_substitution_is_unreadable() {
        let c = coverage("cat <<EOF\n`rm -rf *\nEOF");
        assert_eq!(c.unreadable.len(), 1, "{c:?}");
    }

    #[test]
    fn escaped_backticks_inside_backticks_are_read_as_the_shell_does() {
        let c = coverage("echo `echo \\`rm -rf *\\``");
        assert_eq!(c.backticks, vec!["echo `rm -rf *`"]);
    }
}
