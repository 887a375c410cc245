//! The import graph inside Loom's crates, read from their sources: which module names which
//! through `use crate::…` (grouped imports included) and inline `crate::…` paths.
//!
//! Between crates the compiler keeps the arrows (a crate cannot name one its manifest does
//! not list; `crate_graph.rs` checks the manifests against docs/architecture.md). Inside the
//! crates that hold several layers (`loom-core`, and the `loom` package's front ends) this
//! test keeps their top-level modules in layers and out of loops, and inside every crate it
//! keeps files from importing each other in loops other than the few listed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The top-level modules (of `loom-core` or the `loom` package) still allowed to import
/// each other in a loop. Shrink it; never grow it. (Empty since the moves of issue 27; it
/// was 17 modules.)
const ALLOWED_CYCLE: &[&str] = &[];

/// Every crate's source directory, relative to the workspace root, and whether the crate is
/// one layer (its files are compared as one module) or holds top-level modules in layers.
const CRATES: &[(&str, &str, bool)] = &[
    ("loom", "src", false),
    ("loom-base", "crates/loom-base/src", true),
    ("loom-core", "crates/loom-core/src", false),
    ("loom-llm", "crates/loom-llm/src", true),
    ("loom-mcp-server", "crates/loom-mcp-server/src", true),
    ("loom-lsp", "crates/loom-lsp/src", true),
    ("loom-policy", "crates/loom-policy/src", true),
    ("loom-protocol", "crates/loom-protocol/src", true),
    ("loom-sandbox", "crates/loom-sandbox/src", true),
    ("loom-shell", "crates/loom-shell/src", true),
    ("loom-tui", "crates/loom-tui/src", true),
    ("loom-acp", "crates/loom-acp/src", true),
];

/// Loops between files still allowed, each exactly as it stands (found by [`file_graph`]),
/// as `crate::module` names; `(root)` is a crate's `lib.rs`. Break one and take it off; never
/// add one. The pairs issue 27 named (`tui::app` <-> `view` <-> `diff_view`,
/// `agent::delegate` <-> `runner`) are gone, and the TUI's three went when it became
/// components. The loops through crate roots are the old modules' `mod.rs` loops, seen since
/// the reader follows roots (`sandbox.rs` became `loom-sandbox`'s root, `commands.rs`
/// `loom-shell`'s).
const ALLOWED_FILE_LOOPS: &[&[&str]] = &[
    &["loom-core::mcp::server", "loom-core::mcp::tool"],
    &["loom-llm::(root)", "loom-llm::client", "loom-llm::net"],
    &[
        "loom-policy::(root)",
        "loom-policy::call",
        "loom-policy::mcp",
        "loom-policy::network",
        "loom-policy::schedule",
    ],
    &["loom-sandbox::(root)", "loom-sandbox::isolate"],
    &[
        "loom-shell::(root)",
        "loom-shell::links",
        "loom-shell::place",
        "loom-shell::programs",
    ],
    &["loom-shell::coverage", "loom-shell::parse"],
    &[
        "loom-shell::programs::build",
        "loom-shell::programs::build_tools",
        "loom-shell::programs::dev",
        "loom-shell::programs::packages",
    ],
    &[
        "loom-shell::programs::readonly",
        "loom-shell::programs::readonly_table",
    ],
];

/// The layers of the top-level modules of `loom-core` and the `loom` package, bottom first:
/// a module may name modules of its own layer or below, never above: configuration, the
/// stores, tools, what plugs into tools, the agent, the wiring that builds one, and the
/// front ends of the `loom` package. (The layers below, from `loom-base` to `loom-llm` and
/// `loom-policy`, are crates now; the TUI is `loom-tui`.)
const LAYERS: &[&[&str]] = &[
    &["config"],
    &[
        "changelog",
        "cron",
        "custom_commands",
        "memory",
        "review",
        "session",
    ],
    &["tools"],
    &["hooks", "mcp"],
    &["agent"],
    &["compose", "setup"],
    &["cli", "commands", "exec"],
];

/// The workspace root.
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Source with comments, string literals and char literals blanked out, so a path named in
/// a doc comment or a message is not read as an import. Lifetimes stay as they are.
fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if rest.starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(b' ');
        } else if (b[i] == b'r' || b[i] == b'b')
            && (i == 0 || !ident(b[i - 1]))
            && raw_start(rest).is_some()
        {
            let (hashes, open) = raw_start(rest).unwrap_or_default();
            let mut j = i + open;
            while j < b.len()
                && !(b[j] == b'"'
                    && b[j + 1..]
                        .iter()
                        .take(hashes)
                        .filter(|&&c| c == b'#')
                        .count()
                        == hashes)
            {
                j += 1;
            }
            i = (j + 1 + hashes).min(b.len());
            out.extend_from_slice(b"\"\"");
        } else if b[i] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            i = (j + 1).min(b.len());
            out.extend_from_slice(b"\"\"");
        } else if b[i] == b'\'' && rest.get(1) == Some(&b'\\') {
            let close = rest[3..]
                .iter()
                .position(|&c| c == b'\'')
                .map_or(rest.len(), |p| p + 4);
            i += close;
            out.extend_from_slice(b"' '");
        } else if b[i] == b'\'' && char_literal_len(rest).is_some() {
            i += char_literal_len(rest).unwrap_or(1);
            out.extend_from_slice(b"' '");
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// For `r"`, `r#"`, `br"`…: the number of `#` and the length of the opening.
fn raw_start(s: &[u8]) -> Option<(usize, usize)> {
    let s_after_b = if s.first() == Some(&b'b') { &s[1..] } else { s };
    let skipped = s.len() - s_after_b.len();
    if s_after_b.first() != Some(&b'r') {
        return None;
    }
    let hashes = s_after_b[1..].iter().take_while(|&&c| c == b'#').count();
    (s_after_b.get(1 + hashes) == Some(&b'"')).then_some((hashes, skipped + 2 + hashes))
}

/// The byte length of a one-character literal such as `'x'` or `'é'` starting `s`.
fn char_literal_len(s: &[u8]) -> Option<usize> {
    let text = std::str::from_utf8(&s[1..s.len().min(6)])
        .ok()
        .or_else(|| {
            (1..s.len().min(6))
                .rev()
                .find_map(|end| std::str::from_utf8(&s[1..end]).ok())
        })?;
    let c = text.chars().next()?;
    (s.get(1 + c.len_utf8()) == Some(&b'\'')).then_some(2 + c.len_utf8())
}

/// Every path starting `crate::` in `code` (already through [`code_only`]), as segments;
/// `use crate::{a::b, c::{d, e}}` gives `a::b`, `c::d` and `c::e`.
fn crate_paths(code: &str) -> Vec<Vec<String>> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("crate::") {
        let start = from + at;
        from = start + "crate::".len();
        if start > 0 && (b[start - 1].is_ascii_alphanumeric() || b[start - 1] == b'_') {
            continue;
        }
        use_tree(b, from, Vec::new(), &mut out);
    }
    out
}

/// Reads one use-tree at `i` (segments, then perhaps a `{…}` group) into `out`.
fn use_tree(b: &[u8], mut i: usize, mut prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i < b.len() && b[i] == b'{' {
            let mut depth = 0;
            let mut item = i + 1;
            for j in i + 1..b.len() {
                match b[j] {
                    b'{' => depth += 1,
                    b'}' if depth > 0 => depth -= 1,
                    b'}' | b',' if depth == 0 => {
                        use_tree(b, item, prefix.clone(), out);
                        if b[j] == b'}' {
                            return;
                        }
                        item = j + 1;
                    }
                    _ => {}
                }
            }
            return;
        }
        let len = b[i..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
            .count();
        if len == 0 {
            break;
        }
        prefix.push(String::from_utf8_lossy(&b[i..i + len]).into_owned());
        i += len;
        if b[i..].starts_with(b"::") {
            i += 2;
        } else {
            break;
        }
    }
    if !prefix.is_empty() {
        out.push(prefix);
    }
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src/") {
        let path = entry.expect("read src/ entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Module (as `a::b::c`) -> the modules it names -> the files that name them.
type Graph = BTreeMap<String, BTreeMap<String, BTreeSet<String>>>;

/// One source file: the module it is, its code without comments and strings, and its path
/// under `src/` for messages.
struct SourceFile {
    module: Vec<String>,
    code: String,
    shown: String,
}

/// Every file of the crate rooted at `src` but the crate roots. A file brought in with
/// `#[path = "…"] mod name;` (the `*_tests.rs` files) is module `name` inside the module
/// that brings it in.
fn source_files(src: &Path) -> Vec<SourceFile> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut texts = BTreeMap::new();
    let mut included_by = BTreeMap::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("read a source file");
        for (at, _) in text.match_indices("#[path = \"") {
            let rest = &text[at + "#[path = \"".len()..];
            let target = rest.split('"').next().unwrap_or_default();
            let name = rest
                .split_once("mod ")
                .map(|(_, after)| {
                    after
                        .split(|c: char| !c.is_alphanumeric() && c != '_')
                        .next()
                })
                .unwrap_or_default()
                .unwrap_or_default();
            let dir = file.parent().expect("a file has a directory");
            included_by.insert(dir.join(target), (file.clone(), name.to_string()));
        }
        texts.insert(file.clone(), text);
    }
    fn module_of(
        file: &Path,
        src: &Path,
        included_by: &BTreeMap<PathBuf, (PathBuf, String)>,
    ) -> Vec<String> {
        if let Some((parent, name)) = included_by.get(file) {
            let mut module = module_of(parent, src, included_by);
            module.push(name.clone());
            return module;
        }
        let rel = file
            .strip_prefix(src)
            .expect("under src/")
            .with_extension("");
        let mut module: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if module.last().is_some_and(|m| m == "mod") {
            module.pop();
        }
        if module.len() == 1 && (module[0] == "lib" || module[0] == "main") {
            module.clear();
        }
        module
    }
    texts
        .into_iter()
        .map(|(file, text)| SourceFile {
            module: module_of(&file, src, &included_by),
            code: code_only(&text),
            shown: file
                .strip_prefix(src)
                .unwrap_or(&file)
                .display()
                .to_string(),
        })
        .filter(|f| !f.module.is_empty())
        .collect()
}

/// Adds the arrow `from -> to`, named in `file`.
fn add_arrow(graph: &mut Graph, from: &str, to: &str, file: &str) {
    graph.entry(to.to_string()).or_default();
    graph
        .entry(from.to_string())
        .or_default()
        .entry(to.to_string())
        .or_default()
        .insert(file.to_string());
}

/// The top-level module graph of the crate rooted at `src`.
fn module_graph(src: &Path) -> Graph {
    let files = source_files(src);
    let modules: BTreeSet<&str> = files.iter().map(|f| f.module[0].as_str()).collect();
    let mut graph: Graph = modules
        .iter()
        .map(|m| (m.to_string(), BTreeMap::new()))
        .collect();
    for file in &files {
        let from = &file.module[0];
        for path in crate_paths(&file.code) {
            let to = &path[0];
            if to != from && modules.contains(to.as_str()) {
                add_arrow(&mut graph, from, to, &file.shown);
            }
        }
    }
    graph
}

/// The spans of inline `mod name { … }` blocks in `code`, to know what `super` means there.
fn inline_modules(code: &str) -> Vec<(usize, usize, String)> {
    let b = code.as_bytes();
    let mut spans = Vec::new();
    for (at, _) in code.match_indices("mod ") {
        if at > 0 && (b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'_') {
            continue;
        }
        let rest = &code[at + 4..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let after = rest[name.len()..].trim_start();
        if name.is_empty() || !after.starts_with('{') {
            continue;
        }
        let open = code.len() - after.len();
        let mut depth = 0;
        let close = code[open..]
            .char_indices()
            .find(|&(_, c)| {
                depth += match c {
                    '{' => 1,
                    '}' => -1,
                    _ => 0,
                };
                depth == 0
            })
            .map_or(code.len(), |(i, _)| open + i);
        spans.push((open, close, name));
    }
    spans
}

/// The crate root's name in the file graph.
const ROOT: &str = "(root)";

/// What a crate root (`lib.rs`) holds that the file graph needs: the items it defines
/// itself (not the modules it declares, not what it re-exports) and its code.
struct CrateRoot {
    items: BTreeSet<String>,
    code: String,
}

impl CrateRoot {
    /// The root of the crate at `src` (empty for a crate without `lib.rs`).
    fn read(src: &Path) -> CrateRoot {
        let code = std::fs::read_to_string(src.join("lib.rs"))
            .map(|t| code_only(&t))
            .unwrap_or_default();
        let items = code
            .lines()
            .filter_map(|line| {
                let line = line.strip_prefix("pub ").unwrap_or(line);
                let line = line.strip_prefix("pub(crate) ").unwrap_or(line);
                let line = line.strip_prefix("async ").unwrap_or(line);
                [
                    "struct ", "enum ", "fn ", "trait ", "type ", "const ", "static ",
                ]
                .iter()
                .find_map(|k| line.strip_prefix(k))
            })
            .filter_map(|rest| {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                (!name.is_empty()).then_some(name)
            })
            .collect();
        CrateRoot { items, code }
    }

    /// The top-level modules of `top` the root's own code names (`parse::Word`,
    /// `use place::{…}`, `crate::vars::…`), not counting names inside other paths
    /// (`loom_base::paths::…`).
    fn names_modules<'m>(&self, top: &BTreeSet<&'m str>) -> Vec<&'m str> {
        let b = self.code.as_bytes();
        top.iter()
            .copied()
            .filter(|m| {
                self.code.match_indices(&format!("{m}::")).any(|(at, _)| {
                    let before = &self.code[..at];
                    at == 0
                        || !(b[at - 1].is_ascii_alphanumeric()
                            || b[at - 1] == b'_'
                            || b[at - 1] == b':')
                        || before.ends_with("crate::")
                        || before.ends_with("self::")
                })
            })
            .collect()
    }
}

/// The graph of the modules inside each top-level module, one node per file module
/// (`tui::app`, `agent::runner`), from `crate::`, `super::` and `self::` paths. An arrow
/// to a module's own ancestor, or to a `mod.rs` (a folder's front door), is not counted:
/// only siblings and cousins naming each other make a loop worth breaking.
fn file_graph(src: &Path, one_module: bool) -> Graph {
    let files = source_files(src);
    let modules: BTreeMap<Vec<String>, &SourceFile> =
        files.iter().map(|f| (f.module.clone(), f)).collect();
    let mut graph = Graph::new();
    let root = CrateRoot::read(src);
    if one_module {
        let top: BTreeSet<&str> = files
            .iter()
            .filter(|f| f.module.len() == 1)
            .map(|f| f.module[0].as_str())
            .collect();
        for named in root.names_modules(&top) {
            add_arrow(&mut graph, ROOT, named, "lib.rs");
        }
    }
    for file in &files {
        let spans = inline_modules(&file.code);
        let b = file.code.as_bytes();
        for keyword in ["crate::", "super::", "self::"] {
            for (at, _) in file.code.match_indices(keyword) {
                if at > 0
                    && (b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'_' || b[at - 1] == b':')
                {
                    continue;
                }
                let mut here = file.module.clone();
                here.extend(
                    spans
                        .iter()
                        .filter(|(o, c, _)| *o < at && at < *c)
                        .map(|(_, _, n)| n.clone()),
                );
                let mut paths = Vec::new();
                use_tree(b, at + keyword.len(), Vec::new(), &mut paths);
                for mut path in paths {
                    let mut full = match keyword {
                        "crate::" => Vec::new(),
                        "self::" => here.clone(),
                        _ => here[..here.len().saturating_sub(1)].to_vec(),
                    };
                    while keyword == "super::" && path.first().is_some_and(|s| s == "super") {
                        path.remove(0);
                        full.pop();
                    }
                    full.extend(path);
                    let Some(to) = (1..=full.len()).rev().find_map(|n| modules.get(&full[..n]))
                    else {
                        if one_module && full.first().is_some_and(|n| root.items.contains(n)) {
                            add_arrow(&mut graph, &file.module.join("::"), ROOT, &file.shown);
                        }
                        continue;
                    };
                    let ancestor = file.module.starts_with(&to.module);
                    let front_door = to.shown.ends_with("mod.rs");
                    if !ancestor && !front_door && (one_module || to.module[0] == file.module[0]) {
                        add_arrow(
                            &mut graph,
                            &file.module.join("::"),
                            &to.module.join("::"),
                            &file.shown,
                        );
                    }
                }
            }
        }
    }
    graph
}

/// The strongly connected components of `graph` with more than one module (Tarjan).
fn cycles(graph: &Graph) -> Vec<BTreeSet<String>> {
    struct Walk<'g> {
        graph: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        found: Vec<BTreeSet<String>>,
    }
    impl<'g> Walk<'g> {
        fn visit(&mut self, v: &'g str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            for w in self.graph[v].keys() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    self.low.entry(v).and_modify(|l| *l = (*l).min(lw));
                } else if self.stack.contains(&w) {
                    let iw = self.index[w];
                    self.low.entry(v).and_modify(|l| *l = (*l).min(iw));
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = BTreeSet::new();
                while let Some(w) = self.stack.pop() {
                    component.insert(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    self.found.push(component);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v.as_str()) {
            walk.visit(v);
        }
    }
    walk.found
}

/// The arrows inside `component`, with the files behind each, for a failure message.
fn describe(graph: &Graph, component: &BTreeSet<String>) -> String {
    let mut out = String::new();
    for from in component {
        for (to, files) in &graph[from] {
            if component.contains(to) {
                let files: Vec<_> = files.iter().map(String::as_str).collect();
                out.push_str(&format!("  {from} -> {to}: {}\n", files.join(", ")));
            }
        }
    }
    out
}

#[test]
fn every_arrow_points_down_the_layers() {
    let mut graph = module_graph(&root().join("crates/loom-core/src"));
    graph.extend(module_graph(&root().join("src")));
    let layer_of = |m: &str| LAYERS.iter().position(|layer| layer.contains(&m));
    let unplaced: Vec<_> = graph.keys().filter(|m| layer_of(m).is_none()).collect();
    assert!(
        unplaced.is_empty(),
        "{unplaced:?} have no place in LAYERS: add each where it belongs"
    );
    let mut upward = Vec::new();
    for (from, arrows) in &graph {
        for (to, files) in arrows {
            if layer_of(to) > layer_of(from) {
                let files: Vec<_> = files.iter().map(String::as_str).collect();
                upward.push(format!("{from} -> {to}: {}", files.join(", ")));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "arrows pointing up the layers (move what is shared down instead):\n{}",
        upward.join("\n")
    );
}

#[test]
fn files_loop_only_where_the_allowance_says() {
    let listed: BTreeSet<&str> = CRATES.iter().map(|(_, dir, _)| *dir).collect();
    for entry in std::fs::read_dir(root().join("crates")).expect("crates/") {
        let dir = format!(
            "crates/{}/src",
            entry.expect("an entry").file_name().display()
        );
        assert!(listed.contains(dir.as_str()), "{dir} is not in CRATES");
    }
    let mut graph = Graph::new();
    for (name, dir, one_module) in CRATES {
        for (from, arrows) in file_graph(&root().join(dir), *one_module) {
            let arrows = arrows
                .into_iter()
                .map(|(to, files)| (format!("{name}::{to}"), files))
                .collect();
            graph.insert(format!("{name}::{from}"), arrows);
        }
    }
    let found = cycles(&graph);
    let allowed: Vec<BTreeSet<String>> = ALLOWED_FILE_LOOPS
        .iter()
        .map(|l| l.iter().map(|m| m.to_string()).collect())
        .collect();
    let new: Vec<String> = found
        .iter()
        .filter(|c| !allowed.contains(c))
        .map(|c| format!("{c:?}:\n{}", describe(&graph, c)))
        .collect();
    assert!(
        new.is_empty(),
        "files that import each other, not in ALLOWED_FILE_LOOPS as they stand (move what \
         they share into a file both can use; if a listed loop shrank, list it as it is now):\n{}",
        new.join("\n")
    );
    let stale: Vec<_> = allowed.iter().filter(|l| !found.contains(l)).collect();
    assert!(
        stale.is_empty(),
        "{stale:?} no longer loop: take them off ALLOWED_FILE_LOOPS"
    );
}

#[test]
fn the_file_reader_sees_loops_through_a_crate_root() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    let write = |rel: &str, text: &str| std::fs::write(src.join(rel), text).unwrap();
    write(
        "lib.rs",
        "//! a::X in a comment is no arrow\npub mod a;\npub mod b;\npub mod c;\n\
         pub use loom_base::c::Y;\npub struct Door;\npub fn f() -> a::X { a::X }\n",
    );
    write("a.rs", "use crate::Door;\npub struct X;\n");
    write("b.rs", "use super::Door;\n");
    write("c.rs", "pub struct Y;\n");
    let graph = file_graph(src, true);
    let want: BTreeSet<String> = [ROOT, "a"].into_iter().map(String::from).collect();
    assert_eq!(cycles(&graph), vec![want]);
    let from_root: Vec<_> = graph[ROOT].keys().cloned().collect();
    assert_eq!(
        from_root,
        ["a"],
        "the root names a, not c (that path is another crate's)"
    );
    assert!(graph["b"].contains_key(ROOT), "b names the root's Door");
}

#[test]
fn the_file_reader_resolves_super_in_inline_modules_and_skips_ancestors() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    let write = |rel: &str, text: &str| {
        let path = src.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("lib.rs", "pub mod a;\n");
    write(
        "a/mod.rs",
        "pub mod x;\npub mod y;\npub mod z;\npub struct Door;\n",
    );
    write("a/x.rs", "use super::y::Y;\npub struct X;\n");
    write(
        "a/y.rs",
        "pub struct Y;\nfn f() -> crate::a::x::X { todo() }\n",
    );
    write(
        "a/z.rs",
        "use super::Door;\n#[cfg(test)]\nmod tests {\n    use super::*;\n    use super::super::x::X;\n}\n",
    );
    let graph = file_graph(src, false);
    let want: BTreeSet<String> = ["a::x", "a::y"].into_iter().map(String::from).collect();
    assert_eq!(cycles(&graph), vec![want]);
    let z: Vec<_> = graph["a::z"].keys().cloned().collect();
    assert_eq!(
        z,
        ["a::x"],
        "z's tests name x; z's own super (the mod.rs) is not an arrow"
    );
}

#[test]
fn the_module_reader_sees_grouped_and_inline_paths_but_not_comments_or_strings() {
    let code = code_only(
        r##"
        //! Names [`crate::doc_only`] in a comment.
        use crate::{alpha::A, beta::{self, B}, gamma};
        use crate::delta::D;
        /* crate::block_comment */
        fn f() -> u8 {
            let _ = "crate::in_a_string";
            let _ = r#"crate::in_a_raw_string"#;
            let _ = '"';
            let _ = ugly_crate::not_ours;
            crate::epsilon::run::<'static>()
        }
        "##,
    );
    let firsts: BTreeSet<String> = crate_paths(&code)
        .into_iter()
        .map(|p| p[0].clone())
        .collect();
    let want: BTreeSet<String> = ["alpha", "beta", "gamma", "delta", "epsilon"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(firsts, want);
}

#[test]
fn the_cycle_finder_reports_loops_and_only_loops() {
    let mut graph = Graph::new();
    let mut arrow = |a: &str, b: &str| {
        graph
            .entry(a.into())
            .or_default()
            .entry(b.into())
            .or_default()
            .insert(String::new());
        graph.entry(b.into()).or_default();
    };
    arrow("a", "b");
    arrow("b", "c");
    arrow("c", "a");
    arrow("c", "d");
    arrow("d", "e");
    let found = cycles(&graph);
    let want: BTreeSet<String> = ["a", "b", "c"].into_iter().map(String::from).collect();
    assert_eq!(found, vec![want]);
}

#[test]
fn top_level_modules_loop_no_wider_than_the_allowance() {
    let mut graph = module_graph(&root().join("crates/loom-core/src"));
    graph.extend(module_graph(&root().join("src")));
    let allowed: BTreeSet<String> = ALLOWED_CYCLE.iter().map(|m| m.to_string()).collect();
    let found = cycles(&graph);
    for component in &found {
        let outside: Vec<_> = component.difference(&allowed).collect();
        assert!(
            outside.is_empty(),
            "{outside:?} joined the import loop of {} modules; the arrows in it:\n{}\
             Move what they share to a lower module instead.",
            component.len(),
            describe(&graph, component),
        );
    }
    let looping: BTreeSet<String> = found.into_iter().flatten().collect();
    let stale: Vec<_> = allowed.difference(&looping).collect();
    assert!(
        stale.is_empty(),
        "{stale:?} no longer loop: take them off ALLOWED_CYCLE so the loop cannot grow back"
    );
}
