//! [`PersistentState`] for [`ReviewerLockout`]: the locks and the authorship records.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::text::clip;
use super::{Lock, MAX_NAME_CHARS, MAX_REASON_CHARS, POLICY, ReviewerLockout};
use crate::state::snapshot::{parse, to_json};
use crate::state::{PersistentState, Restored, StateError};

/// The snapshot format this build writes and the newest it reads.
const FORMAT: u64 = 1;

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Snapshot {
    format: u64,
    policy: String,
    saved_at_ms: u64,
    locks: Vec<SavedLock>,
    authors: Vec<SavedAuthor>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SavedLock {
    artifact: String,
    author: String,
    reviewer: String,
    reason: Option<String>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SavedAuthor {
    path: String,
    author: String,
}

/// The text of an absolute path, or `None` (logged) for one that is not UTF-8, which JSON
/// cannot hold.
fn path_text(path: &Path) -> Option<String> {
    let text = path.to_str().map(str::to_owned);
    if text.is_none() {
        tracing::warn!(
            policy = POLICY,
            path = %path.display(),
            "a path that is not UTF-8 cannot be saved; its entry is left out"
        );
    }
    text
}

/// Refuse what the policy could never have saved: relative paths, empty or over-long names.
fn check(snapshot: &Snapshot) -> Result<(), String> {
    let absolute = |p: &str, what: &str| {
        if Path::new(p).is_absolute() {
            Ok(())
        } else {
            Err(format!("{what} {p:?} is not an absolute path"))
        }
    };
    let name = |n: &str, max: usize, what: &str| {
        if n.is_empty() || clip(n, max) != n {
            Err(format!(
                "{what} {n:?} is empty or longer than {max} characters"
            ))
        } else {
            Ok(())
        }
    };
    for lock in &snapshot.locks {
        absolute(&lock.artifact, "the locked artifact")?;
        name(&lock.author, MAX_NAME_CHARS, "the author")?;
        name(&lock.reviewer, MAX_NAME_CHARS, "the reviewer")?;
        if let Some(reason) = &lock.reason {
            name(reason, MAX_REASON_CHARS, "the reason")?;
        }
    }
    for record in &snapshot.authors {
        absolute(&record.path, "the written path")?;
        name(&record.author, MAX_NAME_CHARS, "the author")?;
    }
    Ok(())
}

impl PersistentState for ReviewerLockout {
    fn state_name(&self) -> &'static str {
        POLICY
    }

    fn state_revision(&self) -> u64 {
        self.inner.revision.load(Ordering::Relaxed)
    }

    /// The locks and the authorship records. The snapshot (format 1) looks like this:
    ///
    /// ```json
    /// {"format": 1, "policy": "reviewer_lockout", "saved_at_ms": 1767225600000,
    ///  "locks": [{"artifact": "/work/project/src/auth.rs", "author": "coder",
    ///             "reviewer": "reviewer", "reason": "no tests"}],
    ///  "authors": [{"path": "/work/project/src/auth.rs", "author": "coder"}]}
    /// ```
    ///
    /// Both lists are oldest first, so the caps drop the same entries after a restore as they
    /// would have before. Paths are the resolved absolute paths the policy keys its state by.
    fn save_state_at(&self, now_unix_ms: u64) -> Value {
        let (locks, authors) = {
            let state = self.state();
            let locks: Vec<SavedLock> = state
                .locks
                .iter_oldest_first()
                .filter_map(|(_, lock)| {
                    Some(SavedLock {
                        artifact: path_text(&lock.artifact)?,
                        author: lock.author.clone(),
                        reviewer: lock.reviewer.clone(),
                        reason: lock.reason.clone(),
                    })
                })
                .collect();
            let authors: Vec<SavedAuthor> = state
                .authors
                .iter_oldest_first()
                .filter_map(|(path, author)| {
                    Some(SavedAuthor {
                        path: path_text(path)?,
                        author: author.clone(),
                    })
                })
                .collect();
            (locks, authors)
        };
        to_json(
            POLICY,
            &Snapshot {
                format: FORMAT,
                policy: POLICY.to_owned(),
                saved_at_ms: now_unix_ms,
                locks,
                authors,
            },
        )
    }

    /// Saved locks and authorship records go in as older than the live ones; a live lock on
    /// the same artifact wins (it is the newer rejection). Past `max_locks` or
    /// `max_tracked_files` the oldest are dropped and reported. Wall time does not matter:
    /// a lock lasts until a revision.
    fn restore_state_at(&self, saved: &Value, _now_unix_ms: u64) -> Result<Restored, StateError> {
        let snapshot: Snapshot = parse(POLICY, FORMAT, saved)?;
        check(&snapshot).map_err(|message| StateError::malformed(POLICY, message))?;
        let mut restored = Restored::default();
        let saved_entries = snapshot.locks.len() + snapshot.authors.len();
        let mut state = self.state_mut();

        let live = state.locks.take_oldest_first();
        let mut dropped_locks = Vec::new();
        let saved_locks = snapshot.locks.into_iter().map(|l| {
            let artifact = PathBuf::from(l.artifact);
            let lock = Lock {
                artifact: artifact.clone(),
                author: l.author,
                reviewer: l.reviewer,
                reason: l.reason,
            };
            (artifact, lock)
        });
        for (artifact, lock) in saved_locks.chain(live) {
            if let Some((gone, old)) = state.locks.insert(artifact, lock) {
                dropped_locks.push(format!("{} (author {:?})", gone.display(), old.author));
            }
        }
        let live = state.authors.take_oldest_first();
        let saved_authors = snapshot
            .authors
            .into_iter()
            .map(|a| (PathBuf::from(a.path), a.author));
        let mut dropped_authors = 0;
        for (path, author) in saved_authors.chain(live) {
            if state.authors.insert(path, author).is_some() {
                dropped_authors += 1;
            }
        }
        drop(state);

        let n = dropped_locks.len();
        if n > 0 {
            tracing::warn!(
                policy = POLICY,
                dropped = %dropped_locks.join(", "),
                "max_locks reached while restoring: the oldest locks were dropped"
            );
        }
        restored.drop_entries(
            n,
            format!(
                "{n} locks over max_locks, the oldest: {}",
                dropped_locks.join(", ")
            ),
        );
        restored.drop_entries(
            dropped_authors,
            format!("{dropped_authors} authorship records over max_tracked_files, the oldest"),
        );
        // The saved entries went in first, so they are the oldest and the first dropped.
        restored.kept = saved_entries.saturating_sub(restored.dropped_count());
        Ok(restored)
    }
}
