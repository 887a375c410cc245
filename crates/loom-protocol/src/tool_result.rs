//! What a tool call produced: the result the model reads and the front ends show.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a tool call produced; serialised, it is exactly what the model reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// Whether the call did what was asked.
    pub success: bool,
    /// Text for the model (bounded).
    pub output: String,
    /// Structured details (optional): a built-in tool's [`crate::tool_data`] value
    /// (written with [`ToolResult::with`], read with [`ToolResult::data_as`]); kept as JSON
    /// for MCP and other tools whose details Loom does not know.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// Workspace-relative paths this call changed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files_changed: Vec<String>,
    /// What went wrong, when `success` is false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Images for the model (a browser screenshot). A tool message carries only text, so
    /// they follow the batch's results in a message of their own.
    #[serde(skip)]
    pub images: Vec<crate::image::Image>,
}

impl ToolResult {
    /// A successful result.
    pub fn ok(output: impl Into<String>) -> ToolResult {
        ToolResult {
            success: true,
            output: output.into(),
            data: None,
            files_changed: Vec::new(),
            error: None,
            images: Vec::new(),
        }
    }

    /// A failed result carrying `error`.
    pub fn err(error: impl std::fmt::Display) -> ToolResult {
        ToolResult {
            success: false,
            output: String::new(),
            data: None,
            files_changed: Vec::new(),
            error: Some(error.to_string()),
            images: Vec::new(),
        }
    }

    /// Attach structured data.
    pub fn with_data(mut self, data: Value) -> ToolResult {
        self.data = Some(data);
        self
    }

    /// Attach a tool's typed data (a [`crate::tool_data`] value), serialised as the
    /// JSON the model and the session file read.
    pub fn with(mut self, data: &impl Serialize) -> ToolResult {
        self.data = serde_json::to_value(data).ok();
        self
    }

    /// The data read back as `T` (a [`crate::tool_data`] type); `None` when there is none
    /// or it is not shaped like a `T` (missing keys take their defaults).
    pub fn data_as<T: DeserializeOwned>(&self) -> Option<T> {
        T::deserialize(self.data.as_ref()?).ok()
    }

    /// Attach an image for the model.
    pub fn with_image(mut self, image: crate::image::Image) -> ToolResult {
        self.images.push(image);
        self
    }

    /// Record the files changed.
    pub fn with_files(mut self, files: Vec<String>) -> ToolResult {
        self.files_changed = files;
        self
    }
}
