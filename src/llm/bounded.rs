//! A model server's response body, bounded: it may not grow past a byte cap, nor go
//! silent for longer than the idle timeout (before the headers or between chunks).
//!
//! Without bounds, an endless stream reached 7.9 GiB in 75 s and a server that accepted
//! and never answered left Loom waiting 25 minutes. The stream parser above this layer
//! (server-sent events) buffers a line until its end, so the cap has to hold here, on the
//! raw bytes, where a single endless line is still only bytes. When a bound is hit the
//! body ends with an error, and [`LimitSlot`] tells the client which bound it was, so an
//! idle stream is retried like a cut one and an oversized one is not.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::{Stream, StreamExt};

/// Which bound ended a response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LimitHit {
    /// No bytes for this long.
    Idle(Duration),
    /// More raw bytes than this.
    Size(u64),
}

/// Where the body limiter reports the bound it hit, for the request in flight.
#[derive(Debug, Clone, Default)]
pub struct LimitSlot(Arc<Mutex<Option<LimitHit>>>);

impl LimitSlot {
    /// Forget an earlier hit (a new request starts).
    pub fn clear(&self) {
        if let Ok(mut g) = self.0.lock() {
            *g = None;
        }
    }

    /// The bound the current request hit, if any.
    pub fn take(&self) -> Option<LimitHit> {
        self.0.lock().ok().and_then(|mut g| g.take())
    }

    /// Record that the server did not answer within `idle`.
    pub fn set_idle(&self, idle: Duration) {
        self.set(LimitHit::Idle(idle));
    }

    fn set(&self, hit: LimitHit) {
        if let Ok(mut g) = self.0.lock() {
            *g = Some(hit);
        }
    }
}

/// `body`, ending with an error after `idle` without bytes or past `cap` bytes.
pub fn bounded<S, E>(
    body: S,
    idle: Duration,
    cap: u64,
    slot: LimitSlot,
) -> impl Stream<Item = Result<bytes::Bytes, std::io::Error>> + Send + 'static
where
    S: Stream<Item = Result<bytes::Bytes, E>> + Send + Unpin + 'static,
    E: std::error::Error + Send + Sync + 'static,
{
    futures::stream::unfold((Some(body), 0u64), move |(body, seen)| {
        let slot = slot.clone();
        async move {
            let mut body = body?;
            let fail = |hit: LimitHit, msg: String| {
                slot.set(hit);
                Some((Err(std::io::Error::other(msg)), (None, seen)))
            };
            match tokio::time::timeout(idle, body.next()).await {
                Err(_) => fail(
                    LimitHit::Idle(idle),
                    format!("no bytes for {} s", idle.as_secs()),
                ),
                Ok(None) => None,
                Ok(Some(Err(e))) => Some((Err(std::io::Error::other(e)), (None, seen))),
                Ok(Some(Ok(chunk))) => {
                    let seen = seen + chunk.len() as u64;
                    if seen > cap {
                        return fail(LimitHit::Size(cap), format!("more than {cap} bytes"));
                    }
                    Some((Ok(chunk), (Some(body), seen)))
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunks(n: usize) -> impl Stream<Item = Result<bytes::Bytes, std::io::Error>> + Unpin {
        futures::stream::iter((0..n).map(|_| Ok(bytes::Bytes::from_static(b"0123456789"))))
    }

    #[tokio::test]
    async fn a_body_past_the_cap_ends_with_an_error_and_says_so() {
        let slot = LimitSlot::default();
        let out: Vec<_> = bounded(chunks(100), Duration::from_secs(5), 55, slot.clone())
            .collect()
            .await;
        assert_eq!(out.iter().filter(|r| r.is_ok()).count(), 5);
        assert!(out.last().unwrap().is_err());
        assert_eq!(slot.take(), Some(LimitHit::Size(55)));
        let slot = LimitSlot::default();
        let out: Vec<_> = bounded(chunks(3), Duration::from_secs(5), 55, slot.clone())
            .collect()
            .await;
        assert!(out.iter().all(Result::is_ok));
        assert_eq!(slot.take(), None);
    }

    #[tokio::test(start_paused = true)]
    async fn a_silent_body_ends_after_the_idle_timeout() {
        let slot = LimitSlot::default();
        let silent = futures::stream::pending::<Result<bytes::Bytes, std::io::Error>>();
        let out: Vec<_> = bounded(silent, Duration::from_secs(120), 1000, slot.clone())
            .collect()
            .await;
        assert_eq!(out.len(), 1);
        assert_eq!(slot.take(), Some(LimitHit::Idle(Duration::from_secs(120))));
    }
}
