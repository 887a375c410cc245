//! Turning an MCP `tools/call` result into the [`ToolResult`] the model reads.
//!
//! The model reads text. Text blocks and text resources pass; structured content is given
//! as JSON when there is no text; images and audio are noted with their type and size, not
//! passed; binary resources are refused with a note, as are text blocks that are not text
//! (NUL bytes). The content is read from its JSON form, so a block type this Loom does not
//! know is reported, never a parse failure.
//!
//! Structured content is never also kept in the result's `data`: the model reads `data`
//! too, and the protocol asks servers to send the same JSON as text, so keeping it there
//! gave the model everything twice (a 300 KB file read put both copies in its context).
//! The registry then fits the result into the output budget ([`crate::tools::fit`]).

use serde_json::Value;

use crate::tools::ToolResult;

/// The result the model reads for a call's `result` (the JSON of a `CallToolResult`).
pub fn to_tool_result(result: &Value) -> ToolResult {
    let mut parts: Vec<String> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    for block in result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        match block.get("type").and_then(Value::as_str).unwrap_or("") {
            "text" => {
                let text = block.get("text").and_then(Value::as_str).unwrap_or("");
                if text.contains('\0') {
                    notes.push("[a text block holding binary data was left out]".into());
                } else {
                    parts.push(text.to_string());
                }
            }
            "image" | "audio" => {
                let kind = block["type"].as_str().unwrap_or("media");
                let mime = block
                    .get("mimeType")
                    .and_then(Value::as_str)
                    .unwrap_or("unknown type");
                let bytes = base64_len(block.get("data").and_then(Value::as_str).unwrap_or(""));
                notes.push(format!(
                    "[{kind} ({mime}, {bytes} bytes) not shown: Loom passes only text to the model]"
                ));
            }
            "resource" => match resource(block) {
                Ok(part) => parts.push(part),
                Err(note) => notes.push(note),
            },
            "resource_link" => {
                let uri = block.get("uri").and_then(Value::as_str).unwrap_or("?");
                let name = block.get("name").and_then(Value::as_str).unwrap_or("");
                parts.push(format!("[resource link {uri} {name}]").replace(" ]", "]"));
            }
            other => notes.push(format!("[content of type {other:?} was left out]")),
        }
    }
    if parts.is_empty()
        && let Some(s) = result.get("structuredContent").filter(|v| !v.is_null())
    {
        parts.push(serde_json::to_string_pretty(s).unwrap_or_default());
    }
    parts.extend(notes);
    let text = parts.join("\n");
    let is_error = result
        .get("isError")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if is_error {
        let mut r = ToolResult::err(if text.is_empty() {
            "the tool reported an error without saying what".to_string()
        } else {
            text
        });
        r.output = String::new();
        r
    } else {
        ToolResult::ok(text)
    }
}

/// An embedded resource block: its text for the model, or the note that says why it was
/// left out.
fn resource(block: &Value) -> Result<String, String> {
    let r = block.get("resource").cloned().unwrap_or(Value::Null);
    let uri = r.get("uri").and_then(Value::as_str).unwrap_or("?");
    match (r.get("text").and_then(Value::as_str), r.get("blob")) {
        (Some(text), _) if !text.contains('\0') => Ok(format!("[resource {uri}]\n{text}")),
        (_, Some(Value::String(blob))) => {
            let mime = r
                .get("mimeType")
                .and_then(Value::as_str)
                .unwrap_or("unknown type");
            Err(format!(
                "[binary resource {uri} ({mime}, {} bytes) refused: Loom passes only \
                 text]",
                base64_len(blob)
            ))
        }
        _ => Err(format!("[resource {uri} without text was left out]")),
    }
}

/// The decoded size of base64 text.
fn base64_len(data: &str) -> usize {
    let trimmed = data.trim_end_matches('=');
    trimmed.len() * 3 / 4
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_passes_and_media_is_noted() {
        let r = to_tool_result(&json!({"content": [
            {"type": "text", "text": "hello"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "text", "text": "world"},
        ]}));
        assert!(r.success);
        assert_eq!(
            r.output,
            "hello\nworld\n[image (image/png, 3 bytes) not shown: Loom passes only text to the model]"
        );
    }

    #[test]
    fn text_resources_pass_binary_ones_are_refused() {
        let r = to_tool_result(&json!({"content": [
            {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "A"}},
            {"type": "resource", "resource": {"uri": "demo://b", "blob": "AAAAAA==", "mimeType": "application/gzip"}},
            {"type": "resource_link", "uri": "demo://c", "name": "c"},
            {"type": "hologram"},
            {"type": "text", "text": "x\u{0}y"},
        ]}));
        assert!(
            r.output
                .starts_with("[resource file:///a.txt]\nA\n[resource link demo://c c]"),
            "{}",
            r.output
        );
        assert!(
            r.output
                .contains("binary resource demo://b (application/gzip, 4 bytes) refused")
        );
        assert!(r.output.contains("type \"hologram\" was left out"));
        assert!(r.output.contains("binary data was left out"));
        assert!(!r.output.contains('\0'));
    }

    #[test]
    fn structured_content_is_shown_when_there_is_no_text_and_never_twice() {
        let r = to_tool_result(&json!({"content": [], "structuredContent": {"t": 21}}));
        assert!(r.output.contains("\"t\": 21"), "{}", r.output);
        assert_eq!(r.data, None, "the model reads data too: not a second copy");
        let r = to_tool_result(
            &json!({"content": [{"type": "text", "text": "21 degrees"}], "structuredContent": {"t": 21}}),
        );
        assert_eq!(r.output, "21 degrees");
        assert_eq!(r.data, None);
    }

    #[test]
    fn errors_carry_the_servers_words() {
        let r = to_tool_result(
            &json!({"content": [{"type": "text", "text": "no such repo"}], "isError": true}),
        );
        assert!(!r.success);
        assert_eq!(r.error.as_deref(), Some("no such repo"));
        let r = to_tool_result(&json!({"isError": true}));
        assert!(r.error.unwrap().contains("without saying what"));
    }
}
