//! Hook points, the entries registered at them, and the per-point registry.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

use crate::dispatch::Semantics;
use crate::kind::{Kind, KindId};
use crate::outcome::{HookName, OnError};

/// A place in the agent loop where hooks run.
///
/// Every point is a marker type `Point` inside a module named after the point, created by
/// [`hook_points!`](crate::hook_points) (the standard catalog lives in [`crate::points`]). The
/// point fixes the context type hooks receive and the [`Kind`] that combines their results.
pub trait HookPoint: Sized + Send + Sync + 'static {
    /// The point's name, e.g. `"pre_tool_use"`.
    const NAME: &'static str;
    /// The semantics: [`Guard`](crate::Guard), [`Transform`](crate::Transform),
    /// [`Observe`](crate::Observe) or [`Recover`](crate::Recover).
    type Kind: Semantics;
    /// What hooks at this point receive.
    type Context: Send + Sync + 'static;

    /// The point's registry of link-time hooks.
    #[doc(hidden)]
    fn registry() -> &'static Registry<Self>;
}

/// How a hook is stored: a synchronous or an asynchronous fn pointer of the point's kind.
pub enum HookFn<P: HookPoint> {
    /// A plain `fn`.
    Sync(<P::Kind as Kind>::SyncFn<P::Context>),
    /// An `async fn`, stored as a shim that boxes its future.
    Async(<P::Kind as Kind>::AsyncFn<P::Context>),
}

impl<P: HookPoint> Clone for HookFn<P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P: HookPoint> Copy for HookFn<P> {}

/// One hook registered at point `P` by `#[hook]`. Created only by the macro.
pub struct HookEntry<P: HookPoint> {
    name: &'static str,
    order: i32,
    file: &'static str,
    line: u32,
    func: HookFn<P>,
    /// 0: the point's default.
    timeout_ms: u32,
    on_error: Option<OnError>,
}

impl<P: HookPoint> HookEntry<P> {
    #[doc(hidden)]
    pub const fn __new(
        name: &'static str,
        order: i32,
        file: &'static str,
        line: u32,
        func: HookFn<P>,
    ) -> Self {
        HookEntry {
            name,
            order,
            file,
            line,
            func,
            timeout_ms: 0,
            on_error: None,
        }
    }

    /// `#[hook(timeout_ms = N, on_error = "...")]`.
    #[doc(hidden)]
    pub const fn __settings(mut self, timeout_ms: u32, on_error: Option<OnError>) -> Self {
        self.timeout_ms = timeout_ms;
        self.on_error = on_error;
        self
    }

    /// The hook's own timeout (`#[hook(timeout_ms = N)]`), if it set one. A
    /// [`Hooks`](crate::runtime::Hooks) value applies it to async hooks; without one it applies
    /// the point's default.
    pub fn timeout(&self) -> Option<Duration> {
        (self.timeout_ms > 0).then(|| Duration::from_millis(u64::from(self.timeout_ms)))
    }

    /// The hook's failure policy: `#[hook(on_error = "...")]`, else the default of the point's
    /// kind ([`OnError::default_for`]).
    pub fn on_error(&self) -> OnError {
        match self.on_error {
            Some(policy) => policy,
            None => OnError::default_for(<P::Kind as Kind>::ID),
        }
    }

    /// The hook's name (by default `module::path::fn_name`).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The sort key: lower runs first; ties are broken by name.
    pub fn order(&self) -> i32 {
        self.order
    }

    /// Source file of the hook fn.
    pub fn file(&self) -> &'static str {
        self.file
    }

    /// Source line of the hook fn's name.
    pub fn line(&self) -> u32 {
        self.line
    }

    /// The stored fn.
    pub fn func(&self) -> HookFn<P> {
        self.func
    }

    /// True for an `async fn` hook.
    pub fn is_async(&self) -> bool {
        matches!(self.func, HookFn::Async(_))
    }

    /// A description of this entry.
    pub fn info(&self) -> HookInfo {
        HookInfo {
            point: P::NAME,
            kind: <P::Kind as Kind>::ID,
            name: HookName::from_static(self.name),
            order: self.order,
            is_async: self.is_async(),
            file: self.file,
            line: self.line,
        }
    }
}

impl<P: HookPoint> std::fmt::Debug for HookEntry<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HookEntry")
            .field("point", &P::NAME)
            .field("name", &self.name)
            .field("order", &self.order)
            .field("async", &self.is_async())
            .field("file", &self.file)
            .field("line", &self.line)
            .finish()
    }
}

/// A description of one linked hook, for listings and startup checks.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct HookInfo {
    /// The point's name.
    pub point: &'static str,
    /// The point's kind.
    pub kind: KindId,
    /// The hook's name.
    pub name: HookName,
    /// Its sort key.
    pub order: i32,
    /// Whether it is an `async fn`.
    pub is_async: bool,
    /// Source file.
    pub file: &'static str,
    /// Source line.
    pub line: u32,
}

// The state byte is only a hint for the fast path: "certainly empty" or "look at `sorted`".
const UNINIT: u8 = 0;
const EMPTY: u8 = 1;
const NOT_EMPTY: u8 = 2;

/// What a point's registry holds once built: the hooks in run order, and the entries left out
/// because another hook at the point already has their name.
struct Sorted<P: HookPoint> {
    hooks: Box<[&'static HookEntry<P>]>,
    duplicates: Box<[&'static HookEntry<P>]>,
    /// The hooks' fn pointers, contiguous, when every hook is sync (else empty): the sync
    /// dispatcher walks this instead of chasing a pointer per entry.
    sync_fns: Box<[SyncFnOf<P>]>,
}

type SyncFnOf<P> = <<P as HookPoint>::Kind as Kind>::SyncFn<<P as HookPoint>::Context>;

/// The link-time hooks of one point, sorted once by `(order, name)` on first use.
///
/// The registry also caches whether the point has any hooks at all, so that dispatching a point
/// without hooks costs one relaxed atomic load (the idea of `tracing`'s callsite interest).
pub struct Registry<P: HookPoint> {
    state: AtomicU8,
    sorted: OnceLock<Sorted<P>>,
    collect: fn() -> Vec<&'static HookEntry<P>>,
}

impl<P: HookPoint> Registry<P> {
    #[doc(hidden)]
    pub const fn __new(collect: fn() -> Vec<&'static HookEntry<P>>) -> Self {
        Registry {
            state: AtomicU8::new(UNINIT),
            sorted: OnceLock::new(),
            collect,
        }
    }

    /// True when the point has no link-time hooks. After the first call this is one relaxed
    /// atomic load.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        match self.state.load(Ordering::Relaxed) {
            EMPTY => true,
            UNINIT => self.sorted().hooks.is_empty(),
            _ => false,
        }
    }

    /// True when at least one hook at the point is an `async fn`.
    pub fn has_async(&self) -> bool {
        let sorted = self.sorted();
        sorted.sync_fns.len() != sorted.hooks.len()
    }

    /// The hooks in run order.
    #[inline]
    pub fn hooks(&self) -> &[&'static HookEntry<P>] {
        &self.sorted().hooks
    }

    /// The hooks in run order and, when every one of them is sync, their fn pointers in the same
    /// order (`None` when some hook is async).
    #[inline]
    pub fn hooks_and_sync_fns(&self) -> (&[&'static HookEntry<P>], Option<&[SyncFnOf<P>]>) {
        let sorted = self.sorted();
        let all_sync = sorted.sync_fns.len() == sorted.hooks.len();
        (&sorted.hooks, all_sync.then_some(&*sorted.sync_fns))
    }

    /// Entries that were not kept because an earlier entry at this point has the same name
    /// (for instance the same crate linked twice in two versions). Each is logged once at
    /// `error` level when the registry is built; [`check`](crate::registry::check) reports
    /// them too.
    pub fn duplicates(&self) -> &[&'static HookEntry<P>] {
        &self.sorted().duplicates
    }

    #[inline]
    fn sorted(&self) -> &Sorted<P> {
        match self.sorted.get() {
            Some(s) => s,
            None => self.build(),
        }
    }

    #[cold]
    #[inline(never)]
    fn build(&self) -> &Sorted<P> {
        let sorted = self.sorted.get_or_init(|| {
            let mut all = (self.collect)();
            // Name first so equal names are adjacent; the final order is restored below.
            all.sort_by(|a, b| {
                (a.name, a.order, a.file, a.line).cmp(&(b.name, b.order, b.file, b.line))
            });
            let mut hooks: Vec<&'static HookEntry<P>> = Vec::with_capacity(all.len());
            let mut duplicates = Vec::new();
            for e in all {
                match hooks.last() {
                    Some(prev) if prev.name == e.name => {
                        tracing::error!(
                            point = P::NAME,
                            hook = e.name,
                            kept = %format_args!("{}:{}", prev.file, prev.line),
                            dropped = %format_args!("{}:{}", e.file, e.line),
                            "two hooks with the same name at one point; only the first runs"
                        );
                        duplicates.push(e);
                    }
                    _ => hooks.push(e),
                }
            }
            hooks.sort_by(|a, b| (a.order, a.name).cmp(&(b.order, b.name)));
            let sync_fns: Option<Vec<SyncFnOf<P>>> = hooks
                .iter()
                .map(|e| match e.func {
                    HookFn::Sync(f) => Some(f),
                    HookFn::Async(_) => None,
                })
                .collect();
            Sorted {
                hooks: hooks.into_boxed_slice(),
                duplicates: duplicates.into_boxed_slice(),
                sync_fns: sync_fns.unwrap_or_default().into_boxed_slice(),
            }
        });
        let state = if sorted.hooks.is_empty() {
            EMPTY
        } else {
            NOT_EMPTY
        };
        self.state.store(state, Ordering::Relaxed);
        sorted
    }
}
