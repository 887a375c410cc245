//! Where each pane was drawn in the last frame: the view computes it, the app keeps it to
//! route mouse clicks and scrolls to the pane under the pointer.

use ratatui::layout::Rect;

/// Where each part was drawn in the last frame (for mouse routing).
#[derive(Debug, Clone, Copy, Default)]
pub struct Areas {
    /// The chat pane.
    pub chat: Rect,
    /// The tool list.
    pub tools: Rect,
    /// The diff or output pane.
    pub details: Rect,
    /// The composer.
    pub composer: Rect,
    /// The status bar.
    pub status: Rect,
    /// Whether the narrow layout is in use.
    pub narrow: bool,
    /// The rows the details pane's diff or output showed (without the review's keys).
    pub details_rows: u16,
}
