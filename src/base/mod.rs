//! The bottom layer: small helpers every other module may use and that use no other Loom
//! module — text cuts and previews, encodings, ids, the data directory, the one line-diff
//! model and file access beneath the workspace. It is the seed of the `loom-base` crate
//! (issue 27), so nothing here may name `crate::` outside `base`.

pub mod beneath;
pub mod diff;
pub mod dirs;
pub mod encode;
pub mod files;
pub mod id;
pub mod text;
pub mod time;
