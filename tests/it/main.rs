//! Integration tests: one crate, so every test shares one build. Each module drives the real
//! `loom` binary (or the library's public seams) against real files, processes and servers.

#[path = "../support/mod.rs"]
mod support;

mod acp;
mod agent;
mod apply_patch;
mod architecture;
mod arg_aliases;
mod browser;
mod budget;
mod command_proof;
mod containment;
mod context;
mod crate_graph;
mod cron;
mod custom_commands;
mod delegate;
mod docs;
mod escapes;
mod exec;
mod exec_plain;
mod files_beneath;
mod full_disk;
mod function_length;
mod hooks;
mod images;
mod lsp;
mod masking;
mod mcp;
mod mcp_edges;
mod mcp_server;
mod memory;
mod notify;
mod oracle;
mod plain_http;
mod plans;
mod plans_tui;
mod private_files;
mod project_trust;
mod provider_bounds;
mod replay;
mod rewind;
mod sandbox;
mod sandbox_root;
mod schema_refusal;
mod schema_rules;
mod schemas;
mod sessions;
mod tool_cli;
mod trust;
mod tui;
mod tui_daily;
mod tui_screen;
mod web;
mod web_exec;
