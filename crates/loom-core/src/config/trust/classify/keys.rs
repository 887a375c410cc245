//! The project settings that loosen one key each: the project's value compared with the
//! person's own configuration, kept when it loosens nothing (used by [`super::split`], in
//! the order the loosenings are listed).

use std::path::PathBuf;

use super::{Loosening, joined, loosening};
use crate::config::file_keys::SandboxKeys;
use crate::config::hooks::HookEvent;
use crate::config::lsp::LspConfig;
use crate::config::{DEFAULT_API_KEY_ENV, EventHookConfig, FileConfig, HooksConfig};
use loom_sandbox::SandboxMode;

/// A model server other than `user`'s loosens.
pub(super) fn split_base_url(
    user: &FileConfig,
    base_url: Option<String>,
    loose: &mut Vec<Loosening>,
) -> Option<String> {
    match base_url {
        Some(url) if Some(&url) != user.provider.base_url.as_ref() => {
            loose.push(loosening(
                "base_url",
                format!("sends your prompts, code and API key to {url}"),
            ));
            None
        }
        other => other,
    }
}

/// Reading the API key from a variable other than `user`'s loosens.
pub(super) fn split_api_key_env(
    user: &FileConfig,
    api_key_env: Option<String>,
    loose: &mut Vec<Loosening>,
) -> Option<String> {
    let user_key = user
        .provider
        .api_key_env
        .as_deref()
        .unwrap_or(DEFAULT_API_KEY_ENV);
    match api_key_env {
        Some(name) if name != user_key => {
            loose.push(loosening(
                "api_key_env",
                format!("sends the value of ${name} to the model server as the API key"),
            ));
            None
        }
        other => other,
    }
}

/// Switching the sandbox off, unless `user` did, loosens.
pub(super) fn split_sandbox(
    user: &FileConfig,
    sandbox: Option<String>,
    loose: &mut Vec<Loosening>,
) -> Option<String> {
    let user_sandbox = user.sandbox.sandbox.as_deref().and_then(SandboxMode::parse);
    match sandbox {
        Some(s)
            if SandboxMode::parse(&s) == Some(SandboxMode::Off)
                && user_sandbox != Some(SandboxMode::Off) =>
        {
            loose.push(loosening("sandbox", "switches the command sandbox off"));
            None
        }
        other => other,
    }
}

/// Writable directories `user` does not name loosen.
pub(super) fn split_writable(
    user: &FileConfig,
    sandbox_writable: Option<Vec<PathBuf>>,
    loose: &mut Vec<Loosening>,
) -> Option<Vec<PathBuf>> {
    let user_dirs = user.sandbox.sandbox_writable.clone().unwrap_or_default();
    match sandbox_writable {
        Some(dirs) if dirs.iter().any(|d| !user_dirs.contains(d)) => {
            let new: Vec<&PathBuf> = dirs.iter().filter(|d| !user_dirs.contains(d)).collect();
            loose.push(loosening(
                "sandbox_writable",
                format!(
                    "lets commands write in {}",
                    joined(new.iter().map(|d| d.display()))
                ),
            ));
            None
        }
        other => other,
    }
}

/// A setting that loosens when the project switches it on where the person's own config
/// has it off: its key, and what it lets happen.
pub(super) struct Switch(&'static str, &'static str);

/// `network`.
pub(super) const NETWORK: Switch = Switch("network", "lets sandboxed commands use the network");
/// `sandbox_keep_capabilities`.
pub(super) const KEEP_CAPABILITIES: Switch = Switch(
    "sandbox_keep_capabilities",
    "lets sandboxed commands run as root keep root's capabilities",
);
/// `auto_commit`.
pub(super) const AUTO_COMMIT: Switch = Switch(
    "auto_commit",
    "commits the files Loom changes in your repository",
);

/// The project's `value` of `switch`, kept unless it turns on what `user_value` leaves off.
pub(super) fn split_switch(
    user_value: Option<bool>,
    value: Option<bool>,
    switch: &Switch,
    loose: &mut Vec<Loosening>,
) -> Option<bool> {
    match value {
        Some(true) if user_value != Some(true) => {
            loose.push(loosening(switch.0, switch.1));
            None
        }
        other => other,
    }
}

/// Hooks run commands: each one loosens, post-tools hooks and event hooks alike
/// (`split` destructures the table, so a new event does not compile until it is here).
pub(super) fn split_hooks(hooks: HooksConfig, loose: &mut Vec<Loosening>) -> HooksConfig {
    let HooksConfig {
        post_tools,
        session_start,
        user_prompt_submit,
        pre_tool_use,
        post_tool_use,
        stop,
        notification,
    } = hooks;
    let post_tools = match post_tools {
        Some(list) if !list.is_empty() => {
            for h in &list {
                loose.push(loosening(
                    "hooks.post_tools",
                    format!("runs `{}` after every change", h.command),
                ));
            }
            None
        }
        other => other,
    };
    let mut event = |list: Option<Vec<EventHookConfig>>, event: HookEvent| match list {
        Some(list) if !list.is_empty() => {
            for h in &list {
                loose.push(loosening(
                    &format!("hooks.{}", event.name()),
                    format!("runs `{}` on every {} event", h.command, event.name()),
                ));
            }
            None
        }
        other => other,
    };
    HooksConfig {
        post_tools,
        session_start: event(session_start, HookEvent::SessionStart),
        user_prompt_submit: event(user_prompt_submit, HookEvent::UserPromptSubmit),
        pre_tool_use: event(pre_tool_use, HookEvent::PreToolUse),
        post_tool_use: event(post_tool_use, HookEvent::PostToolUse),
        stop: event(stop, HookEvent::Stop),
        notification: event(notification, HookEvent::Notification),
    }
}

/// Language servers the project starts or changes loosen (unless the person's own table of
/// that name is the same); switching servers off never does, switching them back on when
/// the person switched them off does.
pub(super) fn split_lsp(
    user: &FileConfig,
    lsp: LspConfig,
    loose: &mut Vec<Loosening>,
) -> Option<LspConfig> {
    let servers = match lsp {
        LspConfig::Switch(false) => return Some(LspConfig::Switch(false)),
        LspConfig::Switch(true) => {
            if user.integrations.lsp == Some(LspConfig::Switch(false)) {
                loose.push(loosening(
                    "lsp",
                    "starts the language servers you switched off",
                ));
                return None;
            }
            return Some(LspConfig::Switch(true));
        }
        LspConfig::Servers(servers) => servers,
    };
    let mine = match &user.integrations.lsp {
        Some(LspConfig::Servers(m)) => m.clone(),
        _ => Default::default(),
    };
    let mut kept = std::collections::BTreeMap::new();
    for (name, table) in servers {
        if table.only_disables() || mine.get(&name) == Some(&table) {
            kept.insert(name, table);
            continue;
        }
        let line: Vec<&str> = table
            .command
            .iter()
            .chain(table.args.iter().flatten())
            .map(String::as_str)
            .collect();
        let what = if line.is_empty() {
            format!("changes how the language server `{name}` is started or what it reads")
        } else {
            format!("starts the language server `{name}`: `{}`", line.join(" "))
        };
        loose.push(loosening("lsp", what));
    }
    (!kept.is_empty()).then_some(LspConfig::Servers(kept))
}

/// The sandbox keys that apply without trust: switching the sandbox off, writable
/// directories, the network or root's capabilities beyond the person's own loosen (in that
/// order).
pub(super) fn split_sandbox_keys(
    user: &FileConfig,
    sandbox: SandboxKeys,
    loose: &mut Vec<Loosening>,
) -> SandboxKeys {
    let SandboxKeys {
        sandbox,
        sandbox_writable,
        network,
        sandbox_keep_capabilities,
    } = sandbox;
    let mine = &user.sandbox;
    SandboxKeys {
        sandbox: split_sandbox(user, sandbox, loose),
        sandbox_writable: split_writable(user, sandbox_writable, loose),
        network: split_switch(mine.network, network, &NETWORK, loose),
        sandbox_keep_capabilities: split_switch(
            mine.sandbox_keep_capabilities,
            sandbox_keep_capabilities,
            &KEEP_CAPABILITIES,
            loose,
        ),
    }
}

/// A notification program other than the person's own loosens: it runs when a turn ends
/// or an approval waits.
pub(super) fn split_notify_command(
    user: &FileConfig,
    notify_command: Option<Vec<String>>,
    loose: &mut Vec<Loosening>,
) -> Option<Vec<String>> {
    notify_command.and_then(|argv| {
        if user.ui.notify_command.as_ref() == Some(&argv) {
            return Some(argv);
        }
        let what = format!(
            "runs `{}` when a turn ends or an approval waits",
            argv.join(" ")
        );
        loose.push(loosening("notify_command", what));
        None
    })
}
