//! An image a person attaches to a message, as data the agent sends and the front ends show,
//! and how one is read from a file (`--image FILE`, or an image path pasted into the message
//! box): read whole and checked to be an image by its first bytes. `loom-llm` sends it as a
//! `data:` URL; the front ends show it as a chip line.

use std::io::Read;
use std::path::Path;

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

/// Largest image attached (OpenAI accepts 20 MB; local servers choke well before).
pub const MAX_IMAGE_BYTES: u64 = 8 * 1024 * 1024;
/// Characters an image is counted as when sizing a request (about 850 tokens, what a
/// mid-sized image costs hosted models).
pub const IMAGE_CHARS: usize = 3_000;

/// A message's text as the chat shows it: the text, then a chip line per attached image.
pub fn with_chips(text: &str, images: &[Image]) -> String {
    let mut out = text.to_string();
    for i in images {
        out.push_str(&format!("\n[image: {}]", i.name));
    }
    out
}

/// Read the image at `path`, or say why it cannot be attached.
pub fn load(path: &Path) -> Result<Image, String> {
    let shown = path.display();
    let file = std::fs::File::open(path).map_err(|e| format!("{shown}: {e}"))?;
    let meta = file.metadata().map_err(|e| format!("{shown}: {e}"))?;
    if !meta.is_file() {
        return Err(format!("{shown} is not a regular file"));
    }
    if meta.len() > MAX_IMAGE_BYTES {
        return Err(format!(
            "{shown} is {} MB; images up to {} MB can be attached",
            meta.len() / (1024 * 1024),
            MAX_IMAGE_BYTES / (1024 * 1024)
        ));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(MAX_IMAGE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{shown}: {e}"))?;
    let mime = mime_of(&bytes).ok_or_else(|| {
        format!("{shown} is not a PNG, JPEG, GIF or WebP image, so it cannot be attached")
    })?;
    Ok(Image {
        name: path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| shown.to_string()),
        mime: mime.to_string(),
        data: loom_base::encode::base64(&bytes),
    })
}

/// The media type of an image, from its first bytes.
pub fn mime_of(bytes: &[u8]) -> Option<&'static str> {
    match bytes {
        [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, ..] => Some("image/png"),
        [0xff, 0xd8, 0xff, ..] => Some("image/jpeg"),
        [b'G', b'I', b'F', b'8', b'7' | b'9', b'a', ..] => Some("image/gif"),
        [
            b'R',
            b'I',
            b'F',
            b'F',
            _,
            _,
            _,
            _,
            b'W',
            b'E',
            b'B',
            b'P',
            ..,
        ] => Some("image/webp"),
        _ => None,
    }
}

/// Whether a path (as pasted: maybe quoted, maybe with `\ ` escapes, maybe `file://`) names
/// an image file by its extension; the cleaned path when it does.
pub fn pasted_path(text: &str) -> Option<String> {
    let t = text.trim();
    if t.contains('\n') {
        return None;
    }
    let t = t
        .strip_prefix("file://")
        .unwrap_or(t)
        .trim_matches(|c| c == '\'' || c == '"')
        .replace("\\ ", " ");
    let lower = t.to_ascii_lowercase();
    let image = [".png", ".jpg", ".jpeg", ".gif", ".webp"]
        .iter()
        .any(|e| lower.ends_with(e));
    (image && Path::new(&t).is_file()).then_some(t)
}
