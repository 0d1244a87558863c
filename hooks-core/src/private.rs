//! What the macros expand to. Not public API: names and signatures here change without notice.

use std::future::Future;

pub use linkme;

#[cfg(any(feature = "inventory", hooks_backend = "inventory"))]
pub use inventory;

pub use crate::__core_point as core_point;
pub use crate::__declare_point as declare_point;
pub use crate::__register_hook as register_hook;
pub use crate::outcome::{HookResult, IntoHookResult};

/// The signature check of a sync hook: `#[hook]` calls it with the point's argument type `A`
/// and result type `T` spelled out. A wrong context fails the `Fn(A)` bound (rustc prints the
/// expected and found signatures); a wrong return type fails `IntoHookResult<T>`, whose message
/// names the expected type.
#[inline(always)]
pub fn call_sync<A, T, F, R>(f: F, arg: A) -> HookResult<T>
where
    F: Fn(A) -> R,
    R: IntoHookResult<T>,
{
    f(arg).into_hook_result()
}

/// The signature check of an async hook, as [`call_sync`]. Boxing happens in the generated
/// shim, where rustc can name the value that makes a future non-`Send`.
#[inline(always)]
pub fn call_async<A, T, F, Fut>(f: F, arg: A) -> impl Future<Output = HookResult<T>>
where
    F: Fn(A) -> Fut,
    Fut: Future,
    Fut::Output: IntoHookResult<T>,
{
    let fut = f(arg);
    async move { fut.await.into_hook_result() }
}

/// Declares one hook point: a module holding the `Point` marker, its registry and the link-time
/// collection of its hooks. Used by the standard catalog and by `hook_points!`.
#[doc(hidden)]
#[macro_export]
macro_rules! __declare_point {
    (
        $(#[$attr:meta])*
        $vis:vis $kind:ident $name:ident : $ctx:ty => $slice:ident
    ) => {
        // The context type, named in the parent module where `$ctx` was written, so that the
        // module below can refer to it whatever its name (even `Context` or `Point`) and however
        // it is spelled (`self::`, `super::`, a bare name).
        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        $vis type $slice = $ctx;

        $(#[$attr])*
        $vis mod $name {

            #[doc = concat!("The `", stringify!($name), "` hook point.")]
            ///
            /// Use it as the type argument of [`dispatch`](fn@dispatch), or name it in
            /// `#[hook(...)]` through its module path.
            #[derive(Debug, Clone, Copy)]
            pub struct Point;

            /// The context hooks at this point receive.
            pub type Context = super::$slice;

            /// How a sync hook at this point is stored.
            #[doc(hidden)]
            pub type SyncFn = $crate::__declare_point!(@sync $kind Context);

            /// How an async hook at this point is stored.
            #[doc(hidden)]
            pub type AsyncFn = $crate::__declare_point!(@async $kind Context);

            impl $crate::HookPoint for Point {
                const NAME: &'static str = stringify!($name);
                type Kind = $crate::__declare_point!(@kind $kind);
                type Context = Context;

                fn registry() -> &'static $crate::Registry<Self> {
                    static REGISTRY: $crate::Registry<Point> = $crate::Registry::__new(__collect);
                    &REGISTRY
                }
            }

            $crate::__declare_point!(@dispatch $kind Context);

            $crate::__declare_point!(@types $kind Context);

            #[doc(hidden)]
            pub static __POINT_INFO: $crate::PointInfo = $crate::PointInfo::__new::<Point>();

            $crate::__backend_declare!($slice);
        }
    };
    (@kind guard) => { $crate::Guard };
    (@kind transform) => { $crate::Transform };
    (@kind observe) => { $crate::Observe };
    (@kind recover) => { $crate::Recover };
    // Concrete fn-pointer types per kind. They must equal `Kind::SyncFn<C>` / `Kind::AsyncFn<C>`
    // (rustc checks it where entries are built); the macro coerces hook closures to these
    // because a closure cannot coerce to an unnormalized projection.
    (@sync guard $ctx:ty) => { fn(&mut $ctx) -> $crate::HookResult<$crate::Verdict> };
    (@sync transform $ctx:ty) => { fn(&mut $ctx) -> $crate::HookResult<()> };
    (@sync observe $ctx:ty) => { fn(&$ctx) -> $crate::HookResult<()> };
    (@sync recover $ctx:ty) => { fn(&$ctx) -> $crate::HookResult<::core::option::Option<$crate::Recovery>> };
    (@async guard $ctx:ty) => {
        for<'a> fn(&'a mut $ctx) -> $crate::BoxFuture<'a, $crate::HookResult<$crate::Verdict>>
    };
    (@async transform $ctx:ty) => {
        for<'a> fn(&'a mut $ctx) -> $crate::BoxFuture<'a, $crate::HookResult<()>>
    };
    (@async observe $ctx:ty) => {
        for<'a> fn(&'a $ctx) -> $crate::BoxFuture<'a, $crate::HookResult<()>>
    };
    (@async recover $ctx:ty) => {
        for<'a> fn(&'a $ctx) -> $crate::BoxFuture<'a, $crate::HookResult<::core::option::Option<$crate::Recovery>>>
    };
    // `dispatch` / `dispatch_async` for the point; `#[must_use]` where the outcome is a decision.
    (@dispatch guard $ctx:ty) => {
        $crate::__declare_point!(@dispatch_fns [#[must_use = "the verdict decides whether to go on"]] guard $ctx);
    };
    (@dispatch recover $ctx:ty) => {
        $crate::__declare_point!(@dispatch_shared_fns [#[must_use = "the recovery decides what to do next"]] recover $ctx);
    };
    (@dispatch observe $ctx:ty) => {
        $crate::__declare_point!(@dispatch_shared_fns [] observe $ctx);
    };
    (@dispatch $kind:ident $ctx:ty) => {
        $crate::__declare_point!(@dispatch_fns [] $kind $ctx);
    };
    (@dispatch_shared_fns [$(#[$must_use:meta])?] $kind:ident $ctx:ty) => {
        /// Run this point's link-time hooks synchronously; see
        /// [`hookrail_core::dispatch_shared`](fn@$crate::dispatch_shared).
        $(#[$must_use])?
        #[inline(always)]
        pub fn dispatch(
            ctx: &$ctx,
        ) -> $crate::Outcome<<$crate::__declare_point!(@kind $kind) as $crate::Kind>::Ret> {
            $crate::dispatch_shared::<Point>(ctx)
        }

        /// Run this point's link-time hooks, sync and async; see
        /// [`hookrail_core::dispatch_shared_async`](fn@$crate::dispatch_shared_async).
        $(#[$must_use])?
        pub async fn dispatch_async(
            ctx: &$ctx,
        ) -> $crate::Outcome<<$crate::__declare_point!(@kind $kind) as $crate::Kind>::Ret> {
            $crate::dispatch_shared_async::<Point>(ctx).await
        }
    };
    (@dispatch_fns [$(#[$must_use:meta])?] $kind:ident $ctx:ty) => {
        /// Run this point's link-time hooks synchronously; see
        /// [`hookrail_core::dispatch`](fn@$crate::dispatch).
        $(#[$must_use])?
        #[inline(always)]
        pub fn dispatch(
            ctx: &mut $ctx,
        ) -> $crate::Outcome<<$crate::__declare_point!(@kind $kind) as $crate::Kind>::Ret> {
            $crate::dispatch::<Point>(ctx)
        }

        /// Run this point's link-time hooks, sync and async; see
        /// [`hookrail_core::dispatch_async`](fn@$crate::dispatch_async).
        $(#[$must_use])?
        pub async fn dispatch_async(
            ctx: &mut $ctx,
        ) -> $crate::Outcome<<$crate::__declare_point!(@kind $kind) as $crate::Kind>::Ret> {
            $crate::dispatch_async::<Point>(ctx).await
        }
    };
    // The argument and result types of a hook at each kind, named by `#[hook]`'s type check.
    (@types guard $ctx:ty) => {
        #[doc(hidden)]
        pub type __Arg<'a> = &'a mut $ctx;
        #[doc(hidden)]
        pub type __Ret = $crate::Verdict;
    };
    (@types transform $ctx:ty) => {
        #[doc(hidden)]
        pub type __Arg<'a> = &'a mut $ctx;
        #[doc(hidden)]
        pub type __Ret = ();
    };
    (@types observe $ctx:ty) => {
        #[doc(hidden)]
        pub type __Arg<'a> = &'a $ctx;
        #[doc(hidden)]
        pub type __Ret = ();
    };
    (@types recover $ctx:ty) => {
        #[doc(hidden)]
        pub type __Arg<'a> = &'a $ctx;
        #[doc(hidden)]
        pub type __Ret = ::core::option::Option<$crate::Recovery>;
    };
    (@kind $other:ident) => {
        ::core::compile_error!(::core::concat!(
            "unknown hook kind `", ::core::stringify!($other),
            "`; expected `guard`, `transform`, `observe` or `recover`"
        ))
    };
}

/// linkme backend: one distributed slice per point, plus an entry in the list of points.
#[cfg(not(any(feature = "inventory", hooks_backend = "inventory")))]
#[doc(hidden)]
#[macro_export]
macro_rules! __backend_declare {
    ($slice:ident) => {
        #[doc(hidden)]
        #[$crate::__private::linkme::distributed_slice]
        #[linkme(crate = $crate::__private::linkme)]
        pub static $slice: [$crate::HookEntry<Point>];

        #[doc(hidden)]
        pub use $slice as SLICE;

        fn __collect() -> ::std::vec::Vec<&'static $crate::HookEntry<Point>> {
            SLICE.iter().collect()
        }

        #[$crate::__private::linkme::distributed_slice($crate::__private::POINTS)]
        #[linkme(crate = $crate::__private::linkme)]
        static __POINT: &'static $crate::PointInfo = &__POINT_INFO;
    };
}

/// inventory backend: one collected wrapper type per point, plus an entry in the list of points.
#[cfg(any(feature = "inventory", hooks_backend = "inventory"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __backend_declare {
    ($slice:ident) => {
        #[doc(hidden)]
        pub struct SLICE(pub $crate::HookEntry<Point>);

        $crate::__private::inventory::collect!(SLICE);

        fn __collect() -> ::std::vec::Vec<&'static $crate::HookEntry<Point>> {
            $crate::__private::inventory::iter::<SLICE>
                .into_iter()
                .map(|e| &e.0)
                .collect()
        }

        $crate::__private::inventory::submit! { $crate::__private::PointRef(&__POINT_INFO) }
    };
}

/// Registers one hook entry (linkme backend).
#[cfg(not(any(feature = "inventory", hooks_backend = "inventory")))]
#[doc(hidden)]
#[macro_export]
macro_rules! __register_hook {
    (slice: $slice:path, point: $point:ty, entry: $entry:expr) => {
        #[$crate::__private::linkme::distributed_slice($slice)]
        #[linkme(crate = $crate::__private::linkme)]
        static __HOOKS_ENTRY: $crate::HookEntry<$point> = $entry;
    };
}

/// Registers one hook entry (inventory backend).
#[cfg(any(feature = "inventory", hooks_backend = "inventory"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __register_hook {
    (slice: $slice:path, point: $point:ty, entry: $entry:expr) => {
        $crate::__private::inventory::submit! { $slice($entry) }
    };
}

/// Every declared point, standard and custom (linkme backend).
#[cfg(not(any(feature = "inventory", hooks_backend = "inventory")))]
#[linkme::distributed_slice]
pub static HOOKS_CORE_V0_POINTS: [&'static crate::PointInfo];

#[cfg(not(any(feature = "inventory", hooks_backend = "inventory")))]
pub use HOOKS_CORE_V0_POINTS as POINTS;

/// Every declared point, standard and custom (inventory backend).
#[cfg(any(feature = "inventory", hooks_backend = "inventory"))]
pub struct PointRef(pub &'static crate::PointInfo);

#[cfg(any(feature = "inventory", hooks_backend = "inventory"))]
inventory::collect!(PointRef);

/// All declared points, in no particular order.
pub(crate) fn all_points() -> Vec<&'static crate::PointInfo> {
    #[cfg(not(any(feature = "inventory", hooks_backend = "inventory")))]
    {
        POINTS.iter().copied().collect()
    }
    #[cfg(any(feature = "inventory", hooks_backend = "inventory"))]
    {
        inventory::iter::<PointRef>
            .into_iter()
            .map(|p| p.0)
            .collect()
    }
}
