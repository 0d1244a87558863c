//! `audit`: a trail of every hook run and every tool call, plus key-value state per session
//! (the AgentFS shape of seed 001: `tools.record(...)` and `kv.set/get`), in an embedded SQLite
//! database (WAL) or a JSONL file.
//!
//! # Use
//!
//! ```
//! use hookrail_builtin::audit::{Audit, AuditConfig, AuditReader, ToolStatus};
//! use hookrail_core::context::{Meta, PostToolUse, PreToolUse};
//! use hookrail_core::points::{post_tool_use, pre_tool_use};
//! use hookrail_core::runtime::{Hook, Hooks};
//! use hookrail_core::Verdict;
//! use serde_json::json;
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("audit.db");
//! let audit = Audit::new(AuditConfig { path: path.clone(), ..AuditConfig::default() })?;
//!
//! // `install` adds the audit as the last provider (order i32::MAX), builds the set and
//! // subscribes to its hook runs.
//! let hooks = audit.install(
//!     Hooks::builder().ignore_env().hook(Hook::<pre_tool_use::Point>::new("no_shell", |ctx| {
//!         if ctx.tool_name == "Bash" { Verdict::deny("no shell here") } else { Verdict::Continue }
//!     })),
//! )?;
//!
//! let mut pre = PreToolUse::new(Meta::new("s1"), "Bash", json!({"command": "ls"}));
//! assert!(hooks.dispatch::<pre_tool_use::Point>(&mut pre).is_denied());
//! let mut post = PostToolUse::new(Meta::new("s1"), "Read", json!({"file_path": "a.rs"}), json!("fn main() {}"), 3);
//! hooks.dispatch::<post_tool_use::Point>(&mut post);
//! audit.kv_set("s1", "step", json!("review"))?;
//! assert_eq!(audit.kv_get("s1", "step")?, Some(json!("review")));
//!
//! audit.close()?; // drains the queue; dropping the last handle does the same
//! assert_eq!(audit.stats().dropped, 0);
//!
//! let reader = AuditReader::open(&path)?;
//! let calls = reader.tool_calls("s1")?;
//! assert_eq!(calls.len(), 2);
//! assert_eq!((calls[0].status, calls[0].decided_by.as_deref()), (ToolStatus::Denied, Some("no_shell")));
//! assert_eq!(calls[1].status, ToolStatus::Ok);
//! assert_eq!(reader.kv("s1")?["step"], json!("review"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Or in two steps: `Hooks::builder().provider_at(i32::MAX, audit.clone())…build()?`, then
//! [`audit.attach(&hooks)`](Audit::attach). Both are needed: the provider sees every tool call
//! (its `post_tool_use` method runs after every transform, so it records the scrubbed output),
//! the subscription sees the other hooks' runs and the calls they deny.
//!
//! # What is recorded
//!
//! | record | when | fields |
//! |---|---|---|
//! | [`HookRunRecord`] | every run of every other hook, at every point (unless `record_hook_runs` is off or the point is in `skip_points`) | point, kind, hook, source, duration, outcome (verdict / recovery / done / failed) and its detail |
//! | [`ToolCallRecord`] | `post_tool_use` (status `ok` or `error`); a guard's `Deny` or fail-closed failure at `pre_tool_use` (`denied`); an `Ask` that reached the end of the guard chain (`asked`) | tool, id, input (capped), original input if rewritten, output summary (capped) and its full size, error, verdict, reason, deciding hook, duration, start and end |
//! | [`EventRecord`] | `session_start`, `session_end`, [`Audit::record_event`] | model and source, or end reason, success and totals |
//! | [`GapRecord`] | the first batch written after records were lost | how many were dropped and failed |
//! | key-value state | [`Audit::kv_set`] | the last value per session and key |
//!
//! Every record carries the session id, agent, tenant and turn of its context (downcast from
//! the standard contexts; a custom point's runs have none). The audit's own runs are not
//! recorded.
//!
//! Not caught: tool calls that never go through `pre_tool_use` / `post_tool_use` (an agent
//! loop that does not dispatch them); an `Ask` that nobody approved leaves only its `asked`
//! record (the audit cannot see the approver's answer); an audit added before other guards
//! (not at the highest order) may record `asked` for a call a later guard denies.
//!
//! # Writing
//!
//! Hooks never write: they put records on a bounded queue (`queue_capacity`) that a dedicated
//! writer thread drains, one transaction (SQLite) or one `write` (JSONL) per batch of up to
//! `batch_size`. When the queue is full the hook waits for room: as long as the writer keeps
//! taking batches this is backpressure (the agent runs at the writer's pace and nothing is
//! lost); when the writer has taken nothing for `enqueue_timeout_ms` (a stuck disk, a lock
//! held by another process) the record is dropped, and later records are dropped at once (no
//! wait) until the queue has room again, so a stuck writer costs the agent one deadline, not
//! one per record. When the writer is gone or the audit is closed, records are dropped without
//! waiting. Nothing is lost silently: drops and failed writes are counted in
//! [`Audit::stats`], logged with `tracing`, reported by the next [`Audit::flush`] or
//! [`Audit::close`] as [`AuditError::Lost`], and written into the trail as a [`GapRecord`].
//! A hook never panics or fails because of the audit.
//!
//! # Durability
//!
//! SQLite runs in WAL mode. With `synchronous = "normal"` (the default) every committed batch
//! is in the WAL file through the OS when the commit returns: a process that is killed
//! (SIGKILL, panic, OOM) loses nothing committed, and the database is never corrupted; only a
//! power loss or OS crash may roll back the last commits. `"full"` fsyncs each commit (and each
//! JSONL batch) too, for power-loss durability at the cost of one fsync per batch. JSONL
//! batches are written whole with one `write_all`; a crash mid-write leaves at worst one torn
//! last line, which [`AuditReader`] reports and skips.
//!
//! Several processes may write one SQLite file (each with its own `Audit`; a lock held too
//! long fails a batch after 5 s, counted as failed). A JSONL file takes one writing process at
//! a time. Both can be read while they are written.
//!
//! # Storage
//!
//! SQLite (`PRAGMA user_version = 1`, `application_id = 0x486B4175`):
//! `records(id INTEGER PRIMARY KEY, type, ts_ms, session_id, agent, tenant, subject, outcome,
//! body)` with an index on `(session_id, id)`; `subject` is the point or tool name, `outcome` the
//! run's outcome or call's status, `body` the whole record as JSON (query it with
//! `json_extract`). `kv(session_id, key, value, updated_ms)`, one row per key. `meta(key,
//! value)`. JSONL: a header line `{"type":"header","format":"hooks-audit","schema_version":1}`,
//! then one record per line (the same JSON as `body`) and `{"type":"kv",...}` lines. A file of
//! a newer schema version is refused ([`AuditError::NewerSchema`]), and so is a file that is
//! not an audit trail ([`AuditError::NotAudit`]).

mod config;
mod jsonl;
mod queue;
mod reader;
mod record;
mod sqlite;

pub use config::{AuditConfig, AuditError, AuditFormat, AuditStats, Synchronous};
pub use jsonl::LineProblem;
pub use reader::AuditReader;
pub use record::{
    AuditRecord, EventRecord, GapRecord, HookRunRecord, Origin, ToolCallRecord, ToolStatus,
};

use std::collections::HashMap;
use std::fs::OpenOptions;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::thread::JoinHandle;
use std::time::Duration;

use hookrail_core::OnError;
use hookrail_core::context::{Meta, PostToolUse, PreToolUse, SessionEnd, SessionStart};
use hookrail_core::runtime::{
    HookRun, Hooks, HooksBuilder, HooksError, HooksProvider, PointSet, RunResult, SubscriptionId,
};
use hookrail_core::{HookResult, Verdict};
use serde_json::{Value, json};

use crate::ConfigError;

use hookrail_core::context::meta_of;
use queue::{Msg, Queue, Refused, Store, Wait};
use record::{cap_json, cap_str, now_ms};

/// The policy's name in config files and errors.
pub const POLICY: &str = "audit";

/// The provider's name: its entries at every point.
pub const NAME: &str = "builtin.audit";

/// Pending verdicts beyond this many (asks nobody answered) are forgotten, with a warning.
const MAX_PENDING: usize = 4096;

/// The `audit` policy: records hook runs, tool calls and session events to SQLite or JSONL
/// through a bounded queue and a writer thread, and keeps key-value state per session.
///
/// A cheap handle: clones share the writer. See the [module docs](self).
#[derive(Clone)]
pub struct Audit {
    inner: Arc<Inner>,
}

struct Inner {
    config: AuditConfig,
    queue: Arc<Queue>,
    writer: Mutex<Option<JoinHandle<()>>>,
    /// The strongest allow or ask seen per pending tool call, until the call ends.
    pending: Mutex<HashMap<CallKey, Pending>>,
    pending_len: AtomicUsize,
    enqueue_timeout: Duration,
    flush_timeout: Duration,
}

/// A tool call between `pre_tool_use` and `post_tool_use`: session and call id (or tool name
/// when the agent gives no id).
type CallKey = (String, String);

struct Pending {
    ask: bool,
    reason: Option<String>,
    by: String,
    /// The guard chain that noted it reached its end (the audit's own `pre_tool_use`). A
    /// finished entry still there at the next chain for the same call is stale: an ask nobody
    /// approved, whose tool never ran.
    finished: bool,
}

fn call_key(meta: &Meta, tool_use_id: Option<&str>, tool_name: &str) -> CallKey {
    let call = match tool_use_id {
        Some(id) => format!("id:{id}"),
        None => format!("tool:{tool_name}"),
    };
    (meta.session_id.to_string(), call)
}

/// A record's time: the context's timestamp, or now when it has none.
fn stamp(meta: &Meta) -> u64 {
    if meta.timestamp_ms == 0 {
        now_ms()
    } else {
        meta.timestamp_ms
    }
}

/// Check the path can be created and written, with the OS's own error, before SQLite's
/// "unable to open database file" can hide it.
fn precheck(path: &Path) -> Result<(), AuditError> {
    let open = |message: String| AuditError::Open {
        path: path.to_owned(),
        message,
    };
    if path.is_dir() {
        return Err(open("it is a directory".into()));
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        match std::fs::metadata(dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(open(format!("`{}` is not a directory", dir.display()))),
            Err(e) => return Err(open(format!("directory `{}`: {e}", dir.display()))),
        }
    }
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map(drop)
        .map_err(|e| open(e.to_string()))
}

impl Audit {
    /// Open (or create) the trail and start the writer thread.
    ///
    /// # Errors
    ///
    /// [`AuditError::Config`] for a refused setting; [`AuditError::Open`] when the file cannot
    /// be created or written (missing directory, permissions, a read-only filesystem);
    /// [`AuditError::NewerSchema`] or [`AuditError::NotAudit`] for an existing file this build
    /// must not write to.
    pub fn new(config: AuditConfig) -> Result<Audit, AuditError> {
        config.validate()?;
        let path = config.path.clone();
        precheck(&path)?;
        let store: Box<dyn Store> = match config.format {
            AuditFormat::Sqlite => Box::new(sqlite::SqliteStore::open(&path, config.synchronous)?),
            AuditFormat::Jsonl => Box::new(jsonl::JsonlStore::open(&path, config.synchronous)?),
        };
        let queue = Arc::new(Queue::new(config.queue_capacity));
        let batch_size = config.batch_size;
        let writer = {
            let queue = Arc::clone(&queue);
            std::thread::Builder::new()
                .name("hooks-audit-writer".into())
                .spawn(move || queue::run_writer(queue, store, batch_size))
                .map_err(|e| AuditError::Open {
                    path: path.clone(),
                    message: format!("cannot start the writer thread: {e}"),
                })?
        };
        tracing::debug!(path = %path.display(), format = ?config.format, "audit started");
        Ok(Audit {
            inner: Arc::new(Inner {
                enqueue_timeout: Duration::from_millis(config.enqueue_timeout_ms),
                flush_timeout: Duration::from_millis(config.flush_timeout_ms),
                config,
                queue,
                writer: Mutex::new(Some(writer)),
                pending: Mutex::new(HashMap::new()),
                pending_len: AtomicUsize::new(0),
            }),
        })
    }

    /// Add the audit to `builder` as the last provider (order `i32::MAX`), build the hook set
    /// and [`attach`](Audit::attach) to it.
    ///
    /// # Errors
    ///
    /// [`HooksError`] from [`HooksBuilder::build`] (a hook named `builtin.audit` already
    /// there).
    pub fn install(&self, builder: HooksBuilder) -> Result<Hooks, HooksError> {
        let hooks = builder.provider_at(i32::MAX, self.clone()).build()?;
        self.attach(&hooks);
        Ok(hooks)
    }

    /// Subscribe to the hook runs of `hooks`: records them, and the tool calls guards deny.
    /// Call it once per hook set (twice records everything twice).
    pub fn attach(&self, hooks: &Hooks) -> SubscriptionId {
        let inner = Arc::clone(&self.inner);
        hooks.subscribe(move |run| inner.on_run(run))
    }

    /// Set `key` of session `session_id` (AgentFS `kv.set`). Queued like the records, so it
    /// is stored in order with them.
    ///
    /// # Errors
    ///
    /// [`AuditError::Closed`], [`AuditError::WriterDead`], or [`AuditError::Timeout`] when
    /// the queue stayed full for `flush_timeout_ms`.
    pub fn kv_set(&self, session_id: &str, key: &str, value: Value) -> Result<(), AuditError> {
        let msg = Msg::KvSet {
            session: session_id.to_owned(),
            key: key.to_owned(),
            value,
            ts_ms: now_ms(),
        };
        self.inner.call(msg)
    }

    /// The value of `key` in session `session_id` (AgentFS `kv.get`): the last one set,
    /// including sets still queued, and those of earlier runs on the same file.
    ///
    /// # Errors
    ///
    /// As [`kv_set`](Audit::kv_set), and [`AuditError::Write`] if the read failed.
    pub fn kv_get(&self, session_id: &str, key: &str) -> Result<Option<Value>, AuditError> {
        let (reply, answer) = mpsc::sync_channel(1);
        let msg = Msg::KvGet {
            session: session_id.to_owned(),
            key: key.to_owned(),
            reply,
        };
        self.inner.call(msg)?;
        match answer.recv_timeout(self.inner.flush_timeout) {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(e)) => Err(AuditError::Write(e)),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                Err(AuditError::Timeout(self.inner.flush_timeout))
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(AuditError::WriterDead {
                last_error: self.inner.queue.last_error(),
            }),
        }
    }

    /// Record an event of your own (a step of a pipeline, as GWI's `afterStep`), with the
    /// shared fields of `meta` and `detail` (capped at `max_output_bytes`).
    pub fn record_event(&self, meta: &Meta, name: &str, detail: Value) {
        self.inner.event(meta, name, detail);
    }

    /// Wait until every record queued before this call is stored.
    ///
    /// # Errors
    ///
    /// [`AuditError::Lost`] if records were dropped or failed since the previous `flush` or
    /// `close` (each loss is reported once); [`AuditError::WriterDead`];
    /// [`AuditError::Timeout`] after `flush_timeout_ms`.
    pub fn flush(&self) -> Result<(), AuditError> {
        self.inner.queue.wait_processed(self.inner.flush_timeout)?;
        self.inner.queue.take_lost()
    }

    /// Refuse new records, store the queued ones and stop the writer. Later records are
    /// dropped (and counted). Dropping the last handle (the `Hooks` values it is installed in
    /// hold handles too) closes it as well.
    ///
    /// # Errors
    ///
    /// [`AuditError::Lost`] if records were dropped or failed since the previous `flush`.
    pub fn close(&self) -> Result<(), AuditError> {
        self.inner.close();
        self.inner.queue.take_lost()
    }

    /// The counters.
    pub fn stats(&self) -> AuditStats {
        let c = &self.inner.queue.counters;
        AuditStats {
            written: c.written.load(Ordering::Relaxed),
            dropped: c.dropped.load(Ordering::Relaxed),
            failed: c.failed.load(Ordering::Relaxed),
            batches: c.batches.load(Ordering::Relaxed),
            write_errors: c.write_errors.load(Ordering::Relaxed),
            queued: self.inner.queue.queued(),
            last_error: self.inner.queue.last_error(),
        }
    }

    /// The settings.
    pub fn config(&self) -> &AuditConfig {
        &self.inner.config
    }
}

impl std::fmt::Debug for Audit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Audit")
            .field("path", &self.inner.config.path)
            .field("format", &self.inner.config.format)
            .field("stats", &self.stats())
            .finish()
    }
}

impl Inner {
    fn push(&self, record: AuditRecord) {
        // A refused record is counted and logged by the queue; the agent loop goes on.
        let _ = self.queue.push(
            Msg::Record(Box::new(record)),
            Wait::Record(self.enqueue_timeout),
        );
    }

    fn call(&self, msg: Msg) -> Result<(), AuditError> {
        self.queue
            .push(msg, Wait::Call(self.flush_timeout))
            .map_err(|why| match why {
                Refused::Closed => AuditError::Closed,
                Refused::WriterDead => AuditError::WriterDead {
                    last_error: self.queue.last_error(),
                },
                Refused::Full => AuditError::Timeout(self.flush_timeout),
            })
    }

    fn close(&self) {
        self.queue.close();
        let handle = self
            .writer
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(handle) = handle
            && handle.join().is_err()
        {
            tracing::error!("audit writer thread panicked");
        }
    }

    fn capped_value(&self, value: Value) -> Value {
        let c = cap_json(&value, self.config.max_output_bytes);
        if c.truncated {
            Value::String(format!("{}… [{} bytes in all]", c.text, c.bytes))
        } else {
            value
        }
    }

    fn event(&self, meta: &Meta, point: &str, detail: Value) {
        self.push(AuditRecord::Event(EventRecord {
            ts_ms: stamp(meta),
            origin: Origin::of(meta),
            point: point.to_owned(),
            detail: self.capped_value(detail),
        }));
    }

    /// A tool call record without output (denied or asked).
    fn refused_call(
        &self,
        pre: &PreToolUse,
        status: ToolStatus,
        verdict: &str,
        reason: Option<String>,
        by: &str,
    ) {
        let input = cap_json(pre.tool_input.get(), self.config.max_input_bytes);
        let original = pre
            .tool_input
            .is_rewritten()
            .then(|| cap_json(pre.tool_input.original(), self.config.max_input_bytes).text);
        let ts = now_ms();
        self.push(AuditRecord::ToolCall(ToolCallRecord {
            ts_ms: ts,
            started_ms: ts,
            origin: Origin::of(&pre.meta),
            tool_name: pre.tool_name.clone(),
            tool_use_id: pre.tool_use_id.clone(),
            status,
            verdict: verdict.to_owned(),
            reason: reason.map(|r| cap_str(&r, self.config.max_output_bytes).0),
            decided_by: Some(by.to_owned()),
            input: input.text,
            input_truncated: input.truncated,
            original_input: original,
            output: None,
            output_bytes: 0,
            output_truncated: false,
            error: None,
            duration_ms: 0,
        }));
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, HashMap<CallKey, Pending>> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn take_pending(&self, key: &CallKey) -> Option<Pending> {
        if self.pending_len.load(Ordering::Relaxed) == 0 {
            return None;
        }
        let mut map = self.pending();
        let p = map.remove(key);
        self.pending_len.store(map.len(), Ordering::Relaxed);
        p
    }

    /// Remember an allow or ask until the call runs or is denied.
    fn note(&self, key: CallKey, ask: bool, reason: Option<String>, by: &str) {
        let mut map = self.pending();
        if map.len() >= MAX_PENDING {
            tracing::warn!(
                pending = map.len(),
                "audit: too many tool calls asked or allowed but never finished; forgetting them"
            );
            map.clear();
        }
        let fresh = Pending {
            ask,
            reason,
            by: by.to_owned(),
            finished: false,
        };
        match map.entry(key) {
            std::collections::hash_map::Entry::Occupied(mut e) => {
                // Within one chain the stronger verdict wins; an entry of an earlier chain
                // is replaced.
                if e.get().finished || ask || !e.get().ask {
                    e.insert(fresh);
                }
            }
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(fresh);
            }
        }
        self.pending_len.store(map.len(), Ordering::Relaxed);
    }

    /// Every hook run of the hook set (on the dispatching thread).
    fn on_run(&self, run: &HookRun<'_>) {
        if run.hook.as_str() == NAME {
            return;
        }
        let meta = meta_of(run.context);
        if self.config.record_hook_runs && !self.config.skip_points.iter().any(|p| p == run.point) {
            let (outcome, detail) = describe(&run.result);
            self.push(AuditRecord::HookRun(HookRunRecord {
                ts_ms: now_ms(),
                origin: meta.map(Origin::of).unwrap_or_default(),
                point: run.point.to_owned(),
                kind: run.kind.as_str().to_owned(),
                hook: run.hook.as_str().to_owned(),
                source: run.source.as_str().to_owned(),
                duration_us: u64::try_from(run.duration.as_micros()).unwrap_or(u64::MAX),
                outcome: outcome.to_owned(),
                detail: detail.map(|d| cap_str(&d, self.config.max_output_bytes).0),
            }));
        }
        if run.point
            != <hookrail_core::points::pre_tool_use::Point as hookrail_core::HookPoint>::NAME
        {
            return;
        }
        let Some(pre) = run.context.downcast_ref::<PreToolUse>() else {
            return;
        };
        let key = || call_key(&pre.meta, pre.tool_use_id.as_deref(), &pre.tool_name);
        match run.result {
            RunResult::Verdict(Verdict::Deny(reason)) => {
                self.take_pending(&key());
                self.refused_call(
                    pre,
                    ToolStatus::Denied,
                    "deny",
                    Some(reason.to_string()),
                    &run.hook,
                );
            }
            RunResult::Failed {
                cause,
                policy: OnError::Deny,
            } => {
                self.take_pending(&key());
                let reason = format!("hook `{}` failed: {cause}", run.hook);
                self.refused_call(pre, ToolStatus::Denied, "deny", Some(reason), &run.hook);
            }
            RunResult::Verdict(Verdict::Ask(reason)) => {
                self.note(key(), true, Some(reason.to_string()), &run.hook);
            }
            RunResult::Verdict(Verdict::Allow) => self.note(key(), false, None, &run.hook),
            _ => {}
        }
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.close();
        let c = &self.queue.counters;
        let (dropped, failed) = (
            c.dropped.load(Ordering::Relaxed),
            c.failed.load(Ordering::Relaxed),
        );
        if dropped + failed > 0 {
            tracing::warn!(
                path = %self.config.path.display(),
                written = c.written.load(Ordering::Relaxed),
                dropped,
                failed,
                "audit closed with lost records"
            );
        }
    }
}

/// A run's outcome as a word, and its detail.
fn describe(result: &RunResult<'_>) -> (&'static str, Option<String>) {
    match result {
        RunResult::Verdict(v) => match v {
            Verdict::Continue => ("continue", None),
            Verdict::Allow => ("allow", None),
            Verdict::Ask(r) => ("ask", Some(r.to_string())),
            Verdict::Deny(r) => ("deny", Some(r.to_string())),
        },
        RunResult::Recovery(Some(r)) => (
            "recovery",
            Some(serde_json::to_string(r).unwrap_or_else(|_| format!("{r:?}"))),
        ),
        RunResult::Recovery(None) => ("no_recovery", None),
        RunResult::Done => ("done", None),
        RunResult::Failed { cause, policy } => {
            ("failed", Some(format!("{cause} (on_error: {policy})")))
        }
    }
}

impl HooksProvider for Audit {
    fn name(&self) -> &str {
        NAME
    }

    /// The points of the methods below: the provider is not entered anywhere else.
    fn points(&self) -> PointSet {
        PointSet::SESSION_START
            | PointSet::SESSION_END
            | PointSet::PRE_TOOL_USE
            | PointSet::POST_TOOL_USE
    }

    fn session_start(&self, ctx: &mut SessionStart) -> HookResult<()> {
        let detail = json!({
            "model": ctx.model,
            "source": ctx.source,
            "invocation_source": ctx.meta.source,
        });
        self.inner.event(&ctx.meta, "session_start", detail);
        Ok(())
    }

    fn session_end(&self, ctx: &SessionEnd) -> HookResult<()> {
        let detail = json!({
            "reason": ctx.reason,
            "success": ctx.success,
            "tokens": ctx.tokens,
            "tool_calls": ctx.tool_calls,
            "files_modified": ctx.files_modified,
            "duration_ms": ctx.duration_ms,
        });
        self.inner.event(&ctx.meta, "session_end", detail);
        Ok(())
    }

    fn pre_tool_use(&self, ctx: &mut PreToolUse) -> HookResult<Verdict> {
        // Last in the chain: an ask seen earlier was not overruled by a deny.
        if self.inner.pending_len.load(Ordering::Relaxed) > 0 {
            let key = call_key(&ctx.meta, ctx.tool_use_id.as_deref(), &ctx.tool_name);
            let asked = {
                let mut map = self.inner.pending();
                let asked = match map.get_mut(&key) {
                    Some(p) if p.finished => {
                        map.remove(&key);
                        None
                    }
                    Some(p) => {
                        p.finished = true;
                        p.ask.then(|| (p.reason.clone(), p.by.clone()))
                    }
                    None => None,
                };
                self.inner.pending_len.store(map.len(), Ordering::Relaxed);
                asked
            };
            if let Some((reason, by)) = asked {
                self.inner
                    .refused_call(ctx, ToolStatus::Asked, "ask", reason, &by);
            }
        }
        Ok(Verdict::Continue)
    }

    fn post_tool_use(&self, ctx: &mut PostToolUse) -> HookResult<()> {
        let cfg = &self.inner.config;
        let pending = self.inner.take_pending(&call_key(
            &ctx.meta,
            ctx.tool_use_id.as_deref(),
            &ctx.tool_name,
        ));
        let (verdict, reason, by) = match pending {
            Some(p) => (if p.ask { "ask" } else { "allow" }, p.reason, Some(p.by)),
            None => ("continue", None, None),
        };
        let input = cap_json(&ctx.tool_input, cfg.max_input_bytes);
        let output = cap_json(&ctx.tool_response, cfg.max_output_bytes);
        let ts = stamp(&ctx.meta);
        self.inner.push(AuditRecord::ToolCall(ToolCallRecord {
            ts_ms: ts,
            started_ms: ts.saturating_sub(ctx.duration_ms),
            origin: Origin::of(&ctx.meta),
            tool_name: ctx.tool_name.clone(),
            tool_use_id: ctx.tool_use_id.clone(),
            status: if ctx.is_error() {
                ToolStatus::Error
            } else {
                ToolStatus::Ok
            },
            verdict: verdict.to_owned(),
            reason,
            decided_by: by,
            input: input.text,
            input_truncated: input.truncated,
            original_input: ctx
                .original_tool_input
                .as_ref()
                .map(|v| cap_json(v, cfg.max_input_bytes).text),
            output: Some(output.text),
            output_bytes: output.bytes,
            output_truncated: output.truncated,
            error: ctx
                .error
                .as_deref()
                .map(|e| cap_str(e, cfg.max_output_bytes).0),
            duration_ms: ctx.duration_ms,
        }));
        Ok(())
    }
}

#[cfg(test)]
mod tests;
