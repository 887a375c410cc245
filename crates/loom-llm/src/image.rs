//! Images a person attaches to a message (`--image FILE`, or an image path pasted into the
//! message box): read whole, checked to be an image by its first bytes, and sent as a
//! `data:` URL in an `image_url` content part, which OpenAI-compatible servers with vision
//! models accept. Models that cannot take images make the server refuse the request; see
//! [`rejects_images`].

pub use loom_protocol::image::{
    IMAGE_CHARS, Image, MAX_IMAGE_BYTES, load, mime_of, pasted_path, with_chips,
};

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
