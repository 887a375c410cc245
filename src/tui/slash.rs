//! Slash commands, from one table: dispatch, `/help`, usage errors and completion all read
//! [`COMMANDS`], so a command's name, arguments and help cannot disagree (`/undo`'s usage
//! once differed between its error and `/help`).

use super::app::App;
use super::layers::Help;
use super::theme::Theme;
use super::transcript::NoticeLevel;
use crate::agent::UserOp;
use crate::changelog::Scope;
use crate::policy::Autonomy;

/// One slash command.
pub struct SlashCommand {
    /// Its name, without the slash.
    pub name: &'static str,
    /// Other names it answers to.
    pub aliases: &'static [&'static str],
    /// Its arguments as `/help` and usage errors show them ("" for none).
    pub args: &'static str,
    /// What it does, in one line.
    pub help: &'static str,
    /// The values its argument takes, for completion (empty: free text or none).
    pub values: fn() -> Vec<String>,
    /// Run it with the rest of the line.
    pub run: fn(&mut App, &str),
}

impl SlashCommand {
    /// "/undo [turn|all|#N]".
    pub fn synopsis(&self) -> String {
        if self.args.is_empty() {
            format!("/{}", self.name)
        } else {
            format!("/{} {}", self.name, self.args)
        }
    }

    /// "usage: /undo [turn|all|#N]".
    pub fn usage(&self) -> String {
        format!("usage: {}", self.synopsis())
    }
}

fn none() -> Vec<String> {
    Vec::new()
}

fn on_off() -> Vec<String> {
    vec!["on".into(), "off".into()]
}

fn modes() -> Vec<String> {
    ["read-only", "supervised", "full-auto"]
        .map(String::from)
        .to_vec()
}

fn undo_scopes() -> Vec<String> {
    ["turn", "all"].map(String::from).to_vec()
}

/// Every slash command, in the order `/help` lists them.
pub const COMMANDS: &[SlashCommand] = &[
    SlashCommand {
        name: "help",
        aliases: &["?"],
        args: "",
        help: "this help",
        values: none,
        run: |app, _| app.layers.push(Box::new(Help::default())),
    },
    SlashCommand {
        name: "quit",
        aliases: &["exit", "q"],
        args: "",
        help: "leave Loom (the session is saved)",
        values: none,
        run: |app, _| app.quit = true,
    },
    SlashCommand {
        name: "clear",
        aliases: &["new"],
        args: "",
        help: "start a new conversation",
        values: none,
        run: clear,
    },
    SlashCommand {
        name: "compact",
        aliases: &[],
        args: "",
        help: "shrink the conversation now: cut big tool results, summarise older turns",
        values: none,
        run: |app, _| app.send(UserOp::Compact),
    },
    SlashCommand {
        name: "model",
        aliases: &[],
        args: "[NAME]",
        help: "show the model, or switch to another",
        values: none,
        run: model,
    },
    SlashCommand {
        name: "approval",
        aliases: &[],
        args: "[read-only|supervised|full-auto]",
        help: "show the approval mode, or set it",
        values: modes,
        run: approval,
    },
    SlashCommand {
        name: "theme",
        aliases: &[],
        args: "[NAME]",
        help: "list the themes, or switch (dark, light, high-contrast, yours)",
        values: Theme::names,
        run: theme,
    },
    SlashCommand {
        name: "diff",
        aliases: &[],
        args: "",
        help: "every change of this session",
        values: none,
        run: |app, _| app.show_session_diff(),
    },
    SlashCommand {
        name: "tokens",
        aliases: &[],
        args: "",
        help: "tokens used and context left",
        values: none,
        run: tokens,
    },
    SlashCommand {
        name: "undo",
        aliases: &[],
        args: "[turn|all|#N]",
        help: "take back the last change, this turn's, all, or every change since #N",
        values: undo_scopes,
        run: undo,
    },
    SlashCommand {
        name: "redo",
        aliases: &[],
        args: "",
        help: "redo the last undo",
        values: none,
        run: |app, _| {
            app.send(UserOp::Redo {
                apply: false,
                force: false,
            })
        },
    },
    SlashCommand {
        name: "changes",
        aliases: &[],
        args: "",
        help: "list the session's changes",
        values: none,
        run: |app, _| app.send(UserOp::ListChanges),
    },
    SlashCommand {
        name: "autocommit",
        aliases: &[],
        args: "[on|off]",
        help: "show or switch committing the files Loom changes after each batch",
        values: on_off,
        run: autocommit,
    },
    SlashCommand {
        name: "memory",
        aliases: &[],
        args: "[search WORDS|rm KEY]",
        help: "long-term memories: list, search, delete (rm --global KEY: a global one)",
        values: none,
        run: memory,
    },
    SlashCommand {
        name: "mouse",
        aliases: &[],
        args: "[on|off]",
        help: "capture the mouse (wheel scrolls) or leave selection to the terminal",
        values: on_off,
        run: mouse,
    },
];

/// The command a name (without the slash) means.
pub fn find(name: &str) -> Option<&'static SlashCommand> {
    COMMANDS
        .iter()
        .find(|c| c.name == name || c.aliases.contains(&name))
}

/// Completions of a partly typed line (`/th` → `/theme`, `/theme l` → `/theme light`),
/// each a whole line.
pub fn complete(line: &str) -> Vec<String> {
    let Some(rest) = line.strip_prefix('/') else {
        return Vec::new();
    };
    match rest.split_once(' ') {
        None => COMMANDS
            .iter()
            .filter(|c| c.name.starts_with(rest))
            .map(|c| format!("/{}", c.name))
            .collect(),
        Some((name, arg)) => match find(name) {
            Some(c) => (c.values)()
                .into_iter()
                .filter(|v| v.starts_with(arg.trim_start()))
                .map(|v| format!("/{} {v}", c.name))
                .collect(),
            None => Vec::new(),
        },
    }
}

impl App {
    /// Run a slash command line (without its slash).
    pub(crate) fn command(&mut self, line: &str) {
        let (name, arg) = match line.trim().split_once(char::is_whitespace) {
            Some((n, a)) => (n, a.trim()),
            None => (line.trim(), ""),
        };
        match find(name) {
            Some(c) => (c.run)(self, arg),
            None => {
                let msg = format!("unknown command /{name}; /help lists the commands");
                self.transcript.push_notice(NoticeLevel::Error, &msg);
            }
        }
    }

    fn say(&mut self, level: NoticeLevel, text: &str) {
        self.transcript.push_notice(level, text);
    }

    fn usage(&mut self, name: &str) {
        if let Some(c) = find(name) {
            let usage = c.usage();
            self.say(NoticeLevel::Error, &usage);
        }
    }
}

fn memory(app: &mut App, arg: &str) {
    match crate::memory::MemoryCommand::parse(arg) {
        Ok(command) => app.send(UserOp::Memory { command }),
        Err(_) => app.usage("memory"),
    }
}

fn clear(app: &mut App, _: &str) {
    if app.busy() {
        app.say(
            NoticeLevel::Error,
            "finish or interrupt (Esc) the current turn first",
        );
        return;
    }
    app.transcript.clear();
    app.send(UserOp::Clear);
}

fn model(app: &mut App, arg: &str) {
    if arg.is_empty() {
        let msg = format!("model: {} (/model NAME switches)", app.status.model);
        app.say(NoticeLevel::Info, &msg);
    } else {
        app.status.model = arg.to_string();
        app.send(UserOp::SetModel { model: arg.into() });
    }
}

fn approval(app: &mut App, arg: &str) {
    if arg.is_empty() {
        let mut msg = format!(
            "approval mode: {} (choices: read-only, supervised, full-auto)",
            app.status.autonomy
        );
        if app.status.edits_allowed {
            msg.push_str("; file edits are allowed without asking for this session");
        }
        app.say(NoticeLevel::Info, &msg);
        return;
    }
    match Autonomy::parse(arg) {
        Some(a) => {
            app.status.autonomy = a;
            app.status.edits_allowed = false;
            app.send(UserOp::SetAutonomy { autonomy: a });
        }
        None => app.usage("approval"),
    }
}

fn theme(app: &mut App, arg: &str) {
    if arg.is_empty() {
        let msg = format!(
            "themes: {} (current: {})",
            Theme::names().join(", "),
            app.theme.name
        );
        app.say(NoticeLevel::Info, &msg);
        return;
    }
    match Theme::load(arg, app.theme.depth) {
        Ok(t) => app.set_theme(t),
        Err(e) => app.say(NoticeLevel::Error, &e),
    }
}

fn tokens(app: &mut App, _: &str) {
    let u = app.status.usage;
    let mut msg = format!(
        "tokens this session: {} prompt + {} completion{}",
        u.prompt_tokens,
        u.completion_tokens,
        if u.estimated {
            " (partly estimated)"
        } else {
            ""
        }
    );
    if let Some(w) = app.status.context_window {
        msg.push_str(&format!(
            "; last request used {} of the {w}-token context",
            app.status.last_prompt
        ));
    }
    app.say(NoticeLevel::Info, &msg);
}

fn undo(app: &mut App, arg: &str) {
    let scope = match arg {
        "" | "last" => Scope::Last,
        "turn" => Scope::Turn,
        "all" => Scope::All,
        other => match other.trim_start_matches('#').parse::<u64>() {
            Ok(n) => Scope::Since(n),
            Err(_) => return app.usage("undo"),
        },
    };
    app.pending_undo = scope;
    app.send(UserOp::Undo {
        scope,
        apply: false,
        force: false,
    });
}

fn autocommit(app: &mut App, arg: &str) {
    let on = match arg {
        "" => {
            let msg = format!(
                "auto-commit is {} (/autocommit on|off switches)",
                if app.status.auto_commit { "on" } else { "off" }
            );
            return app.say(NoticeLevel::Info, &msg);
        }
        "on" => true,
        "off" => false,
        _ => return app.usage("autocommit"),
    };
    app.status.auto_commit = on;
    app.send(UserOp::SetAutoCommit { on });
}

fn mouse(app: &mut App, arg: &str) {
    app.mouse_capture = match arg {
        "" | "on" | "yes" | "true" => true,
        "off" | "no" | "false" => false,
        _ => return app.usage("mouse"),
    };
    let msg = if app.mouse_capture {
        "mouse captured: the wheel scrolls Loom's panes"
    } else {
        "mouse released: select text with the terminal; scroll with PgUp/PgDn"
    };
    app.say(NoticeLevel::Info, msg);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for c in COMMANDS {
            for n in std::iter::once(&c.name).chain(c.aliases) {
                assert!(seen.insert(*n), "/{n} twice");
            }
        }
    }

    #[test]
    fn completion_finds_commands_and_their_values() {
        assert_eq!(complete("/th"), ["/theme"]);
        assert_eq!(complete("/a"), ["/approval", "/autocommit"]);
        assert_eq!(complete("/approval s"), ["/approval supervised"]);
        assert_eq!(
            complete("/autocommit "),
            ["/autocommit on", "/autocommit off"]
        );
        assert!(complete("/theme l").contains(&"/theme light".to_string()));
        assert!(complete("/nothing ").is_empty());
        assert!(complete("plain text").is_empty());
    }

    /// Regression (issue 11): `/undo`'s usage differed between its error and `/help`.
    #[test]
    fn usage_errors_and_help_show_the_same_synopsis() {
        let undo = find("undo").unwrap();
        assert_eq!(undo.usage(), "usage: /undo [turn|all|#N]");
        assert_eq!(undo.synopsis(), "/undo [turn|all|#N]");
    }
}
