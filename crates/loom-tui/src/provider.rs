//! What the screen knows of the model provider beyond the status line: the models the
//! server offers (for `/model`'s completion and picker), why they could not be listed, and,
//! when no provider is configured, how to connect one (shown on the empty chat).

/// The server's models and how to reach a provider.
#[derive(Debug, Default)]
pub struct Provider {
    /// The models the server offers, once asked (`/model` completion and picker).
    pub models: Vec<String>,
    /// Why the server's models could not be listed, if so.
    pub models_error: Option<String>,
    /// Shown on the empty chat instead of the model line (e.g. how to connect a provider).
    pub welcome: Option<String>,
}

impl Provider {
    /// The server answered `GET /models` (or could not).
    pub fn on_models(&mut self, result: Result<Vec<String>, String>) {
        match result {
            Ok(models) => self.models = models,
            Err(e) => self.models_error = Some(e),
        }
    }
}
