//! The composition root: one place that builds an agent — provider client, tools, policy,
//! hooks, system prompt, session — for the TUI, `loom exec` and delegate sub-agents alike,
//! so a sub-agent is wired exactly like the top one and differs only where [`Role`] says.
//!
//! [`AgentFactory`] holds what every agent of a session shares (configuration, provider,
//! workspace context, long-term memory, the undo journal); [`AgentFactory::build`] turns a
//! role into the [`RunnerParts`] a [`crate::agent::Runner`] starts from. It is called by
//! [`runner_parts`] (the top agent) and, through
//! [`crate::agent::delegate::SubAgentFactory`], by the `delegate` tool.
//!
//! [`Session::start`] (in `session.rs`) is the one way a front end starts a session on
//! top of that.

use std::sync::{Arc, Mutex};

pub mod session;

pub use session::{Mode, Session, SessionOptions};

use crate::agent::delegate::{self, DelegateTool, SubAgentFactory, SubAgentSpec};
use crate::agent::prompt;
use crate::agent::state::Limits;
use crate::agent::sub_agents::SubAgents;
use crate::agent::{AgentOptions, PersistenceParts, PromptParts, RunnerParts};
use crate::changelog::Changelog;
use crate::config::Config;
use crate::llm::current::CurrentModel;
use crate::llm::retry::RetryPolicy;
use crate::llm::{LlmClient, Message, ProviderSettings};
use crate::memory::Memory;
use crate::setup::{self, Provider, SessionFiles};
use crate::tools::load_tools::LoadTools;
use crate::tools::offer::ToolOffer;
use crate::tools::{ToolContext, ToolRegistry};

/// What kind of agent to build.
pub enum Role {
    /// The agent the person talks to.
    Top {
        /// An earlier conversation to continue.
        conversation: Vec<Message>,
        /// Its transcript, undo journal and notices.
        files: SessionFiles,
    },
    /// A sub-agent started by `delegate`.
    Sub(SubAgentSpec),
}

/// What all agents of one session share.
pub struct AgentFactory {
    config: Config,
    provider: Provider,
    ctx: ToolContext,
    /// The session's policy; every agent gets a clone, so all draw on its one hourly
    /// action budget.
    policy: crate::policy::Policy,
    memory: Option<Arc<Memory>>,
    /// The workspace's scheduled jobs, for the cron tools (the top agent only).
    cron: Option<crate::cron::JobStore>,
    changelog: Option<Arc<Mutex<Changelog>>>,
    /// The session's MCP servers, started once and shared by every agent; the top agent
    /// shuts them down.
    mcp: Option<crate::mcp::McpManager>,
    /// The model the session talks to now (`/model` switches it): the top agent's editing
    /// tool and oracle follow it; a sub-agent starts with it.
    model: CurrentModel,
    /// Where sub-agents' transcripts go (the session's own directory beside its file);
    /// `None` when the session is not recorded.
    transcripts: Option<std::path::PathBuf>,
}

impl AgentFactory {
    /// A factory for a session under `config` with `provider`, running tools in `ctx`.
    /// `interactive`: whether a person can answer approval requests.
    pub fn new(
        config: &Config,
        provider: &Provider,
        ctx: ToolContext,
        interactive: bool,
        files: &SessionFiles,
    ) -> Arc<AgentFactory> {
        Arc::new(AgentFactory {
            config: config.clone(),
            provider: provider.clone(),
            ctx,
            policy: if interactive {
                setup::policy(config)
            } else {
                setup::policy(config).headless()
            },
            memory: files.memory.clone(),
            cron: files.cron.clone(),
            changelog: files.changelog.clone(),
            mcp: setup::mcp_servers(config),
            transcripts: files
                .log
                .as_ref()
                .and_then(|log| Some(log.path().parent()?.join(log.id()))),
            model: CurrentModel::new(match provider {
                Provider::Ready { settings, .. } => settings.model.as_str(),
                Provider::Missing { .. } => config.provider.model.as_deref().unwrap_or(""),
            }),
        })
    }

    fn root(&self) -> std::path::PathBuf {
        self.ctx
            .workspace
            .as_ref()
            .map(|c| c.root().to_path_buf())
            .unwrap_or_else(|| self.ctx.cwd.clone())
    }

    /// The tools an agent at `depth` may be offered, in order: the workspace and web tools
    /// for the session's model, the MCP servers' tools, memory, the cron tools (top agent only), the oracle, and `delegate`
    /// while the depth allows another level.
    /// `model` is the session's cell for the top agent (its tools follow `/model`) and a
    /// copy taken at its start for a sub-agent.
    fn all_tools(
        self: &Arc<Self>,
        depth: u8,
        hub: &Arc<SubAgents>,
        model: &CurrentModel,
    ) -> ToolRegistry {
        let (mut registry, _) =
            setup::tool_registry(&self.config, Some(model), &|k| std::env::var(k).ok());
        if let Some(mcp) = &self.mcp {
            mcp.register(&mut registry);
        }
        if let Some(memory) = &self.memory {
            for tool in crate::tools::memory::tools(memory) {
                let _ = registry.register(tool);
            }
        }
        // Scheduling is the person's business with the agent they talk to: a sub-agent
        // is never offered the cron tools.
        if depth == 0
            && let Some(store) = &self.cron
        {
            for tool in crate::tools::cron::tools(store) {
                let _ = registry.register(tool);
            }
        }
        if let Some(client) = self.oracle_client() {
            let mut oracle = crate::tools::oracle::Oracle::new(client);
            if self.config.tools.oracle.model.is_none() {
                oracle = oracle.following(model.clone());
            }
            let _ = registry.register(Arc::new(oracle));
        }
        // The plan is the person's view of the top agent's work (issue 28).
        if depth == 0 {
            let _ = registry.register(Arc::new(crate::tools::update_plan::UpdatePlan));
        }
        if depth < delegate::MAX_DEPTH {
            let factory: Arc<dyn SubAgentFactory> = self.clone();
            let _ = registry.register(Arc::new(DelegateTool::new(factory, hub.clone(), depth)));
        }
        registry
    }

    /// Every tool the top agent has, for a person to list and run by hand (`loom tool`):
    /// every built-in editing tool, the web tools, and memory, cron, the oracle and
    /// `delegate` exactly as the agent gets them (MCP tools are `loom mcp call`'s). With no
    /// model configured the oracle and `delegate` are not offered, and the second list says
    /// why; so is memory when it cannot be opened.
    pub fn tools_by_hand(self: &Arc<Self>) -> (ToolRegistry, Vec<setup::Unoffered>) {
        let (mut registry, mut unoffered) =
            setup::tool_registry(&self.config, None, &|k| std::env::var(k).ok());
        let agent = self.all_tools(0, &Arc::new(SubAgents::default()), &self.model);
        let no_model = match &self.provider {
            Provider::Missing { message } => Some(message),
            Provider::Ready { .. } => None,
        };
        for tool in agent.tools() {
            if no_model.is_some() && tool.name() == "delegate" {
                continue;
            }
            // The editing tools are in both; the first registration stands.
            let _ = registry.register(tool);
        }
        if let Some(message) = no_model {
            for name in ["oracle", "delegate"] {
                unoffered.push(setup::Unoffered {
                    name,
                    why: format!("it needs a model and none is configured: {message}"),
                });
            }
        }
        if self.memory.is_none() {
            for name in ["memory_store", "memory_recall", "memory_forget"] {
                unoffered.push(setup::Unoffered {
                    name,
                    why: "long-term memory cannot be opened (no data directory, or its \
                          database is unreadable)"
                        .into(),
                });
            }
        }
        if self.cron.is_none() {
            for name in ["cron_add", "cron_list", "cron_remove"] {
                unoffered.push(setup::Unoffered {
                    name,
                    why: "there is no data directory to keep scheduled jobs in".into(),
                });
            }
        }
        (registry, unoffered)
    }

    /// Build the parts of an agent in `role`.
    pub fn build(self: &Arc<Self>, role: Role) -> Result<RunnerParts, String> {
        let root = self.root();
        let depth = match &role {
            Role::Top { .. } => 0,
            Role::Sub(spec) => spec.depth,
        };
        let hub = Arc::new(SubAgents::default());
        let model = match &role {
            Role::Top { .. } => self.model.clone(),
            Role::Sub(_) => CurrentModel::new(&self.model.get()),
        };
        let (registry, offer, sub_autonomy) = self.tools_for(&role, depth, &hub, &model)?;
        let autonomy = sub_autonomy.unwrap_or(crate::policy::Autonomy::ReadOnly);
        let (system_prompt, short_system_prompt) = self.prompts(&role, &root, autonomy);
        let mut policy = self.policy.clone();
        let (llm, no_provider_message) = self.client_for(&model.get());
        let (mut limits, retry) = self.limits();
        let top = matches!(role, Role::Top { .. });
        let parent_turn = match &role {
            Role::Top { .. } => None,
            Role::Sub(spec) => Some(spec.turn),
        };
        let hooks;
        let (conversation, session, save_errors);
        match role {
            Role::Top {
                conversation: c,
                files,
            } => {
                hooks = setup::hooks(&self.config, &policy, &root);
                conversation = c;
                session = files.log;
                save_errors = files.errors;
            }
            Role::Sub(spec) => {
                policy.autonomy = autonomy;
                limits.max_tool_rounds = spec.max_rounds;
                // The parent's post-tools hooks run once the delegate call returns (its
                // result lists the files the sub-agent changed).
                hooks = crate::hooks::HookChain::new();
                conversation = Vec::new();
                (session, save_errors) = self.sub_session(&spec, &root, &model.get());
            }
        }
        Ok(RunnerParts {
            registry: Arc::new(registry),
            policy,
            llm,
            no_provider_message,
            ctx: self.ctx.clone(),
            prompt: PromptParts {
                system_prompt,
                short_system_prompt,
                offer,
            },
            hooks,
            options: AgentOptions { limits, retry },
            conversation,
            persistence: PersistenceParts {
                session,
                changelog: self.changelog.clone(),
                save_errors,
                parent_turn,
            },
            memory: self.memory.clone(),
            subagents: Some(hub),
            mcp: top.then(|| self.mcp.clone()).flatten(),
            current_model: top.then_some(model),
            commands: None,
        })
    }

    /// The system prompt of an agent in `role` working in `root` (the top agent's with its
    /// core memories, a sub-agent's with its task and `autonomy`), and its short form.
    fn prompts(
        &self,
        role: &Role,
        root: &std::path::Path,
        autonomy: crate::policy::Autonomy,
    ) -> (String, Option<String>) {
        let instructions = prompt::agents_md(root, &self.ctx.cwd);
        let workspace = root.display().to_string();
        let mut system_prompt = prompt::system_prompt(&workspace, &instructions);
        match role {
            Role::Top { .. } => {
                if let Some(core) = self.core_memories() {
                    system_prompt.push_str("\n\n");
                    system_prompt.push_str(&core);
                }
                // A sub-agent's prompt carries its task: it has no shorter form.
                let short = prompt::short_system_prompt(&workspace);
                (system_prompt, Some(short))
            }
            Role::Sub(spec) => {
                system_prompt.push_str("\n\n");
                system_prompt.push_str(&delegate::sub_agent_prompt(spec, autonomy));
                (system_prompt, None)
            }
        }
    }

    /// The tools of an agent in `role` at `depth`, which of them are offered how, and a
    /// sub-agent's autonomy. The top agent is sent its core tools and a catalogue of the
    /// rest, loaded on demand; a sub-agent is given the few tools its task names, and sent
    /// them all.
    fn tools_for(
        self: &Arc<Self>,
        role: &Role,
        depth: u8,
        hub: &Arc<SubAgents>,
        model: &CurrentModel,
    ) -> Result<
        (
            ToolRegistry,
            Option<ToolOffer>,
            Option<crate::policy::Autonomy>,
        ),
        String,
    > {
        let mut all = self.all_tools(depth, hub, model);
        Ok(match role {
            Role::Top { files, .. } => {
                let offer = ToolOffer::new(files.loaded_tools.iter().cloned());
                let _ = all.register(Arc::new(LoadTools(offer.clone())));
                (all, Some(offer), None)
            }
            Role::Sub(spec) => {
                let (registry, autonomy) = delegate::sub_registry(&all, spec)?;
                (registry, None, Some(autonomy))
            }
        })
    }

    /// The client for `model` over the session's provider, or (without one) the message
    /// the agent answers with instead.
    fn client_for(&self, model: &str) -> (Option<LlmClient>, String) {
        match &self.provider {
            Provider::Ready { settings, .. } => match LlmClient::new(ProviderSettings {
                model: model.to_string(),
                ..settings.clone()
            }) {
                Ok(client) => (Some(client), String::new()),
                Err(e) => (None, format!("the provider settings are not usable: {e}")),
            },
            Provider::Missing { message } => (None, message.clone()),
        }
    }

    /// The configured limits of an agent's turn and its model requests' retries.
    fn limits(&self) -> (Limits, RetryPolicy) {
        let limits = Limits {
            max_tool_rounds: self.config.limits.max_tool_rounds,
            max_llm_attempts: self.config.limits.max_retries,
            tool_output_budget: self.config.limits.output_budget,
        };
        let retry = RetryPolicy {
            max_attempts: self.config.limits.max_retries,
            ..RetryPolicy::default()
        };
        (limits, retry)
    }

    /// The sub-agent's transcript ([`Self::sub_transcript`]) and the error to report when
    /// it cannot be saved.
    fn sub_session(
        &self,
        spec: &SubAgentSpec,
        root: &std::path::Path,
        model: &str,
    ) -> (Option<crate::session::SessionLog>, Vec<String>) {
        match self.sub_transcript(spec, root, model) {
            Some(Ok(log)) => (Some(log), Vec::new()),
            Some(Err(e)) => (None, vec![e]),
            None => (None, Vec::new()),
        }
    }

    /// A transcript for the sub-agent of `spec`, in the session's directory (so `loom
    /// sessions` lists only sessions a person started): `sub-TURN-CALL.jsonl`, titled with
    /// its task. `None` when the session is not recorded; an error says why it cannot be.
    fn sub_transcript(
        &self,
        spec: &SubAgentSpec,
        root: &std::path::Path,
        model: &str,
    ) -> Option<Result<crate::session::SessionLog, String>> {
        let dir = self.transcripts.as_ref()?;
        let call: String = spec
            .call
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
            .take(64)
            .collect();
        let title = crate::session::title(&spec.task);
        let mut last = None;
        for n in 1..=20 {
            let id = match n {
                1 => format!("sub-{}-{call}", spec.turn),
                n => format!("sub-{}-{call}-{n}", spec.turn),
            };
            match crate::session::SessionLog::create_titled(dir, &id, root, model, Some(&title)) {
                Ok(log) => return Some(Ok(log)),
                // A call id a model reused in the same turn: the next name.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => {
                    return Some(Err(format!(
                        "the sub-agent's transcript cannot be saved in {}: {e}",
                        dir.display()
                    )));
                }
            }
        }
        Some(Err(format!(
            "the sub-agent's transcript cannot be saved in {}: {}",
            dir.display(),
            last.map(|e| e.to_string()).unwrap_or_default()
        )))
    }

    /// The oracle's client: `[oracle]` over the session's provider (its server, model and
    /// key unless named), with the oracle's bounded answer length and temperature. `None`
    /// without a provider, or when the settings are unusable.
    fn oracle_client(&self) -> Option<LlmClient> {
        let Provider::Ready { settings, .. } = &self.provider else {
            return None;
        };
        let o = &self.config.tools.oracle;
        let mut s = settings.clone();
        if let Some(url) = &o.base_url {
            s.base_url = url.clone();
            // Another server: the session's context window says nothing about it, and the
            // session's headers (an identity, an organisation) are not sent to it.
            s.context_window = None;
            s.headers.clear();
        }
        if let Some(model) = &o.model {
            s.model = model.clone();
        }
        s.api_key = o.api_key.clone();
        s.max_tokens = Some(o.max_tokens);
        s.temperature = Some(o.temperature);
        LlmClient::new(s).ok()
    }

    /// The workspace's core memories as a system-prompt section (bounded), if any.
    fn core_memories(&self) -> Option<String> {
        let memory = self.memory.as_ref()?;
        let entries = memory.core().ok()?;
        crate::memory::prompt_section(&entries)
    }
}

impl SubAgentFactory for AgentFactory {
    fn sub_agent(self: Arc<Self>, spec: SubAgentSpec) -> Result<RunnerParts, String> {
        self.build(Role::Sub(spec))
    }
}

/// Everything the runner needs for a session: the top agent, built by the composition
/// root (this module).
pub fn runner_parts(
    config: &Config,
    provider: &Provider,
    ctx: ToolContext,
    interactive: bool,
    conversation: Vec<Message>,
    files: SessionFiles,
) -> RunnerParts {
    let root = ctx.workspace.as_deref().map(|c| c.root().to_path_buf());
    let factory = AgentFactory::new(config, provider, ctx, interactive, &files);
    let mut parts = factory
        .build(Role::Top {
            conversation,
            files,
        })
        .expect("the top agent's parts always build");
    // Custom slash commands are the top agent's; a project's may choose a model and
    // narrow the tools only once the person trusted the workspace's config.
    let trusted = matches!(
        config.project_trust,
        crate::config::trust::ProjectTrust::Trusted { .. }
    );
    parts.commands = root.map(|r| crate::custom_commands::Source::standard(&r, trusted));
    parts
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;
    use crate::config::FlagConfig;
    use crate::policy::{Autonomy, CallIntent, CommandIntent, Decision, ToolKind};

    /// A sub-agent's writes and commands count against the session's one hourly budget:
    /// delegating cannot multiply what full-auto may do in an hour.
    #[tokio::test]
    async fn a_sub_agent_draws_on_the_sessions_hourly_budget() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        std::fs::write(
            &file,
            "[approval]\nmode = \"full-auto\"\nmax_actions_per_hour = 2\n",
        )
        .unwrap();
        let flags = FlagConfig {
            config_file: Some(file),
            ..FlagConfig::default()
        };
        let config = crate::config::load(dir.path(), &flags, &|_| None).unwrap();
        let ctx = setup::tool_context(dir.path(), &config, "s").unwrap();
        let provider = Provider::Missing {
            message: "none".into(),
        };
        let factory = AgentFactory::new(&config, &provider, ctx, true, &SessionFiles::none());
        let top = factory
            .build(Role::Top {
                conversation: Vec::new(),
                files: SessionFiles::none(),
            })
            .unwrap();
        let mut sub = factory
            .build(Role::Sub(SubAgentSpec {
                depth: 1,
                tools: Some(vec!["bash".into(), "write_file".into()]),
                max_rounds: 3,
                parent_autonomy: Autonomy::FullAuto,
                label: "sub-agent of c1".into(),
                turn: 1,
                call: "c1".into(),
                task: "run".into(),
            }))
            .unwrap();
        let now = Instant::now();
        let ls = CallIntent::runs(CommandIntent {
            command: "ls".into(),
            cwd: None,
            outside_sandbox: false,
        });
        let before = top.policy.decide("bash", &ls, Some(dir.path()), now);
        assert_eq!(before.decision, Decision::Allow);
        sub.policy.record_action(ToolKind::Execute, now);
        sub.policy.record_action(ToolKind::Write, now);
        let after = top.policy.decide("bash", &ls, Some(dir.path()), now);
        assert!(
            matches!(after.decision, Decision::Ask { .. }),
            "{:?}",
            after.decision
        );
    }
}
