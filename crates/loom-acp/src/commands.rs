//! The slash commands a client is told of (`available_commands_update`) and runs by sending
//! them as a prompt: those Loom's agent answers by itself between turns (`/undo`), and the
//! workspace's custom commands (`.loom/commands/*.md`, docs/commands.md), whose expanded
//! prompt is the turn's. A built-in wins over a custom command of the same name.

use std::sync::Mutex;

use agent_client_protocol::Error;
use agent_client_protocol::v1::schema::{
    AvailableCommand, AvailableCommandInput, AvailableCommandsUpdate, SessionUpdate,
    UnstructuredCommandInput,
};
use loom_core::agent::UserOp;
use loom_protocol::changes::Scope;
use loom_protocol::custom_command::CustomCommandInfo;

/// Loom's own commands, answered without the model.
const BUILT_IN: &[&str] = &["undo"];

/// A session's custom commands as the agent last listed them, and whether the client knows
/// the session yet (so an update is only sent once it does, and every later list is sent).
#[derive(Default)]
pub struct Advertised {
    state: Mutex<(Vec<CustomCommandInfo>, bool)>,
}

impl Advertised {
    /// The agent listed the custom commands: keep them, and tell the client when it
    /// already knows the session (`send` sends the update).
    pub fn set(
        &self,
        commands: Vec<CustomCommandInfo>,
        send: impl FnOnce(SessionUpdate) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.0 = commands;
        // Sent under the lock, so a list and `tell` never overtake each other.
        if state.1 {
            send(update(&state.0))
        } else {
            Ok(())
        }
    }

    /// The client knows the session now: tell it the commands (and every later list).
    pub fn tell(&self, send: impl FnOnce(SessionUpdate) -> Result<(), Error>) -> Result<(), Error> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.1 = true;
        send(update(&state.0))
    }

    /// The op a prompt stands for when it names a command (`/undo`, `/name args`), else
    /// `None` (it is sent to the model as written).
    pub fn parse(&self, prompt: &str) -> Option<UserOp> {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        parse(prompt, &state.0)
    }
}

/// The update advertising the built-in commands and `custom`, with their argument hints.
fn update(custom: &[CustomCommandInfo]) -> SessionUpdate {
    let mut commands = vec![AvailableCommand::new(
        "undo",
        "Take back Loom's last file change (as `loom undo`)",
    )];
    for c in custom
        .iter()
        .filter(|c| !BUILT_IN.contains(&c.name.as_str()))
    {
        let hint = c
            .argument_hint
            .as_ref()
            .map(|h| AvailableCommandInput::Unstructured(UnstructuredCommandInput::new(h.clone())));
        commands.push(AvailableCommand::new(c.name.clone(), c.description.clone()).input(hint));
    }
    SessionUpdate::AvailableCommandsUpdate(AvailableCommandsUpdate::new(commands))
}

/// The op `prompt` stands for: `/undo` alone, or `/name arguments` for a custom command in
/// `custom` (the arguments are the rest of the prompt, trimmed).
fn parse(prompt: &str, custom: &[CustomCommandInfo]) -> Option<UserOp> {
    let prompt = prompt.trim();
    if prompt == "/undo" {
        return Some(UserOp::Undo {
            scope: Scope::Last,
            apply: true,
            force: false,
        });
    }
    let rest = prompt.strip_prefix('/')?;
    let (name, arguments) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    if BUILT_IN.contains(&name) || !custom.iter().any(|c| c.name == name) {
        return None;
    }
    Some(UserOp::RunCustomCommand {
        name: name.to_string(),
        arguments: arguments.trim().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use loom_protocol::custom_command::CommandScope;

    fn info(name: &str, hint: Option<&str>) -> CustomCommandInfo {
        CustomCommandInfo {
            name: name.into(),
            description: format!("does {name}"),
            argument_hint: hint.map(str::to_string),
            scope: CommandScope::Project,
            file: format!(".loom/commands/{name}.md"),
        }
    }

    #[test]
    fn only_a_whole_command_is_one() {
        assert!(matches!(
            parse(" /undo\n", &[]),
            Some(UserOp::Undo { apply: true, .. })
        ));
        assert_eq!(parse("/undo the last two", &[]), None);
        assert_eq!(parse("please /undo", &[]), None);
    }

    /// A known custom command runs with the rest as its arguments; an unknown name, a
    /// built-in's name and a slash inside the text are left for the model.
    #[test]
    fn a_known_custom_command_runs_with_its_arguments() {
        let custom = [info("review", Some("[file]")), info("undo", None)];
        assert_eq!(
            parse("/review  src/a.rs\nclosely ", &custom),
            Some(UserOp::RunCustomCommand {
                name: "review".into(),
                arguments: "src/a.rs\nclosely".into()
            })
        );
        assert_eq!(
            parse("/review", &custom),
            Some(UserOp::RunCustomCommand {
                name: "review".into(),
                arguments: String::new()
            })
        );
        assert_eq!(parse("/reviewer x", &custom), None);
        assert_eq!(parse("see /review", &custom), None);
        assert!(matches!(parse("/undo", &custom), Some(UserOp::Undo { .. })));
        assert_eq!(parse("/undo x", &custom), None);
    }

    /// The update lists `/undo` and the custom commands with their hints, a custom one
    /// named like a built-in left out; nothing is sent before the client knows the session.
    #[test]
    fn the_update_lists_the_custom_commands_once_told() {
        let ad = Advertised::default();
        let sent = std::cell::RefCell::new(Vec::new());
        let send = |u: SessionUpdate| {
            sent.borrow_mut().push(u);
            Ok(())
        };
        ad.set(vec![info("review", Some("[file]"))], send).unwrap();
        assert!(sent.borrow().is_empty());
        ad.tell(send).unwrap();
        ad.set(vec![info("undo", None), info("fix", None)], send)
            .unwrap();
        let names: Vec<Vec<(String, Option<String>)>> = sent
            .borrow()
            .iter()
            .map(|u| match u {
                SessionUpdate::AvailableCommandsUpdate(c) => c
                    .available_commands
                    .iter()
                    .map(|c| {
                        let hint = c.input.as_ref().map(|i| match i {
                            AvailableCommandInput::Unstructured(u) => u.hint.clone(),
                            _ => String::new(),
                        });
                        (c.name.clone(), hint)
                    })
                    .collect(),
                _ => Vec::new(),
            })
            .collect();
        let row = |n: &str, h: Option<&str>| (n.to_string(), h.map(str::to_string));
        assert_eq!(
            names,
            vec![
                vec![row("undo", None), row("review", Some("[file]"))],
                vec![row("undo", None), row("fix", None)],
            ]
        );
    }
}
