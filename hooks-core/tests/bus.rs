//! The event bus: typed events for one point, several or all; custom events; `on`/`off`
//! listeners; slow subscribers drop and count instead of blocking dispatch.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use hookrail_core::bus::{Bus, Filter, Topic};
use hookrail_core::context::{ErrorKind, ErrorOccurred, Meta, Notification, PreToolUse, Stop};
use hookrail_core::points::{error_occurred, notification, pre_tool_use, stop};
use hookrail_core::runtime::{Hook, Hooks, HooksBuilder};
use hookrail_core::{Recovery, Verdict};
use serde_json::json;

fn builder() -> HooksBuilder {
    Hooks::builder().ignore_env()
}

fn tool(name: &str) -> PreToolUse {
    PreToolUse::new(Meta::new("s1"), name, json!({"command": "ls"}))
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
struct Deployed {
    version: String,
}

impl Topic for Deployed {
    const NAME: &'static str = "deployed";
    type Payload = Self;
}

#[test]
fn a_point_event_carries_the_context_after_the_hooks_and_the_merged_outcome() {
    let hooks = builder()
        .hook(Hook::<pre_tool_use::Point>::new("a_rewrite", |ctx| {
            *ctx.tool_input.get_mut() = json!({"command": "ls -la"});
            Verdict::Continue
        }))
        .hook(Hook::<pre_tool_use::Point>::new("no_bash", |ctx| {
            if ctx.tool_name == "Bash" {
                Verdict::deny("no shell")
            } else {
                Verdict::Continue
            }
        }))
        .build()
        .unwrap();
    let mut sub = hooks
        .bus()
        .subscribe(Filter::topic::<pre_tool_use::Point>());

    hooks.dispatch::<pre_tool_use::Point>(&mut tool("Bash"));
    hooks.dispatch::<pre_tool_use::Point>(&mut tool("Read"));

    let denied = sub.try_recv().unwrap();
    let p = denied.payload::<pre_tool_use::Point>().unwrap();
    assert_eq!(*p.context.tool_input, json!({"command": "ls -la"}));
    assert_eq!(p.outcome.verdict, Some(Verdict::deny("no shell")));
    assert_eq!(p.outcome.decided_by.as_deref(), Some("no_bash"));
    let allowed = sub.try_recv().unwrap();
    let p = allowed.payload::<pre_tool_use::Point>().unwrap();
    assert_eq!(p.outcome.verdict, Some(Verdict::Continue));
    assert_eq!(p.outcome.decided_by, None);
    assert!(sub.try_recv().is_none());
    assert_eq!(allowed.seq(), denied.seq() + 1);

    let json = denied.to_json().unwrap();
    assert_eq!(json["context"]["tool_name"], "Bash");
    assert_eq!(json["outcome"]["decided_by"], "no_bash");
}

#[test]
fn failures_and_recoveries_are_part_of_the_outcome() {
    let hooks = builder()
        .hook(Hook::<error_occurred::Point>::new(
            "broken",
            |_| -> Option<Recovery> { panic!("boom") },
        ))
        .hook(Hook::<error_occurred::Point>::new("fallback", |_| {
            Some(Recovery::retry(Duration::from_millis(10)))
        }))
        .build()
        .unwrap();
    let mut sub = hooks
        .bus()
        .subscribe(Filter::topic::<error_occurred::Point>());
    let mut ctx = ErrorOccurred::new(Meta::new("s1"), ErrorKind::Network, "flaky");
    hooks.dispatch::<error_occurred::Point>(&mut ctx);

    let event = sub.try_recv().unwrap();
    let outcome = &event.payload::<error_occurred::Point>().unwrap().outcome;
    assert_eq!(outcome.verdict, None, "not a guard point");
    assert_eq!(
        outcome.recovery,
        Some(Recovery::retry(Duration::from_millis(10)))
    );
    assert_eq!(outcome.failures.len(), 1);
    assert_eq!(outcome.failures[0].hook, "broken");
    assert!(outcome.failures[0].cause.contains("boom"));
}

#[test]
fn filters_select_one_topic_several_or_all() {
    let hooks = builder().build().unwrap();
    let bus = hooks.bus();
    let mut one = bus.subscribe(Filter::topic::<stop::Point>());
    let mut two = bus.subscribe(Filter::topic::<stop::Point>().and::<Deployed>());
    let mut by_name = bus.subscribe(Filter::names(["notification", "deployed"]));
    let mut all = bus.subscribe(Filter::all());

    hooks.dispatch::<pre_tool_use::Point>(&mut tool("Read"));
    hooks.dispatch::<stop::Point>(&mut Stop::new(Meta::new("s1")));
    hooks.dispatch::<notification::Point>(&mut Notification::new(Meta::new("s1"), "idle", "hi"));
    bus.emit(Deployed {
        version: "1.0".into(),
    });

    let names = |sub: &mut hookrail_core::bus::Subscription| {
        std::iter::from_fn(|| sub.try_recv())
            .map(|e| e.name())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&mut one), ["stop"]);
    assert_eq!(names(&mut two), ["stop", "deployed"]);
    assert_eq!(names(&mut by_name), ["notification", "deployed"]);
    assert_eq!(
        names(&mut all),
        ["pre_tool_use", "stop", "notification", "deployed"]
    );
}

#[test]
fn custom_events_are_typed_and_cost_nothing_without_subscribers() {
    let bus = Bus::new();
    // Nobody listens: emitted and forgotten.
    bus.emit(Deployed {
        version: "0.9".into(),
    });
    let mut sub = bus.subscribe(Filter::topic::<Deployed>());
    bus.emit(Deployed {
        version: "1.0".into(),
    });
    let event = sub.try_recv().unwrap();
    assert!(!event.is_point());
    assert_eq!(event.seq(), 1, "the unheard event was not numbered");
    assert_eq!(
        event.payload::<Deployed>(),
        Some(&Deployed {
            version: "1.0".into()
        })
    );
    assert!(event.payload::<stop::Point>().is_none());
    assert_eq!(event.to_json().unwrap(), json!({"version": "1.0"}));
}

mod custom {
    #[derive(Debug, Clone, Default, serde::Serialize)]
    pub struct Deploy {
        pub target: String,
    }

    hookrail_core::hook_points! {
        /// A custom guard point.
        pub guard deploy: Deploy;
    }
}

#[test]
fn custom_points_are_published_once_the_bus_knows_them() {
    let hooks = builder().build().unwrap();
    let mut all = hooks.bus().subscribe(Filter::all());
    let mut ctx = custom::Deploy {
        target: "prod".into(),
    };
    hooks.dispatch::<custom::deploy::Point>(&mut ctx);
    assert!(
        all.try_recv().is_none(),
        "unknown custom point: not published"
    );

    hooks.bus().declare::<custom::deploy::Point>();
    hooks.dispatch::<custom::deploy::Point>(&mut ctx);
    let event = all.try_recv().unwrap();
    assert_eq!(event.name(), "deploy");
    assert_eq!(
        event
            .payload::<custom::deploy::Point>()
            .unwrap()
            .context
            .target,
        "prod"
    );

    // A typed subscription declares the point by itself.
    let fresh = builder().build().unwrap();
    let mut typed = fresh
        .bus()
        .subscribe(Filter::topic::<custom::deploy::Point>());
    fresh.dispatch::<custom::deploy::Point>(&mut ctx);
    assert_eq!(typed.try_recv().unwrap().name(), "deploy");
}

#[test]
fn on_calls_the_listener_until_off() {
    let hooks = builder().build().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    let listener = hooks
        .bus()
        .on::<pre_tool_use::Point>(move |event, call| {
            s.lock()
                .unwrap()
                .push((event.seq(), call.context.tool_name.clone()));
        })
        .unwrap();
    hooks.dispatch::<pre_tool_use::Point>(&mut tool("Read"));
    hooks.dispatch::<pre_tool_use::Point>(&mut tool("Write"));
    listener.off();
    assert_eq!(
        *seen.lock().unwrap(),
        [(1, "Read".to_string()), (2, "Write".to_string())],
        "off() returns after the queued events were handled"
    );
    assert_eq!(hooks.bus().subscribers(), 0);
    hooks.dispatch::<pre_tool_use::Point>(&mut tool("Edit"));
    assert_eq!(seen.lock().unwrap().len(), 2, "nothing after off()");
}

#[test]
fn a_panicking_listener_keeps_receiving() {
    let bus = Bus::new();
    let handled = Arc::new(AtomicU64::new(0));
    let h = handled.clone();
    let listener = bus
        .on::<Deployed>(move |_, d| {
            if d.version == "bad" {
                panic!("listener bug");
            }
            h.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap();
    for v in ["1", "bad", "2"] {
        bus.emit(Deployed { version: v.into() });
    }
    listener.off();
    assert_eq!(handled.load(Ordering::SeqCst), 2);
}

#[test]
fn dropping_a_listener_or_subscription_unsubscribes() {
    let bus = Bus::new();
    let sub = bus.subscribe(Filter::all());
    let listener = bus.on_filter(Filter::all(), |_| {}).unwrap();
    assert_eq!(bus.subscribers(), 2);
    drop(sub);
    drop(listener);
    assert_eq!(bus.subscribers(), 0);
}

/// A listener stuck in its closure: dispatch goes on, the excess is dropped and counted, and
/// every event is either handled or counted as dropped.
#[test]
fn a_stuck_listener_never_blocks_dispatch() {
    const EVENTS: u64 = 10_000;
    let hooks = builder().bus(Bus::with_capacity(16)).build().unwrap();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let release_rx = Mutex::new(release_rx);
    let handled = Arc::new(AtomicU64::new(0));
    let h = handled.clone();
    let listener = hooks
        .bus()
        .on::<pre_tool_use::Point>(move |_, _| {
            // The first event blocks until the test releases it.
            if h.fetch_add(1, Ordering::SeqCst) == 0 {
                let _ = release_rx.lock().unwrap().recv();
            }
        })
        .unwrap();
    let mut ctx = tool("Read");
    for _ in 0..EVENTS {
        hooks.dispatch::<pre_tool_use::Point>(&mut ctx);
    }
    release_tx.send(()).unwrap();
    let dropped = listener.dropped();
    listener.off();
    let handled = handled.load(Ordering::SeqCst);
    assert!(dropped >= EVENTS - 17, "dropped {dropped}");
    assert_eq!(handled + dropped, EVENTS, "nothing lost without a count");
    assert_eq!(hooks.bus().dropped(), dropped);
}

#[test]
fn one_bus_serves_several_hook_sets() {
    let bus = Bus::new();
    let tenant_a = builder().bus(bus.clone()).build().unwrap();
    let tenant_b = builder().bus(bus.clone()).build().unwrap();
    let mut sub = bus.subscribe(Filter::topic::<pre_tool_use::Point>());
    tenant_a.dispatch::<pre_tool_use::Point>(&mut PreToolUse::new(
        Meta::new("a"),
        "Read",
        json!({}),
    ));
    tenant_b.dispatch::<pre_tool_use::Point>(&mut PreToolUse::new(
        Meta::new("b"),
        "Read",
        json!({}),
    ));
    let sessions: Vec<std::sync::Arc<str>> = std::iter::from_fn(|| sub.try_recv())
        .map(|e| {
            e.payload::<pre_tool_use::Point>()
                .unwrap()
                .context
                .meta
                .session_id
                .clone()
        })
        .collect();
    assert_eq!(
        sessions,
        [std::sync::Arc::from("a"), std::sync::Arc::from("b")]
    );
}

#[tokio::test]
async fn async_dispatch_publishes_and_recv_awaits() {
    let hooks = builder().build().unwrap();
    let mut sub = hooks
        .bus()
        .subscribe(Filter::topic::<notification::Point>());
    let waiter = tokio::spawn(async move { sub.recv().await.map(|e| e.name()) });
    hooks
        .dispatch_async::<notification::Point>(&mut Notification::new(
            Meta::new("s1"),
            "idle",
            "hi",
        ))
        .await;
    assert_eq!(waiter.await.unwrap(), Some("notification"));
}
