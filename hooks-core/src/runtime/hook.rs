//! Hooks registered at run time, and the entries every source of hooks becomes.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;
use std::time::Duration;

use crate::kind::{BoxFuture, Kind, MutKind};
use crate::outcome::{HookName, HookResult, IntoHookResult, OnError};
use crate::point::{HookEntry, HookFn, HookPoint};

use super::gate::Gate;

/// The context argument of a hook at point `P`: `&mut P::Context` for guards and transforms,
/// `&P::Context` for observers and recoverers.
pub type Arg<'a, P> = <<P as HookPoint>::Kind as Kind>::Arg<'a, <P as HookPoint>::Context>;

/// What one hook at point `P` returns.
pub type Ret<P> = <<P as HookPoint>::Kind as Kind>::Ret;

/// The context handed to an async runtime hook ([`Hook::new_async`]): derefs to the point's
/// context, mutably at guard and transform points.
///
/// A wrapper rather than a plain reference so that the closure's signature can be inferred for
/// every kind (a closure returning a future that borrows its argument cannot otherwise be typed
/// generically).
pub struct HookCtx<'a, P: HookPoint>(Arg<'a, P>);

impl<P: HookPoint> Deref for HookCtx<'_, P> {
    type Target = P::Context;

    fn deref(&self) -> &P::Context {
        <P::Kind as Kind>::as_ref(&self.0)
    }
}

impl<P: HookPoint> DerefMut for HookCtx<'_, P>
where
    P::Kind: MutKind,
{
    fn deref_mut(&mut self) -> &mut P::Context {
        <P::Kind as MutKind>::as_mut(&mut self.0)
    }
}

type SyncDyn<P> = dyn for<'a> Fn(Arg<'a, P>) -> HookResult<Ret<P>> + Send + Sync;
type AsyncDyn<P> =
    dyn for<'a> Fn(HookCtx<'a, P>) -> BoxFuture<'a, HookResult<Ret<P>>> + Send + Sync;

/// How an entry is called.
pub(crate) enum Callable<P: HookPoint> {
    /// A `#[hook]` fn.
    Static(HookFn<P>),
    /// A closure or a provider method.
    Sync(Arc<SyncDyn<P>>),
    /// An async closure.
    Async(Arc<AsyncDyn<P>>),
}

impl<P: HookPoint> Clone for Callable<P> {
    fn clone(&self) -> Self {
        match self {
            Callable::Static(f) => Callable::Static(*f),
            Callable::Sync(f) => Callable::Sync(f.clone()),
            Callable::Async(f) => Callable::Async(f.clone()),
        }
    }
}

/// The first step of running a hook: a sync hook's result, or an async hook's future.
pub(crate) enum Step<'a, T> {
    Ready(HookResult<T>),
    Pending(BoxFuture<'a, HookResult<T>>),
}

impl<P: HookPoint> Callable<P> {
    pub(crate) fn is_async(&self) -> bool {
        matches!(
            self,
            Callable::Static(HookFn::Async(_)) | Callable::Async(_)
        )
    }

    /// Start the hook: run it if it is sync, create its future if it is async.
    #[inline]
    pub(crate) fn start<'a>(&self, arg: Arg<'a, P>) -> Step<'a, Ret<P>> {
        match self {
            Callable::Static(HookFn::Sync(f)) => Step::Ready(<P::Kind as Kind>::call_sync(*f, arg)),
            Callable::Static(HookFn::Async(f)) => {
                Step::Pending(<P::Kind as Kind>::call_async(*f, arg))
            }
            Callable::Sync(f) => Step::Ready(f(arg)),
            Callable::Async(f) => Step::Pending(f(HookCtx(arg))),
        }
    }
}

/// Where a hook came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum HookSource {
    /// A `#[hook]` fn, registered at link time.
    Static,
    /// A method of a [`HooksProvider`](super::HooksProvider).
    Provider,
    /// A [`Hook`] registered on the builder or at run time.
    Runtime,
}

impl HookSource {
    /// `static`, `provider` or `runtime`.
    pub const fn as_str(self) -> &'static str {
        match self {
            HookSource::Static => "static",
            HookSource::Provider => "provider",
            HookSource::Runtime => "runtime",
        }
    }
}

impl fmt::Display for HookSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// One hook of a point in a [`Hooks`](super::Hooks) value, whatever its source. Its settings
/// are final: name-based overrides and defaults are applied when the snapshot is built.
pub(crate) struct Entry<P: HookPoint> {
    pub(crate) name: HookName,
    pub(crate) order: i32,
    pub(crate) source: HookSource,
    pub(crate) callable: Callable<P>,
    /// `None`: the point's default.
    pub(crate) timeout: Option<Duration>,
    /// `None`: the kind's default.
    pub(crate) on_error: Option<OnError>,
    /// Source location of a `#[hook]` fn.
    pub(crate) location: Option<(&'static str, u32)>,
    /// False for an opt-in hook: off unless enabled by name (`HOOKS_ENABLE`, `enable`).
    pub(crate) enabled_by_default: bool,
    /// A provider's per-session answers ([`HooksProvider::is_enabled`](super::HooksProvider::is_enabled)).
    pub(crate) gate: Option<Arc<Gate>>,
}

impl<P: HookPoint> Clone for Entry<P> {
    fn clone(&self) -> Self {
        Entry {
            name: self.name,
            order: self.order,
            source: self.source,
            callable: self.callable.clone(),
            timeout: self.timeout,
            on_error: self.on_error,
            location: self.location,
            enabled_by_default: self.enabled_by_default,
            gate: self.gate.clone(),
        }
    }
}

impl<P: HookPoint> Entry<P> {
    pub(crate) fn from_static(e: &'static HookEntry<P>) -> Self {
        Entry {
            name: HookName::from_static(e.name()),
            order: e.order(),
            source: HookSource::Static,
            callable: Callable::Static(e.func()),
            timeout: e.timeout(),
            on_error: Some(e.on_error()),
            location: Some((e.file(), e.line())),
            enabled_by_default: true,
            gate: None,
        }
    }
}

/// A hook built at run time from a closure, for point `P`: give it to
/// [`HooksBuilder::hook`](super::HooksBuilder::hook) or [`Hooks::register`](super::Hooks::register).
///
/// ```
/// use hookrail_core::points::pre_tool_use;
/// use hookrail_core::runtime::{Hook, Hooks};
/// use hookrail_core::{OnError, Verdict};
/// use std::time::Duration;
///
/// let no_curl = Hook::<pre_tool_use::Point>::new("no_curl", |ctx| {
///     if ctx.command().is_some_and(|c| c.contains("curl")) {
///         Verdict::deny("no network from the shell")
///     } else {
///         Verdict::Continue
///     }
/// })
/// .order(-10)
/// .on_error(OnError::Deny);
///
/// let slow_check = Hook::<pre_tool_use::Point>::new_async("slow_check", |ctx| {
///     Box::pin(async move {
///         let _tool = &ctx.tool_name;
///         Verdict::Continue
///     })
/// })
/// .timeout(Duration::from_millis(250));
///
/// let hooks = Hooks::builder().hook(no_curl).hook(slow_check).build()?;
/// let names: Vec<_> = hooks.list().into_iter().map(|h| h.name).collect();
/// assert!(names.contains(&"no_curl".into()) && names.contains(&"slow_check".into()));
/// # Ok::<(), hookrail_core::runtime::HooksError>(())
/// ```
pub struct Hook<P: HookPoint> {
    pub(crate) entry: Entry<P>,
}

impl<P: HookPoint> Hook<P> {
    /// A sync hook. The closure has the signature of a `#[hook]` fn at the point (`&mut` context
    /// for guards and transforms, `&` for observers and recoverers) and may return the kind's
    /// result or a `Result` of it.
    pub fn new<F, R>(name: impl Into<String>, f: F) -> Self
    where
        F: for<'a> Fn(Arg<'a, P>) -> R + Send + Sync + 'static,
        R: IntoHookResult<Ret<P>>,
    {
        let f: Arc<SyncDyn<P>> = Arc::new(move |arg| f(arg).into_hook_result());
        Hook::with(HookName::intern(&name.into()), Callable::Sync(f))
    }

    /// An async hook: the closure returns a boxed future (`Box::pin(async move { … })`) that
    /// may borrow the context through [`HookCtx`]. Its future is bounded by the hook's timeout.
    /// It costs two allocations per run (the closure's box and the result adapter's).
    pub fn new_async<F, R>(name: impl Into<String>, f: F) -> Self
    where
        F: for<'a> Fn(HookCtx<'a, P>) -> BoxFuture<'a, R> + Send + Sync + 'static,
        R: IntoHookResult<Ret<P>> + 'static,
    {
        let f: Arc<AsyncDyn<P>> = Arc::new(move |ctx| {
            let fut = f(ctx);
            Box::pin(async move { fut.await.into_hook_result() })
        });
        Hook::with(HookName::intern(&name.into()), Callable::Async(f))
    }

    pub(crate) fn with(name: HookName, callable: Callable<P>) -> Self {
        Hook {
            entry: Entry {
                name,
                order: 0,
                source: HookSource::Runtime,
                callable,
                timeout: None,
                on_error: None,
                location: None,
                enabled_by_default: true,
                gate: None,
            },
        }
    }

    /// The sort key, as `#[hook(order = N)]`: lower runs first, ties are broken by name.
    #[must_use]
    pub fn order(mut self, order: i32) -> Self {
        self.entry.order = order;
        self
    }

    /// The timeout of this hook's async work (default: the point's).
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.entry.timeout = Some(timeout);
        self
    }

    /// The failure policy (default: [`OnError::default_for`] the point's kind).
    #[must_use]
    pub fn on_error(mut self, policy: OnError) -> Self {
        self.entry.on_error = Some(policy);
        self
    }

    /// Whether the hook runs unless switched on by name (default `true`). With `false` it is
    /// opt-in: listed, but off until `HOOKS_ENABLE` names it (where the embedder lets the
    /// environment be read), or [`HooksBuilder::enable`](super::HooksBuilder::enable) or
    /// [`Hooks::enable`](super::Hooks::enable) does. `HOOKS_DISABLE` and `disable` still win.
    ///
    /// ```
    /// use hookrail_core::points::step_end;
    /// use hookrail_core::runtime::{Hook, Hooks};
    ///
    /// let audit = || Hook::<step_end::Point>::new("agentfs", |_ctx| ()).enabled_by_default(false);
    /// let off = Hooks::builder().ignore_env().hook(audit()).build()?;
    /// let on = Hooks::builder().ignore_env().hook(audit()).enable("agentfs").build()?;
    /// let enabled = |h: &Hooks| h.list().iter().any(|l| l.name == "agentfs" && l.enabled);
    /// assert!(!enabled(&off) && enabled(&on));
    /// # Ok::<(), hookrail_core::runtime::HooksError>(())
    /// ```
    #[must_use]
    pub fn enabled_by_default(mut self, on: bool) -> Self {
        self.entry.enabled_by_default = on;
        self
    }

    /// The hook's name.
    pub fn name(&self) -> HookName {
        self.entry.name
    }
}

impl<P: HookPoint> fmt::Debug for Hook<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Hook")
            .field("point", &P::NAME)
            .field("name", &self.entry.name)
            .field("order", &self.entry.order)
            .field("async", &self.entry.callable.is_async())
            .field("timeout", &self.entry.timeout)
            .field("on_error", &self.entry.on_error)
            .field("enabled_by_default", &self.entry.enabled_by_default)
            .finish()
    }
}
