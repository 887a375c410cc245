//! A model server's response body, bounded: it may not grow past a byte cap, nor go
//! silent for longer than the idle timeout (before the headers or between chunks).
//!
//! Without bounds, an endless stream reached 7.9 GiB in 75 s and a server that accepted
//! and never answered left Loom waiting 25 minutes. The stream parser above this layer
//! (server-sent events) buffers a line until its end, so the cap has to hold here, on the
//! raw bytes, where a single endless line is still only bytes; and a long line reaches
//! that parser in one piece, as it would otherwise re-read it for every piece. When a
//! bound is hit the
//! body ends with an error, and [`LimitSlot`] tells the client which bound it was, so an
//! idle stream is retried like a cut one and an oversized one is not.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::{Stream, StreamExt};

/// The longest answer a probe reads: a model list with descriptions, llama.cpp's
/// properties with its chat template and Ollama's model card fit many times over, and a
/// server that streams without end costs this much, not what it sends within the timeout.
pub const PROBE_BODY_CAP: usize = 4 << 20;

/// Which bound ended a response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LimitHit {
    /// No bytes for this long.
    Idle(Duration),
    /// More raw bytes than this.
    Size(u64),
    /// One line (one server-sent event's data) longer than this.
    Line(u64),
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

/// `body`, ending with an error after `idle` without bytes, past `cap` bytes, or with a
/// line longer than `line_cap`, and passed on in pieces that each end a line.
///
/// The event parser above re-reads its whole buffer on every piece it gets, so a long line
/// fed to it in small pieces costs time quadratic in its length (a 65 MiB line took over a
/// minute). Here a piece without a line break is held until one arrives, so every line is
/// parsed once; `line_cap` bounds what is held (the whole-body cap is many times larger,
/// for framing, and an endless line held up to it took 100 MB).
pub fn bounded<S, E>(
    body: S,
    idle: Duration,
    cap: u64,
    line_cap: u64,
    slot: LimitSlot,
) -> impl Stream<Item = Result<bytes::Bytes, std::io::Error>> + Send + 'static
where
    S: Stream<Item = Result<bytes::Bytes, E>> + Send + Unpin + 'static,
    E: std::error::Error + Send + Sync + 'static,
{
    let state = Body {
        body: Some(body),
        seen: 0,
        open: 0,
        held: bytes::BytesMut::new(),
    };
    futures::stream::unfold(state, move |mut state| {
        let slot = slot.clone();
        async move {
            let mut body = state.body.take()?;
            let fail = |hit: LimitHit, msg: String, state: Body<S>| {
                slot.set(hit);
                Some((Err(std::io::Error::other(msg)), state))
            };
            loop {
                match tokio::time::timeout(idle, body.next()).await {
                    Err(_) => {
                        let msg = format!("no bytes for {} s", idle.as_secs());
                        return fail(LimitHit::Idle(idle), msg, state);
                    }
                    Ok(None) if state.held.is_empty() => return None,
                    Ok(None) => {
                        let rest = state.held.split().freeze();
                        return Some((Ok(rest), state));
                    }
                    Ok(Some(Err(e))) => return Some((Err(std::io::Error::other(e)), state)),
                    Ok(Some(Ok(chunk))) => {
                        state.seen += chunk.len() as u64;
                        if state.seen > cap {
                            let msg = format!("more than {cap} bytes");
                            return fail(LimitHit::Size(cap), msg, state);
                        }
                        let last_break = chunk.iter().rposition(|b| matches!(b, b'\n' | b'\r'));
                        // The line still open after this chunk, whether held here or passed
                        // on as the tail of a piece.
                        state.open = match last_break {
                            None => state.open + chunk.len() as u64,
                            Some(at) => (chunk.len() - at - 1) as u64,
                        };
                        if state.open > line_cap {
                            let msg = format!("a line of more than {line_cap} bytes");
                            return fail(LimitHit::Line(line_cap), msg, state);
                        }
                        if last_break.is_none() {
                            state.held.extend_from_slice(&chunk);
                            continue;
                        }
                        let piece = if state.held.is_empty() {
                            chunk
                        } else {
                            state.held.extend_from_slice(&chunk);
                            state.held.split().freeze()
                        };
                        state.body = Some(body);
                        return Some((Ok(piece), state));
                    }
                }
            }
        }
    })
}

/// The first `cap` bytes of a whole (non-streamed) response body, and whether that was all
/// of it. Reading stops at the cap: a server answering a probe or an error status with an
/// endless body (one that streams faster than any timeout fires) costs `cap` bytes, not
/// whatever it sends in the seconds before the timeout (a gigabyte in three seconds from a
/// local server).
pub async fn read_capped(mut response: reqwest::Response, cap: usize) -> (Vec<u8>, bool) {
    let mut body = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                let room = cap - body.len();
                if chunk.len() > room {
                    body.extend_from_slice(&chunk[..room]);
                    return (body, false);
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => return (body, true),
            Err(_) => return (body, false),
        }
    }
}

/// A small JSON answer (a model list, a server's properties): `None` when the body is not
/// JSON, broke off, or is longer than `cap` bytes.
pub async fn json_capped(response: reqwest::Response, cap: usize) -> Option<serde_json::Value> {
    let (body, whole) = read_capped(response, cap).await;
    if !whole {
        return None;
    }
    serde_json::from_slice(&body).ok()
}

/// The limiter's state between pieces: the body (`None` once it ended or failed), bytes
/// seen, the length of the line not yet ended, and the part of it held back.
struct Body<S> {
    body: Option<S>,
    seen: u64,
    open: u64,
    held: bytes::BytesMut,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunks(n: usize) -> impl Stream<Item = Result<bytes::Bytes, std::io::Error>> + Unpin {
        futures::stream::iter((0..n).map(|_| Ok(bytes::Bytes::from_static(b"012345678\n"))))
    }

    fn pieces(
        parts: &'static [&'static [u8]],
    ) -> impl Stream<Item = Result<bytes::Bytes, std::io::Error>> + Unpin {
        futures::stream::iter(parts.iter().map(|p| Ok(bytes::Bytes::from_static(p))))
    }

    #[tokio::test]
    async fn a_line_reaches_the_parser_in_one_piece_and_nothing_is_lost() {
        let parts: &[&[u8]] = &[
            b"data: {\"a",
            b"bc",
            b"d\"}\n\ndata: x",
            b"y",
            b"z\r\n",
            b"tail",
        ];
        let out: Vec<bytes::Bytes> = bounded(
            pieces(parts),
            Duration::from_secs(5),
            1000,
            1000,
            LimitSlot::default(),
        )
        .map(Result::unwrap)
        .collect()
        .await;
        let expect: [&[u8]; 3] = [b"data: {\"abcd\"}\n\ndata: x", b"yz\r\n", b"tail"];
        assert_eq!(out, expect.map(bytes::Bytes::from_static));
    }

    #[tokio::test]
    async fn a_line_held_back_still_counts_against_the_cap() {
        let slot = LimitSlot::default();
        let endless = futures::stream::repeat_with(|| {
            Ok::<_, std::io::Error>(bytes::Bytes::from(vec![b'a'; 1000]))
        });
        let out: Vec<_> = bounded(
            endless,
            Duration::from_secs(5),
            10_000,
            1 << 20,
            slot.clone(),
        )
        .collect()
        .await;
        assert_eq!(out.len(), 1, "nothing of the line was passed on");
        assert!(out[0].is_err());
        assert_eq!(slot.take(), Some(LimitHit::Size(10_000)));
    }

    /// Issue 23: a line is held only up to the line cap, far below the body's cap (an
    /// endless line at the default settings was held up to 65 MiB, 100 MB of memory).
    #[tokio::test]
    async fn a_line_longer_than_the_line_cap_ends_the_body() {
        let slot = LimitSlot::default();
        let endless = futures::stream::repeat_with(|| {
            Ok::<_, std::io::Error>(bytes::Bytes::from(vec![b'a'; 1000]))
        });
        let out: Vec<_> = bounded(
            endless,
            Duration::from_secs(5),
            1 << 30,
            10_000,
            slot.clone(),
        )
        .collect()
        .await;
        assert_eq!(out.len(), 1);
        assert!(out[0].is_err());
        assert_eq!(slot.take(), Some(LimitHit::Line(10_000)));
        // Lines up to the cap pass, whatever the total; a line's tail after a break counts.
        let slot = LimitSlot::default();
        let out: Vec<_> = bounded(
            chunks(1000),
            Duration::from_secs(5),
            1 << 30,
            10,
            slot.clone(),
        )
        .collect()
        .await;
        assert!(out.iter().all(Result::is_ok));
        assert_eq!(slot.take(), None);
        let parts: &[&[u8]] = &[b"ok\n012345", b"6789ab"];
        let slot = LimitSlot::default();
        let out: Vec<_> = bounded(
            pieces(parts),
            Duration::from_secs(5),
            1000,
            10,
            slot.clone(),
        )
        .collect()
        .await;
        assert!(
            out[0].is_ok(),
            "the first piece passes, its open tail counted"
        );
        assert!(out[1].is_err());
        assert_eq!(slot.take(), Some(LimitHit::Line(10)));
    }

    #[tokio::test]
    async fn a_body_past_the_cap_ends_with_an_error_and_says_so() {
        let slot = LimitSlot::default();
        let out: Vec<_> = bounded(chunks(100), Duration::from_secs(5), 55, 55, slot.clone())
            .collect()
            .await;
        assert_eq!(out.iter().filter(|r| r.is_ok()).count(), 5);
        assert!(out.last().unwrap().is_err());
        assert_eq!(slot.take(), Some(LimitHit::Size(55)));
        let slot = LimitSlot::default();
        let out: Vec<_> = bounded(chunks(3), Duration::from_secs(5), 55, 55, slot.clone())
            .collect()
            .await;
        assert!(out.iter().all(Result::is_ok));
        assert_eq!(slot.take(), None);
    }

    #[tokio::test(start_paused = true)]
    async fn a_silent_body_ends_after_the_idle_timeout() {
        let slot = LimitSlot::default();
        let silent = futures::stream::pending::<Result<bytes::Bytes, std::io::Error>>();
        let out: Vec<_> = bounded(silent, Duration::from_secs(120), 1000, 1000, slot.clone())
            .collect()
            .await;
        assert_eq!(out.len(), 1);
        assert_eq!(slot.take(), Some(LimitHit::Idle(Duration::from_secs(120))));
    }
}
