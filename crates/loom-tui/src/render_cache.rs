//! The chat's rendered entries, least recently used first out: the lines of the entries
//! on screen and around it stay drawn; entries long scrolled past are dropped and rendered
//! again (from the session file, for a resumed conversation) if they come back into view.
//!
//! Entries are kept as [`Measured`] lines (styled, not wrapped), so a resize or the
//! scrollback written at exit reuses them instead of rendering again. Inserting never
//! drops anything: the transcript shrinks the cache once a frame is prepared
//! ([`RenderCache::shrink`]), keeping that frame's entries, so an entry taller than the
//! whole bound (a long answer) is not dropped while it is on screen.

use std::collections::HashMap;

use super::measured::Measured;

/// Logical lines beyond which the least recently used entries are dropped.
pub const MAX_LINES: usize = 6_000;

/// One entry's lines.
pub struct Rendered {
    /// The lines and their heights.
    pub lines: Measured,
    /// The style generation they were drawn with (older: to be restyled).
    pub generation: u32,
    used: u64,
}

/// Rendered entries by their number (counted from the first entry ever, so it survives
/// entries leaving at the front).
#[derive(Default)]
pub struct RenderCache {
    map: HashMap<u64, Rendered>,
    clock: u64,
    lines: usize,
}

impl RenderCache {
    /// Whether entry `key` is rendered.
    pub fn contains(&self, key: u64) -> bool {
        self.map.contains_key(&key)
    }

    /// Entry `key`'s lines, without counting it as used (drawing reads, preparing uses).
    pub fn peek(&self, key: u64) -> Option<&Rendered> {
        self.map.get(&key)
    }

    /// Entry `key`'s lines, counted as just used (to measure them at a new width).
    pub fn use_mut(&mut self, key: u64) -> Option<&mut Measured> {
        self.clock += 1;
        let r = self.map.get_mut(&key)?;
        r.used = self.clock;
        Some(&mut r.lines)
    }

    /// Keep `lines` for entry `key` (nothing is dropped until [`RenderCache::shrink`]).
    pub fn insert(&mut self, key: u64, lines: Measured, generation: u32) {
        self.clock += 1;
        self.lines += lines.lines().len();
        let fresh = Rendered {
            lines,
            generation,
            used: self.clock,
        };
        if let Some(old) = self.map.insert(key, fresh) {
            self.lines -= old.lines.lines().len();
        }
    }

    /// When the cache holds more than [`MAX_LINES`], drop the least recently used entries
    /// outside `keep` until it is down to three quarters of its bound (so evictions are
    /// rare, not one per insert).
    pub fn shrink(&mut self, keep: std::ops::Range<u64>) {
        if self.lines <= MAX_LINES {
            return;
        }
        let mut order: Vec<(u64, u64)> = self
            .map
            .iter()
            .filter(|(k, _)| !keep.contains(k))
            .map(|(k, r)| (r.used, *k))
            .collect();
        order.sort_unstable();
        for (_, key) in order {
            if self.lines <= MAX_LINES * 3 / 4 {
                break;
            }
            self.remove(key);
        }
    }

    /// Forget entry `key` (it changed).
    pub fn remove(&mut self, key: u64) {
        self.take(key);
    }

    /// Give up entry `key`'s lines (it leaves the transcript).
    pub fn take(&mut self, key: u64) -> Option<Measured> {
        let r = self.map.remove(&key)?;
        self.lines -= r.lines.lines().len();
        Some(r.lines)
    }

    /// Forget every entry numbered below `key` (they left the transcript).
    pub fn remove_below(&mut self, key: u64) {
        let lines = &mut self.lines;
        self.map.retain(|k, r| {
            let stay = *k >= key;
            if !stay {
                *lines -= r.lines.lines().len();
            }
            stay
        });
    }

    /// Forget everything.
    pub fn clear(&mut self) {
        self.map.clear();
        self.lines = 0;
    }

    /// How many logical lines are kept.
    pub fn lines(&self) -> usize {
        self.lines
    }

    /// How many entries are kept.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether nothing is kept.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wrap::StyledLine;

    fn lines(n: usize) -> Measured {
        Measured::of(vec![StyledLine::blank(); n], 0)
    }

    #[test]
    fn the_least_recently_used_go_first_and_the_kept_range_stays() {
        let mut c = RenderCache::default();
        for k in 0..6 {
            c.insert(k, lines(MAX_LINES / 6), 0);
        }
        c.use_mut(0);
        c.insert(6, lines(MAX_LINES / 6), 0);
        assert!(c.contains(1), "inserting drops nothing");
        c.shrink(5..7);
        assert!(c.lines() <= MAX_LINES, "{}", c.lines());
        assert!(c.contains(0), "recently used");
        assert!(c.contains(5) && c.contains(6), "kept");
        assert!(!c.contains(1), "least recently used");
        c.remove_below(5);
        assert!(!c.contains(0));
        assert_eq!(c.len(), 2);
        assert_eq!(c.lines(), 2 * (MAX_LINES / 6));
    }

    /// The bug this guards against: a long answer (more lines than the whole bound) was
    /// dropped by the next small entry's insert while still on screen, and rendered again.
    #[test]
    fn an_entry_taller_than_the_bound_stays_while_kept() {
        let mut c = RenderCache::default();
        c.insert(0, lines(MAX_LINES * 2), 0);
        c.insert(1, lines(1), 0);
        c.shrink(0..2);
        assert!(c.contains(0) && c.contains(1));
        c.shrink(1..2);
        assert!(!c.contains(0), "dropped once off screen");
        assert_eq!(c.lines(), 1);
    }
}
