//! Function length, read from the sources: no function of non-test code grows past
//! [`LIMIT`] lines unless it is a table (a `match` of program names, a static list of
//! options) or one of the few long ones still waiting to be split.
//!
//! Issue 27 aims at no function over about 80 lines outside tables and tests; this test
//! keeps the ones over [`LIMIT`] from coming back. A function's length is its lines from
//! the `fn` line to its closing brace at the same indent, both counted. Test code is
//! skipped: files named `tests.rs` or `*_tests.rs`, directories named `tests`, and items
//! under `#[cfg(test)]`.

use std::path::{Path, PathBuf};

/// The most lines a function outside [`TABLES`] and [`LEFT`] may take: issue 27's 80.
const LIMIT: usize = 80;

/// Tables, exempt from [`LIMIT`]: functions that are mostly a `match` on program or
/// subcommand names or a static list of options (the command classifier's knowledge), as
/// `(file, function)`. A table that falls under [`LIMIT`] comes off the list.
const TABLES: &[(&str, &str)] = &[
    ("crates/loom-shell/src/programs/builtins.rs", "builtin"),
    ("crates/loom-shell/src/programs/build.rs", "cargo"),
    ("crates/loom-shell/src/programs/build.rs", "go_build"),
    (
        "crates/loom-shell/src/programs/build_tools.rs",
        "build_options",
    ),
    ("crates/loom-shell/src/programs/find.rs", "find"),
    ("crates/loom-shell/src/programs/git.rs", "read_only_spec"),
    ("crates/loom-shell/src/programs/make.rs", "make"),
    ("crates/loom-shell/src/programs/readonly_table.rs", "lookup"),
    ("crates/loom-shell/src/programs/tar.rs", "tar"),
    ("crates/loom-shell/src/programs/wrappers.rs", "wrapper"),
];

/// Functions over [`LIMIT`] lines that are not tables, still to be split along their
/// seams, as `(file, function)`. Shrink it; never grow it. (Issue 27 split the four
/// longest (the browser's event watch and actions, the model client's stream, the file
/// search), then the file writer's `apply` and the schema cleaner, then the command
/// classifier's `word`, `named_program`, sed's `read_script`, `visit_inner` and git's
/// `subcommand`.)
const LEFT: &[(&str, &str)] = &[];

/// One function found in a source file.
#[derive(Debug, PartialEq, Eq)]
struct Function {
    name: String,
    /// 1-based line of its `fn`.
    line: usize,
    /// Lines from the `fn` line to the closing brace, both counted.
    lines: usize,
}

/// The name of the function a line declares, and the line's indent, when it starts one
/// (`pub(crate) async fn name`, `const unsafe fn name`, ...).
fn declares(line: &str) -> Option<(&str, &str)> {
    let rest = line.trim_start();
    let indent = &line[..line.len() - rest.len()];
    let mut words = rest.split_whitespace().peekable();
    while let Some(w) = words.peek() {
        let qualifier = w.starts_with("pub")
            || matches!(*w, "const" | "async" | "unsafe" | "default" | "extern")
            || w.starts_with('"');
        if !qualifier {
            break;
        }
        words.next();
    }
    if words.next() != Some("fn") {
        return None;
    }
    let name = words.next()?;
    let end = name
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(name.len());
    (end > 0).then(|| (indent, &name[..end]))
}

/// Whether a line opens a module block (`mod name {`), and its indent.
fn opens_module(line: &str) -> Option<&str> {
    let rest = line.trim_start();
    let indent = &line[..line.len() - rest.len()];
    let rest = rest
        .strip_prefix("pub(crate) ")
        .or_else(|| rest.strip_prefix("pub "))
        .unwrap_or(rest);
    (rest.starts_with("mod ") && rest.trim_end().ends_with('{')).then_some(indent)
}

/// The 0-based index of the first line after `start` that closes a block opened at
/// `indent` (a line starting with `indent` then `}`).
fn closing(lines: &[&str], start: usize, indent: &str) -> usize {
    (start + 1..lines.len())
        .find(|&k| {
            lines[k]
                .strip_prefix(indent)
                .is_some_and(|r| r.starts_with('}'))
        })
        .unwrap_or(lines.len().saturating_sub(1))
}

/// Every function with a body in `source` outside test code, with its length. Bodies on
/// one line and declarations without a body are skipped.
fn functions(source: &str) -> Vec<Function> {
    let lines: Vec<&str> = source.lines().collect();
    let mut found = Vec::new();
    let mut test_only = false;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let code = line.trim();
        if code.starts_with("#[cfg(test)]") {
            test_only = true;
            i += 1;
            continue;
        }
        if code.is_empty() || code.starts_with("//") || code.starts_with("#[") {
            i += 1;
            continue;
        }
        let skip = std::mem::take(&mut test_only);
        if let Some(indent) = opens_module(line)
            && (skip || code.contains("mod tests"))
        {
            i = closing(&lines, i, indent) + 1;
            continue;
        }
        if let Some((indent, name)) = declares(line)
            && let Some(open) = body_start(&lines, i)
        {
            let one_line = open == i && line.trim_end().ends_with('}');
            if !one_line {
                let end = closing(&lines, open, indent);
                if !skip {
                    found.push(Function {
                        name: name.to_string(),
                        line: i + 1,
                        lines: end - i + 1,
                    });
                }
                if skip {
                    i = end;
                }
            }
        }
        i += 1;
    }
    found
}

/// The 0-based line where the body of the function declared at `start` opens, or `None`
/// for a declaration ending in `;`.
fn body_start(lines: &[&str], start: usize) -> Option<usize> {
    for (k, line) in lines.iter().enumerate().skip(start) {
        let code = line.split("//").next().unwrap_or("").trim_end();
        if code.contains('{') {
            return Some(k);
        }
        if code.ends_with(';') {
            return None;
        }
    }
    None
}

/// Every non-test `.rs` file of the workspace's sources, relative to the root.
fn sources(root: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if name != "tests" {
                    walk(&path, out);
                }
            } else if name.ends_with(".rs") && name != "tests.rs" && !name.ends_with("_tests.rs") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root.join("src"), &mut out);
    let crates = std::fs::read_dir(root.join("crates")).expect("read crates/");
    for krate in crates.flatten() {
        walk(&krate.path().join("src"), &mut out);
    }
    out.sort();
    out
}

/// Every function of the workspace over [`LIMIT`] lines, as `(file, function, lines, line)`.
fn long_functions() -> Vec<(String, String, usize, usize)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut long = Vec::new();
    for path in sources(root) {
        let source = std::fs::read_to_string(&path).expect("read a source file");
        let shown = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .to_string_lossy()
            .into_owned();
        for f in functions(&source) {
            if f.lines > LIMIT {
                long.push((shown.clone(), f.name, f.lines, f.line));
            }
        }
    }
    long
}

#[test]
fn no_new_function_runs_past_the_limit_outside_tables() {
    let long = long_functions();
    let listed = |file: &str, name: &str| {
        TABLES
            .iter()
            .chain(LEFT)
            .any(|(f, n)| *f == file && *n == name)
    };
    let new: Vec<String> = long
        .iter()
        .filter(|(file, name, ..)| !listed(file, name))
        .map(|(file, name, lines, line)| format!("{file}:{line} {name} ({lines} lines)"))
        .collect();
    assert!(
        new.is_empty(),
        "these functions are over {LIMIT} lines; split them along their seams (named \
         helpers, a small struct with one purpose), or, for a table of names, list it in \
         TABLES:\n{}",
        new.join("\n")
    );
    let stale: Vec<String> = TABLES
        .iter()
        .chain(LEFT)
        .filter(|(f, n)| !long.iter().any(|(file, name, ..)| file == f && name == n))
        .map(|(f, n)| format!("{f} {n}"))
        .collect();
    assert!(
        stale.is_empty(),
        "these listed functions are no longer over {LIMIT} lines (or are gone); take them \
         off TABLES or LEFT in tests/it/function_length.rs:\n{}",
        stale.join("\n")
    );
}

#[test]
fn the_reader_measures_bodies_and_skips_test_code() {
    let body = "    let x = 1;\n".repeat(5);
    let source = format!(
        "/// A doc.\npub(crate) async fn outer(\n    a: u8,\n) -> u8 {{\n{body}    a\n}}\n\
         fn one_liner() {{ 1 }}\ntrait T {{\n    fn declared(&self);\n    fn given(&self) {{\n{body}    }}\n}}\n\
         #[cfg(test)]\nfn only_in_tests() {{\n{body}}}\n\
         #[cfg(test)]\nmod checks {{\n    fn inside() {{\n{body}    }}\n}}\n\
         mod tests {{\n    fn also_inside() {{\n{body}    }}\n}}\n"
    );
    let found = functions(&source);
    let names: Vec<(&str, usize, usize)> = found
        .iter()
        .map(|f| (f.name.as_str(), f.line, f.lines))
        .collect();
    // `outer`: signature (3 lines), 5 body lines, `a`, the brace = 10; `given`: 1 + 5 + 1.
    assert_eq!(names, vec![("outer", 2, 10), ("given", 15, 7)]);
}
