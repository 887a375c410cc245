//! `loom-lsp`: Loom's language-server client (issue 30). After every write Loom gives the
//! changed files to the language server for their language and adds the errors the edit
//! introduced to the tool's result; the `diagnostics` tool asks for the current ones.
//!
//! JSON-RPC over the server's stdio with a framing of its own ([`framing`]), the protocol's
//! types from `lsp-types`, servers contained like commands (`loom-sandbox`'s isolation and
//! reaper) and started lazily per workspace root ([`manager`]). No editor framework.

#![cfg_attr(not(test), forbid(unsafe_code))]

pub mod client;
pub mod diag;
pub mod framing;
pub mod manager;
pub mod server;
pub mod spec;

pub use manager::{Lsp, LspSettings, Written};
pub use spec::ServerSpec;
