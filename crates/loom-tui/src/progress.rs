//! What the agent is doing right now, in words a person reads at a glance: "thinking 4s",
//! "running bash 12s", "waiting for you", "retrying in 3 s (2/5)", with a spinner while
//! something moves, and a live token count while an answer streams.
//!
//! The agent reports its state as [`Phase`] changes; this module keeps the few timestamps
//! and counts around them that the status line needs, fed from the same events the rest of
//! the screen sees, and stamped with the screen's clock so snapshots are deterministic.

use std::time::{Duration, Instant};

use crate::protocol::events::{AgentEvent, Phase};

/// The spinner's frames, one every [`SPINNER_STEP`].
pub const SPINNER: &[&str] = &["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// How long each spinner frame shows.
const SPINNER_STEP: Duration = Duration::from_millis(100);

/// Bytes of streamed text per token, for the live estimate before the server reports usage
/// (about four for English text and code with common tokenizers).
const BYTES_PER_TOKEN: u64 = 4;

/// A retry the agent has scheduled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Retrying {
    attempt: u32,
    max_attempts: u32,
    at: Instant,
}

/// How a finished turn went, for the line shown under it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TurnFigures {
    /// From the turn's start to its end.
    pub took: Duration,
    /// From the turn's start to the first streamed text, when anything streamed.
    pub first_token: Option<Duration>,
}

impl TurnFigures {
    /// "took 12.3s · first token after 0.8s".
    pub fn describe(&self) -> String {
        match self.first_token {
            Some(first) => format!(
                "took {} · first token after {}",
                seconds(self.took),
                seconds(first)
            ),
            None => format!("took {}", seconds(self.took)),
        }
    }
}

/// The agent's progress, as the status line shows it.
#[derive(Debug, Clone)]
pub struct Progress {
    phase: Phase,
    phase_since: Instant,
    turn_start: Option<Instant>,
    request_start: Option<Instant>,
    first_token: Option<Duration>,
    streamed_bytes: u64,
    /// Whether visible answer text (not only reasoning) has streamed in this request.
    answering: bool,
    retrying: Option<Retrying>,
    /// The model's plan, as last updated (the status line's "step 2/5").
    plan: Option<crate::protocol::plan::Plan>,
    /// Whether the turn under way (or last ended) is a review: its findings came.
    reviewed: bool,
}

/// What the status line shows for the agent's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Activity {
    /// A spinner frame while something moves, else a still mark.
    pub mark: &'static str,
    /// The state in words ("thinking", "running bash", "waiting for you").
    pub label: String,
    /// The same in as few words as will do ("bash", "waiting"), for a narrow screen.
    pub short: String,
    /// How long it has lasted ("4s"), when that helps.
    pub elapsed: Option<String>,
}

impl Activity {
    /// An activity shown as `mark` and `label`, lasting `elapsed` (its short form is made
    /// from the label).
    fn of(mark: &'static str, label: impl Into<String>, elapsed: Option<String>) -> Activity {
        Activity {
            mark,
            label: label.into(),
            short: String::new(),
            elapsed,
        }
    }

    /// The whole activity as one piece of text.
    pub fn text(&self) -> String {
        let mut s = format!("{} {}", self.mark, self.label);
        if let Some(e) = &self.elapsed {
            s.push(' ');
            s.push_str(e);
        }
        s
    }
}

impl Progress {
    /// Progress of an idle agent, as of `now`.
    pub fn new(now: Instant) -> Progress {
        Progress {
            phase: Phase::Idle,
            phase_since: now,
            turn_start: None,
            request_start: None,
            first_token: None,
            streamed_bytes: 0,
            answering: false,
            retrying: None,
            plan: None,
            reviewed: false,
        }
    }

    /// Whether the turn under way (or last ended) is a review (`/review`): it offers no
    /// plan to run, even in plan mode.
    pub fn reviewed(&self) -> bool {
        self.reviewed
    }

    /// The model's plan, as last updated.
    pub fn plan(&self) -> Option<&crate::protocol::plan::Plan> {
        self.plan.as_ref()
    }

    /// Forget the plan (a new conversation).
    pub fn clear_plan(&mut self) {
        self.plan = None;
    }

    /// Take in one agent event that arrived at `now`. Returns the finished turn's figures
    /// when the event ended a turn.
    pub fn observe(&mut self, event: &AgentEvent, now: Instant) -> Option<TurnFigures> {
        match event {
            AgentEvent::StateChanged { phase } => {
                if self.phase == Phase::Idle && *phase != Phase::Idle {
                    self.turn_start = Some(now);
                    self.first_token = None;
                    self.reviewed = false;
                }
                if *phase == Phase::CallingLlm && self.phase != Phase::CallingLlm {
                    self.request_start = Some(now);
                    self.streamed_bytes = 0;
                    self.answering = false;
                    self.retrying = None;
                }
                if *phase != self.phase {
                    self.phase = *phase;
                    self.phase_since = now;
                }
            }
            AgentEvent::TextDelta { text } | AgentEvent::ReasoningDelta { text } => {
                self.streamed_bytes += text.len() as u64;
                self.answering |= matches!(event, AgentEvent::TextDelta { .. });
                if self.first_token.is_none()
                    && let Some(start) = self.turn_start
                {
                    self.first_token = Some(now.saturating_duration_since(start));
                }
            }
            AgentEvent::Usage { .. } => self.streamed_bytes = 0,
            AgentEvent::PlanUpdated { plan } => self.plan = Some(plan.clone()),
            AgentEvent::ReviewFindings { .. } => self.reviewed = true,
            AgentEvent::Retry {
                attempt,
                max_attempts,
                wait_ms,
                ..
            } => {
                self.retrying = Some(Retrying {
                    attempt: *attempt,
                    max_attempts: *max_attempts,
                    at: now + Duration::from_millis(*wait_ms),
                });
            }
            AgentEvent::TurnComplete { .. } => {
                self.streamed_bytes = 0;
                self.retrying = None;
                let start = self.turn_start.take()?;
                return Some(TurnFigures {
                    took: now.saturating_duration_since(start),
                    first_token: self.first_token.take(),
                });
            }
            _ => {}
        }
        None
    }

    /// Tokens of the answer streaming now, estimated from its size (zero once the server
    /// reported the request's usage).
    pub fn streaming_tokens(&self) -> u64 {
        self.streamed_bytes.div_ceil(BYTES_PER_TOKEN)
    }

    /// What the agent is doing at `now`. `running` names the tool calls running, each with
    /// when it started (the tool pane knows them).
    pub fn activity(&self, now: Instant, running: &[(&str, Instant)]) -> Activity {
        let mut activity = self.describe(now, running);
        activity.short = shorten(&activity.label);
        activity
    }

    fn describe(&self, now: Instant, running: &[(&str, Instant)]) -> Activity {
        let since = |t: Instant| Some(seconds_whole(now.saturating_duration_since(t)));
        let spin = spinner(now.saturating_duration_since(self.phase_since));
        match self.phase {
            Phase::Idle => Activity::of("●", "ready", None),
            Phase::CallingLlm => {
                let label = if self.answering {
                    "answering"
                } else if self.streamed_bytes > 0 {
                    "reasoning"
                } else {
                    "thinking"
                };
                let start = self.request_start.unwrap_or(self.phase_since);
                Activity::of(spin, label, since(start))
            }
            Phase::ExecutingTools => match running {
                [(name, start)] => Activity::of(spin, format!("running {name}"), since(*start)),
                [] => Activity::of(spin, "running tools", since(self.phase_since)),
                many => Activity::of(
                    spin,
                    format!("running {} tools", many.len()),
                    since(self.phase_since),
                ),
            },
            Phase::AwaitingApproval => Activity::of("?", "waiting for you", None),
            Phase::PostToolsHook => Activity::of(spin, "running hooks", since(self.phase_since)),
            Phase::Error => match self.retrying {
                Some(r) => Activity::of(
                    "↻",
                    format!(
                        "retrying in {} ({}/{})",
                        seconds_up(r.at.saturating_duration_since(now)),
                        r.attempt,
                        r.max_attempts
                    ),
                    None,
                ),
                None => Activity::of("↻", "retrying", None),
            },
            Phase::Compacting => {
                Activity::of(spin, "compacting the conversation", since(self.phase_since))
            }
            Phase::ShuttingDown => Activity::of(spin, "stopping", None),
        }
    }
}

/// The fewest words that still say it: "running bash" is "bash", "waiting for you" is
/// "waiting", a retry keeps its countdown.
fn shorten(label: &str) -> String {
    if let Some(rest) = label.strip_prefix("running ") {
        return rest.to_string();
    }
    if let Some(rest) = label.strip_prefix("retrying in ") {
        return format!("retry {}", rest.split(" (").next().unwrap_or(rest));
    }
    match label {
        "waiting for you" => "waiting".into(),
        "compacting the conversation" => "compacting".into(),
        other => other.to_string(),
    }
}

/// The spinner frame `elapsed` into a state.
fn spinner(elapsed: Duration) -> &'static str {
    let step = (elapsed.as_millis() / SPINNER_STEP.as_millis()) as usize;
    SPINNER[step % SPINNER.len()]
}

/// "4s", "1m05s": whole seconds, for a clock that ticks visibly.
fn seconds_whole(d: Duration) -> String {
    let s = d.as_secs();
    if s < 60 {
        format!("{s}s")
    } else {
        format!("{}m{:02}s", s / 60, s % 60)
    }
}

/// "3 s" counting down: rounded up, so a wait never shows "0 s" before it ends.
fn seconds_up(d: Duration) -> String {
    format!("{} s", d.as_millis().div_ceil(1000))
}

/// "0.8s", "12.3s", "2m05s": a finished span.
fn seconds(d: Duration) -> String {
    if d.as_secs() < 60 {
        format!("{:.1}s", d.as_secs_f64())
    } else {
        seconds_whole(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::events::TurnEnd;
    use crate::protocol::usage::Usage;

    fn state(p: &mut Progress, phase: Phase, at: Instant) {
        p.observe(&AgentEvent::StateChanged { phase }, at);
    }

    fn at(t0: Instant, ms: u64) -> Instant {
        t0 + Duration::from_millis(ms)
    }

    #[test]
    fn thinking_counts_from_the_request_and_turns_into_answering_with_a_live_estimate() {
        let t0 = Instant::now();
        let mut p = Progress::new(t0);
        state(&mut p, Phase::CallingLlm, t0);
        let a = p.activity(at(t0, 4_200), &[]);
        assert_eq!(
            (a.label.as_str(), a.elapsed.as_deref()),
            ("thinking", Some("4s"))
        );
        assert_ne!(
            a.mark,
            p.activity(at(t0, 4_300), &[]).mark,
            "the spinner moves"
        );
        p.observe(
            &AgentEvent::ReasoningDelta {
                text: "hmm ".into(),
            },
            at(t0, 4_500),
        );
        assert_eq!(p.activity(at(t0, 4_500), &[]).label, "reasoning");
        p.observe(
            &AgentEvent::TextDelta {
                text: "x".repeat(397),
            },
            at(t0, 5_000),
        );
        assert_eq!(p.activity(at(t0, 5_000), &[]).label, "answering");
        assert_eq!(
            p.streaming_tokens(),
            101,
            "rounded up, never zero while streaming"
        );
        p.observe(
            &AgentEvent::Usage {
                usage: Usage::default(),
            },
            at(t0, 6_000),
        );
        assert_eq!(
            p.streaming_tokens(),
            0,
            "the server's figure replaces the estimate"
        );
    }

    #[test]
    fn a_single_running_tool_is_named_with_its_own_clock() {
        let t0 = Instant::now();
        let mut p = Progress::new(t0);
        state(&mut p, Phase::ExecutingTools, t0);
        let a = p.activity(at(t0, 75_000), &[("bash", at(t0, 10_000))]);
        assert_eq!(a.text(), format!("{} running bash 1m05s", a.mark));
        assert_eq!(a.short, "bash");
        let two = p.activity(at(t0, 3_000), &[("bash", t0), ("read_file", t0)]);
        assert_eq!(two.label, "running 2 tools");
    }

    #[test]
    fn a_retry_counts_down_and_says_which_attempt() {
        let t0 = Instant::now();
        let mut p = Progress::new(t0);
        state(&mut p, Phase::CallingLlm, t0);
        state(&mut p, Phase::Error, at(t0, 500));
        p.observe(
            &AgentEvent::Retry {
                attempt: 2,
                max_attempts: 5,
                reason: "429".into(),
                wait_ms: 3_000,
            },
            at(t0, 500),
        );
        assert_eq!(p.activity(at(t0, 500), &[]).label, "retrying in 3 s (2/5)");
        assert_eq!(p.activity(at(t0, 500), &[]).short, "retry 3 s");
        assert_eq!(
            p.activity(at(t0, 2_600), &[]).label,
            "retrying in 1 s (2/5)"
        );
        state(&mut p, Phase::CallingLlm, at(t0, 3_500));
        assert_eq!(p.activity(at(t0, 3_500), &[]).label, "thinking");
    }

    #[test]
    fn waiting_for_the_person_and_idle_do_not_spin() {
        let t0 = Instant::now();
        let mut p = Progress::new(t0);
        assert_eq!(p.activity(t0, &[]).text(), "● ready");
        state(&mut p, Phase::AwaitingApproval, t0);
        assert_eq!(p.activity(at(t0, 9_000), &[]).text(), "? waiting for you");
    }

    #[test]
    fn a_finished_turn_reports_its_time_and_its_first_token() {
        let t0 = Instant::now();
        let mut p = Progress::new(t0);
        state(&mut p, Phase::CallingLlm, t0);
        p.observe(
            &AgentEvent::ReasoningDelta { text: "hm".into() },
            at(t0, 800),
        );
        state(&mut p, Phase::ExecutingTools, at(t0, 2_000));
        state(&mut p, Phase::CallingLlm, at(t0, 3_000));
        p.observe(&AgentEvent::TextDelta { text: "ok".into() }, at(t0, 3_400));
        state(&mut p, Phase::Idle, at(t0, 12_300));
        let done = AgentEvent::TurnComplete {
            usage: Usage::default(),
            end: TurnEnd::Done,
            unsent: Vec::new(),
            unsent_images: Vec::new(),
        };
        let figures = p.observe(&done, at(t0, 12_300)).unwrap();
        assert_eq!(figures.describe(), "took 12.3s · first token after 0.8s");
        assert_eq!(p.observe(&done, at(t0, 13_000)), None, "reported once");
    }
}
