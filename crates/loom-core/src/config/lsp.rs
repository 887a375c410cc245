//! The `lsp` key: `lsp = false` switches language-server diagnostics off; `[lsp.NAME]`
//! tables add a server or change (or, with `enabled = false`, switch off) a built-in one.
//! Built-in servers (rust-analyzer, pyright / basedpyright, typescript-language-server,
//! gopls, clangd) are taken when their program is on `PATH`.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Deserialize;

use loom_lsp::ServerSpec;

/// How long an edit waits for diagnostics, unless `lsp_wait_ms` says.
pub const DEFAULT_WAIT: Duration = Duration::from_millis(2000);

/// The `lsp` key as written: a switch or a table of servers.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum LspConfig {
    /// `lsp = false` (or `true`, the default).
    Switch(bool),
    /// `[lsp.NAME]` tables.
    Servers(BTreeMap<String, LspServerConfig>),
}

/// One `[lsp.NAME]` table; every key optional so layers overlay.
#[derive(Debug, Default, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LspServerConfig {
    /// The program to start.
    pub command: Option<String>,
    /// Its arguments.
    pub args: Option<Vec<String>>,
    /// File extensions it serves, without the dot.
    pub filetypes: Option<Vec<String>>,
    /// Workspace-relative glob patterns of further files it serves.
    pub globs: Option<Vec<String>>,
    /// Files whose presence marks a project root (the server starts there).
    pub root_markers: Option<Vec<String>>,
    /// Variables set for it.
    pub env: Option<BTreeMap<String, String>>,
    /// Sent as `initializationOptions`.
    pub initialization_options: Option<serde_json::Value>,
    /// `false` switches this server off.
    pub enabled: Option<bool>,
}

impl LspServerConfig {
    /// `other`'s values over this one's.
    fn overlay(self, other: LspServerConfig) -> LspServerConfig {
        LspServerConfig {
            command: other.command.or(self.command),
            args: other.args.or(self.args),
            filetypes: other.filetypes.or(self.filetypes),
            globs: other.globs.or(self.globs),
            root_markers: other.root_markers.or(self.root_markers),
            env: other.env.or(self.env),
            initialization_options: other.initialization_options.or(self.initialization_options),
            enabled: other.enabled.or(self.enabled),
        }
    }

    /// Whether this table only switches a server off (starts nothing).
    pub fn only_disables(&self) -> bool {
        *self
            == LspServerConfig {
                enabled: Some(false),
                ..LspServerConfig::default()
            }
    }
}

/// `other`'s `lsp` over `base`'s: two tables merge server by server; otherwise the later
/// value wins.
pub fn overlay(base: Option<LspConfig>, other: Option<LspConfig>) -> Option<LspConfig> {
    match (base, other) {
        (Some(LspConfig::Servers(mut a)), Some(LspConfig::Servers(b))) => {
            for (name, table) in b {
                let merged = match a.remove(&name) {
                    Some(old) => old.overlay(table),
                    None => table,
                };
                a.insert(name, merged);
            }
            Some(LspConfig::Servers(a))
        }
        (a, b) => b.or(a),
    }
}

/// The language servers in force.
#[derive(Debug, Clone, PartialEq)]
pub struct LspSettings {
    /// The servers, configured ones first; empty when `lsp = false`.
    pub servers: Vec<ServerSpec>,
    /// The most an edit waits for diagnostics.
    pub wait: Duration,
    /// The built-in servers among `servers` that the person's own config does not name:
    /// taken only because their program is on `PATH`. They read (and some run) the
    /// repository's code, so they start only where [`LspSettings::in_force`] allows.
    pub defaults: Vec<String>,
}

impl LspSettings {
    /// The servers that may start, and why any built-in ones were held back: a built-in
    /// server the person's own config does not name starts only in a workspace that is
    /// not untrusted and with the sandbox active (`sandbox_active`) to contain it.
    /// Configured servers are unaffected: a project's need trust before they get here.
    pub fn in_force(
        &self,
        untrusted: bool,
        sandbox_active: bool,
    ) -> (Vec<ServerSpec>, Option<String>) {
        if !untrusted && sandbox_active {
            return (self.servers.clone(), None);
        }
        let (held, kept): (Vec<ServerSpec>, Vec<ServerSpec>) = self
            .servers
            .iter()
            .cloned()
            .partition(|s| self.defaults.contains(&s.name));
        if held.is_empty() {
            return (kept, None);
        }
        let names: Vec<&str> = held.iter().map(|s| s.name.as_str()).collect();
        let why = if untrusted {
            format!(
                "language servers off in an untrusted workspace ({}) — trust it (`loom trust`) \
                 or enable [lsp] in your config",
                names.join(", ")
            )
        } else {
            format!(
                "language servers off without the sandbox ({}): they would read and run the \
                 repository's code uncontained — turn the sandbox on or enable [lsp] in your \
                 config",
                names.join(", ")
            )
        };
        (kept, Some(why))
    }
}

/// The language servers of the merged configuration `file`, with the built-in ones on
/// `path_var`; `user` is the `lsp` of the person's own config (what enables built-ins
/// everywhere).
pub(super) fn of_file(
    file: &super::FileConfig,
    user: Option<&LspConfig>,
    path_var: Option<&str>,
) -> Result<LspSettings, super::ConfigError> {
    let mut settings = resolve(
        file.integrations.lsp.as_ref(),
        file.integrations.lsp_wait_ms,
        path_var,
    )
    .map_err(|message| super::ConfigError::Invalid {
        source_name: "lsp".into(),
        message,
    })?;
    settings.defaults = defaults(&settings.servers, user);
    Ok(settings)
}

/// The built-in servers of `servers` (by name and program) that the person's own `lsp`
/// (`user`) does not enable: `lsp = true` enables them all, an `[lsp.NAME]` table that does
/// not switch it off enables that one.
pub fn defaults(servers: &[ServerSpec], user: Option<&LspConfig>) -> Vec<String> {
    let builtin = loom_lsp::spec::builtin();
    servers
        .iter()
        .filter(|s| {
            builtin
                .iter()
                .any(|b| b.name == s.name && b.command == s.command)
        })
        .filter(|s| match user {
            Some(LspConfig::Switch(true)) => false,
            Some(LspConfig::Servers(t)) => t.get(&s.name).is_none_or(|t| t.enabled == Some(false)),
            _ => true,
        })
        .map(|s| s.name.clone())
        .collect()
}

/// Resolve `lsp` and `lsp_wait_ms` against the built-in servers on `path_var`.
pub fn resolve(
    lsp: Option<&LspConfig>,
    wait_ms: Option<u64>,
    path_var: Option<&str>,
) -> Result<LspSettings, String> {
    let wait = wait_ms.map_or(DEFAULT_WAIT, |ms| {
        Duration::from_millis(ms.clamp(50, 120_000))
    });
    let tables = match lsp {
        Some(LspConfig::Switch(false)) => {
            return Ok(LspSettings {
                servers: Vec::new(),
                wait,
                defaults: Vec::new(),
            });
        }
        Some(LspConfig::Servers(t)) => t.clone(),
        _ => BTreeMap::new(),
    };
    let builtin = loom_lsp::spec::builtin();
    let mut servers = Vec::new();
    for (name, table) in &tables {
        if table.enabled == Some(false) {
            continue;
        }
        let base = builtin.iter().find(|b| &b.name == name).cloned();
        let configured = table.command.is_some() || table.filetypes.is_some();
        if base.is_none() && !configured {
            continue;
        }
        let spec = merge(name, base, table)?;
        if table.command.is_some() || loom_lsp::spec::on_path(&spec.command, path_var) {
            servers.push(spec);
        }
    }
    for spec in loom_lsp::spec::builtin_on_path(path_var) {
        if !tables.contains_key(&spec.name) {
            servers.push(spec);
        }
    }
    for spec in &mut servers {
        loom_lsp::spec::pin_tsserver(spec, path_var);
    }
    Ok(LspSettings {
        servers,
        wait,
        defaults: Vec::new(),
    })
}

/// `table` over the built-in `base` (if the name is one), checked.
fn merge(
    name: &str,
    base: Option<ServerSpec>,
    table: &LspServerConfig,
) -> Result<ServerSpec, String> {
    let mut spec = base.unwrap_or_else(|| ServerSpec {
        name: name.to_string(),
        command: String::new(),
        args: Vec::new(),
        filetypes: Vec::new(),
        globs: Vec::new(),
        root_markers: Vec::new(),
        env: Vec::new(),
        initialization_options: None,
    });
    let t = table.clone();
    if let Some(c) = t.command {
        spec.command = c;
    }
    spec.args = t.args.unwrap_or(spec.args);
    spec.filetypes = t.filetypes.unwrap_or(spec.filetypes);
    spec.globs = t.globs.unwrap_or(spec.globs);
    spec.root_markers = t.root_markers.unwrap_or(spec.root_markers);
    spec.env = t.env.map_or(spec.env, |e| e.into_iter().collect());
    spec.initialization_options = t.initialization_options.or(spec.initialization_options);
    if spec.command.trim().is_empty() {
        return Err(format!(
            "lsp.{name}: `command` is missing; name the server's program"
        ));
    }
    if spec.filetypes.is_empty() && spec.globs.is_empty() {
        return Err(format!(
            "lsp.{name}: give `filetypes` (extensions such as \"py\") or `globs` so Loom knows \
             which files it serves"
        ));
    }
    for g in &spec.globs {
        globset::Glob::new(g).map_err(|e| format!("lsp.{name}: bad glob `{g}`: {e}"))?;
    }
    Ok(spec)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Option<LspConfig> {
        #[derive(Deserialize)]
        struct F {
            lsp: Option<LspConfig>,
        }
        toml::from_str::<F>(text).unwrap().lsp
    }

    fn bin_with(names: &[&str]) -> tempfile::TempDir {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        for n in names {
            let p = dir.path().join(n);
            std::fs::write(&p, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        dir
    }

    fn names(s: &LspSettings) -> Vec<&str> {
        s.servers.iter().map(|s| s.name.as_str()).collect()
    }

    #[test]
    fn builtins_on_path_are_taken_and_off_switches_work() {
        let bin = bin_with(&["pyright-langserver", "gopls"]);
        let path = bin.path().to_str();
        let all = resolve(None, None, path).unwrap();
        assert_eq!(names(&all), ["pyright", "gopls"]);
        assert_eq!(all.wait, DEFAULT_WAIT);
        let off = resolve(parse("lsp = false").as_ref(), None, path).unwrap();
        assert!(off.servers.is_empty());
        let one_off = parse("[lsp.gopls]\nenabled = false");
        assert_eq!(
            names(&resolve(one_off.as_ref(), Some(500), path).unwrap()),
            ["pyright"]
        );
    }

    #[test]
    fn a_configured_server_comes_first_and_a_table_changes_a_builtin() {
        let bin = bin_with(&["pyright-langserver"]);
        let text = "[lsp.mine]\ncommand = \"/opt/mine\"\nfiletypes = [\"py\"]\n\
                    [lsp.pyright]\nargs = [\"--stdio\", \"--verbose\"]\n";
        let s = resolve(parse(text).as_ref(), None, bin.path().to_str()).unwrap();
        assert_eq!(names(&s), ["mine", "pyright"]);
        assert_eq!(s.servers[1].args, ["--stdio", "--verbose"]);
    }

    #[test]
    fn a_new_server_without_command_or_files_is_an_error_that_says_what_to_add() {
        let no_files = parse("[lsp.x]\ncommand = \"x\"");
        let err = resolve(no_files.as_ref(), None, None).unwrap_err();
        assert!(err.contains("filetypes"), "{err}");
        let no_command = parse("[lsp.x]\nfiletypes = [\"x\"]");
        let err = resolve(no_command.as_ref(), None, None).unwrap_err();
        assert!(err.contains("command"), "{err}");
    }

    #[test]
    fn layers_merge_server_tables_and_a_later_switch_wins() {
        let a = parse("[lsp.x]\ncommand = \"a\"\nfiletypes = [\"x\"]");
        let b = parse("[lsp.x]\nargs = [\"--b\"]");
        let Some(LspConfig::Servers(m)) = overlay(a.clone(), b) else {
            panic!("tables merge");
        };
        assert_eq!(m["x"].command.as_deref(), Some("a"));
        assert_eq!(m["x"].args, Some(vec!["--b".to_string()]));
        assert_eq!(
            overlay(a, parse("lsp = false")),
            Some(LspConfig::Switch(false))
        );
    }
}
