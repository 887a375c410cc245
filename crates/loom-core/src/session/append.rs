//! One record, one whole line: an append to a JSONL file (a session transcript, the undo
//! journal) either adds the complete line or leaves the file as it was.
//!
//! On a full disk a write stops part-way: the transcript ended mid-line at 4096 bytes, and
//! the next record, appended after the fragment, would have been unreadable too. So a
//! failed append cuts the file back to its length before the attempt and returns the
//! error, for the person to be told.

use std::fs::File;
use std::io::Write;

/// Append `line` (which ends with a newline) to `file`, flushed to the OS, and with
/// `durable` also to the disk. On failure the file is cut back to where it was, so it still
/// ends with a complete line, and the error is returned.
pub fn append_line(file: &mut File, line: &[u8], durable: bool) -> std::io::Result<()> {
    let before = file.metadata()?.len();
    let written = file.write_all(line).and_then(|()| {
        if durable {
            file.sync_data()
        } else {
            file.flush()
        }
    });
    if let Err(e) = written {
        if let Err(cut) = file.set_len(before) {
            return Err(std::io::Error::new(
                e.kind(),
                format!("{e}, and the part written could not be removed ({cut})"),
            ));
        }
        return Err(e);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::fs::OpenOptions;
    use std::path::Path;

    use super::*;
    use crate::llm::Message;
    use crate::session::{Record, SessionLog, load};

    /// Where the child process (the same test binary, run with a file size limit) works.
    const CHILD_DIR: &str = "LOOM_APPEND_TEST_DIR";
    /// The file size limit in the child: a write past it stops part-way (like a full disk).
    const LIMIT: u64 = 4096;

    /// Regression (issue 10): on a full disk the transcript stopped mid-line. A write past
    /// `RLIMIT_FSIZE` fails part-way just like one on a full disk (the kernel writes what
    /// fits, then refuses), without needing to mount anything; the limit is set in a child
    /// process so no other test is affected. Each file keeps only complete lines, later
    /// smaller records still fit after the failed one, and the transcript loads whole.
    #[test]
    fn a_write_that_stops_part_way_leaves_only_whole_lines() {
        let dir = tempfile::tempdir().unwrap();
        let child = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "session::append::tests::child_fills_files_past_a_size_limit",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_DIR, dir.path())
            .output()
            .unwrap();
        assert!(
            child.status.success(),
            "the child failed: {}\n{}{}",
            child.status,
            String::from_utf8_lossy(&child.stdout),
            String::from_utf8_lossy(&child.stderr)
        );
        assert!(
            String::from_utf8_lossy(&child.stdout).contains("1 passed"),
            "the child ran its test"
        );

        let raw = std::fs::read(dir.path().join("raw.jsonl")).unwrap();
        assert!(raw.ends_with(b"\n"));
        let lines: Vec<&[u8]> = raw.split_inclusive(|b| *b == b'\n').collect();
        assert!(lines.len() > 5);
        for l in &lines {
            serde_json::from_slice::<serde_json::Value>(l).unwrap();
        }
        assert_eq!(
            lines.last().unwrap(),
            b"\"ok\"\n",
            "a small line fits after"
        );

        let path = dir.path().join("s.jsonl");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.ends_with('\n'), "{:?}", &text[text.len() - 40..]);
        let loaded = load(&path).unwrap();
        assert!(loaded.dropped.is_empty(), "{:?}", loaded.dropped);
        assert_eq!(loaded.id, "s");
        assert!(loaded.conversation.len() > 2, "what fitted was kept");
    }

    /// The child half of the test above: does nothing unless started by it.
    #[test]
    #[ignore = "run by a_write_that_stops_part_way_leaves_only_whole_lines"]
    fn child_fills_files_past_a_size_limit() {
        let Some(dir) = std::env::var_os(CHILD_DIR) else {
            eprintln!("skipped: only runs as the child of its parent test");
            return;
        };
        let dir = Path::new(&dir);
        let mut log = SessionLog::create(dir, "s", dir, "m").unwrap();
        let mut raw = OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join("raw.jsonl"))
            .unwrap();
        limit_file_size(LIMIT);

        let line = format!("\"{}\"\n", "r".repeat(300)).into_bytes();
        let err = (0..100)
            .find_map(|_| append_line(&mut raw, &line, true).err())
            .expect("the limit is reached");
        assert_eq!(err.raw_os_error(), Some(nix::libc::EFBIG), "{err}");
        assert_eq!(raw.metadata().unwrap().len() % line.len() as u64, 0);
        append_line(&mut raw, b"\"ok\"\n", true).unwrap();

        let message = Record::Message {
            message: Message::User {
                content: "m".repeat(500),
                images: Vec::new(),
            },
        };
        let err = (0..100)
            .find_map(|_| log.append(&message).err())
            .expect("the limit is reached");
        assert_eq!(err.raw_os_error(), Some(nix::libc::EFBIG), "{err}");
    }

    /// Limit the size of files this process writes, and make a write past it fail with
    /// `EFBIG` instead of killing the process (the default action of `SIGXFSZ`).
    fn limit_file_size(bytes: u64) {
        use nix::sys::signal::{SigHandler, Signal, signal};
        // SAFETY: ignoring a signal installs no handler code; this test process runs one
        // test, and nothing in it relies on SIGXFSZ.
        unsafe { signal(Signal::SIGXFSZ, SigHandler::SigIgn) }.unwrap();
        let limit = nix::libc::rlimit {
            rlim_cur: bytes,
            rlim_max: bytes,
        };
        // SAFETY: `limit` is a valid rlimit that outlives the call.
        let rc = unsafe { nix::libc::setrlimit(nix::libc::RLIMIT_FSIZE, &raw const limit) };
        assert_eq!(rc, 0, "{}", std::io::Error::last_os_error());
    }
}
