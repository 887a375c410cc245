//! From response bytes to text: what kind of content it is, and which charset it is in.
//!
//! The charset comes from, in order: a byte-order mark, the `Content-Type` header's
//! `charset`, an HTML `<meta charset>` or `<meta http-equiv="Content-Type">` in the first
//! 2 KiB, else UTF-8 (invalid bytes replaced). Content that is neither text nor a textual
//! format (images, archives, PDFs, executables) is reported as binary, by its declared type
//! and, when none is declared, by the bytes themselves.

use encoding_rs::Encoding;

/// What a body is, as far as web tools care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// HTML (or XHTML).
    Html,
    /// Any other text (plain, JSON, XML, CSS, JavaScript, CSV, markdown…).
    Text,
    /// Not text.
    Binary,
}

/// The media type of a `Content-Type` value, lowercase, without parameters.
pub fn media_type(content_type: Option<&str>) -> Option<String> {
    let ct = content_type?;
    let mt = ct.split(';').next()?.trim().to_ascii_lowercase();
    (!mt.is_empty()).then_some(mt)
}

/// The kind of a body with this `Content-Type` (if any) and these first bytes.
pub fn kind(content_type: Option<&str>, body: &[u8]) -> Kind {
    match media_type(content_type).as_deref() {
        Some("text/html" | "application/xhtml+xml") => Kind::Html,
        Some(mt) if is_textual(mt) => Kind::Text,
        Some(mt) if mt != "application/octet-stream" => Kind::Binary,
        _ => sniff(body),
    }
}

fn is_textual(mt: &str) -> bool {
    mt.starts_with("text/")
        || mt.ends_with("+json")
        || mt.ends_with("+xml")
        || matches!(
            mt,
            "application/json"
                | "application/xml"
                | "application/javascript"
                | "application/ecmascript"
                | "application/x-javascript"
                | "application/x-sh"
                | "application/toml"
                | "application/yaml"
                | "application/x-yaml"
                | "application/graphql"
                | "application/sql"
                | "application/x-www-form-urlencoded"
                | "application/x-ndjson"
                | "application/jsonl"
        )
}

/// The kind from the bytes alone: NUL bytes or a known binary signature mean binary;
/// text that starts like HTML is HTML.
fn sniff(body: &[u8]) -> Kind {
    let head = &body[..body.len().min(1024)];
    const MAGIC: &[&[u8]] = &[
        b"%PDF",
        b"\x89PNG",
        b"GIF8",
        b"\xff\xd8\xff",
        b"PK\x03\x04",
        b"\x1f\x8b",
        b"\x7fELF",
        b"BZh",
        b"\xfd7zXZ",
        b"RIFF",
        b"OggS",
        b"\x00asm",
    ];
    if MAGIC.iter().any(|m| head.starts_with(m)) || head.contains(&0) {
        return Kind::Binary;
    }
    let start = String::from_utf8_lossy(head)
        .trim_start()
        .to_ascii_lowercase();
    if start.starts_with("<!doctype html") || start.starts_with("<html") {
        Kind::Html
    } else {
        Kind::Text
    }
}

/// The `charset` parameter of a `Content-Type` value.
fn header_charset(content_type: Option<&str>) -> Option<&'static Encoding> {
    content_type?.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| Encoding::for_label(v.trim().trim_matches(['"', '\'']).as_bytes()))
            .flatten()
    })
}

/// The charset an HTML document declares in its first 2 KiB.
fn meta_charset(body: &[u8]) -> Option<&'static Encoding> {
    let head = String::from_utf8_lossy(&body[..body.len().min(2048)]).to_ascii_lowercase();
    let mut rest = head.as_str();
    while let Some(i) = rest.find("<meta") {
        rest = &rest[i + 5..];
        let tag = &rest[..rest.find('>').unwrap_or(rest.len())];
        if let Some(j) = tag.find("charset=") {
            let v = tag[j + 8..].trim_start_matches(['"', '\'', ' ']);
            let end = v
                .find(|c: char| c == '"' || c == '\'' || c == ';' || c == '/' || c.is_whitespace())
                .unwrap_or(v.len());
            if let Some(enc) = Encoding::for_label(&v.as_bytes()[..end]) {
                return Some(enc);
            }
        }
    }
    None
}

/// Decode `body` as text with the charset it declares (see the module docs), and the name
/// of the charset used.
pub fn decode(content_type: Option<&str>, body: &[u8], html: bool) -> (String, &'static str) {
    let declared =
        header_charset(content_type).or_else(|| html.then(|| meta_charset(body)).flatten());
    let encoding = declared.unwrap_or(encoding_rs::UTF_8);
    // `decode` honours a byte-order mark over the declared charset, as browsers do.
    let (text, used, _) = encoding.decode(body);
    (text.into_owned(), used.name())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_from_headers_and_bytes() {
        assert_eq!(kind(Some("text/html; charset=utf-8"), b""), Kind::Html);
        assert_eq!(kind(Some("application/json"), b"{}"), Kind::Text);
        assert_eq!(kind(Some("application/vnd.api+json"), b"{}"), Kind::Text);
        assert_eq!(kind(Some("image/png"), b"\x89PNG"), Kind::Binary);
        assert_eq!(kind(Some("application/pdf"), b"%PDF"), Kind::Binary);
        assert_eq!(kind(None, b"\x89PNG\r\n"), Kind::Binary);
        assert_eq!(
            kind(Some("application/octet-stream"), b"a\0b"),
            Kind::Binary
        );
        assert_eq!(kind(None, b"  <!DOCTYPE html><p>x"), Kind::Html);
        assert_eq!(kind(None, b"plain words"), Kind::Text);
    }

    #[test]
    fn charsets_from_header_meta_and_bom() {
        let latin1 = b"caf\xe9";
        assert_eq!(
            decode(Some("text/plain; charset=iso-8859-1"), latin1, false).0,
            "café"
        );
        let html = b"<html><head><meta charset=\"windows-1252\"></head><body>caf\xe9</body>";
        let (text, used) = decode(Some("text/html"), html, true);
        assert!(text.contains("café"), "{text}");
        assert_eq!(used, "windows-1252");
        let http_equiv =
            b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=koi8-r\">\xc1";
        assert_eq!(decode(None, http_equiv, true).1, "KOI8-R");
        let bom = b"\xef\xbb\xbfhello";
        assert_eq!(
            decode(Some("text/plain; charset=latin1"), bom, false).0,
            "hello"
        );
        assert_eq!(decode(None, b"ok \xff", false).0, "ok \u{fffd}");
    }
}
