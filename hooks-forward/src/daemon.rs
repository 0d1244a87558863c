//! How a client finds the daemon serving its project: a record per project root,
//! `state_dir()/daemons/<key>.json` ([`crate::locations::state_dir`]), written by `hooks serve`
//! once it listens and removed when it stops.
//!
//! The key is the first 128 bits of SHA-256 over the canonical project root. The record also
//! lists the options the daemon loaded its hooks from ([`Selection::sources`]); a client
//! forwards only when its own options name the same files, so a command line that asks for
//! other hooks never gets the daemon's answer for different ones.
//!
//! The record is only a hint, since anything running as the user (the agent included) can
//! write it: before sending a payload, a client checks that the socket's peer is the recorded
//! process, of this user, running the `hooks` executable the client trusts, with no preloaded
//! library ([`crate::ask`]), and takes its answer only if the daemon names the same project and
//! options ([`identity`]). That stops stale records, records naming another user's process or
//! any other program, and a real daemon serving another project or other options. It does not
//! stop code already running as the user: a process can listen, hand the socket to a child,
//! then exec the `hooks` binary, and the peer credentials (taken at `listen`) then name a
//! `hooks` process while the child answers. Such code could as well rewrite the agent's
//! settings; docs/decisions.md ("Who the peer check stops") says what would close it. The
//! token is `$HOOKS_TOKEN` or the default token file, never a file the record names.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::locations;

/// What a running daemon says about itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Found {
    /// The daemon's process id.
    pub pid: u32,
    /// The Unix socket it answers clients on.
    pub socket: PathBuf,
    /// The canonical project root.
    pub project: PathBuf,
    /// The options its hooks were loaded from ([`Selection::sources`]).
    pub sources: Vec<String>,
    /// The daemon's `--request-timeout`, in ms: how long a client waits for an answer.
    pub request_timeout_ms: u64,
}

/// The options that choose which hooks load (those of `hooks claude` and `hooks serve`), with
/// the defaults that depend on the environment already resolved.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// `--project`.
    pub project: Option<PathBuf>,
    /// `--config`, in order.
    pub configs: Vec<PathBuf>,
    /// `--managed-settings`, in order.
    pub managed_settings: Vec<PathBuf>,
    /// `--settings`, in order.
    pub settings: Vec<PathBuf>,
    /// `--plugin-root`, in order.
    pub plugins: Vec<PathBuf>,
    /// The user layer's hook directory (`--user-hooks`, else the default); `None` with
    /// `--no-user-hooks` or without a home.
    pub user_hooks: Option<PathBuf>,
    /// The approvals file (`--trust-file`, else the default).
    pub trust_file: Option<PathBuf>,
    /// `$CLAUDE_PROJECT_DIR`.
    pub env_project: Option<PathBuf>,
    /// The current directory.
    pub cwd: Option<PathBuf>,
}

/// The options as given on a command line, before the environment fills in the defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Given {
    /// `--project`.
    pub project: Option<PathBuf>,
    /// `--config`, in order.
    pub configs: Vec<PathBuf>,
    /// `--managed-settings`, in order.
    pub managed_settings: Vec<PathBuf>,
    /// `--settings`, in order.
    pub settings: Vec<PathBuf>,
    /// `--plugin-root`, in order.
    pub plugins: Vec<PathBuf>,
    /// `--user-hooks`.
    pub user_hooks: Option<PathBuf>,
    /// `--no-user-hooks`.
    pub no_user_hooks: bool,
    /// `--trust-file`.
    pub trust_file: Option<PathBuf>,
}

impl Selection {
    /// `given`, with the defaults of this process's environment and current directory.
    pub fn from_env(given: Given) -> Selection {
        Selection::from_env_with(
            given,
            |name| std::env::var_os(name),
            std::env::current_dir().ok(),
        )
    }

    /// [`Selection::from_env`] with the environment and the current directory given.
    pub fn from_env_with(
        given: Given,
        var: impl Fn(&str) -> Option<OsString>,
        cwd: Option<PathBuf>,
    ) -> Selection {
        let user_hooks = if given.no_user_hooks {
            None
        } else {
            given
                .user_hooks
                .or_else(|| locations::user_hooks_dir_from(&var))
        };
        Selection {
            project: given.project,
            trust_file: given
                .trust_file
                .or_else(|| locations::trust_file_from(&var)),
            env_project: var("CLAUDE_PROJECT_DIR")
                .filter(|d| !d.is_empty())
                .map(PathBuf::from),
            configs: given.configs,
            managed_settings: given.managed_settings,
            settings: given.settings,
            plugins: given.plugins,
            user_hooks,
            cwd,
        }
    }

    /// The project directory: `--project`, else `$CLAUDE_PROJECT_DIR`, else the directory of
    /// the project file (the first `--config`), else the current directory. A relative
    /// `--config` is taken from the current directory, so the root does not depend on how
    /// the file was named.
    pub fn project_dir(&self) -> PathBuf {
        let cwd = self.cwd.clone().unwrap_or_else(|| PathBuf::from("."));
        let file_dir = self.configs.first().map(|file| {
            match file.parent().filter(|p| !p.as_os_str().is_empty()) {
                Some(dir) => cwd.join(dir),
                None => cwd.clone(),
            }
        });
        self.project
            .clone()
            .or_else(|| self.env_project.clone())
            .or(file_dir)
            .unwrap_or(cwd)
    }

    /// The options in a form two processes can compare: each file canonical, in order.
    pub fn sources(&self) -> Vec<String> {
        let canonical = |p: &Path| {
            std::fs::canonicalize(p)
                .unwrap_or_else(|_| p.to_owned())
                .display()
                .to_string()
        };
        let mut out = Vec::new();
        out.extend(
            self.configs
                .iter()
                .map(|p| format!("--config {}", canonical(p))),
        );
        // A client held to a managed file's `allowManagedHooksOnly` must not take the answer of
        // a daemon that runs without it.
        out.extend(
            self.managed_settings
                .iter()
                .map(|p| format!("--managed-settings {}", canonical(p))),
        );
        out.extend(
            self.settings
                .iter()
                .map(|p| format!("--settings {}", canonical(p))),
        );
        out.extend(
            self.plugins
                .iter()
                .map(|p| format!("--plugin-root {}", canonical(p))),
        );
        if let Some(trust) = &self.trust_file {
            out.push(format!("--trust-file {}", canonical(trust)));
        }
        // The user layer of extension files: a client that asks for another one (or none)
        // must not take the answer of a daemon that runs this one.
        match &self.user_hooks {
            Some(dir) => out.push(format!("--user-hooks {}", canonical(dir))),
            None => out.push("--no-user-hooks".to_owned()),
        }
        out
    }
}

/// What a daemon serves, as one string both sides compute: SHA-256 over the canonical project
/// root and its sources. The daemon sends it with every answer ([`crate::IDENTITY_HEADER`]),
/// and a client takes an answer only from a daemon whose identity is its own.
pub fn identity(project: &Path, sources: &[String]) -> String {
    let root = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_owned());
    identity_of_root(&root, sources)
}

/// [`identity`] of a root that is canonical already ([`Found::project`], which [`find`] checked
/// is the canonical project): the same value, without walking the path again.
pub fn identity_of_root(root: &Path, sources: &[String]) -> String {
    let mut hasher = Sha256::new();
    hasher.update(root.as_os_str().as_encoded_bytes());
    for source in sources {
        hasher.update([0]);
        hasher.update(source.as_bytes());
    }
    hex(&hasher.finalize())
}

/// The record of the daemon for `project`, or `None` without a state directory.
pub fn state_file(project: &Path) -> Option<PathBuf> {
    let root = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_owned());
    record_of_root(&root)
}

/// [`state_file`] of a canonical root.
fn record_of_root(root: &Path) -> Option<PathBuf> {
    Some(daemon_dir()?.join(format!("{}.json", key_of_root(root))))
}

/// Where the daemon for `project` makes its socket unless told otherwise.
pub fn default_socket(project: &Path) -> Option<PathBuf> {
    let root = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_owned());
    Some(daemon_dir()?.join(format!("{}.sock", key_of_root(&root))))
}

/// `state_dir()/daemons`.
fn daemon_dir() -> Option<PathBuf> {
    Some(locations::state_dir()?.join("daemons"))
}

/// Makes `dir` and its parents, new ones with mode 0700: what the daemon keeps there is for
/// this user only.
///
/// # Errors
///
/// The I/O error of making a directory.
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// The first 128 bits of SHA-256 over the canonical project root, in hex.
fn key_of_root(root: &Path) -> String {
    let digest = Sha256::digest(root.as_os_str().as_encoded_bytes());
    hex(&digest[..16])
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}

/// Writes the record (mode 0600, in a 0700 directory); returns its path, to remove at stop.
///
/// # Errors
///
/// The I/O error, for the caller to log: a daemon no client can find still serves HTTP hooks.
pub fn announce(found: &Found) -> std::io::Result<PathBuf> {
    let path = state_file(&found.project)
        .ok_or_else(|| std::io::Error::other("no state directory ($XDG_STATE_HOME, $HOME)"))?;
    if let Some(dir) = path.parent() {
        private_dir(dir)?;
    }
    let text = serde_json::to_vec_pretty(found).map_err(std::io::Error::other)?;
    // Written whole under another name and renamed: a reader never sees half a file.
    let partial = path.with_extension(format!("json.{}", std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    std::io::Write::write_all(&mut options.open(&partial)?, &text)?;
    std::fs::rename(&partial, &path)?;
    Ok(path)
}

/// Why no daemon was found, when a record exists but cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FindError {
    /// The record is not one a daemon wrote.
    #[error("ignoring the daemon record {path}: {reason}")]
    Record {
        /// The record's path.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
}

/// The daemon serving `project` with `sources`, if its record says one runs: `Ok(None)`
/// when there is no record, or it is for other sources, or its process is gone.
///
/// # Errors
///
/// [`FindError`] when a record exists and does not parse (the caller says so, and decides
/// without the daemon).
pub fn find(project: &Path, sources: &[String]) -> Result<Option<Found>, FindError> {
    let Ok(project) = std::fs::canonicalize(project) else {
        return Ok(None);
    };
    let Some(path) = record_of_root(&project) else {
        return Ok(None);
    };
    let Ok(text) = std::fs::read(&path) else {
        return Ok(None);
    };
    let found: Found = serde_json::from_slice(&text).map_err(|e| FindError::Record {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    Ok((found.project == project && found.sources == sources && alive(found.pid)).then_some(found))
}

#[cfg(target_os = "linux")]
fn alive(pid: u32) -> bool {
    Path::new("/proc").join(pid.to_string()).exists()
}

#[cfg(not(target_os = "linux"))]
fn alive(_: u32) -> bool {
    // Without /proc, the connection attempt tells.
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<OsString> {
        None
    }

    #[test]
    fn the_record_is_per_project_root() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let (Some(fa), Some(fb)) = (state_file(a.path()), state_file(b.path())) else {
            return; // no state directory in this environment
        };
        assert_ne!(fa, fb);
        assert_eq!(state_file(a.path()), Some(fa));
    }

    #[test]
    fn sources_differ_when_the_options_do() {
        let of = |given: Given| Selection::from_env_with(given, no_env, None).sources();
        let plain = of(Given::default());
        assert_eq!(plain, ["--no-user-hooks"]);
        let settings = of(Given {
            settings: vec![PathBuf::from("/nonexistent/settings.json")],
            ..Given::default()
        });
        assert_ne!(plain, settings);
        let managed = of(Given {
            managed_settings: vec![PathBuf::from("/nonexistent/managed.json")],
            ..Given::default()
        });
        assert_ne!(plain, managed);
        assert_ne!(settings, managed);
    }

    #[test]
    fn the_project_is_the_option_then_the_variable_then_the_config_then_the_cwd() {
        let cwd = Some(PathBuf::from("/work"));
        let var = |name: &str| (name == "CLAUDE_PROJECT_DIR").then(|| OsString::from("/env"));
        let config = Given {
            configs: vec![PathBuf::from("sub/hooks.yaml")],
            ..Given::default()
        };
        let dir = |given: Given, var: &dyn Fn(&str) -> Option<OsString>| {
            Selection::from_env_with(given, var, cwd.clone()).project_dir()
        };
        let option = Given {
            project: Some(PathBuf::from("/opt")),
            ..config.clone()
        };
        assert_eq!(dir(option, &var), PathBuf::from("/opt"));
        assert_eq!(dir(config.clone(), &var), PathBuf::from("/env"));
        assert_eq!(dir(config, &no_env), PathBuf::from("/work/sub"));
        assert_eq!(dir(Given::default(), &no_env), PathBuf::from("/work"));
    }

    #[test]
    fn the_identity_names_the_project_and_the_sources() {
        let a = identity(Path::new("/nonexistent/a"), &["--no-user-hooks".to_owned()]);
        assert_eq!(a.len(), 64);
        assert_ne!(
            a,
            identity(Path::new("/nonexistent/b"), &["--no-user-hooks".to_owned()])
        );
        assert_ne!(a, identity(Path::new("/nonexistent/a"), &[]));
    }
}
