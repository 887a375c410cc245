//! Scheduled jobs through the real binary: the cron tools under the policy in `loom exec`
//! (denied in supervised, allowed in full-auto, never more autonomy than the session),
//! `loom cron add/list/rm` across processes, and `loom cron run` against the scripted
//! server: a due job runs as a saved session, a missed run is reported and not replayed,
//! SIGTERM stops the scheduler, and a second scheduler on one workspace is refused.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use chrono::Utc;
use serde_json::Value;

use crate::exec::{exec, loom_command, loom_in};
use crate::support::{self, ScriptedServer};

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(".gitignore"), ".home/\n").unwrap();
    dir
}

/// `loom cron list --json` in `dir`.
async fn jobs(dir: &Path) -> Vec<Value> {
    let (code, out, err) = loom_in(dir, &["cron", "list", "--json"]).await;
    assert_eq!(code, 0, "{err}");
    serde_json::from_str::<Vec<Value>>(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// The job store of `dir` as `loom` opens it (data dir under `dir/.home`).
fn store(dir: &Path) -> loom::cron::JobStore {
    let data = dir.join(".home/.local/share/loom");
    loom::cron::JobStore::for_workspace(&data, &std::fs::canonicalize(dir).unwrap())
}

/// Add a job with `loom cron add` and return its id.
async fn add(dir: &Path, schedule: &str, prompt: &str, approval: &str) -> String {
    let (code, out, err) = loom_in(
        dir,
        &["cron", "add", schedule, prompt, "--approval", approval],
    )
    .await;
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("added job "), "{out}");
    out["added job ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .to_string()
}

/// `loom cron run` in `dir` against `server`, a fast tick, stderr to a file.
fn scheduler(dir: &Path, server: &ScriptedServer, stderr: &Path) -> tokio::process::Child {
    let home = dir.join(".home");
    loom_command(&home)
        .args(["cron", "run", "--model", "scripted-model", "--base-url"])
        .arg(server.base_url())
        .arg("-C")
        .arg(dir)
        .env("LOOM_CRON_TICK_MS", "100")
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(stderr).unwrap())
        .spawn()
        .unwrap()
}

/// Wait (at most `secs`) until `check` holds, polling.
async fn wait_for<F, Fut>(secs: u64, what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let start = Instant::now();
    while !check().await {
        assert!(
            start.elapsed() < Duration::from_secs(secs),
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn sigterm(child: &tokio::process::Child) {
    let pid = nix::unistd::Pid::from_raw(child.id().unwrap() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
}

async fn exits_within(child: &mut tokio::process::Child, secs: u64) -> i32 {
    tokio::time::timeout(Duration::from_secs(secs), child.wait())
        .await
        .expect("the scheduler stops")
        .unwrap()
        .code()
        .unwrap_or(-1)
}

fn add_call(approval: &str) -> support::Reply {
    let args = format!(
        r#"{{"schedule": "0 3 * * *", "prompt": "run the tests and fix what fails", "approval": "{approval}"}}"#
    );
    support::calls_openai(&[("c1", "cron_add", &args)])
}

/// Nobody can approve in `loom exec`: adding a job in supervised mode is refused, with
/// the reason the model reads, and nothing is stored.
#[tokio::test(flavor = "multi_thread")]
async fn cron_add_is_denied_in_supervised_exec() {
    let dir = workspace();
    let server =
        ScriptedServer::start(vec![add_call("read-only"), support::text_reply("ok")]).await;
    let run = exec(
        dir.path(),
        &server,
        "supervised",
        "schedule the nightly tests",
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let approval = run.of_type("approval");
    assert_eq!(approval.len(), 1, "{:#?}", run.events);
    assert_eq!(approval[0]["decision"], "denied");
    let reason = approval[0]["reason"].as_str().unwrap();
    assert!(reason.contains("only with your approval"), "{reason}");
    assert!(reason.contains("headless"), "{reason}");
    let call = &run.of_type("tool_call")[0];
    assert_eq!(call["touches"]["kind"], "schedule");
    assert_eq!(call["touches"]["schedule"]["action"], "add");
    assert!(jobs(dir.path()).await.is_empty());
}

/// In full-auto the job is added (with the mode asked for, and the session that added
/// it), listed, and removed again, all through the tools.
#[tokio::test(flavor = "multi_thread")]
async fn cron_add_list_remove_run_in_full_auto_exec() {
    let dir = workspace();
    let server =
        ScriptedServer::start(vec![add_call("supervised"), support::text_reply("added")]).await;
    let run = exec(
        dir.path(),
        &server,
        "full-auto",
        "schedule the nightly tests",
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let result = &run.of_type("tool_result")[0];
    assert_eq!(result["success"], true, "{result:#?}");
    let session = run.of_type("session_started")[0]["session_id"].clone();
    let listed = jobs(dir.path()).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["approval"], "supervised");
    assert_eq!(listed[0]["schedule"], "0 3 * * *");
    assert_eq!(
        listed[0]["added_by"],
        format!("session {}", session.as_str().unwrap())
    );
    let id = listed[0]["id"].as_str().unwrap().to_string();

    let remove = format!(r#"{{"id": "{id}"}}"#);
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("l1", "cron_list", "{}")]),
        support::calls_openai(&[("r1", "cron_remove", &remove)]),
        support::text_reply("removed"),
    ])
    .await;
    let run = exec(dir.path(), &server, "full-auto", "remove the nightly job").await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let results = run.of_type("tool_result");
    assert!(
        results[0]["output"].as_str().unwrap().contains(&id),
        "{results:#?}"
    );
    assert_eq!(results[1]["success"], true, "{results:#?}");
    assert!(jobs(dir.path()).await.is_empty());
}

/// A job may not ask for more autonomy than the session has: refused with a reason that
/// says so (before "nobody can approve" is even considered), nothing stored.
#[tokio::test(flavor = "multi_thread")]
async fn cron_add_asking_for_more_autonomy_than_the_session_is_refused() {
    let dir = workspace();
    let server =
        ScriptedServer::start(vec![add_call("full-auto"), support::text_reply("ok")]).await;
    let run = exec(dir.path(), &server, "supervised", "schedule it").await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let approval = &run.of_type("approval")[0];
    assert_eq!(approval["decision"], "denied");
    let reason = approval["reason"].as_str().unwrap();
    assert!(
        reason.contains("full-auto mode, more autonomy than this session has (supervised)"),
        "{reason}"
    );
    assert!(
        reason.contains("loom cron add --approval full-auto"),
        "{reason}"
    );
    assert!(jobs(dir.path()).await.is_empty());
}

/// What one process adds, another lists and a third removes; bad input is a usage error
/// that stores nothing.
#[tokio::test(flavor = "multi_thread")]
async fn cron_add_list_rm_round_trip_across_processes() {
    let dir = workspace();
    let a = add(
        dir.path(),
        "30 2 * * 1-5",
        "check the dependencies",
        "supervised",
    )
    .await;
    let b = add(
        dir.path(),
        "@weekly",
        "summarise the week's commits",
        "read-only",
    )
    .await;
    let listed = jobs(dir.path()).await;
    let ids: Vec<&str> = listed.iter().map(|j| j["id"].as_str().unwrap()).collect();
    assert_eq!(ids, [a.as_str(), b.as_str()]);
    assert_eq!(listed[0]["approval"], "supervised");
    assert_eq!(listed[0]["added_by"], "loom cron add");
    assert!(listed[0]["next_run"].is_string());
    let (code, out, _) = loom_in(dir.path(), &["cron", "list"]).await;
    assert_eq!(code, 0);
    assert!(
        out.contains(&format!(
            "{a}  30 2 * * 1-5  (supervised)  check the dependencies"
        )),
        "{out}"
    );
    assert!(out.contains("never run yet"), "{out}");

    let (code, _, err) = loom_in(dir.path(), &["cron", "add", "61 * * * *", "x"]).await;
    assert_eq!(code, 2);
    assert!(err.contains("is not a valid schedule"), "{err}");
    let (code, _, err) = loom_in(
        dir.path(),
        &["cron", "add", "@daily", "x", "--approval", "root"],
    )
    .await;
    assert_eq!(code, 2);
    assert!(err.contains("unknown approval mode"), "{err}");

    let (code, out, err) = loom_in(dir.path(), &["cron", "rm", &a]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&format!("removed job {a}")), "{out}");
    let (code, _, err) = loom_in(dir.path(), &["cron", "rm", &a]).await;
    assert_eq!(code, 1);
    assert!(err.contains("loom cron list"), "{err}");
    let listed = jobs(dir.path()).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["id"], b.as_str());
}

/// A job due in ~2 s is run by `loom cron run` as a headless session against the
/// scripted server: the session is saved and listed with its `cron:` title, the job
/// records when it ran, how it ended and the session; SIGTERM then stops the scheduler.
#[tokio::test(flavor = "multi_thread")]
async fn a_due_job_runs_as_a_saved_session_and_sigterm_stops_the_scheduler() {
    let dir = workspace();
    let id = add(dir.path(), "* * * * *", "say hello from cron", "supervised").await;
    // Every minute is too slow for a test: the job comes due in two seconds instead.
    store(dir.path())
        .update(|jobs| {
            jobs[0].next_run = Some(Utc::now() + chrono::Duration::seconds(2));
            Ok(())
        })
        .unwrap();
    let server = ScriptedServer::start(vec![support::text_reply("hello from cron")]).await;
    let log = dir.path().join(".home/cron.log");
    let mut child = scheduler(dir.path(), &server, &log);
    wait_for(60, "the job's run to be recorded", || async {
        jobs(dir.path()).await[0]["last_run"].is_object()
    })
    .await;
    sigterm(&child);
    let code = exits_within(&mut child, 15).await;
    let stderr = std::fs::read_to_string(&log).unwrap();
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("loom cron: stopped"), "{stderr}");

    let job = &jobs(dir.path()).await[0];
    let last = &job["last_run"];
    assert_eq!(last["outcome"], "done", "{job:#?}\n{stderr}");
    let session = last["session_id"].as_str().unwrap().to_string();
    assert!(job["next_run"].as_str().unwrap() > last["at"].as_str().unwrap());
    assert_eq!(job["missed"], 0, "{job:#?}");
    assert!(
        stderr.contains(&format!("job {id} done (session {session})")),
        "{stderr}"
    );

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let user = requests[0]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "user")
        .unwrap();
    assert!(user["content"].to_string().contains("say hello from cron"));
    let tools: Vec<&str> = requests[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(
        !tools.iter().any(|t| t.starts_with("cron_")),
        "a scheduled run cannot schedule more jobs: {tools:?}"
    );

    let (code, out, err) = loom_in(dir.path(), &["sessions", "--here"]).await;
    assert_eq!(code, 0, "{err}");
    let line = out
        .lines()
        .find(|l| l.starts_with(&session))
        .unwrap_or_else(|| panic!("session {session} is listed: {out}"));
    assert!(line.contains("cron: say hello from cron"), "{line}");
}

/// A job whose run came due long before the scheduler started is reported (stderr and a
/// count on the job) and not replayed: the server is never asked.
#[tokio::test(flavor = "multi_thread")]
async fn a_missed_run_is_reported_not_replayed() {
    let dir = workspace();
    let id = add(dir.path(), "@hourly", "the hourly check", "read-only").await;
    store(dir.path())
        .update(|jobs| {
            jobs[0].next_run = Some(Utc::now() - chrono::Duration::days(1));
            Ok(())
        })
        .unwrap();
    let server = ScriptedServer::start(vec![support::text_reply("should not run")]).await;
    let log = dir.path().join(".home/cron.log");
    let mut child = scheduler(dir.path(), &server, &log);
    wait_for(30, "the missed runs to be recorded", || async {
        jobs(dir.path()).await[0]["missed"].as_u64().unwrap_or(0) > 0
    })
    .await;
    // A few more ticks: a replay would happen now if it were going to.
    tokio::time::sleep(Duration::from_millis(500)).await;
    sigterm(&child);
    assert_eq!(exits_within(&mut child, 15).await, 0);
    let stderr = std::fs::read_to_string(&log).unwrap();
    assert!(
        stderr.contains(&format!("job {id} missed 2")) && stderr.contains("not replayed"),
        "{stderr}"
    );
    let job = &jobs(dir.path()).await[0];
    assert!(job["missed"].as_u64().unwrap() >= 24, "{job:#?}");
    assert!(job["last_run"].is_null(), "{job:#?}");
    assert!(
        job["next_run"].as_str().unwrap() > Utc::now().to_rfc3339().as_str(),
        "{job:#?}"
    );
    assert!(server.requests().is_empty(), "nothing was replayed");
}

/// One scheduler per workspace: a second `loom cron run` refuses at once, naming the
/// first; once the first stops, a new one starts.
#[tokio::test(flavor = "multi_thread")]
async fn a_second_scheduler_on_one_workspace_is_refused() {
    let dir = workspace();
    let server = ScriptedServer::start(vec![]).await;
    let log: PathBuf = dir.path().join(".home/first.log");
    std::fs::create_dir_all(dir.path().join(".home")).unwrap();
    let mut first = scheduler(dir.path(), &server, &log);
    wait_for(30, "the first scheduler to start", || async {
        std::fs::read_to_string(&log).is_ok_and(|s| s.contains("running the jobs"))
    })
    .await;
    let second_log = dir.path().join(".home/second.log");
    let mut second = scheduler(dir.path(), &server, &second_log);
    let code = exits_within(&mut second, 15).await;
    let err = std::fs::read_to_string(&second_log).unwrap();
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("already running this workspace's jobs")
            && err.contains(&format!("(pid {})", first.id().unwrap())),
        "{err}"
    );
    sigterm(&first);
    assert_eq!(exits_within(&mut first, 15).await, 0);
    let mut third = scheduler(dir.path(), &server, &second_log);
    wait_for(30, "a new scheduler to start", || async {
        std::fs::read_to_string(&second_log).is_ok_and(|s| s.contains("running the jobs"))
    })
    .await;
    sigterm(&third);
    assert_eq!(exits_within(&mut third, 15).await, 0);
}

/// SIGTERM while a job runs (the model streams forever here): the run is interrupted,
/// recorded as such with its session, and the scheduler stops.
#[tokio::test(flavor = "multi_thread")]
async fn sigterm_during_a_run_interrupts_and_records_it() {
    let dir = workspace();
    add(dir.path(), "* * * * *", "talk forever", "read-only").await;
    store(dir.path())
        .update(|jobs| {
            jobs[0].next_run = Some(Utc::now());
            Ok(())
        })
        .unwrap();
    let server = ScriptedServer::start(vec![support::Reply::Endless]).await;
    let log = dir.path().join(".home/cron.log");
    let mut child = scheduler(dir.path(), &server, &log);
    wait_for(30, "the run to reach the model", || async {
        !server.requests().is_empty()
    })
    .await;
    sigterm(&child);
    let code = exits_within(&mut child, 20).await;
    let stderr = std::fs::read_to_string(&log).unwrap();
    assert_eq!(code, 0, "{stderr}");
    let job = &jobs(dir.path()).await[0];
    assert_eq!(
        job["last_run"]["outcome"], "interrupted",
        "{job:#?}\n{stderr}"
    );
    assert!(job["last_run"]["session_id"].is_string(), "{job:#?}");
    assert!(stderr.contains("loom cron: stopped"), "{stderr}");
}
