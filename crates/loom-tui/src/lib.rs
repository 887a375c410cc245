//! `loom-tui`, the full-screen front end: one consumer of the agent's events and producer
//! of its ops.
//!
//! It depends on `loom-protocol` and `loom-base` only (docs/architecture.md): it takes the
//! agent's events and sends its ops as `loom-protocol` types, and what needs the core —
//! the configuration, the trust store, starting the agent (`Session::start`), reading and
//! listing session files, summarizing calls — the `loom` binary does for it through the
//! [`host::Host`] it hands over at start with the facts the screen starts with
//! ([`host::TuiOptions`]). The two crates are imported under the module names they had
//! before the workspace split.

// Unsafe code lives in `loom-sandbox` only (issue 27); tests may set variables.
#![cfg_attr(not(test), forbid(unsafe_code))]

use loom_base as base;
use loom_protocol as protocol;

pub mod ansi;
pub mod app;
pub mod approvals;
pub mod areas;
pub mod attachments;
pub mod background;
pub mod call_diff;
pub mod chat_events;
pub mod clipboard;
pub mod command_output;
pub mod composer;
pub mod contrast;
pub mod custom_list;
pub mod custom_slash;
pub mod details;
pub mod diff_pane;
pub mod diff_view;
pub mod draft;
pub mod fuzzy;
pub mod height_index;
pub mod highlight;
pub mod history_search;
pub mod host;
pub mod inline;
pub mod input;
pub mod layers;
pub mod markdown;
pub mod measured;
pub mod mention;
pub mod notify;
pub mod outbox;
pub mod plan_block;
mod plan_mode;
pub mod progress;
pub mod provider;
pub mod render_cache;
pub mod results;
pub mod resume;
pub mod review;
pub mod rewind;
pub mod run;
pub mod scroll;
pub mod scrollback;
pub mod slash;
pub mod slash_popup;
pub mod status_card;
pub mod status_info;
pub mod status_line;
pub mod stored_calls;
pub mod sub_agents;
pub mod theme;
pub mod tool_events;
pub mod tool_row;
pub mod tools_pane;
pub mod transcript;
mod transcript_entry;
pub mod view;
pub mod wrap;

#[cfg(test)]
mod approval_focus_tests;
#[cfg(test)]
mod cron_snapshot_tests;
#[cfg(test)]
mod custom_slash_tests;
#[cfg(test)]
mod diff_snapshot_tests;
#[cfg(test)]
mod hook_snapshot_tests;
#[cfg(test)]
mod input_tests;
#[cfg(test)]
mod lsp_snapshot_tests;
#[cfg(test)]
mod mcp_snapshot_tests;
#[cfg(test)]
mod output_snapshot_tests;
#[cfg(test)]
mod patch_review_tests;
#[cfg(test)]
mod plan_snapshot_tests;
#[cfg(test)]
mod resume_compacted_tests;
#[cfg(test)]
mod resume_log_tests;
#[cfg(test)]
mod resume_plan_tests;
#[cfg(test)]
mod resume_render_tests;
#[cfg(test)]
mod resume_snapshot_tests;
#[cfg(test)]
mod snapshot_tests;
#[cfg(test)]
mod status_snapshot_tests;
#[cfg(test)]
mod sub_agents_tests;
#[cfg(test)]
mod test_support;
#[cfg(test)]
mod theme_tests;
