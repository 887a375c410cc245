//! Custom slash commands on the screen: the list the agent sends (it loads the files; the
//! screen only shows and asks) is kept in [`CustomSlash`](super::custom_list::CustomSlash),
//! offered in the `/` popup after the built-ins (`slash.rs`), and a command is run by
//! asking the agent ([`UserOp::RunCustomCommand`]). A built-in always wins over a custom
//! command of the same name: the custom one is hidden, with a warning the first time.

use super::app::App;
use super::transcript::NoticeLevel;
use crate::protocol::custom_command::CustomCommandInfo;
use crate::protocol::events::UserOp;

impl App {
    /// The agent listed the custom commands (at start, or after `/commands`).
    pub(crate) fn on_custom_commands(
        &mut self,
        commands: Vec<CustomCommandInfo>,
        warnings: Vec<String>,
    ) {
        let listing = std::mem::take(&mut self.draft.custom_listing);
        let custom = &mut self.draft.custom;
        let mut notices = custom.set(commands, |n| super::slash::find(n).is_some());
        let fresh: Vec<String> = warnings
            .into_iter()
            .filter(|w| custom.fresh_warning(w) || listing)
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
