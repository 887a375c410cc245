//! Shells, interpreters and package managers: judged by the code they run (`sh -c`, a
//! piped `echo`, inline code), the scripts they start and the packages they install.

use super::super::options::Spec;
use super::super::parse::Word;
use super::super::{Place, Risk};
use super::build::{build_tool, formatter};
use super::{
    Judgement, PipedInput, State, forbidden_among, is_flag, judge, nested, nested_shell, program,
    reads,
};

/// `sh`, `bash`, ...: judged by the code they run (`-c`, a piped `echo`), a script they
/// run, or their input.
pub(super) fn shell(name: &str, args: &[Word], state: &mut State, depth: usize) -> Judgement {
    const SHORT: &str = "abefhkmnptuvxBCEHPTilrsDc";
    let mut with_c = false;
    let mut i = 0;
    while i < args.len() {
        let w = &args[i];
        let t = w.text.as_str();
        if w.dynamic {
            return judge(
                Risk::High,
                format!("`{name}` gets arguments only known at run time"),
            );
        }
        if t == "--" || t == "-" {
            i += 1;
            break;
        }
        if matches!(t, "-o" | "+o" | "-O" | "+O") {
            i += 2;
            continue;
        }
        if matches!(t, "--rcfile" | "--init-file") {
            return judge(
                Risk::Medium,
                format!("`{name} {t}` runs the commands in a start-up file"),
            );
        }
        if t.starts_with("--") {
            if !matches!(
                t,
                "--norc"
                    | "--noprofile"
                    | "--posix"
                    | "--login"
                    | "--noediting"
                    | "--restricted"
                    | "--verbose"
                    | "--version"
                    | "--help"
            ) {
                return judge(Risk::Medium, format!("unrecognised option {t} for {name}"));
            }
            i += 1;
            continue;
        }
        if let Some(letters) = t.strip_prefix('-').or_else(|| t.strip_prefix('+')) {
            if let Some(bad) = letters.chars().find(|c| !SHORT.contains(*c)) {
                return judge(
                    Risk::Medium,
                    format!("unrecognised option -{bad} for {name}"),
                );
            }
            with_c |= letters.contains('c');
            i += 1;
            continue;
        }
        break;
    }
    let operand = args.get(i).filter(|w| {
        !matches!(
            w.text.as_str(),
            "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0"
        )
    });
    if with_c {
        return match operand {
            Some(code) => nested_shell(code, state, depth),
            None => judge(Risk::Medium, format!("`{name} -c` without a command")),
        };
    }
    if let Some(script) = operand {
        return judge(Risk::Medium, format!("runs the script {}", script.text))
            .worst(reads(script, state));
    }
    match state.piped.clone() {
        Some(PipedInput::Text(text)) => {
            nested(&text, state, depth, &format!("`{name}` from its input"))
        }
        Some(PipedInput::Built(text)) => judge(
            Risk::High,
            format!(
                "`{name}` runs a script the shell builds at run time (expansions in its input)"
            ),
        )
        .ungrantable()
        .worst(nested(
            &text,
            state,
            depth,
            &format!("`{name}` from its input"),
        )),
        Some(PipedInput::Unknown) => judge(
            Risk::High,
            format!("`{name}` runs commands it reads from another program's output"),
        ),
        None => judge(
            Risk::Medium,
            format!("`{name}` runs commands from its input"),
        ),
    }
}

/// Forbidden shell commands hidden in the string literals of inline code
/// (`os.system('rm -rf /')`): each literal, and all of them joined, are judged as shell
/// commands; only a forbidden verdict is kept. Which quote starts a literal depends on the
/// language (a `"` in an awk regex or a Perl `q{…}` is not one), so the text from every
/// quote character to the next of the same kind is taken, whatever came before it, as are
/// Perl and Ruby quote operators (`q{…}`, `qx(…)`, `%x[…]`).
pub(super) fn forbidden_in_code(code: &str, state: &State, depth: usize) -> Judgement {
    let mut literals: Vec<String> = Vec::new();
    let chars: Vec<char> = code.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if literals.len() >= 256 {
            break;
        }
        if matches!(c, '"' | '\'' | '`') {
            let mut lit = String::new();
            let mut escaped = false;
            for &n in &chars[i + 1..] {
                if escaped {
                    lit.push(n);
                    escaped = false;
                } else if n == '\\' {
                    escaped = true;
                } else if n == c {
                    break;
                } else {
                    lit.push(n);
                }
            }
            literals.push(lit);
        }
        let operator = matches!(c, 'q' | 'x' | 'Q')
            && chars
                .get(i.wrapping_sub(1))
                .is_none_or(|p| !p.is_alphanumeric() || *p == 'q' || *p == '%');
        if operator && let Some(&open) = chars.get(i + 1) {
            let close = match open {
                '{' => '}',
                '(' => ')',
                '[' => ']',
                '<' => '>',
                '/' | '|' | '!' | '#' => open,
                _ => continue,
            };
            let lit: String = chars[i + 2..].iter().take_while(|&&n| n != close).collect();
            literals.push(lit);
        }
    }
    let mut candidates = literals.clone();
    candidates.push(literals.join(" "));
    for text in candidates.iter().filter(|t| !t.trim().is_empty()) {
        let c = super::super::classify_nested(text, &state.ctx, depth + 1);
        if c.level == Risk::Forbidden {
            return judge(
                Risk::Forbidden,
                format!("the inline code runs `{text}`: {}", c.reason),
            );
        }
    }
    judge(Risk::ReadOnly, "no forbidden command in the code")
}

/// Python, Node, Ruby, Perl, ...: version and help only read; inline code and scripts run
/// anything and ask; `python -m pytest` and friends are judged as the tool they start.
pub(super) fn interpreter(name: &str, args: &[Word], state: &mut State, depth: usize) -> Judgement {
    const INFO: &[&str] = &["--version", "-V", "-v", "--help", "-h", "-VV"];
    if !args.is_empty() && args.iter().all(|w| INFO.contains(&w.text.as_str())) {
        return judge(Risk::ReadOnly, "prints version or help");
    }
    let python = name.starts_with("python");
    let spec = if python {
        Spec {
            flags: "bBdEhiIOPqsSuvVx3",
            valued: "cmWX",
            long: &[
                "version",
                "help",
                "help-env",
                "help-xoptions",
                "help-all",
                "check-hash-based-pycs=",
            ],
            numeric: false,
        }
    } else {
        Spec {
            flags: "hvVcwidpnaslE",
            valued: "erIM",
            long: &[
                "version",
                "help",
                "eval=",
                "print=",
                "require=",
                "check",
                "input-type=",
            ],
            numeric: false,
        }
    };
    let lead = match super::super::options::parse_leading(&spec, args) {
        Ok(x) => x,
        Err(e) => {
            return super::unproven(e, name).worst(forbidden_among(args, state, depth));
        }
    };
    let (opts, rest) = lead;
    if let Some(module) = opts.values(&["-m"]).first() {
        return python_module(name, module.text(), rest, state);
    }
    let code: Vec<String> = opts
        .values(&["-c", "-e", "-E", "-r", "--eval", "--print", "--require"])
        .iter()
        .map(|v| v.text().to_string())
        .collect();
    if !code.is_empty() || opts.has(&["-p"]) {
        let mut j = judge(
            Risk::Medium,
            format!("runs inline {name} code, which can do anything"),
        )
        .ungrantable();
        for c in &code {
            j = j.worst(forbidden_in_code(c, state, depth));
        }
        return j;
    }
    if !python && opts.has(&["-c", "--check"]) && !name.starts_with("perl") {
        return match rest.first() {
            Some(script) => judge(
                Risk::Low,
                format!("{name} only checks the syntax of {}", script.text),
            )
            .worst(reads(script, state)),
            None => judge(Risk::Low, format!("{name} checks syntax")),
        };
    }
    let stdin_code = match &state.piped {
        Some(PipedInput::Text(t) | PipedInput::Built(t)) => Some(t.clone()),
        _ => None,
    };
    match rest.first() {
        Some(script) if script.text != "-" => {
            let where_ = match state.place(script) {
                Place::Inside(_) => "from the workspace",
                _ => "from outside the workspace",
            };
            judge(
                Risk::Medium,
                format!("runs the script {} {where_}", script.text),
            )
            .worst(reads(script, state))
        }
        _ => {
            let j = judge(
                Risk::Medium,
                format!("`{name}` runs a program from its input"),
            )
            .ungrantable();
            match stdin_code {
                Some(code) => j.worst(forbidden_in_code(&code, state, depth)),
                None => j,
            }
        }
    }
}

fn python_module(name: &str, module: &str, rest: &[Word], state: &mut State) -> Judgement {
    let mut j = match module {
        "pytest" | "unittest" | "mypy" | "pyflakes" | "pylint" | "flake8" | "doctest" | "ruff" => {
            let mut words = vec![Word::literal(module)];
            words.extend(rest.iter().cloned());
            build_tool(module, &words[1..], state)
        }
        "compileall" | "py_compile" => judge(
            Risk::Low,
            format!("{module} compiles the project's Python files"),
        ),
        "pip" => lang_packages("pip", rest),
        "black" | "isort" | "autopep8" => formatter(module, rest),
        "http.server" => judge(Risk::Medium, "starts a web server").net(),
        "venv" | "virtualenv" => judge(Risk::Medium, "creates a virtual environment"),
        "json.tool" | "tokenize" | "pydoc" | "this" | "sysconfig" | "site" | "platform"
            if rest.iter().all(|w| !is_flag(w)) =>
        {
            let mut j = judge(Risk::ReadOnly, format!("`{name} -m {module}` only prints"));
            for w in rest {
                j = j.worst(reads(w, state));
            }
            j
        }
        _ => judge(Risk::Medium, format!("runs the module {module}")),
    };
    j.prefix = vec![name.to_string(), "-m".into(), module.to_string()];
    j
}

pub(super) fn with_prefix(mut j: Judgement, prefix: Vec<String>) -> Judgement {
    j.prefix = prefix;
    j
}

pub(super) fn js_packages(name: &str, args: &[Word]) -> Judgement {
    let rest = skip_js_options(args);
    let sub = rest
        .first()
        .map(|w| w.text.as_str())
        .unwrap_or(if name == "yarn" { "install" } else { "" });
    let after = rest.get(1..).unwrap_or(&[]);
    let j = match sub {
        "" | "-v" | "--version" | "help" | "ls" | "list" | "view" | "info" | "outdated" | "why"
        | "prefix" | "root" | "bin" => judge(Risk::ReadOnly, format!("{name} {sub} only reads")),
        "config"
            if after
                .first()
                .is_some_and(|w| matches!(w.text.as_str(), "get" | "list" | "ls")) =>
        {
            judge(Risk::ReadOnly, format!("{name} config only reads"))
        }
        "config" | "set" => judge(
            Risk::High,
            format!("{name} config changes settings that can run programs (script-shell)"),
        ),
        "test" | "t" | "run" | "run-script" | "start" | "build" | "lint" | "typecheck" | "tsc"
        | "jest" | "vitest" => {
            let script = if matches!(sub, "run" | "run-script") {
                after.first().map(|w| w.text.clone())
            } else {
                None
            };
            let mut j = judge(Risk::Low, format!("{name} {sub} runs a project script"));
            if let Some(s) = script {
                j.prefix = vec![name.to_string(), sub.to_string(), s];
            }
            j
        }
        "install" | "i" | "ci" | "add" | "remove" | "rm" | "uninstall" | "un" | "update" | "up"
        | "upgrade" | "dedupe" | "prune" | "link" | "rebuild" | "audit" => judge(
            Risk::Medium,
            format!("{name} {sub} installs packages (their install scripts run)"),
        )
        .net(),
        "exec" | "x" | "dlx" | "create" | "init" => judge(
            Risk::Medium,
            format!("{name} {sub} downloads and runs a package"),
        )
        .net(),
        "publish" | "adduser" | "login" | "logout" | "deprecate" | "unpublish" | "owner"
        | "access" | "token" | "dist-tag" => judge(
            Risk::High,
            format!("{name} {sub} publishes to or changes the registry"),
        )
        .net(),
        _ if name == "yarn" || name == "pnpm" || name == "bun" => {
            judge(Risk::Low, format!("{name} {sub} runs a project script"))
        }
        _ => judge(
            Risk::Medium,
            format!("`{name} {sub}` is not a command Loom knows"),
        ),
    };
    if j.prefix.is_empty() {
        with_prefix(j, vec![name.to_string(), sub.to_string()])
    } else {
        j
    }
}

fn skip_js_options(args: &[Word]) -> &[Word] {
    let mut i = 0;
    while let Some(w) = args.get(i) {
        match w.text.as_str() {
            "--prefix" | "-C" | "--dir" | "--cwd" | "--filter" | "-w" | "--workspace" => i += 2,
            "--silent" | "-s" | "--quiet" | "-q" | "--workspaces" | "--if-present"
            | "--recursive" | "-r" => i += 1,
            t if t.starts_with("--prefix=")
                || t.starts_with("--workspace=")
                || t.starts_with("--filter=") =>
            {
                i += 1
            }
            _ => break,
        }
    }
    &args[i.min(args.len())..]
}

pub(super) fn lang_packages(name: &str, args: &[Word]) -> Judgement {
    let mut i = 0;
    while let Some(w) = args.get(i) {
        match w.text.as_str() {
            "--python" | "-p" | "--directory" | "--project" => i += 2,
            "-q" | "--quiet" | "-v" | "--verbose" | "--no-cache" | "--offline" | "--frozen"
            | "--locked" => i += 1,
            _ => break,
        }
    }
    let first = args.get(i).map(|w| w.text.as_str());
    let rest = args.get(i + 1..).unwrap_or(&[]);
    let (sub, name_shown) = if name == "uv" && first == Some("pip") {
        (
            rest.iter()
                .find(|w| !is_flag(w))
                .map(|w| w.text.as_str())
                .unwrap_or(""),
            "uv pip".to_string(),
        )
    } else {
        (first.unwrap_or(""), name.to_string())
    };
    let j = match sub {
        "" | "list" | "show" | "freeze" | "check" | "--version" | "help" | "info" | "outdated"
        | "tree" | "env"
            if rest.iter().all(|w| !w.text.starts_with("--target")) =>
        {
            judge(Risk::ReadOnly, format!("{name_shown} {sub} only reads"))
        }
        "run" | "exec" | "test" => judge(
            Risk::Low,
            format!("{name_shown} {sub} runs a project command"),
        ),
        "install" | "uninstall" | "add" | "remove" | "sync" | "lock" | "update" | "upgrade"
        | "download" | "venv" | "build" | "inject" | "search" => judge(
            Risk::Medium,
            format!("{name_shown} {sub} installs or changes packages"),
        )
        .net(),
        "publish" | "upload" | "push" | "yank" | "owner" => {
            judge(Risk::High, format!("{name_shown} {sub} publishes packages")).net()
        }
        _ => judge(
            Risk::Medium,
            format!("{name_shown} {sub} may change packages"),
        ),
    };
    with_prefix(j, vec![name.to_string(), sub.to_string()])
}

/// `uv run CMD`, `poetry run CMD`, `bundle exec CMD`: the command is judged as well.
pub(super) fn runs_in_env(
    name: &str,
    args: &[Word],
    state: &mut State,
    depth: usize,
) -> Option<Judgement> {
    let sub_at = args.iter().position(|w| !is_flag(w))?;
    let sub = args[sub_at].text.as_str();
    let runs = match name {
        "uv" | "poetry" | "pipenv" | "conda" | "mamba" | "pdm" | "hatch" | "rye" => sub == "run",
        "bundle" => sub == "exec",
        "npm" | "pnpm" => sub == "exec",
        _ => false,
    };
    if !runs {
        return None;
    }
    let rest = &args[sub_at + 1..];
    let start = rest
        .iter()
        .position(|w| !is_flag(w) || w.text == "--")
        .unwrap_or(rest.len());
    let inner = if rest.get(start).is_some_and(|w| w.text == "--") {
        &rest[start + 1..]
    } else {
        &rest[start..]
    };
    let base = lang_packages(name, args);
    if inner.is_empty() {
        return Some(base);
    }
    let j = base.worst(program(inner, state, depth, false));
    Some(with_prefix(j, vec![name.to_string(), sub.to_string()]))
}

pub(super) fn system_packages(name: &str, args: &[Word]) -> Judgement {
    let sub = args.iter().find(|w| !is_flag(w)).map(|w| w.text.as_str());
    match sub.unwrap_or("") {
        "list" | "search" | "show" | "info" | "policy" | "madison" => judge(
            Risk::ReadOnly,
            format!("{name} only reads package information"),
        ),
        _ if args
            .first()
            .is_some_and(|w| matches!(w.text.as_str(), "-Q" | "-Ss" | "-Si" | "-Qi" | "-Ql")) =>
        {
            judge(
                Risk::ReadOnly,
                format!("{name} only reads package information"),
            )
        }
        _ => judge(
            Risk::High,
            format!("`{name}` installs or removes system packages"),
        )
        .net(),
    }
}
