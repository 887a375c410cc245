//! Learning the model's context window from the server, and whether its chat template can
//! carry tools.
//!
//! Without the window Loom can neither show how full the context is nor compact before a
//! request overflows. Config `context_window` wins; otherwise the server is asked, in the
//! dialects the usual servers speak: OpenAI-style `/v1/models` metadata (`context_length`,
//! vLLM's `max_model_len`, LM Studio's `max_context_length`), llama.cpp's `/props` (the
//! runtime `n_ctx`, and whether the template supports tools), Ollama's `/api/show`, LM
//! Studio's `/api/v0/models/NAME`; else a table of known model families. Every probe is
//! short and a failure is silent: a window found later (an overflow error names it) still
//! teaches Loom.

use std::time::Duration;

use serde_json::{Value, json};

use super::ProviderSettings;

/// How long each probe waits.
const PROBE_TIMEOUT: Duration = Duration::from_secs(3);

/// What the server (or the table) says about the model.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ModelInfo {
    /// The context window in tokens.
    pub window: Option<u64>,
    /// Where the figure comes from, for the person.
    pub source: String,
    /// Whether the chat template can carry tools (llama.cpp says; others do not).
    pub tools_supported: Option<bool>,
    /// Whether llama-server runs with `--jinja`, when its `/props` shows it.
    pub jinja: Option<bool>,
}

/// The server's root (without `/v1`), where llama.cpp, Ollama and LM Studio keep their own
/// endpoints.
fn root(base_url: &str) -> String {
    let trimmed = base_url.trim_end_matches('/');
    trimmed.strip_suffix("/v1").unwrap_or(trimmed).to_string()
}

/// Ask the server about `settings.model`.
pub async fn probe(settings: &ProviderSettings) -> ModelInfo {
    let Some(client) = super::net::shared() else {
        return ModelInfo::default();
    };
    let get = |url: String| {
        let mut req = client.get(url).timeout(PROBE_TIMEOUT);
        if let Some(key) = settings.api_key.as_deref().filter(|k| !k.is_empty()) {
            req = req.bearer_auth(key);
        }
        async move {
            let resp = req.send().await.ok()?;
            if !resp.status().is_success() {
                return None;
            }
            super::bounded::json_capped(resp, super::bounded::PROBE_BODY_CAP).await
        }
    };
    let base = settings.base_url.trim_end_matches('/').to_string();
    let root = root(&base);
    let model = settings.model.as_str();
    if !super::discover::is_local(&base) {
        // A hosted API: its own model list and the table, no local servers' endpoints.
        let models = get(format!("{base}/models")).await;
        return hosted_info(models.as_ref(), model);
    }
    let (models, props, lmstudio, ollama) = tokio::join!(
        get(format!("{base}/models")),
        get(format!("{root}/props")),
        get(format!("{root}/api/v0/models/{model}")),
        async {
            let resp = client
                .post(format!("{root}/api/show"))
                .timeout(PROBE_TIMEOUT)
                .json(&json!({ "model": model }))
                .send()
                .await
                .ok()?;
            if !resp.status().is_success() {
                return None;
            }
            super::bounded::json_capped(resp, super::bounded::PROBE_BODY_CAP).await
        },
    );
    let answers = LocalAnswers {
        props: props.as_ref(),
        ollama: ollama.as_ref(),
        lmstudio: lmstudio.as_ref(),
        models: models.as_ref(),
    };
    answers.info(model)
}

/// What a hosted API tells of `model`: the window from its own model list, else the
/// known size of the model's family.
fn hosted_info(models: Option<&Value>, model: &str) -> ModelInfo {
    let found = models
        .and_then(|m| models_window(m, model))
        .map(|w| (w, "the server's /models list"))
        .or_else(|| known_window(model).map(|w| (w, "the known size of this model family")));
    ModelInfo {
        window: found.map(|f| f.0),
        source: found.map(|f| f.1.to_string()).unwrap_or_default(),
        tools_supported: None,
        jinja: None,
    }
}

/// The answers of a local server's endpoints (`None` where it has none or it failed).
struct LocalAnswers<'a> {
    /// llama.cpp's `/props`.
    props: Option<&'a Value>,
    /// Ollama's `/api/show`.
    ollama: Option<&'a Value>,
    /// LM Studio's model info.
    lmstudio: Option<&'a Value>,
    /// The OpenAI-compatible `/models` list.
    models: Option<&'a Value>,
}

impl LocalAnswers<'_> {
    /// What they tell of `model`: the window from the first that knows it (llama.cpp,
    /// Ollama, LM Studio, the model list, then the known size of its family), and from
    /// llama.cpp's props whether its template takes tools.
    fn info(&self, model: &str) -> ModelInfo {
        let mut info = ModelInfo {
            tools_supported: self.props.and_then(template_supports_tools),
            jinja: self.props.and_then(jinja_enabled),
            ..ModelInfo::default()
        };
        let found = self
            .props
            .and_then(|p| llama_cpp_window(p).map(|w| (w, "llama.cpp /props (n_ctx)")))
            .or_else(|| {
                self.ollama
                    .and_then(ollama_window)
                    .map(|w| (w, "Ollama /api/show"))
            })
            .or_else(|| {
                self.lmstudio
                    .and_then(lmstudio_window)
                    .map(|w| (w, "LM Studio model info"))
            })
            .or_else(|| {
                self.models
                    .and_then(|m| models_window(m, model))
                    .map(|w| (w, "the server's /models list"))
            })
            .or_else(|| known_window(model).map(|w| (w, "the known size of this model family")));
        if let Some((w, source)) = found {
            info.window = Some(w);
            info.source = source.to_string();
        }
        info
    }
}

/// llama.cpp's runtime context: `default_generation_settings.n_ctx` (or `n_ctx`).
pub fn llama_cpp_window(props: &Value) -> Option<u64> {
    props
        .pointer("/default_generation_settings/n_ctx")
        .or_else(|| props.get("n_ctx"))
        .and_then(Value::as_u64)
        .filter(|n| *n > 0)
}

/// Whether llama.cpp's chat template supports tools (`chat_template_caps`).
pub fn template_supports_tools(props: &Value) -> Option<bool> {
    props
        .pointer("/chat_template_caps/supports_tools")
        .or_else(|| props.pointer("/chat_template_caps/supports_tool_calls"))
        .and_then(Value::as_bool)
}

/// Whether llama-server runs with `--jinja`, as far as `/props` shows: a `jinja` flag
/// (some builds report it), or `chat_template_tool_use`, which llama-server includes only
/// with `--jinja` on. Upstream `/props` has no field for it being off: without `--jinja`
/// the server refuses every request with tools ("tools param requires --jinja flag"),
/// which says so itself.
pub fn jinja_enabled(props: &Value) -> Option<bool> {
    if let Some(flag) = props.get("jinja").and_then(Value::as_bool) {
        return Some(flag);
    }
    props.get("chat_template_tool_use").map(|_| true)
}

/// The warning to give when the chat template cannot carry tools, or `None`. Only when
/// `--jinja` is known to be off does it say to start llama-server with `--jinja`. Either
/// way Loom then sends no schemas and describes the tools as text (the text tool-call path).
pub fn tools_notice(info: &ModelInfo) -> Option<String> {
    if info.tools_supported != Some(false) {
        return None;
    }
    Some(if info.jinja == Some(false) {
        "the server says its chat template does not support tools and llama-server runs \
         without --jinja, so Loom describes its tools in the system prompt and reads the calls \
         the model writes in its text: start llama-server with --jinja, or use a model whose \
         template has tool calls, for real tool calls"
            .into()
    } else {
        "the server says this model's chat template does not support tools, so Loom describes \
         its tools in the system prompt and reads the calls the model writes in its text; a \
         model whose template has tool calls (or one given with --chat-template-file) gets \
         real tool calls"
            .into()
    })
}

/// The context Ollama runs a model with when nothing sets `num_ctx` (it cuts longer
/// prompts silently, so Loom must not assume the model's trained maximum).
pub const OLLAMA_DEFAULT_NUM_CTX: u64 = 4096;

/// Ollama: `num_ctx` when the model sets it, else Ollama's default (or the model's own
/// `*.context_length` when that is smaller).
pub fn ollama_window(show: &Value) -> Option<u64> {
    let num_ctx = show
        .get("parameters")
        .and_then(Value::as_str)
        .and_then(|p| {
            p.lines().find_map(|l| {
                let mut words = l.split_whitespace();
                (words.next() == Some("num_ctx")).then(|| words.next()?.parse().ok())?
            })
        });
    if num_ctx.is_some() {
        return num_ctx;
    }
    let trained = show
        .get("model_info")
        .and_then(Value::as_object)
        .and_then(|info| {
            info.iter()
                .find(|(k, _)| k.ends_with(".context_length"))
                .and_then(|(_, v)| v.as_u64())
        });
    Some(trained.map_or(OLLAMA_DEFAULT_NUM_CTX, |t| t.min(OLLAMA_DEFAULT_NUM_CTX)))
}

/// LM Studio: the loaded context, else the model's maximum.
pub fn lmstudio_window(info: &Value) -> Option<u64> {
    info.get("loaded_context_length")
        .or_else(|| info.get("max_context_length"))
        .and_then(Value::as_u64)
}

/// An OpenAI-style model list's entry for `model`, in the fields servers use.
pub fn models_window(list: &Value, model: &str) -> Option<u64> {
    let entry = list
        .get("data")?
        .as_array()?
        .iter()
        .find(|m| m.get("id").and_then(Value::as_str) == Some(model))?;
    [
        "/context_length",
        "/context_window",
        "/max_model_len",
        "/max_context_length",
        "/top_provider/context_length",
        "/meta/n_ctx",
        "/meta/n_ctx_train",
    ]
    .iter()
    .find_map(|p| entry.pointer(p).and_then(Value::as_u64))
    .filter(|n| *n > 0)
}

/// Known windows of model families, for servers that do not say (OpenAI's own API).
pub fn known_window(model: &str) -> Option<u64> {
    let m = model.rsplit('/').next().unwrap_or(model).to_lowercase();
    let table: &[(&str, u64)] = &[
        ("gpt-4.1", 1_047_576),
        ("gpt-5", 400_000),
        ("gpt-4o", 128_000),
        ("gpt-4-turbo", 128_000),
        ("o1", 200_000),
        ("o3", 200_000),
        ("o4", 200_000),
        ("gpt-3.5-turbo", 16_385),
        ("claude", 200_000),
        ("gemini", 1_048_576),
        ("qwen2.5-coder", 32_768),
        ("qwen3", 32_768),
        ("llama3.1", 131_072),
        ("llama-3.1", 131_072),
        ("llama3.2", 131_072),
        ("llama3.3", 131_072),
        ("deepseek", 128_000),
        ("codestral", 32_768),
        ("mistral", 32_768),
        ("gemma3", 131_072),
    ];
    table
        .iter()
        .find(|(prefix, _)| m.starts_with(prefix))
        .map(|(_, w)| *w)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 24: the warning said "start llama-server with --jinja" although `--jinja` was
    /// on. It says so only when `/props` shows it off.
    #[test]
    fn the_template_warning_names_jinja_only_when_it_is_off() {
        let info = |props: Value| ModelInfo {
            tools_supported: template_supports_tools(&props),
            jinja: jinja_enabled(&props),
            ..ModelInfo::default()
        };
        let caps = json!({"supports_tools": false});
        let on = tools_notice(&info(json!({
            "chat_template_caps": caps, "chat_template_tool_use": "{{ tools }}"
        })))
        .unwrap();
        assert!(!on.contains("--jinja"), "{on}");
        assert!(on.contains("does not support tools"), "{on}");
        let flagged_on = tools_notice(&info(json!({"chat_template_caps": caps, "jinja": true})));
        assert!(!flagged_on.unwrap().contains("--jinja"));
        let unknown = tools_notice(&info(json!({"chat_template_caps": caps}))).unwrap();
        assert!(!unknown.contains("--jinja"), "{unknown}");
        let off = tools_notice(&info(json!({"chat_template_caps": caps, "jinja": false}))).unwrap();
        assert!(off.contains("start llama-server with --jinja"), "{off}");
        let fine = json!({"chat_template_caps": {"supports_tools": true}, "jinja": false});
        assert_eq!(tools_notice(&info(fine)), None);
    }

    #[test]
    fn each_dialect_gives_its_window() {
        let props = json!({"default_generation_settings": {"n_ctx": 4096},
                           "chat_template_caps": {"supports_tools": false}});
        assert_eq!(llama_cpp_window(&props), Some(4096));
        assert_eq!(template_supports_tools(&props), Some(false));
        let ollama = json!({"parameters": "stop \"<|im_end|>\"\nnum_ctx 8192",
                            "model_info": {"qwen2.context_length": 32768}});
        assert_eq!(ollama_window(&ollama), Some(8192));
        let ollama = json!({"model_info": {"llama.context_length": 131_072}});
        assert_eq!(
            ollama_window(&ollama),
            Some(OLLAMA_DEFAULT_NUM_CTX),
            "Ollama runs with its default, not the trained maximum"
        );
        assert_eq!(
            lmstudio_window(&json!({"max_context_length": 32768, "loaded_context_length": 8192})),
            Some(8192)
        );
        let list = json!({"data": [{"id": "a", "max_model_len": 16384},
                                   {"id": "b", "meta": {"n_ctx_train": 2048}}]});
        assert_eq!(models_window(&list, "a"), Some(16384));
        assert_eq!(models_window(&list, "b"), Some(2048));
        assert_eq!(models_window(&list, "c"), None);
    }

    #[test]
    fn known_families_and_paths() {
        assert_eq!(known_window("gpt-4o-mini"), Some(128_000));
        assert_eq!(known_window("gpt-4.1-mini"), Some(1_047_576));
        assert_eq!(known_window("Qwen/Qwen2.5-Coder-7B"), Some(32_768));
        assert_eq!(known_window("some-new-model"), None);
        assert_eq!(root("http://h:8080/v1/"), "http://h:8080");
        assert_eq!(root("http://h:8080"), "http://h:8080");
    }
}
