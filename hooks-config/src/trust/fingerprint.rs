//! Fingerprints: what an approval identifies, and the hash over it.

use std::fmt;
use std::fs::{self, File};
use std::io::Read as _;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::allow::{command_text, http_text};
use super::{FINGERPRINT_DOMAIN, MAX_SCRIPT_BYTES, TrustError, scan};
use crate::spec::{CommandLine, Handler};

/// What identifies a handler for approval: what it runs or calls, where, and the bytes of the
/// scripts it runs. Any change to these makes a new fingerprint, which is not approved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint {
    /// The handler for people: the command text with its `env` (as matched by allow
    /// entries), or the URL with its header templates (`https://x/h -H 'Authorization:
    /// Bearer ${TOKEN}'`).
    pub handler: String,
    /// The project directory the handler runs for (made absolute, symbolic links resolved).
    pub project: PathBuf,
    /// Every file the command loads as code that the scan found (scripts, sourced files,
    /// files read as a program, modules run with `-m`…), then every other project file a
    /// word of the command names (data files included: editing one withdraws the approval),
    /// absolute and resolved, in order of appearance (see the module docs for how they are
    /// found); empty for a program found on `PATH` that names no project file, and for HTTP
    /// hooks.
    pub scripts: Vec<PathBuf>,
    /// Lower-case hex SHA-256 over the handler as declared, the project directory and each
    /// script's path and bytes.
    pub hash: String,
    /// The parts of the command whose files the scan cannot determine (`echo ./x.sh | xargs
    /// sh`, `sh -c "$VAR"`, `make`): what they load is *not* in the hash. Empty when the
    /// fingerprint covers everything the command loads. An approval accepts these only when
    /// asked to ([`TrustStore::try_approve`](super::TrustStore::try_approve)).
    pub unhashed: Vec<Unhashed>,
}

impl Fingerprint {
    /// Whether the hash covers every file the command loads (nothing is [unhashed](Self::unhashed)).
    pub fn is_complete(&self) -> bool {
        self.unhashed.is_empty()
    }
}

/// A part of a command whose files cannot be determined without running it.
///
/// Displayed as `fragment: why`, as `hooks trust` shows it after `unhashed: `.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Unhashed {
    /// The simple command it is in, as written (shortened to one line).
    pub fragment: String,
    /// Why its files cannot be determined.
    pub why: String,
}

impl fmt::Display for Unhashed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.fragment, self.why)
    }
}

/// Computes a handler's fingerprint. `base_dir` is the project directory: where the command
/// runs, what `${CLAUDE_PROJECT_DIR}` is, and what relative script paths are taken from.
///
/// Fails only when a file that was found cannot be read or is over 16 MiB. What the scan
/// cannot determine is not an error: it is listed in [`Fingerprint::unhashed`].
///
/// ```
/// use hookrail_config::spec::{CommandHandler, CommandLine, Handler};
/// use hookrail_config::trust::fingerprint;
///
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("hook.py"), "print('{}')\n")?;
/// let handler = Handler::Command(CommandHandler {
///     line: CommandLine::Shell("python3 -u hook.py --quiet".into()),
///     env: Default::default(),
///     plugin_root: None,
/// });
/// let fp = fingerprint(&handler, dir.path())?;
/// assert_eq!(fp.scripts, [dir.path().canonicalize()?.join("hook.py")]);
/// assert_eq!(fp.hash.len(), 64);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn fingerprint(handler: &Handler, base_dir: &Path) -> Result<Fingerprint, TrustError> {
    let project = fs::canonicalize(base_dir)
        .or_else(|_| std::path::absolute(base_dir))
        .unwrap_or_else(|_| base_dir.to_path_buf());
    let mut hasher = Sha256::new();
    field(&mut hasher, FINGERPRINT_DOMAIN);
    let (text, found) = match handler {
        Handler::Command(c) => {
            field(&mut hasher, b"command");
            match &c.line {
                CommandLine::Shell(command) => {
                    field(&mut hasher, b"shell");
                    field(&mut hasher, command.as_bytes());
                }
                CommandLine::Exec(args) => {
                    field(&mut hasher, b"exec");
                    count(&mut hasher, args.len());
                    for arg in args {
                        field(&mut hasher, arg.as_bytes());
                    }
                }
            }
            count(&mut hasher, c.env.len());
            for (name, value) in &c.env {
                field(&mut hasher, name.as_bytes());
                field(&mut hasher, value.as_bytes());
            }
            match &c.plugin_root {
                Some(root) => field(&mut hasher, root.as_os_str().as_encoded_bytes()),
                None => field(&mut hasher, b""),
            }
            (command_text(c), scan::scan(c, &project))
        }
        Handler::Http(h) => {
            field(&mut hasher, b"http");
            field(&mut hasher, h.url.as_bytes());
            count(&mut hasher, h.headers.len());
            for (name, value) in &h.headers {
                field(&mut hasher, name.as_bytes());
                field(&mut hasher, value.as_bytes());
            }
            (
                http_text(h),
                scan::Found {
                    files: Vec::new(),
                    unhashed: Vec::new(),
                },
            )
        }
    };
    field(&mut hasher, project.as_os_str().as_encoded_bytes());
    let scan::Found {
        files: scripts,
        unhashed,
    } = found;
    count(&mut hasher, scripts.len());
    for script in &scripts {
        field(&mut hasher, script.as_os_str().as_encoded_bytes());
        field(&mut hasher, &read_limited(script, MAX_SCRIPT_BYTES)?);
    }
    Ok(Fingerprint {
        handler: text,
        project,
        scripts,
        hash: hex::encode(hasher.finalize()),
        unhashed,
    })
}

/// Hashes one length-prefixed field, so that no two different handlers hash the same bytes.
fn field(hasher: &mut Sha256, bytes: &[u8]) {
    count(hasher, bytes.len());
    hasher.update(bytes);
}

fn count(hasher: &mut Sha256, n: usize) {
    hasher.update((n as u64).to_le_bytes());
}

/// Reads a whole file, refusing one over `limit` bytes.
pub(super) fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, TrustError> {
    let read_error = |source| TrustError::Read {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(read_error)?;
    read_open(file, path, limit)
}

pub(super) fn read_open(file: File, path: &Path, limit: u64) -> Result<Vec<u8>, TrustError> {
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| TrustError::Read {
            path: path.to_path_buf(),
            source,
        })?;
    if bytes.len() as u64 > limit {
        return Err(TrustError::TooLarge {
            path: path.to_path_buf(),
            size: bytes.len() as u64,
            limit,
        });
    }
    Ok(bytes)
}
