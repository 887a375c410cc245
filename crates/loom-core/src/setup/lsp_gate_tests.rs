//! Built-in language servers read (and some run) the repository's code: they start only
//! in a workspace that is not untrusted and with the sandbox active, unless the person's
//! own config enables them. Each test loads a real configuration (user file, project file,
//! `PATH` with a stand-in server) and asks setup what would start.

use std::path::{Path, PathBuf};

use loom_sandbox::SandboxSpec;

use super::{lsp_for, lsp_in_force};
use crate::config::trust::ProjectTrust;
use crate::config::{Config, FlagConfig, load};

/// A workspace, the person's config file and a `PATH` holding `pyright-langserver`.
struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new(user: &str, project: Option<&str>) -> Fixture {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let server = bin.join("pyright-langserver");
        std::fs::write(&server, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&server, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(dir.path().join("user.toml"), user).unwrap();
        std::fs::create_dir_all(dir.path().join("ws/.loom")).unwrap();
        if let Some(text) = project {
            std::fs::write(dir.path().join("ws/.loom/config.toml"), text).unwrap();
        }
        Fixture { dir }
    }

    fn workspace(&self) -> PathBuf {
        self.dir.path().join("ws")
    }

    fn config(&self) -> Config {
        let flags = FlagConfig {
            config_file: Some(self.dir.path().join("user.toml")),
            ..FlagConfig::default()
        };
        let path = self.dir.path().join("bin").display().to_string();
        load(&self.workspace(), &flags, &|k| {
            (k == "PATH").then(|| path.clone())
        })
        .unwrap()
    }
}

fn contained(ws: &Path) -> SandboxSpec {
    SandboxSpec::workspace_write(ws, &[], false)
}

fn names(config: &Config, sandbox_active: bool) -> Vec<String> {
    let (servers, _) = lsp_in_force(config, sandbox_active);
    servers.into_iter().map(|s| s.name).collect()
}

/// Regression: a built-in server started in a workspace whose config was not trusted
/// (typescript-language-server runs the repository's own TypeScript, rust-analyzer its
/// cargo configuration).
#[tokio::test]
async fn built_in_servers_do_not_start_in_an_untrusted_workspace() {
    let project = "network = true\n";
    let f = Fixture::new("", Some(project));
    let config = f.config();
    assert!(matches!(
        config.project_trust,
        ProjectTrust::Untrusted { .. }
    ));
    assert!(lsp_for(&f.workspace(), &config, contained(&f.workspace())).is_none());
    let (servers, why) = lsp_in_force(&config, true);
    assert!(servers.is_empty());
    let why = why.expect("the person is told why");
    assert!(
        why.contains("untrusted workspace") && why.contains("pyright") && why.contains("[lsp]"),
        "{why}"
    );

    // Enabled in the person's own config, it starts (contained by the sandbox as before).
    let mine = Fixture::new("[lsp.pyright]\nenabled = true\n", Some(project));
    let config = mine.config();
    assert!(matches!(
        config.project_trust,
        ProjectTrust::Untrusted { .. }
    ));
    assert_eq!(names(&config, true), ["pyright"]);
    assert!(lsp_for(&mine.workspace(), &config, contained(&mine.workspace())).is_some());
    assert_eq!(lsp_in_force(&config, true).1, None);

    // The repository's own `lsp = true` enables nothing: it is not the person's.
    let theirs = Fixture::new("", Some("network = true\nlsp = true\n"));
    assert!(names(&theirs.config(), true).is_empty());
}

/// Regression: with the sandbox off (or unavailable) a built-in server ran the
/// repository's code uncontained in any workspace.
#[tokio::test]
async fn built_in_servers_do_not_start_without_the_sandbox_unless_the_person_enabled_them() {
    let f = Fixture::new("sandbox = \"off\"\n", None);
    let config = f.config();
    assert_eq!(config.project_trust, ProjectTrust::NotNeeded);
    assert!(lsp_for(&f.workspace(), &config, SandboxSpec::off()).is_none());
    let why = lsp_in_force(&config, false)
        .1
        .expect("the person is told why");
    assert!(
        why.contains("without the sandbox") && why.contains("pyright"),
        "{why}"
    );
    // The same workspace with the sandbox active starts it, as before.
    assert_eq!(names(&config, true), ["pyright"]);
    assert!(lsp_for(&f.workspace(), &config, contained(&f.workspace())).is_some());

    // `lsp = true` in the person's config enables every built-in one.
    let all = Fixture::new("sandbox = \"off\"\nlsp = true\n", None);
    assert_eq!(names(&all.config(), false), ["pyright"]);
    assert!(lsp_for(&all.workspace(), &all.config(), SandboxSpec::off()).is_some());

    // A server the person configured starts; a built-in they switched off stays off.
    let own = Fixture::new(
        "sandbox = \"off\"\n[lsp.mine]\ncommand = \"/opt/mine\"\nfiletypes = [\"py\"]\n\
         [lsp.pyright]\nenabled = false\n",
        None,
    );
    assert_eq!(names(&own.config(), false), ["mine"]);
    assert_eq!(lsp_in_force(&own.config(), false).1, None);
}
