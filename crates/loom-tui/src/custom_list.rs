//! The custom slash commands the agent listed, as the screen keeps them: which are offered
//! (a built-in of the same name hides one, with a warning said once), and which warnings
//! were already said. What the screen does with them is in `custom_slash.rs`.

use std::collections::HashSet;

use crate::protocol::custom_command::CustomCommandInfo;

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
    /// Take a new list, leaving out the names `built_in` says a built-in has; the notices
    /// to show (hidden commands, the first time each).
    pub fn set(
        &mut self,
        commands: Vec<CustomCommandInfo>,
        built_in: impl Fn(&str) -> bool,
    ) -> Vec<String> {
        let mut notices = Vec::new();
        self.loaded = true;
        self.commands.clear();
        for c in commands {
            if built_in(&c.name) {
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

    /// Whether a warning about a command file is new (each is said once).
    pub fn fresh_warning(&mut self, warning: &str) -> bool {
        self.warned.insert(format!("file: {warning}"))
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

    /// The listed commands whose name starts with `rest`, then those that contain it.
    pub fn fitting(&self, rest: &str) -> Vec<&CustomCommandInfo> {
        let starts = self.commands.iter().filter(|c| c.name.starts_with(rest));
        let contains = self
            .commands
            .iter()
            .filter(|c| !c.name.starts_with(rest) && c.name.contains(rest));
        starts.chain(contains).collect()
    }
}
