//! The model a session talks to now. `/model` switches the top agent's client; what must
//! follow it reads this cell: the editing tool offered ((`tools::edit_choice` in the root crate)),
//! the sub-agents started after the switch, and an oracle that names no model of its own.

use std::sync::{Arc, RwLock};

/// A shared, switchable model id.
#[derive(Debug, Clone, Default)]
pub struct CurrentModel(Arc<RwLock<String>>);

impl CurrentModel {
    /// A cell holding `model`.
    pub fn new(model: &str) -> CurrentModel {
        CurrentModel(Arc::new(RwLock::new(model.to_string())))
    }

    /// The model now.
    pub fn get(&self) -> String {
        self.0.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Switch to `model`.
    pub fn set(&self, model: &str) {
        *self.0.write().unwrap_or_else(|e| e.into_inner()) = model.to_string();
    }
}
