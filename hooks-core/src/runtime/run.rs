//! Running one point's entries: the sync loop, the async loop with timeouts, concurrent
//! observers.

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
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
        let started = Instant::now();
        let result = if e.callable.is_async() {
            Err(FailureCause::AsyncInSyncDispatch)
        } else {
            let a = <P::Kind as Kind>::reborrow(&mut arg);
            match catch_unwind(AssertUnwindSafe(move || e.callable.start(a))) {
                Ok(Step::Ready(r)) => r.map_err(FailureCause::Error),
                Ok(Step::Pending(_)) => Err(FailureCause::AsyncInSyncDispatch),
                Err(payload) => Err(panic_cause(payload)),
            }
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

/// Run observers: sync ones in order as they come, async ones all at once, each bounded by its
/// timeout.
pub(crate) async fn run_observers<P: HookPoint>(
    entries: &[Entry<P>],
    ctx: &mut P::Context,
    sink: &Sink<'_>,
) -> Outcome<Ret<P>> {
    debug_assert_eq!(<P::Kind as Kind>::ID, KindId::Observe);
    let mut out = Outcome::default();
    let arg = <P::Kind as Kind>::from_mut(ctx);
    let mut running: Vec<Running<'_, '_, P>> = Vec::new();
    for e in entries {
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
            if timed.finished {
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

/// An async hook's future with its panics caught and its time bounded.
///
/// The timer is armed only when the future first returns `Pending`, so a hook that finishes
/// on its first poll costs no timer at all. The deadline still counts from the hook's start.
pub(crate) struct Timed<'a, T> {
    fut: BoxFuture<'a, HookResult<T>>,
    limit: Duration,
    started: Instant,
    sleep: Option<Pin<Box<tokio::time::Sleep>>>,
    /// No tokio timer is available: the hook runs unbounded (logged once per hook run).
    no_timer: bool,
    finished: bool,
}

impl<'a, T> Timed<'a, T> {
    pub(crate) fn new(
        fut: BoxFuture<'a, HookResult<T>>,
        limit: Duration,
        started: Instant,
    ) -> Self {
        Timed {
            fut,
            limit,
            started,
            sleep: None,
            no_timer: false,
            finished: false,
        }
    }

    fn arm(&mut self) {
        if self.sleep.is_some() || self.no_timer {
            return;
        }
        // From the hook's start, without reading either clock again.
        let deadline = tokio::time::Instant::from_std(self.started) + self.limit;
        // Without a tokio runtime (or with its timer disabled) `sleep_until` panics: run the
        // hook unbounded rather than fail it for the caller's choice of executor.
        let armed = tokio::runtime::Handle::try_current()
            .ok()
            .and_then(|_| catch_unwind(|| Box::pin(tokio::time::sleep_until(deadline))).ok());
        match armed {
            Some(sleep) => self.sleep = Some(sleep),
            None => {
                self.no_timer = true;
                tracing::warn!(
                    "no tokio runtime with its timer enabled: an async hook runs without its \
                     timeout"
                );
            }
        }
    }
}

impl<T> Future for Timed<'_, T> {
    type Output = Result<T, FailureCause>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        let fut = &mut this.fut;
        match catch_unwind(AssertUnwindSafe(|| fut.as_mut().poll(cx))) {
            Err(payload) => {
                this.finished = true;
                Poll::Ready(Err(panic_cause(payload)))
            }
            Ok(Poll::Ready(r)) => {
                this.finished = true;
                Poll::Ready(r.map_err(FailureCause::Error))
            }
            Ok(Poll::Pending) => {
                this.arm();
                if let Some(sleep) = &mut this.sleep
                    && sleep.as_mut().poll(cx).is_ready()
                {
                    this.finished = true;
                    return Poll::Ready(Err(FailureCause::Timeout(this.limit)));
                }
                Poll::Pending
            }
        }
    }
}
