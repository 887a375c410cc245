//! An image a person attaches to a message, as data the agent sends and the front ends show.

use serde::{Deserialize, Serialize};

/// An attached image.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Image {
    /// The file's name, for the transcript.
    pub name: String,
    /// Its media type (`image/png`, …).
    pub mime: String,
    /// Its bytes, base64-encoded.
    pub data: String,
}

impl Image {
    /// The `data:` URL the request carries.
    pub fn data_url(&self) -> String {
        format!("data:{};base64,{}", self.mime, self.data)
    }
}
