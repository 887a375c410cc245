//! Shells and interpreters: judged by the code they run (`sh -c`, a piped `echo`, inline
//! code), the scripts they start, and for `python -m` the module (which the working
//! directory can replace: python puts it first on `sys.path`).

use super::super::options::Spec;
use super::super::parse::Word;
use super::super::{Place, Risk};
use super::build_tools::{build_tool, formatter};
use super::packages::lang_packages;
use super::{
    Judgement, PipedInput, State, forbidden_among, is_flag, judge, nested, nested_shell, reads,
    writes_at,
};

/// `sh`, `bash`, ...: judged by the code they run (`-c`, a piped `echo`), a script they
/// run, or their input.
pub(super) fn shell(name: &str, args: &[Word], state: &mut State, depth: usize) -> Judgement {
    let (with_c, i) = match shell_options(name, args) {
        Ok(read) => read,
        Err(j) => return j,
    };
    let operand = args.get(i).filter(|w| {
        !matches!(
            w.text.as_str(),
            "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0"
        )
    });
    if with_c {
        return match operand {
            Some(code) => {
                let positional = &args[i + 1..];
                let j = nested_shell(code, state, depth);
                match with_positional(code, positional) {
                    Some(filled) => j.worst(nested_shell(&filled, state, depth)),
                    None => j,
                }
            }
            None => judge(Risk::Medium, format!("`{name} -c` without a command")),
        };
    }
    if let Some(script) = operand {
        return judge(Risk::Medium, format!("runs the script {}", script.text))
            .worst(reads(script, state));
    }
    shell_input(name, state, depth)
}

/// `sh -c CODE ARG0 ARG1 …`: CODE with its positional parameters (`$0`, `$1`…, `$@`,
/// `"$@"`) replaced by the arguments given for them, quoted; `None` when there are none or
/// CODE uses none. `bash -c '$0 -rf ~' rm` is the `rm -rf ~` it runs.
fn with_positional(code: &Word, positional: &[Word]) -> Option<Word> {
    if positional.is_empty() || code.dynamic || !code.text.contains('$') {
        return None;
    }
    if positional.iter().any(|w| w.dynamic) {
        return None;
    }
    // The calling shell expanded an unquoted `~` before the code got it: it stays a path
    // to the home directory, not a file named `~`.
    let quoted: Vec<String> = positional
        .iter()
        .map(|w| match w.text.strip_prefix('~') {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => {
                format!("~{}", super::shell_quote(rest).trim_matches('\''))
            }
            _ => super::shell_quote(&w.text),
        })
        .collect();
    let all = quoted.get(1..).unwrap_or(&[]).join(" ");
    let mut text = code
        .text
        .replace("\"$@\"", &all)
        .replace("$@", &all)
        .replace("\"$*\"", &all)
        .replace("$*", &all);
    for (n, q) in quoted.iter().enumerate().take(10).rev() {
        text = text
            .replace(&format!("${{{n}}}"), q)
            .replace(&format!("\"${n}\""), q)
            .replace(&format!("${n}"), q);
    }
    (text != code.text).then(|| Word::literal(&text))
}

/// A shell's options: whether `-c` is among them and the index of the first word after
/// them; `Err` with the verdict for an option Loom does not know or one that runs a
/// start-up file.
fn shell_options(name: &str, args: &[Word]) -> Result<(bool, usize), Judgement> {
    const SHORT: &str = "abefhkmnptuvxBCEHPTilrsDc";
    let mut with_c = false;
    let mut i = 0;
    while i < args.len() {
        let w = &args[i];
        let t = w.text.as_str();
        if w.dynamic {
            return Err(judge(
                Risk::High,
                format!("`{name}` gets arguments only known at run time"),
            ));
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
            return Err(judge(
                Risk::Medium,
                format!("`{name} {t}` runs the commands in a start-up file"),
            ));
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
                return Err(judge(
                    Risk::Medium,
                    format!("unrecognised option {t} for {name}"),
                ));
            }
            i += 1;
            continue;
        }
        if let Some(letters) = t.strip_prefix('-').or_else(|| t.strip_prefix('+')) {
            if let Some(bad) = letters.chars().find(|c| !SHORT.contains(*c)) {
                return Err(judge(
                    Risk::Medium,
                    format!("unrecognised option -{bad} for {name}"),
                ));
            }
            with_c |= letters.contains('c');
            i += 1;
            continue;
        }
        break;
    }
    Ok((with_c, i))
}

/// A shell with no code and no script runs its input: judged by the text piped in, when
/// Loom knows it.
fn shell_input(name: &str, state: &mut State, depth: usize) -> Judgement {
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
    if name == "deno" {
        return deno(args, state, depth);
    }
    let python = name.starts_with("python") || name.starts_with("pypy");
    let spec = interpreter_spec(python);
    let lead = if python {
        let (end, rest) = python_options_end(args);
        let (end, rest) = (end.min(args.len()), rest.min(args.len()));
        super::super::options::parse(&spec, &args[..end], false).map(|p| (p, &args[rest..]))
    } else {
        super::super::options::parse_leading(&spec, args)
    };
    let (opts, rest) = match lead {
        Ok(x) => x,
        Err(e) => {
            return super::unproven(e, name).worst(forbidden_among(args, state, depth));
        }
    };
    if let Some(module) = opts.values(&["-m"]).first() {
        let isolated = opts.has(&["-I", "-P"]);
        return python_module(name, module.text(), rest, state, depth, isolated);
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
    runs_script_or_input(name, rest, state, depth)
}

/// `deno`: a subcommand that runs code. Code named by a URL (`https:`, `npm:`, `jsr:`) is
/// fetched from the network and run; `eval` runs inline code; any other run is a program
/// with whatever permissions its flags give it (`-A`: all). None is covered by a grant.
fn deno(args: &[Word], state: &State, depth: usize) -> Judgement {
    const REMOTE: &[&str] = &["http://", "https://", "npm:", "jsr:"];
    let sub = args.iter().find(|w| !is_flag(w)).map(|w| w.text.as_str());
    let mut j = match sub {
        Some("fmt" | "lint" | "check" | "doc" | "info" | "types" | "completions") => {
            return judge(Risk::Low, "`deno` checks or formats code");
        }
        Some("eval") => judge(Risk::Medium, "runs inline deno code, which can do anything"),
        _ => judge(
            Risk::Medium,
            "`deno` runs a program with the permissions its flags give it",
        ),
    }
    .ungrantable();
    for w in args {
        if REMOTE.iter().any(|r| w.text.starts_with(r)) {
            j = j
                .at_least(
                    Risk::High,
                    format!("`deno` runs code fetched from the network ({})", w.text),
                )
                .net();
        }
        j = j.worst(forbidden_in_code(&w.text, state, depth));
    }
    j
}

/// The options Loom recognises for python, or for the other interpreters.
fn interpreter_spec(python: bool) -> Spec {
    if python {
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
        // `-E` takes a value: perl's, php's and julia's code to run, ruby's encoding.
        Spec {
            flags: "hvVcwidpnasl",
            valued: "eErIM",
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
    }
}

/// An interpreter with no inline code: it runs the script `rest` starts with, or the
/// program on its input (searched for forbidden commands when Loom knows the text).
fn runs_script_or_input(name: &str, rest: &[Word], state: &State, depth: usize) -> Judgement {
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

/// Where python's own options end and what follows them starts: after the value of `-c`
/// or `-m` (the words after it belong to the code or module, `python -m json.tool
/// --sort-keys`), at `--` (skipped), or at the first operand (the script).
fn python_options_end(args: &[Word]) -> (usize, usize) {
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        if t == "--" {
            return (i, i + 1);
        }
        if t == "-" || !t.starts_with('-') {
            return (i, i);
        }
        i += 1;
        if t.starts_with("--") {
            if t == "--check-hash-based-pycs" {
                i += 1;
            }
            continue;
        }
        for (k, c) in t[1..].char_indices() {
            let glued = k + 1 < t.len() - 1;
            match c {
                'c' | 'm' => {
                    let end = if glued { i } else { i + 1 };
                    return (end, end);
                }
                'W' | 'X' => {
                    if !glued {
                        i += 1;
                    }
                    break;
                }
                _ => {}
            }
        }
    }
    (args.len(), args.len())
}

/// What the working directory holds that `python -m MODULE` would import instead of the
/// real module (`MODULE.py`, a `MODULE/` package, a compiled `MODULE.*.so`), if anything.
fn shadowing_module(module: &str, state: &State) -> Option<String> {
    let top = module.split('.').next().unwrap_or(module);
    if state.cwd_unknown {
        return Some(format!(
            "the working directory is only known at run time, and a {top}.py there would run"
        ));
    }
    let dirs = std::iter::once(&state.ctx.cwd).chain(state.other_cwds.iter().map(|(d, _)| d));
    dirs.filter_map(|d| std::fs::read_dir(d).ok())
        .flat_map(|entries| entries.filter_map(Result::ok))
        .find_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let shadows = name == top
                || name
                    .strip_prefix(top)
                    .and_then(|rest| rest.strip_prefix('.'))
                    .is_some_and(|ext| {
                        matches!(ext, "py" | "pyc" | "pyd" | "so")
                            || (ext.ends_with(".so") || ext.ends_with(".pyd"))
                    });
            shadows.then(|| {
                format!(
                    "the working directory holds {name}, which `-m {module}` imports (runs) \
                 instead of the installed module"
                )
            })
        })
}

fn python_module(
    name: &str,
    module: &str,
    rest: &[Word],
    state: &mut State,
    depth: usize,
    isolated: bool,
) -> Judgement {
    let mut j = match module {
        "pytest" | "unittest" | "mypy" | "pyflakes" | "pylint" | "flake8" | "doctest" | "ruff" => {
            let mut words = vec![Word::literal(module)];
            words.extend(rest.iter().cloned());
            build_tool(module, &words[1..], state, depth)
        }
        "compileall" | "py_compile" => judge(
            Risk::Low,
            format!("{module} compiles the project's Python files"),
        ),
        "pip" => lang_packages("pip", rest),
        "black" | "isort" | "autopep8" => formatter(module, rest),
        "http.server" => judge(Risk::Medium, "starts a web server").net(),
        "venv" | "virtualenv" => judge(Risk::Medium, "creates a virtual environment"),
        "pydoc" => judge(
            Risk::Medium,
            "pydoc imports (runs) the modules and files it documents",
        ),
        "json.tool" => json_tool(name, rest, state),
        "tokenize" | "this" | "sysconfig" | "site" | "platform"
            if rest.iter().all(|w| !is_flag(w)) =>
        {
            let mut j = judge(Risk::ReadOnly, format!("`{name} -m {module}` only prints"));
            for w in rest {
                j = j.worst(reads(w, state));
            }
            j
        }
        // Modules that run the code or script given to them: inline code.
        "timeit" | "cProfile" | "profile" | "trace" | "pdb" | "code" | "runpy" => {
            let mut j = judge(
                Risk::Medium,
                format!("`{name} -m {module}` runs the code given to it, which can do anything"),
            )
            .ungrantable();
            for w in rest {
                j = j.worst(forbidden_in_code(&w.text, state, depth));
            }
            j
        }
        _ => judge(Risk::Medium, format!("runs the module {module}")),
    };
    if j.level < Risk::Medium
        && !isolated
        && let Some(reason) = shadowing_module(module, state)
    {
        j = j.at_least(Risk::Medium, reason).ungrantable();
    }
    j.prefix = vec![name.to_string(), "-m".into(), module.to_string()];
    j
}

/// `python -m json.tool [IN [OUT]]`: prints JSON (reads IN), or writes it to OUT.
fn json_tool(name: &str, rest: &[Word], state: &State) -> Judgement {
    const SPEC: Spec = Spec {
        flags: "h",
        valued: "",
        long: &[
            "sort-keys",
            "no-ensure-ascii",
            "json-lines",
            "indent=",
            "tab",
            "no-indent",
            "compact",
            "help",
        ],
        numeric: false,
    };
    match super::super::options::parse(&SPEC, rest, false) {
        Ok(p) => {
            let mut j = judge(Risk::ReadOnly, format!("`{name} -m json.tool` only prints"));
            if let Some(input) = p.operands.first() {
                j = j.worst(reads(input, state));
            }
            for out in p.operands.iter().skip(1) {
                j = j.worst(writes_at(out, state, "writes"));
            }
            j
        }
        Err(e) => super::unproven(e, "python -m json.tool"),
    }
}

pub(super) fn with_prefix(mut j: Judgement, prefix: Vec<String>) -> Judgement {
    j.prefix = prefix;
    j
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_options_end_after_the_module_or_code_value() {
        let w = |s: &str| -> Vec<Word> { s.split_whitespace().map(Word::literal).collect() };
        assert_eq!(python_options_end(&w("-m json.tool --sort-keys a")), (2, 2));
        assert_eq!(python_options_end(&w("-I -mjson.tool --x")), (2, 2));
        assert_eq!(python_options_end(&w("-W ignore -c code -x")), (4, 4));
        assert_eq!(python_options_end(&w("-u -- script.py -c")), (1, 2));
        assert_eq!(
            python_options_end(&w("--check-hash-based-pycs always -c x y")),
            (4, 4)
        );
        assert_eq!(python_options_end(&w("script.py -m x")), (0, 0));
        assert_eq!(python_options_end(&w("-m")), (2, 2));
    }
}
