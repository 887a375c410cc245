//! The bottom layer of Loom's workspace: small helpers every other crate may use and that
//! use no other Loom crate — text cuts and previews, encodings, ids, the data directory, the
//! one line-diff model, file access beneath the workspace, Loom's own git, lock files,
//! escaping control characters, private data files, reading configuration files and
//! masking secrets.

// Unsafe code lives in `loom-sandbox` only (issue 27); tests may set variables.
#![cfg_attr(not(test), forbid(unsafe_code))]

pub mod beneath;
pub mod diff;
pub mod dirs;
pub mod encode;
pub mod files;
pub mod gitcmd;
pub mod id;
pub mod lockfile;
pub mod paths;
pub mod printable;
pub mod private;
pub mod regular;
pub mod secrets;
pub mod text;
pub mod time;
