//! Redirects, heredocs and here-strings: what a command writes, and what it reads on its
//! standard input.

use tree_sitter::Node;

use super::{Redirect, SimpleCommand, Stdin, Walker, Word};

impl Walker<'_> {
    /// Attach redirects to `owner`, the last command of the redirected statement's body,
    /// found before the redirects were walked (or to a pseudo command when the body
    /// produced none). Not the last command collected: a substitution in a redirect
    /// (`sh < <(echo …)`, `> $(echo f)`) adds its own commands after the body's.
    pub(super) fn attach(
        &mut self,
        owner: Option<usize>,
        redirects: Vec<Redirect>,
        node: Node<'_>,
        heredoc_expands: bool,
        stdin: Option<Stdin>,
    ) {
        if redirects.is_empty() && !heredoc_expands && stdin.is_none() {
            return;
        }
        if let Some(owner) = owner {
            let cmd = &mut self.script.commands[owner];
            cmd.redirects.extend(redirects);
            cmd.heredoc_expands |= heredoc_expands;
            if stdin.is_some() {
                cmd.stdin = stdin;
            }
        } else {
            self.script.commands.push(SimpleCommand {
                redirects,
                heredoc_expands,
                stdin,
                part: self.part(),
                text: self.text(node),
                ..SimpleCommand::default()
            });
        }
    }

    /// `cat - <<EOF`, `rm - 2>x`: tree-sitter-bash drops a lone `-` word before a redirect
    /// (no node covers it), so the command would be judged without its operand. The text
    /// between the command and its first redirect is read back: each `-` there is a word.
    pub(super) fn dropped_dashes(&mut self, statement: Node<'_>, body: Node<'_>, owner: usize) {
        let mut cursor = statement.walk();
        let first_redirect = statement
            .named_children(&mut cursor)
            .filter(|c| c.start_byte() >= body.end_byte())
            .map(|c| c.start_byte())
            .min();
        let Some(end) = first_redirect else { return };
        let gap = String::from_utf8_lossy(&self.src[body.end_byte()..end]).into_owned();
        for token in gap.split_whitespace() {
            if token.chars().all(|c| c == '-') {
                self.script.commands[owner].words.push(Word::literal(token));
            }
        }
    }

    pub(super) fn redirect(&mut self, node: Node<'_>, out: &mut Vec<Redirect>) {
        match node.kind() {
            "file_redirect" => {
                let mut op = String::new();
                let mut cursor = node.walk();
                for child in node.children(&mut cursor) {
                    if !child.is_named() {
                        op = self.text(child);
                    }
                }
                let target = node
                    .child_by_field_name("destination")
                    .map(|d| self.word(d))
                    .unwrap_or_default();
                out.push(Redirect { op, target });
            }
            "heredoc_redirect" => self.heredoc(node, out),
            "herestring_redirect" => {
                let mut cursor = node.walk();
                let words: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                for child in words {
                    let w = self.within("here-string", child, |w| w.word(child));
                    self.stdin = Some(Stdin {
                        text: format!("{}\n", w.text),
                        expands: w.dynamic,
                    });
                }
            }
            _ => {}
        }
    }

    /// `<<EOF` (or `<<-EOF`): its redirects, the text it feeds the command (expanded
    /// unless the delimiter is quoted, with the expansions walked) and the rest of the
    /// line the parser put inside it.
    fn heredoc(&mut self, node: Node<'_>, out: &mut Vec<Redirect>) {
        let mut cursor = node.walk();
        for child in node.children_by_field_name("redirect", &mut cursor) {
            self.redirect(child, out);
        }
        let start = node
            .named_children(&mut node.walk())
            .find(|c| c.kind() == "heredoc_start");
        let quoted = start.is_some_and(|start| self.text(start).contains(['\'', '"', '\\']));
        let strip_tabs = self.text(node).starts_with("<<-");
        let bodies: Vec<Node<'_>> = node
            .named_children(&mut node.walk())
            .filter(|c| c.kind() == "heredoc_body")
            .collect();
        for body in &bodies {
            let raw = self.text(*body);
            let text = if strip_tabs {
                raw.lines()
                    .map(|l| l.trim_start_matches('\t'))
                    .collect::<Vec<_>>()
                    .join("\n")
            } else {
                raw
            };
            self.stdin = Some(Stdin {
                expands: !quoted && text.contains(['$', '`']),
                text,
            });
        }
        if !quoted {
            for body in bodies {
                let mut cursor = body.walk();
                let parts: Vec<Node<'_>> = body
                    .named_children(&mut cursor)
                    .filter(|c| c.kind() != "heredoc_content")
                    .collect();
                for part in parts {
                    self.heredoc_expands = true;
                    let _ = self.within("heredoc text", part, |w| w.word(part));
                }
            }
        }
        let mut cursor = node.walk();
        let rest: Vec<Node<'_>> = node
            .named_children(&mut cursor)
            .filter(|c| {
                !matches!(
                    c.kind(),
                    "heredoc_start" | "heredoc_body" | "heredoc_end" | "file_redirect"
                )
            })
            .collect();
        for child in rest {
            self.visit(child);
        }
    }

    /// `cat <<EOF | sh`: the parser puts `| sh` inside the heredoc redirect as a pipeline
    /// of its own; make the command that owns the heredoc its first stage, so what the
    /// heredoc feeds the pipeline is known.
    pub(super) fn heredoc_pipeline(&mut self, node: Node<'_>, piped_before: usize, owner: usize) {
        let mut cursor = node.walk();
        let in_heredoc = node
            .named_children(&mut cursor)
            .filter(|c| c.kind() == "heredoc_redirect")
            .any(|h| {
                let mut c = h.walk();
                h.named_children(&mut c).any(|n| n.kind() == "pipeline")
            });
        if in_heredoc && let Some(stages) = self.script.pipelines.get_mut(piped_before) {
            stages.insert(0, vec![owner]);
        }
    }
}
