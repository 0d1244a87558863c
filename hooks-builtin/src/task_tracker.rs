//! `task-tracker`: a tracking task per non-trivial session, created, updated and closed
//! through a command (`bd`, the [Beads](https://github.com/steveyegge/beads) CLI, by
//! default): seed 001's `BeadsHook`.
//!
//! # Points and heuristics
//!
//! Seed 001 avoids spamming the tracker with these rules, here mapped to the hook points:
//!
//! | seed 001 condition | here | action |
//! |---|---|---|
//! | run type AUTOPILOT or RESOLVE | `session_start` of an agent in `eager_agents` (default `autopilot`, `resolve`; any case) | create the tracking task |
//! | complexity ≥ 3 | `step_end` or `session_end` once the session's complexity reaches `complexity_threshold` (3) | create the task if there is none, mark it `in_progress` |
//! | step failed | `step_end` with status `failed` (with `track_failures`) | create the task if there is none, mark it `blocked` with the step and its summary |
//! | partial success | `step_end` with status `partial` (with `follow_ups`) | create a follow-up task |
//! | deferred work detected | `step_end` whose output summary contains a `deferred_markers` word (`TODO`, `FIXME`, `deferred`, `follow-up`, `out of scope`, …; whole words, any case; with `follow_ups`) | create a follow-up task (once per summary per session) |
//! | simple completion | `session_end`, successful, complexity below the threshold, no task | nothing (counted in `untracked_sessions`) |
//!
//! and at `session_end`: a session with a task closes it when it succeeded and marks it
//! `blocked` when it did not; a failed session without a task gets one, created and marked
//! `blocked` (with `track_failures`); a successful session without a task whose final
//! complexity reaches the threshold gets one, created and closed, as a record of the work.
//! A step that completes after a failure marks the task `in_progress` again.
//!
//! The **complexity** of a session is the number of steps that finished (`step_end`, any status
//! but `skipped`) + the number of files it modified (known at `session_end`) + its tool calls
//! divided by `tool_calls_per_point` (10; 0 leaves tool calls out). Subagent steps share their
//! parent's session id and count toward it.
//!
//! # Commands
//!
//! Each action runs `program` (default `bd`, looked up on `PATH`; give a bare name or an
//! absolute path) with an argument template, as an argv, never through a shell, so a title
//! with quotes, `;` or `$(…)` is one argument and nothing else. The defaults are seed 001's
//! commands with `--json`:
//!
//! ```text
//! create:  bd create {title} -t task -p {priority} --description {description} --json
//! start:   bd update {id} --status in_progress --json
//! block:   bd update {id} --status blocked --notes {reason} --json
//! close:   bd close {id} --reason {reason} --json
//! ```
//!
//! Placeholders: `{title}`, `{description}`, `{priority}`, `{id}` (the session's task),
//! `{session}`, `{agent}`, `{tenant}`, `{reason}`; an unknown one is a [`ConfigError`]. Values
//! have control characters and newlines turned into spaces and are length-capped, and a value
//! that begins an argument loses its leading dashes (an agent named `--db=/x` cannot pass an
//! option). An empty `start_args`, `block_args` or `close_args` turns that action off. A
//! command that uses `{id}` is skipped (counted in `skipped`) when the session has no id
//! because its create command failed or printed none.
//!
//! The id is read from the create command's standard output: the `id` field of the JSON
//! object `bd create --json` prints (or of the first object of an array), else the first word
//! shaped like an id (`bd-a1b2`, `PROJ-12`). Commands run in the project root
//! ([`meta.project_root()`](hookrail_core::context::Meta::project_root)),
//! where `bd` finds its `.beads` database.
//!
//! # Off the agent loop, never failing the run
//!
//! Hooks only queue commands (a bounded queue, `queue_capacity`, default 256; a full queue
//! drops the command and counts it), so the agent never waits for the tracker. One worker
//! thread per tracker, started on first use, runs them in order, each for at most `timeout_ms`
//! (default 5000, seed 001's hook timeout), after which the command and its process group are
//! killed. A command that is not installed is reported by **one** warning per tracker, and
//! the tracker stops trying it; a command that exits non-zero or times out is logged at warn
//! and counted. None of this reaches the agent: every hook returns normally.
//!
//! [`TaskTracker`] is a cheap handle (clones share the queue): keep one to read
//! [`stats`](TaskTracker::stats), and call [`close`](TaskTracker::close) (or
//! [`flush`](TaskTracker::flush)) before the process exits so that the last close commands
//! run. The worker logs to the `tracing` subscriber that was current when the tracker was
//! built.
//!
//! # Example
//!
//! ```
//! use hookrail_builtin::task_tracker::{TaskTracker, TaskTrackerConfig};
//! use hookrail_core::context::{Meta, SessionEndReason};
//! use hookrail_core::runtime::{Hooks, Session};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let tracker = TaskTracker::new(TaskTrackerConfig {
//!     program: "bd-is-not-installed-here".into(),
//!     ..TaskTrackerConfig::default()
//! })?;
//! let hooks = Hooks::builder().ignore_env().provider_at(100, tracker.clone()).build()?;
//!
//! // An autopilot run is tracked from its start; without `bd` the run still succeeds.
//! let session = Session::start(hooks, Meta::new("run-1").with_agent("autopilot"), "m").await?;
//! session.end(SessionEndReason::Completed, true).await;
//! tracker.close();
//! let stats = tracker.stats();
//! assert_eq!((stats.queued, stats.unavailable, stats.failed), (2, 2, 0));
//! # Ok(())
//! # }
//! ```

mod command;
mod template;
mod worker;

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use hookrail_core::HookResult;
use hookrail_core::context::{Meta, SessionEnd, SessionStart, StepEnd, StepStatus};
use hookrail_core::runtime::{HooksProvider, PointSet};
use serde::{Deserialize, Serialize};

use crate::ConfigError;
use template::{Template, Var, clean};
use worker::{Action, Cmd, Job, Shared, Vars, bump};

/// The policy's name in config files and errors.
pub const POLICY: &str = "task_tracker";

const MAX_TITLE_CHARS: usize = 200;
const MAX_TEXT_CHARS: usize = 1000;
const MAX_NAME_CHARS: usize = 120;
/// Longest step summary quoted in a follow-up title.
const MAX_SUMMARY_CHARS: usize = 120;

/// Settings of [`TaskTracker`].
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct TaskTrackerConfig {
    /// The tracker's command: a bare name looked up on `PATH`, or an absolute path. Default:
    /// `bd`.
    pub program: String,
    /// Arguments that create a task (the tracking task and follow-ups); must not be empty.
    /// Default: `create {title} -t task -p {priority} --description {description} --json`.
    pub create_args: Vec<String>,
    /// Arguments that mark the tracking task in progress; empty turns this off. Default:
    /// `update {id} --status in_progress --json`.
    pub start_args: Vec<String>,
    /// Arguments that mark the tracking task blocked; empty turns this off. Default:
    /// `update {id} --status blocked --notes {reason} --json`.
    pub block_args: Vec<String>,
    /// Arguments that close the tracking task; empty turns this off. Default:
    /// `close {id} --reason {reason} --json`.
    pub close_args: Vec<String>,
    /// The tracking task's title (`{agent}`, `{session}`, `{tenant}`). Default:
    /// `{agent}: session {session}`.
    pub title: String,
    /// A follow-up task's title (`{reason}` is the step's summary). Default:
    /// `Follow-up from {agent}: {reason}`.
    pub follow_up_title: String,
    /// `{priority}` of the tracking task (Beads: 0 highest … 4). Default: 1.
    pub priority: u8,
    /// `{priority}` of follow-up tasks. Default: 2.
    pub follow_up_priority: u8,
    /// Agents whose sessions are tracked from their start, compared without case (seed 001's
    /// AUTOPILOT and RESOLVE run types). Default: `autopilot`, `resolve`.
    pub eager_agents: Vec<String>,
    /// The complexity from which a session is tracked (0: every session). Default: 3.
    pub complexity_threshold: u32,
    /// Tool calls that count one complexity point (0: tool calls do not count). Default: 10.
    pub tool_calls_per_point: u32,
    /// Track failed steps and failed sessions. Default: true.
    pub track_failures: bool,
    /// Create follow-up tasks for partial steps and deferred work. Default: true.
    pub follow_ups: bool,
    /// Words or phrases that mark deferred work in a step's output summary (whole words, any
    /// case). Default: `TODO`, `FIXME`, `deferred`, `follow-up`, `follow up`, `out of scope`,
    /// `not yet implemented`, `left for later`, `postponed`.
    pub deferred_markers: Vec<String>,
    /// How long one command may run before it is killed, in milliseconds (1 ..= 600000).
    /// Default: 5000.
    pub timeout_ms: u64,
    /// How many commands may wait for the worker; more are dropped and counted (1 ..=
    /// 1000000). Default: 256.
    pub queue_capacity: usize,
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

impl Default for TaskTrackerConfig {
    fn default() -> Self {
        TaskTrackerConfig {
            program: "bd".into(),
            create_args: strings(&[
                "create",
                "{title}",
                "-t",
                "task",
                "-p",
                "{priority}",
                "--description",
                "{description}",
                "--json",
            ]),
            start_args: strings(&["update", "{id}", "--status", "in_progress", "--json"]),
            block_args: strings(&[
                "update", "{id}", "--status", "blocked", "--notes", "{reason}", "--json",
            ]),
            close_args: strings(&["close", "{id}", "--reason", "{reason}", "--json"]),
            title: "{agent}: session {session}".into(),
            follow_up_title: "Follow-up from {agent}: {reason}".into(),
            priority: 1,
            follow_up_priority: 2,
            eager_agents: strings(&["autopilot", "resolve"]),
            complexity_threshold: 3,
            tool_calls_per_point: 10,
            track_failures: true,
            follow_ups: true,
            deferred_markers: strings(&[
                "TODO",
                "FIXME",
                "deferred",
                "follow-up",
                "follow up",
                "out of scope",
                "not yet implemented",
                "left for later",
                "postponed",
            ]),
            timeout_ms: 5000,
            queue_capacity: 256,
        }
    }
}

/// What a [`TaskTracker`] has done so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct TaskTrackerStats {
    /// Commands queued for the worker.
    pub queued: u64,
    /// Commands dropped: the queue was full, or the tracker was closed.
    pub dropped: u64,
    /// Commands whose process started.
    pub ran: u64,
    /// Commands that exited with status 0.
    pub succeeded: u64,
    /// Commands that exited non-zero or were ended by a signal, or could not be started or
    /// waited for (other than not found).
    pub failed: u64,
    /// Commands killed at the timeout.
    pub timed_out: u64,
    /// Commands not run because the program is not installed.
    pub unavailable: u64,
    /// Commands not run because they need the id of a task whose creation failed.
    pub skipped: u64,
    /// Tasks created (tracking and follow-up) whose id was read.
    pub created: u64,
    /// Create commands that succeeded but printed no id.
    pub missing_ids: u64,
    /// Sessions that ended without a tracking task (simple completions, or failures with
    /// `track_failures` off).
    pub untracked_sessions: u64,
}

/// The tracking task's state, as the hooks last set it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum TaskState {
    /// Not created yet.
    #[default]
    None,
    Open,
    InProgress,
    Blocked,
}

/// What the hooks know about a running session.
#[derive(Debug, Default)]
struct Track {
    task: TaskState,
    steps: u64,
    tool_calls: u64,
    /// Keys of the follow-ups already created.
    follow_ups: HashSet<String>,
}

#[derive(Default)]
struct WorkerSlot {
    tx: Option<SyncSender<Job>>,
    handle: Option<JoinHandle<()>>,
    closed: bool,
}

struct Inner {
    config: TaskTrackerConfig,
    title: Template,
    follow_up_title: Template,
    eager: Vec<String>,
    markers: Vec<String>,
    shared: Arc<Shared>,
    dispatch: tracing::Dispatch,
    slot: Mutex<WorkerSlot>,
    sessions: Mutex<HashMap<Arc<str>, Track>>,
    warned_full: AtomicBool,
}

/// The `task-tracker` policy: see the [module docs](self). Clones share one queue, worker and
/// counters.
#[derive(Clone)]
pub struct TaskTracker {
    inner: Arc<Inner>,
}

impl fmt::Debug for TaskTracker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskTracker")
            .field("program", &self.inner.config.program)
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn templates(args: &[String], field: &'static str) -> Result<Vec<Template>, ConfigError> {
    args.iter()
        .enumerate()
        .map(|(i, a)| {
            Template::parse(a, Var::ALL)
                .map_err(|m| ConfigError::new(POLICY, format!("{field}[{i}]"), m))
        })
        .collect()
}

impl TaskTracker {
    /// Checks and compiles `config`. The worker thread starts when the first command is
    /// queued.
    ///
    /// # Errors
    ///
    /// A [`ConfigError`] naming the field: an empty `program` or `create_args`, an unknown
    /// placeholder, a timeout or queue capacity out of range, an empty deferred marker.
    pub fn new(config: TaskTrackerConfig) -> Result<Self, ConfigError> {
        let err = |field: &'static str, msg: &str| ConfigError::new(POLICY, field, msg);
        if config.program.trim().is_empty() || config.program.contains('\0') {
            return Err(err("program", "must be a command name or path"));
        }
        if config.create_args.is_empty() {
            return Err(err(
                "create_args",
                "must not be empty: tasks could not be created",
            ));
        }
        if !(1..=600_000).contains(&config.timeout_ms) {
            return Err(err("timeout_ms", "must be between 1 and 600000"));
        }
        if !(1..=1_000_000).contains(&config.queue_capacity) {
            return Err(err("queue_capacity", "must be between 1 and 1000000"));
        }
        if let Some(i) = config
            .deferred_markers
            .iter()
            .position(|m| m.trim().is_empty())
        {
            return Err(ConfigError::new(
                POLICY,
                format!("deferred_markers[{i}]"),
                "must not be empty",
            ));
        }
        let title = Template::parse(&config.title, Var::TITLE).map_err(|m| err("title", &m))?;
        let follow_up_title = Template::parse(&config.follow_up_title, Var::TITLE)
            .map_err(|m| err("follow_up_title", &m))?;
        let shared = Arc::new(Shared {
            program: config.program.clone(),
            create: templates(&config.create_args, "create_args")?,
            start: templates(&config.start_args, "start_args")?,
            block: templates(&config.block_args, "block_args")?,
            close: templates(&config.close_args, "close_args")?,
            timeout: Duration::from_millis(config.timeout_ms),
            stats: worker::Counters::default(),
            missing: AtomicBool::new(false),
        });
        let inner = Inner {
            eager: config
                .eager_agents
                .iter()
                .map(|a| a.to_lowercase())
                .collect(),
            markers: config
                .deferred_markers
                .iter()
                .map(|m| m.trim().to_lowercase())
                .collect(),
            title,
            follow_up_title,
            shared,
            dispatch: tracing::dispatcher::get_default(Clone::clone),
            slot: Mutex::new(WorkerSlot::default()),
            sessions: Mutex::new(HashMap::new()),
            warned_full: AtomicBool::new(false),
            config,
        };
        Ok(TaskTracker {
            inner: Arc::new(inner),
        })
    }

    /// The settings.
    pub fn config(&self) -> &TaskTrackerConfig {
        &self.inner.config
    }

    /// The counters so far.
    pub fn stats(&self) -> TaskTrackerStats {
        self.inner.shared.stats.snapshot()
    }

    /// Waits until every command queued before this call has run (or timed out). Returns at
    /// once when nothing was ever queued or the tracker is closed. Not for the agent loop: it
    /// may wait up to `timeout_ms` per queued command.
    pub fn flush(&self) {
        let Some(tx) = lock(&self.inner.slot).tx.clone() else {
            return;
        };
        let (done_tx, done_rx) = mpsc::sync_channel(1);
        if tx.send(Job::Flush(done_tx)).is_ok() {
            let _ = done_rx.recv();
        }
    }

    /// Stops accepting commands (later ones are dropped and counted), runs those already
    /// queued and stops the worker. Waits like [`flush`](Self::flush); calling it again does
    /// nothing.
    pub fn close(&self) {
        let handle = {
            let mut slot = lock(&self.inner.slot);
            slot.closed = true;
            slot.tx = None;
            slot.handle.take()
        };
        if let Some(handle) = handle
            && handle.join().is_err()
        {
            tracing::error!(policy = POLICY, "the tracker's worker thread panicked");
        }
    }

    /// Queues `jobs`, starting the worker if needed; drops (and counts) what does not fit.
    fn enqueue(&self, jobs: Vec<Job>) {
        let inner = &self.inner;
        let stats = &inner.shared.stats;
        let mut slot = lock(&inner.slot);
        if slot.tx.is_none() && !slot.closed {
            self.start_worker(&mut slot);
        }
        for job in jobs {
            let is_command = matches!(job, Job::Run(_));
            let Some(tx) = &slot.tx else {
                if is_command {
                    bump(&stats.dropped);
                    tracing::debug!(
                        policy = POLICY,
                        "tracker command dropped: the tracker is closed"
                    );
                }
                continue;
            };
            match tx.try_send(job) {
                Ok(()) if is_command => bump(&stats.queued),
                Ok(()) => {}
                Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) if is_command => {
                    bump(&stats.dropped);
                    if inner.warned_full.swap(true, Ordering::Relaxed) {
                        tracing::debug!(
                            policy = POLICY,
                            "tracker command dropped: the queue is full"
                        );
                    } else {
                        tracing::warn!(
                            policy = POLICY,
                            capacity = inner.config.queue_capacity,
                            "tracker commands are being dropped: the queue is full (the tracker is slower than the agent)"
                        );
                    }
                }
                Err(_) => {}
            }
        }
    }

    fn start_worker(&self, slot: &mut WorkerSlot) {
        let (tx, rx) = mpsc::sync_channel(self.inner.config.queue_capacity);
        let shared = Arc::clone(&self.inner.shared);
        let dispatch = self.inner.dispatch.clone();
        let spawned = thread::Builder::new()
            .name("task-tracker".into())
            .spawn(move || {
                tracing::dispatcher::with_default(&dispatch, || worker::work(&shared, &rx))
            });
        match spawned {
            Ok(handle) => {
                slot.tx = Some(tx);
                slot.handle = Some(handle);
            }
            Err(e) => {
                // Without a worker nothing can run: stay closed rather than retry per event.
                slot.closed = true;
                tracing::error!(policy = POLICY, error = %e, "the tracker's worker thread could not start; task tracking is off");
            }
        }
    }

    fn vars(&self, meta: &Meta, priority: u8) -> Vars {
        Vars {
            title: String::new(),
            description: String::new(),
            priority: priority.to_string(),
            session: Arc::clone(&meta.session_id),
            agent: clean(&meta.agent_name, MAX_NAME_CHARS),
            tenant: meta
                .tenant
                .as_deref()
                .map(|t| clean(t, MAX_NAME_CHARS))
                .unwrap_or_default(),
            reason: String::new(),
            // `bd` finds the project's database there, wherever the event says the agent runs.
            cwd: Arc::from(meta.project_root()),
        }
    }

    fn title(&self, template: &Template, vars: &Vars, reason: &str) -> String {
        let session = clean(&vars.session, MAX_NAME_CHARS);
        let text = template.render(|v| match v {
            Var::Agent => &vars.agent,
            Var::Session => &session,
            Var::Tenant => &vars.tenant,
            Var::Reason => reason,
            _ => "",
        });
        clean(&text, MAX_TITLE_CHARS)
    }

    fn cmd(&self, action: Action, meta: &Meta, reason: &str) -> Cmd {
        let mut vars = self.vars(meta, self.inner.config.priority);
        vars.reason = clean(reason, MAX_TEXT_CHARS);
        Cmd { action, vars }
    }

    /// The tracking task's create command, if it does not exist yet.
    fn ensure_task(&self, track: &mut Track, meta: &Meta, why: &str, out: &mut Vec<Cmd>) {
        if track.task != TaskState::None {
            return;
        }
        let mut vars = self.vars(meta, self.inner.config.priority);
        vars.title = self.title(&self.inner.title, &vars, "");
        let tenant = meta
            .tenant
            .as_deref()
            .map(|t| format!(", tenant `{t}`"))
            .unwrap_or_default();
        vars.description = clean(
            &format!(
                "Tracking task of agent `{}`, session `{}`{tenant}, created by hookrail-builtin task-tracker: {why}.",
                meta.agent_name, meta.session_id
            ),
            MAX_TEXT_CHARS,
        );
        out.push(Cmd {
            action: Action::Create,
            vars,
        });
        track.task = TaskState::Open;
    }

    /// A follow-up task's create command, unless one was made for the same summary.
    fn follow_up(
        &self,
        track: &mut Track,
        meta: &Meta,
        step: &str,
        what: &str,
        summary: &str,
        out: &mut Vec<Cmd>,
    ) {
        let summary = if summary.trim().is_empty() {
            step
        } else {
            summary
        };
        if !track
            .follow_ups
            .insert(clean(summary, MAX_TEXT_CHARS).to_lowercase())
        {
            return;
        }
        let mut vars = self.vars(meta, self.inner.config.follow_up_priority);
        vars.title = self.title(
            &self.inner.follow_up_title,
            &vars,
            &clean(summary, MAX_SUMMARY_CHARS),
        );
        vars.description = clean(
            &format!(
                "Found by agent `{}` in session `{}`, step `{step}` ({what}): {summary}",
                meta.agent_name, meta.session_id
            ),
            MAX_TEXT_CHARS,
        );
        vars.reason = clean(summary, MAX_TEXT_CHARS);
        out.push(Cmd {
            action: Action::FollowUp,
            vars,
        });
    }

    fn enabled(&self, action: Action) -> bool {
        !self.inner.shared.templates(action).is_empty()
    }

    fn push(&self, out: &mut Vec<Cmd>, cmd: Cmd) {
        if self.enabled(cmd.action) {
            out.push(cmd);
        }
    }

    fn complexity(&self, steps: u64, files: u64, tool_calls: u64) -> u64 {
        let per = u64::from(self.inner.config.tool_calls_per_point);
        let calls = tool_calls.checked_div(per).unwrap_or(0);
        steps.saturating_add(files).saturating_add(calls)
    }

    /// Whether `summary` mentions deferred work: a marker as a whole word or phrase.
    fn deferred(&self, summary: &str) -> bool {
        let lower = summary.to_lowercase();
        self.inner.markers.iter().any(|m| contains_word(&lower, m))
    }

    fn plan_start(&self, meta: &Meta) -> Vec<Cmd> {
        let mut track = Track::default();
        let mut out = Vec::new();
        let agent = meta.agent_name.to_lowercase();
        if self.inner.eager.contains(&agent) {
            self.ensure_task(
                &mut track,
                meta,
                "its agent is tracked from the start",
                &mut out,
            );
        }
        lock(&self.inner.sessions).insert(Arc::clone(&meta.session_id), track);
        out
    }

    fn plan_step(&self, ctx: &StepEnd) -> Vec<Cmd> {
        let config = &self.inner.config;
        let meta = &ctx.meta;
        let mut sessions = lock(&self.inner.sessions);
        let track = sessions.entry(Arc::clone(&meta.session_id)).or_default();
        let mut out = Vec::new();
        if ctx.status != StepStatus::Skipped {
            track.steps += 1;
        }
        track.tool_calls = track.tool_calls.saturating_add(u64::from(ctx.tool_calls));
        let summary = ctx.output_summary.as_deref().unwrap_or("");
        let step = clean(&ctx.step_id, MAX_NAME_CHARS);
        match ctx.status {
            StepStatus::Failed if config.track_failures => {
                let why = format!("step `{step}` failed");
                self.ensure_task(track, meta, &why, &mut out);
                let reason = if summary.is_empty() {
                    why
                } else {
                    format!("{why}: {summary}")
                };
                self.push(&mut out, self.cmd(Action::Block, meta, &reason));
                track.task = TaskState::Blocked;
            }
            StepStatus::Partial if config.follow_ups => {
                self.follow_up(track, meta, &step, "finished partially", summary, &mut out);
            }
            StepStatus::Completed if track.task == TaskState::Blocked => {
                let reason = format!("step `{step}` completed after a failure");
                self.push(&mut out, self.cmd(Action::Start, meta, &reason));
                track.task = TaskState::InProgress;
            }
            _ => {}
        }
        if config.follow_ups && ctx.status != StepStatus::Partial && self.deferred(summary) {
            self.follow_up(track, meta, &step, "deferred work", summary, &mut out);
        }
        let score = self.complexity(track.steps, 0, track.tool_calls);
        let threshold = u64::from(config.complexity_threshold);
        if matches!(track.task, TaskState::None | TaskState::Open) && score >= threshold {
            let why = format!("its complexity reached {score} (threshold {threshold})");
            self.ensure_task(track, meta, &why, &mut out);
            self.push(&mut out, self.cmd(Action::Start, meta, &why));
            track.task = TaskState::InProgress;
        }
        out
    }

    fn plan_end(&self, ctx: &SessionEnd) -> (Vec<Cmd>, bool) {
        let config = &self.inner.config;
        let meta = &ctx.meta;
        let mut track = lock(&self.inner.sessions)
            .remove(&meta.session_id)
            .unwrap_or_default();
        let tool_calls = track.tool_calls.max(u64::from(ctx.tool_calls));
        let files = u64::try_from(ctx.files_modified.len()).unwrap_or(u64::MAX);
        let score = self.complexity(track.steps, files, tool_calls);
        let threshold = u64::from(config.complexity_threshold);
        let counts = format!(
            "{} steps, {files} files modified, {tool_calls} tool calls",
            track.steps
        );
        let reason = serde_json::to_value(ctx.reason)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_else(|| "other".into());
        let mut out = Vec::new();
        let tracked = if track.task != TaskState::None {
            true
        } else if !ctx.success && config.track_failures {
            self.ensure_task(
                &mut track,
                meta,
                &format!("the session ended ({reason}) without success"),
                &mut out,
            );
            true
        } else if ctx.success && score >= threshold {
            self.ensure_task(
                &mut track,
                meta,
                &format!("a completed session of complexity {score} (threshold {threshold})"),
                &mut out,
            );
            true
        } else {
            false
        };
        if tracked {
            let cmd = if ctx.success {
                self.cmd(
                    Action::Close,
                    meta,
                    &format!("session completed ({reason}): {counts}"),
                )
            } else {
                self.cmd(
                    Action::Block,
                    meta,
                    &format!("session ended ({reason}) without success: {counts}"),
                )
            };
            self.push(&mut out, cmd);
        }
        (out, tracked)
    }
}

/// Whether `needle` occurs in `haystack` with no letter or digit right before or after it.
fn contains_word(haystack: &str, needle: &str) -> bool {
    haystack.match_indices(needle).any(|(at, _)| {
        let before = haystack[..at].chars().next_back();
        let after = haystack[at + needle.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

fn run_jobs(cmds: Vec<Cmd>) -> Vec<Job> {
    cmds.into_iter().map(|c| Job::Run(Box::new(c))).collect()
}

impl HooksProvider for TaskTracker {
    fn name(&self) -> &str {
        "builtin.task_tracker"
    }

    /// The points of the methods below: the provider is not entered anywhere else.
    fn points(&self) -> PointSet {
        PointSet::SESSION_START | PointSet::STEP_END | PointSet::SESSION_END
    }

    fn session_start(&self, ctx: &mut SessionStart) -> HookResult<()> {
        let cmds = self.plan_start(&ctx.meta);
        if !cmds.is_empty() {
            self.enqueue(run_jobs(cmds));
        }
        Ok(())
    }

    fn step_end(&self, ctx: &StepEnd) -> HookResult<()> {
        let cmds = self.plan_step(ctx);
        if !cmds.is_empty() {
            self.enqueue(run_jobs(cmds));
        }
        Ok(())
    }

    fn session_end(&self, ctx: &SessionEnd) -> HookResult<()> {
        let (cmds, tracked) = self.plan_end(ctx);
        if !tracked {
            bump(&self.inner.shared.stats.untracked_sessions);
            tracing::debug!(policy = POLICY, session = %ctx.meta.session_id, "session not tracked: a simple completion");
        }
        let mut jobs = run_jobs(cmds);
        if tracked {
            jobs.push(Job::Forget(Arc::clone(&ctx.meta.session_id)));
        }
        if !jobs.is_empty() {
            self.enqueue(jobs);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
