//! `loom cron list|add|rm|run`: scheduled jobs from the command line.
//!
//! `list`, `add` and `rm` change the same per-workspace store the cron tools use; the
//! person typing is the approver, so any approval mode may be given (default read-only).
//! `run` is the scheduler: each due job runs as a headless session started exactly like
//! `loom exec` ([`crate::exec::start`], [`crate::exec::drive`]), with the job's own
//! approval mode and nobody to ask, titled `cron: PROMPT` so `loom sessions` shows it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use chrono::Utc;
use tokio_util::sync::CancellationToken;

use crate::cli::CronCommand;
use crate::config::{self, FlagConfig};
use crate::cron::scheduler::{self, RunReport, local};
use crate::cron::{Job, JobStore, Schedule};
use crate::exec::{self, StartOptions};
use crate::policy::Autonomy;
use crate::printable;

/// Exit code for bad usage.
const EXIT_USAGE: u8 = 2;

/// Run a `loom cron` subcommand for the workspace at `root`; `flags` are the command
/// line's configuration flags (`--approval` is the new job's mode for `add`).
pub async fn run(
    root: &Path,
    flags: &FlagConfig,
    command: &CronCommand,
) -> anyhow::Result<ExitCode> {
    let Some(store) = JobStore::open(root) else {
        eprintln!("loom: no data directory, so no jobs can be stored");
        return Ok(ExitCode::from(1));
    };
    match command {
        CronCommand::List { json } => list(&store, *json),
        CronCommand::Add { schedule, prompt } => add(&store, flags, schedule, prompt),
        CronCommand::Rm { id } => Ok(match store.remove(id) {
            Ok(job) => {
                println!(
                    "removed job {} ({}: {})",
                    job.id,
                    printable::line(&job.schedule),
                    printable::line(&job.prompt)
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("loom: {e}");
                ExitCode::from(1)
            }
        }),
        CronCommand::Run => run_scheduler(root.to_path_buf(), store, flags.clone()).await,
    }
}

fn list(store: &JobStore, json: bool) -> anyhow::Result<ExitCode> {
    let jobs = match store.list() {
        Ok(j) => j,
        Err(e) => {
            eprintln!("loom: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    let mut out = std::io::stdout().lock();
    if json {
        serde_json::to_writer(&mut out, &jobs)?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    if jobs.is_empty() {
        writeln!(
            out,
            "no scheduled jobs in this workspace (add one: loom cron add SCHEDULE PROMPT)"
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    for j in &jobs {
        writeln!(out, "{}", line(j))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// A job in a few lines: id, schedule, mode, prompt; next run; last run; missed runs.
fn line(j: &Job) -> String {
    let mut l = format!(
        "{}  {}  ({})  {}\n    next {}",
        j.id,
        printable::line(&j.schedule),
        j.approval,
        printable::line(j.prompt.lines().next().unwrap_or("")),
        j.next_run.map(local).unwrap_or_else(|| "never".into()),
    );
    match &j.last_run {
        Some(r) => l.push_str(&format!(
            "  last {}: {}{}",
            local(r.at),
            printable::line(&r.outcome),
            r.session_id
                .as_ref()
                .map(|s| format!(" (session {s})"))
                .unwrap_or_default()
        )),
        None => l.push_str("  never run yet"),
    }
    if j.missed > 0 {
        l.push_str(&format!(
            "  missed {}{}",
            j.missed,
            j.last_missed
                .map(|t| format!(" (last due {})", local(t)))
                .unwrap_or_default()
        ));
    }
    l
}

fn add(
    store: &JobStore,
    flags: &FlagConfig,
    schedule: &str,
    prompt: &str,
) -> anyhow::Result<ExitCode> {
    let approval = match flags.approval.as_deref() {
        None => Autonomy::ReadOnly,
        Some(s) => match Autonomy::parse(s) {
            Some(a) => a,
            None => {
                eprintln!(
                    "loom: unknown approval mode {s:?}; use read-only, supervised or full-auto"
                );
                return Ok(ExitCode::from(EXIT_USAGE));
            }
        },
    };
    let schedule = match Schedule::parse(schedule) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("loom: {e}");
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    };
    match store.add(&schedule, prompt, approval, "loom cron add", Utc::now()) {
        Ok(job) => {
            println!(
                "added job {} ({}, {} mode), next run {}; jobs run while `loom cron run` runs \
                 for this workspace",
                job.id,
                job.schedule,
                job.approval,
                job.next_run.map(local).unwrap_or_else(|| "never".into())
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("loom: {e}");
            Ok(ExitCode::from(1))
        }
    }
}

/// `loom cron run`: the scheduler, until SIGINT or SIGTERM.
async fn run_scheduler(
    root: PathBuf,
    store: JobStore,
    flags: FlagConfig,
) -> anyhow::Result<ExitCode> {
    if flags.approval.is_some() {
        eprintln!(
            "loom: `loom cron run` takes no --approval: each job runs in the mode it was added \
             with (see `loom cron list`)"
        );
        return Ok(ExitCode::from(EXIT_USAGE));
    }
    // The configuration must load now, so a broken one is an error at start, not at 3 am.
    match config::load(&root, &flags, &|k| std::env::var(k).ok()) {
        Ok(c) => {
            if let Some(n) = c.project_trust.notice() {
                eprintln!("loom: {n}");
            }
        }
        Err(e) => {
            eprintln!("loom: {e}");
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    }
    let stop = CancellationToken::new();
    let watcher = {
        let stop = stop.clone();
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
        tokio::spawn(async move {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            stop.cancel();
        })
    };
    let tick = scheduler::tick_from_env(&|k| std::env::var(k).ok());
    let runner = |job: Job| run_one(root.clone(), flags.clone(), job, stop.clone());
    let done = scheduler::run(&store, &stop, tick, runner, |line| {
        eprintln!("{}", printable::lines(line))
    })
    .await;
    watcher.abort();
    match done {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) => {
            eprintln!("loom: {e}");
            Ok(ExitCode::from(1))
        }
    }
}

/// Run one job as a headless session: the configuration as `loom exec` would load it,
/// with the job's approval mode in place of the configured one.
async fn run_one(root: PathBuf, flags: FlagConfig, job: Job, stop: CancellationToken) -> RunReport {
    let not_started = |why: String| RunReport {
        outcome: format!("not started: {why}"),
        session_id: None,
    };
    let mut config = match config::load(&root, &flags, &|k| std::env::var(k).ok()) {
        Ok(c) => c,
        Err(e) => return not_started(e.to_string()),
    };
    config.approval.autonomy = job.approval;
    let options = StartOptions {
        title: Some(format!("cron: {}", job.prompt)),
        no_cron_tools: true,
        ..StartOptions::default()
    };
    let started = match exec::start(&config, &root, options).await {
        Ok(s) => s,
        Err(e) => return not_started(e.message),
    };
    let session_id = started.info.session_id.clone();
    let outcome = exec::drive(started.agent, job.prompt, Vec::new(), |_| {}, &stop).await;
    let end = outcome
        .end
        .as_ref()
        .and_then(|e| serde_json::to_value(e).ok())
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "stopped".into());
    let outcome = match (end.as_str(), outcome.errors.last()) {
        ("done", None) => "done".to_string(),
        (_, Some(error)) => format!("failed ({end}): {error}"),
        (end, None) => end.to_string(),
    };
    RunReport {
        outcome,
        session_id: Some(session_id),
    }
}
