//! A small fuzzy matcher for the `@file` popup: the query's characters must appear in the
//! path in order (case-insensitively); matches that run together, start a path segment or
//! a word, or fall in the file name score higher, and shorter paths win ties. A few dozen
//! lines instead of a matcher crate: workspace paths are short and the list is bounded.

/// How well `query` matches `path` (higher is better), or `None` when it does not.
pub fn score(query: &str, path: &str) -> Option<i64> {
    if query.is_empty() {
        return Some(-(path.len() as i64));
    }
    let hay: Vec<char> = path.chars().collect();
    let name_start = path
        .rfind('/')
        .map(|i| path[..=i].chars().count())
        .unwrap_or(0);
    let mut score = 0i64;
    let mut at = 0usize;
    let mut previous: Option<usize> = None;
    for q in query.chars().flat_map(char::to_lowercase) {
        let found = (at..hay.len()).find(|&i| hay[i].to_lowercase().eq(std::iter::once(q)))?;
        score += 1;
        if previous.is_some_and(|p| p + 1 == found) {
            score += 8;
        }
        if found == 0 || matches!(hay[found - 1], '/' | '_' | '-' | '.' | ' ') {
            score += 6;
        }
        if found >= name_start {
            score += 3;
        }
        score -= (found - at).min(10) as i64 / 2;
        previous = Some(found);
        at = found + 1;
    }
    Some(score * 100 - hay.len() as i64)
}

/// The best `limit` of `paths` for `query`, best first.
pub fn best<'a>(query: &str, paths: &'a [String], limit: usize) -> Vec<&'a str> {
    let mut scored: Vec<(i64, &str)> = paths
        .iter()
        .filter_map(|p| score(query, p).map(|s| (s, p.as_str())))
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored.into_iter().take(limit).map(|(_, p)| p).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subsequence_matches_and_tight_file_name_matches_rank_first() {
        let paths: Vec<String> = [
            "src/tui/app.rs",
            "src/agent/mod.rs",
            "src/tui/composer.rs",
            "tests/it/main.rs",
            "src/main.rs",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(best("main", &paths, 2), ["src/main.rs", "tests/it/main.rs"]);
        assert_eq!(best("tuicomp", &paths, 5), ["src/tui/composer.rs"]);
        assert_eq!(best("APP", &paths, 5), ["src/tui/app.rs"]);
        assert!(best("zzz", &paths, 5).is_empty());
        assert_eq!(score("ab", "ba"), None, "order matters");
    }
}
