//! The dispatch rules of each kind (DESIGN.md §3), one test per rule. Each test uses points of
//! its own, so that the hooks registered for one test never run in another.

use std::time::Duration;

use hookrail_core::context::Rewritable;
use hookrail_core::{FailureCause, Recovery, Verdict, hook};
use tokio::sync::Barrier;

/// A context that records which hooks ran, in order.
#[derive(Debug, Default)]
pub struct Trail {
    pub ran: Vec<&'static str>,
    pub input: Rewritable<String>,
}

impl Trail {
    fn new(input: &str) -> Self {
        Trail {
            ran: Vec::new(),
            input: Rewritable::new(input.to_owned()),
        }
    }
}

pub mod points {
    use super::Trail;

    hookrail_core::hook_points! {
        /// deny stops the chain
        pub guard deny_stops: Trail;
        /// most restrictive wins
        pub guard most_restrictive: Trail;
        /// rewrites chain in order
        pub guard rewrites: Trail;
        /// a panicking guard denies
        pub guard failing_guard: Trail;
        /// an async guard in a sync dispatch
        pub guard async_guard: Trail;
        /// sync and async guards in order
        pub guard mixed_guard: Trail;
        /// waterfall
        pub transform waterfall: Trail;
        /// a failing transform is skipped
        pub transform failing_transform: Trail;
        /// observers
        pub observe observers: Trail;
        /// async observers run concurrently
        pub observe concurrent: Trail;
        /// first recovery wins
        pub recover first_recovery: Trail;
        /// a failing recoverer is skipped
        pub recover failing_recover: Trail;
        /// no hooks at all
        pub guard empty: Trail;
        /// ties in order are broken by name
        pub transform ties: Trail;
    }
}

// ---- guard: a deny stops the chain ----

#[hook(crate::points::deny_stops, order = 1)]
fn ds_allow(ctx: &mut Trail) -> Verdict {
    ctx.ran.push("allow");
    Verdict::Allow
}
#[hook(crate::points::deny_stops, order = 2)]
fn ds_deny(ctx: &mut Trail) -> Verdict {
    ctx.ran.push("deny");
    Verdict::deny("stop here")
}
#[hook(crate::points::deny_stops, order = 3)]
fn ds_after(ctx: &mut Trail) -> Verdict {
    ctx.ran.push("after");
    Verdict::Allow
}

#[test]
fn guard_deny_stops_the_chain_and_names_the_denier() {
    let mut ctx = Trail::new("x");
    let out = points::deny_stops::dispatch(&mut ctx);
    assert_eq!(ctx.ran, ["allow", "deny"]);
    assert_eq!(out.value, Verdict::deny("stop here"));
    assert_eq!(out.decided_by.as_deref(), Some("semantics::ds_deny"));
    assert!(
        out.decided_by_failure().is_none(),
        "a policy deny is not a failure"
    );
}

// ---- guard: the most restrictive verdict wins ----

#[hook(crate::points::most_restrictive, order = 1)]
fn mr_allow(_: &mut Trail) -> Verdict {
    Verdict::Allow
}
#[hook(crate::points::most_restrictive, order = 2)]
fn mr_ask_first(_: &mut Trail) -> Verdict {
    Verdict::ask("first ask")
}
#[hook(crate::points::most_restrictive, order = 3)]
fn mr_ask_second(_: &mut Trail) -> Verdict {
    Verdict::ask("second ask")
}
#[hook(crate::points::most_restrictive, order = 4)]
fn mr_allow_again(ctx: &mut Trail) -> Verdict {
    ctx.ran.push("allow_again");
    Verdict::Allow
}

#[test]
fn guard_most_restrictive_verdict_wins_and_the_first_of_equals_is_kept() {
    let mut ctx = Trail::new("x");
    let out = points::most_restrictive::dispatch(&mut ctx);
    assert_eq!(out.value, Verdict::ask("first ask"));
    assert_eq!(out.decided_by.as_deref(), Some("semantics::mr_ask_first"));
    assert_eq!(ctx.ran, ["allow_again"], "ask does not stop the chain");
}

// ---- guard: rewrites chain in order, the original stays visible ----

#[hook(crate::points::rewrites, order = 1)]
fn rw_first(ctx: &mut Trail) -> Verdict {
    let next = format!("{} | first", ctx.input.get());
    ctx.input.set(next);
    Verdict::Continue
}
#[hook(crate::points::rewrites, order = 2)]
fn rw_second(ctx: &mut Trail) -> Verdict {
    assert_eq!(ctx.input.get(), "cmd | first", "sees the previous rewrite");
    assert_eq!(ctx.input.original(), "cmd", "and the original");
    let next = format!("{} | second", ctx.input.get());
    ctx.input.set(next);
    Verdict::Allow
}

#[test]
fn guard_rewrites_chain_in_order_and_keep_the_original() {
    let mut ctx = Trail::new("cmd");
    let out = points::rewrites::dispatch(&mut ctx);
    assert_eq!(out.value, Verdict::Allow);
    assert!(out.failures.is_empty(), "{:?}", out.failures);
    assert_eq!(ctx.input.get(), "cmd | first | second");
    assert_eq!(ctx.input.original(), "cmd");
}

// ---- guard: a failing guard denies (fail closed), reported as a failure ----

#[hook(crate::points::failing_guard, order = 1)]
fn fg_panics(ctx: &mut Trail) -> Verdict {
    ctx.ran.push("panics");
    panic!("guard bug");
}
#[hook(crate::points::failing_guard, order = 2)]
fn fg_after(ctx: &mut Trail) -> Verdict {
    ctx.ran.push("after");
    Verdict::Allow
}

#[test]
fn guard_that_panics_denies_and_is_reported_as_a_failure_not_a_policy() {
    let mut ctx = Trail::new("x");
    let out = points::failing_guard::dispatch(&mut ctx);
    assert!(out.is_denied());
    assert_eq!(
        ctx.ran,
        ["panics"],
        "the failure stops the chain like a deny"
    );
    let failure = out
        .decided_by_failure()
        .expect("the deny comes from a failure");
    assert_eq!(failure.hook.as_str(), "semantics::fg_panics");
    assert_eq!(failure.point, "failing_guard");
    assert!(matches!(&failure.cause, FailureCause::Panic(m) if m == "guard bug"));
    assert!(out.value.reason().unwrap().contains("semantics::fg_panics"));
}

// ---- guard: an async hook cannot run in a sync dispatch; it fails closed ----

#[hook(crate::points::async_guard)]
async fn ag_async(_: &mut Trail) -> Verdict {
    Verdict::Allow
}

#[test]
fn async_guard_in_sync_dispatch_fails_closed() {
    let mut ctx = Trail::new("x");
    let out = points::async_guard::dispatch(&mut ctx);
    assert!(out.is_denied());
    let failure = out.decided_by_failure().expect("a failure");
    assert!(matches!(failure.cause, FailureCause::AsyncInSyncDispatch));
}

#[tokio::test]
async fn async_guard_runs_in_async_dispatch() {
    let mut ctx = Trail::new("x");
    let out = points::async_guard::dispatch_async(&mut ctx).await;
    assert_eq!(out.value, Verdict::Allow);
    assert!(out.failures.is_empty());
}

// ---- guard: sync and async hooks interleave in order in an async dispatch ----

#[hook(crate::points::mixed_guard, order = 1)]
fn mg_one(ctx: &mut Trail) -> Verdict {
    ctx.ran.push("one");
    Verdict::Continue
}
#[hook(crate::points::mixed_guard, order = 2)]
async fn mg_two(ctx: &mut Trail) -> Result<Verdict, std::io::Error> {
    tokio::task::yield_now().await;
    ctx.ran.push("two");
    Ok(Verdict::Continue)
}
#[hook(crate::points::mixed_guard, order = 3)]
fn mg_three(ctx: &mut Trail) -> Verdict {
    ctx.ran.push("three");
    Verdict::deny("three says no")
}
#[hook(crate::points::mixed_guard, order = 4)]
async fn mg_four(ctx: &mut Trail) -> Verdict {
    ctx.ran.push("four");
    Verdict::Allow
}

#[tokio::test]
async fn async_dispatch_runs_sync_and_async_guards_in_order_and_stops_at_deny() {
    let mut ctx = Trail::new("x");
    let out = points::mixed_guard::dispatch_async(&mut ctx).await;
    assert_eq!(ctx.ran, ["one", "two", "three"]);
    assert_eq!(out.value, Verdict::deny("three says no"));
}

// ---- transform: waterfall in order ----

#[hook(crate::points::waterfall, order = 10)]
fn wf_b(ctx: &mut Trail) {
    ctx.ran.push("b");
}
#[hook(crate::points::waterfall, order = -10)]
fn wf_a(ctx: &mut Trail) {
    ctx.ran.push("a");
}
#[hook(crate::points::waterfall, order = 20)]
async fn wf_c(ctx: &mut Trail) {
    ctx.ran.push("c");
}

#[tokio::test]
async fn transforms_run_in_order_across_sync_and_async() {
    let mut ctx = Trail::new("x");
    let _ = points::waterfall::dispatch_async(&mut ctx).await;
    assert_eq!(ctx.ran, ["a", "b", "c"]);
}

// ---- transform: a failure is reported and the chain continues (fail open) ----

#[hook(crate::points::failing_transform, order = 1)]
fn ft_error(ctx: &mut Trail) -> Result<(), String> {
    ctx.ran.push("error");
    Err("disk full".into())
}
#[hook(crate::points::failing_transform, order = 2)]
fn ft_after(ctx: &mut Trail) {
    ctx.ran.push("after");
}

#[test]
fn failing_transform_is_reported_and_the_chain_continues() {
    let mut ctx = Trail::new("x");
    let out = points::failing_transform::dispatch(&mut ctx);
    assert_eq!(ctx.ran, ["error", "after"]);
    assert_eq!(out.failures.len(), 1);
    assert!(
        matches!(&out.failures[0].cause, FailureCause::Error(e) if e.to_string() == "disk full")
    );
    assert!(out.decided_by.is_none());
}

// ---- observe: everyone runs, failures are reported and change nothing ----

static OBSERVED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

#[hook(crate::points::observers, order = 1)]
fn ob_panics(_: &Trail) {
    panic!("observer bug");
}
#[hook(crate::points::observers, order = 2)]
fn ob_counts(ctx: &Trail) {
    assert_eq!(ctx.input.get(), "seen");
    OBSERVED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
}

#[test]
fn observers_all_run_and_their_failures_are_only_reported() {
    let ctx = Trail::new("seen");
    let before = OBSERVED.load(std::sync::atomic::Ordering::SeqCst);
    let out = points::observers::dispatch(&ctx);
    assert_eq!(
        OBSERVED.load(std::sync::atomic::Ordering::SeqCst),
        before + 1
    );
    assert_eq!(out.failures.len(), 1);
    assert!(out.decided_by.is_none());
}

// ---- observe: async observers run concurrently ----

static BARRIER: std::sync::LazyLock<Barrier> = std::sync::LazyLock::new(|| Barrier::new(2));

#[hook(crate::points::concurrent, order = 1)]
async fn cc_one(_: &Trail) {
    BARRIER.wait().await;
}
#[hook(crate::points::concurrent, order = 2)]
async fn cc_two(_: &Trail) {
    BARRIER.wait().await;
}

#[tokio::test]
async fn async_observers_run_concurrently() {
    // Each observer waits for the other: run one after the other, they would never finish.
    let ctx = Trail::new("x");
    let out = tokio::time::timeout(
        Duration::from_secs(10),
        points::concurrent::dispatch_async(&ctx),
    )
    .await
    .expect("observers ran one after another");
    assert!(out.failures.is_empty());
}

// ---- recover: the first recovery wins ----

#[hook(crate::points::first_recovery, order = 1)]
fn fr_none(ctx: &Trail) -> Option<Recovery> {
    assert_eq!(ctx.input.get(), "rate limited");
    None
}
#[hook(crate::points::first_recovery, order = 2)]
fn fr_retry(_: &Trail) -> Option<Recovery> {
    Some(Recovery::retry(Duration::from_millis(100)))
}
#[hook(crate::points::first_recovery, order = 3)]
fn fr_give_up(_: &Trail) -> Option<Recovery> {
    panic!("must not run: an earlier hook recovered");
}

#[test]
fn first_recovery_wins_and_later_recoverers_do_not_run() {
    let ctx = Trail::new("rate limited");
    let out = points::first_recovery::dispatch(&ctx);
    assert_eq!(out.value, Some(Recovery::retry(Duration::from_millis(100))));
    assert_eq!(out.decided_by.as_deref(), Some("semantics::fr_retry"));
    assert!(out.failures.is_empty(), "{:?}", out.failures);
}

// ---- recover: a failing recoverer is skipped ----

#[hook(crate::points::failing_recover, order = 1)]
async fn frc_error(_: &Trail) -> Result<Option<Recovery>, std::io::Error> {
    Err(std::io::Error::other("config missing"))
}
#[hook(crate::points::failing_recover, order = 2)]
fn frc_give_up(_: &Trail) -> Option<Recovery> {
    Some(Recovery::GiveUp {
        reason: "permanent".into(),
    })
}

#[tokio::test]
async fn failing_recoverer_is_reported_and_the_next_one_decides() {
    let ctx = Trail::new("x");
    let out = points::failing_recover::dispatch_async(&ctx).await;
    assert_eq!(
        out.value,
        Some(Recovery::GiveUp {
            reason: "permanent".into()
        })
    );
    assert_eq!(out.failures.len(), 1);
    assert!(out.decided_by_failure().is_none());
}

// ---- a point without hooks ----

#[test]
fn point_without_hooks_returns_the_neutral_outcome() {
    let mut ctx = Trail::new("x");
    let out = points::empty::dispatch(&mut ctx);
    assert_eq!(out.value, Verdict::Continue);
    assert!(out.decided_by.is_none() && out.failures.is_empty());
    assert!(<points::empty::Point as hookrail_core::HookPoint>::registry().is_empty());
}

// ---- order ties are broken by name, deterministically ----

#[hook(crate::points::ties, name = "zeta")]
fn tie_z(ctx: &mut Trail) {
    ctx.ran.push("zeta");
}
#[hook(crate::points::ties, name = "alpha")]
fn tie_a(ctx: &mut Trail) {
    ctx.ran.push("alpha");
}
#[hook(crate::points::ties, name = "mid", order = -1)]
fn tie_m(ctx: &mut Trail) {
    ctx.ran.push("mid");
}

#[test]
fn equal_orders_run_by_name() {
    let mut ctx = Trail::new("x");
    let _ = points::ties::dispatch(&mut ctx);
    assert_eq!(ctx.ran, ["mid", "alpha", "zeta"]);
    let registry = <points::ties::Point as hookrail_core::HookPoint>::registry();
    let names: Vec<_> = registry.hooks().iter().map(|e| e.name()).collect();
    assert_eq!(names, ["mid", "alpha", "zeta"]);
}
