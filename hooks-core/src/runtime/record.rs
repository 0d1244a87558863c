//! The record of each hook run, for `tracing` and in-process subscribers.

use std::any::Any;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Duration;

use crate::kind::KindId;
use crate::outcome::{FailureCause, HookName, OnError, Recovery, Verdict};

use super::hook::HookSource;

/// One hook run at one point, as delivered to subscribers ([`Hooks::subscribe`](super::Hooks::subscribe))
/// and logged with `tracing`.
#[derive(Debug)]
#[non_exhaustive]
pub struct HookRun<'a> {
    /// The point's name.
    pub point: &'static str,
    /// The point's kind.
    pub kind: KindId,
    /// The hook's name.
    pub hook: HookName,
    /// Where the hook came from.
    pub source: HookSource,
    /// How long it ran (for an async hook: until its future finished or timed out).
    pub duration: Duration,
    /// What it returned, or how it failed.
    pub result: RunResult<'a>,
    /// The context after the hook ran: downcast it to the point's context type
    /// (`run.context.downcast_ref::<PreToolUse>()`).
    pub context: &'a (dyn Any + Send + Sync),
}

/// What one hook run produced.
#[derive(Debug, Clone, Copy)]
pub enum RunResult<'a> {
    /// A guard's verdict.
    Verdict(&'a Verdict),
    /// A recoverer's answer.
    Recovery(Option<&'a Recovery>),
    /// A transform or an observer finished.
    Done,
    /// The hook failed; `policy` is the failure policy that was applied.
    Failed {
        /// What went wrong.
        cause: &'a FailureCause,
        /// Fail closed or open.
        policy: OnError,
    },
}

impl RunResult<'_> {
    /// True when the hook failed.
    pub fn is_failure(&self) -> bool {
        matches!(self, RunResult::Failed { .. })
    }
}

impl fmt::Display for RunResult<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunResult::Verdict(v) => write!(f, "{v}"),
            RunResult::Recovery(Some(r)) => write!(f, "{r:?}"),
            RunResult::Recovery(None) => f.write_str("no recovery"),
            RunResult::Done => f.write_str("done"),
            RunResult::Failed { cause, policy } => write!(f, "failed ({policy}): {cause}"),
        }
    }
}

/// Identifies a subscription, to remove it with [`Hooks::unsubscribe`](super::Hooks::unsubscribe).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SubscriptionId(pub(crate) u64);

pub(crate) type SubscriberFn = Arc<dyn Fn(&HookRun<'_>) + Send + Sync>;

#[derive(Clone)]
pub(crate) struct Subscriber {
    pub(crate) id: SubscriptionId,
    /// `None`: every point.
    pub(crate) point: Option<&'static str>,
    pub(crate) f: SubscriberFn,
}

/// Deliver a run to the log and the subscribers. A panicking subscriber is logged and does not
/// disturb the dispatch or the other subscribers.
pub(crate) fn deliver(run: &HookRun<'_>, subscribers: &[Subscriber], debug: bool) {
    // `tracing` levels are static per call site: one site per level, same fields.
    macro_rules! log_run {
        ($level:ident) => {
            tracing::$level!(
                point = run.point,
                hook = %run.hook,
                source = %run.source,
                duration_us = run.duration.as_micros() as u64,
                result = %run.result,
                "hook run"
            )
        };
    }
    if debug {
        log_run!(info);
    } else {
        log_run!(debug);
    }
    for s in subscribers {
        if s.point.is_none_or(|p| p == run.point)
            && catch_unwind(AssertUnwindSafe(|| (s.f)(run))).is_err()
        {
            tracing::error!(
                point = run.point,
                hook = %run.hook,
                subscription = s.id.0,
                "a hook-run subscriber panicked"
            );
        }
    }
}
