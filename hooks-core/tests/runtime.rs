//! The runtime `Hooks` value: one dispatcher for link-time fns, providers and closures;
//! per-tenant sets; live changes; timeouts, panics and failure policies; subscribers.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hookrail_core::context::{Meta, Notification, PreToolUse, SessionStart};
use hookrail_core::points::{notification, pre_tool_use, session_start};
use hookrail_core::runtime::{
    Hook, HookSource, Hooks, HooksError, HooksProvider, PointSet, RunResult,
};
use hookrail_core::{FailureCause, HookResult, OnError, Verdict, hook};

/// Points private to this test binary, so its link-time hooks do not leak into other tests.
pub mod points {
    hookrail_core::hook_points! {
        pub guard gate: super::Gate;
        pub transform pipe: super::Pipe;
        pub observe watch: super::Pipe;
    }
}

#[derive(Debug, Default)]
pub struct Gate {
    pub trail: Vec<String>,
    pub tool: String,
}

#[derive(Debug, Default)]
pub struct Pipe {
    pub trail: Vec<String>,
}

#[hook(crate::points::gate, order = 0, name = "static_b")]
fn static_b(ctx: &mut Gate) -> Verdict {
    ctx.trail.push("static_b".into());
    Verdict::Continue
}

#[hook(crate::points::gate, order = 20, name = "static_late")]
fn static_late(ctx: &mut Gate) -> Verdict {
    ctx.trail.push("static_late".into());
    if ctx.tool == "rm" {
        Verdict::deny("static_late: no rm")
    } else {
        Verdict::Allow
    }
}

#[hook(crate::points::pipe, name = "slow_static", timeout_ms = 20)]
async fn slow_static(ctx: &mut Pipe) {
    ctx.trail.push("slow_static started".into());
    tokio::time::sleep(Duration::from_secs(5)).await;
    ctx.trail.push("slow_static finished".into());
}

fn hooks() -> hookrail_core::runtime::HooksBuilder {
    Hooks::builder().ignore_env()
}

fn tracer(name: &'static str, order: i32) -> Hook<points::gate::Point> {
    Hook::<points::gate::Point>::new(name, move |ctx| {
        ctx.trail.push(name.into());
        Verdict::Continue
    })
    .order(order)
}

#[test]
fn static_fns_and_closures_merge_into_one_order() {
    let hooks = hooks()
        .hook(tracer("closure_a", 0))
        .hook(tracer("closure_first", -5))
        .hook(tracer("closure_mid", 10))
        .build()
        .unwrap();
    let mut ctx = Gate::default();
    let out = hooks.dispatch::<points::gate::Point>(&mut ctx);
    assert_eq!(
        ctx.trail,
        [
            "closure_first",
            "closure_a",
            "static_b",
            "closure_mid",
            "static_late"
        ]
    );
    assert_eq!(out.value, Verdict::Allow);
    assert_eq!(out.decided_by.unwrap(), "static_late");
}

struct Tenant {
    name: &'static str,
    denied_tool: &'static str,
}

impl HooksProvider for Tenant {
    fn name(&self) -> &str {
        self.name
    }

    fn pre_tool_use(&self, ctx: &mut PreToolUse) -> HookResult<Verdict> {
        Ok(if ctx.tool_name == self.denied_tool {
            Verdict::deny(format!("{} forbids {}", self.name, self.denied_tool))
        } else {
            Verdict::Continue
        })
    }

    fn session_start(&self, ctx: &mut SessionStart) -> HookResult<()> {
        ctx.add_context(format!("tenant {}", self.name));
        Ok(())
    }
}

/// A provider that declares its points.
struct ToolsOnly;

impl HooksProvider for ToolsOnly {
    fn name(&self) -> &str {
        "tools_only"
    }

    fn points(&self) -> PointSet {
        PointSet::PRE_TOOL_USE
    }

    fn pre_tool_use(&self, _ctx: &mut PreToolUse) -> HookResult<Verdict> {
        Ok(Verdict::Continue)
    }
}

/// A provider is an entry of the points it declares and of no other: no idle run reaches
/// subscribers there. One that declares nothing keeps the old behaviour, every point.
#[test]
fn a_provider_is_entered_only_at_the_points_it_declares() {
    let hooks = hooks()
        .provider(ToolsOnly)
        .provider(Tenant {
            name: "every_point",
            denied_tool: "Bash",
        })
        .build()
        .unwrap();
    let at = |name: &str| -> Vec<&'static str> {
        let mut points: Vec<_> = hooks
            .list()
            .into_iter()
            .filter(|h| h.name == name)
            .map(|h| h.point)
            .collect();
        points.sort_unstable();
        points
    };
    assert_eq!(at("tools_only"), ["pre_tool_use"]);
    assert_eq!(at("every_point").len(), hookrail_core::points::NAMES.len());

    let runs = Arc::new(Mutex::new(Vec::new()));
    let seen = runs.clone();
    hooks.subscribe(move |run| seen.lock().unwrap().push((run.point, run.hook.to_string())));
    let mut start = SessionStart::new(Meta::new("s"), "m");
    let _ = hooks.dispatch::<session_start::Point>(&mut start);
    let mut call = PreToolUse::new(Meta::new("s"), "Read", serde_json::json!({}));
    let _ = hooks.dispatch::<pre_tool_use::Point>(&mut call);
    let runs = runs.lock().unwrap().clone();
    let tools_only: Vec<_> = runs.iter().filter(|(_, h)| h == "tools_only").collect();
    assert_eq!(tools_only, [&("pre_tool_use", "tools_only".to_owned())]);
    assert_eq!(runs.iter().filter(|(_, h)| h == "every_point").count(), 2);
}

#[test]
fn two_tenants_in_one_process_get_their_own_policies() {
    let acme = hooks()
        .provider(Tenant {
            name: "acme",
            denied_tool: "Bash",
        })
        .build()
        .unwrap();
    let globex = hooks()
        .provider(Tenant {
            name: "globex",
            denied_tool: "Write",
        })
        .build()
        .unwrap();

    let bash = || PreToolUse::new(Meta::new("s"), "Bash", serde_json::json!({"command": "ls"}));
    let write = || {
        PreToolUse::new(
            Meta::new("s"),
            "Write",
            serde_json::json!({"file_path": "a"}),
        )
    };

    let out = acme.dispatch::<pre_tool_use::Point>(&mut bash());
    assert!(out.is_denied());
    assert_eq!(out.decided_by.unwrap(), "acme");
    assert!(
        !acme
            .dispatch::<pre_tool_use::Point>(&mut write())
            .is_denied()
    );

    assert!(
        !globex
            .dispatch::<pre_tool_use::Point>(&mut bash())
            .is_denied()
    );
    let out = globex.dispatch::<pre_tool_use::Point>(&mut write());
    assert_eq!(out.value, Verdict::deny("globex forbids Write"));

    // The provider's other methods take part too, and its default methods are no-ops.
    let mut start = SessionStart::new(Meta::new("s"), "model-x");
    let _ = acme.dispatch::<session_start::Point>(&mut start);
    assert_eq!(start.additional_context, ["tenant acme"]);
    let _ =
        acme.dispatch::<notification::Point>(&mut Notification::new(Meta::new("s"), "info", "hi"));
}

#[test]
fn providers_sort_with_the_other_hooks_of_a_point() {
    let hooks = hooks()
        .provider_at(
            5,
            Tenant {
                name: "late_tenant",
                denied_tool: "Bash",
            },
        )
        .hook(Hook::<pre_tool_use::Point>::new("early_ask", |_| Verdict::ask("sure?")).order(1))
        .build()
        .unwrap();
    let mut ctx = PreToolUse::new(Meta::new("s"), "Bash", serde_json::json!({}));
    let out = hooks.dispatch::<pre_tool_use::Point>(&mut ctx);
    // Most restrictive wins: the provider's deny after the closure's ask.
    assert_eq!(out.value, Verdict::deny("late_tenant forbids Bash"));
    let listed: Vec<_> = hooks
        .list()
        .into_iter()
        .filter(|h| h.point == "pre_tool_use" && h.source != HookSource::Static)
        .map(|h| (h.name.to_string(), h.source))
        .collect();
    assert_eq!(
        listed,
        [
            ("early_ask".to_string(), HookSource::Runtime),
            ("late_tenant".to_string(), HookSource::Provider)
        ]
    );
}

#[test]
fn a_duplicate_name_at_one_point_is_an_error_not_a_second_run() {
    let err = hooks()
        .hook(tracer("static_b", 3))
        .build()
        .expect_err("the name of a link-time hook");
    assert_eq!(
        err,
        HooksError::DuplicateName {
            point: "gate",
            name: hookrail_core::HookName::intern("static_b"),
            first: HookSource::Static,
            second: HookSource::Runtime,
        }
    );

    let hooks = hooks().build().unwrap();
    hooks.register(tracer("once", 0)).unwrap();
    assert!(matches!(
        hooks.register(tracer("once", 1)),
        Err(HooksError::DuplicateName { .. })
    ));
    let mut ctx = Gate::default();
    let _ = hooks.dispatch::<points::gate::Point>(&mut ctx);
    assert_eq!(ctx.trail.iter().filter(|t| *t == "once").count(), 1);
}

#[test]
fn register_unregister_enable_disable_take_effect_on_the_next_dispatch() {
    let hooks = hooks().build().unwrap();
    let run = |hooks: &Hooks| {
        let mut ctx = Gate::default();
        let _ = hooks.dispatch::<points::gate::Point>(&mut ctx);
        ctx.trail
    };
    assert_eq!(run(&hooks), ["static_b", "static_late"]);

    let id = hooks.register(tracer("added", 1)).unwrap();
    assert_eq!(run(&hooks), ["static_b", "added", "static_late"]);

    assert!(hooks.disable("static_b"));
    assert_eq!(run(&hooks), ["added", "static_late"]);
    assert!(
        !hooks
            .list()
            .iter()
            .find(|h| h.name == "static_b")
            .unwrap()
            .enabled
    );

    assert!(hooks.enable("static_b"));
    assert!(hooks.unregister(id));
    assert!(!hooks.unregister(id), "already removed");
    assert_eq!(run(&hooks), ["static_b", "static_late"]);

    // Disabling a name nobody has yet still applies to a hook registered later.
    assert!(!hooks.disable("later"));
    hooks.register(tracer("later", 0)).unwrap();
    assert_eq!(run(&hooks), ["static_b", "static_late"]);
}

#[test]
fn builder_disable_removes_a_link_time_hook_from_this_set_only() {
    let without = hooks().disable("static_late").build().unwrap();
    let with = hooks().build().unwrap();
    let mut ctx = Gate {
        tool: "rm".into(),
        ..Gate::default()
    };
    assert!(
        !without
            .dispatch::<points::gate::Point>(&mut ctx)
            .is_denied()
    );
    assert!(with.dispatch::<points::gate::Point>(&mut ctx).is_denied());
}

#[tokio::test(start_paused = true)]
async fn an_async_hook_that_overruns_its_timeout_fails_under_its_policy() {
    // `slow_static` is a transform with `timeout_ms = 20`: it fails open.
    let set = hooks().build().unwrap();
    let mut ctx = Pipe::default();
    let out = set.dispatch_async::<points::pipe::Point>(&mut ctx).await;
    assert_eq!(out.failures.len(), 1);
    let failure = &out.failures[0];
    assert_eq!(failure.hook, "slow_static");
    assert!(matches!(failure.cause, FailureCause::Timeout(d) if d == Duration::from_millis(20)));
    assert_eq!(failure.policy, OnError::Continue);
    assert!(out.failed_closed().is_none());
    assert_eq!(
        ctx.trail,
        ["slow_static started"],
        "the future was dropped at the deadline"
    );

    // The builder overrides the hook's own timeout and policy by name.
    let strict = hooks()
        .timeout("slow_static", Duration::from_millis(5))
        .on_error("slow_static", OnError::Deny)
        .build()
        .unwrap();
    let out = strict
        .dispatch_async::<points::pipe::Point>(&mut Pipe::default())
        .await;
    assert!(
        matches!(out.failures[0].cause, FailureCause::Timeout(d) if d == Duration::from_millis(5))
    );
    assert_eq!(out.failed_closed().unwrap().hook, "slow_static");
}

#[tokio::test(start_paused = true)]
async fn a_guard_that_times_out_denies_and_the_denial_is_marked_as_a_failure() {
    let hooks = hooks()
        .hook(
            Hook::<points::gate::Point>::new_async("hangs", |_ctx| {
                Box::pin(async {
                    std::future::pending::<()>().await;
                    Verdict::Allow
                })
            })
            .timeout(Duration::from_millis(50)),
        )
        .build()
        .unwrap();
    let mut ctx = Gate::default();
    let out = hooks.dispatch_async::<points::gate::Point>(&mut ctx).await;
    assert!(out.is_denied());
    let failure = out
        .decided_by_failure()
        .expect("the deny comes from a failure");
    assert_eq!(failure.hook, "hangs");
    assert!(matches!(failure.cause, FailureCause::Timeout(_)));
    // The chain stopped at the failing guard (it sorts first by name at order 0).
    assert!(ctx.trail.is_empty(), "{:?}", ctx.trail);
}

#[tokio::test]
async fn a_guard_set_to_fail_open_is_skipped_when_it_panics() {
    let panicking = || {
        Hook::<points::gate::Point>::new("explodes", |_ctx| -> Verdict { panic!("boom") }).order(-1)
    };
    let closed = hooks().hook(panicking()).build().unwrap();
    let open = hooks()
        .hook(panicking().on_error(OnError::Continue))
        .build()
        .unwrap();

    let out = closed
        .dispatch_async::<points::gate::Point>(&mut Gate::default())
        .await;
    assert!(out.is_denied());
    assert!(matches!(&out.failures[0].cause, FailureCause::Panic(m) if m == "boom"));

    let mut ctx = Gate::default();
    let out = open.dispatch_async::<points::gate::Point>(&mut ctx).await;
    assert_eq!(out.value, Verdict::Allow, "the other hooks decided");
    assert_eq!(out.failures.len(), 1);
    assert_eq!(out.failures[0].policy, OnError::Continue);
    assert_eq!(ctx.trail, ["static_b", "static_late"]);
}

#[test]
fn an_async_hook_in_a_sync_dispatch_is_a_failure() {
    let hooks = hooks().build().unwrap();
    let out = hooks.dispatch::<points::pipe::Point>(&mut Pipe::default());
    assert!(matches!(
        out.failures[0].cause,
        FailureCause::AsyncInSyncDispatch
    ));
}

#[tokio::test(flavor = "current_thread")]
async fn async_observers_run_concurrently() {
    // Each observer waits for the other: run one after another, this would time out.
    let barrier = Arc::new(tokio::sync::Barrier::new(2));
    let seen = Arc::new(AtomicUsize::new(0));
    let observer = |name: &'static str| {
        let barrier = barrier.clone();
        let seen = seen.clone();
        Hook::<points::watch::Point>::new_async(name, move |_ctx| {
            let barrier = barrier.clone();
            let seen = seen.clone();
            Box::pin(async move {
                barrier.wait().await;
                seen.fetch_add(1, Ordering::SeqCst);
            })
        })
        .timeout(Duration::from_secs(2))
    };
    let hooks = hooks()
        .hook(observer("one"))
        .hook(observer("two"))
        .build()
        .unwrap();
    let out = hooks
        .dispatch_async::<points::watch::Point>(&mut Pipe::default())
        .await;
    assert!(out.failures.is_empty(), "{:?}", out.failures);
    assert_eq!(seen.load(Ordering::SeqCst), 2);
}

#[test]
fn subscribers_receive_every_run_with_its_result() {
    let hooks = hooks()
        .hook(
            Hook::<points::gate::Point>::new("fails", |_| -> Result<Verdict, std::io::Error> {
                Err(std::io::Error::other("disk on fire"))
            })
            .order(30)
            .on_error(OnError::Continue),
        )
        .build()
        .unwrap();
    let all = Arc::new(Mutex::new(Vec::new()));
    let gate_only = Arc::new(AtomicUsize::new(0));
    let sink = all.clone();
    let id = hooks.subscribe(move |run| {
        let ctx = run.context.downcast_ref::<Gate>().map(|g| g.trail.len());
        sink.lock()
            .unwrap()
            .push((run.point, run.hook.to_string(), run.result.to_string(), ctx));
    });
    let counter = gate_only.clone();
    hooks.subscribe_to::<points::pipe::Point>(move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
    });
    // A panicking subscriber is contained.
    hooks.subscribe(|_| panic!("bad subscriber"));

    let mut ctx = Gate::default();
    let _ = hooks.dispatch::<points::gate::Point>(&mut ctx);
    let runs = all.lock().unwrap().clone();
    assert_eq!(
        runs,
        [
            (
                "gate",
                "static_b".to_string(),
                "continue".to_string(),
                Some(1)
            ),
            (
                "gate",
                "static_late".to_string(),
                "allow".to_string(),
                Some(2)
            ),
            (
                "gate",
                "fails".to_string(),
                "failed (continue): returned an error: disk on fire".to_string(),
                Some(2)
            ),
        ]
    );
    assert_eq!(
        gate_only.load(Ordering::SeqCst),
        0,
        "subscribed to another point"
    );

    assert!(hooks.unsubscribe(id));
    let _ = hooks.dispatch::<points::gate::Point>(&mut Gate::default());
    assert_eq!(
        all.lock().unwrap().len(),
        3,
        "no delivery after unsubscribe"
    );
    assert!(matches!(runs.len(), 3));
    let _ = RunResult::Done;
}

#[test]
fn dispatch_async_future_is_send() {
    fn assert_send<T: Send>(_: &T) {}
    let hooks = hooks().build().unwrap();
    let mut gate = Gate::default();
    let fut = hooks.dispatch_async::<points::gate::Point>(&mut gate);
    assert_send(&fut);
    let mut pipe = Pipe::default();
    let fut = hooks.dispatch_async::<points::watch::Point>(&mut pipe);
    assert_send(&fut);
}

#[tokio::test(start_paused = true)]
async fn a_timeout_of_duration_max_means_unbounded_and_does_not_panic() {
    let hooks = hooks()
        .hook(
            Hook::<points::gate::Point>::new_async("patient", |_ctx| {
                Box::pin(async {
                    tokio::time::sleep(Duration::from_secs(3600)).await;
                    Verdict::Allow
                })
            })
            .timeout(Duration::MAX)
            .order(-1),
        )
        .build()
        .unwrap();
    let out = hooks
        .dispatch_async::<points::gate::Point>(&mut Gate::default())
        .await;
    assert!(out.failures.is_empty(), "{:?}", out.failures);
    assert_eq!(out.value, Verdict::Allow);
}

#[tokio::test(flavor = "current_thread")]
async fn a_timed_out_observer_is_dropped_at_its_deadline_not_when_the_others_finish() {
    struct SetOnDrop(Arc<tokio::sync::Notify>);
    impl Drop for SetOnDrop {
        fn drop(&mut self) {
            self.0.notify_one();
        }
    }
    let released = Arc::new(tokio::sync::Notify::new());
    let held = released.clone();
    let waiter = released.clone();
    let hooks = hooks()
        .hook(
            Hook::<points::watch::Point>::new_async("hangs_holding", move |_ctx| {
                let guard = SetOnDrop(held.clone());
                Box::pin(async move {
                    let _guard = guard;
                    std::future::pending::<()>().await;
                })
            })
            .timeout(Duration::from_millis(20)),
        )
        .hook(
            Hook::<points::watch::Point>::new_async("waits_for_release", move |_ctx| {
                let waiter = waiter.clone();
                Box::pin(async move { waiter.notified().await })
            })
            .timeout(Duration::from_secs(5)),
        )
        .build()
        .unwrap();
    let out = hooks
        .dispatch_async::<points::watch::Point>(&mut Pipe::default())
        .await;
    let failed: Vec<_> = out.failures.iter().map(|f| f.hook.as_str()).collect();
    assert_eq!(
        failed,
        ["hangs_holding"],
        "the waiter was released when the hung one was dropped"
    );
}

#[tokio::test]
async fn sync_observers_run_first_and_one_failing_closed_stops_the_rest() {
    let ran = Arc::new(Mutex::new(Vec::new()));
    let log = |name: &'static str| {
        let ran = ran.clone();
        move |_: &Pipe| -> Result<(), std::io::Error> {
            ran.lock().unwrap().push(name);
            if name == "b_fails_closed" {
                Err(std::io::Error::other("audit sink down"))
            } else {
                Ok(())
            }
        }
    };
    let async_ran = ran.clone();
    let hooks = hooks()
        .hook(
            Hook::<points::watch::Point>::new_async("a_async", move |_ctx| {
                let ran = async_ran.clone();
                Box::pin(async move { ran.lock().unwrap().push("a_async") })
            })
            .order(-10),
        )
        .hook(
            Hook::<points::watch::Point>::new("b_fails_closed", log("b_fails_closed"))
                .on_error(OnError::Deny),
        )
        .hook(Hook::<points::watch::Point>::new("c_sync", log("c_sync")))
        .build()
        .unwrap();
    let out = hooks
        .dispatch_async::<points::watch::Point>(&mut Pipe::default())
        .await;
    assert_eq!(
        *ran.lock().unwrap(),
        ["b_fails_closed"],
        "nothing ran after the closed failure"
    );
    assert_eq!(out.failed_closed().unwrap().hook, "b_fails_closed");
    // The same set through the sync dispatch stops at the same place.
    ran.lock().unwrap().clear();
    let _ = hooks.dispatch::<points::watch::Point>(&mut Pipe::default());
    assert_eq!(*ran.lock().unwrap(), ["b_fails_closed"]);
}
