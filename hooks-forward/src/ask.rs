//! One request to a daemon over its Unix socket: `POST /claude` with the payload, asking for
//! the command form of the answer, after checking that the socket's peer is the daemon the
//! record names.
//!
//! The exchange is HTTP/1.1 with `Connection: close`, written by hand and read with
//! [`httparse`] (hyper's parser): a client that sends one request and reads one answer
//! needs no runtime, and starting one would cost more than the whole exchange.

use std::io::{ErrorKind, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::answer::CommandAnswer;
use crate::daemon::Found;

/// The largest answer read; a daemon's answer carries at most a rewritten payload, which is
/// capped at 16 MiB by default.
pub const MAX_ANSWER: usize = 64 << 20;

/// Why a forward did not give an answer (the caller decides without the daemon, and says so).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AskError {
    /// Connecting, sending or receiving failed, or took too long.
    #[error("the daemon at unix:{} did not answer: {reason}", socket.display())]
    Io {
        /// Where it was asked.
        socket: PathBuf,
        /// What failed.
        reason: String,
    },
    /// The socket's peer is not the daemon the record names.
    #[error("refused the peer of unix:{}: {reason}", socket.display())]
    Peer {
        /// Where it was asked.
        socket: PathBuf,
        /// Why it is not the daemon.
        reason: String,
    },
    /// The answer came from a daemon serving another project or other options.
    #[error("the daemon at unix:{} serves another project or other options", socket.display())]
    Identity {
        /// Where it was asked.
        socket: PathBuf,
    },
    /// The answer was not a command-form answer.
    #[error("the daemon at unix:{} answered status {status} with a body that is not an answer", socket.display())]
    Answer {
        /// Where it was asked.
        socket: PathBuf,
        /// Its status code.
        status: u16,
    },
}

/// Sends `payload` to the daemon `found` and returns its answer in the command form.
///
/// `identity` is what the daemon must say it serves ([`crate::daemon::identity`] of the
/// caller's own project and sources), `token` the bearer token, `exe` the executable the
/// daemon must be running (any path to that file), and `headers` any further request headers.
///
/// # Errors
///
/// [`AskError`] when the daemon cannot be reached in time, the peer is not the recorded
/// daemon, it serves something else, or its answer is not one.
pub fn ask(
    found: &Found,
    identity: &str,
    token: &str,
    exe: &Path,
    payload: &[u8],
    headers: &[(&str, &str)],
) -> Result<CommandAnswer, AskError> {
    let socket = found.socket.clone();
    let io = |reason: String| AskError::Io {
        socket: socket.clone(),
        reason,
    };
    // The daemon answers every request within its own deadline; a little more here.
    let wait = Duration::from_millis(found.request_timeout_ms) + Duration::from_secs(5);
    let deadline = Instant::now() + wait;
    let refused = |reason| AskError::Peer {
        socket: socket.clone(),
        reason,
    };
    // The recorded process is checked before connecting, so that the request can follow the
    // connection at once: a daemon woken by the connection then finds the request already
    // there, instead of going back to sleep until it arrives (on a VM, each wake-up of an idle
    // core is a trip through the hypervisor). After connecting, the socket's peer must be
    // that process.
    check_process(found.pid, exe).map_err(refused)?;
    let mut request = format!(
        "POST /claude HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\nauthorization: Bearer {token}\r\n{}: {}\r\ncontent-length: {}\r\nconnection: close\r\n",
        crate::FORM_HEADER,
        crate::COMMAND_FORM,
        payload.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    // One write, so that the daemon reads the request whole in one go.
    let mut request = request.into_bytes();
    request.extend_from_slice(payload);
    let left = |what: &str| {
        deadline
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
            .ok_or_else(|| io(format!("no answer within {} ms ({what})", wait.as_millis())))
    };
    let mut stream = UnixStream::connect(&found.socket).map_err(|e| io(e.to_string()))?;
    check_peer(&stream, found.pid).map_err(refused)?;
    stream
        .set_write_timeout(Some(left("sending")?))
        .map_err(|e| io(e.to_string()))?;
    let sent = stream.write_all(&request);
    // A daemon that refuses a request (401) answers before reading the body and closes: its
    // answer is still there to read, and says more than the broken pipe.
    let sending = match sent {
        Ok(()) => None,
        Err(e) if matches!(e.kind(), ErrorKind::BrokenPipe | ErrorKind::ConnectionReset) => Some(e),
        Err(e) => return Err(io(format!("sending: {e}"))),
    };
    let io = |reason: String| match &sending {
        Some(e) => io(format!("sending: {e}; then {reason}")),
        None => io(reason),
    };
    // One read, within what is left of the deadline.
    let read_some = |stream: &mut UnixStream, chunk: &mut [u8]| -> Result<usize, AskError> {
        stream
            .set_read_timeout(Some(left("reading")?))
            .map_err(|e| io(e.to_string()))?;
        stream.read(chunk).map_err(|e| io(format!("reading: {e}")))
    };
    let mut received = Vec::with_capacity(4096);
    // Small (see `payload::read_stdin`): most answers are a few hundred bytes.
    let mut chunk = [0u8; 8 * 1024];
    let (status, served, body_at, length) = loop {
        let n = read_some(&mut stream, &mut chunk)?;
        if n == 0 {
            return Err(io("the connection closed before an answer".to_owned()));
        }
        received.extend_from_slice(&chunk[..n]);
        let mut slots = [httparse::EMPTY_HEADER; 32];
        let mut response = httparse::Response::new(&mut slots);
        match response.parse(&received) {
            Ok(httparse::Status::Partial) if received.len() < 64 * 1024 => continue,
            Ok(httparse::Status::Partial) => return Err(io("a header over 64 KiB".to_owned())),
            Err(e) => return Err(io(format!("not an HTTP answer: {e}"))),
            Ok(httparse::Status::Complete(at)) => {
                let header = |name: &str| {
                    response
                        .headers
                        .iter()
                        .find(|h| h.name.eq_ignore_ascii_case(name))
                        .map(|h| h.value)
                };
                if header("transfer-encoding").is_some() {
                    return Err(io(
                        "a chunked answer (this client reads only a sized one)".to_owned()
                    ));
                }
                let length = header("content-length")
                    .and_then(|v| std::str::from_utf8(v).ok())
                    .and_then(|v| v.trim().parse::<usize>().ok());
                let served = header(crate::IDENTITY_HEADER).map(<[u8]>::to_vec);
                break (response.code.unwrap_or(0), served, at, length);
            }
        }
    };
    let mut body = received.split_off(body_at);
    let want = length.unwrap_or(MAX_ANSWER);
    if want > MAX_ANSWER {
        return Err(io(format!(
            "an answer of {want} bytes (at most {MAX_ANSWER})"
        )));
    }
    while body.len() < want {
        let n = read_some(&mut stream, &mut chunk)?;
        if n == 0 {
            if length.is_some() {
                return Err(io("the connection closed inside the answer".to_owned()));
            }
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    body.truncate(want);
    // The daemon answers every payload with 200; anything else (401: another token) is no
    // answer.
    if status != 200 {
        return Err(AskError::Answer { socket, status });
    }
    if served.as_deref() != Some(identity.as_bytes()) {
        return Err(AskError::Identity { socket });
    }
    serde_json::from_slice::<CommandAnswer>(&body).map_err(|_| AskError::Answer { socket, status })
}

/// The [`ENV_FILE_HEADER`](crate::ENV_FILE_HEADER) to send for `value`, this process's
/// [`ENV_FILE_VAR`](crate::ENV_FILE_VAR) (the daemon gives it to the command hooks of this
/// request, as they would inherit it in the client's own process): `Ok(None)` when it is unset.
///
/// # Errors
///
/// The value, when a header cannot carry it as it is: not UTF-8, a control character (which
/// would end the header), or white space at either end (which HTTP drops). The caller says so;
/// the hooks then run without it.
pub fn env_file_header(
    value: Option<std::ffi::OsString>,
) -> Result<Option<String>, std::ffi::OsString> {
    let Some(value) = value else {
        return Ok(None);
    };
    match value.to_str() {
        Some(text) if !text.chars().any(char::is_control) && text.trim() == text => {
            Ok(Some(text.to_owned()))
        }
        _ => Err(value),
    }
}

/// The socket's peer must be the recorded daemon's process (`pid`), of this user.
fn check_peer(stream: &UnixStream, pid: u32) -> Result<(), String> {
    let (peer_pid, peer_uid) = peer_credentials(stream)?;
    let me = nix::unistd::getuid().as_raw();
    if peer_uid != me {
        return Err(format!("uid {peer_uid} is not this user's ({me})"));
    }
    if peer_pid != pid {
        return Err(format!("pid {peer_pid} is not the daemon's ({pid})"));
    }
    Ok(())
}

/// The recorded daemon's process must run the executable `exe` (the same file: compared by
/// device and inode, so `exe` may be any path to it, a link included), with the dynamic
/// loader's variables of this process. Anything else (a record pointing at a socket of another
/// program) is refused before anything is sent.
fn check_process(pid: u32, exe: &Path) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    let proc = Path::new("/proc").join(pid.to_string());
    // Two `stat`s: resolving `exe` to compare paths walked every component of it.
    let file = |path: &Path| std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()));
    let ours = file(exe);
    if ours.is_none() || file(&proc.join("exe")) != ours {
        let theirs = std::fs::read_link(proc.join("exe")).ok();
        return Err(format!(
            "its executable {theirs:?} is not {}",
            exe.display()
        ));
    }
    // The same executable with a library preloaded into it is another program: the loader's
    // variables must be this process's own (`cargo run` and test harnesses set
    // `LD_LIBRARY_PATH` for both sides alike).
    // `/proc` reports a size of 0, so a plain `fs::read` would grow its buffer from 32 bytes.
    let mut environ = Vec::with_capacity(16 * 1024);
    std::fs::File::open(proc.join("environ"))
        .and_then(|mut file| file.read_to_end(&mut environ))
        .map_err(|e| e.to_string())?;
    for name in LOADER_VARIABLES {
        let prefix = format!("{name}=");
        let theirs = environ
            .split(|b| *b == 0)
            .find_map(|var| var.strip_prefix(prefix.as_bytes()));
        let ours = std::env::var_os(name);
        if theirs != ours.as_ref().map(|v| v.as_encoded_bytes()) {
            return Err(format!("it runs with another {name} than this process"));
        }
    }
    Ok(())
}

/// The dynamic loader's variables that put other code into a process.
const LOADER_VARIABLES: [&str; 3] = ["LD_PRELOAD", "LD_AUDIT", "LD_LIBRARY_PATH"];

/// The pid and uid of the socket's peer (`SO_PEERCRED`), taken when it connected.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn peer_credentials(stream: &UnixStream) -> Result<(u32, u32), String> {
    use nix::sys::socket::{getsockopt, sockopt::PeerCredentials};
    let cred = getsockopt(stream, PeerCredentials).map_err(|e| e.to_string())?;
    let pid = u32::try_from(cred.pid()).map_err(|_| "no peer pid".to_owned())?;
    Ok((pid, cred.uid()))
}

/// Elsewhere a peer's process cannot be checked the way [`check_peer`] needs (`/proc`), so no
/// peer passes and every event is decided without the daemon.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn peer_credentials(_: &UnixStream) -> Result<(u32, u32), String> {
    Err("a daemon's process is checked on Linux only".to_owned())
}

#[cfg(test)]
mod tests {
    use super::{check_process, env_file_header};

    #[cfg(target_os = "linux")]
    #[test]
    fn the_daemon_s_executable_is_the_same_file_by_any_path_and_no_other() {
        let me = std::env::current_exe().unwrap();
        let pid = std::process::id();
        assert_eq!(check_process(pid, &me), Ok(()));
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("hooks");
        std::os::unix::fs::symlink(&me, &link).unwrap();
        assert_eq!(check_process(pid, &link), Ok(()));
        let copy = dir.path().join("copy");
        std::fs::copy(&me, &copy).unwrap();
        let refused = check_process(pid, &copy).unwrap_err();
        assert!(refused.contains("is not"), "{refused}");
        let missing = check_process(pid, &dir.path().join("missing")).unwrap_err();
        assert!(missing.contains("is not"), "{missing}");
    }

    #[test]
    fn the_env_file_is_sent_as_it_is_unless_a_header_cannot_carry_it() {
        assert_eq!(env_file_header(None), Ok(None));
        assert_eq!(
            env_file_header(Some("/tmp/claude env/é.sh".into())),
            Ok(Some("/tmp/claude env/é.sh".to_owned()))
        );
        for unsendable in ["/tmp/a\r\nx-other: 1", "/tmp/a\tb", "/tmp/a ", " /tmp/a"] {
            assert!(
                env_file_header(Some(unsendable.into())).is_err(),
                "{unsendable:?}"
            );
        }
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStringExt;
            let not_utf8 = std::ffi::OsString::from_vec(b"/tmp/\xff".to_vec());
            assert!(env_file_header(Some(not_utf8)).is_err());
        }
    }
}
