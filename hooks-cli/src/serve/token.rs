//! The bearer token every request to `hooks serve` carries.
//!
//! `$HOOKS_TOKEN` when set; else the file given by `--token-file`, else
//! `$XDG_STATE_HOME/hookrail/token` (`~/.local/state/hookrail/token`), made on first start
//! with 32 random bytes (hex) and mode 0600. A token file that others can read is refused:
//! whoever holds the token decides what the daemon answers for every agent of the user.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crate::CliError;

pub use hookrail_forward::token::TOKEN_ENV;
use hookrail_forward::token::{self, TokenError};

/// The token and where it came from.
pub struct Token {
    secret: String,
    /// `$HOOKS_TOKEN`, or the file's path.
    pub origin: String,
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Token")
            .field("secret", &"***")
            .field("origin", &self.origin)
            .finish()
    }
}

impl Token {
    /// The token from `$HOOKS_TOKEN`, else from `file` (or the default file), made when it
    /// does not exist.
    ///
    /// # Errors
    ///
    /// [`CliError::Input`] when the token is too short, the file is readable by others or
    /// cannot be read or written.
    pub fn load(file: Option<&Path>) -> Result<Token, CliError> {
        if let Some(secret) = token::from_env().map_err(input)? {
            return Ok(Token {
                secret,
                origin: format!("${TOKEN_ENV}"),
            });
        }
        let path = match file {
            Some(path) => path.to_owned(),
            None => default_path()?,
        };
        let origin = path.display().to_string();
        match std::fs::symlink_metadata(&path) {
            Ok(_) => Ok(Token {
                secret: token::read_file(&path).map_err(input)?,
                origin,
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let secret = random_hex(32)?;
                write_private(&path, &secret)?;
                tracing::info!("made a new token in {origin}");
                Ok(Token { secret, origin })
            }
            Err(e) => Err(CliError::Input(format!(
                "cannot read the token {origin}: {e}"
            ))),
        }
    }

    /// Whether an `Authorization` header value carries this token (`Bearer <token>`), in time
    /// that does not depend on where the first wrong byte is.
    pub fn admits(&self, header: Option<&[u8]>) -> bool {
        let Some(given) = header.and_then(|h| h.strip_prefix(b"Bearer ")) else {
            return false;
        };
        let want = self.secret.as_bytes();
        let mut diff = u8::from(given.len() != want.len());
        for (i, w) in want.iter().enumerate() {
            diff |= w ^ given.get(i).copied().unwrap_or(0);
        }
        diff == 0
    }
}

/// `$XDG_STATE_HOME/hookrail/token`, else `~/.local/state/hookrail/token`.
fn default_path() -> Result<PathBuf, CliError> {
    hookrail_forward::locations::token_file().ok_or_else(|| {
        CliError::Input(format!(
            "no state directory ($XDG_STATE_HOME and $HOME are unset): give --token-file or ${TOKEN_ENV}"
        ))
    })
}

fn input(e: TokenError) -> CliError {
    CliError::Input(e.to_string())
}

fn write_private(path: &Path, secret: &str) -> Result<(), CliError> {
    let fail = |e: std::io::Error| {
        CliError::Input(format!("cannot write the token {}: {e}", path.display()))
    };
    if let Some(dir) = path.parent() {
        super::found::private_dir(dir).map_err(fail)?;
    }
    let mut options = std::fs::OpenOptions::new();
    // `create_new`: never write a token into a file someone else made in the meantime.
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path).map_err(fail)?;
    file.write_all(secret.as_bytes()).map_err(fail)?;
    file.write_all(b"\n").map_err(fail)
}

/// `bytes` random bytes from the operating system, as hex.
fn random_hex(bytes: usize) -> Result<String, CliError> {
    let mut buf = vec![0u8; bytes];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut buf))
        .map_err(|e| {
            CliError::Input(format!(
                "cannot read random bytes for a token ({e}); set ${TOKEN_ENV}"
            ))
        })?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(secret: &str) -> Token {
        Token {
            secret: secret.to_owned(),
            origin: "test".to_owned(),
        }
    }

    #[test]
    fn only_the_exact_bearer_token_is_admitted() {
        let t = token("0123456789abcdef0123");
        assert!(t.admits(Some(b"Bearer 0123456789abcdef0123")));
        for wrong in [
            &b"Bearer 0123456789abcdef012"[..],
            b"Bearer 0123456789abcdef01234",
            b"Bearer 0123456789abcdef0124",
            b"bearer 0123456789abcdef0123",
            b"0123456789abcdef0123",
            b"Bearer ",
            b"",
        ] {
            assert!(
                !t.admits(Some(wrong)),
                "{:?}",
                String::from_utf8_lossy(wrong)
            );
        }
        assert!(!t.admits(None));
    }

    #[test]
    fn a_new_token_file_is_private_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state").join("token");
        let made = Token::load(Some(&path)).unwrap();
        assert_eq!(made.secret.len(), 64);
        let again = Token::load(Some(&path)).unwrap();
        assert_eq!(made.secret, again.secret);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_token_file_others_can_read_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        std::fs::write(&path, "0123456789abcdef0123456789abcdef\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let err = Token::load(Some(&path)).unwrap_err().to_string();
        assert!(err.contains("readable by others"), "{err}");
    }

    #[test]
    fn a_short_token_is_refused() {
        let err = token::checked("short", "$HOOKS_TOKEN".into())
            .unwrap_err()
            .to_string();
        assert!(err.contains("at least 16"), "{err}");
    }
}
