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
    let exe = std::env::current_exe().map_err(ForwardError::Exe)?;
    let env_file = match ask::env_file_header(std::env::var_os(super::ENV_FILE_VAR)) {
        Ok(env_file) => env_file,
        Err(value) => {
            tracing::warn!(
                "{} ({value:?}) cannot be sent to the daemon as a header (not UTF-8, a control character, or white space at an end): its hooks run without it",
                super::ENV_FILE_VAR
            );
            None
        }
    };
    let headers: Vec<(&str, &str)> = env_file
        .iter()
        .map(|path| (super::ENV_FILE_HEADER, path.as_str()))
        .collect();
    Ok(ask::ask(found, identity, &token, &exe, payload, &headers)?)
}
