//! The terminal the end-to-end benches drive Loom in: a vt100 screen fed from the pty, which
//! answers the background and device-attributes questions as a terminal does (Loom asks
//! before its first frame when no theme is named).

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};

/// The pty's writer, shared by the bench (keys) and the reader thread (answers).
pub type Keys = Arc<Mutex<Box<dyn Write + Send>>>;

/// Feed everything Loom writes to `master` into a `rows`×`cols` screen on a thread of its
/// own; the screen and the writer for keys.
pub fn attach(
    master: &dyn portable_pty::MasterPty,
    rows: u16,
    cols: u16,
) -> (Arc<Mutex<vt100::Parser>>, Keys) {
    let parser = Arc::new(Mutex::new(vt100::Parser::new(
        std::num::NonZeroU16::new(rows).expect("rows > 0"),
        std::num::NonZeroU16::new(cols).expect("cols > 0"),
        0,
    )));
    let mut reader = master.try_clone_reader().unwrap();
    let sink = parser.clone();
    let writer: Keys = Arc::new(Mutex::new(master.take_writer().unwrap()));
    let answer = writer.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 16384];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            sink.lock().unwrap().process(&buf[..n]);
            let mut w = answer.lock().unwrap();
            if buf[..n].windows(6).any(|w| w == b"\x1b]11;?") {
                let _ = w.write_all(b"\x1b]11;rgb:1e1e/1e1e/1e1e\x1b\\");
            }
            if buf[..n].windows(3).any(|w| w == b"\x1b[c") {
                let _ = w.write_all(b"\x1b[?62;22c");
            }
            let _ = w.flush();
        }
    });
    (parser, writer)
}
