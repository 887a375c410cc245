//! A session on a full disk (issue 10): the person is told the session could not be
//! saved, `loom exec` exits non-zero, and the transcript on disk ends with a complete line
//! and loads. Needs a small tmpfs (root); elsewhere the test says why it is skipped.

use std::path::Path;

use serde_json::Value;

use crate::exec::exec;
use crate::support::{self, ScriptedServer};

struct Mount(std::path::PathBuf);

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

fn mount_tiny_tmpfs(at: &Path) -> Option<Mount> {
    std::fs::create_dir_all(at).unwrap();
    let ok = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs"])
        .arg(at)
        .status()
        .is_ok_and(|s| s.success());
    ok.then(|| Mount(at.to_path_buf()))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_full_disk_is_reported_and_the_session_stays_loadable() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join(".home/.local/share");
    let Some(_mount) = mount_tiny_tmpfs(&data) else {
        eprintln!("skipped: mounting a tmpfs is not permitted here");
        return;
    };
    let long = "A long answer that will not fit. ".repeat(4000);
    let server = ScriptedServer::start(vec![support::text_reply(&long)]).await;
    let run = exec(dir.path(), &server, "supervised", "tell me everything").await;
    assert_eq!(run.code, 1, "a failed save makes exec fail: {}", run.stderr);
    let errors: Vec<String> = run
        .of_type("error")
        .iter()
        .map(|e| e["message"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(
        errors.iter().any(|e| e.contains("could not be saved")),
        "{errors:?}"
    );
    let sessions = data.join("loom/sessions");
    let file = std::fs::read_dir(&sessions)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .expect("the session file exists");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.ends_with('\n'),
        "no half-written line: {:?}",
        &text[text.len().saturating_sub(80)..]
    );
    for line in text.lines() {
        serde_json::from_str::<Value>(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    }
    assert!(text.contains("tell me everything"), "what fitted was saved");
}
