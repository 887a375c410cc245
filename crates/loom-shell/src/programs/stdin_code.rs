//! Programs that read commands from their input: `ed` (`!CMD`), Tcl (`exec CMD`), the
//! schedulers `at`, `batch` and `crontab` (each job or crontab line is a shell command run
//! later, outside Loom's sandbox and reaper), and database shells (`sqlite3 .shell CMD`,
//! `psql \! CMD`). When the input is text Loom can read (a heredoc, a here-string, a piped
//! `echo`), the commands in it are judged and a forbidden one stays forbidden; input Loom
//! cannot read (another program's output, or a file redirect) makes the call high, since
//! it may run anything.

use super::super::Risk;
use super::super::parse::Word;
use super::super::place::protected;
use super::dev::forbidden_in_code;
use super::{Judgement, PipedInput, State, is_flag, judge, nested, reads};
use loom_base::paths::Access;

/// What a command reader is given to run.
enum Input {
    /// Text Loom can read, and whether the shell builds part of it at run time.
    Known(String, bool),
    /// Input Loom cannot read.
    Unseen(&'static str),
}

fn input(state: &State) -> Input {
    match &state.piped {
        Some(PipedInput::Text(t)) => Input::Known(t.clone(), false),
        Some(PipedInput::Built(t)) => Input::Known(t.clone(), true),
        Some(PipedInput::Unknown) => Input::Unseen("another program's output"),
        None => Input::Unseen("its input (a file Loom cannot see)"),
    }
}

/// Judge `name` when it reads commands from its input; `None` for every other program.
pub(super) fn command_reader(
    name: &str,
    args: &[Word],
    state: &State,
    depth: usize,
) -> Option<Judgement> {
    let j = match name {
        "ed" | "red" => ed(name, args, state, depth),
        t if t.starts_with("tclsh") || matches!(t, "wish" | "jimsh") => {
            tcl(name, args, state, depth)
        }
        "at" | "batch" => at(name, args, state, depth),
        "crontab" => crontab(args, state, depth),
        "sqlite3" | "psql" | "mysql" | "mariadb" => database(name, args, state, depth),
        _ => return None,
    };
    Some(j)
}

/// The worst of judging each text as a shell command run by `via`, at least `floor`.
fn judge_each(
    floor: Judgement,
    commands: &[String],
    state: &State,
    depth: usize,
    via: &str,
) -> Judgement {
    commands
        .iter()
        .filter(|c| !c.trim().is_empty())
        .take(64)
        .fold(floor, |j, c| j.worst(nested(c.trim(), state, depth, via)))
}

/// Judge what `name` runs from its input: `commands` extracts the shell commands from
/// known text; input built at run time or unseen makes the call high.
fn from_input(
    name: &str,
    floor: Judgement,
    state: &State,
    depth: usize,
    commands: fn(&str) -> Vec<String>,
) -> Judgement {
    match input(state) {
        Input::Known(text, built) => {
            let mut j = judge_each(floor, &commands(&text), state, depth, &format!("`{name}`"))
                .worst(forbidden_in_code(&text, state, depth));
            if built {
                j = j.at_least(
                    Risk::High,
                    format!("`{name}` runs commands the shell builds at run time (expansions in its input)"),
                );
            }
            j
        }
        Input::Unseen(from) => floor.at_least(
            Risk::High,
            format!("`{name}` runs the commands in {from}, which may do anything"),
        ),
    }
}

/// The shell command of each ed line (`!CMD`, `r !CMD`, `w !CMD`, `e !CMD`).
fn ed_commands(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.split_once('!').map(|(_, cmd)| cmd.to_string()))
        .collect()
}

fn ed(name: &str, args: &[Word], state: &State, depth: usize) -> Judgement {
    let mut floor = judge(Risk::Medium, format!("`{name}` edits files")).ungrantable();
    for w in args.iter().filter(|w| !is_flag(w)) {
        if let Some(cmd) = w.text.strip_prefix('!') {
            floor = floor.worst(nested(cmd, state, depth, &format!("`{name} !`")));
        } else {
            floor = floor.worst(reads(w, state));
        }
    }
    if name == "red" {
        return floor;
    }
    from_input(name, floor, state, depth, ed_commands)
}

/// The commands of Tcl `exec` calls (`exec rm -rf x`, `[exec ls]`) and pipes opened with
/// `open "|CMD"`.
fn tcl_commands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in text.match_indices("exec") {
        let before = text[..i].chars().last();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &text[i + 4..];
        if !rest.starts_with([' ', '\t']) {
            continue;
        }
        let end = rest.find(['\n', ';', ']']).unwrap_or(rest.len());
        let words: Vec<&str> = rest[..end]
            .split_whitespace()
            .skip_while(|w| w.starts_with('-'))
            .collect();
        out.push(words.join(" "));
    }
    for (i, _) in text.match_indices("\"|") {
        let rest = &text[i + 2..];
        out.push(rest[..rest.find('"').unwrap_or(rest.len())].to_string());
    }
    out
}

fn tcl(name: &str, args: &[Word], state: &State, depth: usize) -> Judgement {
    let script = args.iter().find(|w| !is_flag(w));
    match script {
        Some(s) if s.text != "-" => {
            judge(Risk::Medium, format!("`{name}` runs the script {}", s.text))
                .ungrantable()
                .worst(reads(s, state))
        }
        _ => from_input(
            name,
            judge(
                Risk::Medium,
                format!("`{name}` runs Tcl code from its input"),
            )
            .ungrantable(),
            state,
            depth,
            tcl_commands,
        ),
    }
}

fn whole(text: &str) -> Vec<String> {
    vec![text.to_string()]
}

/// `at`/`batch`: list and show are read-only; a job is a shell script run later.
fn at(name: &str, args: &[Word], state: &State, depth: usize) -> Judgement {
    let has = |f: &str| args.iter().any(|w| w.text == f);
    if has("-l") || has("-c") {
        return judge(Risk::ReadOnly, format!("`{name}` lists or shows jobs"));
    }
    if has("-r") || has("-d") {
        return judge(Risk::High, format!("`{name}` removes scheduled jobs"));
    }
    let floor = judge(
        Risk::High,
        format!("`{name}` schedules commands to run later, outside Loom's sandbox"),
    )
    .ungrantable();
    if let Some(k) = args.iter().position(|w| w.text == "-f") {
        return match args.get(k + 1) {
            Some(f) => floor.worst(reads(f, state)),
            None => floor,
        };
    }
    from_input(name, floor, state, depth, whole)
}

/// The command of each crontab line: after the five time fields, or after `@reboot`-style
/// specials; comments, blank lines and variable settings have none. Cron turns the
/// first unescaped `%` into a newline and feeds the rest to the command's input.
fn crontab_commands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields = if line.starts_with('@') { 1 } else { 5 };
        let mut rest = line;
        let mut ok = true;
        for _ in 0..fields {
            rest = rest.trim_start();
            match rest.find(char::is_whitespace) {
                Some(end) => rest = &rest[end..],
                None => ok = false,
            }
        }
        let first = line.split_whitespace().next().unwrap_or("");
        if !ok || (first.contains('=') && !line.starts_with('@')) {
            continue;
        }
        let mut command = String::new();
        let mut escaped = false;
        for c in rest.trim().chars() {
            if c == '%' && !escaped {
                break;
            }
            escaped = c == '\\';
            command.push(c);
        }
        out.push(command.trim().to_string());
    }
    out
}

/// `crontab`: `-l` lists; a crontab from input (`-` or no file) has each line's command
/// judged; one from a file, `-e` and `-r` are high.
fn crontab(args: &[Word], state: &State, depth: usize) -> Judgement {
    let flags: Vec<&str> = args
        .iter()
        .filter(|w| is_flag(w))
        .map(|w| w.text.as_str())
        .collect();
    if flags.contains(&"-l") {
        return judge(Risk::ReadOnly, "`crontab -l` lists the crontab");
    }
    let floor = judge(
        Risk::High,
        "`crontab` installs commands that cron runs later, outside Loom's sandbox",
    )
    .ungrantable();
    if flags.iter().any(|f| matches!(*f, "-e" | "-r" | "-i")) {
        return floor;
    }
    let mut i = 0;
    let mut file = None;
    while let Some(w) = args.get(i) {
        if w.text == "-u" {
            i += 2;
            continue;
        }
        if !is_flag(w) || w.text == "-" {
            file = Some(w);
            break;
        }
        i += 1;
    }
    match file {
        Some(f) if f.text != "-" => floor.worst(reads(f, state)),
        _ => from_input("crontab", floor, state, depth, crontab_commands),
    }
}

/// Shell escapes of database shells: sqlite3 `.shell`/`.system` and `.once`/`.output`/
/// `.import` of a `|CMD` pipe; psql and mysql `\!`; mysql `system`.
fn database_commands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines().map(str::trim) {
        for prefix in [".shell", ".system", "\\!", "system"] {
            if let Some(rest) = line.strip_prefix(prefix)
                && rest.starts_with([' ', '\t'])
            {
                out.push(rest.trim().to_string());
            }
        }
        for prefix in [".once", ".output", ".import", ".excel"] {
            if let Some(rest) = line.strip_prefix(prefix)
                && let Some(pipe) = rest.find('|')
            {
                out.push(rest[pipe + 1..].trim_end_matches(['\'', '"']).to_string());
            }
        }
    }
    out
}

fn database(name: &str, args: &[Word], state: &State, depth: usize) -> Judgement {
    let mut floor = judge(
        Risk::Medium,
        format!("`{name}` runs SQL, which can change the database"),
    )
    .ungrantable();
    let mut commands = Vec::new();
    for w in args {
        if w.dynamic {
            floor = floor.at_least(
                Risk::High,
                format!("`{name}` gets a command only known at run time"),
            );
            continue;
        }
        commands.extend(database_commands(&w.text));
        if !is_flag(w)
            && let Some(reason) = protected(w, &state.ctx, Access::Read)
        {
            floor = floor.at_least(Risk::High, reason);
        }
    }
    let floor = judge_each(floor, &commands, state, depth, &format!("`{name}`"));
    let given_commands = args.iter().any(|w| {
        matches!(
            w.text.as_str(),
            "-c" | "--command" | "-e" | "--execute" | "-f" | "--file"
        )
    });
    let sql_operands = name == "sqlite3" && args.iter().filter(|w| !is_flag(w)).count() >= 2;
    let reads_input = !given_commands && !sql_operands;
    if reads_input {
        from_input(name, floor, state, depth, database_commands)
    } else {
        floor
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_found_in_each_language() {
        assert_eq!(
            ed_commands("1,$p\n!rm -rf x\nr !ls\nq"),
            vec!["rm -rf x", "ls"]
        );
        assert_eq!(
            tcl_commands("puts [exec -ignorestderr -- ls -l]; exec rm x\nset executor 1"),
            vec!["ls -l", "rm x"]
        );
        assert_eq!(
            tcl_commands("set f [open \"|rm -rf x\" r]"),
            vec!["rm -rf x"]
        );
        assert_eq!(
            crontab_commands(
                "# c\nSHELL=/bin/sh\n*/5 * * * * make -C /x test % in\n@reboot  /bin/up\n"
            ),
            vec!["make -C /x test", "/bin/up"]
        );
        assert_eq!(
            database_commands(".shell rm x\n.once '|rm y'\nselect 1;\n\\! ls"),
            vec!["rm x", "rm y", "ls"]
        );
    }
}
