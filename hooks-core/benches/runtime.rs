//! Async runtime dispatch overhead: N trivial async guard hooks at one point, run by
//! `Hooks::dispatch_async` (per-hook timeout and panic isolation) against awaiting the same
//! async fn directly, in the same run.
//!
//! - `direct/N`: N boxed futures of the trivial async fn, made through a fn pointer (as a
//!   `#[hook] async fn` shim makes them) and awaited one after another, verdicts folded to the
//!   most restrictive one. The floor for boxed async hooks.
//! - `direct_unboxed/N`: the same async fn awaited in place, unboxed (the compiler sees through
//!   it: this is the cost of the harness itself, mostly `block_on`).
//! - `runtime_closure/N`: `Hooks::dispatch_async` of a point with N `Hook::new_async` closures.
//! - `runtime_static/N`: `Hooks::dispatch_async` of a point with N `#[hook] async fn`s.
//! - `*_yielding/N`: the same, with a hook body that yields once to the executor
//!   (`tokio::task::yield_now`) before returning, so that its future returns `Pending` once and
//!   the dispatcher arms the hook's timer; against `direct_yielding/N`.
//!
//! The trivial hooks complete on their first poll (the common case), so the dispatcher arms no
//! timer for them; what they measure is the per-hook bookkeeping: the unwind guards, the clock
//! reads for the run's duration, the run record, the merge and the `Outcome`.
//!
//! Criterion's `async_tokio` feature is not enabled in this workspace, so every variant runs one
//! `block_on` of a current-thread tokio runtime (timer enabled) per iteration; that cost is the
//! same in all of them and cancels in the differences.
//!
//! Run: `cargo bench -p hookrail-core --bench runtime` (figures of record: the bench executable
//! pinned with `taskset -c 1`, see BENCHMARKS.md).

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use hookrail_core::kind::BoxFuture;
use hookrail_core::runtime::{Hook, Hooks};
use hookrail_core::{FailureCause, HookPoint, Outcome, Verdict, hook};

#[derive(Default)]
pub struct Ctx {
    pub n: u64,
}

pub mod points {
    use super::Ctx;
    hookrail_core::hook_points! {
        /// Closures only (no `#[hook]` fns): each `Hooks` value registers its own.
        pub guard bench_async: Ctx;
        pub guard bench_async_1: Ctx;
        pub guard bench_async_8: Ctx;
        pub guard bench_yield_1: Ctx;
        pub guard bench_yield_8: Ctx;
    }
}

/// The trivial hook body: it returns `Continue` and touches nothing (see `dispatch.rs` for why
/// it does not count).
#[inline(always)]
fn body(_ctx: &mut Ctx) -> Verdict {
    Verdict::Continue
}

/// The trivial async hook: completes on its first poll.
async fn trivial(ctx: &mut Ctx) -> Verdict {
    body(ctx)
}

/// The yielding async hook: returns `Pending` once, then completes.
async fn yielding(ctx: &mut Ctx) -> Verdict {
    tokio::task::yield_now().await;
    body(ctx)
}

macro_rules! hooks {
    ($point:ident, $f:ident: $($name:ident)*) => {$(
        #[hook(crate::points::$point)]
        async fn $name(ctx: &mut Ctx) -> Verdict {
            $f(ctx).await
        }
    )*};
}

hooks!(bench_async_1, trivial: a1_0);
hooks!(bench_async_8, trivial: a8_0 a8_1 a8_2 a8_3 a8_4 a8_5 a8_6 a8_7);
hooks!(bench_yield_1, yielding: y1_0);
hooks!(bench_yield_8, yielding: y8_0 y8_1 y8_2 y8_3 y8_4 y8_5 y8_6 y8_7);

type DirectFn = for<'a> fn(&'a mut Ctx) -> BoxFuture<'a, Verdict>;

/// What `direct` awaits: the boxed future of the hook's async fn, made out of line as a
/// `#[hook] async fn` shim makes it (and so that the allocation cannot be optimized away).
#[inline(never)]
fn boxed_trivial(ctx: &mut Ctx) -> BoxFuture<'_, Verdict> {
    Box::pin(trivial(ctx))
}

#[inline(never)]
fn boxed_yielding(ctx: &mut Ctx) -> BoxFuture<'_, Verdict> {
    Box::pin(yielding(ctx))
}

/// Await the boxed futures one after another, folding the verdicts as a guard point does.
async fn direct(fns: &[DirectFn], ctx: &mut Ctx) -> Verdict {
    let mut merged = Verdict::Continue;
    for f in fns {
        let v = f(ctx).await;
        let deny = v.is_deny();
        if v.severity() > merged.severity() {
            merged = v;
        }
        if deny {
            break;
        }
    }
    merged
}

/// A `Hooks` value with `n` async closures at `bench_async`, each awaiting `yielding` (if
/// `yields`) or `trivial`.
fn closures(n: usize, yields: bool) -> Hooks {
    let mut builder = Hooks::builder().ignore_env();
    for i in 0..n {
        let name = format!("c{n}_{i}");
        let hook = if yields {
            Hook::<points::bench_async::Point>::new_async(name, |mut ctx| {
                Box::pin(async move { yielding(&mut ctx).await })
            })
        } else {
            Hook::<points::bench_async::Point>::new_async(name, |mut ctx| {
                Box::pin(async move { trivial(&mut ctx).await })
            })
        };
        builder = builder.hook(hook);
    }
    builder.build().expect("distinct hook names")
}

/// Dispatch point `P` once (which also makes a custom point known to `hooks`) and check that
/// its `n` hooks are async and ran without failing.
fn check<P: HookPoint<Context = Ctx, Kind = hookrail_core::kind::Guard>>(
    rt: &tokio::runtime::Runtime,
    hooks: &Hooks,
    n: usize,
) {
    let out: Outcome<Verdict> = rt.block_on(hooks.dispatch_async::<P>(&mut Ctx::default()));
    assert_eq!(out.value, Verdict::Continue);
    assert!(out.failures.is_empty(), "{:?}", out.failures);
    let listed: Vec<_> = hooks
        .list()
        .into_iter()
        .filter(|h| h.point == P::NAME)
        .collect();
    assert_eq!(listed.len(), n, "{} has {n} hooks", P::NAME);
    assert!(listed.iter().all(|h| h.is_async && h.enabled));
}

/// A hook whose future pends gets its timer armed on this runtime (rather than running
/// unbounded for want of a timer): a hook that keeps yielding for 50 ms times out at 1 ms.
fn check_timer(rt: &tokio::runtime::Runtime) {
    let spin = Hook::<points::bench_async::Point>::new_async("spin", |_| {
        Box::pin(async {
            let start = std::time::Instant::now();
            while start.elapsed() < Duration::from_millis(50) {
                tokio::task::yield_now().await;
            }
            Verdict::Continue
        })
    });
    let hooks = Hooks::builder()
        .ignore_env()
        .hook(spin.timeout(Duration::from_millis(1)))
        .build()
        .expect("one hook");
    let out = rt.block_on(hooks.dispatch_async::<points::bench_async::Point>(&mut Ctx::default()));
    assert!(
        matches!(
            out.failures.first().map(|f| &f.cause),
            Some(FailureCause::Timeout(_))
        ),
        "the timer is armed when a hook pends: {:?}",
        out.failures
    );
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a current-thread runtime");
    check_timer(&rt);

    let statics = Hooks::builder()
        .ignore_env()
        .build()
        .expect("no runtime hooks");
    check::<points::bench_async_1::Point>(&rt, &statics, 1);
    check::<points::bench_async_8::Point>(&rt, &statics, 8);
    check::<points::bench_yield_1::Point>(&rt, &statics, 1);
    check::<points::bench_yield_8::Point>(&rt, &statics, 8);

    let mut group = c.benchmark_group("runtime");
    group
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    for n in [1usize, 8] {
        let closure = closures(n, false);
        let closure_yielding = closures(n, true);
        check::<points::bench_async::Point>(&rt, &closure, n);
        check::<points::bench_async::Point>(&rt, &closure_yielding, n);

        let fns: Vec<DirectFn> = vec![boxed_trivial; n];
        group.bench_with_input(BenchmarkId::new("direct", n), &fns, |b, fns| {
            let mut ctx = Ctx::default();
            b.iter(|| {
                rt.block_on(async {
                    black_box(direct(black_box(fns.as_slice()), &mut ctx).await.severity())
                })
            });
        });
        group.bench_with_input(BenchmarkId::new("direct_unboxed", n), &n, |b, &n| {
            let mut ctx = Ctx::default();
            b.iter(|| {
                rt.block_on(async {
                    let mut merged = Verdict::Continue;
                    for _ in 0..black_box(n) {
                        let v = trivial(&mut ctx).await;
                        let deny = v.is_deny();
                        if v.severity() > merged.severity() {
                            merged = v;
                        }
                        if deny {
                            break;
                        }
                    }
                    black_box(merged.severity())
                })
            });
        });
        group.bench_with_input(
            BenchmarkId::new("runtime_closure", n),
            &closure,
            |b, hooks| {
                let mut ctx = Ctx::default();
                b.iter(|| {
                    rt.block_on(async {
                        let out = hooks
                            .dispatch_async::<points::bench_async::Point>(&mut ctx)
                            .await;
                        black_box(out.value.severity())
                    })
                });
            },
        );
        macro_rules! bench_static {
            ($id:literal, $point:ident) => {
                group.bench_function(BenchmarkId::new($id, n), |b| {
                    let mut ctx = Ctx::default();
                    b.iter(|| {
                        rt.block_on(async {
                            let out = statics
                                .dispatch_async::<points::$point::Point>(&mut ctx)
                                .await;
                            black_box(out.value.severity())
                        })
                    });
                })
            };
        }
        match n {
            1 => bench_static!("runtime_static", bench_async_1),
            _ => bench_static!("runtime_static", bench_async_8),
        };

        let fns: Vec<DirectFn> = vec![boxed_yielding; n];
        group.bench_with_input(BenchmarkId::new("direct_yielding", n), &fns, |b, fns| {
            let mut ctx = Ctx::default();
            b.iter(|| {
                rt.block_on(async {
                    black_box(direct(black_box(fns.as_slice()), &mut ctx).await.severity())
                })
            });
        });
        group.bench_with_input(
            BenchmarkId::new("runtime_closure_yielding", n),
            &closure_yielding,
            |b, hooks| {
                let mut ctx = Ctx::default();
                b.iter(|| {
                    rt.block_on(async {
                        let out = hooks
                            .dispatch_async::<points::bench_async::Point>(&mut ctx)
                            .await;
                        black_box(out.value.severity())
                    })
                });
            },
        );
        match n {
            1 => bench_static!("runtime_static_yielding", bench_yield_1),
            _ => bench_static!("runtime_static_yielding", bench_yield_8),
        };
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
