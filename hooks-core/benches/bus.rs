//! What the event bus costs a synchronous dispatch, in one run:
//!
//! - `no_subscriber`: `Hooks::dispatch` of `pre_tool_use` with one trivial closure guard and
//!   nobody on the bus (the baseline: every program that does not use the bus).
//! - `subscriber_elsewhere`: the same with a subscription to another point, so the bus is
//!   active but this point is not published.
//! - `published`: the same with a subscription to this point, drained each iteration: the
//!   context is cloned once and the outcome summarized (the price of being observed).
//! - `published_full_queue`: a subscription to this point that is never drained: every
//!   publish finds the queue full, drops and counts (the price of a stuck subscriber).
//!
//! Run: `cargo bench -p hookrail-core --bench bus` (figures of record: the bench executable
//! pinned with `taskset -c 1`, see BENCHMARKS.md).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use hookrail_core::Verdict;
use hookrail_core::bus::Filter;
use hookrail_core::context::{Meta, PreToolUse};
use hookrail_core::points::{pre_tool_use, stop};
use hookrail_core::runtime::{Hook, Hooks};
use serde_json::json;

fn hooks() -> Hooks {
    Hooks::builder()
        .ignore_env()
        .hook(Hook::<pre_tool_use::Point>::new("trivial", |ctx| {
            black_box(&ctx.tool_name);
            Verdict::Continue
        }))
        .build()
        .expect("one hook")
}

fn ctx() -> PreToolUse {
    PreToolUse::new(
        Meta::new("session-1"),
        "Bash",
        json!({"command": "cargo test --workspace", "description": "run the tests"}),
    )
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("bus");

    let plain = hooks();
    let mut ctx = ctx();
    group.bench_function("no_subscriber", |b| {
        b.iter(|| black_box(plain.dispatch::<pre_tool_use::Point>(black_box(&mut ctx))))
    });

    let elsewhere = hooks();
    let _other = elsewhere.bus().subscribe(Filter::topic::<stop::Point>());
    group.bench_function("subscriber_elsewhere", |b| {
        b.iter(|| black_box(elsewhere.dispatch::<pre_tool_use::Point>(black_box(&mut ctx))))
    });

    let observed = hooks();
    let mut sub = observed
        .bus()
        .subscribe(Filter::topic::<pre_tool_use::Point>());
    group.bench_function("published", |b| {
        b.iter(|| {
            let out = observed.dispatch::<pre_tool_use::Point>(black_box(&mut ctx));
            black_box(sub.try_recv());
            out
        })
    });
    assert_eq!(sub.dropped(), 0);

    let stuck = hooks();
    let full = stuck
        .bus()
        .subscribe_with_capacity(Filter::topic::<pre_tool_use::Point>(), 1);
    group.bench_function("published_full_queue", |b| {
        b.iter(|| black_box(stuck.dispatch::<pre_tool_use::Point>(black_box(&mut ctx))))
    });
    assert!(full.dropped() > 0);

    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
