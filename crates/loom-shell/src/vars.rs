//! Environment variables that change what programs load or run.
//!
//! `LD_PRELOAD=./x.so ls`, `GIT_EXTERNAL_DIFF=./x git diff` or `PAGER='sh -c …' git log`
//! turn a harmless program into a launcher for arbitrary code, and so does exporting such a
//! variable for the commands that follow. Assigning one makes the segment at least high.
//! The list is broad on purpose: names ending in `PATH`, `FLAGS`, `OPTIONS`, `OPTS`,
//! `PAGER`, `EDITOR`, `ASKPASS` or `_COMMAND`, and whole families (`LD_`, `GIT_`,
//! `PYTHON`, `PERL`, `RUBY`, `NODE_`, `npm_config_`, ...) count, except a short list of
//! names known to only tune output or tests.

/// Names in dangerous families that only tune output, locale or test behaviour.
#[rustfmt::skip]
const HARMLESS: &[&str] = &[
    "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE", "GIT_TERMINAL_PROMPT", "GIT_OPTIONAL_LOCKS",
    "GIT_FLUSH", "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "PYTHONHASHSEED",
    "PYTHONIOENCODING", "PYTHONUTF8", "PYTHONFAULTHANDLER", "PYTHONWARNINGS", "NODE_ENV",
    "NODE_NO_WARNINGS", "RUST_BACKTRACE", "RUST_LOG", "RUST_TEST_THREADS", "RUST_MIN_STACK",
    "CARGO_TERM_COLOR", "CARGO_TERM_VERBOSE", "CARGO_TERM_QUIET", "CARGO_INCREMENTAL",
    "CARGO_BUILD_JOBS",
];

/// Exact names that make programs load or run something else.
#[rustfmt::skip]
const DANGEROUS: &[&str] = &[
    "PATH", "HOME", "ENV", "BASH_ENV", "SHELL", "IFS", "PS4", "PROMPT_COMMAND", "SHELLOPTS",
    "BASHOPTS", "GLOBIGNORE", "CDPATH", "VISUAL", "BROWSER", "LESSOPEN", "LESSCLOSE", "LESSKEY",
    "MANOPT", "MAKEFLAGS", "MFLAGS", "MAKEFILES", "NODE_OPTIONS", "CC", "CXX", "CPP", "LD", "AR",
    "AS", "NM", "RANLIB", "STRIP", "OBJCOPY", "FC", "RUSTC", "RUSTDOC", "RUSTC_WRAPPER",
    "RUSTC_WORKSPACE_WRAPPER", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CONFIG_DIRS",
    "XDG_DATA_DIRS", "GCONV_PATH", "HOSTALIASES", "RESOLV_HOST_CONF", "TMPDIR", "EXINIT",
    "VIMINIT", "INPUTRC", "GEM_HOME", "BUNDLE_GEMFILE", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS", "CLASSPATH", "RIPGREP_CONFIG_PATH", "GREP_OPTIONS", "EDITOR", "PAGER",
    "GOFLAGS", "GOTOOLCHAIN", "CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "DOCKER_HOST",
];

/// Prefixes of variable families that configure what programs load or run.
#[rustfmt::skip]
const DANGEROUS_PREFIXES: &[&str] = &[
    "LD_", "DYLD_", "GIT_", "PYTHON", "PERL", "RUBY", "GEM_", "NODE_", "NPM_CONFIG_", "YARN_",
    "PNPM_", "BUN_", "BASH_FUNC_", "CARGO_BUILD_", "CARGO_TARGET_", "CARGO_REGISTRIES_",
    "CARGO_SOURCE_", "CARGO_ALIAS_", "CARGO_HTTP_", "LUA_", "R_", "PHP_", "GCC_",
    "COMPILER_PATH", "SSH_", "GNUPG", "GPG_", "PKG_CONFIG", "MAVEN_", "GRADLE_", "SBT_",
];

/// Suffixes of names that hold search paths, extra options or programs to run.
#[rustfmt::skip]
const DANGEROUS_SUFFIXES: &[&str] = &[
    "PATH", "FLAGS", "OPTIONS", "OPTS", "OPT", "PAGER", "EDITOR", "ASKPASS", "_COMMAND", "_CMD",
    "_PROGRAM", "_HOOK", "_SHELL", "_PRELOAD", "_WRAPPER", "_RUNNER", "_LINKER",
];

/// Why assigning `name` may change what a program loads or runs, or `None` when the name
/// is not one of those.
pub fn dangerous(name: &str) -> Option<String> {
    if HARMLESS.contains(&name) {
        return None;
    }
    let upper = name.to_ascii_uppercase();
    let hit = DANGEROUS.contains(&upper.as_str())
        || DANGEROUS_PREFIXES.iter().any(|p| upper.starts_with(p))
        || DANGEROUS_SUFFIXES.iter().any(|s| upper.ends_with(s));
    hit.then(|| {
        format!("sets {name}, which can change what programs load or run (a way to run any code)")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loaders_pagers_and_program_variables_are_dangerous() {
        for name in [
            "LD_PRELOAD",
            "LD_LIBRARY_PATH",
            "GIT_EXTERNAL_DIFF",
            "GIT_SSH_COMMAND",
            "GIT_CONFIG_PARAMETERS",
            "PAGER",
            "GIT_PAGER",
            "MANPAGER",
            "BASH_ENV",
            "ENV",
            "PYTHONSTARTUP",
            "PYTHONPATH",
            "NODE_OPTIONS",
            "PERL5OPT",
            "RUBYOPT",
            "PATH",
            "RUSTFLAGS",
            "RUSTC_WRAPPER",
            "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER",
            "npm_config_script_shell",
            "SUDO_ASKPASS",
            "CC",
        ] {
            assert!(dangerous(name).is_some(), "{name}");
        }
    }

    #[test]
    fn output_and_test_tuning_is_harmless() {
        for name in [
            "RUST_BACKTRACE",
            "RUST_LOG",
            "FOO",
            "DEBUG",
            "CI",
            "NO_COLOR",
            "GIT_AUTHOR_NAME",
            "PYTHONUNBUFFERED",
            "TZ",
            "LANG",
        ] {
            assert!(dangerous(name).is_none(), "{name}");
        }
    }
}
