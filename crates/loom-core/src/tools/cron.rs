//! `cron_add`, `cron_list`, `cron_remove`: the model's door to the workspace's scheduled
//! jobs (see [`crate::cron`]).
//!
//! Thin tools over [`JobStore`]. They touch Loom's data directory, never the workspace.
//! `cron_list` only reads; adding and removing are their own policy class
//! ([`ToolKind::Schedule`], judged by `crate::policy::schedule`): the person approves
//! every change outside full-auto, and a job never asks for more autonomy than the
//! session has. The call's description carries the whole job (schedule, prompt, mode; for
//! a removal the job as stored), so the approval shows exactly what would run.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use chrono::{Local, Utc};
use schemars::JsonSchema;
use serde::Deserialize;

use super::{CallIntent, Tool, ToolContext, ToolError, ToolKind, ToolResult, TypedTool};
use crate::cron::{Job, JobStore, Schedule};
use crate::policy::{Autonomy, ScheduleIntent};
use crate::protocol::tool_data::{CronJobData, CronRunData};

/// The approval mode a job runs with.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Reads and read-only commands only.
    ReadOnly,
    /// Also builds and tests; what would need a person is refused.
    Supervised,
    /// Everything the policy does not forbid.
    FullAuto,
}

impl From<Mode> for Autonomy {
    fn from(m: Mode) -> Autonomy {
        match m {
            Mode::ReadOnly => Autonomy::ReadOnly,
            Mode::Supervised => Autonomy::Supervised,
            Mode::FullAuto => Autonomy::FullAuto,
        }
    }
}

/// Arguments of `cron_add`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddArgs {
    /// When to run: five cron fields (minute hour day-of-month month day-of-week, local
    /// time), e.g. "0 3 * * *" for 03:00 daily or "30 2 * * 1-5" for weekdays at 02:30; or
    /// @hourly, @daily, @weekly, @monthly, @yearly.
    pub schedule: String,
    /// What to ask the model at each run: a complete, self-contained task (the run starts
    /// a fresh session with no memory of this conversation).
    pub prompt: String,
    /// The approval mode the job runs with (default read-only); at most this session's.
    pub approval: Option<Mode>,
}

/// Arguments of `cron_remove`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RemoveArgs {
    /// The job's id, as cron_list shows it.
    pub id: String,
}

/// Arguments of `cron_list`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListArgs {}

/// The three tools over the workspace's job store.
pub fn tools(store: &JobStore) -> Vec<std::sync::Arc<dyn Tool>> {
    vec![
        std::sync::Arc::new(CronAdd(store.clone())),
        std::sync::Arc::new(CronList(store.clone())),
        std::sync::Arc::new(CronRemove(store.clone())),
    ]
}

/// A job as the model reads it.
pub fn job_data(job: &Job) -> CronJobData {
    CronJobData {
        id: job.id.clone(),
        schedule: job.schedule.clone(),
        prompt: job.prompt.clone(),
        approval: job.approval,
        next_run: job.next_run.map(|t| t.with_timezone(&Local).to_rfc3339()),
        last_run: job.last_run.as_ref().map(|r| CronRunData {
            at: r.at.with_timezone(&Local).to_rfc3339(),
            outcome: r.outcome.clone(),
            session_id: r.session_id.clone(),
        }),
        missed: job.missed,
        added_by: job.added_by.clone(),
    }
}

fn parse_add(a: &AddArgs) -> Result<(Schedule, Autonomy), ToolError> {
    let schedule =
        Schedule::parse(&a.schedule).map_err(|e| ToolError::InvalidArguments(e.to_string()))?;
    crate::cron::store::check_prompt(&a.prompt)
        .map_err(|e| ToolError::InvalidArguments(e.to_string()))?;
    let approval = a.approval.map(Autonomy::from).unwrap_or(Autonomy::ReadOnly);
    Ok((schedule, approval))
}

/// The `cron_add` tool.
pub struct CronAdd(pub JobStore);

#[async_trait]
impl TypedTool for CronAdd {
    type Args = AddArgs;
    fn name(&self) -> &'static str {
        "cron_add"
    }
    fn description(&self) -> &'static str {
        "Schedule a recurring task for this workspace: at each time the schedule gives, the \
         prompt runs as a new headless session (like `loom exec`) while `loom cron run` is \
         running. The person approves every new job (except in full-auto). approval is the \
         mode the job runs with (read-only by default; supervised lets it build and test; \
         never more than this session's mode); what would need a person is refused in the \
         run. Returns the job's id and next run."
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Schedule
    }
    fn check(&self, a: &AddArgs) -> Result<(), ToolError> {
        parse_add(a).map(|_| ())
    }
    fn intent(&self, a: &AddArgs) -> Result<CallIntent, ToolError> {
        let (schedule, approval) = parse_add(a)?;
        Ok(CallIntent::schedules(ScheduleIntent::Add {
            schedule: schedule.to_string(),
            prompt: a.prompt.trim().to_string(),
            approval,
        }))
    }
    fn default_timeout(&self) -> Duration {
        Duration::from_secs(30)
    }
    async fn run(&self, a: Arc<AddArgs>, ctx: &ToolContext) -> ToolResult {
        let (schedule, approval) = match parse_add(&a) {
            Ok(p) => p,
            Err(e) => return e.into(),
        };
        let store = self.0.clone();
        let by = format!("session {}", ctx.session_id);
        let added = super::blocking("cron_add", move || {
            store
                .add(&schedule, &a.prompt, approval, &by, Utc::now())
                .map_err(|e| ToolError::Other(e.to_string()))
        })
        .await;
        match added {
            Ok(job) => {
                let next = job
                    .next_run
                    .map(|t| {
                        t.with_timezone(&Local)
                            .format("%Y-%m-%d %H:%M %Z")
                            .to_string()
                    })
                    .unwrap_or_else(|| "never".into());
                ToolResult::ok(format!(
                    "Added job {} ({}, {} mode), next run {next}. It runs only while `loom cron \
                     run` runs for this workspace (for example as a systemd user service).",
                    job.id, job.schedule, job.approval
                ))
                .with(&job_data(&job))
            }
            Err(e) => e.into(),
        }
    }
}

/// The `cron_list` tool.
pub struct CronList(pub JobStore);

#[async_trait]
impl TypedTool for CronList {
    type Args = ListArgs;
    fn name(&self) -> &'static str {
        "cron_list"
    }
    fn description(&self) -> &'static str {
        "List this workspace's scheduled jobs: id, schedule, prompt, approval mode, next run, \
         and the last run's outcome and session id."
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }
    fn intent(&self, _a: &ListArgs) -> Result<CallIntent, ToolError> {
        Ok(CallIntent::reads([]))
    }
    fn default_timeout(&self) -> Duration {
        Duration::from_secs(30)
    }
    async fn run(&self, _a: Arc<ListArgs>, _ctx: &ToolContext) -> ToolResult {
        let store = self.0.clone();
        let listed = super::blocking("cron_list", move || {
            store.list().map_err(|e| ToolError::Other(e.to_string()))
        })
        .await;
        match listed {
            Ok(jobs) if jobs.is_empty() => ToolResult::ok("No scheduled jobs in this workspace.")
                .with(&Vec::<CronJobData>::new()),
            Ok(jobs) => {
                let lines: Vec<String> = jobs
                    .iter()
                    .map(|j| format!("{}  {}  ({})  {}", j.id, j.schedule, j.approval, j.prompt))
                    .collect();
                ToolResult::ok(lines.join("\n"))
                    .with(&jobs.iter().map(job_data).collect::<Vec<_>>())
            }
            Err(e) => e.into(),
        }
    }
}

/// The `cron_remove` tool.
pub struct CronRemove(pub JobStore);

#[async_trait]
impl TypedTool for CronRemove {
    type Args = RemoveArgs;
    fn name(&self) -> &'static str {
        "cron_remove"
    }
    fn description(&self) -> &'static str {
        "Remove a scheduled job of this workspace by its id (see cron_list). The person \
         approves every removal (except in full-auto)."
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Schedule
    }
    fn intent(&self, a: &RemoveArgs) -> Result<CallIntent, ToolError> {
        // The approval shows which job goes, as stored: one small file read.
        let jobs = self.0.list().map_err(|e| ToolError::Other(e.to_string()))?;
        let job = jobs.iter().find(|j| j.id == a.id).ok_or_else(|| {
            ToolError::InvalidArguments(format!(
                "no job {:?} in this workspace; cron_list shows the ids",
                a.id
            ))
        })?;
        Ok(CallIntent::schedules(ScheduleIntent::Remove {
            id: job.id.clone(),
            job: format!("{}: {}", job.schedule, job.prompt),
        }))
    }
    fn default_timeout(&self) -> Duration {
        Duration::from_secs(30)
    }
    async fn run(&self, a: Arc<RemoveArgs>, _ctx: &ToolContext) -> ToolResult {
        let store = self.0.clone();
        let removed = super::blocking("cron_remove", move || {
            store
                .remove(&a.id)
                .map_err(|e| ToolError::Other(e.to_string()))
        })
        .await;
        match removed {
            Ok(job) => ToolResult::ok(format!(
                "Removed job {} ({}: {})",
                job.id, job.schedule, job.prompt
            ))
            .with(&job_data(&job)),
            Err(e) => e.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn store() -> (tempfile::TempDir, JobStore) {
        let dir = tempfile::tempdir().unwrap();
        let s = JobStore::for_workspace(dir.path(), std::path::Path::new("/w"));
        (dir, s)
    }

    fn ctx() -> ToolContext {
        ToolContext::for_workspace(std::path::Path::new("/")).unwrap()
    }

    #[tokio::test]
    async fn add_list_remove() {
        let (_d, s) = store();
        let args = json!({"schedule": "@daily", "prompt": "check deps", "approval": "supervised"});
        let intent = CronAdd(s.clone()).describe(&args).unwrap();
        assert_eq!(intent.kind(), ToolKind::Schedule);
        assert_eq!(
            intent.as_schedule(),
            Some(&ScheduleIntent::Add {
                schedule: "@daily".into(),
                prompt: "check deps".into(),
                approval: Autonomy::Supervised,
            })
        );
        let r = CronAdd(s.clone()).execute(args, &ctx()).await;
        assert!(r.success, "{r:?}");
        let id = r.data.as_ref().unwrap()["id"].as_str().unwrap().to_string();
        let listed = CronList(s.clone()).execute(json!({}), &ctx()).await;
        assert!(listed.output.contains(&id), "{listed:?}");
        let intent = CronRemove(s.clone()).describe(&json!({"id": id})).unwrap();
        assert_eq!(
            intent.as_schedule(),
            Some(&ScheduleIntent::Remove {
                id: id.clone(),
                job: "@daily: check deps".into(),
            })
        );
        let r = CronRemove(s.clone())
            .execute(json!({"id": id}), &ctx())
            .await;
        assert!(r.success, "{r:?}");
        assert!(s.list().unwrap().is_empty());
    }

    #[test]
    fn the_default_mode_is_read_only() {
        let (_d, s) = store();
        let intent = CronAdd(s)
            .describe(&json!({"schedule": "@hourly", "prompt": "x"}))
            .unwrap();
        match intent.as_schedule() {
            Some(ScheduleIntent::Add { approval, .. }) => {
                assert_eq!(*approval, Autonomy::ReadOnly)
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn bad_schedules_prompts_and_ids_are_argument_errors() {
        let (_d, s) = store();
        let e = CronAdd(s.clone())
            .describe(&json!({"schedule": "every day", "prompt": "x"}))
            .unwrap_err();
        assert!(e.to_string().contains("exactly five"), "{e}");
        let e = CronAdd(s.clone())
            .describe(&json!({"schedule": "@daily", "prompt": " "}))
            .unwrap_err();
        assert!(e.to_string().contains("prompt is empty"), "{e}");
        let e = CronAdd(s.clone())
            .describe(&json!({"schedule": "@daily", "prompt": "x", "approval": "root"}))
            .unwrap_err();
        assert!(e.to_string().contains("invalid arguments"), "{e}");
        let e = CronRemove(s).describe(&json!({"id": "nope"})).unwrap_err();
        assert!(e.to_string().contains("cron_list shows the ids"), "{e}");
    }
}
