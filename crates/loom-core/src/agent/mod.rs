//! The agent: the engine both front ends drive. A pure state machine ([`state`]) decides;
//! a runner ([`runner`]) performs. It knows no screen.

pub mod budget;
pub mod compact;
pub mod delegate;
mod effects;
pub use loom_protocol::events;
pub mod prompt;
pub mod runner;
pub mod state;
pub mod steps;
pub mod sub_agents;

pub use events::{
    AgentEvent, ApprovalAnswer, ApprovalPreview, DecidedBy, FilePreview, Phase, TurnEnd, UserOp,
};
pub use runner::{AgentHandle, AgentOptions, PersistenceParts, PromptParts, Runner, RunnerParts};
