//! One call, one shape; one decision, made once.
//!
//! A tool describes what a call will touch as a [`CallIntent`], computed from its parsed,
//! typed arguments (see `Tool::describe`). The policy reads only that — never raw JSON
//! keys — and answers with a [`Ruling`]: the decision together with the assessment behind
//! it (risk, reason, the prefix a session grant would cover, whether a person's approval
//! opens the sandbox's network, whether the workspace is snapshotted first). The agent
//! carries the ruling to the approval prompt and to the runner, which decide nothing.

use serde::{Deserialize, Serialize};

use super::commands::{Classification, Risk};
use super::{Autonomy, Decision, ToolKind};

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

/// What one tool call will touch, as the tool describes it from its parsed arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallIntent {
    /// The kind of effect.
    pub kind: ToolKind,
    /// Paths the call reads, as given (workspace-relative or absolute).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reads: Vec<String>,
    /// Paths the call creates, changes or deletes, as given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub writes: Vec<String>,
    /// The command it runs, for commands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<CommandIntent>,
    /// Where it goes, for network calls (boxed: most calls have none, and the intent
    /// travels inside every tool-call event).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<Box<NetworkIntent>>,
    /// The MCP server tool it calls, for MCP tools (boxed: most calls have none, and
    /// events carrying an intent stay small).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp: Option<Box<McpIntent>>,
    /// The scheduled job it adds or removes, for the cron tools (boxed like the others).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<Box<ScheduleIntent>>,
    /// The note it keeps for every workspace, for `memory_store` in the global scope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub global_memory: Option<Box<GlobalMemory>>,
}

impl CallIntent {
    /// A call that reads `paths`.
    pub fn reads(paths: impl IntoIterator<Item = String>) -> CallIntent {
        CallIntent {
            kind: ToolKind::Read,
            reads: paths.into_iter().collect(),
            writes: Vec::new(),
            command: None,
            network: None,
            mcp: None,
            schedule: None,
            global_memory: None,
        }
    }

    /// A call that writes `path`.
    pub fn writes(path: impl Into<String>) -> CallIntent {
        CallIntent {
            kind: ToolKind::Write,
            reads: Vec::new(),
            writes: vec![path.into()],
            command: None,
            network: None,
            mcp: None,
            schedule: None,
            global_memory: None,
        }
    }

    /// A call that runs `command`.
    pub fn runs(command: CommandIntent) -> CallIntent {
        CallIntent {
            kind: ToolKind::Execute,
            reads: Vec::new(),
            writes: Vec::new(),
            command: Some(command),
            network: None,
            mcp: None,
            schedule: None,
            global_memory: None,
        }
    }

    /// A call that uses the network as `network` says.
    pub fn network(network: NetworkIntent) -> CallIntent {
        CallIntent {
            kind: ToolKind::Network,
            reads: Vec::new(),
            writes: Vec::new(),
            command: None,
            network: Some(Box::new(network)),
            mcp: None,
            schedule: None,
            global_memory: None,
        }
    }

    /// A call to the MCP tool `intent` describes.
    pub fn calls_mcp(intent: McpIntent) -> CallIntent {
        CallIntent {
            kind: ToolKind::Mcp,
            reads: Vec::new(),
            writes: Vec::new(),
            command: None,
            network: None,
            mcp: Some(Box::new(intent)),
            schedule: None,
            global_memory: None,
        }
    }

    /// A call that adds or removes a scheduled job as `intent` says.
    pub fn schedules(intent: ScheduleIntent) -> CallIntent {
        CallIntent {
            kind: ToolKind::Schedule,
            reads: Vec::new(),
            writes: Vec::new(),
            command: None,
            network: None,
            mcp: None,
            schedule: Some(Box::new(intent)),
            global_memory: None,
        }
    }

    /// The intent as it may be recorded and shown in events: the credentials in its command
    /// line, MCP summary, job prompt and global note masked ([`crate::secrets::mask_text`]). The policy
    /// judges the intent itself: a masked value could hide what a command runs.
    pub fn shown(&self) -> CallIntent {
        let mask = |s: &str| crate::secrets::mask_text(s).into_owned();
        let mut shown = self.clone();
        if let Some(c) = &mut shown.command {
            c.command = mask(&c.command);
        }
        if let Some(m) = &mut shown.mcp {
            m.summary = mask(&m.summary);
        }
        if let Some(g) = &mut shown.global_memory {
            g.content = mask(&g.content);
        }
        if let Some(s) = &mut shown.schedule {
            match s.as_mut() {
                ScheduleIntent::Add { prompt, .. } => *prompt = mask(prompt),
                ScheduleIntent::Remove { job, .. } => *job = mask(job),
            }
        }
        shown
    }

    /// A call that keeps `key: content` in memory for every workspace.
    pub fn stores_global_memory(key: String, content: String) -> CallIntent {
        CallIntent {
            global_memory: Some(Box::new(GlobalMemory { key, content })),
            ..CallIntent::reads([])
        }
    }

    /// A one-line summary for tool rows: the command, or the paths touched.
    pub fn summary(&self) -> String {
        if let Some(c) = &self.command {
            return c.command.lines().next().unwrap_or("").to_string();
        }
        if let Some(n) = &self.network {
            return format!("{} {}", n.method, n.url);
        }
        if let Some(m) = &self.mcp {
            return m.summary.clone();
        }
        if let Some(s) = &self.schedule {
            return match s.as_ref() {
                ScheduleIntent::Add {
                    schedule, prompt, ..
                } => format!("{schedule}: {}", prompt.lines().next().unwrap_or("")),
                ScheduleIntent::Remove { id, .. } => id.clone(),
            };
        }
        if let Some(g) = &self.global_memory {
            return format!(
                "global {}: {}",
                g.key,
                g.content.lines().next().unwrap_or("")
            );
        }
        let paths: Vec<&str> = self
            .writes
            .iter()
            .chain(self.reads.iter())
            .map(String::as_str)
            .collect();
        paths.join(", ")
    }
}

/// What the policy found out about a call, carried with its decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assessment {
    /// The call's risk.
    pub risk: Risk,
    /// Why it has that risk, in words a person reads.
    pub reason: String,
    /// The command prefixes a "for this session" approval would record (`cargo fmt`), or
    /// for an MCP tool its one full name (`mcp__git__status`); `None` when no grant may be
    /// offered (high risk, redirects, nothing to grant).
    pub grant: Option<Vec<Vec<String>>>,
    /// Whether the command uses the network: if a person approves this very call, it runs
    /// with the sandbox's network open.
    pub network: bool,
    /// Whether the workspace is snapshotted before the call, so whatever it does can be
    /// undone: every command not proven read-only.
    pub snapshot: bool,
    /// Whether the command runs outside the sandbox once a person approves it: the model
    /// asked for that, and such a call is never allowed without asking. The one place
    /// this decision is made; the tool only runs in the sandbox it is given.
    pub outside_sandbox: bool,
    /// The command's full classification, for the approval prompt and `loom policy check`.
    pub classification: Option<Classification>,
    /// For a network call: the kind of access and the domain a "for this session" approval
    /// would cover.
    pub domain_grant: Option<(NetAccess, String)>,
}

impl Assessment {
    /// The assessment of a call with no command.
    pub fn plain(risk: Risk, reason: impl Into<String>) -> Assessment {
        Assessment {
            risk,
            reason: reason.into(),
            grant: None,
            network: false,
            snapshot: false,
            outside_sandbox: false,
            classification: None,
            domain_grant: None,
        }
    }

    /// The grant prefixes joined for display (`cargo fmt, npm install`).
    pub fn grant_label(&self) -> Option<String> {
        self.grant.as_ref().map(|ps| {
            ps.iter()
                .map(|p| p.join(" "))
                .collect::<Vec<_>>()
                .join(", ")
        })
    }
}

/// The policy's answer about one call: the decision and what it rests on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ruling {
    /// Run, ask or refuse.
    pub decision: Decision,
    /// The assessment behind it.
    pub assessment: Assessment,
}

impl Ruling {
    /// Whether the sandbox's network is opened for this call when it runs: only for a
    /// command that needs the network and that a person approved (`approved_by_person`).
    pub fn opens_network(&self, approved_by_person: bool) -> bool {
        approved_by_person && self.assessment.network
    }

    /// Whether the call runs with no sandbox at all: only a command the model asked to run
    /// outside it, that a person approved (`approved_by_person`).
    pub fn leaves_sandbox(&self, approved_by_person: bool) -> bool {
        approved_by_person
            && self.assessment.outside_sandbox
            && !matches!(self.decision, Decision::Deny { .. })
    }
}
