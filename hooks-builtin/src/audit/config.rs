//! The policy's settings, its errors, and the writer's counters.

use super::*;

/// Where records go.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Deserialize, serde::Serialize,
)]
#[serde(rename_all = "snake_case")]
pub enum AuditFormat {
    /// An SQLite database (WAL).
    #[default]
    Sqlite,
    /// A JSONL file, one record per line.
    Jsonl,
}

/// How hard each batch is pushed to disk.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Deserialize, serde::Serialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Synchronous {
    /// Each batch reaches the OS before it counts as written: survives the process being
    /// killed, not a power loss (SQLite `synchronous = NORMAL` in WAL mode).
    #[default]
    Normal,
    /// Each batch is also fsynced: survives a power loss (SQLite `synchronous = FULL`).
    Full,
}

/// Settings of the [`Audit`] policy.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct AuditConfig {
    /// The database or JSONL file; its directory must exist. Default `hooks-audit.db`
    /// (relative to the working directory).
    pub path: PathBuf,
    /// `sqlite` or `jsonl`. Default `sqlite`.
    pub format: AuditFormat,
    /// `normal` (survives a killed process) or `full` (survives a power loss). Default
    /// `normal`.
    pub synchronous: Synchronous,
    /// Records waiting for the writer, at most. Default 8192.
    pub queue_capacity: usize,
    /// Records per transaction or write, at most. Default 1024.
    pub batch_size: usize,
    /// How long a hook waits for room in a full queue while the writer takes nothing from it
    /// (a stuck disk, a lock held by another process) before the record is dropped and
    /// counted; while the writer makes progress, a full queue throttles the agent instead.
    /// At most 60 000. Default 1000.
    pub enqueue_timeout_ms: u64,
    /// How long [`Audit::flush`], [`Audit::kv_set`] and [`Audit::kv_get`] wait for the
    /// writer. Default 30 000.
    pub flush_timeout_ms: u64,
    /// Tool input kept per record, in bytes of JSON (the rest is cut and marked). Default
    /// 16 384.
    pub max_input_bytes: usize,
    /// Tool output (and error, and event details) kept per record, in bytes of JSON; the full
    /// size is recorded beside it. Default 4096.
    pub max_output_bytes: usize,
    /// Record every hook run (not just tool calls and session events). Default true.
    pub record_hook_runs: bool,
    /// Points whose hook runs are not recorded (for instance `model_stream_chunk`, one run
    /// per hook per streamed chunk). Tool calls are recorded regardless. Default empty.
    pub skip_points: Vec<String>,
}

impl Default for AuditConfig {
    fn default() -> Self {
        AuditConfig {
            path: PathBuf::from("hooks-audit.db"),
            format: AuditFormat::Sqlite,
            synchronous: Synchronous::Normal,
            queue_capacity: 8192,
            batch_size: 1024,
            enqueue_timeout_ms: 1000,
            flush_timeout_ms: 30_000,
            max_input_bytes: 16 * 1024,
            max_output_bytes: 4096,
            record_hook_runs: true,
            skip_points: Vec::new(),
        }
    }
}

impl AuditConfig {
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        if self.path.as_os_str().is_empty() {
            return Err(ConfigError::new(POLICY, "path", "must not be empty"));
        }
        if !(1..=1_000_000).contains(&self.queue_capacity) {
            return Err(ConfigError::new(
                POLICY,
                "queue_capacity",
                format!("must be 1 to 1000000, not {}", self.queue_capacity),
            ));
        }
        if self.batch_size == 0 {
            return Err(ConfigError::new(POLICY, "batch_size", "must be at least 1"));
        }
        if self.enqueue_timeout_ms > 60_000 {
            return Err(ConfigError::new(
                POLICY,
                "enqueue_timeout_ms",
                format!(
                    "must be at most 60000 (a hook would block the agent loop that long), not {}",
                    self.enqueue_timeout_ms
                ),
            ));
        }
        if self.flush_timeout_ms == 0 {
            return Err(ConfigError::new(
                POLICY,
                "flush_timeout_ms",
                "must be at least 1",
            ));
        }
        if let Some(i) = self.skip_points.iter().position(|p| p.trim().is_empty()) {
            return Err(ConfigError::new(
                POLICY,
                format!("skip_points[{i}]"),
                "must not be empty",
            ));
        }
        Ok(())
    }
}

/// Why the audit could not start, read, or keep everything.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuditError {
    /// A setting was refused.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The file cannot be opened or created, or is not writable.
    #[error("audit: cannot open `{}`: {message}", path.display())]
    Open {
        /// The file.
        path: PathBuf,
        /// The OS's or SQLite's error.
        message: String,
    },
    /// The file was written by a newer version with a schema this build does not know.
    #[error(
        "audit: `{}` has schema version {found}, newer than version {supported} that this build \
         reads; use a newer hookrail-builtin or another file",
        path.display()
    )]
    NewerSchema {
        /// The file.
        path: PathBuf,
        /// Its schema version.
        found: i64,
        /// The newest this build knows.
        supported: i64,
    },
    /// The file exists but is not an audit trail (another database, another format).
    #[error("audit: `{}` is not an audit trail: {message}", path.display())]
    NotAudit {
        /// The file.
        path: PathBuf,
        /// What it is instead.
        message: String,
    },
    /// The trail could not be read back.
    #[error("audit: cannot read `{}`: {message}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What failed.
        message: String,
    },
    /// The writer failed to store the batch holding this request.
    #[error("audit: write failed: {0}")]
    Write(String),
    /// The audit was closed.
    #[error("audit: closed")]
    Closed,
    /// The writer thread is gone.
    #[error("audit: the writer thread is not running{}", last_error.as_ref().map(|e| format!(" (last error: {e})")).unwrap_or_default())]
    WriterDead {
        /// The writer's last error.
        last_error: Option<String>,
    },
    /// The writer did not answer in time.
    #[error("audit: the writer did not catch up within {0:?}")]
    Timeout(Duration),
    /// Records were lost since the previous `flush` or `close`: refused by a full queue
    /// (`dropped`) or not stored by the writer (`failed`).
    #[error(
        "audit: {dropped} record(s) dropped and {failed} not written since the last flush{}",
        last_error.as_ref().map(|e| format!(" (last error: {e})")).unwrap_or_default()
    )]
    Lost {
        /// Refused at the queue.
        dropped: u64,
        /// Failed to be stored.
        failed: u64,
        /// The writer's last error.
        last_error: Option<String>,
    },
}

impl From<AuditError> for ConfigError {
    fn from(e: AuditError) -> Self {
        match e {
            AuditError::Config(c) => c,
            other => ConfigError::new(POLICY, "path", other),
        }
    }
}

/// The audit's counters, from [`Audit::stats`].
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct AuditStats {
    /// Records and key-value sets stored (committed).
    pub written: u64,
    /// Records refused at the queue (full past the deadline, writer gone, or closed).
    pub dropped: u64,
    /// Records accepted but not stored (a failed batch, or queued when the writer stopped).
    pub failed: u64,
    /// Batches committed.
    pub batches: u64,
    /// Batches that failed.
    pub write_errors: u64,
    /// Records waiting in the queue now.
    pub queued: usize,
    /// The writer's last error.
    pub last_error: Option<String>,
}

impl AuditStats {
    /// Dropped plus failed.
    pub fn lost(&self) -> u64 {
        self.dropped + self.failed
    }
}
