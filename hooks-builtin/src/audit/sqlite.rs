//! The SQLite backend: one `records` table for the trail, one `kv` table for state.
//!
//! WAL journal, `synchronous = NORMAL` by default: each batch commit appends to the WAL file
//! through the OS, so a process that is killed (SIGKILL, panic, OOM) loses nothing committed;
//! only a power loss or kernel crash can roll back the last commits (never corrupt the file).
//! `synchronous = FULL` also fsyncs the WAL at each commit, for power-loss durability.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior, params};
use serde_json::Value;

use super::AuditError;
use super::Synchronous;
use super::queue::{Msg, Store};
use super::record::{AuditRecord, GapRecord, ToolCallRecord};

/// The schema this build writes and reads (`PRAGMA user_version`).
pub(crate) const SCHEMA_VERSION: i64 = 1;

/// `PRAGMA application_id`: "HkAu", so another application's database is not taken for ours.
pub(crate) const APPLICATION_ID: i64 = 0x486B_4175;

/// How long a write waits for another connection's lock before the batch fails.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS records (
    id          INTEGER PRIMARY KEY,
    type        TEXT    NOT NULL,
    ts_ms       INTEGER NOT NULL,
    session_id  TEXT,
    agent       TEXT,
    tenant      TEXT,
    subject     TEXT,
    outcome     TEXT,
    body        TEXT    NOT NULL
);
CREATE INDEX IF NOT EXISTS records_by_session ON records (session_id, id);
CREATE TABLE IF NOT EXISTS kv (
    session_id  TEXT    NOT NULL,
    key         TEXT    NOT NULL,
    value       TEXT    NOT NULL,
    updated_ms  INTEGER NOT NULL,
    PRIMARY KEY (session_id, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
";

fn open_error(path: &Path, e: impl std::fmt::Display) -> AuditError {
    AuditError::Open {
        path: path.to_owned(),
        message: e.to_string(),
    }
}

/// Refuse a database this build cannot read or that is not an audit trail.
fn check_schema(conn: &Connection, path: &Path) -> Result<bool, AuditError> {
    let not_audit = |e: rusqlite::Error| match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::NotADatabase) => AuditError::NotAudit {
            path: path.to_owned(),
            message: "the file is not an SQLite database".into(),
        },
        _ => open_error(path, e),
    };
    let version: i64 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .map_err(not_audit)?;
    let app: i64 = conn
        .pragma_query_value(None, "application_id", |r| r.get(0))
        .map_err(not_audit)?;
    let tables: i64 = conn
        .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
        .map_err(not_audit)?;
    if tables == 0 && version == 0 {
        return Ok(true);
    }
    if app != APPLICATION_ID {
        return Err(AuditError::NotAudit {
            path: path.to_owned(),
            message: format!("an SQLite database of another application (application_id {app:#x})"),
        });
    }
    if version > SCHEMA_VERSION {
        return Err(AuditError::NewerSchema {
            path: path.to_owned(),
            found: version,
            supported: SCHEMA_VERSION,
        });
    }
    Ok(false)
}

/// The writer's connection.
pub(crate) struct SqliteStore {
    conn: Connection,
}

impl SqliteStore {
    /// Open or create the database at `path` and check that it can be written.
    pub(crate) fn open(path: &Path, sync: Synchronous) -> Result<Self, AuditError> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(|e| open_error(path, e))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| open_error(path, e))?;
        let fresh = check_schema(&conn, path)?;
        let mode: String = conn
            .pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))
            .map_err(|e| open_error(path, e))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(open_error(
                path,
                format!("the filesystem refused WAL mode (journal_mode is `{mode}`)"),
            ));
        }
        let sync = match sync {
            Synchronous::Normal => "NORMAL",
            Synchronous::Full => "FULL",
        };
        conn.pragma_update(None, "synchronous", sync)
            .map_err(|e| open_error(path, e))?;
        // Creating the tables (or touching `meta` on an existing file) is the write that
        // proves, before the agent starts, that the database is writable.
        conn.execute_batch(&format!(
            "BEGIN IMMEDIATE;
             {SCHEMA}
             PRAGMA user_version = {SCHEMA_VERSION};
             PRAGMA application_id = {APPLICATION_ID};
             INSERT OR IGNORE INTO meta (key, value) VALUES ('created_ms', strftime('%s','now') * 1000);
             INSERT OR REPLACE INTO meta (key, value) VALUES ('writer', 'hookrail-builtin {}');
             COMMIT;",
            env!("CARGO_PKG_VERSION")
        ))
        .map_err(|e| {
            let _ = conn.execute_batch("ROLLBACK");
            open_error(path, e)
        })?;
        if fresh {
            tracing::debug!(path = %path.display(), "audit database created");
        }
        Ok(SqliteStore { conn })
    }
}

fn insert(tx: &rusqlite::Transaction<'_>, record: &AuditRecord) -> rusqlite::Result<()> {
    let body = serde_json::to_string(record)
        .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
    let origin = record.origin();
    let mut stmt = tx.prepare_cached(
        "INSERT INTO records (type, ts_ms, session_id, agent, tenant, subject, outcome, body)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?;
    stmt.execute(params![
        record.type_name(),
        i64::try_from(record.ts_ms()).unwrap_or(i64::MAX),
        origin.and_then(|o| o.session_id.as_deref()),
        origin.and_then(|o| o.agent.as_deref()),
        origin.and_then(|o| o.tenant.as_deref()),
        record.subject(),
        record.outcome(),
        body,
    ])?;
    Ok(())
}

impl Store for SqliteStore {
    fn apply(
        &mut self,
        batch: &[Msg],
        gap: Option<&GapRecord>,
    ) -> Result<Vec<Option<Value>>, String> {
        let run = |conn: &mut Connection| -> rusqlite::Result<Vec<Option<Value>>> {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let mut answers = Vec::new();
            if let Some(gap) = gap {
                insert(&tx, &AuditRecord::Gap(gap.clone()))?;
            }
            for msg in batch {
                match msg {
                    Msg::Record(r) => insert(&tx, r)?,
                    Msg::KvSet {
                        session,
                        key,
                        value,
                        ts_ms,
                    } => {
                        tx.prepare_cached(
                            "INSERT INTO kv (session_id, key, value, updated_ms) VALUES (?1, ?2, ?3, ?4)
                             ON CONFLICT (session_id, key)
                             DO UPDATE SET value = excluded.value, updated_ms = excluded.updated_ms",
                        )?
                        .execute(params![
                            session,
                            key,
                            value.to_string(),
                            i64::try_from(*ts_ms).unwrap_or(i64::MAX)
                        ])?;
                    }
                    // Same connection and transaction: sees the sets queued before it.
                    Msg::KvGet { session, key, .. } => answers.push(kv_get(&tx, session, key)?),
                }
            }
            tx.commit()?;
            Ok(answers)
        };
        run(&mut self.conn).map_err(|e| e.to_string())
    }
}

fn kv_get(conn: &Connection, session: &str, key: &str) -> rusqlite::Result<Option<Value>> {
    let text: Option<String> = conn
        .prepare_cached("SELECT value FROM kv WHERE session_id = ?1 AND key = ?2")?
        .query_row(params![session, key], |r| r.get(0))
        .optional()?;
    Ok(text.and_then(|t| serde_json::from_str(&t).ok()))
}

/// A read connection for [`AuditReader`](super::AuditReader).
pub(crate) struct SqliteReader {
    conn: Connection,
    path: PathBuf,
}

impl SqliteReader {
    pub(crate) fn open(path: &Path) -> Result<Self, AuditError> {
        // Read-write without create: after a crash the first connection rebuilds the WAL index
        // in the `-shm` file, which a read-only connection cannot do. `query_only` keeps this
        // connection from changing anything.
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .or_else(|_| {
            Connection::open_with_flags(
                path,
                OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )
        })
        .map_err(|e| open_error(path, e))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| open_error(path, e))?;
        if check_schema(&conn, path)? {
            return Err(AuditError::NotAudit {
                path: path.to_owned(),
                message: "the database is empty".into(),
            });
        }
        conn.pragma_update(None, "query_only", "ON")
            .map_err(|e| open_error(path, e))?;
        Ok(SqliteReader {
            conn,
            path: path.to_owned(),
        })
    }

    fn read_error(&self, e: impl std::fmt::Display) -> AuditError {
        AuditError::Read {
            path: self.path.clone(),
            message: e.to_string(),
        }
    }

    fn bodies<T: serde::de::DeserializeOwned>(
        &self,
        sql: &str,
        args: impl rusqlite::Params,
    ) -> Result<Vec<T>, AuditError> {
        let mut stmt = self.conn.prepare(sql).map_err(|e| self.read_error(e))?;
        let rows = stmt
            .query_map(args, |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))
            .map_err(|e| self.read_error(e))?;
        let mut out = Vec::new();
        for row in rows {
            let (id, body) = row.map_err(|e| self.read_error(e))?;
            let value = serde_json::from_str(&body)
                .map_err(|e| self.read_error(format_args!("record {id}: {e}")))?;
            out.push(value);
        }
        Ok(out)
    }

    pub(crate) fn trail(&self, session: &str) -> Result<Vec<AuditRecord>, AuditError> {
        self.bodies(
            "SELECT id, body FROM records WHERE session_id = ?1 ORDER BY id",
            [session],
        )
    }

    pub(crate) fn records(&self) -> Result<Vec<AuditRecord>, AuditError> {
        self.bodies("SELECT id, body FROM records ORDER BY id", [])
    }

    pub(crate) fn tool_calls(&self, session: &str) -> Result<Vec<ToolCallRecord>, AuditError> {
        let records: Vec<AuditRecord> = self.bodies(
            "SELECT id, body FROM records WHERE session_id = ?1 AND type = 'tool_call' ORDER BY id",
            [session],
        )?;
        Ok(records
            .into_iter()
            .filter_map(|r| match r {
                AuditRecord::ToolCall(t) => Some(t),
                _ => None,
            })
            .collect())
    }

    pub(crate) fn kv(&self, session: &str) -> Result<Vec<(String, Value)>, AuditError> {
        let mut stmt = self
            .conn
            .prepare("SELECT key, value FROM kv WHERE session_id = ?1 ORDER BY key")
            .map_err(|e| self.read_error(e))?;
        let rows = stmt
            .query_map([session], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
            })
            .map_err(|e| self.read_error(e))?;
        let mut out = Vec::new();
        for row in rows {
            let (key, text) = row.map_err(|e| self.read_error(e))?;
            let value = serde_json::from_str(&text)
                .map_err(|e| self.read_error(format_args!("kv `{key}`: {e}")))?;
            out.push((key, value));
        }
        Ok(out)
    }

    pub(crate) fn sessions(&self) -> Result<Vec<String>, AuditError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT session_id FROM records WHERE session_id IS NOT NULL
                 UNION SELECT session_id FROM kv ORDER BY 1",
            )
            .map_err(|e| self.read_error(e))?;
        let rows = stmt
            .query_map([], |r| r.get::<_, String>(0))
            .map_err(|e| self.read_error(e))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| self.read_error(e))
    }

    pub(crate) fn count(&self) -> Result<u64, AuditError> {
        let n: i64 = self
            .conn
            .query_row("SELECT count(*) FROM records", [], |r| r.get(0))
            .map_err(|e| self.read_error(e))?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    /// `PRAGMA integrity_check`: empty when the file is sound.
    pub(crate) fn check(&self) -> Result<Vec<String>, AuditError> {
        let mut stmt = self
            .conn
            .prepare("PRAGMA integrity_check")
            .map_err(|e| self.read_error(e))?;
        let rows = stmt
            .query_map([], |r| r.get::<_, String>(0))
            .map_err(|e| self.read_error(e))?;
        let lines: Vec<String> = rows
            .collect::<Result<_, _>>()
            .map_err(|e| self.read_error(e))?;
        Ok(lines.into_iter().filter(|l| l != "ok").collect())
    }
}
