//! [`AuditReader`]: a session's trail read back, from either backend.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::jsonl::{JsonlReader, LineProblem};
use super::record::{AuditRecord, ToolCallRecord};
use super::sqlite::SqliteReader;
use super::{AuditError, AuditFormat};

/// Reads an audit trail back: a session's records in the order they were written, its tool
/// calls, its key-value state. The backend is recognized from the file's first bytes.
///
/// Opening it while an [`Audit`](super::Audit) writes the same file is fine: SQLite readers
/// see the last committed batch; the JSONL reader reads the file anew for each query (a batch
/// being written shows up as a torn last line, reported in
/// [`check`](AuditReader::check), never as an error).
///
/// ```
/// # use hookrail_builtin::audit::{Audit, AuditConfig, AuditReader};
/// # use serde_json::json;
/// # let dir = tempfile::tempdir()?;
/// # let path = dir.path().join("trail.db");
/// # let audit = Audit::new(AuditConfig { path: path.clone(), ..AuditConfig::default() })?;
/// # audit.kv_set("s1", "plan", json!(["read", "fix"]))?;
/// # audit.close()?;
/// let reader = AuditReader::open(&path)?;
/// for record in reader.trail("s1")? {
///     println!("{} {}", record.ts_ms(), record.type_name());
/// }
/// assert_eq!(reader.kv("s1")?["plan"], json!(["read", "fix"]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct AuditReader {
    path: PathBuf,
    inner: Inner,
    problems: Vec<LineProblem>,
}

enum Inner {
    Sqlite(SqliteReader),
    Jsonl(JsonlReader),
}

impl AuditReader {
    /// Open the trail at `path` (SQLite or JSONL).
    ///
    /// # Errors
    ///
    /// [`AuditError::Open`] if the file cannot be opened, [`AuditError::NotAudit`] if it is not
    /// an audit trail, [`AuditError::NewerSchema`] if a newer version of this crate wrote it.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, AuditError> {
        let path = path.as_ref();
        let mut magic = [0u8; 16];
        let n = File::open(path)
            .and_then(|mut f| read_up_to(&mut f, &mut magic))
            .map_err(|e| AuditError::Open {
                path: path.to_owned(),
                message: e.to_string(),
            })?;
        let (inner, problems) = if magic[..n] == *b"SQLite format 3\0" {
            (Inner::Sqlite(SqliteReader::open(path)?), Vec::new())
        } else if n > 0 && magic[0] == b'{' {
            let (reader, problems) = JsonlReader::open(path)?;
            (Inner::Jsonl(reader), problems)
        } else {
            return Err(AuditError::NotAudit {
                path: path.to_owned(),
                message: if n == 0 {
                    "the file is empty".into()
                } else {
                    "neither an SQLite database nor a JSONL trail".into()
                },
            });
        };
        Ok(AuditReader {
            path: path.to_owned(),
            inner,
            problems,
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The backend.
    pub fn format(&self) -> AuditFormat {
        match self.inner {
            Inner::Sqlite(_) => AuditFormat::Sqlite,
            Inner::Jsonl(_) => AuditFormat::Jsonl,
        }
    }

    /// Every record of session `session_id`, in the order they were written.
    ///
    /// # Errors
    ///
    /// [`AuditError::Read`] if the file cannot be read or a stored record cannot be decoded.
    pub fn trail(&self, session_id: &str) -> Result<Vec<AuditRecord>, AuditError> {
        match &self.inner {
            Inner::Sqlite(r) => r.trail(session_id),
            Inner::Jsonl(r) => r.trail(session_id),
        }
    }

    /// The tool calls of session `session_id`, in order.
    ///
    /// # Errors
    ///
    /// As [`trail`](AuditReader::trail).
    pub fn tool_calls(&self, session_id: &str) -> Result<Vec<ToolCallRecord>, AuditError> {
        match &self.inner {
            Inner::Sqlite(r) => r.tool_calls(session_id),
            Inner::Jsonl(r) => r.tool_calls(session_id),
        }
    }

    /// The key-value state of session `session_id`: the last value set for each key.
    ///
    /// # Errors
    ///
    /// As [`trail`](AuditReader::trail).
    pub fn kv(&self, session_id: &str) -> Result<BTreeMap<String, Value>, AuditError> {
        let pairs = match &self.inner {
            Inner::Sqlite(r) => r.kv(session_id)?,
            Inner::Jsonl(r) => r.kv(session_id)?,
        };
        Ok(pairs.into_iter().collect())
    }

    /// Every record of every session (and the gap records), in the order they were written.
    ///
    /// # Errors
    ///
    /// As [`trail`](AuditReader::trail).
    pub fn records(&self) -> Result<Vec<AuditRecord>, AuditError> {
        match &self.inner {
            Inner::Sqlite(r) => r.records(),
            Inner::Jsonl(r) => r.records(None, |_| true),
        }
    }

    /// The ids of the sessions that have records or state, sorted.
    ///
    /// # Errors
    ///
    /// As [`trail`](AuditReader::trail).
    pub fn sessions(&self) -> Result<Vec<String>, AuditError> {
        match &self.inner {
            Inner::Sqlite(r) => r.sessions(),
            Inner::Jsonl(r) => r.sessions(),
        }
    }

    /// How many records the trail holds (key-value state not counted).
    ///
    /// # Errors
    ///
    /// As [`trail`](AuditReader::trail).
    pub fn count(&self) -> Result<u64, AuditError> {
        match &self.inner {
            Inner::Sqlite(r) => r.count(),
            Inner::Jsonl(r) => r.count(),
        }
    }

    /// The JSONL lines that could not be read when the reader was opened (a torn last line
    /// after a crash, a line edited by hand); always empty for SQLite.
    pub fn problems(&self) -> &[LineProblem] {
        &self.problems
    }

    /// Check the whole file now: SQLite's `integrity_check` messages, or one message per
    /// unreadable JSONL line. Empty when the file is sound.
    ///
    /// # Errors
    ///
    /// [`AuditError::Read`] if the check itself cannot run.
    pub fn check(&self) -> Result<Vec<String>, AuditError> {
        match &self.inner {
            Inner::Sqlite(r) => r.check(),
            Inner::Jsonl(r) => Ok(r
                .problems()?
                .into_iter()
                .map(|p| {
                    format!(
                        "line {} (byte {}){}: {}",
                        p.line,
                        p.offset,
                        if p.torn { ", torn" } else { "" },
                        p.message
                    )
                })
                .collect()),
        }
    }
}

impl std::fmt::Debug for AuditReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuditReader")
            .field("path", &self.path)
            .field("format", &self.format())
            .field("problems", &self.problems.len())
            .finish()
    }
}

fn read_up_to(f: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}
