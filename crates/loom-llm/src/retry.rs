//! When and how long to wait before asking the model again.
//!
//! Pure: the caller supplies the random jitter, so the schedule is testable. Loom retries
//! visibly (each retry is an event the person sees) instead of letting the HTTP layer retry
//! silently, so a rate-limited session never looks frozen.

use std::time::Duration;

/// Bounds for retrying a failed model request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in total, the first included.
    pub max_attempts: u32,
    /// Wait after the first failure, doubled for each further one.
    pub base: Duration,
    /// Longest computed wait.
    pub cap: Duration,
    /// Longest wait a server's `Retry-After` may impose.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 5,
            base: Duration::from_millis(500),
            cap: Duration::from_secs(30),
            max_retry_after: Duration::from_secs(120),
        }
    }
}

impl RetryPolicy {
    /// Whether attempt number `attempt` (1-based) may be followed by another.
    pub fn may_retry(&self, attempt: u32) -> bool {
        attempt < self.max_attempts
    }

    /// How long to wait after attempt `attempt` (1-based) failed. `jitter` is uniform in
    /// `[0, 1)`; the wait is between half and all of the exponential step ("equal jitter").
    /// A server's `Retry-After` is honoured (up to `max_retry_after`) when it asks for longer.
    pub fn delay(&self, attempt: u32, retry_after: Option<Duration>, jitter: f64) -> Duration {
        let exp = self
            .base
            .saturating_mul(1u32 << attempt.saturating_sub(1).min(20))
            .min(self.cap);
        let jitter = jitter.clamp(0.0, 1.0);
        let computed = exp.mul_f64(0.5 + 0.5 * jitter);
        match retry_after {
            Some(after) => after.min(self.max_retry_after).max(computed.min(after)),
            None => computed,
        }
    }
}

/// Parse `Retry-After` (seconds, or an HTTP date) or `retry-after-ms` header values.
pub fn parse_retry_after(seconds: Option<&str>, millis: Option<&str>) -> Option<Duration> {
    parse_retry_after_at(seconds, millis, std::time::SystemTime::now())
}

/// [`parse_retry_after`] as of `now`: a date in the past means no wait.
fn parse_retry_after_at(
    seconds: Option<&str>,
    millis: Option<&str>,
    now: std::time::SystemTime,
) -> Option<Duration> {
    if let Some(ms) = millis.and_then(|v| v.trim().parse::<f64>().ok())
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    let value = seconds?.trim();
    match value.parse::<f64>() {
        Ok(secs) => (secs >= 0.0 && secs.is_finite()).then(|| Duration::from_secs_f64(secs)),
        Err(_) => {
            let at = httpdate::parse_http_date(value).ok()?;
            Some(at.duration_since(now).unwrap_or(Duration::ZERO))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Regression (found by a helper): `Retry-After` given as an HTTP date (which servers
    /// and proxies may send) was ignored and the retry came after the backoff's half
    /// second; a date is a wait until then (none when it is past).
    #[test]
    fn retry_after_as_an_http_date_is_a_wait_until_then() {
        let now = std::time::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let later = httpdate::fmt_http_date(now + Duration::from_secs(4));
        assert_eq!(
            parse_retry_after_at(Some(&later), None, now),
            Some(Duration::from_secs(4))
        );
        let past = httpdate::fmt_http_date(now - Duration::from_secs(60));
        assert_eq!(
            parse_retry_after_at(Some(&past), None, now),
            Some(Duration::ZERO)
        );
        assert_eq!(
            parse_retry_after_at(Some("120"), None, now),
            Some(Duration::from_secs(120))
        );
        assert_eq!(parse_retry_after_at(Some("soon"), None, now), None);
        assert_eq!(parse_retry_after_at(Some("-3"), None, now), None);
    }

    #[test]
    fn exponential_with_cap() {
        let p = RetryPolicy::default();
        assert_eq!(p.delay(1, None, 1.0), Duration::from_millis(500));
        assert_eq!(p.delay(2, None, 1.0), Duration::from_millis(1000));
        assert_eq!(p.delay(3, None, 0.0), Duration::from_millis(1000));
        assert_eq!(p.delay(30, None, 1.0), Duration::from_secs(30));
    }

    #[test]
    fn retry_after_is_honoured_and_bounded() {
        let p = RetryPolicy::default();
        assert_eq!(
            p.delay(1, Some(Duration::from_secs(7)), 0.3),
            Duration::from_secs(7)
        );
        assert_eq!(
            p.delay(1, Some(Duration::from_secs(999)), 0.3),
            Duration::from_secs(120)
        );
        assert_eq!(p.delay(1, Some(Duration::ZERO), 0.3), Duration::ZERO);
    }

    #[test]
    fn header_parsing() {
        assert_eq!(
            parse_retry_after(Some("2"), None),
            Some(Duration::from_secs(2))
        );
        assert_eq!(
            parse_retry_after(Some("x"), Some("250")),
            Some(Duration::from_millis(250))
        );
        // A date: past, so no wait.
        assert_eq!(
            parse_retry_after(Some("Wed, 21 Oct 2015 07:28:00 GMT"), None),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after(None, None), None);
    }

    proptest! {
        // Invariant: retries are bounded and every wait is within [0, cap] (or the bounded
        // Retry-After).
        #[test]
        fn waits_are_bounded(attempt in 1u32..100, jitter in 0.0f64..1.0, after in proptest::option::of(0u64..1000)) {
            let p = RetryPolicy::default();
            let d = p.delay(attempt, after.map(Duration::from_secs), jitter);
            prop_assert!(d <= p.cap.max(p.max_retry_after));
            prop_assert_eq!(p.may_retry(attempt), attempt < 5);
        }
    }
}
