//! Which tools each request carries: the prompt budget (issue 24).
//!
//! Every schema is sent with every request, and local models have small windows: the 18
//! built-in tools took 4,900 tokens before the first message, and each MCP server adds
//! more. So only the core tools (read, write, edit or patch, list, search, bash) are always
//! sent. The rest — web, browser, memory, cron, oracle, delegate and every MCP tool — are
//! *deferred*: the `load_tools` tool's description carries a bounded one-line catalogue of
//! them, and a `load_tools {names}` or `{query}` call makes their full schemas part of every
//! later request of the session (as Claude Code's deferred tools do). The loaded set is
//! recorded in the session, so a resumed session still has them.
//!
//! A deferred tool the model calls without loading it is run all the same (its arguments
//! are parsed by its own type, like any call) and loaded on the way, so its schema is sent
//! from the next request on: the model learns it either way, and a call that names its
//! arguments right is not refused for a formality.
//!
//! Small windows afford less: [`Level`] orders what can be left out, richest first.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use serde_json::Value;

/// The tools every request carries (those of them the registry has).
pub const CORE: &[&str] = &[
    "read_file",
    "write_file",
    "edit_file",
    "apply_patch",
    "list_files",
    "search_files",
    "bash",
    "update_plan",
];

/// The name of the tool that loads deferred tools.
pub const LOAD_TOOLS: &str = "load_tools";

/// Most catalogue entries listed; the rest are counted and found with a query.
pub const CATALOGUE_MAX_ENTRIES: usize = 24;
/// Most characters of the catalogue (entries past it are counted, not listed).
pub const CATALOGUE_MAX_CHARS: usize = 1_600;
/// Most characters of one entry's summary.
const SUMMARY_MAX_CHARS: usize = 60;
/// A comma ends a summary only past this many characters.
const SUMMARY_MIN_CHARS: usize = 20;

/// What a request carries, richest first; a small window takes a later level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Core and loaded tools, and `load_tools` with a "name — what it does" catalogue.
    Full,
    /// The same with a catalogue of names only.
    Names,
    /// Core and loaded tools; no catalogue and no `load_tools`.
    NoCatalogue,
    /// The core tools only.
    Core,
}

impl Level {
    /// Every level, richest first.
    pub const ALL: [Level; 4] = [Level::Full, Level::Names, Level::NoCatalogue, Level::Core];
}

/// One deferred tool as the catalogue knows it.
#[derive(Debug, Clone)]
struct Entry {
    name: String,
    description: String,
}

#[derive(Debug, Default)]
struct State {
    /// Deferred tools loaded this session.
    loaded: BTreeSet<String>,
    /// Loaded since the session last recorded them.
    unrecorded: Vec<String>,
    /// The deferred tools offered at the last request (MCP tools come and go).
    deferred: Vec<Entry>,
}

/// The session's offer: which deferred tools are loaded, shared by the runner (which
/// builds each request) and the `load_tools` tool (which loads them).
#[derive(Debug, Clone, Default)]
pub struct ToolOffer {
    state: Arc<Mutex<State>>,
}

/// The name of a function-tool schema.
pub fn name_of(schema: &Value) -> &str {
    schema["function"]["name"].as_str().unwrap_or("")
}

/// Whether `name` is one of the tools every request carries.
pub fn is_core(name: &str) -> bool {
    CORE.contains(&name)
}

impl ToolOffer {
    /// An offer with `loaded` already loaded (a resumed session's).
    pub fn new(loaded: impl IntoIterator<Item = String>) -> ToolOffer {
        let offer = ToolOffer::default();
        offer.lock().loaded.extend(loaded);
        offer
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The deferred tools loaded so far.
    pub fn loaded(&self) -> Vec<String> {
        self.lock().loaded.iter().cloned().collect()
    }

    /// Tools loaded since the last call, for the session record.
    pub fn take_unrecorded(&self) -> Vec<String> {
        std::mem::take(&mut self.lock().unrecorded)
    }

    /// Whether `name` is a deferred tool that is not loaded (as of the last request).
    pub fn is_unloaded(&self, name: &str) -> bool {
        let state = self.lock();
        !state.loaded.contains(name) && state.deferred.iter().any(|e| e.name == name)
    }

    /// Load `names` (deferred tools the catalogue lists); returns those newly loaded.
    pub fn load(&self, names: &[String]) -> Vec<String> {
        let mut state = self.lock();
        let mut newly = Vec::new();
        for name in names {
            let known = state.deferred.iter().any(|e| &e.name == name);
            if known && state.loaded.insert(name.clone()) {
                newly.push(name.clone());
            }
        }
        state.unrecorded.extend(newly.iter().cloned());
        newly
    }

    /// The deferred tools best matching `query` (words of their names and descriptions),
    /// at most `max`, best first.
    pub fn search(&self, query: &str, max: usize) -> Vec<String> {
        let whole = query.trim().to_lowercase();
        let words: Vec<String> = query
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.len() >= 2 || (!w.is_empty() && w.chars().all(|c| c.is_ascii_digit())))
            .map(str::to_lowercase)
            .collect();
        let state = self.lock();
        let mut scored: Vec<(usize, usize, &str)> = state
            .deferred
            .iter()
            .enumerate()
            .filter_map(|(i, e)| {
                let name = e.name.to_lowercase();
                let text = e.description.to_lowercase();
                // A name the query spells out wins; then names, then descriptions, by word.
                let spelled = match () {
                    _ if whole.is_empty() => 0,
                    _ if name.ends_with(&whole) => 20,
                    _ if name.contains(&whole) => 10,
                    _ => 0,
                };
                let score: usize = spelled
                    + words
                        .iter()
                        .map(|w| {
                            3 * usize::from(name.contains(w.as_str()))
                                + text.matches(w.as_str()).count().min(2)
                        })
                        .sum::<usize>();
                (score > 0).then_some((score, i, e.name.as_str()))
            })
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        scored
            .into_iter()
            .take(max)
            .map(|(_, _, n)| n.to_string())
            .collect()
    }

    /// The names of the deferred tools (as of the last request).
    pub fn deferred_names(&self) -> Vec<String> {
        self.lock()
            .deferred
            .iter()
            .map(|e| e.name.clone())
            .collect()
    }

    /// From every tool's schema (`all`, in the registry's order), those a request at
    /// `level` carries: the core tools, the loaded ones (unless [`Level::Core`]) and
    /// `load_tools` with the catalogue of the others (at [`Level::Full`] and
    /// [`Level::Names`], when any are left to load). The catalogue is refreshed from `all`.
    pub fn select(&self, all: &[Value], level: Level) -> Vec<Value> {
        let mut state = self.lock();
        state.deferred = all
            .iter()
            .filter(|s| !is_core(name_of(s)) && name_of(s) != LOAD_TOOLS)
            .map(|s| Entry {
                name: name_of(s).to_string(),
                description: s["function"]["description"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
            })
            .collect();
        let mut out: Vec<Value> = Vec::new();
        for s in all {
            let name = name_of(s);
            if is_core(name) || (level < Level::Core && state.loaded.contains(name)) {
                out.push(lean(s));
            }
        }
        let unloaded: Vec<&Entry> = state
            .deferred
            .iter()
            .filter(|e| !state.loaded.contains(&e.name))
            .collect();
        if level <= Level::Names
            && !unloaded.is_empty()
            && let Some(load) = all.iter().find(|s| name_of(s) == LOAD_TOOLS)
        {
            let mut load = lean(load);
            let base = load["function"]["description"]
                .as_str()
                .unwrap_or("")
                .to_string();
            load["function"]["description"] =
                Value::String(format!("{base}\n{}", catalogue(&unloaded, level)));
            out.push(load);
        }
        out
    }
}

/// `schema` without the description of its parameters as a whole (the argument type's
/// doc comment, "Arguments of `read_file`."): the tool's description says it.
fn lean(schema: &Value) -> Value {
    let mut schema = schema.clone();
    if let Some(params) = schema["function"]["parameters"].as_object_mut() {
        params.remove("description");
    }
    schema
}

/// The catalogue of `entries`: one "name — what it does" line each at [`Level::Full`], a
/// list of names at [`Level::Names`]; bounded in entries and characters, the rest counted.
fn catalogue(entries: &[&Entry], level: Level) -> String {
    let mut out = String::from("Tools to load:");
    let mut listed = 0;
    for e in entries {
        let item = match level {
            Level::Full => format!("\n{} — {}", e.name, summary(&e.description)),
            _ if listed == 0 => format!(" {}", e.name),
            _ => format!(", {}", e.name),
        };
        if listed == CATALOGUE_MAX_ENTRIES || out.len() + item.len() > CATALOGUE_MAX_CHARS {
            break;
        }
        out.push_str(&item);
        listed += 1;
    }
    let rest = entries.len() - listed;
    if rest > 0 {
        out.push_str(&format!(
            "\n… and {rest} more not listed: find them with a query"
        ));
    }
    out
}

/// What a tool does in a few words: its description up to the first break (a sentence,
/// a colon, a parenthesis; a comma only past the first few words), at most
/// [`SUMMARY_MAX_CHARS`], cut at a word.
fn summary(description: &str) -> String {
    let line = description.lines().next().unwrap_or("").trim();
    let mut end = line.len();
    for stop in [". ", ": ", " (", "; ", " — ", ", "] {
        let from = if stop == ", " { SUMMARY_MIN_CHARS } else { 0 };
        if let Some(at) = line.get(from..).and_then(|rest| rest.find(stop)) {
            end = end.min(from + at);
        }
    }
    let mut text = line[..end].trim_end_matches('.').to_string();
    if text.chars().count() > SUMMARY_MAX_CHARS {
        let cut: String = text.chars().take(SUMMARY_MAX_CHARS).collect();
        text = match cut.rfind(' ') {
            Some(at) => format!("{}…", &cut[..at]),
            None => format!("{cut}…"),
        };
    }
    text
}

/// The tools of `schemas` as text, for a chat template that cannot carry tools: how to
/// call one in the text (the markup [`crate::llm::text_calls`] reads back), then a line
/// per tool with its arguments (`?`: optional) and description.
pub fn as_text(schemas: &[Value]) -> String {
    let mut out = String::from(
        "Tools: call one by writing exactly\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": \
         {\"path\": \"src/main.rs\"}}\n</tool_call>\nand wait for its result. Available:",
    );
    for s in schemas {
        let f = &s["function"];
        out.push_str(&format!(
            "\n- {}{}: {}",
            name_of(s),
            super::args::field_summary(&f["parameters"]),
            f["description"].as_str().unwrap_or("")
        ));
    }
    out
}

#[cfg(test)]
#[path = "offer_tests.rs"]
mod tests;
