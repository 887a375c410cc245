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
    /// For a command or process substitution holding one simple command and nothing
    /// else, its words.
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
            "redirected_statement" => self.visit_redirected(node),
            "pipeline" => self.visit_pipeline(node),
            "function_definition" => self.visit_function(node),
            "command_substitution" | "process_substitution" | "arithmetic_expansion" => {
                // Outside a word (in `(( … ))`, say): walked as one, so it counts as seen.
                let _ = self.word(node);
            }
            "compound_statement" | "subshell" | "do_group" | "if_statement" | "while_statement"
            | "case_statement" | "else_clause" | "elif_clause" => self.visit_block(node),
            "for_statement" => self.visit_for(node),
            _ => self.visit_children(node),
        }
    }

    /// A statement with redirects (`cmd > file`, `cmd <<EOF`): the body is walked, then
    /// its redirects, heredocs and here-strings are attached to its last command.
    fn visit_redirected(&mut self, node: Node<'_>) {
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
        self.attach(owner, redirects, node, expands, stdin);
        if let Some(owner) = owner {
            self.heredoc_pipeline(node, piped_before, owner);
        }
    }

    /// `a | b | c`: each stage walked, and the commands of each recorded as a pipeline.
    fn visit_pipeline(&mut self, node: Node<'_>) {
        let mut stages = Vec::new();
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            let before = self.script.commands.len();
            self.visit(child);
            stages.push((before..self.script.commands.len()).collect());
        }
        self.script.pipelines.push(stages);
    }

    /// `name() { … } > file`: the body walked and recorded under the name; redirects on
    /// the definition become a command of their own.
    fn visit_function(&mut self, node: Node<'_>) {
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

    /// A block (`{ … }`, `( … )`, `if`, `while`, `case` ...): its statements walked
    /// outside any `&&` chain.
    fn visit_block(&mut self, node: Node<'_>) {
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

    /// `for NAME in WORDS; do …; done`: the assignments of NAME, then the body.
    fn visit_for(&mut self, node: Node<'_>) {
        // `for NAME in WORDS`: NAME is assigned each word, as `NAME=WORD` would.
        let name = node
            .child_by_field_name("variable")
            .map(|n| self.text(n))
            .unwrap_or_default();
        let mut cursor = node.walk();
        let values: Vec<Node<'_>> = node.children_by_field_name("value", &mut cursor).collect();
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

    /// Any other node: its named children walked in order, and the commands of one
    /// followed by `&` recorded as running in the background.
    fn visit_children(&mut self, node: Node<'_>) {
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
}

mod redirects;
mod words;

pub use words::ansi_c;

#[cfg(test)]
mod tests;
