//! The payload on the way to the daemon: read with the same limits as `hooks claude`, and
//! given the `cwd` of this process when it has none (the daemon cannot know it, and refuses an
//! event whose project it cannot tell). Nothing else about it changes: the daemon reads the
//! bytes as they came, duplicate keys and unknown fields included.

use std::path::Path;
use std::time::{Duration, Instant};

/// The default size cap (`hooks claude`'s): 16 MiB.
pub const DEFAULT_MAX_BYTES: usize = 16 * 1024 * 1024;

/// The default deadline for reading the whole payload (`hooks claude`'s): 10 s.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// Why a payload was not read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// The stream could not be read.
    #[error("cannot read the payload: {0}")]
    Read(#[from] std::io::Error),
    /// More than the cap was sent.
    #[error(
        "the payload is larger than {limit} bytes; refused (raise the limit if this is expected)"
    )]
    TooLarge {
        /// The cap, in bytes.
        limit: usize,
    },
    /// The stream was not closed within the deadline.
    #[error("the payload was not read within {} ms (the sender did not close the stream); refused", after.as_millis())]
    TimedOut {
        /// The deadline.
        after: Duration,
    },
}

/// The bytes read from stdin at a time.
#[cfg(unix)]
const READ_CHUNK: usize = 8 * 1024;

/// Reads stdin to its end: at most `max_bytes`, within `timeout`.
///
/// # Errors
///
/// [`ReadError`] when the stream fails, sends more, or stays open longer.
#[cfg(unix)]
pub fn read_stdin(max_bytes: usize, timeout: Duration) -> Result<Vec<u8>, ReadError> {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    let stdin = std::io::stdin();
    // Read from the descriptor itself, not through std's buffered `Stdin`: bytes left in a
    // buffer would not make the descriptor readable again, and `poll` would wait for them.
    let fd = std::os::fd::AsFd::as_fd(&stdin);
    let deadline = Instant::now() + timeout;
    let mut out = Vec::new();
    // Small: a stack buffer is zeroed and each of its pages faulted in at start, and most
    // payloads are a few KiB (a larger one takes more reads).
    let mut chunk = [0u8; READ_CHUNK];
    loop {
        let left = deadline
            .checked_duration_since(Instant::now())
            .ok_or(ReadError::TimedOut { after: timeout })?;
        let ms = PollTimeout::try_from(left.as_millis().min(i32::MAX as u128) as i32)
            .unwrap_or(PollTimeout::MAX);
        let mut fds = [PollFd::new(fd, PollFlags::POLLIN)];
        match poll(&mut fds, ms) {
            Ok(0) => return Err(ReadError::TimedOut { after: timeout }),
            Ok(_) => {}
            Err(nix::errno::Errno::EINTR) => continue,
            Err(e) => return Err(ReadError::Read(e.into())),
        }
        let n = match nix::unistd::read(fd, &mut chunk) {
            Ok(n) => n,
            Err(nix::errno::Errno::EINTR) => continue,
            Err(e) => return Err(ReadError::Read(e.into())),
        };
        if n == 0 {
            return Ok(out);
        }
        if out.len() + n > max_bytes {
            return Err(ReadError::TooLarge { limit: max_bytes });
        }
        out.extend_from_slice(&chunk[..n]);
    }
}

/// `payload` with `"cwd": cwd` added as the first key of its top-level object, when no `"cwd"`
/// appears in it at all; `None` when nothing is added (it has one, it is not an object, or
/// `cwd` is not UTF-8). The rest of the bytes are kept as they are: re-serializing a parsed
/// copy would merge a key the payload has twice, which the daemon refuses to read.
pub fn with_cwd(payload: &[u8], cwd: &Path) -> Option<Vec<u8>> {
    if payload.windows(5).any(|w| w == b"\"cwd\"") {
        return None;
    }
    let open = payload.iter().position(|b| !b.is_ascii_whitespace())?;
    if payload[open] != b'{' {
        return None;
    }
    let rest = &payload[open + 1..];
    let empty = rest
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| *b == b'}');
    let value = serde_json::to_string(cwd.to_str()?).ok()?;
    let mut out = Vec::with_capacity(payload.len() + value.len() + 8);
    out.extend_from_slice(&payload[..=open]);
    out.extend_from_slice(b"\"cwd\":");
    out.extend_from_slice(value.as_bytes());
    if !empty {
        out.push(b',');
    }
    out.extend_from_slice(rest);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cwd_is_added_first_and_nothing_else_changes() {
        let cwd = Path::new("/work/a \"b\"");
        let added = with_cwd(br#" {"hook_event_name":"Stop","x":{"k":1,"k":2}}"#, cwd).unwrap();
        assert_eq!(
            String::from_utf8(added).unwrap(),
            r#" {"cwd":"/work/a \"b\"","hook_event_name":"Stop","x":{"k":1,"k":2}}"#
        );
        let empty = with_cwd(b"{ }", cwd).unwrap();
        let parsed: serde_json::Value = serde_json::from_slice(&empty).unwrap();
        assert_eq!(parsed["cwd"], "/work/a \"b\"");
    }

    #[test]
    fn a_payload_with_a_cwd_or_not_an_object_is_left_alone() {
        let cwd = Path::new("/w");
        assert_eq!(with_cwd(br#"{"cwd":"/x"}"#, cwd), None);
        assert_eq!(with_cwd(br#"{"tool_input":{"cwd":"/x"}}"#, cwd), None);
        assert_eq!(with_cwd(b"[1]", cwd), None);
        assert_eq!(with_cwd(b"", cwd), None);
    }
}
