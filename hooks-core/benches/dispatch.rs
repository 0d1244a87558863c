//! Dispatch overhead: N trivial guard hooks at one point, three ways.
//!
//! - `direct/N`: N `#[inline(never)]` fns called through fn pointers, their verdicts folded to
//!   the most restrictive one. The floor: what any registry must at least do.
//! - `static/N`: `hookrail_core::dispatch` of a point with N `#[hook]` fns (verdict merging, panic
//!   isolation and failure policy included).
//! - `dyn_registry/N`: a `RwLock<Vec<Box<dyn Fn>>>` registry with the same merge rule, which is
//!   what most runtimes do.
//!
//! Each variant hands the merged verdict's severity to `black_box`, as a caller that branches
//! on the verdict would use it (black-boxing the 24-byte `Verdict` itself costs ~5 ns on the
//! reference machine and would swamp the small cases).
//!
//! Run: `cargo bench -p hookrail-core --bench dispatch`.

use std::hint::black_box;
use std::sync::RwLock;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use hookrail_core::{Verdict, hook};

#[derive(Default)]
pub struct Ctx {
    pub n: u64,
}

pub mod points {
    use super::Ctx;
    hookrail_core::hook_points! {
        pub guard bench_0: Ctx;
        pub guard bench_1: Ctx;
        pub guard bench_8: Ctx;
        pub guard bench_32: Ctx;
    }
}

/// The trivial hook body, shared by all three variants: it returns `Continue` and touches
/// nothing.
///
/// An earlier body incremented a counter in the context. That chains every hook to the previous
/// one through a store and a reload (~5 cycles of store forwarding per hook), and that latency
/// chain, the same in all three variants, hid the dispatch overhead this benchmark exists to
/// measure (all three were level at N = 8).
#[inline(always)]
fn body(_ctx: &mut Ctx) -> Verdict {
    Verdict::Continue
}

macro_rules! hooks {
    ($point:ident: $($name:ident)*) => {$(
        // Not `#[inline(never)]`: the generated shim is what the dispatcher calls through a fn
        // pointer, as `direct` calls its `#[inline(never)]` fns.
        #[hook(crate::points::$point)]
        fn $name(ctx: &mut Ctx) -> Verdict {
            body(ctx)
        }
    )*};
}

hooks!(bench_1: h1_0);
hooks!(bench_8: h8_0 h8_1 h8_2 h8_3 h8_4 h8_5 h8_6 h8_7);
hooks!(bench_32:
    h32_00 h32_01 h32_02 h32_03 h32_04 h32_05 h32_06 h32_07 h32_08 h32_09 h32_10 h32_11 h32_12
    h32_13 h32_14 h32_15 h32_16 h32_17 h32_18 h32_19 h32_20 h32_21 h32_22 h32_23 h32_24 h32_25
    h32_26 h32_27 h32_28 h32_29 h32_30 h32_31);

#[inline(never)]
fn direct_hook(ctx: &mut Ctx) -> Verdict {
    body(ctx)
}

type DynHook = Box<dyn Fn(&mut Ctx) -> Verdict + Send + Sync>;

fn dyn_dispatch(registry: &RwLock<Vec<DynHook>>, ctx: &mut Ctx) -> Verdict {
    let hooks = registry.read().unwrap_or_else(|e| e.into_inner());
    let mut merged = Verdict::Continue;
    for hook in hooks.iter() {
        let v = hook(ctx);
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

/// The static dispatch of the bench point with `n` hooks.
fn static_dispatch(n: usize) -> fn(&mut Ctx) -> hookrail_core::Outcome<Verdict> {
    match n {
        0 => points::bench_0::dispatch,
        1 => points::bench_1::dispatch,
        8 => points::bench_8::dispatch,
        32 => points::bench_32::dispatch,
        _ => unreachable!("no bench point with {n} hooks"),
    }
}

fn static_len(n: usize) -> usize {
    use hookrail_core::HookPoint;
    match n {
        0 => points::bench_0::Point::registry().hooks().len(),
        1 => points::bench_1::Point::registry().hooks().len(),
        8 => points::bench_8::Point::registry().hooks().len(),
        32 => points::bench_32::Point::registry().hooks().len(),
        _ => unreachable!("no bench point with {n} hooks"),
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("dispatch");
    group
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    for n in [0usize, 1, 8, 32] {
        let fns: Vec<fn(&mut Ctx) -> Verdict> = vec![direct_hook; n];
        group.bench_with_input(BenchmarkId::new("direct", n), &fns, |b, fns| {
            let mut ctx = Ctx::default();
            b.iter(|| {
                let mut merged = Verdict::Continue;
                for f in black_box(fns.as_slice()) {
                    let v = f(&mut ctx);
                    let deny = v.is_deny();
                    if v.severity() > merged.severity() {
                        merged = v;
                    }
                    if deny {
                        break;
                    }
                }
                black_box(merged.severity())
            });
        });

        // Build the registry (sorted once, on first use) before measuring, and check that the
        // point has its hooks and that they run.
        let mut ctx = Ctx::default();
        assert!(!static_dispatch(n)(&mut ctx).is_denied());
        assert_eq!(static_len(n), n, "the bench point has {n} hooks");
        macro_rules! bench_static {
            ($point:ident) => {
                group.bench_function(BenchmarkId::new("static", n), |b| {
                    let mut ctx = Ctx::default();
                    b.iter(|| black_box(points::$point::dispatch(&mut ctx).value.severity()));
                })
            };
        }
        match n {
            0 => bench_static!(bench_0),
            1 => bench_static!(bench_1),
            8 => bench_static!(bench_8),
            _ => bench_static!(bench_32),
        };

        let registry: RwLock<Vec<DynHook>> =
            RwLock::new((0..n).map(|_| Box::new(body) as DynHook).collect());
        group.bench_with_input(
            BenchmarkId::new("dyn_registry", n),
            &registry,
            |b, registry| {
                let mut ctx = Ctx::default();
                b.iter(|| black_box(dyn_dispatch(registry, &mut ctx).severity()));
            },
        );
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
