//! Heap allocations per dispatch, counted by a thread-local counting allocator: synchronous
//! dispatch allocates nothing; each async hook costs exactly one allocation (its boxed future).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use hookrail_core::{Recovery, Verdict, hook};

struct Counting;

thread_local! {
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator; the counter is a thread-local `Cell`, touched with
// `try_with` so that allocation during thread teardown still works.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_during(f: impl FnOnce()) -> usize {
    let before = ALLOCS.with(Cell::get);
    f();
    ALLOCS.with(Cell::get) - before
}

/// Polls a future that never waits; allocates nothing itself.
fn block_on<F: Future>(fut: F) -> F::Output {
    let mut fut = pin!(fut);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

#[derive(Default)]
pub struct Ctx {
    pub n: u64,
}

pub mod points {
    use super::Ctx;
    hookrail_core::hook_points! {
        pub guard empty: Ctx;
        pub guard guards: Ctx;
        pub transform transforms: Ctx;
        pub observe observers: Ctx;
        pub recover recoverers: Ctx;
        pub guard with_async: Ctx;
    }
}

macro_rules! guards {
    ($($name:ident => $v:expr),*) => {$(
        #[hook(crate::points::guards)]
        fn $name(ctx: &mut Ctx) -> Verdict { ctx.n += 1; $v }
    )*};
}
guards!(g1 => Verdict::Continue, g2 => Verdict::Allow, g3 => Verdict::Continue,
        g4 => Verdict::ask("static reasons cost nothing"), g5 => Verdict::Allow,
        g6 => Verdict::Continue, g7 => Verdict::Continue, g8 => Verdict::Allow);

#[hook(crate::points::transforms)]
fn t1(ctx: &mut Ctx) {
    ctx.n += 1;
}
#[hook(crate::points::transforms)]
fn t2(ctx: &mut Ctx) -> Result<(), std::io::Error> {
    ctx.n += 1;
    Ok(())
}
#[hook(crate::points::observers)]
fn o1(ctx: &Ctx) {
    std::hint::black_box(ctx.n);
}
#[hook(crate::points::observers)]
fn o2(ctx: &Ctx) {
    std::hint::black_box(ctx.n);
}
#[hook(crate::points::recoverers)]
fn r1(_: &Ctx) -> Option<Recovery> {
    None
}
#[hook(crate::points::recoverers)]
fn r2(_: &Ctx) -> Option<Recovery> {
    None
}

#[hook(crate::points::with_async, order = 1)]
fn wa_sync(ctx: &mut Ctx) -> Verdict {
    ctx.n += 1;
    Verdict::Continue
}
#[hook(crate::points::with_async, order = 2)]
async fn wa_async_1(ctx: &mut Ctx) -> Verdict {
    ctx.n += 1;
    Verdict::Continue
}
#[hook(crate::points::with_async, order = 3)]
async fn wa_async_2(ctx: &mut Ctx) -> Verdict {
    ctx.n += 1;
    Verdict::Allow
}

const RUNS: usize = 1000;

/// Builds the point's registry (a one-time allocation) before counting.
fn warm<T>(f: impl Fn() -> T) {
    let _ = f();
}

#[test]
fn sync_dispatch_of_a_point_without_hooks_allocates_nothing() {
    let mut ctx = Ctx::default();
    warm(|| points::empty::dispatch(&mut Ctx::default()));
    let n = allocations_during(|| {
        for _ in 0..RUNS {
            let _ = std::hint::black_box(points::empty::dispatch(&mut ctx));
        }
    });
    assert_eq!(n, 0);
}

#[test]
fn sync_dispatch_of_eight_guards_allocates_nothing() {
    let mut ctx = Ctx::default();
    warm(|| points::guards::dispatch(&mut Ctx::default()));
    let n = allocations_during(|| {
        for _ in 0..RUNS {
            let out = points::guards::dispatch(&mut ctx);
            assert_eq!(out.value.severity(), 2);
        }
    });
    assert_eq!(n, 0);
    assert_eq!(ctx.n, 8 * RUNS as u64, "all eight guards ran every time");
}

#[test]
fn sync_dispatch_of_transforms_observers_and_recoverers_allocates_nothing() {
    let mut ctx = Ctx::default();
    warm(|| points::transforms::dispatch(&mut Ctx::default()));
    warm(|| points::observers::dispatch(&Ctx::default()));
    warm(|| points::recoverers::dispatch(&Ctx::default()));
    let n = allocations_during(|| {
        for _ in 0..RUNS {
            let _ = points::transforms::dispatch(&mut ctx);
            let _ = points::observers::dispatch(&ctx);
            let _ = points::recoverers::dispatch(&ctx);
        }
    });
    assert_eq!(n, 0);
    assert_eq!(ctx.n, 2 * RUNS as u64);
}

#[test]
fn async_dispatch_of_sync_hooks_allocates_nothing() {
    let mut ctx = Ctx::default();
    warm(|| block_on(points::guards::dispatch_async(&mut Ctx::default())));
    let n = allocations_during(|| {
        for _ in 0..RUNS {
            let _ = block_on(points::guards::dispatch_async(&mut ctx));
        }
    });
    assert_eq!(n, 0);
}

#[test]
fn async_dispatch_costs_one_allocation_per_async_hook() {
    let mut ctx = Ctx::default();
    warm(|| block_on(points::with_async::dispatch_async(&mut Ctx::default())));
    let n = allocations_during(|| {
        for _ in 0..RUNS {
            let out = block_on(points::with_async::dispatch_async(&mut ctx));
            assert_eq!(out.value, Verdict::Allow);
        }
    });
    assert_eq!(
        n,
        2 * RUNS,
        "two async hooks: exactly two boxed futures per dispatch"
    );
    assert_eq!(ctx.n, 3 * RUNS as u64);
}

/// The runtime's sync dispatch: a lock-free snapshot load, link-time fns, a provider's method
/// and a runtime closure, with a hook-run subscriber and a bus subscriber to another point
/// attached. Nothing allocates.
#[test]
#[cfg(feature = "runtime")]
fn runtime_sync_dispatch_allocates_nothing() {
    use hookrail_core::runtime::{Hook, Hooks};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    let hooks = Hooks::builder()
        .ignore_env()
        .hook(Hook::<points::guards::Point>::new("closure", |ctx| {
            ctx.n += 1;
            Verdict::Continue
        }))
        .build()
        .expect("no duplicate names");
    let runs = Arc::new(AtomicUsize::new(0));
    let seen = runs.clone();
    hooks.subscribe(move |_| {
        seen.fetch_add(1, Ordering::Relaxed);
    });
    // A bus subscriber to another point: the bus is active, but this point is not published.
    let elsewhere = hooks.bus().subscribe(hookrail_core::bus::Filter::topic::<
        hookrail_core::points::stop::Point,
    >());
    let mut ctx = Ctx::default();
    warm(|| hooks.dispatch::<points::guards::Point>(&mut Ctx::default()));
    let n = allocations_during(|| {
        for _ in 0..RUNS {
            let out = hooks.dispatch::<points::guards::Point>(&mut ctx);
            assert_eq!(out.value.severity(), 2);
        }
    });
    assert_eq!(n, 0);
    assert_eq!(
        ctx.n,
        9 * RUNS as u64,
        "eight link-time guards and the closure ran"
    );
    assert_eq!(
        runs.load(Ordering::Relaxed),
        9 * (RUNS + 1),
        "every run was delivered"
    );
    assert!(elsewhere.is_empty(), "the other point was never dispatched");
}

/// A bus subscriber whose queue is full: the dispatch counts the drop without copying the
/// context, so a stuck subscriber costs no allocation.
#[test]
#[cfg(feature = "runtime")]
fn a_stuck_bus_subscriber_costs_a_dispatch_no_allocation() {
    use hookrail_core::bus::Filter;
    use hookrail_core::context::{Meta, PreToolUse};
    use hookrail_core::points::pre_tool_use;
    use hookrail_core::runtime::Hooks;

    let hooks = Hooks::builder().ignore_env().build().expect("no hooks");
    let stuck = hooks
        .bus()
        .subscribe_with_capacity(Filter::topic::<pre_tool_use::Point>(), 1);
    let mut ctx = PreToolUse::new(
        Meta::new("s1"),
        "Bash",
        serde_json::json!({"command": "ls"}),
    );
    // Fills the queue (this one allocates: the event is built and queued).
    hooks.dispatch::<pre_tool_use::Point>(&mut ctx);
    assert_eq!(stuck.len(), 1);
    let n = allocations_during(|| {
        for _ in 0..RUNS {
            let _ = hooks.dispatch::<pre_tool_use::Point>(&mut ctx);
        }
    });
    assert_eq!(n, 0);
    assert_eq!(
        stuck.dropped(),
        RUNS as u64,
        "every later event was counted as dropped"
    );
}

/// A provider that answers `is_enabled`: after the first dispatch of a session (which asks
/// and remembers the answer), its dispatches read the answer without allocating, enabled or
/// not.
#[test]
#[cfg(feature = "runtime")]
fn a_provider_gated_per_session_allocates_nothing_once_the_session_is_known() {
    use hookrail_core::HookResult;
    use hookrail_core::context::{Meta, PreToolUse};
    use hookrail_core::points::pre_tool_use;
    use hookrail_core::runtime::{Hooks, HooksProvider, PointSet};

    struct OnlyS1;
    impl HooksProvider for OnlyS1 {
        fn name(&self) -> &str {
            "only_s1"
        }
        fn points(&self) -> PointSet {
            PointSet::PRE_TOOL_USE
        }
        fn is_enabled(&self, meta: &Meta) -> bool {
            &*meta.session_id == "s1"
        }
        fn pre_tool_use(&self, _ctx: &mut PreToolUse) -> HookResult<Verdict> {
            Ok(Verdict::Allow)
        }
    }

    let hooks = Hooks::builder()
        .ignore_env()
        .provider(OnlyS1)
        .build()
        .expect("no duplicate names");
    let mut on = PreToolUse::new(Meta::new("s1"), "Bash", serde_json::json!({}));
    let mut off = PreToolUse::new(Meta::new("s2"), "Bash", serde_json::json!({}));
    // The first dispatch of each session asks the provider and stores its answer.
    hooks.dispatch::<pre_tool_use::Point>(&mut on);
    hooks.dispatch::<pre_tool_use::Point>(&mut off);
    let n = allocations_during(|| {
        for _ in 0..RUNS {
            assert_eq!(
                hooks.dispatch::<pre_tool_use::Point>(&mut on).value,
                Verdict::Allow
            );
            assert_eq!(
                hooks.dispatch::<pre_tool_use::Point>(&mut off).value,
                Verdict::Continue
            );
        }
    });
    assert_eq!(n, 0);
}
