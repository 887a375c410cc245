//! Workspace confinement: the one function that decides whether a path may be touched.
//!
//! Every file tool and the bash working directory resolve their paths through
//! [`Confinement::resolve`]. It knows nothing about tools or the agent; it only turns a
//! user- or model-supplied string into a canonical path inside the workspace, or an error
//! that names the path and the rule that refused it.
//!
//! Resolution follows the kernel, not string manipulation: the deepest existing ancestor is
//! canonicalised (symlinks and `..` resolved by the filesystem), and only the components
//! that do not exist yet are applied lexically. A dangling symlink is refused, because a
//! later write would follow it to wherever it points.

use std::path::{Component, Path, PathBuf};

use thiserror::Error;

/// Whether a path is about to be read or written; some rules only guard writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Reading contents or listing.
    Read,
    /// Creating, modifying or deleting.
    Write,
}

/// Why a path was refused. Each message names the path and the rule.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum PathError {
    /// No workspace is open, so there is nothing a path could be relative to.
    #[error(
        "no workspace is open; file tools need one (start loom inside a project or pass -C DIR)"
    )]
    NoWorkspace,
    /// The path contains a NUL byte, which no filesystem path may hold.
    #[error("refused `{shown}`: the path contains a NUL byte (rule: no-null-bytes)")]
    NullByte {
        /// The path as given, with the NUL shown as `\0`.
        shown: String,
    },
    /// The path was empty.
    #[error("the path is empty; give a path relative to the workspace root, e.g. `src/main.rs`")]
    Empty,
    /// The resolved path lies outside the workspace root.
    #[error(
        "refused `{given}`: it resolves to {resolved}, outside the workspace {root} (rule: workspace-confinement)"
    )]
    Outside {
        /// The path as given.
        given: String,
        /// Where it actually points.
        resolved: PathBuf,
        /// The workspace root.
        root: PathBuf,
    },
    /// The path matches a forbidden rule.
    #[error("refused `{given}`: {resolved} is protected (rule: forbidden-path {rule})")]
    Forbidden {
        /// The path as given.
        given: String,
        /// Where it actually points.
        resolved: PathBuf,
        /// The rule that matched, as configured.
        rule: String,
    },
    /// A component is a symlink whose target does not exist.
    #[error(
        "refused `{given}`: {link} is a symlink to a missing target {target}; writing through it could escape the workspace (rule: no-dangling-symlinks)"
    )]
    DanglingSymlink {
        /// The path as given.
        given: String,
        /// The symlink.
        link: PathBuf,
        /// Where it points.
        target: PathBuf,
    },
    /// The filesystem refused to tell us what the path is.
    #[error("cannot resolve `{given}`: {message}")]
    Io {
        /// The path as given.
        given: String,
        /// The OS error.
        message: String,
    },
}

/// A path rule that refuses access even inside the workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForbiddenRule {
    /// How the rule was written (shown in errors).
    pub label: String,
    /// What the rule matches.
    pub matcher: ForbiddenMatch,
    /// Whether reads are refused too, or only writes.
    pub applies_to_reads: bool,
}

/// What a [`ForbiddenRule`] matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ForbiddenMatch {
    /// The path is this directory or anything under it.
    Under(PathBuf),
    /// Any component of the path (relative to the workspace) has this name.
    ComponentNamed(String),
}

/// Credentials in a home directory: keys, tokens and the tools' login files.
const CREDENTIAL_DIRS: &[&str] = &[
    ".ssh",
    ".aws",
    ".gnupg",
    ".git-credentials",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".pgpass",
    ".my.cnf",
    ".docker/config.json",
    ".kube",
    ".azure",
    ".vault-token",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".config/gh/hosts.yml",
    ".config/hub",
    ".config/gcloud",
    ".terraform.d/credentials.tfrc.json",
    // Git's XDG credential store, cloud and storage tools' keys, build tools' repository
    // passwords, package managers' tokens, encryption keys and the desktop keyring.
    ".config/git/credentials",
    ".s3cfg",
    ".boto",
    ".config/rclone",
    ".m2/settings.xml",
    ".m2/settings-security.xml",
    ".gradle/gradle.properties",
    ".composer/auth.json",
    ".config/composer/auth.json",
    ".yarnrc.yml",
    ".config/sops",
    ".local/share/keyrings",
    ".password-store",
];

/// Files and directories that hold the system's secrets.
const SYSTEM_SECRETS: &[&str] = &[
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/sudoers",
    "/etc/sudoers.d",
    "/etc/security/opasswd",
    // Debian's daily copies of the password and group hashes.
    "/var/backups/shadow.bak",
    "/var/backups/gshadow.bak",
    "/proc/kcore",
    // Secrets containers and clusters mount, and TLS private keys.
    "/run/secrets",
    "/var/run/secrets",
    "/etc/kubernetes/admin.conf",
    "/etc/ssl/private",
];

impl ForbiddenRule {
    /// The defaults: `.git` internals and Loom's own project settings (`.loom/`, where a
    /// model could otherwise grant itself approvals or switch the sandbox off for the next
    /// session) are never written by tools, and credential directories in the home
    /// directory are neither read nor written. Nor are the system's secrets, which only
    /// root can read (password hashes, sudo rules, ssh host keys, root's own credential
    /// directories): Loom often runs as root in containers and CI, where they are exposed.
    pub fn defaults(home: Option<&Path>) -> Vec<ForbiddenRule> {
        let mut rules: Vec<ForbiddenRule> = [".git", ".loom"]
            .into_iter()
            .map(|dir| ForbiddenRule {
                label: format!("{dir}/ (writes)"),
                matcher: ForbiddenMatch::ComponentNamed(dir.into()),
                applies_to_reads: false,
            })
            .collect();
        if let Some(home) = home {
            for dir in CREDENTIAL_DIRS {
                rules.push(ForbiddenRule {
                    label: format!("~/{dir}"),
                    matcher: ForbiddenMatch::Under(canonical_or_self(&home.join(dir))),
                    applies_to_reads: true,
                });
            }
        }
        let root_home = Path::new("/root");
        let mut system: Vec<PathBuf> = SYSTEM_SECRETS.iter().map(PathBuf::from).collect();
        if home.is_none_or(|h| canonical_or_self(h) != canonical_or_self(root_home)) {
            system.extend(CREDENTIAL_DIRS.iter().map(|d| root_home.join(d)));
        }
        if let Ok(entries) = std::fs::read_dir("/etc/ssh") {
            system.extend(
                entries
                    .filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|p| {
                        p.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| n.starts_with("ssh_host_") && n.ends_with("_key"))
                    }),
            );
        }
        rules.extend(system.into_iter().map(|path| ForbiddenRule {
            label: path.display().to_string(),
            matcher: ForbiddenMatch::Under(canonical_or_self(&path)),
            applies_to_reads: true,
        }));
        rules
    }

    /// A rule from a configured string: `~/x` or `/abs/x` guard a directory tree; a bare
    /// name (`secrets`) guards any component with that name.
    pub fn from_config(spec: &str, home: Option<&Path>) -> ForbiddenRule {
        let matcher = if let Some(rest) = spec.strip_prefix("~/") {
            match home {
                Some(h) => ForbiddenMatch::Under(canonical_or_self(&h.join(rest))),
                None => ForbiddenMatch::ComponentNamed(rest.trim_end_matches('/').to_string()),
            }
        } else if spec.starts_with('/') {
            ForbiddenMatch::Under(canonical_or_self(Path::new(spec)))
        } else {
            ForbiddenMatch::ComponentNamed(spec.trim_end_matches('/').to_string())
        };
        ForbiddenRule {
            label: spec.to_string(),
            matcher,
            applies_to_reads: true,
        }
    }

    fn matches(&self, resolved: &Path, root: &Path, access: Access) -> bool {
        if access == Access::Read && !self.applies_to_reads {
            return false;
        }
        match &self.matcher {
            ForbiddenMatch::Under(dir) => resolved.starts_with(dir),
            ForbiddenMatch::ComponentNamed(name) => resolved
                .strip_prefix(root)
                .unwrap_or(resolved)
                .components()
                .any(|c| c.as_os_str() == name.as_str()),
        }
    }
}

fn canonical_or_self(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The workspace boundary and its forbidden rules.
#[derive(Debug, Clone)]
pub struct Confinement {
    root: PathBuf,
    home: Option<PathBuf>,
    forbidden: Vec<ForbiddenRule>,
}

impl Confinement {
    /// Confine to `root` (canonicalised here) with the given forbidden rules.
    pub fn new(root: &Path, forbidden: Vec<ForbiddenRule>) -> std::io::Result<Confinement> {
        let root = std::fs::canonicalize(root)?;
        Ok(Confinement {
            root,
            home: std::env::var_os("HOME").map(PathBuf::from),
            forbidden,
        })
    }

    /// Confine to `root` with the default forbidden rules for the current user.
    pub fn with_defaults(root: &Path) -> std::io::Result<Confinement> {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        Confinement::new(root, ForbiddenRule::defaults(home.as_deref()))
    }

    /// The canonical workspace root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The forbidden rules in force.
    pub fn forbidden(&self) -> &[ForbiddenRule] {
        &self.forbidden
    }

    /// Resolve `given` (relative to the workspace root, or absolute, or `~/...`) to a
    /// canonical path inside the workspace that `access` may touch.
    pub fn resolve(&self, given: &str, access: Access) -> Result<PathBuf, PathError> {
        if given.contains('\0') {
            return Err(PathError::NullByte {
                shown: given.replace('\0', "\\0"),
            });
        }
        if given.trim().is_empty() {
            return Err(PathError::Empty);
        }
        let expanded = match (given.strip_prefix("~/"), &self.home) {
            (Some(rest), Some(home)) => home.join(rest),
            _ if given == "~" => self.home.clone().unwrap_or_else(|| PathBuf::from(given)),
            _ => PathBuf::from(given),
        };
        let joined = if expanded.is_absolute() {
            expanded
        } else {
            self.root.join(expanded)
        };
        let resolved = resolve_on_disk(&joined, given)?;
        if !resolved.starts_with(&self.root) {
            return Err(PathError::Outside {
                given: given.to_string(),
                resolved,
                root: self.root.clone(),
            });
        }
        if let Some(rule) = self
            .forbidden
            .iter()
            .find(|r| r.matches(&resolved, &self.root, access))
        {
            return Err(PathError::Forbidden {
                given: given.to_string(),
                resolved,
                rule: rule.label.clone(),
            });
        }
        Ok(resolved)
    }

    /// The path relative to the workspace root, for display and for the model.
    pub fn display(&self, resolved: &Path) -> String {
        match resolved.strip_prefix(&self.root) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
            Ok(rel) => rel.to_string_lossy().into_owned(),
            Err(_) => resolved.to_string_lossy().into_owned(),
        }
    }
}

/// Resolve an absolute path the way the kernel would: walk it component by component,
/// resolving every component that exists (symlinks included) and applying `..` to the
/// resolved path. Components that do not exist yet are kept as names; a later `..` can
/// climb back into existing directories, so existence is checked at every step.
fn resolve_on_disk(joined: &Path, given: &str) -> Result<PathBuf, PathError> {
    let mut base = PathBuf::from("/");
    for component in joined.components() {
        match component {
            Component::RootDir | Component::Prefix(_) => base = PathBuf::from("/"),
            Component::CurDir => {}
            Component::ParentDir => {
                base.pop();
            }
            Component::Normal(name) => {
                let candidate = base.join(name);
                match std::fs::symlink_metadata(&candidate) {
                    Ok(meta) if meta.file_type().is_symlink() => {
                        match std::fs::canonicalize(&candidate) {
                            Ok(target) => base = target,
                            Err(_) => {
                                let target = std::fs::read_link(&candidate).unwrap_or_default();
                                return Err(PathError::DanglingSymlink {
                                    given: given.to_string(),
                                    link: candidate,
                                    target,
                                });
                            }
                        }
                    }
                    Ok(_) => base = candidate,
                    Err(err) if err.kind() == std::io::ErrorKind::NotFound || is_not_dir(&err) => {
                        base = candidate
                    }
                    Err(err) => {
                        return Err(PathError::Io {
                            given: given.to_string(),
                            message: err.to_string(),
                        });
                    }
                }
            }
        }
    }
    Ok(base)
}

fn is_not_dir(err: &std::io::Error) -> bool {
    err.raw_os_error() == Some(nix::libc::ENOTDIR)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn setup() -> (tempfile::TempDir, Confinement) {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(ws.join("src")).unwrap();
        std::fs::write(ws.join("src/main.rs"), "fn main() {}").unwrap();
        let conf = Confinement::new(&ws, ForbiddenRule::defaults(None)).unwrap();
        (dir, conf)
    }

    #[test]
    fn relative_paths_resolve_inside() {
        let (_d, c) = setup();
        let p = c.resolve("src/main.rs", Access::Read).unwrap();
        assert_eq!(p, c.root().join("src/main.rs"));
        assert_eq!(c.display(&p), "src/main.rs");
    }

    #[test]
    fn new_files_resolve_through_missing_dirs() {
        let (_d, c) = setup();
        let p = c.resolve("a/b/../c.txt", Access::Write).unwrap();
        assert_eq!(p, c.root().join("a/c.txt"));
    }

    #[test]
    fn dotdot_escape_is_refused_with_rule() {
        let (_d, c) = setup();
        let err = c.resolve("../outside.txt", Access::Read).unwrap_err();
        assert!(matches!(err, PathError::Outside { .. }));
        assert!(err.to_string().contains("workspace-confinement"), "{err}");
        assert!(err.to_string().contains("../outside.txt"), "{err}");
    }

    #[test]
    fn absolute_outside_is_refused_and_inside_is_allowed() {
        let (_d, c) = setup();
        assert!(c.resolve("/etc/passwd", Access::Read).is_err());
        let inside = c.root().join("src/main.rs");
        assert_eq!(
            c.resolve(inside.to_str().unwrap(), Access::Read).unwrap(),
            inside
        );
    }

    #[test]
    fn symlink_pointing_out_is_refused() {
        let (d, c) = setup();
        let outside = d.path().join("secret");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("key"), "x").unwrap();
        symlink(&outside, c.root().join("link")).unwrap();
        assert!(matches!(
            c.resolve("link/key", Access::Read),
            Err(PathError::Outside { .. })
        ));
        assert!(matches!(
            c.resolve("link/new.txt", Access::Write),
            Err(PathError::Outside { .. })
        ));
    }

    #[test]
    fn dangling_symlink_is_refused() {
        let (d, c) = setup();
        symlink(d.path().join("nowhere/file"), c.root().join("dangling")).unwrap();
        let err = c.resolve("dangling", Access::Write).unwrap_err();
        assert!(matches!(err, PathError::DanglingSymlink { .. }), "{err}");
    }

    #[test]
    fn symlink_inside_resolves_to_target() {
        let (_d, c) = setup();
        symlink(c.root().join("src"), c.root().join("alias")).unwrap();
        assert_eq!(
            c.resolve("alias/main.rs", Access::Read).unwrap(),
            c.root().join("src/main.rs")
        );
    }

    #[test]
    fn null_bytes_and_empty_are_refused() {
        let (_d, c) = setup();
        assert!(matches!(
            c.resolve("src/\0main.rs", Access::Read),
            Err(PathError::NullByte { .. })
        ));
        assert_eq!(c.resolve("  ", Access::Read), Err(PathError::Empty));
    }

    #[test]
    fn git_internals_and_loom_settings_are_readable_but_not_writable() {
        let (_d, c) = setup();
        std::fs::create_dir_all(c.root().join(".git")).unwrap();
        std::fs::write(c.root().join(".git/config"), "").unwrap();
        assert!(c.resolve(".git/config", Access::Read).is_ok());
        let err = c.resolve(".git/config", Access::Write).unwrap_err();
        assert!(err.to_string().contains(".git/"), "{err}");
        assert!(c.resolve(".loom/config.toml", Access::Read).is_ok());
        let err = c.resolve(".loom/config.toml", Access::Write).unwrap_err();
        assert!(err.to_string().contains(".loom/ (writes)"), "{err}");
        assert!(c.resolve("sub/.git/hooks/x", Access::Write).is_err());
    }

    #[test]
    fn home_credentials_are_forbidden_even_when_home_is_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path();
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::write(home.join(".ssh/id_rsa"), "k").unwrap();
        let c = Confinement::new(home, ForbiddenRule::defaults(Some(home))).unwrap();
        let err = c.resolve(".ssh/id_rsa", Access::Read).unwrap_err();
        assert!(err.to_string().contains("~/.ssh"), "{err}");
    }

    #[test]
    fn configured_rules_match_names_and_trees() {
        let (_d, c0) = setup();
        let rules = vec![ForbiddenRule::from_config("secrets", None)];
        let c = Confinement::new(c0.root(), rules).unwrap();
        assert!(c.resolve("a/secrets/x", Access::Read).is_err());
        assert!(c.resolve("a/secretsx", Access::Read).is_ok());
    }

    /// Regression: `missing/../link_out` used to be joined lexically after the first missing
    /// component, so a symlink reached again after `..` was never resolved and the path
    /// escaped the workspace (found by the `resolved_paths_never_escape` property).
    #[test]
    fn dotdot_back_into_a_symlink_after_a_missing_dir_stays_inside() {
        let (d, c) = setup();
        let outside = d.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        symlink(&outside, c.root().join("src/out")).unwrap();
        let err = c
            .resolve("src/missing/../out/x.txt", Access::Write)
            .unwrap_err();
        assert!(matches!(err, PathError::Outside { .. }), "{err}");
    }

    #[test]
    fn file_used_as_directory_resolves_without_escaping() {
        let (_d, c) = setup();
        let p = c.resolve("src/main.rs/x", Access::Write).unwrap();
        assert!(p.starts_with(c.root()));
    }

    mod invariants {
        use super::*;
        use proptest::prelude::*;

        /// A workspace with nested dirs, a symlink pointing out, one pointing in, and a
        /// dangling one; plus a sibling directory outside.
        fn fixture() -> (tempfile::TempDir, Confinement) {
            let dir = tempfile::tempdir().unwrap();
            let ws = dir.path().join("ws");
            std::fs::create_dir_all(ws.join("a/b")).unwrap();
            std::fs::create_dir_all(dir.path().join("outside/deep")).unwrap();
            symlink(dir.path().join("outside"), ws.join("out")).unwrap();
            symlink(dir.path().join("outside/deep"), ws.join("a/deep_out")).unwrap();
            symlink(ws.join("a"), ws.join("in")).unwrap();
            symlink("/", ws.join("a/root")).unwrap();
            symlink(dir.path().join("nowhere"), ws.join("dangle")).unwrap();
            let conf = Confinement::new(&ws, Vec::new()).unwrap();
            (dir, conf)
        }

        fn component() -> impl Strategy<Value = String> {
            prop_oneof![
                Just("..".to_string()),
                Just(".".to_string()),
                Just("a".to_string()),
                Just("b".to_string()),
                Just("out".to_string()),
                Just("in".to_string()),
                Just("deep_out".to_string()),
                Just("root".to_string()),
                Just("dangle".to_string()),
                Just("etc".to_string()),
                Just("ws".to_string()),
                Just("日本".to_string()),
                Just("e\u{301}".to_string()),
                Just("nul\0x".to_string()),
                Just(String::new()),
                "[a-z]{1,3}",
            ]
        }

        fn path() -> impl Strategy<Value = String> {
            (
                prop_oneof![Just(""), Just("/"), Just("~/"), Just("./"), Just("//")],
                proptest::collection::vec(component(), 0..8),
            )
                .prop_map(|(prefix, parts)| format!("{prefix}{}", parts.join("/")))
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(512))]
            // Invariant: whatever the input, a path confinement accepts resolves inside the
            // workspace root, and stays inside after the filesystem resolves it further.
            #[test]
            fn resolved_paths_never_escape(p in path(), write in any::<bool>()) {
                let (_d, conf) = fixture();
                let access = if write { Access::Write } else { Access::Read };
                if let Ok(resolved) = conf.resolve(&p, access) {
                    prop_assert!(resolved.starts_with(conf.root()), "{p:?} -> {resolved:?}");
                    prop_assert!(!p.contains('\0'));
                    if let Ok(real) = std::fs::canonicalize(&resolved) {
                        prop_assert!(real.starts_with(conf.root()), "{p:?} -> {real:?}");
                    }
                }
            }
        }
    }
}
