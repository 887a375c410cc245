//! A session on a full disk (issue 10): the person is told the session could not be
//! saved (once, not per record), `loom exec` exits non-zero, and the transcript on disk ends
//! with a complete line and resumes. Needs a small tmpfs (root); elsewhere each test says
//! why it is skipped.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::exec::{Run, exec, loom_command};
use crate::support::{self, ScriptedServer};

struct Mount(PathBuf);

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

/// The `error` events' messages about saving.
fn save_errors(run: &Run) -> Vec<String> {
    run.of_type("error")
        .iter()
        .map(|e| e["message"].as_str().unwrap_or("").to_string())
        .filter(|m| m.contains("saved") || m.contains("written"))
        .collect()
}

fn session_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_full_disk_is_reported_once_and_the_session_stays_loadable() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join(".home/.local/share");
    let Some(_mount) = mount_tiny_tmpfs(&data) else {
        eprintln!("skipped: mounting a tmpfs is not permitted here");
        return;
    };
    // Two tool results and an answer, each larger than the whole file system: every one
    // of them fails to be saved, and the person hears about it once.
    let big: String = (0..2500)
        .map(|i| format!("line {i:05} of a big file\n"))
        .collect();
    std::fs::write(dir.path().join("big.txt"), &big).unwrap();
    let read = r#"{"path": "big.txt"}"#;
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("c1", "read_file", read)]),
        support::calls_openai(&[("c2", "read_file", read)]),
        support::text_reply(&"A long answer that will not fit. ".repeat(4000)),
    ])
    .await;
    let run = exec(dir.path(), &server, "supervised", "tell me everything").await;
    assert_eq!(run.code, 1, "a failed save makes exec fail: {}", run.stderr);
    assert_eq!(run.of_type("tool_result").len(), 2, "the work went on");
    let errors = save_errors(&run);
    assert_eq!(
        errors.len(),
        1,
        "once per streak, not per record: {errors:?}"
    );
    assert!(errors[0].contains("could not be saved"), "{errors:?}");

    let sessions = data.join("loom/sessions");
    let files = session_files(&sessions);
    assert_eq!(files.len(), 1, "{files:?}");
    let text = std::fs::read_to_string(&files[0]).unwrap();
    assert!(
        text.ends_with('\n'),
        "no half-written line: {:?}",
        &text[text.len().saturating_sub(80)..]
    );
    for line in text.lines() {
        serde_json::from_str::<Value>(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    }
    assert!(text.contains("tell me everything"), "what fitted was saved");

    // The saved part resumes (elsewhere, as this disk is still full): the loader finds
    // nothing damaged and the model sees the earlier prompt.
    let id = run.of_type("session_started")[0]["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    let other = tempfile::tempdir().unwrap();
    let home = other.path().join(".home");
    let moved = home.join(".local/share/loom/sessions");
    std::fs::create_dir_all(&moved).unwrap();
    std::fs::copy(&files[0], moved.join(format!("{id}.jsonl"))).unwrap();
    let server = ScriptedServer::start(vec![support::text_reply("go on then")]).await;
    let out = loom_command(&home)
        .args([
            "exec",
            "--json",
            "--model",
            "scripted-model",
            "--resume",
            &id,
        ])
        .arg("--base-url")
        .arg(server.base_url())
        .arg("-C")
        .arg(other.path())
        .arg("and now?")
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(!stdout.contains("unreadable"), "{stdout}");
    let request = server.requests()[0]["messages"].to_string();
    assert!(request.contains("tell me everything"), "{request}");
    assert!(request.contains("and now?"), "{request}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_data_dir_full_from_the_start_is_an_error_and_leaves_no_empty_session() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join(".home/.local/share");
    let Some(_mount) = mount_tiny_tmpfs(&data) else {
        eprintln!("skipped: mounting a tmpfs is not permitted here");
        return;
    };
    std::fs::create_dir_all(data.join("loom/sessions")).unwrap();
    let filler = data.join("filler");
    let full = std::fs::write(&filler, vec![b'x'; 128 * 1024]).is_err();
    assert!(full, "128 KiB do not fit in 64 KiB");

    let write = r#"{"path": "new.txt", "content": "hello\n"}"#;
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("c1", "write_file", write)]),
        support::text_reply("could not write it"),
    ])
    .await;
    let run = exec(dir.path(), &server, "full-auto", "hi").await;
    assert_eq!(
        run.code, 1,
        "an unsaved session makes exec fail: {}",
        run.stderr
    );
    let errors = save_errors(&run);
    assert!(
        errors.iter().any(|e| e.contains("session cannot be saved")),
        "{errors:?}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e.contains("undo journal could not be written")),
        "{errors:?}"
    );
    let results = run.of_type("tool_result");
    assert_eq!(results[0]["success"], false, "{results:?}");
    assert!(
        results[0]["error"]
            .to_string()
            .contains("nothing was written"),
        "{results:?}"
    );
    assert!(
        !dir.path().join("new.txt").exists(),
        "an unrecorded change is not made"
    );
    let answers = run.of_type("assistant_message");
    assert_eq!(answers.len(), 1, "the session goes on unrecorded");
    assert!(
        session_files(&data.join("loom/sessions")).is_empty(),
        "no empty session file is left behind"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn once_there_is_room_again_the_rest_of_the_conversation_is_saved() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join(".home/.local/share");
    let Some(_mount) = mount_tiny_tmpfs(&data) else {
        eprintln!("skipped: mounting a tmpfs is not permitted here");
        return;
    };
    std::fs::create_dir_all(data.join("loom/sessions")).unwrap();
    // 16 KiB stay free: the header fits, a 27 KB tool result does not.
    let filler = data.join("filler");
    std::fs::write(&filler, vec![b'x'; 48 * 1024]).unwrap();
    let big: String = (0..1000)
        .map(|i| format!("line {i:04} of the file\n"))
        .collect();
    std::fs::write(dir.path().join("big.txt"), &big).unwrap();

    let go = std::sync::Arc::new(tokio::sync::Notify::new());
    let support::Reply::Stream(mut answer) = support::text_reply("all of it, saved") else {
        unreachable!()
    };
    answer.insert(0, support::Frame::Until(go.clone()));
    let server = ScriptedServer::start(vec![
        support::calls_openai(&[("c1", "read_file", r#"{"path": "big.txt"}"#)]),
        support::Reply::Stream(answer),
    ])
    .await;
    let running = {
        let (path, url) = (dir.path().to_path_buf(), server.base_url());
        tokio::spawn(async move {
            let home = path.join(".home");
            loom_command(&home)
                .args(["exec", "--json", "--model", "scripted-model"])
                .arg("--base-url")
                .arg(url)
                .arg("-C")
                .arg(&path)
                .arg("read big.txt")
                .output()
                .await
                .unwrap()
        })
    };
    // The tool result failed to be saved before the second request was sent; now there
    // is room again, and the answer may come.
    let waited = std::time::Instant::now();
    while server.requests().len() < 2 {
        assert!(
            waited.elapsed().as_secs() < 60,
            "the second request never came"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    std::fs::remove_file(&filler).unwrap();
    go.notify_one();
    let out = running.await.unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let errors: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains(r#""type":"error""#))
        .collect();
    assert_eq!(errors.len(), 1, "{stdout}");
    assert!(errors[0].contains("could not be saved"), "{stdout}");
    assert_eq!(out.status.code(), Some(1), "a save failed on the way");

    let files = session_files(&data.join("loom/sessions"));
    let loaded = loom::session::load(&files[0]).unwrap();
    assert!(
        loaded.dropped.is_empty() && loaded.repaired == 0,
        "{loaded:?}"
    );
    let kinds: Vec<String> = loaded
        .conversation
        .iter()
        .map(|m| serde_json::to_value(m).unwrap()["role"].to_string())
        .collect();
    assert_eq!(
        kinds,
        [r#""user""#, r#""assistant""#, r#""tool""#, r#""assistant""#],
        "the whole conversation, in order"
    );
    let saved = serde_json::to_string(&loaded.conversation).unwrap();
    assert!(saved.contains("line 0999 of the file"));
    assert!(saved.contains("all of it, saved"));
}
