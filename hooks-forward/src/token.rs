//! The bearer token a client sends: `$HOOKS_TOKEN`, else the token file `hooks serve` made
//! ([`crate::locations::token_file`]), which must be private to the user. Never made here: a
//! client that has no token has no daemon to ask.

use std::path::{Path, PathBuf};

/// The variable that gives the token.
pub const TOKEN_ENV: &str = "HOOKS_TOKEN";

/// Fewer characters than this is a token someone could guess.
pub const MIN_LEN: usize = 16;

/// Why there is no token to use.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TokenError {
    /// `$HOOKS_TOKEN` is not UTF-8.
    #[error("${TOKEN_ENV} is not valid UTF-8")]
    NotText,
    /// The token is too short to be a secret.
    #[error(
        "the token from {origin} has {len} characters; use at least {MIN_LEN} (or unset it and let `hooks serve` make one)"
    )]
    TooShort {
        /// `$HOOKS_TOKEN`, or the file.
        origin: String,
        /// How many characters it has.
        len: usize,
    },
    /// The token file is not a regular file.
    #[error("the token {} is not a regular file", .0.display())]
    NotAFile(PathBuf),
    /// Others than the user can read the token file.
    #[error(
        "the token {} is readable by others (mode {mode:o}); `chmod 600` it or delete it to make a new one",
        path.display()
    )]
    Readable {
        /// The file.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// The token file cannot be read (or does not exist).
    #[error("cannot read the token {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Neither the variable nor a state directory.
    #[error(
        "no token: ${TOKEN_ENV} is unset and there is no state directory ($XDG_STATE_HOME, $HOME)"
    )]
    Nowhere,
}

/// The token a client sends: `$HOOKS_TOKEN`, else the default token file.
///
/// # Errors
///
/// [`TokenError`] when there is none, it is too short, or its file is readable by others.
pub fn client_token() -> Result<String, TokenError> {
    if let Some(token) = from_env()? {
        return Ok(token);
    }
    let path = crate::locations::token_file().ok_or(TokenError::Nowhere)?;
    read_file(&path)
}

/// `$HOOKS_TOKEN`, checked, when it is set.
///
/// # Errors
///
/// [`TokenError::NotText`] or [`TokenError::TooShort`].
pub fn from_env() -> Result<Option<String>, TokenError> {
    match std::env::var_os(TOKEN_ENV) {
        None => Ok(None),
        Some(value) => {
            let value = value.into_string().map_err(|_| TokenError::NotText)?;
            checked(value.trim(), format!("${TOKEN_ENV}")).map(Some)
        }
    }
}

/// The token in `path`: a regular file that only its owner can read, holding at least
/// [`MIN_LEN`] characters (surrounding white space aside).
///
/// # Errors
///
/// [`TokenError`] saying which of these does not hold.
pub fn read_file(path: &Path) -> Result<String, TokenError> {
    let read = |source| TokenError::Read {
        path: path.to_owned(),
        source,
    };
    let meta = std::fs::symlink_metadata(path).map_err(read)?;
    check_private(path, &meta)?;
    let secret = std::fs::read_to_string(path).map_err(read)?;
    checked(secret.trim(), path.display().to_string())
}

/// `secret` when it is long enough.
///
/// # Errors
///
/// [`TokenError::TooShort`], naming `origin`.
pub fn checked(secret: &str, origin: String) -> Result<String, TokenError> {
    if secret.len() < MIN_LEN {
        return Err(TokenError::TooShort {
            origin,
            len: secret.len(),
        });
    }
    Ok(secret.to_owned())
}

#[cfg(unix)]
fn check_private(path: &Path, meta: &std::fs::Metadata) -> Result<(), TokenError> {
    use std::os::unix::fs::PermissionsExt;
    if !meta.is_file() {
        return Err(TokenError::NotAFile(path.to_owned()));
    }
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(TokenError::Readable {
            path: path.to_owned(),
            mode,
        });
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_private(path: &Path, meta: &std::fs::Metadata) -> Result<(), TokenError> {
    if !meta.is_file() {
        return Err(TokenError::NotAFile(path.to_owned()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_private_file_is_read_and_one_others_can_read_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        std::fs::write(&path, "0123456789abcdef0123456789abcdef\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(
            read_file(&path).unwrap(),
            "0123456789abcdef0123456789abcdef"
        );
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let err = read_file(&path).unwrap_err().to_string();
        assert!(err.contains("readable by others"), "{err}");
        let missing = read_file(&dir.path().join("none")).unwrap_err().to_string();
        assert!(missing.contains("cannot read the token"), "{missing}");
    }

    #[test]
    fn a_short_token_is_refused() {
        let err = checked("short", "$HOOKS_TOKEN".into())
            .unwrap_err()
            .to_string();
        assert!(err.contains("at least 16"), "{err}");
        assert_eq!(
            checked("0123456789abcdef", "x".into()).unwrap(),
            "0123456789abcdef"
        );
    }
}
