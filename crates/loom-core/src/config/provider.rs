//! The provider keys' values, checked when the config is loaded: a temperature the API
//! refuses, a `max_tokens` of 0 or an address that is not http(s) would otherwise reach
//! the server on every request (or fail five retries later as "cannot reach the model
//! server") instead of being named once, with the key, before anything starts.

use super::ConfigError;
use super::file_keys::ProviderKeys;

/// Highest sampling temperature OpenAI-compatible APIs accept.
const MAX_TEMPERATURE: f32 = 2.0;

/// Check `keys` (all layers merged: files, `OPENAI_BASE_URL`, flags).
pub(crate) fn check(keys: &ProviderKeys) -> Result<(), ConfigError> {
    let invalid = |key: &str, message: String| ConfigError::Invalid {
        source_name: key.into(),
        message,
    };
    if let Some(t) = keys.temperature
        && !(0.0..=MAX_TEMPERATURE).contains(&t)
    {
        return Err(invalid(
            "temperature",
            format!("{t} is out of range; use 0 to {MAX_TEMPERATURE}"),
        ));
    }
    if keys.max_tokens == Some(0) {
        return Err(invalid(
            "max_tokens",
            "0 leaves no room for an answer; use at least 1, or leave it out for the \
             server's default"
                .into(),
        ));
    }
    if let Some(address) = keys.base_url.as_deref().filter(|a| !a.trim().is_empty()) {
        let scheme = url::Url::parse(address.trim()).map(|u| u.scheme().to_string());
        if !matches!(scheme.as_deref(), Ok("http" | "https")) {
            return Err(invalid(
                "base_url",
                format!(
                    "{address:?} is not an http:// or https:// address (from base_url, \
                     --base-url or OPENAI_BASE_URL); a local server's looks like \
                     http://127.0.0.1:8080/v1"
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(f: impl FnOnce(&mut ProviderKeys)) -> ProviderKeys {
        let mut k = ProviderKeys::default();
        f(&mut k);
        k
    }

    /// Values the API takes pass; each out-of-range value is named with its key and what
    /// to use instead.
    #[test]
    fn provider_values_are_checked_with_their_key() {
        for ok in [
            keys(|_| {}),
            keys(|k| k.temperature = Some(0.0)),
            keys(|k| k.temperature = Some(2.0)),
            keys(|k| k.max_tokens = Some(1)),
            keys(|k| k.base_url = Some("http://127.0.0.1:8080/v1".into())),
            keys(|k| k.base_url = Some("https://api.openai.com/v1".into())),
        ] {
            assert!(check(&ok).is_ok(), "{ok:?}");
        }
        for (bad, said) in [
            (
                keys(|k| k.temperature = Some(9.0)),
                "temperature: 9 is out of range; use 0 to 2",
            ),
            (
                keys(|k| k.temperature = Some(-0.5)),
                "temperature: -0.5 is out of range",
            ),
            (
                keys(|k| k.temperature = Some(f32::NAN)),
                "temperature: NaN is out of range",
            ),
            (
                keys(|k| k.max_tokens = Some(0)),
                "max_tokens: 0 leaves no room for an answer",
            ),
            (
                keys(|k| k.base_url = Some("htp:/127.0.0.1:18080/v1".into())),
                "base_url: \"htp:/127.0.0.1:18080/v1\" is not an http:// or https:// address",
            ),
            (
                keys(|k| k.base_url = Some("127.0.0.1:8080/v1".into())),
                "is not an http:// or https:// address",
            ),
        ] {
            let err = check(&bad).unwrap_err().to_string();
            assert!(err.contains(said), "{err}");
        }
    }
}
