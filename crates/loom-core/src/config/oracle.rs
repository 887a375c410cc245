//! The `[oracle]` table: which model the `oracle` tool consults and how long and how
//! randomly it may answer. The bounds are checked when the config loads, so a value out
//! of range is an error naming the key, never a silently clamped request.

use serde::Deserialize;

use super::ConfigError;

/// The `[oracle]` table: the model `oracle` asks (default: the session's own provider and
/// model).
#[derive(Debug, Default, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OracleConfig {
    /// Model id (default: the session's model).
    pub model: Option<String>,
    /// Base URL of its OpenAI-compatible API (default: the session's server).
    pub base_url: Option<String>,
    /// The environment variable holding its API key (default: the session's key).
    pub api_key_env: Option<String>,
    /// Cap on the tokens of one answer, 16 to 4096 (default 1024).
    pub max_tokens: Option<u32>,
    /// Sampling temperature, 0 to 2 (default 0.2).
    pub temperature: Option<f32>,
}

/// Bounds and defaults of the oracle's answer.
pub mod oracle_bounds {
    /// Fewest output tokens an oracle answer may be capped at.
    pub const MIN_TOKENS: u32 = 16;
    /// Most output tokens an oracle answer may be capped at.
    pub const MAX_TOKENS: u32 = 4096;
    /// Default cap.
    pub const DEFAULT_TOKENS: u32 = 1024;
    /// Highest temperature.
    pub const MAX_TEMPERATURE: f32 = 2.0;
    /// Default temperature.
    pub const DEFAULT_TEMPERATURE: f32 = 0.2;
}

/// The oracle's settings in force.
#[derive(Debug, Clone, PartialEq)]
pub struct OracleSettings {
    /// Model id (`None`: the session's).
    pub model: Option<String>,
    /// Base URL (`None`: the session's).
    pub base_url: Option<String>,
    /// The API key: from `api_key_env` when it is named, else the session's key.
    pub api_key: Option<String>,
    /// Output token cap (16..=4096).
    pub max_tokens: u32,
    /// Temperature (0..=2).
    pub temperature: f32,
}

/// Check the `[oracle]` table's bounds and read its key.
pub(crate) fn settings(
    o: OracleConfig,
    env: &dyn Fn(&str) -> Option<String>,
    session_key_env: &str,
) -> Result<OracleSettings, ConfigError> {
    use oracle_bounds::*;
    let max_tokens = o.max_tokens.unwrap_or(DEFAULT_TOKENS);
    if !(MIN_TOKENS..=MAX_TOKENS).contains(&max_tokens) {
        return Err(ConfigError::Invalid {
            source_name: "oracle.max_tokens".into(),
            message: format!("{max_tokens} is out of range; use {MIN_TOKENS} to {MAX_TOKENS}"),
        });
    }
    let temperature = o.temperature.unwrap_or(DEFAULT_TEMPERATURE);
    if !(0.0..=MAX_TEMPERATURE).contains(&temperature) {
        return Err(ConfigError::Invalid {
            source_name: "oracle.temperature".into(),
            message: format!("{temperature} is out of range; use 0 to {MAX_TEMPERATURE}"),
        });
    }
    let key_env = o.api_key_env.as_deref().unwrap_or(session_key_env);
    Ok(OracleSettings {
        model: o.model.filter(|m| !m.trim().is_empty()),
        base_url: o.base_url.filter(|u| !u.trim().is_empty()),
        api_key: env(key_env),
        max_tokens,
        temperature,
    })
}

#[cfg(test)]
mod tests {
    use super::super::FlagConfig;

    #[test]
    fn oracle_bounds_are_checked_and_its_key_read() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("u.toml");
        let flags = FlagConfig {
            config_file: Some(user.clone()),
            ..FlagConfig::default()
        };
        let env = |k: &str| match k {
            "OPENAI_API_KEY" => Some("sk-main".to_string()),
            "ORACLE_KEY" => Some("sk-oracle".to_string()),
            _ => None,
        };
        std::fs::write(&user, "").unwrap();
        let c = super::super::load(dir.path(), &flags, &env).unwrap();
        assert_eq!(c.tools.oracle.max_tokens, 1024);
        assert_eq!(c.tools.oracle.temperature, 0.2);
        assert_eq!(
            c.tools.oracle.api_key.as_deref(),
            Some("sk-main"),
            "the session's key by default"
        );
        assert_eq!(c.tools.oracle.base_url, None);
        std::fs::write(
            &user,
            "[oracle]\nmodel = \"big\"\nbase_url = \"http://o/v1\"\napi_key_env = \"ORACLE_KEY\"\nmax_tokens = 4096\ntemperature = 0\n",
        )
        .unwrap();
        let c = super::super::load(dir.path(), &flags, &env).unwrap();
        assert_eq!(c.tools.oracle.model.as_deref(), Some("big"));
        assert_eq!(c.tools.oracle.api_key.as_deref(), Some("sk-oracle"));
        assert_eq!(
            (c.tools.oracle.max_tokens, c.tools.oracle.temperature),
            (4096, 0.0)
        );
        for (line, expected) in [
            (
                "max_tokens = 15",
                "oracle.max_tokens: 15 is out of range; use 16 to 4096",
            ),
            (
                "max_tokens = 4097",
                "oracle.max_tokens: 4097 is out of range",
            ),
            (
                "temperature = -0.1",
                "oracle.temperature: -0.1 is out of range; use 0 to 2",
            ),
            (
                "temperature = 2.5",
                "oracle.temperature: 2.5 is out of range",
            ),
            (
                "temperature = nan",
                "oracle.temperature: NaN is out of range",
            ),
        ] {
            std::fs::write(&user, format!("[oracle]\n{line}\n")).unwrap();
            let err = super::super::load(dir.path(), &flags, &env)
                .unwrap_err()
                .to_string();
            assert!(err.contains(expected), "{line}: {err}");
        }
    }
}
