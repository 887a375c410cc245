//! Where a workspace's scheduled jobs live: one JSON file per workspace under
//! `cron/` in Loom's data directory (`~/.local/share/loom/cron/<hash>.json`, the hash of
//! the workspace path; the file names the workspace too).
//!
//! Two processes may touch the file at once (the TUI adding a job while `loom cron run`
//! records a run). Every change is a read-modify-write under an exclusive `flock` on
//! `<file>.lock`, then an atomic replace (temp file, fsync, rename), so no update is
//! lost and a crash leaves the old file or the new one. A lock rather than
//! compare-on-write: the kernel drops a `flock` when its holder dies, so there is never a
//! stale lock to clean up, and writers simply wait their turn (each holds it for one small
//! file write) instead of looping on conflicts. Reads take no lock: the file is always
//! whole. The same pattern as the trust store.
//!
//! A second, separate lock (`<file>.run`) is held by `loom cron run` for as long as it
//! runs, so two schedulers never run one workspace's jobs.

use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Local, Utc};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::schedule::Schedule;
use crate::config::file::read_regular;
use crate::policy::Autonomy;

/// The largest jobs file Loom reads.
const MAX_STORE_BYTES: u64 = 4 * 1024 * 1024;
/// The most jobs one workspace may have.
pub const MAX_JOBS: usize = 100;
/// The longest prompt a job may carry, in bytes.
pub const MAX_PROMPT_BYTES: usize = 16 * 1024;

/// Why the jobs file could not be used.
#[derive(Debug, Error)]
pub enum StoreError {
    /// The file could not be read (permissions, not a regular file, too large).
    #[error("cannot read the jobs file {path}: {message}")]
    Read {
        /// The jobs file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The file is not one Loom wrote.
    #[error(
        "the jobs file {path} is damaged ({message}); the next change moves it aside to \
         {path}.damaged and starts a new one"
    )]
    Damaged {
        /// The jobs file.
        path: PathBuf,
        /// What the JSON parser said.
        message: String,
    },
    /// A change could not be saved; the file is as it was.
    #[error("cannot save the jobs file {path}: {source}")]
    Write {
        /// The jobs file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// No job has that id.
    #[error("no job {0:?} in this workspace; `loom cron list` shows the ids")]
    NotFound(String),
    /// The workspace has as many jobs as it may.
    #[error("this workspace already has {MAX_JOBS} jobs; remove one first (`loom cron rm ID`)")]
    Full,
    /// The prompt is empty or too long.
    #[error("{0}")]
    Prompt(String),
    /// The schedule never fires again.
    #[error("the schedule {0:?} never fires again")]
    NeverFires(String),
    /// Another scheduler runs this workspace's jobs.
    #[error(
        "another `loom cron run`{pid} is already running this workspace's jobs; stop it \
         first (one scheduler per workspace, so no job runs twice)"
    )]
    Busy {
        /// The other scheduler's process id, as it wrote it (`" (pid N)"`, or empty).
        pid: String,
    },
}

/// How a job's last run ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastRun {
    /// When it started.
    pub at: DateTime<Utc>,
    /// `done`, `failed: …`, `interrupted`, `round_cap`, `truncated`, or why it could not
    /// start.
    pub outcome: String,
    /// The session it ran as (see `loom sessions`), when one was started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}

/// One scheduled job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Job {
    /// Short id, unique in the workspace.
    pub id: String,
    /// The cron expression, as given.
    pub schedule: String,
    /// What the job asks the model.
    pub prompt: String,
    /// The approval mode it runs with: never more than the person approved.
    pub approval: Autonomy,
    /// When it was added.
    pub created_at: DateTime<Utc>,
    /// Who added it: `loom cron add`, or the session whose `cron_add` the person approved.
    pub added_by: String,
    /// When it runs next (`None`: never again).
    pub next_run: Option<DateTime<Utc>>,
    /// Its last run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_run: Option<LastRun>,
    /// How many scheduled runs were missed (the scheduler was not running, or busy).
    #[serde(default)]
    pub missed: u64,
    /// When the last missed run was due.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_missed: Option<DateTime<Utc>>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct File {
    workspace: PathBuf,
    jobs: Vec<Job>,
}

/// The next time `schedule` fires after `now`, read in the local time zone (as cron does).
pub fn next_run(schedule: &Schedule, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    schedule
        .next_after(&now.with_timezone(&Local))
        .map(|t| t.with_timezone(&Utc))
}

/// The jobs of one workspace.
#[derive(Debug, Clone)]
pub struct JobStore {
    path: PathBuf,
    workspace: PathBuf,
}

impl JobStore {
    /// The store of `workspace` (a canonical path) under the data directory `data_dir`.
    pub fn for_workspace(data_dir: &Path, workspace: &Path) -> JobStore {
        let hash = crate::config::trust::fingerprint(workspace.as_os_str().as_encoded_bytes());
        JobStore {
            path: data_dir.join("cron").join(format!("{}.json", &hash[..16])),
            workspace: workspace.to_path_buf(),
        }
    }

    /// The store of `workspace` in Loom's data directory (`None`: no data directory).
    pub fn open(workspace: &Path) -> Option<JobStore> {
        crate::base::dirs::data_dir().map(|d| JobStore::for_workspace(&d, workspace))
    }

    /// The jobs file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The workspace whose jobs these are.
    pub fn workspace(&self) -> &Path {
        &self.workspace
    }

    fn load(&self) -> Result<File, StoreError> {
        let bytes = read_regular(&self.path, MAX_STORE_BYTES).map_err(|e| StoreError::Read {
            path: self.path.clone(),
            message: e.to_string(),
        })?;
        match bytes {
            None => Ok(File {
                workspace: self.workspace.clone(),
                jobs: Vec::new(),
            }),
            Some(b) => serde_json::from_slice(&b).map_err(|e| StoreError::Damaged {
                path: self.path.clone(),
                message: e.to_string(),
            }),
        }
    }

    /// Every job, in the order added.
    pub fn list(&self) -> Result<Vec<Job>, StoreError> {
        Ok(self.load()?.jobs)
    }

    /// Under the file's lock: read the jobs, let `change` change them, save. `change`
    /// returns an error to leave the file untouched.
    pub fn update<T>(
        &self,
        change: impl FnOnce(&mut Vec<Job>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let write_err = |source: std::io::Error| StoreError::Write {
            path: self.path.clone(),
            source,
        };
        let _lock = crate::lockfile::exclusive(&self.path.with_extension("json.lock"), true)
            .map_err(write_err)?
            .ok_or_else(|| write_err(std::io::Error::other("the lock was not taken")))?;
        let mut file = match self.load() {
            Ok(f) => f,
            Err(StoreError::Damaged { .. }) => {
                let aside = self.path.with_extension("json.damaged");
                std::fs::rename(&self.path, &aside).map_err(write_err)?;
                File::default()
            }
            Err(e) => return Err(e),
        };
        file.workspace = self.workspace.clone();
        let out = change(&mut file.jobs)?;
        let text =
            serde_json::to_vec_pretty(&file).map_err(|e| write_err(std::io::Error::other(e)))?;
        crate::private::write_atomic(&self.path, &text).map_err(write_err)?;
        Ok(out)
    }

    /// Add a job running `prompt` on `schedule` with `approval`; `added_by` says who added
    /// it. Its first run is the schedule's next time after `now`.
    pub fn add(
        &self,
        schedule: &Schedule,
        prompt: &str,
        approval: Autonomy,
        added_by: &str,
        now: DateTime<Utc>,
    ) -> Result<Job, StoreError> {
        check_prompt(prompt)?;
        let next =
            next_run(schedule, now).ok_or_else(|| StoreError::NeverFires(schedule.to_string()))?;
        self.update(|jobs| {
            if jobs.len() >= MAX_JOBS {
                return Err(StoreError::Full);
            }
            let id = loop {
                let id = format!("{:06x}", fastrand::u32(..0x100_0000));
                if !jobs.iter().any(|j| j.id == id) {
                    break id;
                }
            };
            let job = Job {
                id,
                schedule: schedule.to_string(),
                prompt: prompt.trim().to_string(),
                approval,
                created_at: now,
                added_by: added_by.to_string(),
                next_run: Some(next),
                last_run: None,
                missed: 0,
                last_missed: None,
            };
            jobs.push(job.clone());
            Ok(job)
        })
    }

    /// Remove job `id`; returns it.
    pub fn remove(&self, id: &str) -> Result<Job, StoreError> {
        self.update(|jobs| {
            let at = jobs
                .iter()
                .position(|j| j.id == id)
                .ok_or_else(|| StoreError::NotFound(id.to_string()))?;
            Ok(jobs.remove(at))
        })
    }

    /// Take the scheduler's lock on this workspace, held until the value is dropped (or
    /// the process ends); `Busy` when another scheduler holds it.
    pub fn lock_scheduler(&self) -> Result<SchedulerLock, StoreError> {
        let path = self.path.with_extension("json.run");
        let write_err = |source: std::io::Error| StoreError::Write {
            path: path.clone(),
            source,
        };
        match crate::lockfile::exclusive(&path, false).map_err(write_err)? {
            Some(mut held) => {
                // Say who holds it, for the refusal a second scheduler prints.
                let _ = held.set_len(0);
                let _ = held.rewind();
                let _ = write!(held, "{}", std::process::id());
                Ok(SchedulerLock { _held: held })
            }
            None => {
                let mut pid = String::new();
                if let Ok(f) = std::fs::File::open(&path) {
                    let _ = f.take(32).read_to_string(&mut pid);
                }
                let pid = pid.trim();
                Err(StoreError::Busy {
                    pid: if !pid.is_empty() && pid.chars().all(|c| c.is_ascii_digit()) {
                        format!(" (pid {pid})")
                    } else {
                        String::new()
                    },
                })
            }
        }
    }
}

/// The lock a running scheduler holds on its workspace.
#[derive(Debug)]
pub struct SchedulerLock {
    _held: nix::fcntl::Flock<std::fs::File>,
}

/// Refuse an empty or oversized prompt.
pub fn check_prompt(prompt: &str) -> Result<(), StoreError> {
    if prompt.trim().is_empty() {
        return Err(StoreError::Prompt(
            "the prompt is empty; say what the job should do".into(),
        ));
    }
    if prompt.len() > MAX_PROMPT_BYTES {
        return Err(StoreError::Prompt(format!(
            "the prompt is {} bytes; a job's prompt may have at most {MAX_PROMPT_BYTES} (put \
             long instructions in a file and ask the job to read it)",
            prompt.len()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, JobStore) {
        let dir = tempfile::tempdir().unwrap();
        let s = JobStore::for_workspace(&dir.path().join("data"), Path::new("/w/project"));
        (dir, s)
    }

    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-11-20T10:17:30Z")
            .unwrap()
            .with_timezone(&Utc)
    }

    #[test]
    fn add_list_remove() {
        let (_d, s) = store();
        assert!(s.list().unwrap().is_empty(), "no file yet: no jobs");
        let daily = Schedule::parse("@daily").unwrap();
        let a = s
            .add(
                &daily,
                " run the tests ",
                Autonomy::Supervised,
                "loom cron add",
                now(),
            )
            .unwrap();
        assert_eq!(a.prompt, "run the tests");
        assert!(a.next_run.unwrap() > now());
        let b = s
            .add(&daily, "check deps", Autonomy::ReadOnly, "session x", now())
            .unwrap();
        assert_ne!(a.id, b.id);
        let listed = s.list().unwrap();
        assert_eq!(listed, vec![a.clone(), b.clone()]);
        assert_eq!(s.remove(&a.id).unwrap(), a);
        assert_eq!(s.list().unwrap(), vec![b]);
        match s.remove(&a.id) {
            Err(StoreError::NotFound(id)) => assert_eq!(id, a.id),
            other => panic!("{other:?}"),
        }
        let text = std::fs::read_to_string(s.path()).unwrap();
        assert!(text.contains("\"workspace\": \"/w/project\""), "{text}");
    }

    #[test]
    fn stores_are_per_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let a = JobStore::for_workspace(dir.path(), Path::new("/w/a"));
        let b = JobStore::for_workspace(dir.path(), Path::new("/w/b"));
        assert_ne!(a.path(), b.path());
        a.add(
            &Schedule::parse("@hourly").unwrap(),
            "x",
            Autonomy::ReadOnly,
            "t",
            now(),
        )
        .unwrap();
        assert_eq!(a.list().unwrap().len(), 1);
        assert!(b.list().unwrap().is_empty());
    }

    #[test]
    fn bad_prompts_and_a_full_store_are_refused_and_change_nothing() {
        let (_d, s) = store();
        let h = Schedule::parse("@hourly").unwrap();
        let e = s.add(&h, "  ", Autonomy::ReadOnly, "t", now()).unwrap_err();
        assert!(e.to_string().contains("prompt is empty"), "{e}");
        let long = "x".repeat(MAX_PROMPT_BYTES + 1);
        let e = s
            .add(&h, &long, Autonomy::ReadOnly, "t", now())
            .unwrap_err();
        assert!(e.to_string().contains("at most"), "{e}");
        assert!(!s.path().exists(), "nothing was written");
        for _ in 0..MAX_JOBS {
            s.add(&h, "x", Autonomy::ReadOnly, "t", now()).unwrap();
        }
        let e = s.add(&h, "x", Autonomy::ReadOnly, "t", now()).unwrap_err();
        assert!(matches!(e, StoreError::Full), "{e}");
        assert_eq!(s.list().unwrap().len(), MAX_JOBS);
    }

    /// Two writers at once (threads here; processes in tests/it/cron.rs) lose nothing:
    /// every update is a read-modify-write under the lock.
    #[test]
    fn concurrent_adds_all_land() {
        let (_d, s) = store();
        let h = Schedule::parse("@hourly").unwrap();
        std::thread::scope(|scope| {
            for t in 0..4 {
                let (s, h) = (&s, &h);
                scope.spawn(move || {
                    for i in 0..10 {
                        s.add(h, &format!("{t}-{i}"), Autonomy::ReadOnly, "t", now())
                            .unwrap();
                    }
                });
            }
        });
        assert_eq!(s.list().unwrap().len(), 40);
        let mut names: Vec<_> = std::fs::read_dir(s.path().parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(
            names.len(),
            2,
            "the file and its lock, no temp files: {names:?}"
        );
    }

    #[test]
    fn a_damaged_file_is_an_error_then_moved_aside_by_the_next_change() {
        let (_d, s) = store();
        std::fs::create_dir_all(s.path().parent().unwrap()).unwrap();
        std::fs::write(s.path(), "{not json").unwrap();
        let e = s.list().unwrap_err();
        assert!(e.to_string().contains("is damaged"), "{e}");
        s.add(
            &Schedule::parse("@hourly").unwrap(),
            "x",
            Autonomy::ReadOnly,
            "t",
            now(),
        )
        .unwrap();
        assert_eq!(s.list().unwrap().len(), 1);
        let aside = s.path().with_extension("json.damaged");
        assert_eq!(std::fs::read_to_string(aside).unwrap(), "{not json");
    }

    /// One scheduler per workspace: the second is refused, naming the first's pid, until
    /// the first lets go.
    #[test]
    fn the_scheduler_lock_is_exclusive() {
        let (_d, s) = store();
        let held = s.lock_scheduler().unwrap();
        match s.lock_scheduler() {
            Err(StoreError::Busy { pid }) => {
                assert_eq!(pid, format!(" (pid {})", std::process::id()));
            }
            other => panic!("{other:?}"),
        }
        drop(held);
        s.lock_scheduler().unwrap();
    }
}
