//! Words as the shell decodes them: quotes removed, escapes undone, expansions marked as
//! known only at run time and the commands inside them walked.

use tree_sitter::Node;

use super::{SimpleCommand, Subst, Walker, Word};

/// A word that is just its text: nothing dynamic, quoted or walked inside.
fn plain(text: String) -> Word {
    Word {
        text,
        ..Word::default()
    }
}

impl Walker<'_> {
    pub(super) fn word(&mut self, node: Node<'_>) -> Word {
        match node.kind() {
            "command_name" => match node.named_child(0) {
                Some(child) => self.word(child),
                None => plain(self.text(node)),
            },
            "number" if node.named_child_count() > 0 => self.based_number(node),
            "word" | "number" => unquoted(&self.text(node)),
            "raw_string" => {
                let raw = self.text(node);
                plain(
                    raw.trim_start_matches('\'')
                        .trim_end_matches('\'')
                        .to_string(),
                )
            }
            "ansi_c_string" => ansi_c_string(&self.text(node)),
            // `$"rm"`: bash translates the string through the locale's message catalogue
            // and, with none, uses it as written; either way it is a double-quoted string.
            "translated_string" => match node.named_child(0) {
                Some(child) if child.kind() == "string" => self.word(child),
                _ => plain(
                    self.text(node)
                        .trim_start_matches('$')
                        .trim_matches('"')
                        .to_string(),
                ),
            },
            "string" => self.double_quoted(node),
            "concatenation" => self.concatenation(node),
            "command_substitution"
            | "process_substitution"
            | "simple_expansion"
            | "expansion"
            | "arithmetic_expansion" => self.expansion(node),
            _ => self.other_word(node),
        }
    }

    /// A named child decoded as a word, an unnamed one (punctuation) as its text.
    fn part_word(&mut self, part: Node<'_>) -> Word {
        if part.is_named() {
            self.word(part)
        } else {
            plain(self.text(part))
        }
    }

    /// `10#$(cmd)`: a base prefix glued to an expansion.
    fn based_number(&mut self, node: Node<'_>) -> Word {
        let mut out = plain(String::new());
        let mut cursor = node.walk();
        let parts: Vec<Node<'_>> = node.children(&mut cursor).collect();
        let mut pos = node.start_byte();
        for part in parts {
            if part.start_byte() > pos {
                out.text
                    .push_str(&String::from_utf8_lossy(&self.src[pos..part.start_byte()]));
            }
            let w = self.part_word(part);
            out.text.push_str(&w.text);
            out.dynamic |= w.dynamic;
            out.inner.extend(w.inner);
            out.subs.extend(w.subs);
            pos = part.end_byte();
        }
        out
    }

    /// `"..."`: the text between the quotes with its escapes undone, and every expansion
    /// inside walked and marked quoted.
    fn double_quoted(&mut self, node: Node<'_>) -> Word {
        let mut out = Word::default();
        let raw = self.text(node);
        let body = raw
            .strip_prefix('"')
            .and_then(|s| s.strip_suffix('"'))
            .unwrap_or(&raw);
        let base = node.start_byte() + 1;
        let mut pos = 0usize;
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            let start = child.start_byte().saturating_sub(base);
            if start > pos && start <= body.len() {
                out.text.push_str(&unescape_dq(&body[pos..start]));
            }
            match child.kind() {
                "string_content" => out.text.push_str(&unescape_dq(&self.text(child))),
                _ => {
                    let w = self.word(child);
                    out.text.push_str(&w.text);
                    out.dynamic |= w.dynamic;
                    out.inner.extend(w.inner);
                    out.subs
                        .extend(w.subs.into_iter().map(|s| Subst { quoted: true, ..s }));
                }
            }
            pos = child.end_byte().saturating_sub(base);
        }
        if pos < body.len() {
            out.text.push_str(&unescape_dq(&body[pos..]));
        }
        out
    }

    /// Parts written next to each other (`a"b"$c`): one word carrying every part's marks.
    fn concatenation(&mut self, node: Node<'_>) -> Word {
        let mut out = Word::default();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            let w = self.part_word(child);
            out.text.push_str(&w.text);
            out.dynamic |= w.dynamic;
            out.glob |= w.glob;
            out.ansi_c |= w.ansi_c;
            out.brace |= w.brace;
            out.inner.extend(w.inner);
            out.subs.extend(w.subs);
        }
        if out.text.contains('{') && out.text.contains(',') && out.text.contains('}') {
            out.brace = true;
        }
        out
    }

    /// `$(...)`, `<(...)`, `$x`, `${...}`, `$((...))`: known only at run time; the
    /// commands inside are walked, and a substitution of one plain command records it.
    fn expansion(&mut self, node: Node<'_>) -> Word {
        let before = self.script.commands.len();
        self.script.walked.push(node.start_byte());
        let kind = match node.kind() {
            "command_substitution" => "command substitution",
            "process_substitution" => "process substitution",
            "arithmetic_expansion" => "arithmetic expansion",
            _ => "expansion",
        };
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        self.within(kind, node, |w| {
            for child in children {
                w.expansion_child(child);
            }
        });
        let inner: Vec<usize> = (before..self.script.commands.len()).collect();
        let command = self.substituted_command(node, &inner);
        let text = self.text(node);
        Word {
            subs: vec![Subst {
                source: text.clone(),
                command,
                quoted: false,
            }],
            text,
            dynamic: true,
            inner,
            ..Word::default()
        }
    }

    /// One child of an expansion, walked as a command.
    fn expansion_child(&mut self, child: Node<'_>) {
        if child.kind() == "file_redirect" {
            // `$(< file)`: bash reads the file with no command at all.
            let mut redirects = Vec::new();
            self.redirect(child, &mut redirects);
            self.script.commands.push(SimpleCommand {
                redirects,
                part: self.part(),
                text: self.text(child),
                ..SimpleCommand::default()
            });
        } else {
            self.visit(child);
        }
    }

    /// The words of the command a command or process substitution runs, when it is one
    /// plain command (no redirects, assignments or stdin, and every other command walked
    /// inside it sits in its words); `None` otherwise.
    fn substituted_command(&self, node: Node<'_>, inner: &[usize]) -> Option<Vec<Word>> {
        match inner.split_last() {
            Some((last, others))
                if matches!(node.kind(), "command_substitution" | "process_substitution") =>
            {
                let c = &self.script.commands[*last];
                let within = |i: &usize| c.words.iter().any(|w| w.inner.contains(i));
                (c.redirects.is_empty()
                    && c.assignments.is_empty()
                    && c.stdin.is_none()
                    && others.iter().all(within))
                .then(|| c.words.clone())
            }
            _ => None,
        }
    }

    /// Any other node: its named children are walked, and it is dynamic when commands
    /// were found inside.
    fn other_word(&mut self, node: Node<'_>) -> Word {
        let before = self.script.commands.len();
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            self.visit(child);
        }
        let inner: Vec<usize> = (before..self.script.commands.len()).collect();
        let text = self.text(node);
        Word {
            subs: if inner.is_empty() {
                Vec::new()
            } else {
                vec![Subst {
                    source: text.clone(),
                    command: None,
                    quoted: false,
                }]
            },
            text,
            dynamic: !inner.is_empty(),
            inner,
            ..Word::default()
        }
    }
}

/// An unquoted word as written: escapes undone, globs and braces noted.
fn unquoted(raw: &str) -> Word {
    Word {
        glob: has_unescaped(raw, &['*', '?', '[']),
        brace: has_unescaped(raw, &['{']) && has_unescaped(raw, &['}']),
        text: unescape(raw),
        ..Word::default()
    }
}

/// `$'...'`: the body decoded the way bash does.
fn ansi_c_string(raw: &str) -> Word {
    let inner = raw
        .strip_prefix("$'")
        .and_then(|s| s.strip_suffix('\''))
        .unwrap_or(raw);
    Word {
        text: ansi_c(inner),
        ansi_c: true,
        ..Word::default()
    }
}

/// Remove backslash escapes from an unquoted word (`\rm` → `rm`).
fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('\n') => {}
                Some(n) => out.push(n),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Escapes inside double quotes: only `\"`, `\\`, `\$`, `` \` `` and line continuations.
fn unescape_dq(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('"') | Some('\\') | Some('$') | Some('`') => {
                    out.push(chars.next().unwrap_or('\\'));
                }
                Some('\n') => {
                    chars.next();
                }
                _ => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether `raw` (an unquoted word as written) holds one of `chars` not escaped by a
/// backslash.
fn has_unescaped(raw: &str, chars: &[char]) -> bool {
    let mut escaped = false;
    for c in raw.chars() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if chars.contains(&c) {
            return true;
        }
    }
    false
}

/// Decode the body of `$'...'` the way bash does: `\n \t \e \\ \' \"`, octal `\NNN`,
/// `\xHH`, `\uHHHH`, `\UHHHHHHHH` and control characters `\cX`.
pub fn ansi_c(raw: &str) -> String {
    let mut out = String::new();
    let mut chars = raw.chars().peekable();
    let digits = |chars: &mut std::iter::Peekable<std::str::Chars<'_>>, radix: u32, max: usize| {
        let mut value = 0u32;
        let mut n = 0;
        while n < max {
            match chars.peek().and_then(|c| c.to_digit(radix)) {
                Some(d) => {
                    value = value.saturating_mul(radix).saturating_add(d);
                    chars.next();
                    n += 1;
                }
                None => break,
            }
        }
        (n > 0).then_some(value)
    };
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        let decoded = match e {
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'e' | 'E' => Some('\u{1b}'),
            'f' => Some('\u{c}'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\u{b}'),
            '\\' | '\'' | '"' | '?' => Some(e),
            '0'..='7' => {
                let mut value = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                char::from_u32(value & 0xff)
            }
            'x' => digits(&mut chars, 16, 2).and_then(char::from_u32),
            'u' => digits(&mut chars, 16, 4).and_then(char::from_u32),
            'U' => digits(&mut chars, 16, 8).and_then(char::from_u32),
            'c' => chars
                .next()
                .and_then(|c| char::from_u32(c.to_ascii_uppercase() as u32 & 0x1f)),
            other => {
                out.push('\\');
                Some(other)
            }
        };
        if let Some(d) = decoded {
            out.push(d);
        }
    }
    out
}
