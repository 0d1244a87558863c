//! The four semantics a hook point can have.
//!
//! The vocabulary comes from webpack's tapable and pytest's pluggy. Every point has exactly one
//! kind; the kind fixes the hook signature and how the results of several hooks combine.
//!
//! | kind | hook signature | combination |
//! |---|---|---|
//! | [`Guard`] | `fn(&mut Ctx) -> Verdict` | in order; a deny stops the chain; the most restrictive verdict wins |
//! | [`Transform`] | `fn(&mut Ctx)` | in order (waterfall): each hook sees the previous hooks' changes |
//! | [`Observe`] | `fn(&Ctx)` | read-only; async observers run concurrently; failures never change the flow |
//! | [`Recover`] | `fn(&Ctx) -> Option<Recovery>` | in order; the first recovery wins |
//!
//! Any hook may also be `async fn`, and may return `Result<T, E>` instead of `T` (an error is a
//! hook failure, handled by the kind's failure policy; see [`dispatch`](mod@crate::dispatch)).

use std::future::Future;
use std::pin::Pin;

use crate::outcome::{HookResult, Recovery, Verdict};

/// A boxed, `Send` future: what an async hook's shim returns.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

mod sealed {
    pub trait Sealed {}
}

/// The semantics of a hook point. Implemented by [`Guard`], [`Transform`], [`Observe`] and
/// [`Recover`]; sealed.
pub trait Kind: sealed::Sealed + Send + Sync + Sized + 'static {
    /// The kind as a plain value, for introspection.
    const ID: KindId;
    /// What one hook returns (besides an error).
    type Ret: Send + 'static;
    /// The fn-pointer type a synchronous hook of this kind is stored as.
    type SyncFn<C: Send + Sync + 'static>: Copy + Send + Sync + 'static;
    /// The fn-pointer type an asynchronous hook of this kind is stored as.
    type AsyncFn<C: Send + Sync + 'static>: Copy + Send + Sync + 'static;
    /// How a hook of this kind receives its context: `&'a mut C` (guard, transform) or `&'a C`
    /// (observe, recover).
    type Arg<'a, C: Send + Sync + 'static>: Send;

    /// A shorter borrow of the context, for the next hook.
    #[doc(hidden)]
    fn reborrow<'b, C: Send + Sync + 'static>(arg: &'b mut Self::Arg<'_, C>) -> Self::Arg<'b, C>;

    /// A copy of a shared borrow (`None` for `&mut` kinds): what lets async observers run
    /// concurrently.
    #[doc(hidden)]
    fn share<'a, C: Send + Sync + 'static>(arg: &Self::Arg<'a, C>) -> Option<Self::Arg<'a, C>>;

    /// The argument for a context the dispatcher holds mutably.
    #[doc(hidden)]
    fn from_mut<C: Send + Sync + 'static>(ctx: &mut C) -> Self::Arg<'_, C>;

    /// The context, read-only.
    #[doc(hidden)]
    fn as_ref<'b, C: Send + Sync + 'static>(arg: &'b Self::Arg<'_, C>) -> &'b C;

    /// Call a stored sync hook.
    #[doc(hidden)]
    fn call_sync<C: Send + Sync + 'static>(
        f: Self::SyncFn<C>,
        arg: Self::Arg<'_, C>,
    ) -> HookResult<Self::Ret>;

    /// Call a stored async hook.
    #[doc(hidden)]
    fn call_async<'a, C: Send + Sync + 'static>(
        f: Self::AsyncFn<C>,
        arg: Self::Arg<'a, C>,
    ) -> BoxFuture<'a, HookResult<Self::Ret>>;
}

/// The kinds whose hooks take `&mut` context and may change it: [`Guard`] and [`Transform`].
pub trait MutKind: Kind {
    /// The context, writable.
    #[doc(hidden)]
    fn as_mut<'b, C: Send + Sync + 'static>(arg: &'b mut Self::Arg<'_, C>) -> &'b mut C;
}

/// The `Kind` items that only depend on whether hooks get `&mut C` or `&C`.
macro_rules! arg_by {
    (mut) => {
        type Arg<'a, C: Send + Sync + 'static> = &'a mut C;

        #[inline(always)]
        fn reborrow<'b, C: Send + Sync + 'static>(arg: &'b mut &mut C) -> &'b mut C {
            arg
        }

        #[inline(always)]
        fn share<'a, C: Send + Sync + 'static>(_: &Self::Arg<'a, C>) -> Option<Self::Arg<'a, C>> {
            None
        }

        #[inline(always)]
        fn from_mut<C: Send + Sync + 'static>(ctx: &mut C) -> &mut C {
            ctx
        }

        #[inline(always)]
        fn as_ref<'b, C: Send + Sync + 'static>(arg: &'b &mut C) -> &'b C {
            arg
        }

        #[inline(always)]
        fn call_sync<C: Send + Sync + 'static>(
            f: Self::SyncFn<C>,
            arg: &mut C,
        ) -> HookResult<Self::Ret> {
            f(arg)
        }

        #[inline(always)]
        fn call_async<'a, C: Send + Sync + 'static>(
            f: Self::AsyncFn<C>,
            arg: Self::Arg<'a, C>,
        ) -> BoxFuture<'a, HookResult<Self::Ret>> {
            f(arg)
        }
    };
    (ref) => {
        type Arg<'a, C: Send + Sync + 'static> = &'a C;

        #[inline(always)]
        fn reborrow<'b, C: Send + Sync + 'static>(arg: &'b mut &C) -> &'b C {
            arg
        }

        #[inline(always)]
        fn share<'a, C: Send + Sync + 'static>(arg: &Self::Arg<'a, C>) -> Option<Self::Arg<'a, C>> {
            Some(*arg)
        }

        #[inline(always)]
        fn from_mut<C: Send + Sync + 'static>(ctx: &mut C) -> &C {
            ctx
        }

        #[inline(always)]
        fn as_ref<'b, C: Send + Sync + 'static>(arg: &'b &C) -> &'b C {
            arg
        }

        #[inline(always)]
        fn call_sync<C: Send + Sync + 'static>(
            f: Self::SyncFn<C>,
            arg: &C,
        ) -> HookResult<Self::Ret> {
            f(arg)
        }

        #[inline(always)]
        fn call_async<'a, C: Send + Sync + 'static>(
            f: Self::AsyncFn<C>,
            arg: Self::Arg<'a, C>,
        ) -> BoxFuture<'a, HookResult<Self::Ret>> {
            f(arg)
        }
    };
}

/// The guard kind: hooks run in order on `&mut` context and return a [`Verdict`].
///
/// A deny stops the chain; the merged verdict is the most restrictive one seen
/// (`Deny > Ask > Allow > Continue`). A failing guard denies (fail closed).
#[derive(Debug, Clone, Copy)]
pub struct Guard;

/// The transform kind: hooks run in order on `&mut` context (a waterfall); no verdict.
/// A failing transform is reported and skipped (fail open).
#[derive(Debug, Clone, Copy)]
pub struct Transform;

/// The observe kind: hooks get `&` context and cannot change anything. Async observers run
/// concurrently. Failures are reported and never change the caller's flow.
#[derive(Debug, Clone, Copy)]
pub struct Observe;

/// The recover kind: hooks run in order on `&` context; the first that returns
/// `Some(`[`Recovery`]`)` wins and the rest do not run. A failing recoverer is reported and
/// skipped (fail open).
#[derive(Debug, Clone, Copy)]
pub struct Recover;

impl sealed::Sealed for Guard {}
impl sealed::Sealed for Transform {}
impl sealed::Sealed for Observe {}
impl sealed::Sealed for Recover {}

impl Kind for Guard {
    const ID: KindId = KindId::Guard;
    type Ret = Verdict;
    type SyncFn<C: Send + Sync + 'static> = fn(&mut C) -> HookResult<Verdict>;
    type AsyncFn<C: Send + Sync + 'static> =
        for<'a> fn(&'a mut C) -> BoxFuture<'a, HookResult<Verdict>>;
    arg_by!(mut);
}

impl Kind for Transform {
    const ID: KindId = KindId::Transform;
    type Ret = ();
    type SyncFn<C: Send + Sync + 'static> = fn(&mut C) -> HookResult<()>;
    type AsyncFn<C: Send + Sync + 'static> = for<'a> fn(&'a mut C) -> BoxFuture<'a, HookResult<()>>;
    arg_by!(mut);
}

impl Kind for Observe {
    const ID: KindId = KindId::Observe;
    type Ret = ();
    type SyncFn<C: Send + Sync + 'static> = fn(&C) -> HookResult<()>;
    type AsyncFn<C: Send + Sync + 'static> = for<'a> fn(&'a C) -> BoxFuture<'a, HookResult<()>>;
    arg_by!(ref);
}

impl Kind for Recover {
    const ID: KindId = KindId::Recover;
    type Ret = Option<Recovery>;
    type SyncFn<C: Send + Sync + 'static> = fn(&C) -> HookResult<Option<Recovery>>;
    type AsyncFn<C: Send + Sync + 'static> =
        for<'a> fn(&'a C) -> BoxFuture<'a, HookResult<Option<Recovery>>>;
    arg_by!(ref);
}

impl MutKind for Guard {
    #[inline(always)]
    fn as_mut<'b, C: Send + Sync + 'static>(arg: &'b mut &mut C) -> &'b mut C {
        arg
    }
}

impl MutKind for Transform {
    #[inline(always)]
    fn as_mut<'b, C: Send + Sync + 'static>(arg: &'b mut &mut C) -> &'b mut C {
        arg
    }
}

/// A hook point's kind as a value (for listings, logs and config files).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KindId {
    /// See [`Guard`].
    Guard,
    /// See [`Transform`].
    Transform,
    /// See [`Observe`].
    Observe,
    /// See [`Recover`].
    Recover,
}

impl KindId {
    /// The lowercase name: `guard`, `transform`, `observe` or `recover`.
    pub const fn as_str(self) -> &'static str {
        match self {
            KindId::Guard => "guard",
            KindId::Transform => "transform",
            KindId::Observe => "observe",
            KindId::Recover => "recover",
        }
    }
}

impl std::fmt::Display for KindId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}
