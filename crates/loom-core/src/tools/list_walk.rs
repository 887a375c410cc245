//! The walk behind `list_files`: the entries under a directory, the first `cap` of them by
//! path, with their sizes, as the JSON objects the tool returns.
//!
//! What it costs follows what is returned. The walk is `ignore`'s parallel one (as many
//! threads as `rg` uses: one per core, at most 12). Each walking thread keeps its entries as
//! the paths shown (one `String` each; the only allocation an entry makes besides the
//! walker's own), drops the ones that cannot be among the first `cap` whenever it holds
//! `2 × cap` (a selection, linear on average, and entries sorting after the last one kept
//! are refused before anything is allocated for them), and sorts what it kept on its own
//! thread when the walk ends. The main thread merges those sorted runs (a stable sort merges
//! runs in linear time). Only the entries returned are stat-ed, and only files (whether an
//! entry is a directory comes from the directory listing): each relative to a handle on its
//! directory opened beneath the workspace (a one-name lookup instead of the whole path), on
//! as many threads as the walk, which also build the entries' JSON.
//!
//! The answer does not depend on how the threads share the tree: the first `cap` entries by
//! path bytes, as one full sort would give.

use std::ffi::OsStr;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::Mutex;

use nix::fcntl::AtFlags;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::base::beneath::Beneath;

/// Entries a walking thread may hold before it drops those past the cap, at least.
const MIN_TRIM: usize = 64;

/// Smallest share of entries worth a thread of its own when stat-ing.
const MIN_CHUNK: usize = 1024;

/// Directory handles kept open while stat-ing (sorted entries of one directory mostly come
/// together; a few more cover a directory's files resuming after a subdirectory's).
const OPEN_DIRS: usize = 8;

/// One entry found by the walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The path relative to the workspace root, as shown (lossy where a name is not UTF-8).
    shown: String,
    /// The path's own bytes, where `shown` differs from them (a name that is not UTF-8).
    raw: Option<Box<[u8]>>,
    /// Whether the directory listing says it is a directory.
    is_dir: bool,
}

impl Found {
    /// The entry at `rel` (the path's bytes relative to the workspace root).
    pub fn new(rel: &[u8], is_dir: bool) -> Found {
        match std::str::from_utf8(rel) {
            Ok(s) => Found {
                shown: s.to_owned(),
                raw: None,
                is_dir,
            },
            Err(_) => Found {
                shown: String::from_utf8_lossy(rel).into_owned(),
                raw: Some(rel.into()),
                is_dir,
            },
        }
    }

    /// The path's bytes relative to the workspace root: what entries are sorted by. All
    /// entries share the root as a prefix, so this is also the order of their full paths.
    pub fn key(&self) -> &[u8] {
        self.raw.as_deref().unwrap_or(self.shown.as_bytes())
    }
}

/// The `cap` entries that sort first among those one thread has seen, and what it counted.
#[derive(Debug)]
pub struct Kept {
    cap: usize,
    found: Vec<Found>,
    /// Once entries have been dropped, the greatest kept: an entry sorting after it cannot
    /// be among the first `cap`.
    bound: Option<Box<[u8]>>,
    /// Entries seen (kept or not), for "N exist".
    pub seen: usize,
    /// Entries the walk could not read.
    pub skipped: usize,
}

impl Kept {
    /// Nothing kept yet; at most `cap` entries (at least 1) will be.
    pub fn new(cap: usize) -> Kept {
        Kept {
            cap: cap.max(1),
            found: Vec::new(),
            bound: None,
            seen: 0,
            skipped: 0,
        }
    }

    /// Whether an entry at `key` may be among the first `cap` (checked before anything is
    /// allocated for it).
    pub fn wants(&self, key: &[u8]) -> bool {
        self.bound.as_deref().is_none_or(|bound| key < bound)
    }

    /// Keep `found` (one that [`Kept::wants`]).
    pub fn offer(&mut self, found: Found) {
        self.found.push(found);
        if self.found.len() >= self.cap.saturating_mul(2).max(MIN_TRIM) {
            self.trim();
        }
    }

    /// Drop all but the first `cap` entries, remembering the last one kept.
    fn trim(&mut self) {
        if self.found.len() <= self.cap {
            return;
        }
        let (_, last, _) = self
            .found
            .select_nth_unstable_by(self.cap - 1, |a, b| a.key().cmp(b.key()));
        self.bound = Some(last.key().into());
        self.found.truncate(self.cap);
    }

    /// What was kept, sorted by path.
    pub fn finish(mut self) -> Kept {
        self.trim();
        self.found.sort_unstable_by(|a, b| a.key().cmp(b.key()));
        self
    }
}

/// The first `cap` entries by path of what the threads kept (each part [`Kept::finish`]ed),
/// with the counts of all of them: entries seen and entries skipped.
pub fn merge(parts: Vec<Kept>, cap: usize) -> (Vec<Found>, usize, usize) {
    let seen = parts.iter().map(|p| p.seen).sum();
    let skipped = parts.iter().map(|p| p.skipped).sum();
    let mut found = Vec::with_capacity(parts.iter().map(|p| p.found.len()).sum());
    for part in parts {
        found.extend(part.found);
    }
    // Each part is sorted: the stable sort finds those runs and merges them.
    found.sort_by(|a, b| a.key().cmp(b.key()));
    found.truncate(cap);
    (found, seen, skipped)
}

/// Walk `walker` (entries under the workspace root `root`), keeping the first `cap` entries
/// by path; `None` when `cancel` fired.
pub fn walk(
    walker: ignore::WalkParallel,
    root: &Path,
    cap: usize,
    cancel: &CancellationToken,
) -> Option<(Vec<Found>, usize, usize)> {
    let parts = Mutex::new(Vec::new());
    let root = root.as_os_str().as_bytes();
    // Where the relative path starts in an entry's path: after the root and its slash.
    let strip = if root.ends_with(b"/") {
        root.len()
    } else {
        root.len() + 1
    };
    walker.visit(&mut Visitors {
        parts: &parts,
        root,
        strip,
        cap,
        cancel,
    });
    if cancel.is_cancelled() {
        return None;
    }
    let parts = parts
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    Some(merge(parts, cap))
}

/// Makes one [`Visitor`] per walking thread; each hands what it kept, sorted, to `parts`
/// when its thread is done.
struct Visitors<'a> {
    parts: &'a Mutex<Vec<Kept>>,
    root: &'a [u8],
    strip: usize,
    cap: usize,
    cancel: &'a CancellationToken,
}

impl<'s> ignore::ParallelVisitorBuilder<'s> for Visitors<'s> {
    fn build(&mut self) -> Box<dyn ignore::ParallelVisitor + 's> {
        Box::new(Visitor {
            kept: Kept::new(self.cap),
            parts: self.parts,
            root: self.root,
            strip: self.strip,
            cancel: self.cancel,
        })
    }
}

struct Visitor<'a> {
    kept: Kept,
    parts: &'a Mutex<Vec<Kept>>,
    root: &'a [u8],
    strip: usize,
    cancel: &'a CancellationToken,
}

impl ignore::ParallelVisitor for Visitor<'_> {
    fn visit(&mut self, item: Result<ignore::DirEntry, ignore::Error>) -> ignore::WalkState {
        if self.cancel.is_cancelled() {
            return ignore::WalkState::Quit;
        }
        let Ok(entry) = item else {
            self.kept.skipped += 1;
            return ignore::WalkState::Continue;
        };
        if entry.depth() == 0 {
            return ignore::WalkState::Continue;
        }
        self.kept.seen += 1;
        let path = entry.path().as_os_str().as_bytes();
        // Every entry is under the root (the walk starts inside it); a path that somehow
        // is not keeps its whole self, as the display of such a path would.
        let rel = match path.get(self.strip..) {
            Some(rel) if path.starts_with(self.root) => rel,
            _ => path,
        };
        if self.kept.wants(rel) {
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            self.kept.offer(Found::new(rel, is_dir));
        }
        ignore::WalkState::Continue
    }
}

impl Drop for Visitor<'_> {
    fn drop(&mut self) {
        let mine = std::mem::replace(&mut self.kept, Kept::new(1)).finish();
        self.parts
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push(mine);
    }
}

/// The entries' JSON objects, `{path, size, is_dir}` in order, sizes read beneath the
/// workspace (0 for directories and for what cannot be stat-ed, as a symlink's own size
/// for a symlink), on as many threads as the machine has cores when there are many.
pub fn to_json(mut found: Vec<Found>, beneath: &Beneath) -> Vec<Value> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = found.len().div_ceil(threads).max(MIN_CHUNK);
    let mut out = vec![Value::Null; found.len()];
    let fill = |found: &mut [Found], out: &mut [Value]| {
        let mut dirs = Dirs::new(beneath);
        for (f, slot) in found.iter_mut().zip(out) {
            let size = if f.is_dir { 0 } else { dirs.size(f.key()) };
            let mut entry = Map::with_capacity(3);
            entry.insert("path".into(), Value::String(std::mem::take(&mut f.shown)));
            entry.insert("size".into(), size.into());
            entry.insert("is_dir".into(), f.is_dir.into());
            *slot = Value::Object(entry);
        }
    };
    if found.len() <= chunk {
        fill(&mut found, &mut out);
        return out;
    }
    std::thread::scope(|scope| {
        for (part, slots) in found.chunks_mut(chunk).zip(out.chunks_mut(chunk)) {
            scope.spawn(|| fill(part, slots));
        }
    });
    out
}

/// Handles on the directories entries are stat-ed in, the most recent few.
struct Dirs<'a> {
    beneath: &'a Beneath,
    /// Directory (relative to the root) and its handle (`None`: it could not be opened).
    open: Vec<(Vec<u8>, Option<OwnedFd>)>,
}

impl<'a> Dirs<'a> {
    fn new(beneath: &'a Beneath) -> Dirs<'a> {
        Dirs {
            beneath,
            open: Vec::with_capacity(OPEN_DIRS),
        }
    }

    /// The size of the entry at `rel` without following a final symlink; 0 when it cannot
    /// be stat-ed (it went away, or a directory on its path was swapped for a symlink).
    fn size(&mut self, rel: &[u8]) -> u64 {
        let (dir, name) = match rel.iter().rposition(|&b| b == b'/') {
            Some(slash) => (&rel[..slash], &rel[slash + 1..]),
            None => (&rel[..0], rel),
        };
        let Some(fd) = self.handle(dir) else {
            return 0;
        };
        nix::sys::stat::fstatat(
            fd.as_fd(),
            OsStr::from_bytes(name),
            AtFlags::AT_SYMLINK_NOFOLLOW,
        )
        .map_or(0, |st| u64::try_from(st.st_size).unwrap_or(0))
    }

    fn handle(&mut self, dir: &[u8]) -> Option<&OwnedFd> {
        let at = match self.open.iter().position(|(d, _)| d == dir) {
            Some(at) => at,
            None => {
                if self.open.len() == OPEN_DIRS {
                    self.open.remove(0);
                }
                let fd = self
                    .beneath
                    .open_dir(Path::new(OsStr::from_bytes(dir)))
                    .ok();
                self.open.push((dir.to_vec(), fd));
                self.open.len() - 1
            }
        };
        self.open[at].1.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(found: &[Found]) -> Vec<Vec<u8>> {
        found.iter().map(|f| f.key().to_vec()).collect()
    }

    proptest::proptest! {
        /// Invariant: whatever order entries arrive in and however they are split among
        /// threads, what is kept is the `cap` entries that sort first (by path bytes), and
        /// every entry is counted once. Enough entries reach a thread for it to drop some
        /// while walking (past `2 × cap`, at least 64), so refusing what sorts after the
        /// last entry kept is exercised too.
        #[test]
        fn kept_is_the_first_cap_entries_of_any_split(
            names in proptest::collection::vec("[a-c/.-]{1,6}", 0..400),
            cap in 1usize..100,
            threads in 1usize..5,
        ) {
            let mut parts: Vec<Kept> = (0..threads).map(|_| Kept::new(cap)).collect();
            for (i, name) in names.iter().enumerate() {
                let part = &mut parts[i % threads];
                part.seen += 1;
                if part.wants(name.as_bytes()) {
                    part.offer(Found::new(name.as_bytes(), false));
                }
            }
            let parts = parts.into_iter().map(Kept::finish).collect();
            let (kept, seen, skipped) = merge(parts, cap);
            proptest::prop_assert_eq!(seen, names.len());
            proptest::prop_assert_eq!(skipped, 0);
            let kept: Vec<String> = kept.into_iter().map(|f| f.shown).collect();
            let mut expected = names.clone();
            expected.sort();
            expected.truncate(cap);
            proptest::prop_assert_eq!(kept, expected);
        }
    }

    /// A name that is not UTF-8 is shown lossily but sorted (and kept or dropped) by its
    /// own bytes, as the whole path's bytes were sorted before.
    #[test]
    fn names_that_are_not_utf8_sort_by_their_bytes() {
        let names: [&[u8]; 4] = [b"a\xff", b"a\xc3\xa9", b"b", b"a"];
        let mut kept = Kept::new(3);
        for name in names {
            kept.seen += 1;
            kept.offer(Found::new(name, false));
        }
        let (found, seen, _) = merge(vec![kept.finish()], 3);
        assert_eq!(seen, 4);
        assert_eq!(
            keys(&found),
            [b"a".to_vec(), b"a\xc3\xa9".to_vec(), b"a\xff".to_vec()]
        );
        assert_eq!(found[1].shown, "aé");
        assert_eq!(found[2].shown, "a\u{fffd}");
    }

    /// Sizes are read relative to each directory's handle, for files in the root and
    /// deeper, after a subdirectory's entries interrupt a directory's own, and in more
    /// directories than handles are kept open; directories are not stat-ed (size 0), a
    /// symlink's size is its own, and what vanished since the walk is 0.
    #[test]
    fn sizes_come_from_each_directory_handle() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let mut rels = Vec::new();
        for d in 0..(OPEN_DIRS + 3) {
            std::fs::create_dir_all(root.join(format!("d{d:02}/sub"))).unwrap();
            for (name, len) in [("a", d), ("sub/x", d + 1), ("z", d + 2)] {
                let rel = format!("d{d:02}/{name}");
                std::fs::write(root.join(&rel), "x".repeat(len)).unwrap();
                rels.push((rel, false, len as u64));
            }
            rels.push((format!("d{d:02}/sub"), true, 0));
        }
        std::fs::write(root.join("top"), "12345").unwrap();
        rels.push(("top".into(), false, 5));
        std::os::unix::fs::symlink("d00/a", root.join("link")).unwrap();
        rels.push(("link".into(), false, 5));
        rels.push(("gone".into(), false, 0));
        rels.sort();
        let found: Vec<Found> = rels
            .iter()
            .map(|(rel, is_dir, _)| Found::new(rel.as_bytes(), *is_dir))
            .collect();
        let beneath = Beneath::open(&root).unwrap();
        let json = to_json(found, &beneath);
        let got: Vec<(String, u64, bool)> = json
            .iter()
            .map(|e| {
                (
                    e["path"].as_str().unwrap().to_string(),
                    e["size"].as_u64().unwrap(),
                    e["is_dir"].as_bool().unwrap(),
                )
            })
            .collect();
        let want: Vec<(String, u64, bool)> = rels
            .into_iter()
            .map(|(rel, is_dir, size)| (rel, size, is_dir))
            .collect();
        assert_eq!(got, want);
        let keys: Vec<&String> = json[0].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["path", "size", "is_dir"]);
    }
}
