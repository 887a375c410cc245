//! The events hooks run on, named as in Claude Code so its hook scripts work unchanged
//! (defined with the config that names them).

pub use crate::config::hooks::HookEvent;
