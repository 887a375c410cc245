//! A provider's 400 that blames one tool's schema ("Invalid schema for function
//! 'browser': …"): which tool it names, and the words that explain it to a person. The
//! client ([`crate::LlmClient::stream`]) then tries the request once more without
//! that tool and leaves it out for the rest of the session, so one schema a provider
//! refuses costs one tool, not every request.
//!
//! Providers name the tool in different ways: OpenAI by name (`function 'NAME'`),
//! Anthropic by position (`tools.3.custom.input_schema: …`), Gemini by position in its
//! function declarations (`tools[0].function_declarations[3].parameters…`).

use serde_json::Value;

/// The tool a provider refused, and what it said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The tool's name as Loom offered it.
    pub tool: String,
    /// The provider's message.
    pub said: String,
}

impl Refusal {
    /// The explanation for the person, in plain words.
    pub fn explain(&self) -> String {
        format!(
            "The model provider refused the input schema of the `{}` tool, so Loom asks again \
             without it and leaves it out for the rest of this session. The provider said: {}",
            self.tool,
            self.said.trim()
        )
    }
}

/// The tool of `tools` (OpenAI function-tool entries, in the order sent) that an error
/// answer with `status` and `message` blames for its schema, if it blames one.
pub fn blamed(status: u16, message: &str, tools: &[Value]) -> Option<Refusal> {
    if !matches!(status, 400 | 422) {
        return None;
    }
    let lower = message.to_ascii_lowercase();
    if !["schema", "parameters", "function_declarations"]
        .iter()
        .any(|w| lower.contains(w))
    {
        return None;
    }
    let names: Vec<&str> = tools
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    let by_index = ["function_declarations[", "tools[", "tools."]
        .iter()
        .find_map(|marker| index_after(message, marker))
        .and_then(|i| names.get(i).copied());
    let by_name = || {
        let mut quoted: Vec<&str> = names
            .iter()
            .copied()
            .filter(|n| {
                ["'", "\"", "`"]
                    .iter()
                    .any(|q| message.contains(&format!("{q}{n}{q}")))
            })
            .collect();
        quoted.sort_by_key(|n| std::cmp::Reverse(n.len()));
        quoted.first().copied()
    };
    let tool = by_name().or(by_index)?;
    Some(Refusal {
        tool: tool.to_string(),
        said: message.to_string(),
    })
}

/// The number right after the first `marker` in `text`.
fn index_after(text: &str, marker: &str) -> Option<usize> {
    let at = text.find(marker)? + marker.len();
    let digits: String = text[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tools(names: &[&str]) -> Vec<Value> {
        names
            .iter()
            .map(|n| json!({"type": "function", "function": {"name": n, "parameters": {}}}))
            .collect()
    }

    #[test]
    fn openai_names_the_function() {
        let t = tools(&["read_file", "browser"]);
        let r = blamed(
            400,
            "Invalid schema for function 'browser': schema must be a JSON Schema of 'type: \"object\"', got 'type: \"None\"'.",
            &t,
        )
        .unwrap();
        assert_eq!(r.tool, "browser");
        let text = r.explain();
        assert!(
            text.contains("refused the input schema of the `browser` tool"),
            "{text}"
        );
        assert!(text.contains("got 'type: \"None\"'"), "{text}");
    }

    #[test]
    fn anthropic_and_gemini_name_a_position() {
        let t = tools(&["read_file", "write_file", "cron_list"]);
        let r = blamed(
            400,
            "tools.2.custom.input_schema: JSON schema is invalid",
            &t,
        )
        .unwrap();
        assert_eq!(r.tool, "cron_list");
        let r = blamed(
            400,
            "* GenerateContentRequest.tools[0].function_declarations[1].parameters.properties[n].format: only 'enum' and 'date-time' are supported for STRING type",
            &t,
        )
        .unwrap();
        assert_eq!(r.tool, "write_file");
    }

    #[test]
    fn other_errors_blame_no_tool() {
        let t = tools(&["read_file"]);
        assert_eq!(
            blamed(
                400,
                "This model's maximum context length is 4096 tokens",
                &t
            ),
            None
        );
        assert_eq!(
            blamed(500, "Invalid schema for function 'read_file'", &t),
            None
        );
        assert_eq!(blamed(400, "Invalid schema for function 'other'", &t), None);
        assert_eq!(
            blamed(400, "tools.7.custom.input_schema: invalid", &t),
            None
        );
    }
}
