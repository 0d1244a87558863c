//! `hooks claude` in front of a running daemon: the payload goes to its `POST /claude` and its
//! answer, in the command form, is printed as it came, so a command-only agent shares the
//! daemon's loaded policies and their state. The request is [`hookrail_forward::ask`], the
//! one `hooks-forward` sends.

use hookrail_forward::answer::CommandAnswer;
use hookrail_forward::ask::{self, AskError};
use hookrail_forward::token;

use super::found::Found;

/// Why a forward did not give an answer (the caller decides in-process instead, and says so).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ForwardError {
    /// No token to send.
    #[error("no token for the daemon: {0}")]
    Token(#[from] token::TokenError),
    /// This executable cannot be named, so the daemon's cannot be compared with it.
    #[error("cannot tell which executable this is: {0}")]
    Exe(std::io::Error),
    /// The daemon did not answer, or is not the one it should be.
    #[error(transparent)]
    Ask(#[from] AskError),
}

/// Sends `payload` to the daemon and returns its answer in the command form. The daemon must
/// be running this very executable.
///
/// # Errors
///
/// [`ForwardError`] when there is no token, the daemon cannot be reached in time, is not the
/// recorded one, or its answer is not one.
pub fn forward(
    found: &Found,
    identity: &str,
    payload: &[u8],
) -> Result<CommandAnswer, ForwardError> {
    let token = token::client_token()?;
    let exe = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(ForwardError::Exe)?;
    let env_file = env_file_header(std::env::var_os(super::ENV_FILE_VAR));
    let headers: Vec<(&str, &str)> = env_file
        .iter()
        .map(|path| (super::ENV_FILE_HEADER, path.as_str()))
        .collect();
    Ok(ask::ask(found, identity, &token, &exe, payload, &headers)?)
}

/// The value of [`ENV_FILE_HEADER`](super::ENV_FILE_HEADER) for `value`, this process's
/// `CLAUDE_ENV_FILE` (which Claude Code sets for the hooks of some events): the daemon gives it
/// to the command hooks of this request, as they would inherit it here. `None` when it is
/// unset, and when it cannot be sent as it is in a header: not UTF-8, a control character
/// (which would end the header), or white space at either end (which HTTP drops). That is
/// logged, and the hooks then run without it.
fn env_file_header(value: Option<std::ffi::OsString>) -> Option<String> {
    let value = value?;
    let sendable = value
        .to_str()
        .filter(|text| !text.chars().any(char::is_control) && text.trim() == *text);
    if sendable.is_none() {
        tracing::warn!(
            "{} ({value:?}) cannot be sent to the daemon as a header (not UTF-8, a control character, or white space at an end): its hooks run without it",
            super::ENV_FILE_VAR
        );
    }
    sendable.map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::env_file_header;

    #[test]
    fn the_env_file_is_sent_as_it_is_unless_a_header_cannot_carry_it() {
        assert_eq!(env_file_header(None), None);
        assert_eq!(
            env_file_header(Some("/tmp/claude env/é.sh".into())).as_deref(),
            Some("/tmp/claude env/é.sh")
        );
        for unsendable in ["/tmp/a\r\nx-other: 1", "/tmp/a\tb", "/tmp/a ", " /tmp/a"] {
            assert_eq!(
                env_file_header(Some(unsendable.into())),
                None,
                "{unsendable:?}"
            );
        }
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStringExt;
            let not_utf8 = std::ffi::OsString::from_vec(b"/tmp/\xff".to_vec());
            assert_eq!(env_file_header(Some(not_utf8)), None);
        }
    }
}
