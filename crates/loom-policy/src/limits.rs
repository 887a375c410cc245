//! The hourly action budget: after this many writes and commands in an hour, everything
//! asks again, so a runaway full-auto session stops to check with its person.
//!
//! Pure: the caller supplies the clock.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// The window the budget counts over.
pub const WINDOW: Duration = Duration::from_secs(3600);
/// Default actions per hour.
pub const DEFAULT_PER_HOUR: u32 = 200;

/// Counts actions in a sliding one-hour window.
#[derive(Debug, Clone)]
pub struct ActionBudget {
    per_hour: u32,
    times: VecDeque<Instant>,
}

impl Default for ActionBudget {
    fn default() -> Self {
        ActionBudget::new(DEFAULT_PER_HOUR)
    }
}

impl ActionBudget {
    /// A budget of `per_hour` actions (0 means every action asks).
    pub fn new(per_hour: u32) -> ActionBudget {
        ActionBudget {
            per_hour,
            times: VecDeque::new(),
        }
    }

    /// The configured limit.
    pub fn per_hour(&self) -> u32 {
        self.per_hour
    }

    fn expire(&mut self, now: Instant) {
        while let Some(&t) = self.times.front() {
            if now.duration_since(t) >= WINDOW {
                self.times.pop_front();
            } else {
                break;
            }
        }
    }

    /// Record one action at `now`.
    pub fn record(&mut self, now: Instant) {
        self.expire(now);
        self.times.push_back(now);
    }

    /// Actions counted in the window ending at `now`.
    pub fn used(&self, now: Instant) -> usize {
        self.times
            .iter()
            .filter(|t| now.duration_since(**t) < WINDOW)
            .count()
    }

    /// Whether the budget is used up at `now`.
    pub fn exhausted(&self, now: Instant) -> bool {
        self.used(now) >= self.per_hour as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_fills_and_drains_with_time() {
        let start = Instant::now();
        let mut b = ActionBudget::new(3);
        for i in 0..3 {
            assert!(!b.exhausted(start + Duration::from_secs(i)));
            b.record(start + Duration::from_secs(i));
        }
        assert!(b.exhausted(start + Duration::from_secs(10)));
        assert!(!b.exhausted(start + WINDOW + Duration::from_secs(1)));
        assert_eq!(b.used(start + WINDOW + Duration::from_secs(3)), 0);
    }

    #[test]
    fn zero_budget_always_asks() {
        assert!(ActionBudget::new(0).exhausted(Instant::now()));
    }
}
