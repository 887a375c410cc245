//! Where Loom keeps its data: sessions, undo journals, memory, cron jobs, trust and browser
//! profiles all live under one directory, which every store finds here.

use std::path::PathBuf;

/// The data directory (`~/.local/share/loom` on Linux).
pub fn data_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "loom").map(|d| d.data_dir().to_path_buf())
}
