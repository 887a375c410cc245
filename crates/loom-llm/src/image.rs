//! Images a person attaches to a message (`--image FILE`, or an image path pasted into the
//! message box): read whole, checked to be an image by its first bytes, and sent as a
//! `data:` URL in an `image_url` content part, which OpenAI-compatible servers with vision
//! models accept. Models that cannot take images make the server refuse the request; see
//! [`rejects_images`].

use std::io::Read;
use std::path::Path;

/// Largest image attached (OpenAI accepts 20 MB; local servers choke well before).
pub const MAX_IMAGE_BYTES: u64 = 8 * 1024 * 1024;
/// Characters an image is counted as when sizing a request (about 850 tokens, what a
/// mid-sized image costs hosted models).
pub const IMAGE_CHARS: usize = 3_000;

pub use loom_protocol::image::Image;

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

/// Whether a server's refusal says the model cannot take images (llama.cpp without a
/// projector, text-only models behind OpenAI-compatible servers, vLLM, Ollama).
pub fn rejects_images(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    ["image", "vision", "multimodal", "mmproj", "image_url"]
        .iter()
        .any(|w| m.contains(w))
        && [
            "not support",
            "unsupported",
            "does not",
            "doesn't",
            "cannot",
            "invalid",
            "unknown",
        ]
        .iter()
        .any(|w| m.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG_1X1: &[u8] = &[
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52,
    ];

    #[test]
    fn images_are_known_by_their_first_bytes() {
        assert_eq!(mime_of(PNG_1X1), Some("image/png"));
        assert_eq!(mime_of(&[0xff, 0xd8, 0xff, 0xe0]), Some("image/jpeg"));
        assert_eq!(mime_of(b"GIF89a...."), Some("image/gif"));
        assert_eq!(mime_of(b"RIFF\0\0\0\0WEBPVP8 "), Some("image/webp"));
        assert_eq!(mime_of(b"%PDF-1.7"), None);
    }

    #[test]
    fn loading_checks_the_bytes_and_the_size() {
        let dir = tempfile::tempdir().unwrap();
        let png = dir.path().join("shot.png");
        std::fs::write(&png, PNG_1X1).unwrap();
        let image = load(&png).unwrap();
        assert_eq!(image.name, "shot.png");
        assert!(
            image
                .data_url()
                .starts_with("data:image/png;base64,iVBORw0KGgo")
        );
        let fake = dir.path().join("fake.png");
        std::fs::write(&fake, "not an image").unwrap();
        assert!(load(&fake).unwrap_err().contains("not a PNG"));
        let big = dir.path().join("big.png");
        let f = std::fs::File::create(&big).unwrap();
        f.set_len(MAX_IMAGE_BYTES + 1).unwrap();
        assert!(load(&big).unwrap_err().contains("up to 8 MB"));
        assert!(load(&dir.path().join("none.png")).is_err());
    }

    #[test]
    fn pasted_paths_are_cleaned_and_must_exist() {
        let dir = tempfile::tempdir().unwrap();
        let png = dir.path().join("my shot.png");
        std::fs::write(&png, PNG_1X1).unwrap();
        let plain = png.display().to_string();
        assert_eq!(pasted_path(&format!("'{plain}'\n")), Some(plain.clone()));
        assert_eq!(pasted_path(&plain.replace(' ', "\\ ")), Some(plain.clone()));
        assert_eq!(pasted_path(&format!("file://{plain}")), Some(plain.clone()));
        assert_eq!(pasted_path("/nowhere/x.png"), None);
        assert_eq!(pasted_path("some text mentioning a.png"), None);
    }

    #[test]
    fn refusals_about_images_are_recognised() {
        assert!(rejects_images(
            "400 Bad Request: image input is not supported - hint: you may need to provide the mmproj"
        ));
        assert!(rejects_images("model does not support image input"));
        assert!(!rejects_images("400 context length exceeded"));
    }
}
