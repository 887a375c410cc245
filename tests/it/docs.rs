//! The documentation stays true to the tree: the README's two commands work as written,
//! every link between the README and `docs/` lands on a page (and heading) that exists, and
//! every configuration key Loom accepts is named in `docs/configuration.md`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::{self, Visitor};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The lines of every fenced ```sh block of a markdown text.
fn shell_lines(markdown: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut in_sh = false;
    for line in markdown.lines() {
        let trimmed = line.trim();
        if let Some(lang) = trimmed.strip_prefix("```") {
            in_sh = !in_sh && lang == "sh";
        } else if in_sh {
            lines.push(trimmed.to_string());
        }
    }
    lines
}

/// The README's quick start gives exactly `cargo run --release` and `cargo test`, and the
/// tree makes both true: `cargo run` has one binary to run (`default-run`, which exists),
/// and `cargo test` reaches every integration-test file (each is a module of
/// `tests/it/main.rs`; a file left out would never run).
#[test]
fn the_readme_gives_the_two_commands_and_both_hold() {
    let readme = read("README.md");
    let commands: Vec<String> = shell_lines(&readme)
        .iter()
        .map(|l| l.split('#').next().unwrap_or("").trim().to_string())
        .collect();
    for wanted in ["cargo run --release", "cargo test"] {
        assert!(
            commands.iter().any(|c| c == wanted),
            "README.md has no ```sh line running `{wanted}`: {commands:?}"
        );
    }

    let manifest: toml::Value = toml::from_str(&read("Cargo.toml")).expect("Cargo.toml parses");
    let default_run = manifest["package"]["default-run"]
        .as_str()
        .expect("[package] default-run names the binary `cargo run` starts");
    let bins = manifest["bin"].as_array().expect("[[bin]] tables");
    let bin = bins
        .iter()
        .find(|b| b["name"].as_str() == Some(default_run))
        .unwrap_or_else(|| panic!("default-run = {default_run:?} names no [[bin]]"));
    let bin_path = bin["path"].as_str().expect("the binary's path");
    assert!(root().join(bin_path).is_file(), "{bin_path} is missing");

    let main = read("tests/it/main.rs");
    let declared: BTreeSet<String> = main
        .lines()
        .filter_map(|l| l.trim().strip_prefix("mod "))
        .map(|m| m.trim_end_matches(';').to_string())
        .collect();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(root().join("tests/it")).expect("tests/it") {
        let path = entry.expect("an entry of tests/it").path();
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        if path.extension().is_some_and(|e| e == "rs") && stem != "main" {
            files.push(stem.to_string());
        }
    }
    assert!(!files.is_empty(), "tests/it holds no test files");
    for file in files {
        assert!(
            declared.contains(&file),
            "tests/it/{file}.rs is not a module of tests/it/main.rs, so `cargo test` skips it"
        );
    }
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_' || *c == ' ')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a markdown file's headings (outside code blocks).
fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut in_code = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        } else if !in_code && line.starts_with('#') {
            out.insert(anchor(line.trim_start_matches('#')));
        }
    }
    out
}

/// The relative link targets of a markdown text, code spans and blocks left out.
fn local_links(markdown: &str) -> Vec<String> {
    let link = regex::Regex::new(r"\]\(([^)\s]+)\)").expect("the link pattern");
    let mut out = Vec::new();
    let mut in_code = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        // Text inside `code spans` is not a link.
        let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        for cap in link.captures_iter(&prose) {
            let target = &cap[1];
            if !target.contains("://") && !target.starts_with("mailto:") {
                out.push(target.to_string());
            }
        }
    }
    out
}

/// Checks every local link of one markdown file; returns the broken ones.
fn broken_links(file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let dir = file.parent().expect("a file's directory");
    let mut broken = Vec::new();
    for target in local_links(&text) {
        let (path, fragment) = match target.split_once('#') {
            Some((p, f)) => (p, Some(f)),
            None => (target.as_str(), None),
        };
        let page: PathBuf = if path.is_empty() {
            file.to_path_buf()
        } else {
            dir.join(path)
        };
        let Ok(page_text) = std::fs::read_to_string(&page) else {
            broken.push(format!("{}: {target} (no such file)", file.display()));
            continue;
        };
        if let Some(fragment) = fragment
            && !anchors(&page_text).contains(fragment)
        {
            broken.push(format!("{}: {target} (no such heading)", file.display()));
        }
    }
    broken
}

/// Every `docs/*.md` page the README links to exists, and so does every page and heading
/// the docs link to among themselves; every docs page is reachable from the README.
#[test]
fn every_docs_link_from_the_readme_resolves() {
    let readme = root().join("README.md");
    let linked: BTreeSet<String> = local_links(&read("README.md"))
        .into_iter()
        .filter_map(|l| l.split('#').next().map(str::to_string))
        .collect();
    let mut pages = Vec::new();
    for entry in std::fs::read_dir(root().join("docs")).expect("docs/") {
        let path = entry.expect("an entry of docs/").path();
        if path.extension().is_some_and(|e| e == "md") {
            pages.push(path);
        }
    }
    assert!(pages.len() >= 10, "docs/ holds only {} pages", pages.len());
    let mut broken = broken_links(&readme);
    for page in &pages {
        broken.extend(broken_links(page));
        let name = page
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let rel = format!("docs/{name}");
        assert!(linked.contains(&rel), "README.md does not link to {rel}");
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// A deserializer that answers only with the field names a `#[derive(Deserialize)]`
/// struct declares: serde hands them to `deserialize_struct`. This lists the keys Loom
/// accepts from the code itself, so a new key fails the test until it is documented.
struct FieldNames;

#[derive(Debug)]
struct Fields(Vec<&'static str>);

impl std::fmt::Display for Fields {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "fields: {:?}", self.0)
    }
}

impl std::error::Error for Fields {}

impl de::Error for Fields {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        panic!("not a struct: {msg}")
    }
}

impl<'de> de::Deserializer<'de> for FieldNames {
    type Error = Fields;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Fields> {
        panic!("the type is not a struct with named fields")
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Fields> {
        Err(Fields(fields.to_vec()))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

/// The keys of one config table, read from its type.
fn keys_of<'de, T: Deserialize<'de>>() -> Vec<&'static str> {
    match T::deserialize(FieldNames) {
        Err(Fields(fields)) => fields,
        Ok(_) => panic!("a struct cannot be built from no fields"),
    }
}

/// The keys a markdown page names: every `dotted.key` in a code span, and every `key =`
/// of its TOML examples under the table header above it, and the tables those headers name
/// (`[mcp_servers.time]` counts as `mcp_servers.NAME`).
fn named_keys(markdown: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, span) in markdown.split('`').enumerate() {
        if i % 2 == 1 {
            out.insert(span.to_string());
        }
    }
    let mut in_toml = false;
    let mut table = String::new();
    for line in markdown.lines() {
        let trimmed = line.trim();
        if let Some(lang) = trimmed.strip_prefix("```") {
            in_toml = !in_toml && lang == "toml";
            table.clear();
        } else if in_toml {
            if let Some(header) = trimmed.strip_prefix('[') {
                let name = header.trim_matches(|c| c == '[' || c == ']');
                table = match name.strip_prefix("mcp_servers.") {
                    Some(_) => "mcp_servers.NAME".to_string(),
                    None => name.to_string(),
                };
                // The header names its table and every table it sits in.
                let mut prefix = String::new();
                for part in table.split('.') {
                    if !prefix.is_empty() {
                        prefix.push('.');
                    }
                    prefix.push_str(part);
                    out.insert(prefix.clone());
                }
            } else if let Some((key, _)) = trimmed.split_once('=') {
                let key = key.trim();
                if key.chars().all(|c| c.is_ascii_lowercase() || c == '_') && !key.is_empty() {
                    out.insert(if table.is_empty() {
                        key.to_string()
                    } else {
                        format!("{table}.{key}")
                    });
                }
            }
        }
    }
    out
}

/// Every configuration key Loom accepts, at the top level and in every table (the
/// approval rules, hooks, tools, web, web search, oracle and MCP server tables), is named
/// in `docs/configuration.md` (as `table.key` or in a TOML example under its table), and
/// every dotted key of the trust classification has its row in the table there.
#[test]
fn every_config_key_is_in_the_configuration_page() {
    use loom::config::{
        ApprovalConfig, EventHookConfig, FileConfig, HookConfig, HooksConfig, OracleConfig,
        ToolsConfig,
    };
    let page = read("docs/configuration.md");
    let named = named_keys(&page);
    let tables: [(&str, Vec<&str>); 11] = [
        ("", keys_of::<FileConfig>()),
        ("approval", keys_of::<ApprovalConfig>()),
        (
            "approval.rules",
            keys_of::<loom::policy::approvals::RuleConfig>(),
        ),
        ("tools", keys_of::<ToolsConfig>()),
        ("hooks", keys_of::<HooksConfig>()),
        ("hooks.post_tools", keys_of::<HookConfig>()),
        ("hooks.PreToolUse", keys_of::<EventHookConfig>()),
        ("web", keys_of::<loom::config::web::WebConfig>()),
        (
            "web_search",
            keys_of::<loom::config::web::WebSearchConfig>(),
        ),
        ("oracle", keys_of::<OracleConfig>()),
        (
            "mcp_servers.NAME",
            keys_of::<loom::config::mcp::McpServerConfig>(),
        ),
    ];
    let mut missing = Vec::new();
    for (table, keys) in &tables {
        assert!(!keys.is_empty(), "[{table}] lists no keys");
        for key in keys {
            let full = if table.is_empty() {
                (*key).to_string()
            } else {
                format!("{table}.{key}")
            };
            if !named.contains(&full) {
                missing.push(full);
            }
        }
    }
    assert!(
        missing.is_empty(),
        "docs/configuration.md does not name these keys: {missing:?}"
    );
    for row in loom::config::trust::CLASSIFICATION {
        assert!(
            page.contains(&format!("| `{}` |", row.key)),
            "docs/configuration.md's table lacks {}",
            row.key
        );
    }
}
