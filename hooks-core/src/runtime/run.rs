//! Running one point's entries: the sync loop, the async loop with timeouts, concurrent
//! observers.

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use crate::dispatch::{Semantics, panic_cause};
use crate::kind::{BoxFuture, Kind, KindId};
use crate::outcome::{FailureCause, HookResult, OnError, Outcome};
use crate::point::HookPoint;

use super::hook::{Arg, Entry, Ret, Step};
use super::record::{HookRun, RunResult, Subscriber, deliver};
use super::settings::default_timeout;

/// What a run loop needs besides the entries: where records go.
pub(crate) struct Sink<'a> {
    pub(crate) subscribers: &'a [Subscriber],
    pub(crate) debug: bool,
}

impl<P: HookPoint> Entry<P> {
    fn policy(&self) -> OnError {
        self.on_error
            .unwrap_or(OnError::default_for(<P::Kind as Kind>::ID))
    }

    fn limit(&self) -> Duration {
        self.timeout.unwrap_or_else(|| default_timeout(P::NAME))
    }

    /// True when the entry's provider is not enabled for the context's session: the entry is
    /// skipped, with no run record (its one log line was written when the provider answered).
    #[inline]
    fn switched_off(&self, ctx: &P::Context) -> bool {
        match &self.gate {
            None => false,
            Some(gate) => !gate.allows(ctx),
        }
    }
}

/// Record one run and fold its result into the outcome.
fn finish<P: HookPoint>(
    out: &mut Outcome<Ret<P>>,
    e: &Entry<P>,
    started: Instant,
    result: Result<Ret<P>, FailureCause>,
    ctx: &P::Context,
    sink: &Sink<'_>,
) -> std::ops::ControlFlow<()> {
    let duration = started.elapsed();
    let policy = e.policy();
    if !e.callable.is_async() && duration > e.limit() {
        tracing::warn!(
            point = P::NAME,
            hook = %e.name,
            duration_ms = duration.as_millis() as u64,
            timeout_ms = e.limit().as_millis() as u64,
            "a sync hook overran its timeout (sync hooks cannot be interrupted)"
        );
    }
    let run = HookRun {
        point: P::NAME,
        kind: <P::Kind as Kind>::ID,
        hook: e.name,
        source: e.source,
        duration,
        result: match &result {
            Ok(v) => <P::Kind as Semantics>::describe(v),
            Err(cause) => RunResult::Failed { cause, policy },
        },
        context: ctx,
    };
    deliver(&run, sink.subscribers, sink.debug);
    <P::Kind as Semantics>::merge(out, e.name, P::NAME, result, policy)
}

/// Run the entries synchronously: an async entry is a failure
/// ([`FailureCause::AsyncInSyncDispatch`]). Allocates nothing unless a hook fails.
pub(crate) fn run_sync<P: HookPoint>(
    entries: &[Entry<P>],
    ctx: &mut P::Context,
    sink: &Sink<'_>,
) -> Outcome<Ret<P>> {
    let mut out = Outcome::default();
    let mut arg = <P::Kind as Kind>::from_mut(ctx);
    for e in entries {
        if e.switched_off(<P::Kind as Kind>::as_ref(&arg)) {
            continue;
        }
        let started = Instant::now();
        let result = if e.callable.is_async() {
            Err(FailureCause::AsyncInSyncDispatch)
        } else {
            call_sync(e, <P::Kind as Kind>::reborrow(&mut arg))
        };
        let ctx = <P::Kind as Kind>::as_ref(&arg);
        if finish(&mut out, e, started, result, ctx, sink).is_break() {
            break;
        }
    }
    out
}

/// Run the entries one after another, awaiting async ones in place, each bounded by its
/// timeout (guards, transforms, recoverers).
pub(crate) async fn run_in_order<P: HookPoint>(
    entries: &[Entry<P>],
    ctx: &mut P::Context,
    sink: &Sink<'_>,
) -> Outcome<Ret<P>> {
    let mut out = Outcome::default();
    let mut arg = <P::Kind as Kind>::from_mut(ctx);
    for e in entries {
        if e.switched_off(<P::Kind as Kind>::as_ref(&arg)) {
            continue;
        }
        let started = Instant::now();
        let a = <P::Kind as Kind>::reborrow(&mut arg);
        let result = match start(e, a) {
            Ok(Step::Ready(r)) => r.map_err(FailureCause::Error),
            Ok(Step::Pending(fut)) => Timed::new(fut, e.limit(), started).await,
            Err(cause) => Err(cause),
        };
        let ctx = <P::Kind as Kind>::as_ref(&arg);
        if finish(&mut out, e, started, result, ctx, sink).is_break() {
            break;
        }
    }
    out
}

/// Run a sync entry to its result, its panic caught (a future where a result was expected is
/// an async hook in a sync run).
#[inline]
fn call_sync<P: HookPoint>(e: &Entry<P>, arg: Arg<'_, P>) -> Result<Ret<P>, FailureCause> {
    match start(e, arg)? {
        Step::Ready(r) => r.map_err(FailureCause::Error),
        Step::Pending(_) => Err(FailureCause::AsyncInSyncDispatch),
    }
}

/// Start an entry with its panic caught.
#[inline]
fn start<'a, P: HookPoint>(
    e: &Entry<P>,
    arg: Arg<'a, P>,
) -> Result<Step<'a, Ret<P>>, FailureCause> {
    catch_unwind(AssertUnwindSafe(move || e.callable.start(arg))).map_err(panic_cause)
}

/// An async observer in flight: its entry, its start, its bounded future.
type Running<'e, 'a, P> = (&'e Entry<P>, Instant, Timed<'a, Ret<P>>);

/// Run observers: the sync ones first, in order (one that fails closed stops the rest, as in
/// the static dispatcher); then all async ones at once, each bounded by its timeout from the
/// moment it starts.
pub(crate) async fn run_observers<P: HookPoint>(
    entries: &[Entry<P>],
    ctx: &mut P::Context,
    sink: &Sink<'_>,
) -> Outcome<Ret<P>> {
    debug_assert_eq!(<P::Kind as Kind>::ID, KindId::Observe);
    let mut out = Outcome::default();
    let arg = <P::Kind as Kind>::from_mut(ctx);
    let on = |e: &&Entry<P>| !e.switched_off(<P::Kind as Kind>::as_ref(&arg));
    for e in entries.iter().filter(|e| !e.callable.is_async()).filter(on) {
        let started = Instant::now();
        let shared = <P::Kind as Kind>::share(&arg)
            .expect("observers take their context by shared reference");
        let result = call_sync(e, shared);
        let ctx = <P::Kind as Kind>::as_ref(&arg);
        if finish(&mut out, e, started, result, ctx, sink).is_break() {
            return out;
        }
    }
    let mut running: Vec<Running<'_, '_, P>> = Vec::new();
    for e in entries.iter().filter(|e| e.callable.is_async()).filter(on) {
        let started = Instant::now();
        let shared = <P::Kind as Kind>::share(&arg)
            .expect("observers take their context by shared reference");
        match start(e, shared) {
            Ok(Step::Pending(fut)) => {
                running.push((e, started, Timed::new(fut, e.limit(), started)))
            }
            Ok(Step::Ready(r)) => {
                let ctx = <P::Kind as Kind>::as_ref(&arg);
                let _ = finish(
                    &mut out,
                    e,
                    started,
                    r.map_err(FailureCause::Error),
                    ctx,
                    sink,
                );
            }
            Err(cause) => {
                let ctx = <P::Kind as Kind>::as_ref(&arg);
                let _ = finish(&mut out, e, started, Err(cause), ctx, sink);
            }
        }
    }
    if running.is_empty() {
        return out;
    }
    let ctx = <P::Kind as Kind>::as_ref(&arg);
    let mut done = 0;
    std::future::poll_fn(|cx| {
        for slot in running.iter_mut() {
            let (e, started, timed) = slot;
            if timed.is_finished() {
                continue;
            }
            if let Poll::Ready(result) = Pin::new(timed).poll(cx) {
                done += 1;
                // Running together, observers do not stop each other.
                let _ = finish(&mut out, e, *started, result, ctx, sink);
            }
        }
        if done == running.len() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await;
    out
}

/// A tokio timer for `after`, if there is a tokio runtime with its timer enabled. Without one,
/// `tokio::time::sleep` panics: callers run without the timer rather than fail for the
/// caller's choice of executor (the missing timer is logged once per process).
pub(crate) fn tokio_sleep(after: Duration) -> Option<Pin<Box<tokio::time::Sleep>>> {
    static WARNED: AtomicBool = AtomicBool::new(false);
    let sleep = tokio::runtime::Handle::try_current()
        .ok()
        .and_then(|_| catch_unwind(|| Box::pin(tokio::time::sleep(after))).ok());
    if sleep.is_none() && !WARNED.swap(true, Ordering::Relaxed) {
        tracing::warn!(
            "no tokio runtime with its timer enabled: async hooks run without their timeouts \
             and recovery backoffs are skipped"
        );
    }
    sleep
}

/// An async hook's future with its panics caught and its time bounded.
///
/// The timer is armed only when the future first returns `Pending`, so a hook that finishes
/// on its first poll costs no timer at all. The deadline still counts from the hook's start.
/// The future is dropped as soon as it finishes, fails or times out.
pub(crate) struct Timed<'a, T> {
    /// `None` once finished.
    fut: Option<BoxFuture<'a, HookResult<T>>>,
    limit: Duration,
    started: Instant,
    sleep: Option<Pin<Box<tokio::time::Sleep>>>,
    /// No tokio timer is available: the hook runs unbounded.
    no_timer: bool,
}

impl<'a, T> Timed<'a, T> {
    pub(crate) fn new(
        fut: BoxFuture<'a, HookResult<T>>,
        limit: Duration,
        started: Instant,
    ) -> Self {
        Timed {
            fut: Some(fut),
            limit,
            started,
            sleep: None,
            no_timer: false,
        }
    }

    fn is_finished(&self) -> bool {
        self.fut.is_none()
    }

    fn arm(&mut self) {
        if self.sleep.is_some() || self.no_timer {
            return;
        }
        // `sleep` (not `sleep_until` an `Instant` sum) copes with any limit, `Duration::MAX`
        // included, and with a paused tokio clock.
        match tokio_sleep(self.limit.saturating_sub(self.started.elapsed())) {
            Some(sleep) => self.sleep = Some(sleep),
            None => self.no_timer = true,
        }
    }
}

impl<T> Future for Timed<'_, T> {
    type Output = Result<T, FailureCause>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        let Some(fut) = this.fut.as_mut() else {
            return Poll::Pending; // finished: the caller does not poll it again
        };
        let result = match catch_unwind(AssertUnwindSafe(|| fut.as_mut().poll(cx))) {
            Err(payload) => Err(panic_cause(payload)),
            Ok(Poll::Ready(r)) => r.map_err(FailureCause::Error),
            Ok(Poll::Pending) => {
                this.arm();
                let expired = this
                    .sleep
                    .as_mut()
                    .is_some_and(|sleep| sleep.as_mut().poll(cx).is_ready());
                if !expired {
                    return Poll::Pending;
                }
                Err(FailureCause::Timeout(this.limit))
            }
        };
        this.fut = None;
        this.sleep = None;
        Poll::Ready(result)
    }
}
