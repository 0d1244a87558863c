//! [`PersistentState`]: the state of the stateful policies (`rate_limit`, `budget`,
//! `reviewer_lockout`) saved as JSON and restored into a new process, so that a long-lived
//! daemon keeps rate-limit buckets, spend and reviewer locks across a restart.
//!
//! # The snapshot
//!
//! [`PersistentState::save_state`] returns a JSON object that says what it is:
//! `{"format": 1, "policy": "rate_limit", "saved_at_ms": 1767225600000, ...}`, with times in
//! wall-clock milliseconds since the Unix epoch (a monotonic clock starts again in each
//! process, so its readings mean nothing to the next one). The rest of each policy's snapshot
//! is documented on its `save_state_at`, under "Trait Implementations" on the policy's page.
//!
//! # Restoring is never more permissive than the saved state
//!
//! A guard's worst failure is a silent allow, and a restart must not be a way to get one:
//!
//! * **Time.** A rate-limit bucket refills by the wall time between the save and the restore,
//!   never more; a wall clock that went backwards counts as no time.
//! * **Changed settings.** State applies only to the setting it was saved for: rate-limit
//!   buckets are matched to limits by what the limit is (calls, window, burst, key, tools),
//!   not by their place in the list, and buckets of a limit that is no longer configured are
//!   dropped (a new limit starts full, as it would without a restart). Spend is spend: the
//!   budget keeps it and checks it against the limits configured now. Locks are kept.
//!   What is dropped is listed in [`Restored`] so the caller can log it.
//! * **Caps.** A policy's caps (`max_buckets`, `max_sessions`, `max_locks`, …) hold after a
//!   restore as they do while it runs; what they drop is listed in [`Restored`].
//! * **Errors are errors.** A snapshot of a newer format, of another policy, or with content
//!   that does not parse is a [`StateError`] naming the policy and the problem, and nothing
//!   of it is applied. The caller decides what to do (refuse to start, or start afresh and
//!   say so); the library never drops saved state silently.
//!
//! A restore into a policy that has already run combines the two, again on the restrictive
//! side: the emptier bucket, spend added up, locks of both. It is meant for a policy that has
//! not run yet.
//!
//! # Storing snapshots
//!
//! [`Builtins::persistent`](crate::Builtins::persistent) lists the policies that are on and
//! have state to keep. With the `state-store` feature, [`StateStore`] keeps their snapshots in
//! an SQLite file: restore at start, then [`StateStore::save_changed`] now and then (it writes
//! only the policies whose [`state_revision`](PersistentState::state_revision) moved) and
//! [`StateStore::save_all`] at shutdown.
//!
//! ```
//! # #[cfg(all(feature = "state-store", feature = "rate-limit"))] {
//! use hookrail_builtin::state::StateStore;
//! use hookrail_builtin::{BuiltinConfig, Builtins};
//! use hookrail_core::context::{Meta, PreToolUse};
//! use hookrail_core::runtime::HooksProvider;
//! use serde_json::json;
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("state.db");
//! let config: BuiltinConfig = serde_json::from_value(json!({
//!     "rate_limit": { "tool_calls": [{ "calls": 1, "window_ms": 60000, "key": ["agent"] }] }
//! }))?;
//! let call = || PreToolUse::new(Meta::new("s1").with_agent("coder"), "Read", json!({}));
//!
//! // The first process: restore (nothing saved yet), run, save what changed.
//! let builtins = Builtins::new(config.clone())?;
//! let mut store = StateStore::open(&path)?;
//! assert!(store.restore(&builtins.persistent())?.is_empty());
//! let limit = builtins.rate_limit().unwrap();
//! assert!(!limit.pre_tool_use(&mut call())?.is_deny());
//! assert_eq!(store.save_changed(&builtins.persistent())?, 1);
//! assert_eq!(store.save_changed(&builtins.persistent())?, 0, "nothing changed since");
//! drop(store);
//!
//! // The next process: the bucket is still empty.
//! let builtins = Builtins::new(config)?;
//! let store = StateStore::open(&path)?;
//! let restored = store.restore(&builtins.persistent())?;
//! assert_eq!(restored[0].0, "rate_limit");
//! assert_eq!(restored[0].1.kept, 1);
//! assert!(builtins.rate_limit().unwrap().pre_tool_use(&mut call())?.is_deny());
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub(crate) mod snapshot;
#[cfg(feature = "state-store")]
mod store;

#[cfg(feature = "state-store")]
pub use store::StateStore;

use std::fmt;
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;

/// A policy whose state can be saved and restored across a process restart.
///
/// Implementors write [`save_state_at`](Self::save_state_at) and
/// [`restore_state_at`](Self::restore_state_at), which take the wall-clock time so that tests
/// can move it; [`save_state`](Self::save_state) and [`restore_state`](Self::restore_state)
/// call them with the system time.
pub trait PersistentState: Send + Sync {
    /// The policy's name, as in [`BuiltinConfig`](crate::BuiltinConfig): `rate_limit`.
    fn state_name(&self) -> &'static str;

    /// A number that changes whenever the state does (a counter, cheap to read), so that a
    /// saver can skip a policy that did not change since its last save. Read it *before*
    /// taking the snapshot: a change that lands in between is then saved again next time
    /// instead of being taken as saved.
    fn state_revision(&self) -> u64;

    /// A snapshot of the state, taken at `now_unix_ms` (wall-clock milliseconds since the Unix
    /// epoch): a JSON object with `format`, `policy` and `saved_at_ms`.
    fn save_state_at(&self, now_unix_ms: u64) -> Value;

    /// Apply a snapshot of [`save_state_at`](Self::save_state_at), at `now_unix_ms`, under the
    /// rules of the [module docs](self): never more permissive than the snapshot.
    ///
    /// # Errors
    ///
    /// [`StateError::UnsupportedFormat`] for a snapshot of a newer format,
    /// [`StateError::Malformed`] for one of another policy or with content that does not
    /// parse; the state is then left as it was.
    fn restore_state_at(&self, saved: &Value, now_unix_ms: u64) -> Result<Restored, StateError>;

    /// [`save_state_at`](Self::save_state_at) the current system time.
    fn save_state(&self) -> Value {
        self.save_state_at(unix_now_ms())
    }

    /// [`restore_state_at`](Self::restore_state_at) the current system time.
    ///
    /// # Errors
    ///
    /// As [`restore_state_at`](Self::restore_state_at).
    fn restore_state(&self, saved: &Value) -> Result<Restored, StateError> {
        self.restore_state_at(saved, unix_now_ms())
    }
}

/// What a restore kept and what it dropped, for the caller to log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Restored {
    /// Entries applied: buckets, sessions, tenants and reports, locks and authorship records.
    pub kept: usize,
    /// Entries left out, grouped by why.
    pub dropped: Vec<Dropped>,
}

impl Restored {
    /// How many entries were dropped in all.
    pub fn dropped_count(&self) -> usize {
        self.dropped.iter().map(|d| d.entries).sum()
    }
}

impl fmt::Display for Restored {
    /// `kept 3, dropped 2 (2 buckets of tool_calls limit ...: no longer configured)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "kept {}", self.kept)?;
        if !self.dropped.is_empty() {
            write!(f, ", dropped {} (", self.dropped_count())?;
            for (i, d) in self.dropped.iter().enumerate() {
                if i > 0 {
                    f.write_str("; ")?;
                }
                write!(f, "{}", d.reason)?;
            }
            f.write_str(")")?;
        }
        Ok(())
    }
}

/// Saved entries a restore left out, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Dropped {
    /// How many.
    pub entries: usize,
    /// What they were and why they were left out: `2 buckets of tool_calls limit 5 calls per
    /// 60000 ms (burst 5, key [agent], tools [Bash]): the limit is no longer configured`.
    pub reason: String,
}

/// Saved state could not be read, applied or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    /// The snapshot was written in a format this build does not know (a newer one).
    #[error(
        "{policy}: the saved state is in format {found}; this build reads format \
         {supported} and older"
    )]
    UnsupportedFormat {
        /// The policy restoring it.
        policy: &'static str,
        /// The snapshot's `format`.
        found: u64,
        /// The newest format this build reads.
        supported: u64,
    },
    /// The snapshot is not what the policy saves: another policy's, or content that does not
    /// parse or is out of range.
    #[error("{policy}: the saved state is malformed: {message}")]
    Malformed {
        /// The policy restoring it.
        policy: &'static str,
        /// What is wrong.
        message: String,
    },
    /// The state file could not be opened, read or written.
    #[error("state store {}{}: {message}", path.display(), for_policy(*policy))]
    Store {
        /// The state file.
        path: PathBuf,
        /// The policy whose row was being read or written, if one was.
        policy: Option<&'static str>,
        /// What went wrong.
        message: String,
    },
    /// A policy refused the snapshot kept for it in a state file.
    #[error("state store {}: {source}", path.display())]
    InStore {
        /// The state file.
        path: PathBuf,
        /// The policy's error ([`UnsupportedFormat`](Self::UnsupportedFormat) or
        /// [`Malformed`](Self::Malformed)).
        #[source]
        source: Box<StateError>,
    },
}

fn for_policy(policy: Option<&'static str>) -> String {
    policy.map_or_else(String::new, |p| format!(" (policy {p})"))
}

impl StateError {
    /// The policy the error is about, if it is about one.
    pub fn policy(&self) -> Option<&'static str> {
        match self {
            StateError::UnsupportedFormat { policy, .. } | StateError::Malformed { policy, .. } => {
                Some(policy)
            }
            StateError::Store { policy, .. } => *policy,
            StateError::InStore { source, .. } => source.policy(),
        }
    }
}

/// The wall-clock time in milliseconds since the Unix epoch; 0 for a clock set before it.
pub fn unix_now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restored_says_what_was_dropped() {
        let mut r = Restored {
            kept: 3,
            ..Restored::default()
        };
        assert_eq!(r.to_string(), "kept 3");
        r.drop_entries(0, "never shown");
        r.drop_entries(2, "2 buckets of a limit no longer configured");
        r.drop_entries(1, "1 lock over max_locks");
        assert_eq!(r.dropped_count(), 3);
        assert_eq!(
            r.to_string(),
            "kept 3, dropped 3 (2 buckets of a limit no longer configured; 1 lock over max_locks)"
        );
    }

    #[test]
    fn store_errors_name_the_file_and_the_policy() {
        let err = StateError::Store {
            path: "/x/state.db".into(),
            policy: Some("budget"),
            message: "disk full".into(),
        };
        assert_eq!(
            err.to_string(),
            "state store /x/state.db (policy budget): disk full"
        );
        assert_eq!(err.policy(), Some("budget"));
        let err = StateError::InStore {
            path: "/x/state.db".into(),
            source: Box::new(StateError::malformed("rate_limit", "no `format`")),
        };
        assert_eq!(
            err.to_string(),
            "state store /x/state.db: rate_limit: the saved state is malformed: no `format`"
        );
        assert_eq!(err.policy(), Some("rate_limit"));
    }
}
