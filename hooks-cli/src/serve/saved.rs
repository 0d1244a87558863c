//! The state of the daemon's stateful builtin policies (`rate_limit`, `budget`,
//! `reviewer_lockout`: [`Builtins::persistent`]) across restarts, in an SQLite file
//! ([`StateStore`]).
//!
//! At start the saved state is restored before the first request is answered; a file that
//! cannot be read, or a snapshot that cannot be restored, stops the start with an error that
//! names the file (starting afresh would hand every session a full rate limit and an unspent
//! budget, silently). While it runs, a thread of its own saves every policy whose state
//! changed, once a second ([`SAVE_EVERY`]); at a clean stop it saves everything after the
//! last request has been answered. A SIGKILL or a power loss therefore loses at most the last
//! second of changes; a clean stop loses none.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::time::Duration;

use hookrail_builtin::Builtins;
use hookrail_builtin::state::{PersistentState, StateStore};

use crate::CliError;

/// How often changed state is written.
pub const SAVE_EVERY: Duration = Duration::from_secs(1);

/// The saver thread, for a daemon with stateful policies.
pub(crate) struct Saver {
    path: PathBuf,
    stop: Sender<()>,
    thread: std::thread::JoinHandle<Option<String>>,
}

impl Saver {
    /// Opens the state file at `path`, restores every stateful policy of `builtins` from it
    /// and starts saving. `None` when no policy that is on has state to keep (no file is
    /// made).
    ///
    /// # Errors
    ///
    /// [`CliError::Input`] naming the file when it cannot be opened, or when a policy's saved
    /// state cannot be restored (a damaged file, or one written by a newer `hooks`).
    pub(crate) fn start(path: &Path, builtins: &Builtins) -> Result<Option<Saver>, CliError> {
        let policies = builtins.persistent();
        if policies.is_empty() {
            return Ok(None);
        }
        let refuse = |e: &dyn std::fmt::Display| {
            CliError::Input(format!(
                "{e}; the daemon does not start without the saved state of its policies (starting afresh would reset rate limits, spend and locks): repair the file, or move it aside to start with fresh state"
            ))
        };
        if let Some(dir) = path.parent() {
            super::found::private_dir(dir)
                .map_err(|e| CliError::Input(format!("cannot make {}: {e}", dir.display())))?;
        }
        let store = StateStore::open(path).map_err(|e| refuse(&e))?;
        for (name, restored) in store.restore(&policies).map_err(|e| refuse(&e))? {
            if restored.dropped.is_empty() {
                tracing::info!("{name}: state restored from {}: {restored}", path.display());
            } else {
                tracing::warn!("{name}: state restored from {}: {restored}", path.display());
            }
        }
        let (stop, stopped) = std::sync::mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("hooks-state".to_owned())
            .spawn(move || save_until(store, &policies, &stopped))
            .map_err(|e| CliError::Other(format!("cannot start the state saver: {e}")))?;
        Ok(Some(Saver {
            path: path.to_owned(),
            stop,
            thread,
        }))
    }

    /// Saves every policy's state one last time (call it after the last request) and stops
    /// the thread. Returns what to report when that save failed.
    pub(crate) async fn finish(self) -> Option<String> {
        let _ = self.stop.send(());
        let path = self.path;
        match tokio::task::spawn_blocking(move || self.thread.join()).await {
            Ok(Ok(failed)) => failed,
            _ => Some(format!(
                "the state saver for {} stopped abnormally: the last changes may not be saved",
                path.display()
            )),
        }
    }
}

/// Where the daemon for `project` keeps its policies' state unless told otherwise: next to
/// its socket and record, `$XDG_STATE_HOME/hookrail/daemons/<project key>.policies.db`.
pub(crate) fn default_path(project: &Path) -> Option<PathBuf> {
    super::found::default_socket(project).map(|socket| socket.with_extension("policies.db"))
}

/// The saver's loop: what changed, every [`SAVE_EVERY`]; everything when told to stop.
fn save_until(
    mut store: StateStore,
    policies: &[Arc<dyn PersistentState>],
    stopped: &Receiver<()>,
) -> Option<String> {
    // One warning per distinct failure, not one a second while a disk stays full.
    let mut last_failure: Option<String> = None;
    loop {
        match stopped.recv_timeout(SAVE_EVERY) {
            Err(RecvTimeoutError::Timeout) => match store.save_changed(policies) {
                Ok(_) => last_failure = None,
                Err(e) => {
                    let text = e.to_string();
                    if last_failure.as_deref() != Some(&text) {
                        tracing::warn!("policy state not saved (retried every second): {text}");
                    }
                    last_failure = Some(text);
                }
            },
            // Told to stop, or the daemon is gone: the last save.
            Ok(()) | Err(RecvTimeoutError::Disconnected) => {
                return store
                    .save_all(policies)
                    .err()
                    .map(|e| format!("the policies' state was not saved at shutdown: {e}"));
            }
        }
    }
}
