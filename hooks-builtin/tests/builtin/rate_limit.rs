#![cfg(feature = "rate-limit")]
//! `rate-limit` through a real `Hooks` and `Session`: tool and model calls over their limits
//! are refused with a reason that says when they free up, buckets are shared safely between
//! threads, and settings read from JSON behave like settings written in code.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Duration;

use hookrail_builtin::rate_limit::{KeyPart, Limit, ManualClock, RateLimit, RateLimitConfig};
use hookrail_core::context::{Message, Meta, PreToolUse, Role, TokenUsage, ToolCall};
use hookrail_core::points::{pre_model_call, pre_tool_use};
use hookrail_core::runtime::{Hooks, ModelReply, Session, SessionError, ToolError, ToolRun};
use serde_json::json;

fn bash_ls() -> ToolCall {
    ToolCall::new("toolu_ls", "Bash", json!({"command": "ls"}))
}

fn hooks_with(policy: RateLimit) -> Hooks {
    Hooks::builder()
        .ignore_env()
        .provider_at(-10, policy)
        .build()
        .unwrap()
}

fn config(json: serde_json::Value) -> RateLimitConfig {
    serde_json::from_value(json).unwrap()
}

#[tokio::test]
async fn a_session_gets_denied_tool_and_model_calls_with_the_limit_and_the_wait() {
    let clock = ManualClock::new();
    let policy = RateLimit::new(config(json!({
        "tool_calls": [
            {"calls": 30, "window_ms": 60000, "key": ["agent"]},
            {"calls": 2, "window_ms": 60000, "key": ["agent"], "tools": ["Bash"]}
        ],
        "model_calls": [{"calls": 1, "window_ms": 10000, "key": ["session"]}]
    })))
    .unwrap()
    .with_clock(Arc::new(clock.clone()));
    let hooks = hooks_with(policy);
    let mut session = Session::start(hooks, Meta::new("s1").with_agent("coder"), "m")
        .await
        .unwrap();

    let ran = Arc::new(AtomicU32::new(0));
    let run = |ran: Arc<AtomicU32>| {
        move |_: &serde_json::Value| async move {
            ran.fetch_add(1, Ordering::SeqCst);
            Ok::<_, ToolError>(json!("ok"))
        }
    };
    for _ in 0..2 {
        let r = session
            .tool_call(bash_ls(), run(ran.clone()))
            .await
            .unwrap();
        assert!(matches!(r, ToolRun::Ran(_)));
    }
    clock.advance(Duration::from_millis(12_000));
    let r = session
        .tool_call(bash_ls(), run(ran.clone()))
        .await
        .unwrap();
    match r {
        ToolRun::Denied {
            by,
            reason,
            failure,
            ..
        } => {
            assert_eq!(by.as_deref(), Some("builtin.rate_limit"));
            assert_eq!(
                reason,
                "rate-limit: 2 Bash calls per 60 s for agent \"coder\"; next in 18.0 s"
            );
            assert!(!failure, "a policy decision, not a failing hook");
        }
        ToolRun::Ran(_) => panic!("the third Bash call within the window ran"),
    }
    assert_eq!(ran.load(Ordering::SeqCst), 2, "the denied tool did not run");
    // Other tools still go: the Bash limit is tighter than the general one.
    let r = session
        .tool_call(
            ToolCall::new("toolu_read", "Read", json!({"file_path": "a"})),
            run(ran.clone()),
        )
        .await
        .unwrap();
    assert!(matches!(r, ToolRun::Ran(_)));

    let reply = || async { Ok(ModelReply::new(["hi"]).with_usage(TokenUsage::new(1, 1))) };
    let msgs = vec![Message::new(Role::User, "hi")];
    session.call_model(msgs.clone(), |_| reply()).await.unwrap();
    let err = session
        .call_model(msgs.clone(), |_| reply())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, SessionError::Denied { point: "pre_model_call", reason, .. }
            if reason == "rate-limit: 1 model calls per 10 s for session \"s1\"; next in 10.0 s"),
        "{err}"
    );
    clock.advance(Duration::from_secs(10));
    session.call_model(msgs, |_| reply()).await.unwrap();
}

#[tokio::test]
async fn ask_action_goes_to_the_session_approver_and_is_refused_without_one() {
    let policy = RateLimit::new(config(json!({
        "action": "ask",
        "tool_calls": [{"calls": 1, "key": []}],
        "model_calls": []
    })))
    .unwrap()
    .with_clock(Arc::new(ManualClock::new()));
    let hooks = hooks_with(policy);
    let call = || PreToolUse::new(Meta::new("s"), "Read", json!({}));
    assert!(
        !hooks
            .dispatch::<pre_tool_use::Point>(&mut call())
            .is_denied()
    );
    let out = hooks.dispatch::<pre_tool_use::Point>(&mut call());
    assert_eq!(
        out.verdict().to_string(),
        "ask: rate-limit: 1 tool calls per 60 s for everyone; next in 60.0 s"
    );

    let ok = async |_: &serde_json::Value| Ok(json!("ok"));
    let read = || ToolCall::new("toolu_r", "Read", json!({}));
    let mut unattended = Session::start(hooks.clone(), Meta::new("s2"), "m")
        .await
        .unwrap();
    let r = unattended.tool_call(read(), ok).await.unwrap();
    assert!(
        matches!(&r, ToolRun::Denied { reason, .. } if reason.starts_with("needs approval: rate-limit: 1 tool calls")),
        "{r:?}"
    );
    let mut attended = Session::start(hooks, Meta::new("s3"), "m")
        .await
        .unwrap()
        .with_approver(|point, reason| {
            point == "pre_tool_use" && reason.starts_with("rate-limit:")
        });
    let r = attended.tool_call(read(), ok).await.unwrap();
    assert!(
        matches!(r, ToolRun::Ran(_)),
        "approved over-limit call runs"
    );
}

#[test]
fn limits_of_different_tenants_do_not_interfere() {
    let policy = RateLimit::new(RateLimitConfig {
        tool_calls: vec![],
        model_calls: vec![Limit {
            calls: 2,
            key: vec![KeyPart::Tenant],
            ..Limit::default()
        }],
        ..RateLimitConfig::default()
    })
    .unwrap()
    .with_clock(Arc::new(ManualClock::new()));
    let hooks = hooks_with(policy);
    let call = |tenant: &str| {
        hookrail_core::context::PreModelCall::new(Meta::new("s").with_tenant(tenant), "m", vec![])
    };
    for _ in 0..2 {
        assert!(
            !hooks
                .dispatch::<pre_model_call::Point>(&mut call("acme"))
                .is_denied()
        );
    }
    assert!(
        hooks
            .dispatch::<pre_model_call::Point>(&mut call("acme"))
            .is_denied()
    );
    assert!(
        !hooks
            .dispatch::<pre_model_call::Point>(&mut call("globex"))
            .is_denied()
    );
}

/// Many threads hammer one bucket while time moves: no more calls get through than the
/// capacity plus what the elapsed time refilled, and the capacity itself is fully usable.
#[test]
fn concurrent_calls_never_exceed_capacity_plus_refill() {
    const CAPACITY: u32 = 50;
    const STEPS: u64 = 10;
    let clock = ManualClock::new();
    let policy = RateLimit::new(config(json!({
        "tool_calls": [{"calls": CAPACITY, "window_ms": 60000, "key": ["tenant"]}],
        "model_calls": []
    })))
    .unwrap()
    .with_clock(Arc::new(clock.clone()));
    let hooks = hooks_with(policy);
    let admitted = Arc::new(AtomicU32::new(0));
    let done = Arc::new(AtomicBool::new(false));
    std::thread::scope(|s| {
        for t in 0..16 {
            let hooks = hooks.clone();
            let admitted = admitted.clone();
            s.spawn(move || {
                for i in 0..400 {
                    let mut ctx = PreToolUse::new(
                        Meta::new(format!("s{t}-{i}"))
                            .with_agent(format!("a{t}"))
                            .with_tenant("acme"),
                        "Read",
                        json!({}),
                    );
                    if !hooks.dispatch::<pre_tool_use::Point>(&mut ctx).is_denied() {
                        admitted.fetch_add(1, Ordering::SeqCst);
                    }
                }
            });
        }
        let clock = clock.clone();
        let done = done.clone();
        s.spawn(move || {
            for _ in 0..STEPS {
                std::thread::yield_now();
                clock.advance(Duration::from_secs(1));
            }
            done.store(true, Ordering::SeqCst);
        });
    });
    assert!(done.load(Ordering::SeqCst));
    let admitted = admitted.load(Ordering::SeqCst);
    // 50 per 60 s refills 50 * 10 / 60 = 8.33 calls in 10 s.
    let ceiling = CAPACITY + (u64::from(CAPACITY) * STEPS / 60) as u32;
    assert!(
        (CAPACITY..=ceiling).contains(&admitted),
        "admitted {admitted}, expected {CAPACITY}..={ceiling}"
    );
}

#[test]
fn an_empty_config_section_gives_the_defaults() {
    let from_json = config(json!({}));
    assert_eq!(from_json, RateLimitConfig::default());
    let err = RateLimit::new(config(json!({"tool_calls": [{"calls": 0}]}))).unwrap_err();
    assert_eq!(
        err.to_string(),
        "rate_limit: invalid `tool_calls[0].calls`: must be at least 1"
    );
}
