//! `hooks claude` in front of a running daemon: the payload goes to its `POST /claude` and its
//! answer is printed, so a command-only agent shares the daemon's loaded policies and their
//! state.

use std::time::Duration;

use axum::body::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper_util::rt::TokioIo;
use serde_json::Value;

use super::found::Found;
use super::token::Token;

/// Why a forward did not give an answer (the caller decides in-process instead, and says so).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ForwardError {
    /// No token to send.
    #[error("no token for the daemon: {0}")]
    Token(String),
    /// Connecting, sending or receiving failed.
    #[error("the daemon at {endpoint} did not answer: {reason}")]
    Io {
        /// Where it was asked.
        endpoint: String,
        /// What failed.
        reason: String,
    },
    /// The answer was not a JSON object.
    #[error("the daemon at {endpoint} answered status {status} with a body that is not an answer")]
    Answer {
        /// Where it was asked.
        endpoint: String,
        /// Its status code.
        status: u16,
    },
}

/// Sends `payload` to the daemon and returns its JSON answer.
///
/// # Errors
///
/// [`ForwardError`] when there is no token, the daemon cannot be reached in time, or its
/// answer is not a JSON object.
pub async fn forward(found: &Found, payload: Bytes) -> Result<Value, ForwardError> {
    let token = Token::existing(found.token_file.as_deref())
        .map_err(|e| ForwardError::Token(e.to_string()))?;
    let endpoint = format!("unix:{}", found.socket.display());
    let io = |reason: String| ForwardError::Io {
        endpoint: endpoint.clone(),
        reason,
    };
    // The daemon answers every request within its own deadline; a little more here.
    let wait = Duration::from_millis(found.request_timeout_ms) + Duration::from_secs(5);
    let request = Request::post("/claude")
        .header(hyper::header::HOST, "localhost")
        .header(hyper::header::CONTENT_TYPE, "application/json")
        .header(hyper::header::AUTHORIZATION, token.header())
        .body(Full::new(payload))
        .map_err(|e| io(e.to_string()))?;
    let exchange = async {
        let stream = tokio::net::UnixStream::connect(&found.socket).await?;
        check_peer(&stream, found.pid)?;
        send(stream, request).await
    };
    let (status, body) = tokio::time::timeout(wait, exchange)
        .await
        .map_err(|_| io(format!("no answer within {} ms", wait.as_millis())))?
        .map_err(|e| io(e.to_string()))?;
    // The daemon answers every payload with 200; anything else (401: another token) is no
    // answer.
    let answered = status == 200;
    match serde_json::from_slice::<Value>(&body) {
        Ok(answer) if answered && answer.is_object() => Ok(answer),
        _ => Err(ForwardError::Answer { endpoint, status }),
    }
}

/// The process at the other end must be the recorded daemon: that pid, this user, and the
/// same executable as this process. Anything else (a forged state file pointing at a socket
/// of another program) is refused before the payload is sent.
fn check_peer(stream: &tokio::net::UnixStream, pid: u32) -> std::io::Result<()> {
    let refuse = |why: String| {
        Err(std::io::Error::other(format!(
            "refused the socket's peer: {why}"
        )))
    };
    let cred = stream.peer_cred()?;
    // SAFETY: getuid(2) has no preconditions and cannot fail.
    let me = unsafe { getuid() };
    if cred.uid() != me {
        return refuse(format!("uid {} is not this user's ({me})", cred.uid()));
    }
    let peer = cred.pid().and_then(|p| u32::try_from(p).ok());
    if peer != Some(pid) {
        return refuse(format!("pid {peer:?} is not the daemon's ({pid})"));
    }
    let exe = |path: std::path::PathBuf| std::fs::read_link(path).ok();
    let theirs = exe(std::path::Path::new("/proc")
        .join(pid.to_string())
        .join("exe"));
    let ours = exe(std::path::PathBuf::from("/proc/self/exe"));
    if theirs.is_none() || theirs != ours {
        return refuse(format!(
            "its executable {theirs:?} is not this one ({ours:?})"
        ));
    }
    Ok(())
}

unsafe extern "C" {
    fn getuid() -> u32;
}

async fn send<S>(stream: S, request: Request<Full<Bytes>>) -> std::io::Result<(u16, Bytes)>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(std::io::Error::other)?;
    let driver = tokio::spawn(connection);
    let response = sender
        .send_request(request)
        .await
        .map_err(std::io::Error::other)?;
    let status = response.status().as_u16();
    let body = response
        .into_body()
        .collect()
        .await
        .map_err(std::io::Error::other)?
        .to_bytes();
    driver.abort();
    Ok((status, body))
}
