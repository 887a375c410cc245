//! Scheduled tasks: recurring prompts (a nightly test-and-fix, a weekly dependency check)
//! that run as headless sessions with nobody at the keyboard.
//!
//! - [`schedule`]: cron expressions (five fields, `@daily` and friends) and the next time
//!   one fires. Pure.
//! - [`store`]: a workspace's jobs in Loom's data directory, changed under a lock and
//!   written atomically, and the lock that keeps one scheduler per workspace.
//! - [`plan`]: what a scheduler does about each job at a given moment (run it, report
//!   missed runs, wait). Pure.
//! - [`scheduler`]: `loom cron run`, the foreground loop that runs due jobs one at a time
//!   through the same headless path as `loom exec`.
//!
//! Who may change jobs is the policy's business (`crate::policy::schedule`); the tools are
//! in `crate::tools::cron`, the command line in `crate::commands::cron`.

pub mod plan;
pub mod schedule;
pub mod scheduler;
pub mod store;

pub use schedule::{Schedule, ScheduleError};
pub use store::{Job, JobStore, LastRun, StoreError};
