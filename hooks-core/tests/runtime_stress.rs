//! Live changes under load: 8 threads dispatch while another registers, unregisters, enables
//! and disables hooks. Every dispatch runs exactly one snapshot of the set: the permanent
//! hooks run exactly once each (none lost, none doubled), no hook runs twice, and the order is
//! the snapshot's.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread;

use hookrail_core::Verdict;
use hookrail_core::runtime::{Hook, Hooks};

pub mod points {
    hookrail_core::hook_points! {
        pub guard work: super::Work;
    }
}

#[derive(Default)]
pub struct Work {
    pub trail: Vec<&'static str>,
}

#[hookrail_core::hook(crate::points::work, name = "permanent_static")]
fn permanent_static(ctx: &mut Work) -> Verdict {
    ctx.trail.push("permanent_static");
    Verdict::Continue
}

fn tracer(name: &'static str, order: i32) -> Hook<points::work::Point> {
    Hook::<points::work::Point>::new(name, move |ctx| {
        ctx.trail.push(name);
        Verdict::Continue
    })
    .order(order)
}

const TRANSIENT: [&str; 4] = ["t0", "t1", "t2", "t3"];

#[test]
fn eight_dispatching_threads_and_a_mutating_one_lose_and_double_nothing() {
    let hooks = Hooks::builder()
        .ignore_env()
        .hook(tracer("permanent_closure", 100))
        .hook(tracer("toggled", 50))
        .build()
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let dispatches = Arc::new(AtomicU64::new(0));
    let permanent_runs = Arc::new(AtomicU64::new(0));

    let workers: Vec<_> = (0..8)
        .map(|_| {
            let hooks = hooks.clone();
            let stop = stop.clone();
            let dispatches = dispatches.clone();
            let permanent_runs = permanent_runs.clone();
            thread::spawn(move || {
                let mut local = 0u64;
                while !stop.load(Ordering::Relaxed) || local < 1000 {
                    let mut ctx = Work::default();
                    let _ = hooks.dispatch::<points::work::Point>(&mut ctx);
                    let trail = &ctx.trail;
                    // Sorted by (order, name) and without repeats: one consistent snapshot.
                    let mut sorted = trail.clone();
                    sorted.dedup();
                    assert_eq!(sorted.len(), trail.len(), "a hook ran twice: {trail:?}");
                    for name in ["permanent_static", "permanent_closure"] {
                        assert_eq!(
                            trail.iter().filter(|n| **n == name).count(),
                            1,
                            "{name} lost or doubled: {trail:?}"
                        );
                    }
                    assert!(trail.iter().filter(|n| **n == "toggled").count() <= 1);
                    assert_eq!(trail.last(), Some(&"permanent_closure"), "{trail:?}");
                    permanent_runs.fetch_add(2, Ordering::Relaxed);
                    local += 1;
                }
                dispatches.fetch_add(local, Ordering::Relaxed);
            })
        })
        .collect();

    let mut changes = 0u32;
    for round in 0..300 {
        let name = TRANSIENT[round % TRANSIENT.len()];
        let id = hooks.register(tracer(name, (round % 7) as i32)).unwrap();
        changes += 1;
        if round % 3 == 0 {
            hooks.disable(name);
            hooks.enable(name);
            changes += 2;
        }
        if round % 2 == 0 {
            hooks.disable("toggled");
        } else {
            hooks.enable("toggled");
        }
        changes += 1;
        assert!(hooks.unregister(id));
        changes += 1;
    }
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        w.join().expect("a worker saw an inconsistent snapshot");
    }
    let total = dispatches.load(Ordering::Relaxed);
    assert!(total >= 8000);
    assert_eq!(permanent_runs.load(Ordering::Relaxed), 2 * total);
    assert!(changes >= 900);
    // Nothing transient is left behind.
    assert!(
        hooks
            .list()
            .iter()
            .all(|h| !TRANSIENT.contains(&h.name.as_str()))
    );
}
