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
pub async fn forward(found: &Found, identity: &str, payload: Bytes) -> Result<Value, ForwardError> {
    let token = Token::existing(None).map_err(|e| ForwardError::Token(e.to_string()))?;
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
    let (status, served, body) = tokio::time::timeout(wait, exchange)
        .await
        .map_err(|_| io(format!("no answer within {} ms", wait.as_millis())))?
        .map_err(|e| io(e.to_string()))?;
    if served.as_deref() != Some(identity) {
        return Err(io(
            "it serves another project or other options (x-hookrail-daemon)".to_owned(),
        ));
    }
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
    // The same executable with a library preloaded into it is another program: the loader's
    // variables must be this process's own (`cargo run` and test harnesses set
    // `LD_LIBRARY_PATH` for both sides alike).
    let environ = std::fs::read(
        std::path::Path::new("/proc")
            .join(pid.to_string())
            .join("environ"),
    )?;
    for name in LOADER_VARIABLES {
        let prefix = format!("{name}=");
        let theirs = environ
            .split(|b| *b == 0)
            .find_map(|var| var.strip_prefix(prefix.as_bytes()));
        let ours = std::env::var_os(name);
        if theirs != ours.as_ref().map(|v| v.as_encoded_bytes()) {
            return refuse(format!("it runs with another {name} than this process"));
        }
    }
    Ok(())
}

unsafe extern "C" {
    fn getuid() -> u32;
}

/// The dynamic loader's variables that put other code into a process.
const LOADER_VARIABLES: [&str; 3] = ["LD_PRELOAD", "LD_AUDIT", "LD_LIBRARY_PATH"];

async fn send<S>(
    stream: S,
    request: Request<Full<Bytes>>,
) -> std::io::Result<(u16, Option<String>, Bytes)>
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
    let served = response
        .headers()
        .get(super::IDENTITY_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let body = response
        .into_body()
        .collect()
        .await
        .map_err(std::io::Error::other)?
        .to_bytes();
    driver.abort();
    Ok((status, served, body))
}
