//! Recovering tool calls that local models write into their message text.
//!
//! Models served without a tool-call parser answer with markup instead of structured
//! calls: `<tool_call>{"name": .., "arguments": ..}</tool_call>` (Hermes, Qwen),
//! `<function=name><parameter=k>v</parameter></function>` (Qwen3-Coder, Llama), or a bare
//! JSON object naming a tool as the whole message (optionally fenced). [`TextCallFilter`]
//! sits on the text stream: it passes prose through as it arrives, holds back anything
//! that may be such markup, and at the end yields the calls and the remaining prose, so the
//! calls run as real calls and never show up as text.

use serde_json::{Map, Value};

const TOOL_CALL_OPEN: &str = "<tool_call>";
const TOOL_CALL_CLOSE: &str = "</tool_call>";
const FUNCTION_OPEN: &str = "<function=";
const FUNCTION_CLOSE: &str = "</function>";

/// A call recovered from text: the tool name and its arguments as JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextCall {
    /// Tool name.
    pub name: String,
    /// Arguments (JSON object text).
    pub arguments: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Text,
    /// The message began like a JSON object or a fence: hold everything until the end.
    MaybeJson,
    /// Inside `<tool_call>` (true) or `<function=` (false), starting at byte `start`.
    InTag {
        tool_call: bool,
        start: usize,
    },
}

/// Streams text through, holding back tool-call markup.
#[derive(Debug, Clone)]
pub struct TextCallFilter {
    known: Vec<String>,
    /// Text not yet shown (and, in tag or JSON mode, the markup being held).
    buf: String,
    shown: usize,
    visible: String,
    mode: Mode,
    calls: Vec<TextCall>,
}

impl TextCallFilter {
    /// A filter that recognises bare-JSON calls only for these tool names.
    pub fn new(known_tools: Vec<String>) -> TextCallFilter {
        TextCallFilter {
            known: known_tools,
            buf: String::new(),
            shown: 0,
            visible: String::new(),
            mode: Mode::Text,
            calls: Vec::new(),
        }
    }

    /// Feed a text delta; returns the part that can be shown now.
    pub fn push(&mut self, delta: &str) -> String {
        self.buf.push_str(delta);
        let mut out = String::new();
        loop {
            match self.mode {
                Mode::MaybeJson => break,
                Mode::Text => {
                    let rest = &self.buf[self.shown..];
                    if self.visible.is_empty() && out.is_empty() {
                        let t = rest.trim_start();
                        if t.is_empty() {
                            break;
                        }
                        if t.starts_with('{') || t.starts_with("```") || t.starts_with('[') {
                            self.mode = Mode::MaybeJson;
                            break;
                        }
                    }
                    let open = [(TOOL_CALL_OPEN, true), (FUNCTION_OPEN, false)]
                        .into_iter()
                        .filter_map(|(tag, tc)| rest.find(tag).map(|p| (p, tc)))
                        .min_by_key(|(p, _)| *p);
                    if let Some((p, tool_call)) = open {
                        out.push_str(&rest[..p]);
                        self.shown += p;
                        self.mode = Mode::InTag {
                            tool_call,
                            start: self.shown,
                        };
                        continue;
                    }
                    let hold = partial_tag_start(rest);
                    out.push_str(&rest[..hold]);
                    self.shown += hold;
                    break;
                }
                Mode::InTag { tool_call, start } => {
                    let close = if tool_call {
                        TOOL_CALL_CLOSE
                    } else {
                        FUNCTION_CLOSE
                    };
                    let Some(rel) = self.buf[start..].find(close) else {
                        break;
                    };
                    let end = start + rel + close.len();
                    let markup = self.buf[start..end].to_string();
                    match parse_tag(&markup, tool_call) {
                        Some(call) => self.calls.push(call),
                        None => out.push_str(&markup),
                    }
                    self.shown = end;
                    self.mode = Mode::Text;
                }
            }
        }
        self.visible.push_str(&out);
        if self.mode == Mode::Text && self.shown > 0 {
            // What was shown is kept once, in `visible`; the buffer holds only what may
            // still be markup (at most a partial opening tag).
            self.buf.drain(..self.shown);
            self.shown = 0;
        }
        out
    }

    /// End of the message: the text still to show, and every recovered call.
    pub fn finish(mut self) -> (String, Vec<TextCall>) {
        let rest = self.buf[self.shown..].to_string();
        let tail = match self.mode {
            Mode::Text => rest,
            Mode::InTag { tool_call, .. } => match parse_tag(&rest, tool_call) {
                Some(call) => {
                    self.calls.push(call);
                    String::new()
                }
                None => rest,
            },
            Mode::MaybeJson => match parse_bare(&rest, &self.known) {
                Some(calls) => {
                    self.calls.extend(calls);
                    String::new()
                }
                None => rest,
            },
        };
        (tail, self.calls)
    }

    /// All text shown so far (prose only).
    pub fn visible(&self) -> &str {
        &self.visible
    }
}

/// Where a trailing partial opening tag starts (or `s.len()` if none).
fn partial_tag_start(s: &str) -> usize {
    if let Some(lt) = s.rfind('<') {
        let tail = &s[lt..];
        if TOOL_CALL_OPEN.starts_with(tail) || FUNCTION_OPEN.starts_with(tail) {
            return lt;
        }
    }
    s.len()
}

fn parse_tag(markup: &str, tool_call: bool) -> Option<TextCall> {
    if tool_call {
        let inner = markup.strip_prefix(TOOL_CALL_OPEN)?;
        let inner = inner.strip_suffix(TOOL_CALL_CLOSE).unwrap_or(inner);
        let value: Value = serde_json::from_str(unfence(inner.trim())).ok()?;
        call_from_object(&value)
    } else {
        let inner = markup.strip_prefix(FUNCTION_OPEN)?;
        let inner = inner.strip_suffix(FUNCTION_CLOSE).unwrap_or(inner);
        let (name, body) = inner.split_once('>')?;
        let name = name.trim().trim_matches('"').to_string();
        if name.is_empty() {
            return None;
        }
        let body = body.trim();
        let arguments = if body.starts_with('{') {
            serde_json::from_str::<Value>(body).ok()?.to_string()
        } else {
            Value::Object(parse_parameters(body)).to_string()
        };
        Some(TextCall { name, arguments })
    }
}

/// `<parameter=k>v</parameter>` pairs; values that are valid JSON (numbers, booleans,
/// objects) keep their type, everything else is a string.
fn parse_parameters(body: &str) -> Map<String, Value> {
    let mut map = Map::new();
    let mut rest = body;
    while let Some(open) = rest.find("<parameter=") {
        let after = &rest[open + "<parameter=".len()..];
        let Some(gt) = after.find('>') else { break };
        let key = after[..gt].trim().trim_matches('"').to_string();
        let value_and_rest = &after[gt + 1..];
        let (raw, next) = match value_and_rest.find("</parameter>") {
            Some(end) => (
                &value_and_rest[..end],
                &value_and_rest[end + "</parameter>".len()..],
            ),
            None => (value_and_rest, ""),
        };
        let raw = raw.strip_prefix('\n').unwrap_or(raw);
        let raw = raw.strip_suffix('\n').unwrap_or(raw);
        let value = match serde_json::from_str::<Value>(raw) {
            Ok(v @ (Value::Number(_) | Value::Bool(_) | Value::Object(_) | Value::Array(_))) => v,
            _ => Value::String(raw.to_string()),
        };
        map.insert(key, value);
        rest = next;
    }
    map
}

fn unfence(s: &str) -> &str {
    let s = s.trim();
    s.strip_prefix("```json")
        .or_else(|| s.strip_prefix("```"))
        .and_then(|x| x.trim_end().strip_suffix("```"))
        .map(str::trim)
        .unwrap_or(s)
}

/// `{"name": .., "arguments"|"parameters"|"args"|"input": ..}` as a call.
fn call_from_object(value: &Value) -> Option<TextCall> {
    let obj = value.as_object()?;
    let (name, args) = match obj.get("function") {
        Some(f @ Value::Object(_)) => (f.get("name")?, f.get("arguments")),
        _ => (
            obj.get("name")?,
            ["arguments", "parameters", "args", "input"]
                .iter()
                .find_map(|k| obj.get(*k)),
        ),
    };
    let name = name.as_str()?.trim().to_string();
    if name.is_empty() {
        return None;
    }
    let arguments = match args {
        None | Some(Value::Null) => "{}".to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    Some(TextCall { name, arguments })
}

/// A whole message that is a JSON call (or a list of them) naming known tools.
fn parse_bare(text: &str, known: &[String]) -> Option<Vec<TextCall>> {
    let value: Value = serde_json::from_str(unfence(text)).ok()?;
    let items = match value {
        Value::Array(items) => items,
        single => vec![single],
    };
    let calls: Option<Vec<TextCall>> = items.iter().map(call_from_object).collect();
    let calls = calls?;
    (!calls.is_empty() && calls.iter().all(|c| known.iter().any(|k| k == &c.name))).then_some(calls)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter() -> TextCallFilter {
        TextCallFilter::new(vec!["read_file".into(), "bash".into()])
    }

    fn run(chunks: &[&str]) -> (String, Vec<TextCall>) {
        let mut f = filter();
        let mut shown = String::new();
        for c in chunks {
            shown.push_str(&f.push(c));
        }
        let (rest, calls) = f.finish();
        shown.push_str(&rest);
        (shown, calls)
    }

    /// Issue 23: shown prose is kept once, in `visible`, not also in the buffer (a 4 MiB
    /// answer was held twice, with room to grow).
    #[test]
    fn shown_prose_is_not_held_twice() {
        let mut f = filter();
        let word = "x".repeat(8000);
        for _ in 0..100 {
            assert_eq!(f.push(&word), word);
        }
        f.push("tail <tool_ca");
        assert!(f.buf.len() <= "<tool_ca".len(), "{}", f.buf.len());
        assert_eq!(f.visible().len(), 800_000 + "tail ".len());
        let (rest, calls) = f.finish();
        assert_eq!(rest, "<tool_ca");
        assert!(calls.is_empty());
    }

    #[test]
    fn plain_prose_streams_through() {
        let mut f = filter();
        assert_eq!(f.push("Hello "), "Hello ");
        assert_eq!(f.push("world a<b"), "world a<b");
        assert_eq!(f.finish(), (String::new(), vec![]));
    }

    #[test]
    fn tool_call_tags_split_across_chunks() {
        let (shown, calls) = run(&[
            "Let me look.\n<tool",
            "_call>\n{\"name\": \"read_file\", \"argu",
            "ments\": {\"path\": \"a.rs\"}}\n</tool_call>",
        ]);
        assert_eq!(shown, "Let me look.\n");
        assert_eq!(
            calls,
            vec![TextCall {
                name: "read_file".into(),
                arguments: "{\"path\":\"a.rs\"}".into()
            }]
        );
    }

    #[test]
    fn several_tags_and_text_between() {
        let (shown, calls) = run(&[
            "<tool_call>{\"name\":\"bash\",\"arguments\":\"{\\\"command\\\":\\\"ls\\\"}\"}</tool_call> and <tool_call>{\"name\":\"read_file\",\"parameters\":{\"path\":\"x\"}}</tool_call>",
        ]);
        assert_eq!(shown, " and ");
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].arguments, "{\"command\":\"ls\"}");
        assert_eq!(calls[1].arguments, "{\"path\":\"x\"}");
    }

    #[test]
    fn function_parameter_markup() {
        let (shown, calls) = run(&[
            "<function=bash>\n<parameter=command>\nls -la\n</parameter>\n<parameter=timeout_secs>\n5\n</parameter>\n</function>",
        ]);
        assert_eq!(shown, "");
        assert_eq!(calls[0].name, "bash");
        let args: Value = serde_json::from_str(&calls[0].arguments).unwrap();
        assert_eq!(args["command"], "ls -la");
        assert_eq!(args["timeout_secs"], 5);
    }

    #[test]
    fn bare_json_message_naming_a_known_tool() {
        let (shown, calls) = run(&[
            "{\"name\": \"read_file\", ",
            "\"arguments\": {\"path\": \"a\"}}",
        ]);
        assert_eq!(shown, "");
        assert_eq!(calls[0].name, "read_file");
        let (shown, calls) =
            run(&["```json\n{\"name\": \"bash\", \"arguments\": {\"command\": \"pwd\"}}\n```"]);
        assert_eq!((shown.as_str(), calls.len()), ("", 1));
    }

    #[test]
    fn bare_json_that_is_not_a_call_is_shown() {
        let text = "{\"name\": \"Ada\", \"age\": 36}";
        let (shown, calls) = run(&[text]);
        assert_eq!(shown, text);
        assert!(calls.is_empty());
        let (shown, _) = run(&["```rust\nfn main() {}\n```"]);
        assert_eq!(shown, "```rust\nfn main() {}\n```");
    }

    #[test]
    fn malformed_tag_is_shown_not_lost() {
        let (shown, calls) = run(&["<tool_call>not json</tool_call> ok"]);
        assert_eq!(shown, "<tool_call>not json</tool_call> ok");
        assert!(calls.is_empty());
    }

    #[test]
    fn unterminated_tag_is_parsed_at_the_end() {
        let (shown, calls) =
            run(&["<tool_call>{\"name\":\"bash\",\"arguments\":{\"command\":\"ls\"}}"]);
        assert_eq!(shown, "");
        assert_eq!(calls.len(), 1);
    }
}
