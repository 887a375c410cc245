//! Identifiers: a session's id names its transcript, its undo journal and a memory's stamp,
//! so the stores and both front ends make them the same way.

/// A new session id: sortable by time, unique enough for one machine.
pub fn new_session_id() -> String {
    let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let stamp: String = now
        .chars()
        .filter(|c| c.is_ascii_digit())
        .take(14)
        .collect();
    format!("{}-{}-{:04x}", &stamp[..8], &stamp[8..], fastrand::u16(..))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_sort_by_time() {
        let id = new_session_id();
        assert_eq!(id.len(), "20261122-071530-ab12".len(), "{id}");
        assert!(id.starts_with("20"));
    }
}
