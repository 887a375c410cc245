//! The editing tool offered to the model in use: edit_file for most models, apply_patch for
//! those trained on it (config `edit_tool`, [`crate::config::EditTool::offered`]). It is a
//! [`ToolSource`], so a `/model` switch changes what the next request offers.

use std::sync::Arc;

use super::registry::ToolSource;
use super::{Tool, apply_patch::ApplyPatch, edit_file::EditFile};
use crate::config::EditTool;
use crate::llm::current::CurrentModel;

/// edit_file and/or apply_patch, as `choice` says for the model in `model`.
pub struct EditTools {
    choice: EditTool,
    model: CurrentModel,
    edit_file: Arc<dyn Tool>,
    apply_patch: Arc<dyn Tool>,
}

impl EditTools {
    /// The editing tools `choice` gives whatever model `model` holds when asked.
    pub fn new(choice: EditTool, model: CurrentModel) -> EditTools {
        EditTools {
            choice,
            model,
            edit_file: Arc::new(EditFile),
            apply_patch: Arc::new(ApplyPatch),
        }
    }
}

impl ToolSource for EditTools {
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        let (edit_file, apply_patch) = self.choice.offered(&self.model.get());
        let mut out = Vec::new();
        if edit_file {
            out.push(self.edit_file.clone());
        }
        if apply_patch {
            out.push(self.apply_patch.clone());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::registry::ToolRegistry;

    /// A `/model` switch from a model that edits with edit_file to one trained on
    /// apply_patch changes the tool the next request offers, and back.
    #[test]
    fn the_editing_tool_follows_the_model() {
        let model = CurrentModel::new("qwen2.5-coder:14b");
        let registry = ToolRegistry::workspace_editing_with(Arc::new(EditTools::new(
            EditTool::Auto,
            model.clone(),
        )));
        let names = || registry.names();
        assert_eq!(
            names(),
            ToolRegistry::builtin().names(),
            "listed where a fixed editing tool would be"
        );
        assert!(!names().contains(&"apply_patch".to_string()));
        model.set("gpt-5-codex");
        assert!(
            names().contains(&"apply_patch".to_string()),
            "{:?}",
            names()
        );
        assert!(!names().contains(&"edit_file".to_string()));
        assert!(registry.get("edit_file").is_none());
        model.set("llama3");
        assert!(names().contains(&"edit_file".to_string()));
        let both =
            ToolRegistry::workspace_editing_with(Arc::new(EditTools::new(EditTool::Both, model)));
        assert!(both.get("edit_file").is_some() && both.get("apply_patch").is_some());
    }
}
