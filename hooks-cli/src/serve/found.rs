//! How `hooks claude` finds the daemon serving its project: a state file per project root,
//! `$XDG_STATE_HOME/hookrail/daemons/<key>.json` (`~/.local/state/…`), written by `hooks serve`
//! once it listens and removed when it stops.
//!
//! The key is the first 128 bits of SHA-256 over the canonical project root. The file also
//! records the options the daemon loaded its hooks from; `hooks claude` forwards only when its
//! own options name the same files, so a command line that asks for other hooks never gets the
//! daemon's answer for different ones.
//!
//! The file is only a hint, since anything running as the user (the agent included) can
//! write it: before sending a payload, `hooks claude` checks the socket's peer (its
//! credentials) is the recorded process, of this user, running this very `hooks` executable
//! with no preloaded library ([`super::forward`]), and takes its answer only if the daemon
//! names the same project and options ([`identity`]). A forged file can only point at a real
//! daemon of the same binary serving the same project with the same options. The token is
//! `$HOOKS_TOKEN` or the default token file, never a file the state file names.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::load::ConfigArgs;

/// What a running daemon says about itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Found {
    /// The daemon's process id.
    pub pid: u32,
    /// The Unix socket it answers `hooks claude` on.
    pub socket: PathBuf,
    /// The canonical project root.
    pub project: PathBuf,
    /// The options its hooks were loaded from ([`sources_of`]).
    pub sources: Vec<String>,
    /// The daemon's `--request-timeout`, in ms: how long a client waits for an answer.
    pub request_timeout_ms: u64,
}

/// The options that choose which hooks load, in a form two processes can compare.
pub fn sources_of(args: &ConfigArgs) -> Vec<String> {
    let canonical = |p: &Path| {
        std::fs::canonicalize(p)
            .unwrap_or_else(|_| p.to_owned())
            .display()
            .to_string()
    };
    let mut out = Vec::new();
    out.extend(
        args.configs
            .iter()
            .map(|p| format!("--config {}", canonical(p))),
    );
    // A client held to a managed file's `allowManagedHooksOnly` must not take the answer of a
    // daemon that runs without it.
    out.extend(
        args.managed_settings
            .iter()
            .map(|p| format!("--managed-settings {}", canonical(p))),
    );
    out.extend(
        args.settings
            .iter()
            .map(|p| format!("--settings {}", canonical(p))),
    );
    out.extend(
        args.plugins
            .iter()
            .map(|p| format!("--plugin-root {}", canonical(p))),
    );
    if let Some(trust) = args.trust_path() {
        out.push(format!("--trust-file {}", canonical(&trust)));
    }
    // The user layer of extension files: a client that asks for another one (or none) must
    // not take the answer of a daemon that runs this one.
    match args.user_hooks_dir() {
        Some(dir) => out.push(format!("--user-hooks {}", canonical(&dir))),
        None => out.push("--no-user-hooks".to_owned()),
    }
    out
}

/// What a daemon serves, as one string both sides compute: SHA-256 over the canonical project
/// root and [`sources_of`]. The daemon sends it with every answer (`x-hookrail-daemon`), and
/// `hooks claude` takes an answer only from a daemon whose identity is its own.
pub fn identity(project: &Path, sources: &[String]) -> String {
    let root = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_owned());
    let mut hasher = Sha256::new();
    hasher.update(root.as_os_str().as_encoded_bytes());
    for source in sources {
        hasher.update([0]);
        hasher.update(source.as_bytes());
    }
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The state file of the daemon for `project`, or `None` without a state directory.
pub fn state_file(project: &Path) -> Option<PathBuf> {
    Some(daemon_dir()?.join(format!("{}.json", key(project))))
}

/// Where the daemon for `project` makes its socket unless told otherwise.
pub fn default_socket(project: &Path) -> Option<PathBuf> {
    Some(daemon_dir()?.join(format!("{}.sock", key(project))))
}

/// `$XDG_STATE_HOME/hookrail` (`~/.local/state/hookrail`): the token and the daemons'
/// records; `None` when neither variable is set.
pub fn state_dir() -> Option<PathBuf> {
    let state = std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".local").join("state"))
        })?;
    Some(state.join("hookrail"))
}

/// `state_dir()/daemons`.
fn daemon_dir() -> Option<PathBuf> {
    Some(state_dir()?.join("daemons"))
}

/// Makes `dir` and its parents, new ones with mode 0700: what the daemon keeps there is for
/// this user only.
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// The first 128 bits of SHA-256 over the canonical project root, in hex.
fn key(project: &Path) -> String {
    let root = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_owned());
    let digest = Sha256::digest(root.as_os_str().as_encoded_bytes());
    digest[..16].iter().map(|b| format!("{b:02x}")).collect()
}

/// Writes the state file (mode 0600, in a 0700 directory); returns its path to remove at stop.
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

/// The daemon serving `args`' project with the same sources, if its state file says one runs.
pub fn find(args: &ConfigArgs) -> Option<Found> {
    let project = std::fs::canonicalize(args.project_dir()).ok()?;
    let path = state_file(&project)?;
    let text = std::fs::read(&path).ok()?;
    let found: Found = match serde_json::from_slice(&text) {
        Ok(found) => found,
        Err(e) => {
            tracing::warn!("ignoring the daemon state file {}: {e}", path.display());
            return None;
        }
    };
    (found.project == project && found.sources == sources_of(args) && alive(found.pid))
        .then_some(found)
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

    #[test]
    fn the_state_file_is_per_project_root() {
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
        let plain = ConfigArgs::default();
        let with_settings = ConfigArgs {
            settings: vec![PathBuf::from("/nonexistent/settings.json")],
            ..ConfigArgs::default()
        };
        assert_ne!(sources_of(&plain), sources_of(&with_settings));
        let with_managed = ConfigArgs {
            managed_settings: vec![PathBuf::from("/nonexistent/managed.json")],
            ..ConfigArgs::default()
        };
        assert_ne!(sources_of(&plain), sources_of(&with_managed));
    }
}
