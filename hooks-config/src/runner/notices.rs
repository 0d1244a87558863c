//! Notices: what the configured hooks of one dispatch want the person to see although it
//! decided nothing (a hook the gate kept from running, where that skip does not deny).
//!
//! A dispatch answers with a verdict and failures; a skip is neither, so it travels beside
//! them: the entry records it in the notices of the dispatch it runs in, and whoever wraps the
//! dispatch in [`collect_notices`] gets them ([`fire`](crate::fire::fire) does, into
//! [`Fired::notices`](crate::fire::Fired::notices), which `claude_answer` shows as
//! `systemMessage`). Per dispatch, not per [`ConfigHooks`](super::ConfigHooks): two
//! dispatches running at once (a long-lived process) never see each other's notices.
//! Outside [`collect_notices`] a notice is only logged (and its
//! [`CommandEvent`](super::CommandEvent) sent), as before.

use std::cell::RefCell;
use std::future::Future;
use std::sync::Arc;

use serde_json::Value;

use super::EnvOverride;
use crate::protocol::Answer;

tokio::task_local! {
    static NOTICES: RefCell<Notes>;
}

/// What configured hooks left in one dispatch, beside its outcome.
#[derive(Debug, Default)]
pub(crate) struct Notes {
    /// Each notice once, in the order they came.
    pub(crate) notices: Vec<String>,
    /// Per point, the id of the configured hook that decided (the core's outcome names only
    /// the entry, `config`).
    pub(crate) decided: Vec<(&'static str, String)>,
    /// The point being fired and the payload it was fired with, as the agent sent it (set
    /// by [`collect_for`]): matchers read their value from it as the agent's own runtime
    /// would, not from the context re-serialized.
    pub(crate) payload: Option<(&'static str, Arc<Value>)>,
    /// The hook input the context made before any hook ran (set by [`collect_for`]): what
    /// differs from it when the configured hooks run is an earlier hook's rewrite.
    pub(crate) baseline: Option<Arc<Value>>,
    /// Per point, the merged answer of the configured hooks (what Claude Code is told beyond
    /// what the context shows: [`crate::fire::claude_answer`]).
    pub(crate) answers: Vec<(&'static str, Answer)>,
    /// The environment this dispatch's hooks get in place of what this process inherited (set
    /// by [`collect_for`]; `None`: the inherited environment as it is).
    pub(crate) env: Option<Arc<EnvOverride>>,
}

impl Notes {
    /// The configured hook that decided at `point`, the last time it was dispatched.
    pub(crate) fn decided_at(&self, point: &str) -> Option<&str> {
        self.decided
            .iter()
            .rev()
            .find(|(p, _)| *p == point)
            .map(|(_, id)| id.as_str())
    }

    /// The configured hooks' answers at `point`, merged in the order they came.
    pub(crate) fn answer_at(&self, point: &str) -> Answer {
        crate::protocol::merge(
            self.answers
                .iter()
                .filter(|(p, _)| *p == point)
                .map(|(_, a)| a.clone()),
        )
        .answer
    }
}

/// Runs `fut` (a dispatch, or anything that dispatches) and returns, with its output, the
/// notices configured hooks left during it: each once, in the order they came.
///
/// The notices are kept per task: the dispatch must be awaited inside `fut`, not spawned.
///
/// ```
/// use hookrail_config::file::{parse_project, Format};
/// use hookrail_config::runner::{collect_notices, ConfigHooks};
/// use hookrail_core::context::{Meta, SessionEnd, SessionEndReason};
/// use hookrail_core::points::session_end;
/// use hookrail_core::runtime::Hooks;
/// use std::path::Path;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let yaml = "enabled: true\nhooks:\n  - { id: report, event_type: SessionEnd, handler: { command: ./report.sh } }\n";
/// let config = parse_project(yaml, Format::Yaml, Path::new("hooks.yaml")).unwrap();
/// let configured = ConfigHooks::builder(dir.path()).build(config)?; // nothing approved
/// let hooks = Hooks::builder().ignore_env().build()?;
/// configured.attach(&hooks)?;
///
/// let mut ctx = SessionEnd::new(Meta::new("s1"), SessionEndReason::Completed, true);
/// let (_, notices) = collect_notices(hooks.dispatch_async::<session_end::Point>(&mut ctx)).await;
/// assert!(notices[0].contains("`report`") && notices[0].contains("hooks trust --approve"), "{notices:?}");
/// # Ok(())
/// # }
/// ```
pub async fn collect_notices<F: Future>(fut: F) -> (F::Output, Vec<String>) {
    let (output, notes) = collect(fut).await;
    (output, notes.notices)
}

/// [`collect_notices`], with which configured hook decided at each point.
pub(crate) async fn collect<F: Future>(fut: F) -> (F::Output, Notes) {
    NOTICES
        .scope(RefCell::new(Notes::default()), async move {
            let output = fut.await;
            let notes = NOTICES.with(|n| n.take());
            (output, notes)
        })
        .await
}

/// [`collect`], for a dispatch of `point` fired with `payload` (what the agent sent), whose
/// context made the hook input `baseline` before any hook ran, and whose configured hooks get
/// `env` in place of what this process inherited. Without a `baseline` (no configured hooks
/// at `point` when it was fired), configured hooks that run all the same (an edit that added
/// them in between) get the context's hook input rather than the payload: [`sent_body`].
pub(crate) async fn collect_for<F: Future>(
    point: &'static str,
    payload: Arc<Value>,
    baseline: Option<Value>,
    env: Option<Arc<EnvOverride>>,
    fut: F,
) -> (F::Output, Notes) {
    let notes = Notes {
        payload: Some((point, payload)),
        baseline: baseline.map(Arc::new),
        env,
        ..Notes::default()
    };
    NOTICES
        .scope(RefCell::new(notes), async move {
            let output = fut.await;
            let mut notes = NOTICES.with(|n| n.take());
            // The dispatch is over: the caller's is then the payload's only reference, which
            // it takes back without copying the payload.
            notes.payload = None;
            (output, notes)
        })
        .await
}

/// The payload the running dispatch of `point` was fired with, if [`collect_for`] is around it.
pub(super) fn payload(point: &str) -> Option<Arc<Value>> {
    NOTICES
        .try_with(|notes| {
            notes
                .borrow()
                .payload
                .as_ref()
                .filter(|(p, _)| *p == point)
                .map(|(_, payload)| Arc::clone(payload))
        })
        .ok()
        .flatten()
}

/// The environment the running dispatch's hooks get in place of what this process inherited,
/// if [`collect_for`] gave one. Read on the dispatching task: the hooks run on tasks of their
/// own, which do not see the dispatch's task-local notes.
pub(super) fn env() -> Option<Arc<EnvOverride>> {
    NOTICES
        .try_with(|notes| notes.borrow().env.clone())
        .ok()
        .flatten()
}

/// The body configured hooks of `point` get in the running dispatch: the payload the agent
/// sent, when [`collect_for`] is around the dispatch and the payload is Claude Code's (it
/// names its `hook_event_name`), with each top-level field that an earlier hook rewrote
/// (`now`, the hook input of the context as it is, differs from the baseline there) taken
/// from `now`. Fields the context adds (`turn`, `timestamp_ms`, …) are not added, and fields
/// it does not know are kept. `None` otherwise: the hooks get `now`.
pub(super) fn sent_body(point: &str, now: &Value) -> Option<Value> {
    let (payload, baseline) = NOTICES
        .try_with(|notes| {
            let notes = notes.borrow();
            let payload = notes
                .payload
                .as_ref()
                .filter(|(p, _)| *p == point)
                .map(|(_, payload)| Arc::clone(payload))?;
            Some((payload, notes.baseline.clone()?))
        })
        .ok()
        .flatten()?;
    payload.get("hook_event_name")?.as_str()?;
    let mut body = Value::clone(&payload);
    let (Some(map), Some(now)) = (body.as_object_mut(), now.as_object()) else {
        return None;
    };
    for (key, value) in now {
        if map.contains_key(key) && baseline.get(key) != Some(value) {
            map.insert(key.clone(), value.clone());
        }
    }
    Some(body)
}

/// Records the merged answer of the configured hooks at `point` in the running dispatch.
pub(super) fn answered(point: &'static str, answer: Answer) {
    let _ = NOTICES.try_with(|notes| notes.borrow_mut().answers.push((point, answer)));
}

/// Records a notice in the dispatch that is running, once; `false` when no
/// [`collect_notices`] is around it.
pub(super) fn push(notice: String) -> bool {
    NOTICES
        .try_with(|notes| {
            let notices = &mut notes.borrow_mut().notices;
            if !notices.contains(&notice) {
                notices.push(notice);
            }
        })
        .is_ok()
}

/// Records that the configured hook `id` decided at `point` in the dispatch that is running
/// (nothing outside [`collect`]).
pub(super) fn decided(point: &'static str, id: String) {
    let _ = NOTICES.try_with(|notes| notes.borrow_mut().decided.push((point, id)));
}
