//! The structured data each built-in tool attaches to its result (`ToolResult::data`), as
//! Rust types (issue 27). Tools build their result from these values
//! ([`ToolResult::with`](crate::tool_result::ToolResult::with)) and front ends read them
//! back ([`ToolResult::data_as`](crate::tool_result::ToolResult::data_as)) instead of
//! looking keys up in JSON. Their serde form is exactly the JSON the tools wrote before
//! (same keys, same order, the same keys left out), so the model's view, the session
//! files already on disk and `loom exec --json` are unchanged. Every type reads tolerantly:
//! a missing key takes its default, so an older session's results still read.

use serde::{Deserialize, Deserializer, Serialize};

mod files;
mod web;

pub use files::{ApplyPatchData, FileChangeData};
pub use web::{BrowserData, HttpData, SearchHit, WebFetchData, WebSearchData};

/// Whether a flag is unset, for `skip_serializing_if` (a key written only when true).
fn is_false(b: &bool) -> bool {
    !*b
}

/// A `null` read as the default, as a missing key is (an older or hand-made result may
/// write `"stdout": null`).
fn nullable<'de, D: Deserializer<'de>, T: Default + Deserialize<'de>>(d: D) -> Result<T, D::Error> {
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// `bash`'s result (also a `!command`'s): the command's streams and how it ended.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct BashData {
    /// The exit code; `null` when the command was killed by a signal or timed out.
    pub exit_code: Option<i64>,
    /// Standard output (cut in the middle past the output budget).
    #[serde(deserialize_with = "nullable")]
    pub stdout: String,
    /// Standard error (cut likewise).
    #[serde(deserialize_with = "nullable")]
    pub stderr: String,
    /// Whether the command ran out of time.
    #[serde(deserialize_with = "nullable")]
    pub timed_out: bool,
    /// Whether either stream was cut.
    #[serde(deserialize_with = "nullable")]
    pub truncated: bool,
    /// How long the command ran, in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// The directory it ran in, as shown to the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Whether it ran in the sandbox.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandboxed: Option<bool>,
    /// Whether its output looks like the sandbox refused something (written only then).
    #[serde(skip_serializing_if = "is_false", deserialize_with = "nullable")]
    pub sandbox_denied: bool,
}

/// `read_file`'s result: which lines were shown and whether the file goes on.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReadFileData {
    /// The file, as shown to the model.
    pub path: String,
    /// The first line shown (1-based).
    pub start_line: u64,
    /// The last line shown.
    pub end_line: u64,
    /// Whether the lines shown stop before the end of the file.
    pub truncated: bool,
    /// How many lines the file has, when they were all counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_lines: Option<u64>,
    /// A lower bound on the lines, when counting stopped at its limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_lines_at_least: Option<u64>,
    /// `"crlf"` when the file's lines end in CR LF.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_endings: Option<String>,
    /// The line to read next, when the file goes on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_line: Option<u64>,
}

/// `search_files`' result: how much matched.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SearchData {
    /// Matching lines shown.
    pub matches: u64,
    /// Files with a match shown.
    pub files_with_matches: u64,
    /// Files searched.
    pub files_searched: u64,
    /// Whether matches were left out at `max_results`.
    pub truncated: bool,
}

/// `list_files`' result: the entries found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ListData {
    /// The directory listed, as shown to the model.
    pub path: String,
    /// What is in it, in walk order.
    pub entries: Vec<ListEntry>,
    /// Whether entries were left out at `max_results`.
    pub truncated: bool,
}

/// One entry of [`ListData`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ListEntry {
    /// Workspace-relative path.
    pub path: String,
    /// Size in bytes (0 for a directory).
    pub size: u64,
    /// Whether it is a directory.
    pub is_dir: bool,
}

/// `load_tools`' result: the tools newly loaded.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct LoadToolsData {
    /// Their names.
    pub loaded: Vec<String>,
}

/// `oracle`'s result: which model answered and what it cost.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct OracleData {
    /// The model's name.
    pub model: String,
    /// Its token usage.
    pub usage: crate::usage::Usage,
}

/// `memory_store`'s result.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct MemoryStoreData {
    /// The memory's key.
    pub key: String,
    /// Whether it replaced one with that key.
    pub replaced: bool,
    /// Where it is kept.
    pub scope: crate::memory::ScopeKind,
}

/// `memory_recall`'s result: the memories found, best first, as the memory store's own
/// entry type `E` (it lives with the store, in `loom-core`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct MemoryRecallData<E> {
    /// The entries.
    pub entries: Vec<E>,
}

/// `delegate`'s result: what the sub-agent looked at, changed and spent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DelegateData {
    /// Files it read.
    pub files_read: Vec<String>,
    /// Files it changed.
    pub files_changed: Vec<String>,
    /// How many tool calls it made.
    pub tool_calls: u64,
    /// Its token usage.
    pub usage: crate::usage::Usage,
    /// How its turn ended (`null` when it did not).
    pub end: Option<crate::events::TurnEnd>,
}

/// A `cron` job as `cron_add` and `cron_remove` return it (`cron_list` returns a list).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct CronJobData {
    /// The job's id.
    pub id: String,
    /// Its cron schedule.
    pub schedule: String,
    /// The prompt it runs.
    pub prompt: String,
    /// The approval mode it runs in.
    pub approval: crate::autonomy::Autonomy,
    /// When it runs next (RFC 3339, local time), `null` when never.
    pub next_run: Option<String>,
    /// How its last run went, `null` before its first.
    pub last_run: Option<CronRunData>,
    /// Runs missed while no scheduler ran.
    pub missed: u64,
    /// Who added it.
    pub added_by: String,
}

/// A [`CronJobData`]'s last run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct CronRunData {
    /// When it ran (RFC 3339, local time).
    pub at: String,
    /// How it ended.
    pub outcome: String,
    /// The session it ran in, when one was recorded.
    pub session_id: Option<String>,
}

#[cfg(test)]
#[path = "tool_data/tests.rs"]
mod tests;
