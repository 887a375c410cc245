//! Shell syntax to simple commands, with tree-sitter-bash.
//!
//! Every simple command anywhere in the script becomes a [`SimpleCommand`] — including
//! those inside `$( )`, backticks, `<( )`, subshells, function bodies and heredoc pipelines
//! — with its words decoded the way the shell would (quotes removed, `\rm` unescaped,
//! `r""m` and `'r'm` joined) and marked dynamic when they depend on run-time expansion.
//! Redirects are attached to their command; pipelines and function definitions are kept so
//! the classifier can spot `curl | sh` and fork bombs.

use tree_sitter::{Node, Parser};

use super::coverage::{self, Coverage};

/// One decoded word.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Word {
    /// The text after quote removal (expansions left as written).
    pub text: String,
    /// Whether the value depends on run-time expansion (`$X`, `$(...)`, globs aside).
    pub dynamic: bool,
    /// Whether it holds an unquoted glob character.
    pub glob: bool,
    /// Whether part of it was written with ANSI-C quoting (`$'\162m'`), which some shells
    /// decode and others (dash) take literally.
    pub ansi_c: bool,
    /// Whether it holds an unquoted brace expansion (`{a,b}`), which bash expands into
    /// several words and dash leaves alone.
    pub brace: bool,
    /// Indices of commands found inside substitutions in this word.
    pub inner: Vec<usize>,
    /// Its run-time parts in source order (`$(pwd)`, `$HOME`), for working out values
    /// Loom can know in advance.
    pub subs: Vec<Subst>,
    /// Whether the text is a value Loom worked out from substitutions (`$(pwd)`).
    pub evaluated: bool,
}

/// One run-time part of a word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subst {
    /// The part as it appears in [`Word::text`] (`$(pwd)`, `` `pwd` ``, `$HOME`).
    pub source: String,
    /// For a command substitution holding one simple command and nothing else, its words.
    pub command: Option<Vec<Word>>,
    /// Whether it sits inside double quotes (no word splitting of its value).
    pub quoted: bool,
}

impl Word {
    /// A plain literal word.
    pub fn literal(text: &str) -> Word {
        Word {
            text: text.to_string(),
            ..Word::default()
        }
    }

    /// The same word, marked as known only at run time (or not).
    pub fn with_dynamic(mut self, dynamic: bool) -> Word {
        self.dynamic = dynamic;
        self
    }
}

/// A `NAME=value` assignment, before a command or on its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignment {
    /// The variable's name.
    pub name: String,
    /// The value.
    pub value: Word,
}

/// A redirect on a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// The operator: `>`, `>>`, `&>`, `>|`, `<`, `<<`, `>&`, ...
    pub op: String,
    /// The target (a file, or an fd number for `>&2`).
    pub target: Word,
}

impl Redirect {
    /// Whether the redirect writes to its target.
    pub fn writes(&self) -> bool {
        matches!(self.op.as_str(), ">" | ">>" | "&>" | "&>>" | ">|" | "<>")
            || (self.op == ">&"
                && !self
                    .target
                    .text
                    .chars()
                    .all(|c| c.is_ascii_digit() || c == '-'))
    }
}

/// One simple command.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SimpleCommand {
    /// The words, program first (assignment prefixes removed).
    pub words: Vec<Word>,
    /// `NAME=value` prefixes (or, for `export`/`declare`/`local`/`readonly`/`typeset` and
    /// bare assignments, the variables set).
    pub assignments: Vec<Assignment>,
    /// Whether a heredoc of this command has an unquoted delimiter and expansions in its
    /// body (`$(...)`, `${x:=...}`), which run when the command does.
    pub heredoc_expands: bool,
    /// Its redirects (including those of an enclosing redirected statement).
    pub redirects: Vec<Redirect>,
    /// What a heredoc or here-string gives it on standard input.
    pub stdin: Option<Stdin>,
    /// Where in the line it sits (`command substitution $(pwd)`), empty at the top level.
    pub part: String,
    /// Its `&&` chain: commands with the same number run only if the ones before them in
    /// the chain succeeded (so a `cd` there certainly happened); any other command may run
    /// after a `cd` failed.
    pub chain: usize,
    /// The source text.
    pub text: String,
}

/// Text a heredoc (`<<EOF`) or here-string (`<<<`) feeds a command: a shell or an
/// interpreter reading it runs it as code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stdin {
    /// The text as written (expansions left in place, a `<<-` heredoc's leading tabs
    /// removed).
    pub text: String,
    /// Whether the shell expands something in it first (`$x`, `$(…)`, backticks), so the
    /// text that arrives is only known at run time.
    pub expands: bool,
}

/// A parsed script.
#[derive(Debug, Clone, Default)]
pub struct Script {
    /// Every simple command, in source order.
    pub commands: Vec<SimpleCommand>,
    /// Pipelines: for each stage, the indices of the commands inside it.
    pub pipelines: Vec<Vec<Vec<usize>>>,
    /// Function definitions: name and the indices of the commands in the body.
    pub functions: Vec<(String, Vec<usize>)>,
    /// Commands that run in the background (`cmd &`).
    pub background: Vec<usize>,
    /// Whether the parser hit syntax it could not read.
    pub has_errors: bool,
    /// Whether nesting went deeper than Loom analyses.
    pub too_deep: bool,
    /// Substitutions in the raw text that the walk did not turn into commands (see
    /// [`coverage`]).
    pub coverage: Coverage,
    /// Byte offsets of the substitutions the walk turned into commands.
    pub walked: Vec<usize>,
}

/// Deepest syntax nesting analysed (deeper scripts are reported, not recursed into).
const MAX_DEPTH: usize = 200;

/// Parse shell source. `None` only if the parser itself could not run.
pub fn parse(source: &str) -> Option<Script> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .ok()?;
    let tree = parser.parse(source, None)?;
    let root = tree.root_node();
    let mut script = Script {
        has_errors: root.has_error(),
        ..Script::default()
    };
    let mut walker = Walker {
        src: source.as_bytes(),
        script: &mut script,
        depth: 0,
        heredoc_expands: false,
        stdin: None,
        parts: Vec::new(),
        and_chain: None,
        chains: 0,
    };
    walker.visit(root);
    script.coverage = coverage::check(source, root, &script.walked);
    Some(script)
}

struct Walker<'a> {
    src: &'a [u8],
    script: &'a mut Script,
    depth: usize,
    /// Set while reading redirects when an unquoted heredoc body expands something.
    heredoc_expands: bool,
    /// Set while reading redirects: the text a heredoc or here-string feeds the command.
    stdin: Option<Stdin>,
    /// Where the walk is (innermost last), for [`SimpleCommand::part`].
    parts: Vec<String>,
    /// The `&&` chain being walked, if any.
    and_chain: Option<usize>,
    /// Chains numbered so far.
    chains: usize,
}

/// Longest source excerpt a part's label quotes.
const PART_EXCERPT: usize = 48;

impl Walker<'_> {
    fn text(&self, node: Node<'_>) -> String {
        node.utf8_text(self.src).unwrap_or("").to_string()
    }

    fn visit(&mut self, node: Node<'_>) {
        if self.depth >= MAX_DEPTH {
            self.script.too_deep = true;
            return;
        }
        self.depth += 1;
        self.visit_inner(node);
        self.depth -= 1;
    }

    /// `a && b && c` is a left-nested chain of lists; walk it without recursion. A chain
    /// of `&&` only gives its commands one [`SimpleCommand::chain`]; with a `||` each part
    /// is a chain of its own (what follows `||` runs when what came before failed).
    fn visit_list(&mut self, node: Node<'_>) {
        let mut rights = Vec::new();
        let mut cur = node;
        let mut only_and = true;
        loop {
            let mut cursor = cur.walk();
            only_and &= cur
                .children(&mut cursor)
                .filter(|c| !c.is_named())
                .all(|c| c.kind() == "&&");
            let mut cursor = cur.walk();
            let named: Vec<Node<'_>> = cur.named_children(&mut cursor).collect();
            match named.split_first() {
                Some((first, rest)) if first.kind() == "list" => {
                    rights.extend(rest.iter().rev().copied());
                    cur = *first;
                }
                _ => {
                    rights.extend(named.iter().rev().copied());
                    break;
                }
            }
        }
        let outer = self.and_chain;
        if only_and && outer.is_none() {
            self.chains += 1;
            self.and_chain = Some(self.chains);
        } else if !only_and {
            self.and_chain = None;
        }
        for child in rights.into_iter().rev() {
            self.visit(child);
        }
        self.and_chain = outer;
    }

    /// The chain of a command pushed now.
    fn chain(&mut self) -> usize {
        match self.and_chain {
            Some(chain) => chain,
            None => {
                self.chains += 1;
                self.chains
            }
        }
    }

    fn visit_inner(&mut self, node: Node<'_>) {
        match node.kind() {
            "list" => self.visit_list(node),
            "command" => {
                self.command(node);
            }
            "declaration_command" | "unset_command" => {
                self.command(node);
            }
            "variable_assignment" | "variable_assignments" => {
                let mut cmd = SimpleCommand {
                    text: self.text(node),
                    ..SimpleCommand::default()
                };
                self.assignments(node, &mut cmd.assignments);
                self.script.commands.push(cmd);
            }
            "redirected_statement" => {
                let before = self.script.commands.len();
                let body = node.child_by_field_name("body");
                if let Some(body) = body {
                    self.visit(body);
                }
                let owner = self
                    .script
                    .commands
                    .len()
                    .checked_sub(1)
                    .filter(|&i| i >= before);
                if let (Some(body), Some(owner)) = (body, owner)
                    && body.kind() == "command"
                {
                    self.dropped_dashes(node, body, owner);
                }
                let piped_before = self.script.pipelines.len();
                let outer_heredoc = std::mem::take(&mut self.heredoc_expands);
                let outer_stdin = self.stdin.take();
                let mut redirects = Vec::new();
                let mut cursor = node.walk();
                for child in node.children_by_field_name("redirect", &mut cursor) {
                    self.redirect(child, &mut redirects);
                }
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    if child.kind() == "herestring_redirect" {
                        self.redirect(child, &mut redirects);
                    }
                }
                let expands = std::mem::replace(&mut self.heredoc_expands, outer_heredoc);
                let stdin = std::mem::replace(&mut self.stdin, outer_stdin);
                self.attach(before, redirects, node, expands, stdin);
                if let Some(owner) = owner {
                    self.heredoc_pipeline(node, piped_before, owner);
                }
            }
            "pipeline" => {
                let mut stages = Vec::new();
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    let before = self.script.commands.len();
                    self.visit(child);
                    stages.push((before..self.script.commands.len()).collect());
                }
                self.script.pipelines.push(stages);
            }
            "function_definition" => {
                let name = node
                    .child_by_field_name("name")
                    .map(|n| self.text(n))
                    .unwrap_or_default();
                let before = self.script.commands.len();
                if let Some(body) = node.child_by_field_name("body") {
                    self.visit(body);
                }
                let mut redirects = Vec::new();
                let mut cursor = node.walk();
                let targets: Vec<Node<'_>> = node
                    .children_by_field_name("redirect", &mut cursor)
                    .collect();
                for child in targets {
                    self.redirect(child, &mut redirects);
                }
                if !redirects.is_empty() {
                    // Applied each time the function is called.
                    self.script.commands.push(SimpleCommand {
                        redirects,
                        part: format!("redirect of function {name}"),
                        text: self.text(node),
                        ..SimpleCommand::default()
                    });
                }
                let body = (before..self.script.commands.len()).collect();
                self.script.functions.push((name, body));
            }
            "command_substitution" | "process_substitution" | "arithmetic_expansion" => {
                // Outside a word (in `(( … ))`, say): walked as one, so it counts as seen.
                let _ = self.word(node);
            }
            "compound_statement" | "subshell" | "do_group" | "if_statement" | "while_statement"
            | "case_statement" | "else_clause" | "elif_clause" => {
                // Statements inside run one after another: a `cd` among them may fail and
                // the next still runs, whatever chain the block is in.
                let outer = self.and_chain.take();
                let mut cursor = node.walk();
                let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                for child in children {
                    self.visit(child);
                }
                self.and_chain = outer;
            }
            "for_statement" => {
                // `for NAME in WORDS`: NAME is assigned each word, as `NAME=WORD` would.
                let name = node
                    .child_by_field_name("variable")
                    .map(|n| self.text(n))
                    .unwrap_or_default();
                let mut cursor = node.walk();
                let values: Vec<Node<'_>> =
                    node.children_by_field_name("value", &mut cursor).collect();
                let assignments = values
                    .into_iter()
                    .map(|v| Assignment {
                        name: name.clone(),
                        value: self.word(v),
                    })
                    .collect::<Vec<_>>();
                self.script.commands.push(SimpleCommand {
                    assignments,
                    part: self.part(),
                    text: format!("for {name} in …"),
                    ..SimpleCommand::default()
                });
                if let Some(body) = node.child_by_field_name("body") {
                    self.visit(body);
                }
            }
            _ => {
                let mut cursor = node.walk();
                let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
                for (i, child) in children.iter().enumerate() {
                    if child.is_named() {
                        let before = self.script.commands.len();
                        self.visit(*child);
                        let background = children
                            .get(i + 1)
                            .is_some_and(|n| !n.is_named() && n.kind() == "&");
                        if background {
                            self.script
                                .background
                                .extend(before..self.script.commands.len());
                        }
                    }
                }
            }
        }
    }

    /// Attach redirects to the last command collected since `before` (or to a pseudo
    /// command when the body produced none).
    fn attach(
        &mut self,
        before: usize,
        redirects: Vec<Redirect>,
        node: Node<'_>,
        heredoc_expands: bool,
        stdin: Option<Stdin>,
    ) {
        if redirects.is_empty() && !heredoc_expands && stdin.is_none() {
            return;
        }
        if self.script.commands.len() > before {
            let last = self.script.commands.len() - 1;
            let cmd = &mut self.script.commands[last];
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
    fn dropped_dashes(&mut self, statement: Node<'_>, body: Node<'_>, owner: usize) {
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

    /// The label of the innermost part being walked.
    fn part(&self) -> String {
        self.parts.last().cloned().unwrap_or_default()
    }

    /// Walk `f` inside a part labelled `kind` and an excerpt of `node`'s source.
    fn within<T>(&mut self, kind: &str, node: Node<'_>, f: impl FnOnce(&mut Self) -> T) -> T {
        let text = self.text(node);
        let excerpt: String = text.chars().take(PART_EXCERPT).collect();
        let more = if excerpt.len() < text.len() {
            "…"
        } else {
            ""
        };
        self.parts.push(format!("{kind} {excerpt}{more}"));
        let out = f(self);
        self.parts.pop();
        out
    }

    fn redirect(&mut self, node: Node<'_>, out: &mut Vec<Redirect>) {
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
            "heredoc_redirect" => {
                let mut cursor = node.walk();
                for child in node.children_by_field_name("redirect", &mut cursor) {
                    self.redirect(child, out);
                }
                let start = node
                    .named_children(&mut node.walk())
                    .find(|c| c.kind() == "heredoc_start");
                let quoted =
                    start.is_some_and(|start| self.text(start).contains(['\'', '"', '\\']));
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

    fn assignments(&mut self, node: Node<'_>, out: &mut Vec<Assignment>) {
        if node.kind() == "variable_assignments" {
            let mut cursor = node.walk();
            let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
            for child in children {
                self.assignments(child, out);
            }
            return;
        }
        let name_node = node.child_by_field_name("name");
        let name = name_node.map(|n| self.text(n)).unwrap_or_default();
        if let Some(index) = name_node.and_then(|n| n.child_by_field_name("index")) {
            // `a[$(cmd)]=1`: the subscript is expanded (and runs) before the assignment.
            let _ = self.within("array subscript", index, |w| w.word(index));
        }
        let value = match node.child_by_field_name("value") {
            Some(v) => self.word(v),
            None => Word::default(),
        };
        out.push(Assignment { name, value });
    }

    fn command(&mut self, node: Node<'_>) -> usize {
        let mut cmd = SimpleCommand {
            text: self.text(node),
            ..SimpleCommand::default()
        };
        if matches!(node.kind(), "declaration_command" | "unset_command")
            && let Some(keyword) = node.child(0).filter(|c| !c.is_named())
        {
            cmd.words.push(Word::literal(&self.text(keyword)));
        }
        let outer_heredoc = std::mem::take(&mut self.heredoc_expands);
        let outer_stdin = self.stdin.take();
        let piped_before = self.script.pipelines.len();
        let mut redirects = Vec::new();
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            match child.kind() {
                "variable_assignment" | "variable_assignments" => {
                    self.assignments(child, &mut cmd.assignments)
                }
                "file_redirect" | "heredoc_redirect" | "herestring_redirect" => {
                    self.redirect(child, &mut redirects)
                }
                "subshell" => self.visit(child),
                _ => {
                    let w = self.word(child);
                    cmd.words.push(w);
                }
            }
        }
        cmd.redirects = redirects;
        cmd.heredoc_expands = std::mem::replace(&mut self.heredoc_expands, outer_heredoc);
        cmd.stdin = std::mem::replace(&mut self.stdin, outer_stdin);
        cmd.part = self.part();
        cmd.chain = self.chain();
        self.script.commands.push(cmd);
        let index = self.script.commands.len() - 1;
        self.heredoc_pipeline(node, piped_before, index);
        index
    }

    /// `cat <<EOF | sh`: the parser puts `| sh` inside the heredoc redirect as a pipeline
    /// of its own; make the command that owns the heredoc its first stage, so what the
    /// heredoc feeds the pipeline is known.
    fn heredoc_pipeline(&mut self, node: Node<'_>, piped_before: usize, owner: usize) {
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

    fn word(&mut self, node: Node<'_>) -> Word {
        let plain = |text: String| Word {
            text,
            ..Word::default()
        };
        match node.kind() {
            "command_name" => match node.named_child(0) {
                Some(child) => self.word(child),
                None => plain(self.text(node)),
            },
            "number" if node.named_child_count() > 0 => {
                // `10#$(cmd)`: a base prefix glued to an expansion.
                let mut out = plain(String::new());
                let mut cursor = node.walk();
                let parts: Vec<Node<'_>> = node.children(&mut cursor).collect();
                let mut pos = node.start_byte();
                for part in parts {
                    if part.start_byte() > pos {
                        out.text
                            .push_str(&String::from_utf8_lossy(&self.src[pos..part.start_byte()]));
                    }
                    let w = if part.is_named() {
                        self.word(part)
                    } else {
                        plain(self.text(part))
                    };
                    out.text.push_str(&w.text);
                    out.dynamic |= w.dynamic;
                    out.inner.extend(w.inner);
                    out.subs.extend(w.subs);
                    pos = part.end_byte();
                }
                out
            }
            "word" | "number" => {
                let raw = self.text(node);
                Word {
                    glob: has_unescaped(&raw, &['*', '?', '[']),
                    brace: has_unescaped(&raw, &['{']) && has_unescaped(&raw, &['}']),
                    text: unescape(&raw),
                    ..Word::default()
                }
            }
            "raw_string" => {
                let raw = self.text(node);
                plain(
                    raw.trim_start_matches('\'')
                        .trim_end_matches('\'')
                        .to_string(),
                )
            }
            "ansi_c_string" => {
                let raw = self.text(node);
                let inner = raw
                    .strip_prefix("$'")
                    .and_then(|s| s.strip_suffix('\''))
                    .unwrap_or(&raw);
                Word {
                    text: ansi_c(inner),
                    ansi_c: true,
                    ..Word::default()
                }
            }
            "string" => {
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
            "concatenation" => {
                let mut out = Word::default();
                let mut cursor = node.walk();
                for child in node.children(&mut cursor) {
                    let w = if child.is_named() {
                        self.word(child)
                    } else {
                        plain(self.text(child))
                    };
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
            "command_substitution"
            | "process_substitution"
            | "simple_expansion"
            | "expansion"
            | "arithmetic_expansion" => {
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
                        if child.kind() == "file_redirect" {
                            // `$(< file)`: bash reads the file with no command at all.
                            let mut redirects = Vec::new();
                            w.redirect(child, &mut redirects);
                            w.script.commands.push(SimpleCommand {
                                redirects,
                                part: w.part(),
                                text: w.text(child),
                                ..SimpleCommand::default()
                            });
                        } else {
                            w.visit(child);
                        }
                    }
                });
                let inner: Vec<usize> = (before..self.script.commands.len()).collect();
                let command = match inner.split_last() {
                    Some((last, others)) if node.kind() == "command_substitution" => {
                        let c = &self.script.commands[*last];
                        let within = |i: &usize| c.words.iter().any(|w| w.inner.contains(i));
                        (c.redirects.is_empty()
                            && c.assignments.is_empty()
                            && c.stdin.is_none()
                            && others.iter().all(within))
                        .then(|| c.words.clone())
                    }
                    _ => None,
                };
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
            _ => {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(script: &Script, i: usize) -> Vec<String> {
        script.commands[i]
            .words
            .iter()
            .map(|w| w.text.clone())
            .collect()
    }

    #[test]
    fn quotes_and_escapes_are_removed() {
        let s = parse(r#"\rm -rf 'a b' "c\"d" r""m 'r'm $'x\ty'"#).unwrap();
        assert_eq!(
            argv(&s, 0),
            vec!["rm", "-rf", "a b", "c\"d", "rm", "rm", "x\ty"]
        );
    }

    #[test]
    fn lists_pipelines_and_substitutions() {
        let s = parse("a && b || c; d | e\nf $(g h) `i`").unwrap();
        let names: Vec<String> = s.commands.iter().map(|c| c.words[0].text.clone()).collect();
        assert!(
            names.contains(&"g".to_string()) && names.contains(&"i".to_string()),
            "{names:?}"
        );
        assert_eq!(s.pipelines.len(), 1);
        let f = s.commands.iter().find(|c| c.words[0].text == "f").unwrap();
        assert!(f.words[1].dynamic);
        assert_eq!(f.words[1].inner.len(), 1);
    }

    #[test]
    fn assignments_and_redirects() {
        let s = parse("FOO=1 BAR=2 make > out.log 2>&1").unwrap();
        let c = &s.commands[0];
        let names: Vec<&str> = c.assignments.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, vec!["FOO", "BAR"]);
        assert_eq!(c.words[0].text, "make");
        let writes: Vec<&str> = c
            .redirects
            .iter()
            .filter(|r| r.writes())
            .map(|r| r.target.text.as_str())
            .collect();
        assert_eq!(writes, vec!["out.log"]);
    }

    /// The parser drops a lone `-` before a redirect; the walker puts it back.
    #[test]
    fn a_dash_before_a_redirect_is_a_word() {
        for (src, words) in [
            ("cat - <<EOF\nx\nEOF", vec!["cat", "-"]),
            ("make -f - <<'EOF'\nall:\nEOF", vec!["make", "-f", "-"]),
            ("rm - 2>/dev/null", vec!["rm", "-"]),
            ("cat -n <<EOF\nx\nEOF", vec!["cat", "-n"]),
            ("x - - <<EOF\nx\nEOF", vec!["x", "-", "-"]),
        ] {
            let s = parse(src).unwrap();
            let got: Vec<&str> = s.commands[0]
                .words
                .iter()
                .map(|w| w.text.as_str())
                .collect();
            assert_eq!(got, words, "{src:?}");
        }
    }

    #[test]
    fn heredoc_into_a_file() {
        let s = parse("cat > notes.txt <<EOF\nhello\nEOF\n").unwrap();
        let c = &s.commands[0];
        assert!(
            c.redirects
                .iter()
                .any(|r| r.writes() && r.target.text == "notes.txt"),
            "{c:?}"
        );
    }

    #[test]
    fn subshell_redirect_and_functions() {
        let s = parse("(cd x && make) > log").unwrap();
        assert!(
            s.commands
                .iter()
                .any(|c| c.redirects.iter().any(|r| r.writes()))
        );
        let s = parse(":(){ :|:& };:").unwrap();
        assert_eq!(s.functions.len(), 1);
        assert_eq!(s.functions[0].0, ":");
    }

    #[test]
    fn dynamic_words() {
        let s = parse("$CMD -rf \"$HOME/x\"").unwrap();
        assert!(s.commands[0].words[0].dynamic);
        assert!(s.commands[0].words[2].dynamic);
    }
}
