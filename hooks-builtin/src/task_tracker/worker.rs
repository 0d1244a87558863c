//! The tracker's worker thread: runs queued commands one at a time, in order, so that the id
//! a create command prints is known to the update and close commands queued after it.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender};
use std::time::Duration;

use super::command::{self, RunError};
use super::template::{Template, Var};
use super::{POLICY, TaskTrackerStats};

/// What a command does to the tracker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Action {
    /// Create the session's tracking task (its id is kept for the commands after it).
    Create,
    /// Create a follow-up task (its id is not kept).
    FollowUp,
    /// Mark the tracking task in progress.
    Start,
    /// Mark the tracking task blocked.
    Block,
    /// Close the tracking task.
    Close,
}

/// The values of one command's placeholders (all but `{id}`, which the worker knows).
#[derive(Debug, Clone)]
pub(super) struct Vars {
    pub(super) title: String,
    pub(super) description: String,
    pub(super) priority: String,
    pub(super) session: Arc<str>,
    pub(super) agent: String,
    pub(super) tenant: String,
    pub(super) reason: String,
    pub(super) cwd: Arc<Path>,
}

/// One queued command.
#[derive(Debug, Clone)]
pub(super) struct Cmd {
    pub(super) action: Action,
    pub(super) vars: Vars,
}

/// A queue entry.
pub(super) enum Job {
    Run(Box<Cmd>),
    /// The session ended: drop its task id.
    Forget(Arc<str>),
    /// Answer once everything queued before is done.
    Flush(SyncSender<()>),
}

/// What the worker and the hooks share: the command templates and the counters.
#[derive(Debug)]
pub(super) struct Shared {
    pub(super) program: String,
    pub(super) create: Vec<Template>,
    pub(super) start: Vec<Template>,
    pub(super) block: Vec<Template>,
    pub(super) close: Vec<Template>,
    pub(super) timeout: Duration,
    pub(super) stats: Counters,
    /// Set when the program was not found; later commands are not tried.
    pub(super) missing: AtomicBool,
}

impl Shared {
    pub(super) fn templates(&self, action: Action) -> &[Template] {
        match action {
            Action::Create | Action::FollowUp => &self.create,
            Action::Start => &self.start,
            Action::Block => &self.block,
            Action::Close => &self.close,
        }
    }
}

/// The counters behind [`TaskTrackerStats`].
#[derive(Debug, Default)]
pub(super) struct Counters {
    pub(super) queued: AtomicU64,
    pub(super) dropped: AtomicU64,
    pub(super) ran: AtomicU64,
    pub(super) succeeded: AtomicU64,
    pub(super) failed: AtomicU64,
    pub(super) timed_out: AtomicU64,
    pub(super) unavailable: AtomicU64,
    pub(super) skipped: AtomicU64,
    pub(super) created: AtomicU64,
    pub(super) missing_ids: AtomicU64,
    pub(super) untracked_sessions: AtomicU64,
}

pub(super) fn bump(counter: &AtomicU64) {
    counter.fetch_add(1, Ordering::Relaxed);
}

impl Counters {
    pub(super) fn snapshot(&self) -> TaskTrackerStats {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        TaskTrackerStats {
            queued: get(&self.queued),
            dropped: get(&self.dropped),
            ran: get(&self.ran),
            succeeded: get(&self.succeeded),
            failed: get(&self.failed),
            timed_out: get(&self.timed_out),
            unavailable: get(&self.unavailable),
            skipped: get(&self.skipped),
            created: get(&self.created),
            missing_ids: get(&self.missing_ids),
            untracked_sessions: get(&self.untracked_sessions),
        }
    }
}

/// The worker's loop: until every sender is gone and the queue is empty.
pub(super) fn work(shared: &Shared, jobs: &Receiver<Job>) {
    let mut ids: HashMap<Arc<str>, String> = HashMap::new();
    while let Ok(job) = jobs.recv() {
        match job {
            Job::Run(cmd) => run_one(shared, &mut ids, &cmd),
            Job::Forget(session) => {
                ids.remove(&session);
            }
            Job::Flush(done) => {
                let _ = done.send(());
            }
        }
    }
}

fn run_one(shared: &Shared, ids: &mut HashMap<Arc<str>, String>, cmd: &Cmd) {
    let stats = &shared.stats;
    let templates = shared.templates(cmd.action);
    let id = ids.get(&cmd.vars.session).map(String::as_str);
    if shared.missing.load(Ordering::Relaxed) {
        bump(&stats.unavailable);
        return;
    }
    if id.is_none() && templates.iter().any(|t| t.uses(Var::Id)) {
        bump(&stats.skipped);
        tracing::debug!(policy = POLICY, action = ?cmd.action, session = %cmd.vars.session, "tracker command skipped: the session has no task id");
        return;
    }
    let v = &cmd.vars;
    let value = |var: Var| -> &str {
        match var {
            Var::Title => &v.title,
            Var::Description => &v.description,
            Var::Priority => &v.priority,
            Var::Id => id.unwrap_or(""),
            Var::Session => &v.session,
            Var::Agent => &v.agent,
            Var::Tenant => &v.tenant,
            Var::Reason => &v.reason,
        }
    };
    let args: Vec<String> = templates.iter().map(|t| t.render(value)).collect();
    let program = &shared.program;
    match command::run(program, &args, Some(&v.cwd), shared.timeout) {
        Ok(done) if done.success => {
            bump(&stats.ran);
            bump(&stats.succeeded);
            if matches!(cmd.action, Action::Create | Action::FollowUp) {
                match command::parse_id(&done.stdout) {
                    Some(new_id) => {
                        bump(&stats.created);
                        tracing::debug!(policy = POLICY, action = ?cmd.action, session = %v.session, id = %new_id, "task created");
                        if cmd.action == Action::Create {
                            ids.insert(Arc::clone(&v.session), new_id);
                        }
                    }
                    None => {
                        bump(&stats.missing_ids);
                        tracing::warn!(policy = POLICY, program = %program, session = %v.session, output = %first_line(&done.stdout), "tracker: the create command printed no task id; later updates of this task are skipped");
                    }
                }
            }
        }
        Ok(done) => {
            bump(&stats.ran);
            bump(&stats.failed);
            tracing::warn!(policy = POLICY, program = %program, action = ?cmd.action, session = %v.session, code = ?done.code, stderr = %first_line(&done.stderr), "tracker command failed");
        }
        Err(RunError::NotFound) => {
            bump(&stats.unavailable);
            // One warning per tracker: a machine without the tracker is a normal setup.
            if !shared.missing.swap(true, Ordering::Relaxed) {
                tracing::warn!(policy = POLICY, program = %program, "tracker command not found; task tracking is off for this tracker (install it or set `program`)");
            }
        }
        Err(RunError::TimedOut) => {
            bump(&stats.ran);
            bump(&stats.timed_out);
            tracing::warn!(policy = POLICY, program = %program, action = ?cmd.action, session = %v.session, timeout_ms = u64::try_from(shared.timeout.as_millis()).unwrap_or(u64::MAX), "tracker command timed out and was killed");
        }
        Err(e @ RunError::Wait(_)) => {
            bump(&stats.ran);
            bump(&stats.failed);
            tracing::warn!(policy = POLICY, program = %program, action = ?cmd.action, error = %e, "tracker command failed");
        }
        Err(e @ RunError::Spawn(_)) => {
            bump(&stats.failed);
            tracing::warn!(policy = POLICY, program = %program, action = ?cmd.action, error = %e, "tracker command failed");
        }
    }
}

/// The first non-empty line of `text`, at most 200 characters, for a log line.
fn first_line(text: &str) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    super::template::clean(line, 200)
}
