//! The static dispatcher: runs a point's link-time hooks with the point's semantics.
//!
//! | kind | order | stops early when | a failing hook (panic, error), by default |
//! |---|---|---|---|
//! | guard | `(order, name)` | a hook denies | denies (fail closed) and stops |
//! | transform | `(order, name)` | never | is reported; the chain continues (fail open) |
//! | observe | sync ones in order, then all async ones concurrently | never | is reported; nothing else changes |
//! | recover | `(order, name)` | a hook returns a recovery | is reported; the chain continues |
//!
//! A hook may choose its own policy with `#[hook(..., on_error = "deny" | "continue")]`; see
//! [`OnError`]. These functions run the link-time hooks only and apply no timeouts; the
//! [`runtime`](crate::runtime) merges them with providers and closures and bounds async hooks
//! by their timeouts.
//!
//! A hook that panics after changing its context leaves the change in place: a failing
//! transform is skipped (fail open), and the next hook sees what it left.
//!
//! A failure is always recorded in [`Outcome::failures`] and logged with `tracing` at `warn`
//! level; it is never reported as a policy decision ([`Outcome::decided_by_failure`] tells
//! them apart).
//!
//! [`dispatch`] is synchronous and performs no heap allocation (unless a hook fails or a hook
//! itself allocates). It cannot run `async fn` hooks: one found there is a failure (so a guard
//! denies). [`dispatch_async`] runs both kinds; each async hook costs one boxed future.

use std::any::Any;
use std::future::Future;
use std::ops::ControlFlow;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::kind::{BoxFuture, Guard, Kind, Observe, Recover, Transform};
use crate::outcome::{FailureCause, HookFailure, HookName, HookResult, OnError, Outcome, Verdict};
use crate::point::{HookEntry, HookFn, HookPoint};

/// Run every link-time hook at point `P` on `ctx`, synchronously, and merge their results with
/// the point's semantics.
///
/// A point without hooks costs one relaxed atomic load. Dispatch itself does not allocate; only
/// a failure does (its record, and the deny reason of a failing guard).
///
/// ```
/// use hookrail_core::context::{Meta, PreToolUse};
/// use hookrail_core::points::pre_tool_use;
///
/// let mut ctx = PreToolUse::new(Meta::new("session-1"), "Bash", serde_json::json!({"command": "ls"}));
/// let outcome = hookrail_core::dispatch::<pre_tool_use::Point>(&mut ctx);
/// assert!(!outcome.is_denied());
/// ```
#[inline(always)]
pub fn dispatch<P: HookPoint>(ctx: &mut P::Context) -> Outcome<<P::Kind as Kind>::Ret> {
    // Inlined into the caller: the empty check; out of line: everything else.
    if P::registry().is_empty() {
        return Outcome::default();
    }
    <P::Kind as Semantics>::run_sync::<P>(ctx)
}

/// Run every link-time hook at point `P` on `ctx`, sync and async ones, and merge their results
/// with the point's semantics. Guards, transforms and recoverers run one after another in
/// order; async observers run concurrently.
///
/// Each `async fn` hook costs one boxed future; sync hooks cost nothing extra (more than 16 async
/// observers at one point cost one more allocation). Sync observers run first, in order; then
/// all async observers run concurrently. Panics are caught per hook. The returned future is
/// `Send`.
pub async fn dispatch_async<P: HookPoint>(ctx: &mut P::Context) -> Outcome<<P::Kind as Kind>::Ret> {
    let registry = P::registry();
    if registry.is_empty() {
        return Outcome::default();
    }
    <P::Kind as Semantics>::run_async::<P>(registry.hooks(), ctx).await
}

/// [`dispatch`] for points whose hooks only read (observe and recover points), from a shared
/// reference.
///
/// ```
/// use hookrail_core::context::{Meta, SessionEnd, SessionEndReason};
/// use hookrail_core::points::session_end;
///
/// let ctx = SessionEnd::new(Meta::new("s1"), SessionEndReason::Completed, true);
/// let outcome = hookrail_core::dispatch_shared::<session_end::Point>(&ctx);
/// assert!(outcome.failures.is_empty());
/// ```
#[inline(always)]
pub fn dispatch_shared<P: HookPoint>(ctx: &P::Context) -> Outcome<<P::Kind as Kind>::Ret>
where
    P::Kind: ReadOnly,
{
    if P::registry().is_empty() {
        return Outcome::default();
    }
    <P::Kind as ReadOnly>::run_sync_shared::<P>(ctx)
}

/// [`dispatch_async`] for points whose hooks only read (observe and recover points), from a
/// shared reference.
pub async fn dispatch_shared_async<P: HookPoint>(
    ctx: &P::Context,
) -> Outcome<<P::Kind as Kind>::Ret>
where
    P::Kind: ReadOnly,
{
    let registry = P::registry();
    if registry.is_empty() {
        return Outcome::default();
    }
    <P::Kind as ReadOnly>::run_async_shared::<P>(registry.hooks(), ctx).await
}

/// How a kind runs and merges its hooks. Implemented by the four kinds; sealed through
/// [`Kind`].
pub trait Semantics: Kind<Ret: Default> {
    /// Fold one hook's answer into the outcome. `Break` stops the chain. This is the hot path:
    /// it must stay small enough to inline.
    #[doc(hidden)]
    fn merge_ok(
        out: &mut Outcome<Self::Ret>,
        hook: impl FnOnce() -> HookName,
        value: Self::Ret,
    ) -> ControlFlow<()>;

    /// How one run's result reads in a hook-run record.
    #[doc(hidden)]
    #[cfg(feature = "runtime")]
    fn describe(ret: &Self::Ret) -> crate::runtime::RunResult<'_>;

    /// What failing closed does to the merged value (a guard: deny, naming the hook and the
    /// cause; the other kinds: nothing, the stopped chain and the record say it).
    #[doc(hidden)]
    fn close(out: &mut Outcome<Self::Ret>, hook: HookName, cause: &FailureCause);

    /// Fold one hook's failure into the outcome: record it and apply its policy. `Break` stops
    /// the chain.
    #[doc(hidden)]
    #[cold]
    #[inline(never)]
    fn merge_failure(
        out: &mut Outcome<Self::Ret>,
        hook: HookName,
        point: &'static str,
        cause: FailureCause,
        policy: OnError,
    ) -> ControlFlow<()> {
        match policy {
            OnError::Continue => {
                record_failure(out, hook, point, cause, policy);
                ControlFlow::Continue(())
            }
            OnError::Deny => {
                Self::close(out, hook, &cause);
                record_failure(out, hook, point, cause, policy);
                ControlFlow::Break(())
            }
        }
    }

    /// Fold one hook's result into the outcome.
    #[doc(hidden)]
    #[inline(always)]
    fn merge(
        out: &mut Outcome<Self::Ret>,
        hook: HookName,
        point: &'static str,
        result: Result<Self::Ret, FailureCause>,
        policy: OnError,
    ) -> ControlFlow<()> {
        match result {
            Ok(v) => Self::merge_ok(out, || hook, v),
            Err(cause) => Self::merge_failure(out, hook, point, cause, policy),
        }
    }

    #[doc(hidden)]
    fn run_sync<P: HookPoint<Kind = Self>>(ctx: &mut P::Context) -> Outcome<Self::Ret>;

    #[doc(hidden)]
    fn run_async<'a, P: HookPoint<Kind = Self>>(
        hooks: &'a [&'static HookEntry<P>],
        ctx: &'a mut P::Context,
    ) -> impl Future<Output = Outcome<Self::Ret>> + Send + 'a;
}

/// Record a failure in the outcome and the log.
#[cold]
fn record_failure<T>(
    out: &mut Outcome<T>,
    hook: HookName,
    point: &'static str,
    cause: FailureCause,
    policy: OnError,
) {
    tracing::warn!(point, hook = %hook, cause = %cause, on_error = %policy, "hook failed");
    out.failures.push(HookFailure {
        hook,
        point,
        cause,
        policy,
    });
}

#[cold]
pub(crate) fn panic_cause(payload: Box<dyn Any + Send>) -> FailureCause {
    let msg = if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_owned()
    };
    FailureCause::Panic(msg)
}

#[inline(always)]
fn flatten<T>(r: std::thread::Result<HookResult<T>>) -> Result<T, FailureCause> {
    match r {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(FailureCause::Error(e)),
        Err(payload) => Err(panic_cause(payload)),
    }
}

/// Run one sync hook with its panic caught.
#[inline(always)]
fn call_caught<T>(f: impl FnOnce() -> HookResult<T>) -> Result<T, FailureCause> {
    flatten(catch_unwind(AssertUnwindSafe(f)))
}

/// Runs `hooks` in order through `call` and folds each result with `K::merge`, until the end or
/// until `merge` breaks.
///
/// Panics are caught with one unwind guard per dispatch rather than one per hook (a guard per
/// hook doubled the cost of a trivial hook): when a hook panics, the guarded run ends at that
/// hook, its failure is merged, and a new guarded run resumes after it.
#[inline(always)]
fn run_in_order<K: Semantics, P: HookPoint<Kind = K>, T>(
    hooks: &[&'static HookEntry<P>],
    items: &[T],
    mut call: impl FnMut(&T) -> Result<K::Ret, FailureCause>,
) -> Outcome<K::Ret> {
    let mut out = Outcome::default();
    // Index of the hook being run or merged; after a panic it names the hook that panicked.
    let mut at = 0;
    while at < items.len() {
        let start = at;
        let run = catch_unwind(AssertUnwindSafe(|| {
            for (i, item) in items.iter().enumerate().skip(start) {
                at = i;
                let flow = match call(item) {
                    Ok(v) => K::merge_ok(&mut out, || HookName::from_static(hooks[i].name()), v),
                    Err(cause) => K::merge_failure(
                        &mut out,
                        HookName::from_static(hooks[i].name()),
                        P::NAME,
                        cause,
                        hooks[i].on_error(),
                    ),
                };
                if flow.is_break() {
                    return;
                }
            }
        }));
        match run {
            Ok(()) => break,
            Err(payload) => {
                let name = HookName::from_static(hooks[at].name());
                let policy = hooks[at].on_error();
                if K::merge_failure(&mut out, name, P::NAME, panic_cause(payload), policy)
                    .is_break()
                {
                    break;
                }
                at += 1;
            }
        }
    }
    out
}

/// The sync dispatch shared by all kinds: over the contiguous fn pointers when every hook is
/// sync, else over the entries (where an async hook is a failure).
macro_rules! run_sync_with {
    ($ctx:expr) => {{
        let ctx = $ctx;
        let (hooks, sync_fns) = P::registry().hooks_and_sync_fns();
        match sync_fns {
            Some(fns) => run_in_order::<Self, P, _>(hooks, fns, |f| sync_result(f(ctx))),
            None => run_in_order::<Self, P, _>(hooks, hooks, |e| match e.func() {
                HookFn::Sync(f) => sync_result(f(ctx)),
                HookFn::Async(_) => Err(FailureCause::AsyncInSyncDispatch),
            }),
        }
    }};
}

/// A sync hook's result as the merge step takes it.
#[inline(always)]
fn sync_result<T>(r: HookResult<T>) -> Result<T, FailureCause> {
    r.map_err(FailureCause::Error)
}

/// A future with panics caught at each poll.
struct CatchUnwind<F>(F);

impl<F: Future + Unpin> Future for CatchUnwind<F> {
    type Output = std::thread::Result<F::Output>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = &mut self.0;
        match catch_unwind(AssertUnwindSafe(|| Pin::new(inner).poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Err(payload) => Poll::Ready(Err(payload)),
        }
    }
}

async fn await_caught<T>(fut: BoxFuture<'_, HookResult<T>>) -> Result<T, FailureCause> {
    flatten(CatchUnwind(fut).await)
}

/// Runs hooks one after another with async ones awaited in place, folding each result with
/// `merge` until the end or a `Break` (guards, transforms, recoverers in an async dispatch).
macro_rules! async_in_order {
    ($hooks:expr, $ctx:expr) => {{
        let ctx = $ctx;
        let mut out = Outcome::default();
        for e in $hooks {
            let result = match e.func() {
                HookFn::Sync(f) => call_caught(|| f(ctx)),
                HookFn::Async(f) => await_caught(f(ctx)).await,
            };
            let name = HookName::from_static(e.name());
            if Self::merge(&mut out, name, P::NAME, result, e.on_error()).is_break() {
                break;
            }
        }
        out
    }};
}

/// `run_sync` / `run_async` for the kinds whose hooks take `&mut Ctx` (guards, transforms).
macro_rules! sequential_mut {
    () => {
        #[inline]
        fn run_sync<P: HookPoint<Kind = Self>>(ctx: &mut P::Context) -> Outcome<Self::Ret> {
            run_sync_with!(ctx)
        }

        async fn run_async<'a, P: HookPoint<Kind = Self>>(
            hooks: &'a [&'static HookEntry<P>],
            ctx: &'a mut P::Context,
        ) -> Outcome<Self::Ret> {
            async_in_order!(hooks, ctx)
        }
    };
}

/// `run_sync` / `run_async` for the kinds whose hooks only read (observers, recoverers): the
/// `&mut` entry points reborrow and go through [`ReadOnly`].
macro_rules! through_read_only {
    () => {
        #[inline]
        fn run_sync<P: HookPoint<Kind = Self>>(ctx: &mut P::Context) -> Outcome<Self::Ret> {
            Self::run_sync_shared::<P>(ctx)
        }

        fn run_async<'a, P: HookPoint<Kind = Self>>(
            hooks: &'a [&'static HookEntry<P>],
            ctx: &'a mut P::Context,
        ) -> impl Future<Output = Outcome<Self::Ret>> + Send + 'a {
            Self::run_async_shared::<P>(hooks, ctx)
        }
    };
}

/// The kinds whose hooks only read their context (observe, recover), so that they can be
/// dispatched from a shared reference: [`dispatch_shared`], [`dispatch_shared_async`].
pub trait ReadOnly: Semantics {
    #[doc(hidden)]
    fn run_sync_shared<P: HookPoint<Kind = Self>>(ctx: &P::Context) -> Outcome<Self::Ret>;

    #[doc(hidden)]
    fn run_async_shared<'a, P: HookPoint<Kind = Self>>(
        hooks: &'a [&'static HookEntry<P>],
        ctx: &'a P::Context,
    ) -> impl Future<Output = Outcome<Self::Ret>> + Send + 'a;
}

impl Semantics for Guard {
    #[cfg(feature = "runtime")]
    fn describe(ret: &Self::Ret) -> crate::runtime::RunResult<'_> {
        crate::runtime::RunResult::Verdict(ret)
    }

    #[inline(always)]
    fn merge_ok(
        out: &mut Outcome<Verdict>,
        hook: impl FnOnce() -> HookName,
        v: Verdict,
    ) -> ControlFlow<()> {
        // The common answer: no opinion. Nothing to compare, keep or drop.
        if let Verdict::Continue = v {
            return ControlFlow::Continue(());
        }
        let deny = v.is_deny();
        if v.severity() > out.value.severity() {
            out.value = v;
            out.decided_by = Some(hook());
        }
        if deny {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }

    #[cold]
    fn close(out: &mut Outcome<Verdict>, hook: HookName, cause: &FailureCause) {
        // The failure denies, and its record says it was a failure.
        out.value = Verdict::deny(format!("hook `{hook}` failed (fail closed): {cause}"));
        out.decided_by = Some(hook);
    }

    sequential_mut!();
}

impl Semantics for Transform {
    #[cfg(feature = "runtime")]
    fn describe(_: &Self::Ret) -> crate::runtime::RunResult<'_> {
        crate::runtime::RunResult::Done
    }

    #[inline(always)]
    fn merge_ok(_: &mut Outcome<()>, _: impl FnOnce() -> HookName, (): ()) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    fn close(_: &mut Outcome<()>, _: HookName, _: &FailureCause) {}

    sequential_mut!();
}

impl Semantics for Recover {
    #[cfg(feature = "runtime")]
    fn describe(ret: &Self::Ret) -> crate::runtime::RunResult<'_> {
        crate::runtime::RunResult::Recovery(ret.as_ref())
    }

    #[inline(always)]
    fn merge_ok(
        out: &mut Outcome<Option<crate::Recovery>>,
        hook: impl FnOnce() -> HookName,
        value: Option<crate::Recovery>,
    ) -> ControlFlow<()> {
        match value {
            Some(r) => {
                out.value = Some(r);
                out.decided_by = Some(hook());
                ControlFlow::Break(())
            }
            None => ControlFlow::Continue(()),
        }
    }

    fn close(_: &mut Outcome<Option<crate::Recovery>>, _: HookName, _: &FailureCause) {}

    through_read_only!();
}

impl ReadOnly for Recover {
    #[inline]
    fn run_sync_shared<P: HookPoint<Kind = Self>>(ctx: &P::Context) -> Outcome<Self::Ret> {
        run_sync_with!(ctx)
    }

    async fn run_async_shared<'a, P: HookPoint<Kind = Self>>(
        hooks: &'a [&'static HookEntry<P>],
        ctx: &'a P::Context,
    ) -> Outcome<Self::Ret> {
        async_in_order!(hooks, ctx)
    }
}

/// An async observer being polled: its name and its future.
type Running<'a> = (
    &'static str,
    OnError,
    CatchUnwind<BoxFuture<'a, HookResult<()>>>,
);

/// How many async observers are polled together without allocating; a larger set costs one
/// more allocation (a `Vec` of their futures).
const OBSERVER_GROUP: usize = 16;

impl Semantics for Observe {
    #[cfg(feature = "runtime")]
    fn describe(_: &Self::Ret) -> crate::runtime::RunResult<'_> {
        crate::runtime::RunResult::Done
    }

    #[inline(always)]
    fn merge_ok(_: &mut Outcome<()>, _: impl FnOnce() -> HookName, (): ()) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    fn close(_: &mut Outcome<()>, _: HookName, _: &FailureCause) {}

    through_read_only!();
}

impl ReadOnly for Observe {
    #[inline]
    fn run_sync_shared<P: HookPoint<Kind = Self>>(ctx: &P::Context) -> Outcome<()> {
        run_sync_with!(ctx)
    }

    async fn run_async_shared<'a, P: HookPoint<Kind = Self>>(
        hooks: &'a [&'static HookEntry<P>],
        ctx: &'a P::Context,
    ) -> Outcome<()> {
        let mut out = Outcome::default();
        // Sync observers first, in order; they cannot see anything the async ones do.
        for e in hooks {
            if let HookFn::Sync(f) = e.func() {
                let result = call_caught(|| f(ctx));
                let name = HookName::from_static(e.name());
                if Self::merge(&mut out, name, P::NAME, result, e.on_error()).is_break() {
                    // A sync observer that fails closed stops the observers after it.
                    return out;
                }
            }
        }
        // All async observers run at once. Up to OBSERVER_GROUP of them are held on the stack;
        // beyond that one `Vec` holds them (so they still run concurrently: an observer may
        // wait for another). An index walk rather than an iterator adapter: closures held
        // across `.await` make the future's `Send` proof fail.
        let count = hooks.iter().filter(|e| e.is_async()).count();
        let mut inline: [Option<Running<'a>>; OBSERVER_GROUP] = [const { None }; OBSERVER_GROUP];
        let mut spilled: Vec<Option<Running<'a>>> = Vec::new();
        let slots: &mut [Option<Running<'a>>] = if count <= OBSERVER_GROUP {
            &mut inline[..count]
        } else {
            spilled.resize_with(count, || None);
            &mut spilled
        };
        let mut filled = 0;
        for e in hooks {
            if let HookFn::Async(f) = e.func() {
                slots[filled] = Some((e.name(), e.on_error(), CatchUnwind(f(ctx))));
                filled += 1;
            }
        }
        std::future::poll_fn(|cx| {
            let mut busy = false;
            for slot in slots.iter_mut() {
                if let Some((name, policy, fut)) = slot {
                    match Pin::new(fut).poll(cx) {
                        Poll::Ready(r) => {
                            // Running together, observers do not stop each other.
                            let name = HookName::from_static(name);
                            let _ = Self::merge(&mut out, name, P::NAME, flatten(r), *policy);
                            *slot = None;
                        }
                        Poll::Pending => busy = true,
                    }
                }
            }
            if busy { Poll::Pending } else { Poll::Ready(()) }
        })
        .await;
        out
    }
}
