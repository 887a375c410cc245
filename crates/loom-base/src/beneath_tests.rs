//! Tests of [`super::Beneath`]: symlinks appearing after the check, non-regular files,
//! bounded reads, and the invariant that nothing is written outside the root.

use super::*;
use std::os::unix::fs::{PermissionsExt, symlink};

fn setup() -> (tempfile::TempDir, PathBuf, PathBuf, Beneath) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(ws.join("d")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "SECRET").unwrap();
    let b = Beneath::open(&ws).unwrap();
    (dir, ws, outside, b)
}

#[test]
fn writes_and_reads_regular_files_keeping_permissions() {
    let (_d, ws, _o, b) = setup();
    b.write_atomic(Path::new("a/b/new.txt"), b"hi", None)
        .unwrap();
    assert_eq!(std::fs::read(ws.join("a/b/new.txt")).unwrap(), b"hi");
    let mode = std::fs::metadata(ws.join("a/b/new.txt"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, NEW_FILE_MODE);
    std::fs::set_permissions(
        ws.join("a/b/new.txt"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    b.write_atomic(Path::new("a/b/new.txt"), b"again", None)
        .unwrap();
    let (bytes, mode) = b
        .read_regular(Path::new("a/b/new.txt"), 100)
        .unwrap()
        .unwrap();
    assert_eq!((bytes.as_slice(), mode & 0o777), (&b"again"[..], 0o755));
    assert!(b.read_regular(Path::new("missing"), 100).unwrap().is_none());
    let names: Vec<_> = std::fs::read_dir(ws.join("a/b")).unwrap().collect();
    assert_eq!(names.len(), 1, "no temporary file is left behind");
    b.remove_file(Path::new("a/b/new.txt")).unwrap();
    assert!(!ws.join("a/b/new.txt").exists());
    b.remove_file(Path::new("a/b/new.txt")).unwrap();
}

#[test]
fn a_symlink_in_the_path_is_never_followed() {
    let (_d, ws, outside, b) = setup();
    symlink(&outside, ws.join("out")).unwrap();
    symlink(ws.join("d"), ws.join("in")).unwrap();
    for rel in ["out/secret.txt", "in/x.txt"] {
        let err = b.read_regular(Path::new(rel), 100).unwrap_err();
        assert_eq!(
            err.kind(),
            std::io::ErrorKind::PermissionDenied,
            "{rel}: {err}"
        );
    }
    assert!(
        b.write_atomic(Path::new("out/new.txt"), b"x", None)
            .is_err()
    );
    assert!(!outside.join("new.txt").exists());
    std::fs::remove_dir(ws.join("d")).unwrap();
    symlink(&outside, ws.join("d")).unwrap();
    assert!(
        b.write_atomic(Path::new("d/secret.txt"), b"pwned", None)
            .is_err()
    );
    assert!(b.remove_file(Path::new("d/secret.txt")).is_err());
    assert_eq!(
        std::fs::read_to_string(outside.join("secret.txt")).unwrap(),
        "SECRET"
    );
    assert!(b.relative(Path::new("/etc/passwd")).is_err());
    assert!(b.relative(Path::new("a/../b")).is_err());
}

#[test]
fn fifos_and_devices_are_refused_without_hanging() {
    let (_d, ws, _o, b) = setup();
    nix::unistd::mkfifo(&ws.join("pipe"), Mode::from_bits_truncate(0o644)).unwrap();
    let err = b.read_regular(Path::new("pipe"), 100).unwrap_err();
    assert!(err.to_string().contains("FIFO"), "{err}");
    let err = b.write_atomic(Path::new("pipe"), b"x", None).unwrap_err();
    assert!(err.to_string().contains("FIFO"), "{err}");
    let dev = ws.join("zero");
    match nix::sys::stat::mknod(
        &dev,
        SFlag::S_IFCHR,
        Mode::from_bits_truncate(0o666),
        nix::sys::stat::makedev(1, 5),
    ) {
        Ok(()) => {
            let err = b.read_regular(Path::new("zero"), 100).unwrap_err();
            assert!(err.to_string().contains("character device"), "{err}");
        }
        Err(e) => eprintln!("skipped the device node: mknod is not permitted here ({e})"),
    }
    let err = b.read_regular(Path::new("d"), 100).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::IsADirectory);
}

#[test]
fn reads_stop_at_their_limit() {
    let (_d, ws, _o, b) = setup();
    let f = File::create(ws.join("sparse")).unwrap();
    f.set_len(3 << 30).unwrap();
    let err = b.read_regular(Path::new("sparse"), 1024).unwrap_err();
    assert!(err.to_string().contains("bytes"), "{err}");
    let (mut file, st) = b.open_regular(Path::new("sparse")).unwrap();
    assert_eq!(st.st_size, 3 << 30);
    let mut head = [1u8; 100];
    file.read_exact(&mut head).unwrap();
    assert!(head.iter().all(|b| *b == 0));
}

/// Regression (issue 10): a process swapping `ws/d` with a symlink to a directory outside
/// (`renameat2(RENAME_EXCHANGE)` in a loop) made writes land outside the workspace.
#[test]
fn a_directory_swapped_for_a_symlink_mid_write_never_lets_a_write_out() {
    let (_d, ws, outside, b) = setup();
    symlink(&outside, ws.join("swap")).unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swaps = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let swapper = {
        let (stop, swaps, ws) = (stop.clone(), swaps.clone(), ws.clone());
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = nix::fcntl::renameat2(
                    nix::fcntl::AT_FDCWD,
                    &ws.join("d"),
                    nix::fcntl::AT_FDCWD,
                    &ws.join("swap"),
                    nix::fcntl::RenameFlags::RENAME_EXCHANGE,
                );
                swaps.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        })
    };
    // At least 500 writes, and as many more as it takes for the swapper (which a loaded
    // machine may schedule late) to have really raced them.
    let mut i = 0;
    while i < 500 || (swaps.load(std::sync::atomic::Ordering::Relaxed) < 1000 && i < 200_000) {
        let _ = b.write_atomic(Path::new(&format!("d/new{i}.txt")), b"x", None);
        if let Ok(Some((bytes, _))) = b.read_regular(Path::new("d/secret.txt"), 100) {
            assert_ne!(bytes, b"SECRET", "read outside the workspace");
        }
        i += 1;
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    swapper.join().unwrap();
    assert!(
        swaps.load(std::sync::atomic::Ordering::Relaxed) >= 1000,
        "the race was really run"
    );
    let escaped: Vec<_> = std::fs::read_dir(&outside)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .filter(|n| n != "secret.txt")
        .collect();
    assert!(escaped.is_empty(), "written outside: {escaped:?}");
}

mod invariants {
    use super::*;
    use proptest::prelude::*;

    fn component() -> impl Strategy<Value = &'static str> {
        prop_oneof![
            Just("a"),
            Just("b"),
            Just("out"),
            Just("in"),
            Just("root"),
            Just(".."),
            Just("."),
            Just("x.txt"),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        // Invariant: whatever relative path is given, a write through `Beneath` either
        // fails or creates a file inside the root; nothing outside ever changes.
        #[test]
        fn nothing_is_ever_written_outside_the_root(parts in proptest::collection::vec(component(), 1..6)) {
            let (_d, ws, outside, b) = setup();
            std::fs::create_dir_all(ws.join("a/b")).unwrap();
            symlink(&outside, ws.join("out")).unwrap();
            symlink(ws.join("a"), ws.join("in")).unwrap();
            symlink("/", ws.join("a/root")).unwrap();
            let rel = PathBuf::from(parts.join("/"));
            let _ = b.write_atomic(&rel, b"x", None);
            let _ = b.remove_file(&rel);
            let names: Vec<_> = std::fs::read_dir(&outside).unwrap().filter_map(Result::ok).map(|e| e.file_name()).collect();
            prop_assert_eq!(names.len(), 1, "{:?} reached outside: {:?}", rel, names);
            prop_assert_eq!(std::fs::read_to_string(outside.join("secret.txt")).unwrap(), "SECRET");
        }
    }
}
