//! The base protocol of LSP: each JSON-RPC message preceded by a `Content-Length` header
//! and a blank line. Small enough to own; a bound on a message's size keeps a server that
//! misbehaves from making Loom allocate without limit.

use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// The largest message Loom reads from a server (diagnostics of a huge file fit easily).
pub const MAX_MESSAGE: usize = 64 * 1024 * 1024;
/// The longest header line Loom reads.
const MAX_HEADER_LINE: usize = 1024;

/// Why a message could not be read.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// The stream ended (the server exited or closed its stdout).
    #[error("the server closed its output")]
    Closed,
    /// The bytes were not a framed JSON-RPC message.
    #[error("the server sent a malformed message: {0}")]
    Malformed(String),
    /// Reading failed.
    #[error("reading from the server failed: {0}")]
    Io(#[from] std::io::Error),
}

/// Read one message: its headers, then exactly `Content-Length` bytes of JSON.
pub async fn read_message<R: AsyncBufRead + Unpin>(reader: &mut R) -> Result<Value, FrameError> {
    let mut length: Option<usize> = None;
    let mut seen_any = false;
    loop {
        let mut line = Vec::new();
        let n = (&mut *reader)
            .take(MAX_HEADER_LINE as u64)
            .read_until(b'\n', &mut line)
            .await?;
        if n == 0 {
            return Err(if seen_any {
                FrameError::Malformed("the stream ended inside a header".into())
            } else {
                FrameError::Closed
            });
        }
        seen_any = true;
        if !line.ends_with(b"\n") {
            return Err(FrameError::Malformed("a header line is too long".into()));
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            break;
        }
        if let Some((name, value)) = text.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-length")
        {
            let parsed = value.trim().parse::<usize>().map_err(|_| {
                FrameError::Malformed(format!("bad Content-Length `{}`", value.trim()))
            })?;
            length = Some(parsed);
        }
    }
    let length = length.ok_or_else(|| FrameError::Malformed("no Content-Length".into()))?;
    if length > MAX_MESSAGE {
        return Err(FrameError::Malformed(format!(
            "a message of {length} bytes is over the {MAX_MESSAGE}-byte bound"
        )));
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).await.map_err(|e| {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            FrameError::Closed
        } else {
            FrameError::Io(e)
        }
    })?;
    serde_json::from_slice(&body).map_err(|e| FrameError::Malformed(e.to_string()))
}

/// Write one message with its header, and flush.
pub async fn write_message<W: AsyncWrite + Unpin>(
    writer: &mut W,
    message: &Value,
) -> std::io::Result<()> {
    let body = serde_json::to_vec(message).map_err(std::io::Error::other)?;
    let header = format!("Content-Length: {}\r\n\r\n", body.len());
    writer.write_all(header.as_bytes()).await?;
    writer.write_all(&body).await?;
    writer.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn a_written_message_reads_back_and_two_in_a_row_stay_apart() {
        let mut buf = Vec::new();
        write_message(&mut buf, &json!({"id": 1, "result": "é"}))
            .await
            .unwrap();
        write_message(&mut buf, &json!({"method": "x"}))
            .await
            .unwrap();
        let mut reader = tokio::io::BufReader::new(&buf[..]);
        assert_eq!(
            read_message(&mut reader).await.unwrap(),
            json!({"id": 1, "result": "é"})
        );
        assert_eq!(
            read_message(&mut reader).await.unwrap(),
            json!({"method": "x"})
        );
        assert!(matches!(
            read_message(&mut reader).await,
            Err(FrameError::Closed)
        ));
    }

    #[tokio::test]
    async fn other_headers_are_skipped_and_the_length_header_is_case_blind() {
        let raw = b"content-type: application/vscode-jsonrpc\r\nCONTENT-LENGTH: 2\r\n\r\n{}";
        let mut reader = tokio::io::BufReader::new(&raw[..]);
        assert_eq!(read_message(&mut reader).await.unwrap(), json!({}));
    }

    #[tokio::test]
    async fn bad_frames_are_errors_not_panics() {
        for raw in [
            &b"Content-Length: x\r\n\r\n{}"[..],
            b"X: 1\r\n\r\n{}",
            b"Content-Length: 999999999999\r\n\r\n",
            b"Content-Length: 5\r\n\r\n{}",
            b"Content-Length: 2\r\n\r\nno",
            b"Content-Length: 2\r\n",
        ] {
            let mut reader = tokio::io::BufReader::new(raw);
            let err = read_message(&mut reader).await.unwrap_err();
            assert!(
                matches!(err, FrameError::Malformed(_) | FrameError::Closed),
                "{err:?}"
            );
        }
        let long = vec![b'a'; MAX_HEADER_LINE + 10];
        let mut reader = tokio::io::BufReader::new(&long[..]);
        assert!(matches!(
            read_message(&mut reader).await,
            Err(FrameError::Malformed(_))
        ));
    }
}
