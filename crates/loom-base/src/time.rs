//! Time as people read it in lists: `loom sessions` and the resume picker both say how long
//! ago a session was used.

/// How long ago `then` was, from `now` (seconds since the epoch): "just now", "5m ago",
/// "3h ago", "2d ago".
pub fn age(now: u64, then: u64) -> String {
    let s = now.saturating_sub(then);
    match s {
        0..60 => "just now".into(),
        60..3600 => format!("{}m ago", s / 60),
        3600..86_400 => format!("{}h ago", s / 3600),
        _ => format!("{}d ago", s / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_in_the_largest_whole_unit() {
        assert_eq!(age(1000, 1000), "just now");
        assert_eq!(
            age(1000, 2000),
            "just now",
            "a clock behind is not negative"
        );
        assert_eq!(age(4000, 1000), "50m ago");
        assert_eq!(age(20_000, 1000), "5h ago");
        assert_eq!(age(1_000_000, 1000), "11d ago");
    }
}
