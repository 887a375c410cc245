//! How Loom gets the person's attention when a turn ends or an approval waits while the
//! terminal is not focused (issue 28): the `notify` setting, read by the configuration and
//! handed to the TUI, which writes the notification itself.

use serde::{Deserialize, Serialize};

/// The `notify` setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NotifyMode {
    /// OSC 9 (or OSC 777) where the terminal is known to show it, else BEL.
    #[default]
    Auto,
    /// Always OSC 9 (wrapped for tmux's passthrough inside tmux).
    Osc9,
    /// Always the terminal bell.
    Bel,
    /// Never.
    Off,
}
