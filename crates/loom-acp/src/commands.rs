//! The slash commands a client is told of (`available_commands_update`) and runs by sending
//! them as a prompt: only those Loom's agent answers by itself, between turns.

use agent_client_protocol::v1::schema::{AvailableCommand, AvailableCommandsUpdate, SessionUpdate};
use loom_core::agent::UserOp;
use loom_protocol::changes::Scope;

/// The update advertising the commands.
pub fn advertised() -> SessionUpdate {
    SessionUpdate::AvailableCommandsUpdate(AvailableCommandsUpdate::new(vec![
        AvailableCommand::new("undo", "Take back Loom's last file change (as `loom undo`)"),
    ]))
}

/// The op a prompt stands for when it is one of the commands (`/undo`), else `None`.
pub fn parse(prompt: &str) -> Option<UserOp> {
    match prompt.trim() {
        "/undo" => Some(UserOp::Undo {
            scope: Scope::Last,
            apply: true,
            force: false,
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_whole_command_is_one() {
        assert!(matches!(
            parse(" /undo\n"),
            Some(UserOp::Undo { apply: true, .. })
        ));
        assert_eq!(parse("/undo the last two"), None);
        assert_eq!(parse("please /undo"), None);
    }
}
