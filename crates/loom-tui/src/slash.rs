//! Slash commands, from one table: dispatch, `/help`, usage errors and completion all read
//! [`COMMANDS`], so a command's name, arguments and help cannot disagree (`/undo`'s usage
//! once differed between its error and `/help`).

use super::app::App;
use super::layers::{Action, Help, PickItem, Picker};
use super::theme::Theme;
use super::transcript::NoticeLevel;
use crate::protocol::autonomy::Autonomy;
use crate::protocol::changes::Scope;
use crate::protocol::events::UserOp;

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
    /// The values its argument takes, for completion and the popup (empty: free text or
    /// none); given the screen's state for values only it knows (the server's models).
    pub values: fn(&App) -> Vec<String>,
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

fn none(_: &App) -> Vec<String> {
    Vec::new()
}

fn on_off(_: &App) -> Vec<String> {
    vec!["on".into(), "off".into()]
}

fn themes(_: &App) -> Vec<String> {
    Theme::names()
}

fn models(app: &App) -> Vec<String> {
    app.known_models()
}

fn modes(_: &App) -> Vec<String> {
    ["read-only", "supervised", "full-auto", "plan"]
        .map(String::from)
        .to_vec()
}

fn undo_scopes(_: &App) -> Vec<String> {
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
        run: |app, _| app.outbox.quit = true,
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
        name: "resume",
        aliases: &["sessions"],
        args: "",
        help: "go back to an earlier session: a list to filter by typing, Enter opens",
        values: none,
        run: resume,
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
        help: "pick one of the server's models, or switch to NAME",
        values: models,
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
        values: themes,
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
        name: "mcp",
        aliases: &[],
        args: "[NAME]",
        help: "the MCP servers: why one failed, then counts; NAME lists its tools",
        values: mcp_servers,
        run: mcp,
    },
    SlashCommand {
        name: "lsp",
        aliases: &[],
        args: "",
        help: "the language servers, their state and diagnostics",
        values: none,
        run: lsp,
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
    SlashCommand {
        name: "copy",
        aliases: &[],
        args: "[code [N]]",
        help: "copy the last answer, or its last (or Nth) code block, to the clipboard",
        values: |_| vec!["code".into()],
        run: copy,
    },
    SlashCommand {
        name: "init",
        aliases: &[],
        args: "",
        help: "ask the model to write AGENTS.md for this repository (you review the diff)",
        values: none,
        run: init,
    },
    SlashCommand {
        name: "rewind",
        aliases: &[],
        args: "[N]",
        help: "go back to just before a prompt: files restored (diff first), prompt to edit",
        values: none,
        run: super::rewind::rewind_command,
    },
    SlashCommand {
        name: "fork",
        aliases: &[],
        args: "[N]",
        help: "start a new session from this one (whole, or before prompt N)",
        values: none,
        run: super::rewind::fork_command,
    },
    SlashCommand {
        name: "plan",
        aliases: &[],
        args: "[PROMPT]",
        help: "plan mode: read-only tools, the model ends with a plan you approve to run",
        values: none,
        run: |app, arg| app.plan_command(arg),
    },
    SlashCommand {
        name: "commands",
        aliases: &[],
        args: "",
        help: "load the custom commands again (.loom/commands/, ~/.config/loom/commands/, …) and list them",
        values: none,
        run: |app, _| app.reload_custom(),
    },
    SlashCommand {
        name: "status",
        aliases: &[],
        args: "",
        help: "a card: model and window, tokens, approval mode, sandbox, servers, session",
        values: none,
        run: super::status_card::status_command,
    },
    SlashCommand {
        name: "review",
        aliases: &[],
        args: super::review::REVIEW_ARGS,
        help: "review the uncommitted changes (or a branch, a commit) in read-only mode; findings listed",
        values: none,
        run: super::review::review_command,
    },
];

/// The command a name (without the slash) means.
pub fn find(name: &str) -> Option<&'static SlashCommand> {
    COMMANDS
        .iter()
        .find(|c| c.name == name || c.aliases.contains(&name))
}

/// One line of the slash popup: what Tab puts in the message box, and what is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suggestion {
    /// The whole line it completes to ("/theme", "/theme light").
    pub line: String,
    /// The left column ("/theme [NAME]", "light").
    pub label: String,
    /// The one-line help ("" for argument values).
    pub help: String,
}

/// What fits a partly typed line: commands whose name starts with what is typed (then
/// those that merely contain it), or, after the name and a space, the argument values
/// that start with what follows.
pub fn suggestions(app: &App, line: &str) -> Vec<Suggestion> {
    let Some(rest) = line.strip_prefix('/') else {
        return Vec::new();
    };
    if line.contains('\n') {
        return Vec::new();
    }
    match rest.split_once(' ') {
        None => {
            let command = |c: &SlashCommand| Suggestion {
                line: format!("/{}", c.name),
                label: c.synopsis(),
                help: c.help.to_string(),
            };
            let starts = COMMANDS.iter().filter(|c| c.name.starts_with(rest));
            let contains = COMMANDS
                .iter()
                .filter(|c| !c.name.starts_with(rest) && c.name.contains(rest));
            let mut all: Vec<Suggestion> = starts.chain(contains).map(command).collect();
            // Custom commands come after the built-ins (which they never shadow).
            all.extend(
                app.draft
                    .custom
                    .fitting(rest)
                    .into_iter()
                    .map(|c| Suggestion {
                        line: format!("/{}", c.name),
                        label: match &c.argument_hint {
                            Some(h) => format!("/{} {h}", c.name),
                            None => format!("/{}", c.name),
                        },
                        help: format!("{} ({})", c.description, c.scope.label()),
                    }),
            );
            all
        }
        Some((name, arg)) => match find(name) {
            Some(c) => {
                let typed = arg.trim_start();
                (c.values)(app)
                    .into_iter()
                    .filter(|v| v.starts_with(typed) && v != typed)
                    .map(|v| Suggestion {
                        line: format!("/{} {v}", c.name),
                        label: v,
                        help: String::new(),
                    })
                    .collect()
            }
            None => Vec::new(),
        },
    }
}

/// Completions of a partly typed line (`/th` → `/theme`, `/theme l` → `/theme light`),
/// each a whole line.
pub fn complete(app: &App, line: &str) -> Vec<String> {
    suggestions(app, line).into_iter().map(|s| s.line).collect()
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
            None if self.draft.custom.runs(name) => self.run_custom(name, arg),
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
    match crate::protocol::memory::MemoryCommand::parse(arg) {
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
    app.progress.clear_plan();
    app.send(UserOp::Clear);
}

fn resume(app: &mut App, _: &str) {
    if app.busy() {
        return app.say(
            NoticeLevel::Error,
            "finish or interrupt (Esc) the current turn first",
        );
    }
    app.open_resume_picker(false);
}

fn model(app: &mut App, arg: &str) {
    if !arg.is_empty() {
        // What the agent would refuse is refused here, before the status line says it:
        // there is no model to switch with no server, and a server that lists its models
        // does not serve one it does not list.
        if app.provider.welcome.is_some() {
            let msg = format!(
                "no model server is connected, so there is no model to switch to; {arg} is not \
                 in use (connect one and start Loom again)"
            );
            return app.say(NoticeLevel::Error, &msg);
        }
        if !app.provider.models.is_empty() && !app.provider.models.iter().any(|m| m == arg) {
            let msg = format!(
                "the server does not offer {arg}; it offers {} (/model lists them)",
                app.provider.models.join(", ")
            );
            return app.say(NoticeLevel::Error, &msg);
        }
        return app.set_model(arg);
    }
    if app.provider.models.is_empty() {
        let why = match &app.provider.models_error {
            Some(e) => format!("the server's models could not be listed: {e}"),
            None => "the server has not listed its models (yet)".to_string(),
        };
        let msg = format!("model: {} ({why}; /model NAME switches)", app.status.model);
        return app.say(NoticeLevel::Info, &msg);
    }
    let current = app.status.model.clone();
    let mut items: Vec<PickItem> = app
        .provider
        .models
        .iter()
        .map(|m| PickItem {
            value: m.clone(),
            note: if *m == current {
                "in use".into()
            } else {
                String::new()
            },
        })
        .collect();
    if !current.is_empty() && !app.provider.models.contains(&current) {
        items.insert(
            0,
            PickItem {
                value: current.clone(),
                note: "in use, not offered by the server".into(),
            },
        );
    }
    let selected = items.iter().position(|i| i.value == current).unwrap_or(0);
    app.layers.push(Box::new(Picker::new(
        "Pick a model",
        items,
        selected,
        Action::SetModel,
    )));
}

fn approval(app: &mut App, arg: &str) {
    if arg.is_empty() {
        let mut msg = format!(
            "approval mode: {} (choices: read-only, supervised, full-auto, plan)",
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
            app.theme.id.name
        );
        app.say(NoticeLevel::Info, &msg);
        return;
    }
    match Theme::load(arg, app.theme.id.depth) {
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
    app.layers.pending_undo = scope;
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

fn mcp(app: &mut App, arg: &str) {
    if app.status.mcp.is_empty() {
        return app.say(
            NoticeLevel::Info,
            "no MCP servers are configured; add one as [mcp_servers.NAME] with `command` or \
             `url` in your config (see docs/mcp.md)",
        );
    }
    let text = match arg.trim() {
        "" => crate::protocol::mcp::overview(&app.status.mcp),
        name => match app.status.mcp.iter().find(|s| s.name == name) {
            Some(s) => crate::protocol::mcp::detail(s),
            None => {
                let names: Vec<&str> = app.status.mcp.iter().map(|s| s.name.as_str()).collect();
                return app.say(
                    NoticeLevel::Warning,
                    &format!("no MCP server `{name}`; configured: {}", names.join(", ")),
                );
            }
        },
    };
    app.say(NoticeLevel::Info, &text);
}

fn lsp(app: &mut App, _arg: &str) {
    if app.status.lsp.is_empty() {
        return app.say(
            NoticeLevel::Info,
            "no language server has been started yet: one starts when a file of its language \
             is edited or checked (see docs/lsp.md)",
        );
    }
    let text = crate::protocol::lsp::overview(&app.status.lsp);
    app.say(NoticeLevel::Info, &text);
}

fn mcp_servers(app: &App) -> Vec<String> {
    app.status.mcp.iter().map(|s| s.name.clone()).collect()
}

fn mouse(app: &mut App, arg: &str) {
    app.outbox.mouse_capture = match arg {
        "" | "on" | "yes" | "true" => true,
        "off" | "no" | "false" => false,
        _ => return app.usage("mouse"),
    };
    let msg = if app.outbox.mouse_capture {
        "mouse captured: the wheel scrolls Loom's panes"
    } else {
        "mouse released: select text with the terminal; scroll with PgUp/PgDn"
    };
    app.say(NoticeLevel::Info, msg);
}

/// What `/init` asks of the model.
pub const INIT_PROMPT: &str = "/init: write an AGENTS.md for this repository, the \
instructions Loom (and other coding agents) read at the start of every session here. Look \
around first (list the files; read the README, the build and CI files and a few central \
sources) and write down what an agent needs and cannot see at a glance: what the project \
is, how to build, test, lint and format it (exact commands), the layout, the conventions \
the code follows, and what to avoid. Be concrete and brief (under 150 lines), no generic \
advice. If AGENTS.md exists, improve it instead of starting over. Write it with write_file \
or your editing tool (the change is shown to me for review).";

fn init(app: &mut App, _: &str) {
    app.transcript.scroll_end();
    app.send(UserOp::Submit {
        text: INIT_PROMPT.to_string(),
        images: Vec::new(),
    });
}

fn copy(app: &mut App, arg: &str) {
    let Some(answer) = app.transcript.last_answer() else {
        return app.say(NoticeLevel::Error, "no answer to copy yet");
    };
    let mut words = arg.split_whitespace();
    let (text, what) = match (words.next(), words.next(), words.next()) {
        (None, ..) => (answer, "the last answer".to_string()),
        (Some("code"), n, None) => {
            let blocks = super::clipboard::code_blocks(&answer);
            if blocks.is_empty() {
                return app.say(NoticeLevel::Error, "the last answer has no code block");
            }
            let count = blocks.len();
            let index = match n.map(str::parse::<usize>) {
                None => count,
                Some(Ok(i)) if (1..=count).contains(&i) => i,
                Some(_) => {
                    let msg =
                        format!("the last answer has {count} code block(s): /copy code 1…{count}");
                    return app.say(NoticeLevel::Error, &msg);
                }
            };
            let what = if count == 1 {
                "the code block".to_string()
            } else {
                format!("code block {index} of {count}")
            };
            (blocks[index - 1].clone(), what)
        }
        _ => return app.usage("copy"),
    };
    if text.len() > super::clipboard::MAX_COPY {
        let msg = format!(
            "{what} is {} KiB, more than a terminal takes at once ({} KiB)",
            text.len() / 1024,
            super::clipboard::MAX_COPY / 1024
        );
        return app.say(NoticeLevel::Error, &msg);
    }
    let lines = text.lines().count();
    // The event loop copies it and says where it went (or why it could not).
    app.outbox.clipboard = Some(super::clipboard::Pending {
        what: format!(
            "{what} ({lines} line{}{})",
            if lines == 1 { "" } else { "s" },
            if what.starts_with("code block ") {
                "; /copy code N picks another"
            } else {
                ""
            }
        ),
        text,
    });
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
        let (app, _rx) = crate::test_support::app("dark");
        let complete = |line: &str| complete(&app, line);
        assert_eq!(complete("/th"), ["/theme"]);
        assert_eq!(complete("/a")[..2], ["/approval", "/autocommit"]);
        assert_eq!(complete("/approval s"), ["/approval supervised"]);
        assert_eq!(
            complete("/autocommit "),
            ["/autocommit on", "/autocommit off"]
        );
        assert!(complete("/theme l").contains(&"/theme light".to_string()));
        assert!(complete("/nothing ").is_empty());
        assert!(complete("plain text").is_empty());
        assert_eq!(
            complete("/model "),
            ["/model qwen2.5-coder:14b"],
            "the configured model is offered"
        );
    }

    /// Regression (issue 25): `/model foo` was refused, yet the status line then showed
    /// `foo`. A model the server does not list, or any model with no server, is refused
    /// before anything changes.
    #[test]
    fn a_refused_model_never_reaches_the_status_line() {
        let (mut app, mut rx) = crate::test_support::app("dark");
        app.provider.models = vec!["alpha-7b".into(), "beta-13b".into()];
        app.submit("/model foo");
        assert_eq!(app.status.model, "qwen2.5-coder:14b");
        assert!(rx.try_recv().is_err(), "nothing sent to the agent");
        app.submit("/model beta-13b");
        assert_eq!(app.status.model, "beta-13b");
        assert_eq!(
            rx.try_recv().ok(),
            Some(UserOp::SetModel {
                model: "beta-13b".into()
            })
        );
        let (mut app, mut rx) = crate::test_support::app("dark");
        app.provider.welcome = Some(crate::test_support::how_to_configure());
        app.submit("/model foo");
        assert_ne!(app.status.model, "foo");
        assert!(rx.try_recv().is_err());
    }

    /// Regression (issue 11): `/undo`'s usage differed between its error and `/help`.
    #[test]
    fn usage_errors_and_help_show_the_same_synopsis() {
        let undo = find("undo").unwrap();
        assert_eq!(undo.usage(), "usage: /undo [turn|all|#N]");
        assert_eq!(undo.synopsis(), "/undo [turn|all|#N]");
    }
}
