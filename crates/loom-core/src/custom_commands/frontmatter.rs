//! A command file's frontmatter: the `---` block at its top, read as the flat `key: value`
//! YAML that Claude Code's command files use (four keys, strings or lists of strings). A
//! full YAML parser would be a heavy dependency for four flat keys; what this reader does
//! not understand becomes a warning, never an error: the command still loads.

/// What a command file says about itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Frontmatter {
    /// `description`.
    pub description: Option<String>,
    /// `argument-hint`, as written (`[message]` is shown as is, not read as a list).
    pub argument_hint: Option<String>,
    /// `model`.
    pub model: Option<String>,
    /// `allowed-tools`: a comma-separated string, a `[a, b]` list or a `- a` block list.
    pub allowed_tools: Option<Vec<String>>,
}

/// A file split into its frontmatter and body, with what was wrong in the frontmatter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    /// The keys read.
    pub front: Frontmatter,
    /// The text after the frontmatter.
    pub body: String,
    /// Problems found, each in words.
    pub warnings: Vec<String>,
}

/// Split `text` into frontmatter and body. Without a `---` first line there is no
/// frontmatter; an unclosed one is read as body, with a warning.
pub fn parse(text: &str) -> Parsed {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    if first.trim_end() != "---" {
        return Parsed {
            body: text.to_string(),
            ..Parsed::default()
        };
    }
    let mut block = Vec::new();
    let mut consumed = first.len();
    let mut closed = false;
    for line in lines {
        consumed += line.len();
        if line.trim_end() == "---" {
            closed = true;
            break;
        }
        block.push(line.trim_end_matches(['\n', '\r']));
    }
    if !closed {
        return Parsed {
            body: text.to_string(),
            warnings: vec![
                "the frontmatter's `---` is never closed; the whole file is the prompt".into(),
            ],
            ..Parsed::default()
        };
    }
    let mut parsed = Parsed {
        body: text[consumed..].to_string(),
        ..Parsed::default()
    };
    read_keys(&block, &mut parsed);
    parsed
}

/// Read the `key: value` lines of the block into `parsed`.
fn read_keys(block: &[&str], parsed: &mut Parsed) {
    let mut i = 0;
    while i < block.len() {
        let line = block[i];
        i += 1;
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            parsed.warnings.push(format!(
                "frontmatter line `{}` is not `key: value`; ignored",
                line.trim()
            ));
            continue;
        };
        let key = key.trim();
        let mut value = value.trim().to_string();
        let mut items = Vec::new();
        if value.is_empty() {
            while let Some(item) = block.get(i).and_then(|l| l.trim_start().strip_prefix("- ")) {
                items.push(unquote(item.trim()));
                i += 1;
            }
            if !items.is_empty() {
                value = items.join(", ");
            }
        }
        match key {
            "description" => parsed.front.description = Some(unquote(&value)),
            "argument-hint" => parsed.front.argument_hint = Some(unquote(&value)),
            "model" => parsed.front.model = Some(unquote(&value)).filter(|m| !m.is_empty()),
            "allowed-tools" => parsed.front.allowed_tools = Some(tool_list(&value, items)),
            other => parsed
                .warnings
                .push(format!("unknown frontmatter key `{other}`; ignored")),
        }
    }
}

/// The tools of `allowed-tools`: block-list `items` if there were any, else `value` as an
/// inline `[a, b]` list or a comma-separated string (commas inside `Bash(…)` kept).
fn tool_list(value: &str, items: Vec<String>) -> Vec<String> {
    if !items.is_empty() {
        return items;
    }
    let inner = value
        .strip_prefix('[')
        .and_then(|v| v.strip_suffix(']'))
        .unwrap_or(value);
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut current = String::new();
    for c in inner.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(unquote(current.trim()));
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    out.push(unquote(current.trim()));
    out.retain(|t| !t.is_empty());
    out
}

/// `value` without one pair of surrounding quotes.
fn unquote(value: &str) -> String {
    let v = value.trim();
    for q in ['"', '\''] {
        if v.len() >= 2 && v.starts_with(q) && v.ends_with(q) {
            return v[1..v.len() - 1].to_string();
        }
    }
    v.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Invariant: any file text parses (never a panic), and the body is always the end
        /// of the text: the frontmatter is cut off whole or not at all.
        #[test]
        fn any_text_parses_to_a_suffix_body(text in "(---\n)?[a-z:\\- \\[\\],'\"\n]{0,80}(---\n)?.{0,20}") {
            let p = parse(&text);
            proptest::prop_assert!(text.ends_with(&p.body));
        }
    }

    #[test]
    fn the_four_keys_are_read_and_the_body_follows() {
        let p = parse(
            "---\ndescription: \"Commit the work\"\nargument-hint: [message]\nmodel: small\n\
             allowed-tools: Bash(git add:*), Bash(git commit:*), Read\n---\nCommit: $ARGUMENTS\n",
        );
        assert_eq!(p.front.description.as_deref(), Some("Commit the work"));
        assert_eq!(p.front.argument_hint.as_deref(), Some("[message]"));
        assert_eq!(p.front.model.as_deref(), Some("small"));
        assert_eq!(
            p.front.allowed_tools,
            Some(vec![
                "Bash(git add:*)".into(),
                "Bash(git commit:*)".into(),
                "Read".into()
            ])
        );
        assert_eq!(p.body, "Commit: $ARGUMENTS\n");
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    }

    #[test]
    fn tool_lists_may_be_inline_or_block_lists() {
        let inline = parse("---\nallowed-tools: [\"Read\", 'Grep']\n---\nx");
        assert_eq!(
            inline.front.allowed_tools,
            Some(vec!["Read".into(), "Grep".into()])
        );
        let block = parse("---\nallowed-tools:\n  - Read\n  - Bash(ls:*)\ndescription: d\n---\nx");
        assert_eq!(
            block.front.allowed_tools,
            Some(vec!["Read".into(), "Bash(ls:*)".into()])
        );
        assert_eq!(block.front.description.as_deref(), Some("d"));
    }

    #[test]
    fn a_file_without_frontmatter_is_all_body() {
        let p = parse("Explain $1\n---\n");
        assert_eq!(p.body, "Explain $1\n---\n");
        assert_eq!(p.front, Frontmatter::default());
        assert!(p.warnings.is_empty());
    }

    #[test]
    fn bad_frontmatter_gives_warnings_not_errors() {
        let unclosed = parse("---\ndescription: x\nbody");
        assert_eq!(unclosed.body, "---\ndescription: x\nbody");
        assert_eq!(unclosed.warnings.len(), 1);
        let odd = parse("---\njust words\ncolour: red\ndescription: ok\n---\nbody");
        assert_eq!(odd.front.description.as_deref(), Some("ok"));
        assert_eq!(odd.body, "body");
        assert_eq!(odd.warnings.len(), 2, "{:?}", odd.warnings);
        assert!(odd.warnings[1].contains("colour"));
    }
}
