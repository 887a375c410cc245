//! The environment a command may see: an allowlist, never the parent's whole environment.
//!
//! API keys live in the environment of the person running Loom; a model that can run
//! `env` must not be able to read them. Only well-known harmless names pass, plus names
//! the user configures. Configured glob patterns (`CARGO_*`) never pass a variable whose
//! name looks like a secret; only an exact configured name does.

/// Names always passed through when set in the parent.
pub const BASE_ALLOWLIST: &[&str] = &["PATH", "HOME", "TERM", "LANG", "USER", "SHELL", "TMPDIR"];

/// Fragments that make a variable name look like a secret.
const SECRET_MARKERS: &[&str] = &[
    "KEY",
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "CREDENTIAL",
    "AUTH",
    "PRIVATE",
    "SESSION",
    "COOKIE",
];

/// Whether a variable name looks like it holds a secret.
pub fn looks_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_MARKERS.iter().any(|m| upper.contains(m))
}

/// Which parent variables a child process receives.
#[derive(Debug, Clone, Default)]
pub struct EnvPolicy {
    /// Extra names or `PREFIX*` patterns from the configuration.
    pub extra: Vec<String>,
}

impl EnvPolicy {
    /// Whether the variable `name` may be passed to a child.
    pub fn allows(&self, name: &str) -> bool {
        if self.extra.iter().any(|e| e == name) {
            return true;
        }
        if looks_secret(name) {
            return false;
        }
        if BASE_ALLOWLIST.contains(&name) || name.starts_with("LC_") {
            return true;
        }
        self.extra
            .iter()
            .filter_map(|e| e.strip_suffix('*'))
            .any(|prefix| name.starts_with(prefix))
    }

    /// The filtered environment, from the given variables (normally `std::env::vars_os`).
    pub fn filter<I>(&self, vars: I) -> Vec<(String, String)>
    where
        I: IntoIterator<Item = (std::ffi::OsString, std::ffi::OsString)>,
    {
        vars.into_iter()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .filter(|(k, _)| self.allows(k))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
        pairs.iter().map(|(k, v)| (k.into(), v.into())).collect()
    }

    #[test]
    fn base_names_pass_and_others_do_not() {
        let p = EnvPolicy::default();
        let out = p.filter(vars(&[
            ("PATH", "/bin"),
            ("LC_ALL", "C"),
            ("OPENAI_API_KEY", "sk-x"),
            ("RANDOM_THING", "1"),
        ]));
        let names: Vec<_> = out.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, vec!["PATH", "LC_ALL"]);
    }

    #[test]
    fn patterns_never_pass_secrets_but_exact_names_do() {
        let p = EnvPolicy {
            extra: vec!["CARGO_*".into(), "GITHUB_TOKEN".into()],
        };
        assert!(p.allows("CARGO_HOME"));
        assert!(!p.allows("CARGO_REGISTRY_TOKEN"));
        assert!(p.allows("GITHUB_TOKEN"));
        assert!(!p.allows("NPM_TOKEN"));
    }
}
