//! The other ways a shell may read the same command line.
//!
//! Loom parses with tree-sitter-bash, but `sh` is dash on Debian and bash elsewhere, and a
//! few features are read differently by the parser and by shells: a backslash-newline
//! inside a word (`r\<newline>m` is `rm` to every shell, two words to the parser) and brace
//! expansion (`{rm,-rf,*}` is `rm -rf *` to bash, a parse error to the parser). The
//! classifier judges every decoding these functions produce and keeps the worst, so a
//! disguise can make a command ask, never make it pass.

/// Text with the backslash escapes `printf`'s format, `printf %b` and `echo -e` (and dash's
/// plain `echo`) decode: `\n`, `\t` and the other letters, `\\`, `\'`, `\"`, octal
/// `\NNN`/`\0NNN` and hex `\xHH`; `\c` ends the output. An unknown escape stays as
/// written. So `printf '\162\155 -rf ~'` is judged as the `rm -rf ~` it prints.
pub fn decode_escapes(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let digits = |from: usize, max: usize, radix: u32| -> (u32, usize) {
        let mut value = 0u32;
        let mut n = 0;
        while n < max
            && let Some(d) = chars.get(from + n).and_then(|c| c.to_digit(radix))
        {
            value = value * radix + d;
            n += 1;
        }
        (value, n)
    };
    while i < chars.len() {
        let c = chars[i];
        if c != '\\' || i + 1 >= chars.len() {
            out.push(c);
            i += 1;
            continue;
        }
        let e = chars[i + 1];
        i += 2;
        let simple = match e {
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'e' | 'E' => Some('\u{1b}'),
            'f' => Some('\u{c}'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\u{b}'),
            '\\' | '\'' | '"' => Some(e),
            _ => None,
        };
        if let Some(s) = simple {
            out.push(s);
            continue;
        }
        let (value, used) = match e {
            'x' => digits(i, 2, 16),
            '0' => digits(i, 3, 8),
            '1'..='7' => {
                let (v, n) = digits(i - 1, 3, 8);
                i -= 1;
                (v, n)
            }
            'c' => return out,
            _ => (0, 0),
        };
        if used == 0 {
            out.push('\\');
            out.push(e);
            continue;
        }
        i += used;
        if let Some(ch) = char::from_u32(value) {
            out.push(ch);
        }
    }
    out
}

/// Most words one brace-expanded command line may grow to; beyond it the decoding is
/// abandoned and the command asks.
const MAX_BRACE_WORDS: usize = 256;

/// The source with every backslash-newline outside single quotes removed, as shells do
/// before they split words; `None` when there is none.
pub fn join_continuations(src: &str) -> Option<String> {
    if !src.contains("\\\n") {
        return None;
    }
    let mut out = String::with_capacity(src.len());
    let mut chars = src.chars().peekable();
    let mut single = false;
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                single = !single;
                out.push(c);
            }
            '\\' if !single => match chars.peek() {
                Some('\n') => {
                    chars.next();
                }
                Some(_) => {
                    out.push(c);
                    if let Some(n) = chars.next() {
                        out.push(n);
                    }
                }
                None => out.push(c),
            },
            _ => out.push(c),
        }
    }
    (out != src).then_some(out)
}

/// Whether a backslash-newline joins two halves of one word (`r\<newline>m`), as opposed
/// to continuing a long command line between words.
pub fn continuation_inside_word(src: &str) -> bool {
    let bytes = src.as_bytes();
    bytes.windows(2).enumerate().any(|(i, w)| {
        w == b"\\\n"
            && i > 0
            && !bytes[i - 1].is_ascii_whitespace()
            && bytes.get(i + 2).is_some_and(|b| !b.is_ascii_whitespace())
    })
}

/// The source with bash's brace expansion applied to every unquoted word that has one
/// (`{rm,-rf,*}` becomes `rm -rf *`, `a{b,c}` becomes `ab ac`); `None` when nothing
/// expands, or when the expansion would be too large to judge (the caller then asks).
pub fn expand_braces(src: &str) -> Option<Result<String, ()>> {
    let words = split_words(src);
    if !words.iter().any(|w| w.has_brace) {
        return None;
    }
    let mut out = String::with_capacity(src.len() * 2);
    let mut total = 0usize;
    for piece in &words {
        if piece.has_brace {
            let Some(expanded) = expand(&piece.chars) else {
                return Some(Err(()));
            };
            total += expanded.len();
            if total > MAX_BRACE_WORDS {
                return Some(Err(()));
            }
            let texts: Vec<String> = expanded
                .into_iter()
                .map(|w| w.into_iter().map(|(c, _)| c).collect())
                .collect();
            out.push_str(&texts.join(" "));
        } else {
            out.extend(piece.chars.iter().map(|(c, _)| *c));
        }
    }
    Some(Ok(out))
}

/// A run of the source: a word (with each character marked unquoted or not) or the text
/// between words.
struct Piece {
    chars: Vec<(char, bool)>,
    has_brace: bool,
}

fn split_words(src: &str) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut cur: Vec<(char, bool)> = Vec::new();
    let mut in_word = false;
    let (mut single, mut double, mut escaped) = (false, false, false);
    let flush = |cur: &mut Vec<(char, bool)>, pieces: &mut Vec<Piece>, word: bool| {
        if cur.is_empty() {
            return;
        }
        let chars = std::mem::take(cur);
        let has_brace = word && has_expandable_brace(&chars);
        pieces.push(Piece { chars, has_brace });
    };
    for c in src.chars() {
        let quoted = single || double || escaped;
        let separator =
            !quoted && (c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')' | '<' | '>'));
        if separator == in_word {
            flush(&mut cur, &mut pieces, in_word);
            in_word = !separator;
        }
        cur.push((c, !quoted && c != '\\' && c != '\'' && c != '"'));
        if escaped {
            escaped = false;
        } else if c == '\\' && !single {
            escaped = true;
        } else if c == '\'' && !double {
            single = !single;
        } else if c == '"' && !single {
            double = !double;
        }
    }
    flush(&mut cur, &mut pieces, in_word);
    pieces
}

/// The position of an unquoted `{` (not part of `${`) with a matching `}` and a comma at
/// its level, and the positions of those commas and the closing brace.
fn find_brace(chars: &[(char, bool)]) -> Option<(usize, Vec<usize>, usize)> {
    for open in 0..chars.len() {
        if chars[open] != ('{', true) || (open > 0 && chars[open - 1].0 == '$') {
            continue;
        }
        let mut depth = 0usize;
        let mut commas = Vec::new();
        for (k, &(c, unquoted)) in chars.iter().enumerate().skip(open + 1) {
            if !unquoted {
                continue;
            }
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    if commas.is_empty() {
                        break;
                    }
                    return Some((open, commas, k));
                }
                '}' => depth -= 1,
                ',' if depth == 0 => commas.push(k),
                _ => {}
            }
        }
    }
    None
}

fn has_expandable_brace(chars: &[(char, bool)]) -> bool {
    find_brace(chars).is_some()
}

/// Every word `chars` expands to, or `None` when there would be more than
/// [`MAX_BRACE_WORDS`].
fn expand(chars: &[(char, bool)]) -> Option<Vec<Vec<(char, bool)>>> {
    let Some((open, commas, close)) = find_brace(chars) else {
        return Some(vec![chars.to_vec()]);
    };
    let mut bounds = vec![open];
    bounds.extend(&commas);
    bounds.push(close);
    let mut out = Vec::new();
    for pair in bounds.windows(2) {
        let mut w = chars[..open].to_vec();
        w.extend_from_slice(&chars[pair[0] + 1..pair[1]]);
        w.extend_from_slice(&chars[close + 1..]);
        for e in expand(&w)? {
            if out.len() >= MAX_BRACE_WORDS {
                return None;
            }
            out.push(e);
        }
    }
    Some(out)
}

#[cfg(test)]
mod escape_tests {
    use super::decode_escapes;

    /// Round 2: `printf '\x72\x6d -rf ~' | sh` was judged as `x72x6d -rf ~`.
    #[test]
    fn escapes_decode_as_printf_and_echo_e_do() {
        assert_eq!(decode_escapes(r"\x72\x6d -rf ~"), "rm -rf ~");
        assert_eq!(decode_escapes(r"\162\155 -rf ~"), "rm -rf ~");
        assert_eq!(decode_escapes(r"\0162m"), "rm");
        assert_eq!(decode_escapes(r"a\tb\nc\\d\q"), "a\tb\nc\\d\\q");
        assert_eq!(decode_escapes(r"ab\cde"), "ab");
        assert_eq!(decode_escapes("plain"), "plain");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continuations_are_joined_outside_single_quotes() {
        assert_eq!(
            join_continuations("r\\\nm -rf *").as_deref(),
            Some("rm -rf *")
        );
        assert_eq!(
            join_continuations("echo 'a\\\nb' c\\\nd").as_deref(),
            Some("echo 'a\\\nb' cd")
        );
        assert_eq!(join_continuations("ls -la"), None);
        assert!(continuation_inside_word("r\\\nm -rf *"));
        assert!(!continuation_inside_word("cargo test \\\n  --all"));
    }

    #[test]
    fn braces_expand_like_bash() {
        let e = |s: &str| expand_braces(s).map(|r| r.unwrap());
        assert_eq!(e("{rm,-rf,*}").as_deref(), Some("rm -rf *"));
        assert_eq!(e("cp f{,.bak}").as_deref(), Some("cp f f.bak"));
        assert_eq!(
            e("echo a{b,c}d{1,2}").as_deref(),
            Some("echo abd1 abd2 acd1 acd2")
        );
        assert_eq!(e("echo '{a,b}' \"{c,d}\""), None);
        assert_eq!(e("echo ${x,} {a}"), None);
        assert_eq!(e("ls; {r,}m x").as_deref(), Some("ls; rm m x"));
        let big = "echo ".to_string() + &"{a,b}".repeat(10);
        assert_eq!(expand_braces(&big), Some(Err(())));
    }
}
