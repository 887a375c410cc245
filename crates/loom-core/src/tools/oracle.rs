//! `oracle`: consult a second model on a hard question.
//!
//! Useful when a small local model drives and a stronger one is asked for advice: the
//! question (and whatever context the caller passes) goes to the model named in `[oracle]`
//! (default: the session's own server and model) with a bounded answer (`max_tokens` 16 to
//! 4096, `temperature` 0 to 2, checked when the config loads) and no tools. The answer
//! comes back with its token usage, so its cost is shown. It reads and changes nothing in
//! the workspace, and the server is one the person configured, so to the policy it is a
//! read; a project config that points it elsewhere needs trust like `base_url` does.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{CallIntent, ToolContext, ToolError, ToolKind, ToolResult, TypedTool};
use crate::llm::current::CurrentModel;
use crate::llm::{ChatRequest, LlmClient, LlmError, Message, Usage};
use crate::protocol::tool_data::OracleData;

/// Most bytes of question plus context sent.
pub const MAX_INPUT_BYTES: usize = 64 * 1024;

const SYSTEM: &str = "You are an oracle consulted by another AI coding assistant that is \
working in a software repository. Answer its question directly and precisely, say how sure \
you are when it matters, and keep the answer short. You cannot see the repository: rely on \
the context given, and say what you would need to know when it is not enough.";

/// Arguments of `oracle`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OracleArgs {
    /// The question, self-contained.
    pub question: String,
    /// Code, errors or notes the oracle needs (it cannot see the repository).
    pub context: Option<String>,
}

/// The `oracle` tool: a client for the second model.
pub struct Oracle {
    client: LlmClient,
    /// When the oracle names no model of its own: the session's, which `/model` switches.
    follow: Option<CurrentModel>,
}

impl Oracle {
    /// An oracle asking through `client` (its settings carry the model, bounds and key).
    pub fn new(client: LlmClient) -> Oracle {
        Oracle {
            client,
            follow: None,
        }
    }

    /// The same oracle, asking whatever model `model` holds at each call.
    pub fn following(self, model: CurrentModel) -> Oracle {
        Oracle {
            follow: Some(model),
            ..self
        }
    }
}

fn check(a: &OracleArgs) -> Result<(), ToolError> {
    if a.question.trim().is_empty() {
        return Err(ToolError::InvalidArguments(
            "the question is empty; ask something".into(),
        ));
    }
    let size = a.question.len() + a.context.as_deref().map_or(0, str::len);
    if size > MAX_INPUT_BYTES {
        return Err(ToolError::InvalidArguments(format!(
            "question and context are {size} bytes; at most {MAX_INPUT_BYTES} are sent — pass \
             only the parts that matter"
        )));
    }
    Ok(())
}

#[async_trait]
impl TypedTool for Oracle {
    type Args = OracleArgs;
    fn name(&self) -> &'static str {
        "oracle"
    }
    fn description(&self) -> &'static str {
        "Ask a second, usually stronger model a hard question (design, a subtle bug, an API \
         you are unsure of) and get its answer. It cannot see the repository: put the code, \
         error messages and facts it needs in `context`. Costs tokens; use it when stuck, not \
         for every step."
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }
    fn check(&self, a: &OracleArgs) -> Result<(), ToolError> {
        check(a)
    }
    fn intent(&self, _a: &OracleArgs) -> Result<CallIntent, ToolError> {
        Ok(CallIntent::reads([]))
    }
    fn default_timeout(&self) -> Duration {
        Duration::from_secs(300)
    }
    async fn run(&self, a: Arc<OracleArgs>, ctx: &ToolContext) -> ToolResult {
        let mut question = a.question.trim().to_string();
        if let Some(context) = a.context.as_deref().filter(|c| !c.trim().is_empty()) {
            question.push_str("\n\nContext:\n");
            question.push_str(context);
        }
        let messages = [
            Message::System {
                content: SYSTEM.into(),
            },
            Message::user(question),
        ];
        let input_chars: usize = messages.iter().map(Message::char_len).sum();
        let req = ChatRequest {
            messages: &messages,
            tools: &[],
        };
        let mut sink = |_| {};
        let mut client = self.client.clone();
        if let Some(model) = &self.follow {
            client.set_model(&model.get());
        }
        let settings = client.settings();
        match client.stream(req, &ctx.cancel, &mut sink).await {
            Ok(out) => {
                let usage = out
                    .usage
                    .unwrap_or_else(|| Usage::estimate(input_chars, out.text.len()));
                if out.text.trim().is_empty() {
                    return ToolResult::err(
                        "the oracle gave an empty answer; rephrase the question or go on \
                         without it",
                    );
                }
                let mut text = out.text;
                if out.finish_reason.as_deref() == Some("length") {
                    text.push_str(&format!(
                        "\n[the answer was cut at the oracle's limit of {} tokens]",
                        settings.max_tokens.unwrap_or_default()
                    ));
                }
                let cost = format!(
                    "[oracle {}: {} prompt + {} answer tokens{}]",
                    settings.model,
                    usage.prompt_tokens,
                    usage.completion_tokens,
                    if usage.estimated { ", estimated" } else { "" }
                );
                ToolResult::ok(format!("{text}\n\n{cost}")).with(&OracleData {
                    model: settings.model.clone(),
                    usage,
                })
            }
            Err(f) if matches!(f.error, LlmError::Cancelled) => ToolError::Cancelled.into(),
            Err(f) => ToolResult::err(format!(
                "the oracle ({} at {}) could not answer: {}; try again later or go on without it",
                settings.model, settings.base_url, f.error
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::ProviderSettings;
    use crate::tools::Tool;
    use serde_json::json;

    fn oracle() -> Oracle {
        let settings = ProviderSettings::new("http://127.0.0.1:9/v1", "o");
        Oracle::new(LlmClient::new(settings).unwrap())
    }

    #[test]
    fn empty_and_oversized_questions_are_refused_before_sending() {
        let o = oracle();
        let err = o.describe(&json!({"question": "  "})).unwrap_err();
        assert!(err.to_string().contains("the question is empty"), "{err}");
        let big = "x".repeat(MAX_INPUT_BYTES);
        let err = o
            .describe(&json!({"question": "why?", "context": big}))
            .unwrap_err();
        assert!(err.to_string().contains("pass only the parts"), "{err}");
        let err = o.describe(&json!({"q": "why?"})).unwrap_err();
        assert!(err.to_string().contains("unknown field `q`"), "{err}");
        assert_eq!(
            o.describe(&json!({"question": "why?"})).unwrap(),
            CallIntent::reads([])
        );
    }

    #[tokio::test]
    async fn an_unreachable_oracle_is_an_error_result() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ToolContext::for_workspace(dir.path()).unwrap();
        let r = oracle().execute(json!({"question": "why?"}), &ctx).await;
        assert!(!r.success);
        let err = r.error.unwrap();
        assert!(
            err.contains("the oracle (o at http://127.0.0.1:9/v1) could not answer"),
            "{err}"
        );
    }
}
