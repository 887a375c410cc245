//! Integration tests: one crate, so every test shares one build. Each module drives the real
//! `loom` binary (or the library's public seams) against real files, processes and servers.

mod tool_cli;
