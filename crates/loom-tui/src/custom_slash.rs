//! Custom slash commands in the TUI: the list the agent sends (it loads the files; the TUI
//! only shows and asks), offered in the `/` popup after the built-ins, and run by asking
//! the agent ([`UserOp::RunCustomCommand`]). A built-in always wins over a custom command
//! of the same name; the custom one is hidden, with a warning the first time it is seen.

use std::collections::HashSet;

use super::app::App;
use super::slash::Suggestion;
use super::transcript::NoticeLevel;
use crate::protocol::custom_command::CustomCommandInfo;
use crate::protocol::events::UserOp;

/// The custom commands the agent listed, without those a built-in hides.
#[derive(Debug, Default)]
pub struct CustomSlash {
    /// The commands offered, by name.
    pub commands: Vec<CustomCommandInfo>,
    /// Names already warned about as hidden by a built-in, and the agent's warnings
    /// already shown (each is said once, unless `/commands` asks).
    warned: HashSet<String>,
    /// Whether the agent's list has come (until it has, an unknown `/name` is passed to the
    /// agent, which knows its commands from the start).
    pub loaded: bool,
}

impl CustomSlash {
    /// Take a new list; the notices to show (hidden commands, the first time each).
    pub fn set(&mut self, commands: Vec<CustomCommandInfo>) -> Vec<String> {
        let mut notices = Vec::new();
        self.loaded = true;
        self.commands.clear();
        for c in commands {
            if super::slash::find(&c.name).is_some() {
                if self.warned.insert(c.name.clone()) {
                    notices.push(format!(
                        "the custom command /{} ({}) is hidden: the built-in /{} wins; rename \
                         the file to use it",
                        c.name, c.file, c.name
                    ));
                }
                continue;
            }
            self.commands.push(c);
        }
        notices
    }

    /// The command called `name`, if there is one.
    pub fn find(&self, name: &str) -> Option<&CustomCommandInfo> {
        self.commands.iter().find(|c| c.name == name)
    }

    /// Whether `/name` (no built-in) goes to the agent: a listed command, or any name
    /// before the list has come.
    pub fn runs(&self, name: &str) -> bool {
        !self.loaded || self.find(name).is_some()
    }

    /// The popup's lines for a typed `rest` (after the slash): names that start with it,
    /// then names that contain it.
    pub fn suggestions(&self, rest: &str) -> Vec<Suggestion> {
        let line = |c: &CustomCommandInfo| Suggestion {
            line: format!("/{}", c.name),
            label: match &c.argument_hint {
                Some(h) => format!("/{} {h}", c.name),
                None => format!("/{}", c.name),
            },
            help: format!("{} ({})", c.description, c.scope.label()),
        };
        let starts = self.commands.iter().filter(|c| c.name.starts_with(rest));
        let contains = self
            .commands
            .iter()
            .filter(|c| !c.name.starts_with(rest) && c.name.contains(rest));
        starts.chain(contains).map(line).collect()
    }
}

impl App {
    /// The agent listed the custom commands (at start, or after `/commands`).
    pub(crate) fn on_custom_commands(
        &mut self,
        commands: Vec<CustomCommandInfo>,
        warnings: Vec<String>,
    ) {
        let listing = std::mem::take(&mut self.draft.custom_listing);
        let custom = &mut self.draft.custom;
        let mut notices = custom.set(commands);
        let fresh: Vec<String> = warnings
            .into_iter()
            .filter(|w| custom.warned.insert(format!("file: {w}")) || listing)
            .collect();
        notices.extend(fresh);
        for notice in notices {
            self.transcript.push_notice(NoticeLevel::Warning, &notice);
        }
        if listing {
            let text = self.custom_list_text();
            self.transcript.push_notice(NoticeLevel::Info, &text);
        }
    }

    /// The list `/commands` shows.
    fn custom_list_text(&self) -> String {
        let commands = &self.draft.custom.commands;
        if commands.is_empty() {
            return "No custom commands: put Markdown files in .loom/commands/ or \
                    ~/.config/loom/commands/ (docs/commands.md)"
                .into();
        }
        let mut text = format!("{} custom command(s):", commands.len());
        for c in commands {
            let hint = c
                .argument_hint
                .as_deref()
                .map(|h| format!(" {h}"))
                .unwrap_or_default();
            text.push_str(&format!(
                "\n  /{}{hint} — {} ({})",
                c.name, c.description, c.file
            ));
        }
        text
    }

    /// `/commands`: load the commands again and list them when they arrive.
    pub(crate) fn reload_custom(&mut self) {
        self.draft.custom_listing = true;
        self.send(UserOp::ListCustomCommands);
    }

    /// Run the custom command `name` with `arguments` (between turns only).
    pub(crate) fn run_custom(&mut self, name: &str, arguments: &str) {
        if self.busy() {
            let msg = format!("/{name} runs between turns: wait for this one or stop it (Esc)");
            self.transcript.push_notice(NoticeLevel::Error, &msg);
            let line = format!("/{name} {arguments}");
            self.composer.set_text(line.trim_end());
            return;
        }
        self.transcript.scroll_end();
        self.send(UserOp::RunCustomCommand {
            name: name.to_string(),
            arguments: arguments.to_string(),
        });
    }
}
