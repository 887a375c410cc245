//! Bounding text before it reaches the model: captures that keep the head and the tail of a
//! stream, and cuts in the middle on line boundaries with a marker saying what was left out.
//!
//! The end of a build log holds the error and the start holds the command's context, so
//! both are kept; the middle is what a model can most afford to lose. Cuts never split a
//! UTF-8 character.

use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

/// Cut `text` to at most about `budget` bytes, keeping whole lines at the start and end and
/// putting "[… N lines (B bytes) omitted …]" between ("[… B bytes omitted …]" when the cut
/// is inside one line). Returns the text and whether it was cut.
pub fn cut_middle(text: &str, budget: usize) -> (String, bool) {
    if text.len() <= budget {
        return (text.to_string(), false);
    }
    let half = budget / 2;
    let mut head_end = floor_char_boundary(text, half);
    if let Some(nl) = text[..head_end].rfind('\n') {
        head_end = nl + 1;
    }
    let last_char = text.char_indices().last().map(|(i, _)| i).unwrap_or(0);
    let mut tail_start = ceil_char_boundary(text, text.len().saturating_sub(half)).min(last_char);
    if tail_start < head_end {
        tail_start = head_end;
    }
    if let Some(nl) = text[tail_start..].find('\n')
        && tail_start + nl + 1 < text.len()
    {
        tail_start += nl + 1;
    }
    let middle = &text[head_end..tail_start];
    // A cut inside one long line (minified JSON, say) leaves out no whole line.
    let marker = match middle.matches('\n').count() {
        0 => format!("[… {} bytes omitted …]\n", middle.len()),
        lines => format!("[… {lines} lines ({} bytes) omitted …]\n", middle.len()),
    };
    let mut out = String::with_capacity(head_end + marker.len() + text.len() - tail_start);
    out.push_str(&text[..head_end]);
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&marker);
    out.push_str(&text[tail_start..]);
    (out, true)
}

/// The largest char boundary `<= i`.
pub fn floor_char_boundary(s: &str, i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    let mut i = i;
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The smallest char boundary `>= i`.
pub fn ceil_char_boundary(s: &str, i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    let mut i = i;
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// A short, quoted excerpt of `s` for error messages.
pub fn preview_str(s: &str, max: usize) -> String {
    if s.len() <= max {
        format!("{s:?}")
    } else {
        format!("{:?}…", &s[..floor_char_boundary(s, max)])
    }
}

/// `s` cut to at most `max` terminal columns, ending in `…` when cut; graphemes stay whole.
pub fn truncate(s: &str, max: usize) -> String {
    if s.width() <= max {
        return s.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for g in s.graphemes(true) {
        let w = g.width();
        if used + w + 1 > max {
            break;
        }
        out.push_str(g);
        used += w;
    }
    out.push('…');
    out
}

/// Captures a byte stream up to a capacity, keeping the first and last halves when the
/// stream is longer, and counting everything that passed.
#[derive(Debug)]
pub struct HeadTail {
    head: Vec<u8>,
    tail: std::collections::VecDeque<u8>,
    half: usize,
    total: u64,
}

impl HeadTail {
    /// A capture that keeps at most `capacity` bytes.
    pub fn new(capacity: usize) -> HeadTail {
        HeadTail {
            head: Vec::new(),
            tail: std::collections::VecDeque::new(),
            half: capacity / 2,
            total: 0,
        }
    }

    /// Feed bytes.
    pub fn push(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len() as u64;
        if self.head.len() < self.half {
            let take = (self.half - self.head.len()).min(bytes.len());
            self.head.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
        }
        if bytes.len() >= self.half {
            self.tail.clear();
            self.tail.extend(&bytes[bytes.len() - self.half..]);
            return;
        }
        self.tail.extend(bytes);
        while self.tail.len() > self.half {
            self.tail.pop_front();
        }
    }

    /// Bytes seen in total.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Whether bytes were dropped between head and tail.
    pub fn dropped(&self) -> u64 {
        self.total - (self.head.len() + self.tail.len()) as u64
    }

    /// The captured text (lossy UTF-8), with a marker where bytes were dropped.
    pub fn text(&self) -> String {
        let head = String::from_utf8_lossy(&self.head);
        if self.dropped() == 0 {
            let mut all = self.head.clone();
            all.extend(self.tail.iter());
            return String::from_utf8_lossy(&all).into_owned();
        }
        let tail: Vec<u8> = self.tail.iter().copied().collect();
        let tail = String::from_utf8_lossy(&tail);
        format!(
            "{head}\n[… {} bytes not captured …]\n{tail}",
            self.dropped()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn short_text_is_untouched() {
        assert_eq!(cut_middle("abc\n", 10), ("abc\n".to_string(), false));
    }

    #[test]
    fn long_text_keeps_head_and_tail_lines() {
        let text: String = (0..1000).map(|i| format!("line {i}\n")).collect();
        let (cut, was_cut) = cut_middle(&text, 200);
        assert!(was_cut);
        assert!(cut.starts_with("line 0\n"));
        assert!(cut.ends_with("line 999\n"));
        assert!(cut.contains("lines ("), "{cut}");
        assert!(cut.len() < 300);
    }

    /// Regression: a cut inside one long line said "[… 0 lines (4066 bytes) omitted …]".
    #[test]
    fn a_cut_inside_one_line_counts_bytes_only() {
        let (cut, was_cut) = cut_middle(&"x".repeat(5_000), 400);
        assert!(was_cut);
        assert!(cut.contains("[… 4600 bytes omitted …]"), "{cut}");
        assert!(!cut.contains("lines"), "{cut}");
    }

    #[test]
    fn head_tail_capture_counts_everything() {
        let mut h = HeadTail::new(10);
        h.push(b"0123456789abcdefghij");
        assert_eq!(h.total(), 20);
        assert_eq!(h.dropped(), 10);
        let t = h.text();
        assert!(t.starts_with("01234") && t.ends_with("fghij"), "{t}");
        let mut small = HeadTail::new(100);
        small.push(b"hello ");
        small.push(b"world");
        assert_eq!(small.text(), "hello world");
    }

    proptest! {
        // Invariant: a cut never splits a character and keeps the text's first and last
        // characters, whatever the budget.
        #[test]
        fn cut_is_valid_and_keeps_ends(text in "[a-zé日\n]{0,300}", budget in 4usize..200) {
            let (cut, was_cut) = cut_middle(&text, budget);
            prop_assert_eq!(was_cut, text.len() > budget);
            if !was_cut { prop_assert_eq!(&cut, &text); }
            if was_cut {
                prop_assert_eq!(cut.chars().last(), text.chars().last());
            }
        }

        // Invariant: chunked pushes capture the same as one push.
        #[test]
        fn head_tail_is_chunking_independent(data in proptest::collection::vec(any::<u8>(), 0..200), split in 0usize..200, cap in 2usize..64) {
            let split = split.min(data.len());
            let mut one = HeadTail::new(cap);
            one.push(&data);
            let mut two = HeadTail::new(cap);
            two.push(&data[..split]);
            two.push(&data[split..]);
            prop_assert_eq!(one.text(), two.text());
            prop_assert_eq!(one.total(), data.len() as u64);
        }
    }
}
