//! The fixed prefix of each request — the system prompt and the tools — chosen to fit the
//! model's window (issue 24).
//!
//! With a [`ToolOffer`], the richest [`Level`] that leaves the conversation enough room is
//! sent; below 8k tokens the catalogue lists names only. When even that does not fit, Loom
//! degrades step by step — the catalogue, then the loaded tools, then the long system
//! prompt — and says what it left out before compaction would have to refuse. A chat
//! template that cannot carry tools gets none: the tools are described in the system
//! prompt as text, and the calls the model writes there are read back
//! ([`crate::llm::text_calls`]).

use serde_json::Value;

use super::{PromptParts, Runner};
use crate::agent::budget::{Budget, MIN_CONVERSATION};
use crate::agent::events::AgentEvent;
use crate::tools::offer::{self, Level, ToolOffer};

/// Windows below this many tokens get a catalogue of names only.
pub const NAMES_ONLY_BELOW: u64 = 8192;

/// Share of the conversation's space (the window less the answer's room) the prefix may
/// take before Loom sends less.
const PREFIX_PERCENT: u64 = 60;

/// Once Loom sends less, a richer prefix comes back only when it takes at most this share
/// (room to spare): the estimate moves a little with every answer, and a choice that
/// flipped between requests cost the server's prompt cache each time.
const REGAIN_PERCENT: u64 = 50;

/// One way to build the prefix: how many tools, and which system prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Choice {
    /// What the offer sends (`None`: every tool, there being no offer).
    pub level: Option<Level>,
    /// Whether the short system prompt is sent.
    pub short: bool,
}

/// The fixed prefix of each request: the prompts and tools it is built from, and what the
/// last request sent.
pub(super) struct Prefix {
    /// The system prompt.
    system_prompt: String,
    /// The system prompt for a window too small for the full one.
    short_system_prompt: Option<String>,
    /// Which tools each request carries and which deferred ones are loaded (`None`: all).
    offer: Option<ToolOffer>,
    /// Whether the server's chat template can carry tools (`Some(false)`: they are
    /// described in the system prompt instead).
    pub(super) template_tools: Option<bool>,
    /// The system prompt as the last request sent it.
    pub(super) sent_system: String,
    /// The tools as the last request sent them.
    pub(super) tool_schemas: Vec<Value>,
    /// Characters of `tool_schemas` as sent (counted once per refresh, read by every
    /// budget).
    pub(super) schema_chars: usize,
    /// The reduced prefix the person was last told about.
    told: Option<Choice>,
    /// The prefix the last request sent.
    last: Option<Choice>,
}

impl Prefix {
    /// A prefix built from `parts`, sending `tool_schemas` until the first choice.
    pub(super) fn new(parts: PromptParts, tool_schemas: Vec<Value>) -> Prefix {
        Prefix {
            system_prompt: parts.system_prompt,
            short_system_prompt: parts.short_system_prompt,
            offer: parts.offer,
            template_tools: None,
            sent_system: String::new(),
            schema_chars: schema_chars(&tool_schemas),
            tool_schemas,
            told: None,
            last: None,
        }
    }

    /// Characters the prefix takes in every request.
    pub(super) fn overhead_chars(&self) -> usize {
        self.sent_system.len() + self.schema_chars
    }

    /// Choose the prefix of the next request from `all` the tools and keep it
    /// (`sent_system`, `tool_schemas`) for a window of `window` tokens, the prefix's
    /// characters being worth `chars_per_token`; what to tell the person when it leaves
    /// something out for want of room.
    pub(super) fn choose(
        &mut self,
        all: &[Value],
        window: Option<u64>,
        chars_per_token: f64,
    ) -> Option<String> {
        let built: Vec<(Choice, String, Vec<Value>)> = self
            .choices(window)
            .iter()
            .map(|c| {
                let (system, tools) = self.build_prefix(*c, all);
                (*c, system, tools)
            })
            .collect();
        let last = self
            .last
            .and_then(|last| built.iter().position(|(c, ..)| *c == last));
        let index = match window {
            None => 0,
            Some(window) => fitting(&built, window, chars_per_token, last),
        };
        let (choice, system, tools) = built[index].clone();
        let notice = (index > 0 && self.told != Some(choice))
            .then(|| self.left_out(built[0].0, choice, all, window));
        self.told = (index > 0).then_some(choice);
        self.last = Some(choice);
        self.schema_chars = schema_chars(&tools);
        self.tool_schemas = tools;
        self.sent_system = system;
        notice
    }

    /// The prefixes to choose from, richest first.
    fn choices(&self, window: Option<u64>) -> Vec<Choice> {
        let mut choices: Vec<Choice> = match &self.offer {
            Some(_) => Level::ALL
                .iter()
                .map(|l| Choice {
                    level: Some(*l),
                    short: false,
                })
                .collect(),
            None => vec![Choice {
                level: None,
                short: false,
            }],
        };
        if self.short_system_prompt.is_some() {
            let last = choices[choices.len() - 1];
            choices.push(Choice {
                short: true,
                ..last
            });
        }
        let small = window.is_some_and(|w| w < NAMES_ONLY_BELOW);
        if small {
            choices.retain(|c| c.level != Some(Level::Full));
        }
        choices
    }

    /// The system prompt and the tool schemas of `choice`.
    fn build_prefix(&self, choice: Choice, all: &[Value]) -> (String, Vec<Value>) {
        let tools = match (&self.offer, choice.level) {
            (Some(offer), Some(level)) => offer.select(all, level),
            _ => all.to_vec(),
        };
        let mut system = match (choice.short, &self.short_system_prompt) {
            (true, Some(short)) => short.clone(),
            _ => self.system_prompt.clone(),
        };
        if self.template_tools == Some(false) {
            // The template would drop them: they go in the prompt, as text.
            if !tools.is_empty() {
                system.push_str("\n\n");
                system.push_str(&offer::as_text(&tools));
            }
            return (system, Vec::new());
        }
        (system, tools)
    }

    /// What `chosen` leaves out that `richest` would send, for the person.
    fn left_out(
        &self,
        richest: Choice,
        chosen: Choice,
        all: &[Value],
        window: Option<u64>,
    ) -> String {
        let mut parts = Vec::new();
        let deferred = self
            .offer
            .as_ref()
            .map(ToolOffer::deferred_names)
            .unwrap_or_default();
        let loaded = self
            .offer
            .as_ref()
            .map(ToolOffer::loaded)
            .unwrap_or_default();
        let unloaded: Vec<&String> = deferred.iter().filter(|n| !loaded.contains(n)).collect();
        if let (Some(from), Some(to)) = (richest.level, chosen.level) {
            if from < Level::NoCatalogue && to >= Level::NoCatalogue && !unloaded.is_empty() {
                parts.push(format!(
                    "load_tools and its catalogue ({} tools the model cannot load now: {})",
                    unloaded.len(),
                    names_shown(&unloaded)
                ));
            } else if from == Level::Full && to == Level::Names && !unloaded.is_empty() {
                parts.push("the descriptions in the tool catalogue (names only)".into());
            }
            let loaded_sent: Vec<&String> = loaded
                .iter()
                .filter(|n| all.iter().any(|s| offer::name_of(s) == n.as_str()))
                .collect();
            if to == Level::Core && !loaded_sent.is_empty() {
                parts.push(format!("the loaded tools ({})", names_shown(&loaded_sent)));
            }
        }
        if chosen.short && !richest.short {
            parts.push(
                "the long system prompt (the working guidelines, project instructions from \
                 AGENTS.md and core memories)"
                    .into(),
            );
        }
        let what = if parts.is_empty() {
            "nothing more it can leave out".to_string()
        } else {
            parts.join("; ")
        };
        format!(
            "the model's context window ({} tokens) is small, so Loom leaves out {what}; start \
             the server with a larger context (llama-server -c, Ollama num_ctx) to have them",
            window.unwrap_or(0)
        )
    }
}

/// The richest of `built` whose prefix leaves the conversation enough of a window of
/// `window` tokens: at most [`PREFIX_PERCENT`] of the usable room, else at least
/// [`MIN_CONVERSATION`] tokens, else the leanest. After `last` (the index the last request
/// sent), a richer one must take at most [`REGAIN_PERCENT`].
fn fitting(
    built: &[(Choice, String, Vec<Value>)],
    window: u64,
    chars_per_token: f64,
    last: Option<usize>,
) -> usize {
    let sizes = Budget {
        window,
        chars_per_token,
        overhead_chars: 0,
        prefix_chars_per_token: chars_per_token,
    };
    let tokens = |(_, system, tools): &(Choice, String, Vec<Value>)| {
        Budget {
            overhead_chars: system.len() + schema_chars(tools),
            ..sizes
        }
        .prefix_tokens()
    };
    let usable = sizes.usable();
    let within =
        |percent: u64| move |b: &(Choice, String, Vec<Value>)| tokens(b) <= usable * percent / 100;
    let index = built
        .iter()
        .position(within(PREFIX_PERCENT))
        .or_else(|| {
            built
                .iter()
                .position(|b| tokens(b) + MIN_CONVERSATION <= usable)
        })
        .unwrap_or(built.len() - 1);
    match last {
        Some(last) if index < last => built[..last]
            .iter()
            .position(within(REGAIN_PERCENT))
            .unwrap_or(last),
        _ => index,
    }
}

/// Up to six names, then how many more.
fn names_shown(names: &[&String]) -> String {
    let shown: Vec<&str> = names.iter().take(6).map(|n| n.as_str()).collect();
    match names.len().saturating_sub(6) {
        0 => shown.join(", "),
        more => format!("{}, and {more} more", shown.join(", ")),
    }
}

impl Prefix {
    /// Load the deferred tools the model called without loading them: the call runs all
    /// the same (its arguments are parsed by the tool's own type), and the tool's schema
    /// is sent from the next request on. A call whose arguments did not parse says so, so
    /// the model calls again with the schema in front of it.
    pub(super) fn load_called(&self, calls: &mut [crate::agent::steps::ProposedCall]) {
        let Some(offer) = &self.offer else {
            return;
        };
        for c in calls {
            if !offer.is_unloaded(&c.call.name) {
                continue;
            }
            offer.load(std::slice::from_ref(&c.call.name));
            if let Some(why) = &mut c.invalid {
                why.push_str(&format!(
                    " ({} had not been loaded: its schema is sent from now on, so call it \
                     again with arguments that match it)",
                    c.call.name
                ));
            }
        }
    }

    /// The tools loaded since the last request (`None` when there are none).
    fn unrecorded(&self) -> Option<Vec<String>> {
        let names = self.offer.as_ref()?.take_unrecorded();
        (!names.is_empty()).then_some(names)
    }
}

impl Runner {
    /// Choose the prefix of the next request and keep it, telling the person when it
    /// leaves something out for want of room.
    pub(super) fn choose_prefix(&mut self) {
        let all = self.offered_schemas();
        let chosen = self.prefix.choose(
            &all,
            self.window.tokens,
            self.window.prefix_chars_per_token(),
        );
        if let Some(message) = chosen {
            self.emit(AgentEvent::Notice { message });
        }
    }

    /// Record the tools loaded since the last request in the session, so a resumed
    /// session sends them too.
    pub(super) fn record_loaded_tools(&mut self) {
        if let Some(names) = self.prefix.unrecorded() {
            self.persistence.tools_loaded(names);
        }
    }
}

/// Characters the tool definitions take in a request.
fn schema_chars(schemas: &[Value]) -> usize {
    schemas.iter().map(|t| t.to_string().len()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three prefixes of `sizes` characters, richest first (4 characters a token).
    fn built(sizes: [usize; 3]) -> Vec<(Choice, String, Vec<Value>)> {
        let levels = [Level::ALL[0], Level::ALL[1], Level::ALL[2]];
        levels
            .iter()
            .zip(sizes)
            .map(|(level, chars)| {
                let choice = Choice {
                    level: Some(*level),
                    short: false,
                };
                (choice, "x".repeat(chars), Vec::new())
            })
            .collect()
    }

    /// The invariant: once a leaner prefix was sent, a richer one comes back only when it
    /// takes at most REGAIN_PERCENT of the room, so an estimate that moves a little
    /// between requests does not flip the prefix (and the server's prompt cache) back and
    /// forth; without a last choice, the richest within PREFIX_PERCENT is sent.
    #[test]
    fn a_richer_prefix_comes_back_only_with_room_to_spare() {
        let window = 10_000;
        let usable = Budget {
            window,
            chars_per_token: 4.0,
            overhead_chars: 0,
            prefix_chars_per_token: 4.0,
        }
        .usable();
        let share = |percent: u64| (usable * percent / 100) as usize * 4;
        // The richest takes 55 %: within PREFIX_PERCENT, not within REGAIN_PERCENT.
        let close = built([share(55), share(30), share(10)]);
        assert_eq!(fitting(&close, window, 4.0, None), 0);
        assert_eq!(fitting(&close, window, 4.0, Some(1)), 1, "kept");
        let roomy = built([share(45), share(30), share(10)]);
        assert_eq!(fitting(&roomy, window, 4.0, Some(1)), 0, "room to spare");
        let tight = built([share(70), share(65), share(10)]);
        assert_eq!(fitting(&tight, window, 4.0, Some(0)), 2, "leaner at once");
    }
}
