//! What a tool call will touch, as the tool describes it from its typed arguments: the
//! paths it reads or writes, the command it runs, the request it makes, the MCP tool, the
//! scheduled job or the global memory it changes. The policy judges only this (`loom-policy`
//! decides; see its `call` module), and the agent's events carry it to the front ends.

use serde::{Deserialize, Serialize};

use crate::autonomy::Autonomy;
use crate::tool_kind::ToolKind;

/// A shell command a call would run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandIntent {
    /// The command line.
    pub command: String,
    /// Working directory relative to the workspace root (`None`: the root).
    pub cwd: Option<String>,
    /// Whether the call asks to run outside the sandbox.
    pub outside_sandbox: bool,
}

/// How a network call uses the network: the policy judges each differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NetAccess {
    /// A query sent to the configured search provider.
    Search,
    /// A page read (GET) from a URL.
    Fetch,
    /// An API request: any method, headers and body.
    Request,
    /// A page driven in the browser: opened (`OPEN`), read (`READ`), clicked or typed into
    /// (`INTERACT`), or running the model's JavaScript (`EVAL`).
    Browse,
}

impl NetAccess {
    /// The tool that makes this kind of call, for messages.
    pub fn tool(self) -> &'static str {
        match self {
            NetAccess::Search => "web_search",
            NetAccess::Fetch => "web_fetch",
            NetAccess::Request => "http_request",
            NetAccess::Browse => "browser",
        }
    }
}

/// Where a network call goes, as the tool describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetworkIntent {
    /// The kind of access.
    pub access: NetAccess,
    /// The host the call reaches first (lowercase); grants and `allowed_domains` match it.
    pub domain: String,
    /// The HTTP method.
    pub method: String,
    /// The URL, with credentials masked (safe to show and record).
    pub url: String,
}

/// A call to a tool of a Model Context Protocol server: what Loom knows of it is only what
/// the server says, so the policy judges it by name and configured rules.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpIntent {
    /// The server's configured name.
    pub server: String,
    /// The tool's name on that server.
    pub tool: String,
    /// Whether the server annotates the tool as only reading (`readOnlyHint`): shown to the
    /// person, never trusted on its own.
    #[serde(default)]
    pub read_only_hint: bool,
    /// The arguments in one short line, for tool rows.
    #[serde(default)]
    pub summary: String,
}

/// A change to the person's scheduled jobs (`cron_add`, `cron_remove`): work that will run
/// later with nobody at the keyboard, so the policy judges it as its own class.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum ScheduleIntent {
    /// Add a job.
    Add {
        /// The cron expression.
        schedule: String,
        /// What the job will ask the model, every time it runs.
        prompt: String,
        /// The approval mode the job will run with.
        approval: Autonomy,
    },
    /// Remove a job.
    Remove {
        /// The job's id.
        id: String,
        /// The job, in one line (`schedule: prompt`), as the store had it when the call
        /// was described.
        job: String,
    },
}

/// A note stored in long-term memory for every workspace (the global scope). It reaches the
/// system prompt of every later session, in any workspace, so unlike a note for this
/// workspace it is the policy's to judge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GlobalMemory {
    /// The note's key.
    pub key: String,
    /// What it says.
    pub content: String,
}

/// What one tool call will touch, as the tool describes it from its parsed arguments: one
/// variant per kind of effect, so a call that runs a command always says which.
///
/// On the wire (events, `loom exec --json`) it keeps the shape it had as a struct:
/// `{"kind": "execute", "command": {...}}`, `{"kind": "read", "reads": [...]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "IntentWire", try_from = "IntentWire")]
pub enum CallIntent {
    /// Reads these paths, as given (workspace-relative or absolute); none for a call that
    /// touches only Loom's own data.
    Reads(Vec<String>),
    /// Creates, changes or deletes these paths, as given.
    Writes(Vec<String>),
    /// Runs a shell command.
    Runs(CommandIntent),
    /// Uses the network (boxed, like the variants below: most calls are reads and writes,
    /// and the intent travels inside every tool-call event).
    Network(Box<NetworkIntent>),
    /// Calls a tool of an MCP server.
    Mcp(Box<McpIntent>),
    /// Adds or removes a scheduled job.
    Schedule(Box<ScheduleIntent>),
    /// Keeps a note in memory for every workspace (`memory_store` in the global scope).
    GlobalMemory(Box<GlobalMemory>),
}

/// [`CallIntent`] as it is written: the kind and the one part it has.
#[derive(Serialize, Deserialize)]
struct IntentWire {
    kind: ToolKind,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    reads: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    writes: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    command: Option<CommandIntent>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    network: Option<Box<NetworkIntent>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mcp: Option<Box<McpIntent>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    schedule: Option<Box<ScheduleIntent>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    global_memory: Option<Box<GlobalMemory>>,
}

impl From<CallIntent> for IntentWire {
    fn from(intent: CallIntent) -> IntentWire {
        let mut wire = IntentWire {
            kind: intent.kind(),
            reads: Vec::new(),
            writes: Vec::new(),
            command: None,
            network: None,
            mcp: None,
            schedule: None,
            global_memory: None,
        };
        match intent {
            CallIntent::Reads(paths) => wire.reads = paths,
            CallIntent::Writes(paths) => wire.writes = paths,
            CallIntent::Runs(c) => wire.command = Some(c),
            CallIntent::Network(n) => wire.network = Some(n),
            CallIntent::Mcp(m) => wire.mcp = Some(m),
            CallIntent::Schedule(s) => wire.schedule = Some(s),
            CallIntent::GlobalMemory(g) => wire.global_memory = Some(g),
        }
        wire
    }
}

impl TryFrom<IntentWire> for CallIntent {
    type Error = String;
    fn try_from(w: IntentWire) -> Result<CallIntent, String> {
        Ok(match w.kind {
            ToolKind::Read => match w.global_memory {
                Some(g) => CallIntent::GlobalMemory(g),
                None => CallIntent::Reads(w.reads),
            },
            ToolKind::Write => CallIntent::Writes(w.writes),
            ToolKind::Execute => CallIntent::Runs(w.command.ok_or("a command without `command`")?),
            ToolKind::Network => {
                CallIntent::Network(w.network.ok_or("a network call without `network`")?)
            }
            ToolKind::Mcp => CallIntent::Mcp(w.mcp.ok_or("an MCP call without `mcp`")?),
            ToolKind::Schedule => {
                CallIntent::Schedule(w.schedule.ok_or("a schedule call without `schedule`")?)
            }
        })
    }
}

impl CallIntent {
    /// A call that reads `paths`.
    pub fn reads(paths: impl IntoIterator<Item = String>) -> CallIntent {
        CallIntent::Reads(paths.into_iter().collect())
    }

    /// A call that writes `path`.
    pub fn writes(path: impl Into<String>) -> CallIntent {
        CallIntent::Writes(vec![path.into()])
    }

    /// A call that runs `command`.
    pub fn runs(command: CommandIntent) -> CallIntent {
        CallIntent::Runs(command)
    }

    /// A call that uses the network as `network` says.
    pub fn network(network: NetworkIntent) -> CallIntent {
        CallIntent::Network(Box::new(network))
    }

    /// A call to the MCP tool `intent` describes.
    pub fn calls_mcp(intent: McpIntent) -> CallIntent {
        CallIntent::Mcp(Box::new(intent))
    }

    /// A call that adds or removes a scheduled job as `intent` says.
    pub fn schedules(intent: ScheduleIntent) -> CallIntent {
        CallIntent::Schedule(Box::new(intent))
    }

    /// A call that keeps `key: content` in memory for every workspace.
    pub fn stores_global_memory(key: String, content: String) -> CallIntent {
        CallIntent::GlobalMemory(Box::new(GlobalMemory { key, content }))
    }

    /// The kind of effect.
    pub fn kind(&self) -> ToolKind {
        match self {
            CallIntent::Reads(_) | CallIntent::GlobalMemory(_) => ToolKind::Read,
            CallIntent::Writes(_) => ToolKind::Write,
            CallIntent::Runs(_) => ToolKind::Execute,
            CallIntent::Network(_) => ToolKind::Network,
            CallIntent::Mcp(_) => ToolKind::Mcp,
            CallIntent::Schedule(_) => ToolKind::Schedule,
        }
    }

    /// The paths the call reads.
    pub fn read_paths(&self) -> &[String] {
        match self {
            CallIntent::Reads(paths) => paths,
            _ => &[],
        }
    }

    /// The paths the call creates, changes or deletes.
    pub fn written_paths(&self) -> &[String] {
        match self {
            CallIntent::Writes(paths) => paths,
            _ => &[],
        }
    }

    /// The command it runs, for commands.
    pub fn as_command(&self) -> Option<&CommandIntent> {
        match self {
            CallIntent::Runs(c) => Some(c),
            _ => None,
        }
    }

    /// Where it goes, for network calls.
    pub fn as_network(&self) -> Option<&NetworkIntent> {
        match self {
            CallIntent::Network(n) => Some(n),
            _ => None,
        }
    }

    /// The MCP server tool it calls, for MCP tools.
    pub fn as_mcp(&self) -> Option<&McpIntent> {
        match self {
            CallIntent::Mcp(m) => Some(m),
            _ => None,
        }
    }

    /// The scheduled job it adds or removes, for the cron tools.
    pub fn as_schedule(&self) -> Option<&ScheduleIntent> {
        match self {
            CallIntent::Schedule(s) => Some(s),
            _ => None,
        }
    }

    /// The note it keeps for every workspace.
    pub fn as_global_memory(&self) -> Option<&GlobalMemory> {
        match self {
            CallIntent::GlobalMemory(g) => Some(g),
            _ => None,
        }
    }

    /// The intent as it may be recorded and shown in events: the credentials in its command
    /// line, MCP summary, job prompt and global note masked ([`loom_base::secrets::mask_text`]). The policy
    /// judges the intent itself: a masked value could hide what a command runs.
    pub fn shown(&self) -> CallIntent {
        let mask = |s: &str| loom_base::secrets::mask_text(s).into_owned();
        let mut shown = self.clone();
        match &mut shown {
            CallIntent::Runs(c) => c.command = mask(&c.command),
            CallIntent::Mcp(m) => m.summary = mask(&m.summary),
            CallIntent::GlobalMemory(g) => g.content = mask(&g.content),
            CallIntent::Schedule(s) => match s.as_mut() {
                ScheduleIntent::Add { prompt, .. } => *prompt = mask(prompt),
                ScheduleIntent::Remove { job, .. } => *job = mask(job),
            },
            CallIntent::Reads(_) | CallIntent::Writes(_) | CallIntent::Network(_) => {}
        }
        shown
    }

    /// A one-line summary for tool rows: the command, or the paths touched.
    pub fn summary(&self) -> String {
        match self {
            CallIntent::Runs(c) => c.command.lines().next().unwrap_or("").to_string(),
            CallIntent::Network(n) => format!("{} {}", n.method, n.url),
            CallIntent::Mcp(m) => m.summary.clone(),
            CallIntent::Schedule(s) => match s.as_ref() {
                ScheduleIntent::Add {
                    schedule, prompt, ..
                } => format!("{schedule}: {}", prompt.lines().next().unwrap_or("")),
                ScheduleIntent::Remove { id, .. } => id.clone(),
            },
            CallIntent::GlobalMemory(g) => format!(
                "global {}: {}",
                g.key,
                g.content.lines().next().unwrap_or("")
            ),
            CallIntent::Reads(paths) | CallIntent::Writes(paths) => paths.join(", "),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Issue 27: the intent became an enum; events and `loom exec --json` keep the shape it
    /// had as a struct of optional parts, and read it back.
    #[test]
    fn the_wire_shape_of_an_intent_is_unchanged() {
        let cases = [
            (
                CallIntent::reads(["a.rs".to_string()]),
                json!({"kind": "read", "reads": ["a.rs"]}),
            ),
            (CallIntent::reads([]), json!({"kind": "read"})),
            (
                CallIntent::writes("b.rs"),
                json!({"kind": "write", "writes": ["b.rs"]}),
            ),
            (
                CallIntent::runs(CommandIntent {
                    command: "ls".into(),
                    cwd: None,
                    outside_sandbox: true,
                }),
                json!({"kind": "execute", "command": {"command": "ls", "cwd": null, "outside_sandbox": true}}),
            ),
            (
                CallIntent::stores_global_memory("k".into(), "v".into()),
                json!({"kind": "read", "global_memory": {"key": "k", "content": "v"}}),
            ),
        ];
        for (intent, wire) in cases {
            assert_eq!(serde_json::to_value(&intent).unwrap(), wire);
            assert_eq!(serde_json::from_value::<CallIntent>(wire).unwrap(), intent);
        }
    }
}
