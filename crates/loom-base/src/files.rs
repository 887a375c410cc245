//! Facts about file contents shared by the write tools and the undo journal: how large a file
//! an edit may touch, and a cheap fingerprint to notice that a file changed underneath.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use serde::{Deserialize, Serialize};

/// Largest file write and edit tools read to change (a diff of anything larger is not
/// something a person reviews).
pub const MAX_EDIT_BYTES: u64 = 64 * 1024 * 1024;

/// Identifies file contents cheaply, to notice changes between preview and write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fingerprint {
    /// Length in bytes.
    pub len: u64,
    /// Hash of the bytes.
    pub hash: u64,
}

impl Fingerprint {
    /// Fingerprint of `bytes`.
    pub fn of(bytes: &[u8]) -> Fingerprint {
        let mut h = DefaultHasher::new();
        bytes.hash(&mut h);
        Fingerprint {
            len: bytes.len() as u64,
            hash: h.finish(),
        }
    }
}
