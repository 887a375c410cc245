//! Which language server serves a file: the servers configured (`[lsp.NAME]`) and the
//! built-in defaults for the common ones, each taken only when its program is on `PATH`,
//! and the workspace root a server is started in (the nearest directory above the file
//! holding one of its root markers).

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde_json::{Value, json};

/// One language server: how to start it and which files it serves.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerSpec {
    /// The name it is configured and shown under (`pyright`).
    pub name: String,
    /// The program.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// File extensions it serves, without the dot (`py`).
    pub filetypes: Vec<String>,
    /// Glob patterns (workspace-relative) of further files it serves.
    pub globs: Vec<String>,
    /// Files or directories whose presence marks a project root for it.
    pub root_markers: Vec<String>,
    /// Variables set for it (over the allowlisted environment).
    pub env: Vec<(String, String)>,
    /// Sent as `initializationOptions`.
    pub initialization_options: Option<Value>,
}

impl ServerSpec {
    /// Whether this server serves `path` (`relative` is the same path from the workspace).
    pub fn serves(&self, path: &Path, relative: &Path) -> bool {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if !ext.is_empty() && self.filetypes.iter().any(|f| f.eq_ignore_ascii_case(ext)) {
            return true;
        }
        self.glob_set().is_some_and(|g| g.is_match(relative))
    }

    fn glob_set(&self) -> Option<GlobSet> {
        if self.globs.is_empty() {
            return None;
        }
        let mut builder = GlobSetBuilder::new();
        for g in &self.globs {
            builder.add(Glob::new(g).ok()?);
        }
        builder.build().ok()
    }

    /// The root `path` is served from: the nearest directory from the file's up to
    /// `workspace` that holds a root marker, else `workspace`.
    pub fn root_for(&self, path: &Path, workspace: &Path) -> PathBuf {
        let mut dir = path.parent();
        while let Some(d) = dir {
            if !d.starts_with(workspace) {
                break;
            }
            if self.root_markers.iter().any(|m| d.join(m).exists()) {
                return d.to_path_buf();
            }
            if d == workspace {
                break;
            }
            dir = d.parent();
        }
        workspace.to_path_buf()
    }
}

/// The language id LSP wants for a file, from its extension.
pub fn language_id(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "py" | "pyi" => "python",
        "ts" | "mts" | "cts" => "typescript",
        "tsx" => "typescriptreact",
        "js" | "mjs" | "cjs" => "javascript",
        "jsx" => "javascriptreact",
        "rs" => "rust",
        "go" => "go",
        "c" | "h" => "c",
        "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx" => "cpp",
        _ => "plaintext",
    }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// The built-in servers, in the order they are preferred when several serve one file
/// (basedpyright before pyright). Whether each is on `PATH` is checked by
/// [`builtin_on_path`].
pub fn builtin() -> Vec<ServerSpec> {
    let python = strings(&["py", "pyi"]);
    let python_roots = strings(&[
        "pyproject.toml",
        "pyrightconfig.json",
        "setup.py",
        "setup.cfg",
        "requirements.txt",
    ]);
    let spec =
        |name: &str, command: &str, args: &[&str], filetypes: Vec<String>, roots| ServerSpec {
            name: name.into(),
            command: command.into(),
            args: strings(args),
            filetypes,
            globs: Vec::new(),
            root_markers: roots,
            env: Vec::new(),
            initialization_options: None,
        };
    let mut rust = spec(
        "rust-analyzer",
        "rust-analyzer",
        &[],
        strings(&["rs"]),
        strings(&["Cargo.toml"]),
    );
    // Build scripts, proc macros and `cargo check` run the project's own code: off, so
    // the server only reads (its native diagnostics still come).
    rust.initialization_options = Some(json!({
        "cargo": {"buildScripts": {"enable": false}},
        "procMacro": {"enable": false},
        "checkOnSave": false
    }));
    vec![
        spec(
            "basedpyright",
            "basedpyright-langserver",
            &["--stdio"],
            python.clone(),
            python_roots.clone(),
        ),
        spec(
            "pyright",
            "pyright-langserver",
            &["--stdio"],
            python,
            python_roots,
        ),
        spec(
            "typescript",
            "typescript-language-server",
            &["--stdio"],
            strings(&["ts", "tsx", "js", "jsx", "mts", "cts", "mjs", "cjs"]),
            strings(&["tsconfig.json", "jsconfig.json", "package.json"]),
        ),
        rust,
        spec(
            "gopls",
            "gopls",
            &[],
            strings(&["go"]),
            strings(&["go.work", "go.mod"]),
        ),
        spec(
            "clangd",
            "clangd",
            &[],
            strings(&["c", "h", "cc", "cpp", "cxx", "hpp", "hh", "hxx"]),
            strings(&["compile_commands.json", "compile_flags.txt", ".clangd"]),
        ),
    ]
}

/// Whether `command` can be run: a path that exists, or a name found in `path_var`.
pub fn on_path(command: &str, path_var: Option<&str>) -> bool {
    which(command, path_var).is_some()
}

/// Where `command` is: the path itself when it has a `/` (and is a file), else the first
/// executable of that name in `path_var`.
pub fn which(command: &str, path_var: Option<&str>) -> Option<PathBuf> {
    if command.contains('/') {
        return Path::new(command).is_file().then(|| PathBuf::from(command));
    }
    path_var
        .into_iter()
        .flat_map(|p| p.split(':'))
        // A relative entry (`.`, `node_modules/.bin`) names a directory of whatever
        // workspace Loom runs in: a repository's own program would pass for the built-in.
        .filter(|d| Path::new(d).is_absolute())
        .map(|d| Path::new(d).join(command))
        .find(|p| is_executable(p))
}

/// typescript-language-server runs the `tsserver` of the workspace's
/// `node_modules/typescript` when there is one: a repository's own code. Point it
/// (`initializationOptions.tsserver.path`) at the TypeScript installed next to the server
/// instead, when one is found and the configuration names no path of its own.
pub fn pin_tsserver(spec: &mut ServerSpec, path_var: Option<&str>) {
    if Path::new(&spec.command).file_name() != Some("typescript-language-server".as_ref()) {
        return;
    }
    let given = spec
        .initialization_options
        .as_ref()
        .and_then(|o| o.pointer("/tsserver/path"))
        .is_some();
    if given {
        return;
    }
    let Some(tsserver) = which(&spec.command, path_var).and_then(|p| tsserver_beside(&p)) else {
        return;
    };
    let mut options = match spec.initialization_options.take() {
        Some(Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    };
    let entry = options
        .entry("tsserver")
        .or_insert_with(|| Value::Object(serde_json::Map::new()));
    if !entry.is_object() {
        *entry = Value::Object(serde_json::Map::new());
    }
    entry["path"] = json!(tsserver.display().to_string());
    spec.initialization_options = Some(Value::Object(options));
}

/// The `typescript/lib/tsserver.js` installed with the server at `program` (links
/// followed): in the server package's own `node_modules`, or beside the package in the
/// `node_modules` it is installed in. Looks no higher than that `node_modules`.
pub fn tsserver_beside(program: &Path) -> Option<PathBuf> {
    let real = std::fs::canonicalize(program).ok()?;
    let tsserver = |dir: &Path| {
        let p = dir.join("typescript/lib/tsserver.js");
        p.is_file().then_some(p)
    };
    for dir in real.ancestors().skip(1).take(8) {
        if let Some(found) = tsserver(&dir.join("node_modules")) {
            return Some(found);
        }
        if dir.file_name() == Some("node_modules".as_ref()) {
            return tsserver(dir);
        }
    }
    None
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let runs =
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    runs && !is_rustup_proxy_without_tool(path)
}

/// rustup puts a proxy named `rust-analyzer` on `PATH` whether or not the component is
/// installed; without it the proxy only prints an error.
fn is_rustup_proxy_without_tool(path: &Path) -> bool {
    let Ok(target) = std::fs::canonicalize(path) else {
        return false;
    };
    if target.file_name().is_none_or(|n| n != "rustup") {
        return false;
    }
    let Some(name) = path.file_name() else {
        return false;
    };
    let home = std::env::var_os("RUSTUP_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".rustup")));
    let Some(toolchains) = home.map(|h| h.join("toolchains")) else {
        return true;
    };
    !std::fs::read_dir(toolchains)
        .into_iter()
        .flatten()
        .flatten()
        .any(|t| t.path().join("bin").join(name).is_file())
}

/// The built-in servers whose program is on `path_var`; a language served by two (pyright
/// and basedpyright) gets the first only.
pub fn builtin_on_path(path_var: Option<&str>) -> Vec<ServerSpec> {
    let mut found: Vec<ServerSpec> = Vec::new();
    for spec in builtin() {
        let overlaps = found
            .iter()
            .any(|f| f.filetypes.iter().any(|t| spec.filetypes.contains(t)));
        if !overlaps && on_path(&spec.command, path_var) {
            let mut spec = spec;
            pin_tsserver(&mut spec, path_var);
            found.push(spec);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_served_by_extension_or_glob_and_rooted_at_the_nearest_marker() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::create_dir_all(ws.join("sub/pkg")).unwrap();
        std::fs::write(ws.join("sub/pyproject.toml"), "").unwrap();
        let mut spec = builtin().into_iter().find(|s| s.name == "pyright").unwrap();
        let file = ws.join("sub/pkg/a.py");
        assert!(spec.serves(&file, Path::new("sub/pkg/a.py")));
        assert!(!spec.serves(&ws.join("a.rs"), Path::new("a.rs")));
        assert_eq!(spec.root_for(&file, ws), ws.join("sub"));
        assert_eq!(spec.root_for(&ws.join("b.py"), ws), ws);
        spec.globs = vec!["scripts/*".into()];
        assert!(spec.serves(&ws.join("scripts/run"), Path::new("scripts/run")));
    }

    /// Regression (review of issue 28): a relative `PATH` entry (`node_modules/.bin`)
    /// names a directory of the workspace, so a repository's own program passed for a
    /// built-in server; only absolute entries are searched.
    #[test]
    fn a_relative_path_entry_is_not_searched() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let program = dir.path().join("gopls");
        std::fs::write(&program, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        let up = "../".repeat(std::env::current_dir().unwrap().components().count());
        let relative = format!(
            "{up}{}",
            dir.path().display().to_string().trim_start_matches('/')
        );
        assert!(Path::new(&relative).join("gopls").is_file(), "{relative}");
        assert_eq!(which("gopls", Some(&relative)), None);
        assert_eq!(
            which("gopls", Some(dir.path().to_str().unwrap())),
            Some(program)
        );
    }

    #[test]
    fn only_programs_on_path_are_taken_and_one_per_language() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path();
        for name in ["pyright-langserver", "basedpyright-langserver", "gopls"] {
            let p = bin.join(name);
            std::fs::write(&p, "#!/bin/sh\n").unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let names: Vec<String> = builtin_on_path(Some(bin.to_str().unwrap()))
            .into_iter()
            .map(|s| s.name)
            .collect();
        assert_eq!(names, ["basedpyright", "gopls"]);
        assert!(builtin_on_path(None).is_empty());
    }

    fn executable(path: &Path) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// Regression: typescript-language-server was started without `tsserver.path`, so it
    /// ran the repository's own `node_modules/typescript` (the repository's code).
    #[test]
    fn a_repositorys_node_modules_typescript_is_not_used() {
        let dir = tempfile::tempdir().unwrap();
        let global = dir.path().join("prefix/lib/node_modules");
        let cli = global.join("typescript-language-server/lib/cli.mjs");
        executable(&cli);
        let ours = global.join("typescript/lib/tsserver.js");
        executable(&ours);
        let bin = dir.path().join("prefix/bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::os::unix::fs::symlink(&cli, bin.join("typescript-language-server")).unwrap();
        let repo = dir
            .path()
            .join("repo/node_modules/typescript/lib/tsserver.js");
        executable(&repo);
        let path_var = bin.to_str();
        let ts = builtin_on_path(path_var)
            .into_iter()
            .find(|s| s.name == "typescript")
            .unwrap();
        let options = ts
            .initialization_options
            .clone()
            .expect("tsserver.path is given");
        let pinned = options.pointer("/tsserver/path").and_then(Value::as_str);
        let ours = std::fs::canonicalize(ours).unwrap();
        assert_eq!(pinned, ours.to_str());
        // A configured path is kept; a server without TypeScript beside it gets none.
        let mut own = ts.clone();
        own.initialization_options = Some(json!({"tsserver": {"path": "/mine"}}));
        pin_tsserver(&mut own, path_var);
        assert_eq!(
            own.initialization_options,
            Some(json!({"tsserver": {"path": "/mine"}}))
        );
        std::fs::remove_file(global.join("typescript/lib/tsserver.js")).unwrap();
        let bare = builtin_on_path(path_var)
            .into_iter()
            .find(|s| s.name == "typescript");
        assert_eq!(bare.unwrap().initialization_options, None);
    }

    /// A server with TypeScript in its own `node_modules` (an npm install of the package
    /// alone) is pointed there.
    #[test]
    fn typescript_in_the_servers_own_node_modules_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let package = dir.path().join("node_modules/typescript-language-server");
        executable(&package.join("lib/cli.mjs"));
        let nested = package.join("node_modules/typescript/lib/tsserver.js");
        executable(&nested);
        assert_eq!(
            tsserver_beside(&package.join("lib/cli.mjs")),
            Some(std::fs::canonicalize(nested).unwrap())
        );
        assert_eq!(tsserver_beside(&dir.path().join("nothing")), None);
    }

    #[test]
    fn language_ids_follow_the_extension() {
        assert_eq!(language_id(Path::new("a.py")), "python");
        assert_eq!(language_id(Path::new("a.tsx")), "typescriptreact");
        assert_eq!(language_id(Path::new("Makefile")), "plaintext");
    }
}
