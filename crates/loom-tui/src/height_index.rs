//! The chat's layout heights as a Fenwick tree: the height of each entry (measured or
//! estimated), the sum of any prefix and the entry on a given line, each in O(log N), so a
//! frame of a 100,000-message transcript never walks every entry.

/// Entry heights (in terminal lines) with prefix sums in O(log N).
#[derive(Debug, Clone)]
pub struct HeightIndex {
    /// The heights themselves.
    heights: Vec<u32>,
    /// Fenwick tree (1-based): `tree[i]` sums the heights of entries `(i - lowbit(i), i]`.
    tree: Vec<u64>,
}

fn lowbit(i: usize) -> usize {
    i & i.wrapping_neg()
}

impl Default for HeightIndex {
    fn default() -> HeightIndex {
        HeightIndex::from_heights(Vec::new())
    }
}

impl HeightIndex {
    /// An index of `heights`, built in O(N).
    pub fn from_heights(heights: Vec<u32>) -> HeightIndex {
        let mut tree = vec![0u64; heights.len() + 1];
        for (i, h) in heights.iter().enumerate() {
            tree[i + 1] += u64::from(*h);
            let parent = i + 1 + lowbit(i + 1);
            if parent < tree.len() {
                tree[parent] += tree[i + 1];
            }
        }
        HeightIndex { heights, tree }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.heights.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.heights.is_empty()
    }

    /// The height of entry `i`.
    pub fn get(&self, i: usize) -> u32 {
        self.heights[i]
    }

    /// Add an entry at the end, in O(log N).
    pub fn push(&mut self, height: u32) {
        let i = self.heights.len() + 1;
        // Node i covers (i - lowbit(i), i]: the new height plus the entries before it in
        // that range.
        let covered = self.prefix(i - 1) - self.prefix(i - lowbit(i));
        self.heights.push(height);
        self.tree.push(covered + u64::from(height));
    }

    /// Change the height of entry `i`, in O(log N).
    pub fn set(&mut self, i: usize, height: u32) {
        let old = self.heights[i];
        if old == height {
            return;
        }
        self.heights[i] = height;
        let mut n = i + 1;
        while n < self.tree.len() {
            self.tree[n] = self.tree[n] + u64::from(height) - u64::from(old);
            n += lowbit(n);
        }
    }

    /// The sum of the heights of the first `n` entries (the first line of entry `n`).
    pub fn prefix(&self, n: usize) -> u64 {
        let mut n = n.min(self.heights.len());
        let mut sum = 0;
        while n > 0 {
            sum += self.tree[n];
            n -= lowbit(n);
        }
        sum
    }

    /// The sum of all heights.
    pub fn total(&self) -> u64 {
        self.prefix(self.heights.len())
    }

    /// The entry holding line `line` and the line's offset inside it, or `None` past the
    /// end.
    pub fn find(&self, line: u64) -> Option<(usize, u64)> {
        if line >= self.total() {
            return None;
        }
        let (mut pos, mut rest) = (0usize, line);
        let mut step = if self.heights.is_empty() {
            0
        } else {
            1usize << (usize::BITS - 1 - self.heights.len().leading_zeros())
        };
        while step > 0 {
            let next = pos + step;
            if next < self.tree.len() && self.tree[next] <= rest {
                pos = next;
                rest -= self.tree[next];
            }
            step >>= 1;
        }
        Some((pos, rest))
    }

    /// Drop the first `n` entries (rebuilt in O(N); inline mode does this rarely).
    pub fn drain_front(&mut self, n: usize) {
        let rest = self.heights.split_off(n.min(self.heights.len()));
        *self = HeightIndex::from_heights(rest);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum Op {
        Push(u32),
        Set(usize, u32),
        Drain(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (0u32..50).prop_map(Op::Push),
            4 => (any::<usize>(), 0u32..50).prop_map(|(i, h)| Op::Set(i, h)),
            1 => (0usize..5).prop_map(Op::Drain),
        ]
    }

    proptest! {
        /// Invariant: after any sequence of pushes, height changes and front drains, every
        /// prefix sum equals the naive sum of the heights before it, and `find` maps each
        /// line to the entry whose span [prefix(i), prefix(i + 1)) holds it.
        #[test]
        fn prefix_sums_equal_the_naive_sums(
            start in proptest::collection::vec(0u32..50, 0..40),
            ops in proptest::collection::vec(op(), 0..80),
        ) {
            let mut index = HeightIndex::from_heights(start.clone());
            let mut naive = start;
            for op in ops {
                match op {
                    Op::Push(h) => { index.push(h); naive.push(h); }
                    Op::Set(i, h) if !naive.is_empty() => {
                        let i = i % naive.len();
                        index.set(i, h);
                        naive[i] = h;
                    }
                    Op::Set(..) => {}
                    Op::Drain(n) => {
                        index.drain_front(n);
                        naive.drain(..n.min(naive.len()));
                    }
                }
            }
            prop_assert_eq!(index.len(), naive.len());
            let mut sum = 0u64;
            for (i, h) in naive.iter().enumerate() {
                prop_assert_eq!(index.prefix(i), sum);
                prop_assert_eq!(index.get(i), *h);
                sum += u64::from(*h);
            }
            prop_assert_eq!(index.total(), sum);
            for line in 0..sum {
                let (i, offset) = index.find(line).unwrap();
                prop_assert!(index.prefix(i) <= line && line < index.prefix(i + 1));
                prop_assert_eq!(index.prefix(i) + offset, line);
            }
            prop_assert_eq!(index.find(sum), None);
        }
    }

    #[test]
    fn finds_lines_across_entries_of_height_zero() {
        let index = HeightIndex::from_heights(vec![0, 2, 0, 0, 3]);
        assert_eq!(index.find(0), Some((1, 0)));
        assert_eq!(index.find(1), Some((1, 1)));
        assert_eq!(index.find(2), Some((4, 0)));
        assert_eq!(index.find(5), None);
    }
}
