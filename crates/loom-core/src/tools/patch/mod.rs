//! The patch format of models trained on Codex (`*** Begin Patch` … `*** End Patch`):
//! parsing it ([`parse`]), finding each chunk's lines tolerantly ([`seek`]) and applying an
//! updated file's chunks in memory ([`update`]). The `apply_patch` tool
//! ([`crate::tools::apply_patch`]) turns a parsed patch into file changes.

pub mod parse;
pub mod seek;
pub mod update;

pub use parse::{Chunk, LineKind, ParseError, Patch, PatchOp, parse};
pub use seek::Fuzz;
pub use update::{Updated, apply_chunks};

#[cfg(test)]
mod tests;
