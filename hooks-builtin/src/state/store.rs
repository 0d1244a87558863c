//! [`StateStore`]: policy snapshots in an SQLite file, one row per policy.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior, params};

use super::{PersistentState, Restored, StateError, unix_now_ms};

/// The schema this build writes and reads (`PRAGMA user_version`).
const SCHEMA_VERSION: i64 = 1;

/// `PRAGMA application_id`: "HkSt", so that another database (an audit trail, say) is not
/// taken for a state file.
const APPLICATION_ID: i64 = 0x486B_5374;

/// How long a statement waits for another connection's lock before it fails.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS policy_state (
    name        TEXT    PRIMARY KEY,
    revision    INTEGER NOT NULL,
    saved_at_ms INTEGER NOT NULL,
    state       TEXT    NOT NULL
);
";

/// The snapshots of [`PersistentState`] policies in an SQLite file (WAL journal), one row per
/// policy: `policy_state(name, revision, saved_at_ms, state)`. See the [module
/// docs](super) for an example.
///
/// The file is created with mode 0600 on Unix, and an existing file that others may write is
/// refused: whoever can write it can hand a policy a fresh budget.
#[derive(Debug)]
pub struct StateStore {
    conn: Connection,
    path: PathBuf,
    /// The revision of each policy at its last save through this store.
    saved: HashMap<&'static str, u64>,
}

impl StateStore {
    /// Open the state file at `path`, creating it (and its table) if needed.
    ///
    /// # Errors
    ///
    /// [`StateError::Store`] naming the file when it cannot be created or opened, is not
    /// SQLite, belongs to another application, has a newer schema, is writable by others,
    /// or refuses WAL mode.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StateError> {
        let path = path.as_ref();
        let fail = |message: String| StateError::Store {
            path: path.to_owned(),
            policy: None,
            message,
        };
        create_private(path).map_err(|e| fail(format!("cannot create the file: {e}")))?;
        check_permissions(path).map_err(fail)?;
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(|e| fail(e.to_string()))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| fail(e.to_string()))?;
        check_schema(&conn).map_err(fail)?;
        let mode: String = conn
            .pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))
            .map_err(|e| fail(e.to_string()))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(fail(format!(
                "the filesystem refused WAL mode (journal_mode is `{mode}`)"
            )));
        }
        conn.execute_batch(&format!(
            "BEGIN IMMEDIATE;
             {SCHEMA}
             PRAGMA user_version = {SCHEMA_VERSION};
             PRAGMA application_id = {APPLICATION_ID};
             COMMIT;"
        ))
        .map_err(|e| {
            let _ = conn.execute_batch("ROLLBACK");
            fail(e.to_string())
        })?;
        Ok(StateStore {
            conn,
            path: path.to_owned(),
            saved: HashMap::new(),
        })
    }

    /// The state file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Restore each of `policies` from its row, if it has one, at the current wall-clock
    /// time. Returns what each restored policy kept and dropped, in the order of `policies`;
    /// a policy without a row is left as it is and not listed. Rows of policies not in
    /// `policies` are left in the file.
    ///
    /// # Errors
    ///
    /// [`StateError::Store`] when a row cannot be read or is not JSON;
    /// [`StateError::InStore`] when a policy refuses its snapshot. The policies before it in
    /// `policies` have been restored by then, the others not.
    pub fn restore(
        &self,
        policies: &[Arc<dyn PersistentState>],
    ) -> Result<Vec<(&'static str, Restored)>, StateError> {
        let now = unix_now_ms();
        let mut out = Vec::new();
        for policy in policies {
            let name = policy.state_name();
            let text: Option<String> = self
                .conn
                .prepare_cached("SELECT state FROM policy_state WHERE name = ?1")
                .and_then(|mut stmt| stmt.query_row([name], |r| r.get(0)).optional())
                .map_err(|e| self.error(Some(name), e))?;
            let Some(text) = text else { continue };
            let saved = serde_json::from_str(&text)
                .map_err(|e| self.error(Some(name), format_args!("the row is not JSON: {e}")))?;
            let restored =
                policy
                    .restore_state_at(&saved, now)
                    .map_err(|e| StateError::InStore {
                        path: self.path.clone(),
                        source: Box::new(e),
                    })?;
            out.push((name, restored));
        }
        Ok(out)
    }

    /// Save the policies whose [`state_revision`](PersistentState::state_revision) changed
    /// since this store last saved them (all of them the first time), in one transaction.
    /// Returns how many rows were written.
    ///
    /// # Errors
    ///
    /// [`StateError::Store`] naming the file and the policy when the write fails; nothing of
    /// this call is then saved, and the next call tries again.
    pub fn save_changed(
        &mut self,
        policies: &[Arc<dyn PersistentState>],
    ) -> Result<usize, StateError> {
        self.save(policies, false)
    }

    /// Save every one of `policies`, changed or not, in one transaction (at shutdown, say).
    /// Returns how many rows were written.
    ///
    /// # Errors
    ///
    /// As [`save_changed`](Self::save_changed).
    pub fn save_all(&mut self, policies: &[Arc<dyn PersistentState>]) -> Result<usize, StateError> {
        self.save(policies, true)
    }

    fn save(
        &mut self,
        policies: &[Arc<dyn PersistentState>],
        all: bool,
    ) -> Result<usize, StateError> {
        let now = unix_now_ms();
        let mut rows = Vec::new();
        for policy in policies {
            let name = policy.state_name();
            // Read before the snapshot: a change between the two is saved again next time.
            let revision = policy.state_revision();
            if !all && self.saved.get(name) == Some(&revision) {
                continue;
            }
            let text = serde_json::to_string(&policy.save_state_at(now))
                .map_err(|e| self.error(Some(name), e))?;
            rows.push((name, revision, text));
        }
        if rows.is_empty() {
            return Ok(0);
        }
        let saved_at = i64::try_from(now).unwrap_or(i64::MAX);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| error(&self.path, None, e))?;
        for (name, revision, text) in &rows {
            tx.prepare_cached(
                "INSERT INTO policy_state (name, revision, saved_at_ms, state)
                 VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (name) DO UPDATE SET revision = excluded.revision,
                     saved_at_ms = excluded.saved_at_ms, state = excluded.state",
            )
            .and_then(|mut stmt| {
                // SQLite integers are signed; the bits are what matter.
                stmt.execute(params![name, *revision as i64, saved_at, text])
            })
            .map_err(|e| error(&self.path, Some(name), e))?;
        }
        tx.commit().map_err(|e| error(&self.path, None, e))?;
        for (name, revision, _) in &rows {
            self.saved.insert(name, *revision);
        }
        tracing::debug!(
            target: "hookrail_builtin::state",
            path = %self.path.display(),
            rows = rows.len(),
            "policy state saved"
        );
        Ok(rows.len())
    }

    fn error(&self, policy: Option<&'static str>, e: impl std::fmt::Display) -> StateError {
        error(&self.path, policy, e)
    }
}

fn error(path: &Path, policy: Option<&'static str>, e: impl std::fmt::Display) -> StateError {
    StateError::Store {
        path: path.to_owned(),
        policy,
        message: e.to_string(),
    }
}

/// Create `path` empty and private (0600 on Unix) unless it exists: SQLite would create it
/// with the umask's mode, readable by others on most systems.
fn create_private(path: &Path) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

/// Refuse a state file that others may write: they could hand the policies a fresh budget,
/// empty rate limits and no locks.
#[cfg(unix)]
fn check_permissions(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path)
        .map_err(|e| e.to_string())?
        .permissions()
        .mode();
    if mode & 0o022 != 0 {
        return Err(format!(
            "the file is writable by its group or others (mode {:o}); make it 0600",
            mode & 0o777
        ));
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_permissions(_: &Path) -> Result<(), String> {
    Ok(())
}

/// Refuse a database this build cannot read or that is not a state file.
fn check_schema(conn: &Connection) -> Result<(), String> {
    let not_state = |e: rusqlite::Error| match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::NotADatabase) => "the file is not an SQLite database".to_owned(),
        _ => e.to_string(),
    };
    let version: i64 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .map_err(not_state)?;
    let app: i64 = conn
        .pragma_query_value(None, "application_id", |r| r.get(0))
        .map_err(not_state)?;
    let tables: i64 = conn
        .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
        .map_err(not_state)?;
    if tables == 0 && version == 0 && app == 0 {
        return Ok(());
    }
    if app != APPLICATION_ID {
        return Err(format!(
            "not a hookrail state file (an SQLite database with application_id {app:#x})"
        ));
    }
    if version > SCHEMA_VERSION {
        return Err(format!(
            "schema version {version} is newer than this build's ({SCHEMA_VERSION})"
        ));
    }
    Ok(())
}
