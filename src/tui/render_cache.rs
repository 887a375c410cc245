//! The chat's rendered entries, least recently used first out: the lines of the entries
//! on screen and around it stay drawn; entries long scrolled past are dropped and rendered
//! again (from the session file, for a resumed conversation) if they come back into view.

use std::collections::HashMap;

use ratatui::text::Line;

/// Wrapped lines beyond which the least recently used entries are dropped.
pub const MAX_LINES: usize = 6_000;

/// One entry's wrapped lines.
pub struct Rendered {
    /// The lines, wrapped to the cache's width.
    pub lines: Vec<Line<'static>>,
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

    /// Mark entry `key` as just used.
    pub fn touch(&mut self, key: u64) {
        self.clock += 1;
        if let Some(r) = self.map.get_mut(&key) {
            r.used = self.clock;
        }
    }

    /// Keep `lines` for entry `key`. When the cache holds too many lines, the least recently
    /// used entries other than those in `keep` are dropped.
    pub fn insert(
        &mut self,
        key: u64,
        lines: Vec<Line<'static>>,
        generation: u32,
        keep: std::ops::Range<u64>,
    ) {
        self.clock += 1;
        self.lines += lines.len();
        let fresh = Rendered {
            lines,
            generation,
            used: self.clock,
        };
        if let Some(old) = self.map.insert(key, fresh) {
            self.lines -= old.lines.len();
        }
        if self.lines > MAX_LINES {
            self.evict(keep);
        }
    }

    /// Drop the least recently used entries outside `keep` until the cache is down to
    /// three quarters of its bound (so evictions are rare, not one per insert).
    fn evict(&mut self, keep: std::ops::Range<u64>) {
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
            if let Some(r) = self.map.remove(&key) {
                self.lines -= r.lines.len();
            }
        }
    }

    /// Forget entry `key` (it changed).
    pub fn remove(&mut self, key: u64) {
        if let Some(r) = self.map.remove(&key) {
            self.lines -= r.lines.len();
        }
    }

    /// Forget every entry numbered below `key` (they left the transcript).
    pub fn remove_below(&mut self, key: u64) {
        let lines = &mut self.lines;
        self.map.retain(|k, r| {
            let stay = *k >= key;
            if !stay {
                *lines -= r.lines.len();
            }
            stay
        });
    }

    /// Forget everything (the width changed).
    pub fn clear(&mut self) {
        self.map.clear();
        self.lines = 0;
    }

    /// How many wrapped lines are kept.
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

    fn lines(n: usize) -> Vec<Line<'static>> {
        vec![Line::from("x"); n]
    }

    #[test]
    fn the_least_recently_used_go_first_and_the_kept_range_stays() {
        let mut c = RenderCache::default();
        for k in 0..6 {
            c.insert(k, lines(MAX_LINES / 6), 0, 0..0);
        }
        c.touch(0);
        c.insert(6, lines(MAX_LINES / 6), 0, 5..7);
        assert!(c.lines() <= MAX_LINES, "{}", c.lines());
        assert!(c.contains(0), "recently used");
        assert!(c.contains(5) && c.contains(6), "kept");
        assert!(!c.contains(1), "least recently used");
        c.remove_below(5);
        assert!(!c.contains(0));
        assert_eq!(c.len(), 2);
        assert_eq!(c.lines(), 2 * (MAX_LINES / 6));
    }
}
