use super::*;
use hookrail_core::context::Meta;
use serde_json::json;

fn error(kind: ErrorKind, status: Option<u16>, attempt: u32, model: &str) -> ErrorOccurred {
    let mut ctx = ErrorOccurred::new(Meta::new("s1"), kind, "boom");
    ctx.status_code = status;
    ctx.attempt = attempt;
    ctx.model = Some(model.to_owned());
    ctx
}

fn no_jitter(config: ResilienceConfig) -> Resilience {
    Resilience::new(ResilienceConfig {
        jitter: Jitter::None,
        ..config
    })
    .unwrap()
}

fn retry(ms: u64) -> Option<Recovery> {
    Some(Recovery::retry(Duration::from_millis(ms)))
}

#[test]
fn default_settings_are_valid_and_round_trip_through_json() {
    let config = ResilienceConfig::default();
    let json = serde_json::to_value(&config).unwrap();
    assert_eq!(json["jitter"], "full");
    assert_eq!(json["breaker_scope"], "session");
    let back: ResilienceConfig = serde_json::from_value(json).unwrap();
    assert_eq!(back, config);
    assert!(serde_json::from_value::<ResilienceConfig>(json!({"retries": 3})).is_err());
    let _ = Resilience::default();
}

#[test]
fn zero_and_out_of_range_settings_are_refused_with_the_field() {
    let d = ResilienceConfig::default;
    let cases = [
        (
            ResilienceConfig {
                max_attempts: 0,
                ..d()
            },
            "max_attempts",
        ),
        (
            ResilienceConfig {
                base_backoff_ms: 0,
                ..d()
            },
            "base_backoff_ms",
        ),
        (
            ResilienceConfig {
                base_backoff_ms: 40_000,
                ..d()
            },
            "base_backoff_ms",
        ),
        (
            ResilienceConfig {
                max_backoff_ms: 0,
                ..d()
            },
            "max_backoff_ms",
        ),
        (
            ResilienceConfig {
                max_backoff_ms: MAX_MS + 1,
                ..d()
            },
            "max_backoff_ms",
        ),
        (
            ResilienceConfig {
                breaker_failures: 0,
                ..d()
            },
            "breaker_failures",
        ),
        (
            ResilienceConfig {
                breaker_cooldown_ms: MAX_MS + 1,
                ..d()
            },
            "breaker_cooldown_ms",
        ),
        (
            ResilienceConfig {
                max_tracked: 0,
                ..d()
            },
            "max_tracked",
        ),
        (
            ResilienceConfig {
                fallback: vec!["a".into(), "".into()],
                ..d()
            },
            "fallback[1]",
        ),
        (
            ResilienceConfig {
                fallbacks: [("big".to_owned(), vec![" ".to_owned()])].into(),
                ..d()
            },
            "fallbacks.big[0]",
        ),
    ];
    for (config, field) in cases {
        let err = Resilience::new(config).unwrap_err();
        assert_eq!(
            (err.policy, err.field.as_ref()),
            ("resilience", field),
            "{err}"
        );
    }
}

#[test]
fn status_codes_and_kinds_decide_what_is_retried() {
    let p = no_jitter(ResilienceConfig::default());
    let cases = [
        (ErrorKind::RateLimit, Some(429), true),
        (ErrorKind::Unknown, Some(408), true),
        (ErrorKind::Unknown, Some(500), true),
        (ErrorKind::Network, Some(503), true),
        (ErrorKind::Network, None, true),
        (ErrorKind::RateLimit, None, true),
        (ErrorKind::Network, Some(401), false),
        (ErrorKind::Unknown, Some(400), false),
        (ErrorKind::RateLimit, Some(404), false),
        (ErrorKind::Permission, None, false),
        (ErrorKind::ContextOverflow, None, false),
        (ErrorKind::Tool, None, false),
        (ErrorKind::Unknown, None, false),
        (ErrorKind::Other, Some(600), false),
    ];
    for (kind, status, retried) in cases {
        let mut ctx = error(kind, status, 1, "m");
        ctx.meta = Meta::new(format!("{kind:?}{status:?}"));
        let got = p.recover(&ctx);
        assert_eq!(got.is_some(), retried, "{kind:?} {status:?}: {got:?}");
    }
    let mut ctx = error(ErrorKind::Unknown, None, 1, "m");
    ctx.error = "request Timed Out after 30s".into();
    assert_eq!(p.recover(&ctx), retry(500), "timeouts without a status");
}

#[test]
fn backoff_doubles_per_attempt_up_to_the_cap() {
    let p = no_jitter(ResilienceConfig {
        base_backoff_ms: 100,
        max_backoff_ms: 1000,
        max_attempts: 100,
        breaker_failures: 100,
        ..ResilienceConfig::default()
    });
    let got: Vec<_> = [1, 2, 3, 4, 5, 6, 80]
        .into_iter()
        .map(|a| p.recover(&error(ErrorKind::Network, None, a, "m")))
        .collect();
    let want: Vec<_> = [100, 200, 400, 800, 1000, 1000, 1000]
        .into_iter()
        .map(retry)
        .collect();
    assert_eq!(got, want);
}

#[test]
fn seeded_full_jitter_repeats_and_stays_under_the_cap() {
    let run = |seed| {
        let p = Resilience::new(ResilienceConfig {
            base_backoff_ms: 100,
            max_backoff_ms: 5_000,
            max_attempts: 50,
            breaker_failures: 50,
            ..ResilienceConfig::default()
        })
        .unwrap()
        .with_seed(seed);
        (1..40)
            .map(
                |a| match p.recover(&error(ErrorKind::Network, None, a, "m")) {
                    Some(Recovery::Retry { backoff, .. }) => backoff.as_millis() as u64,
                    other => panic!("{other:?}"),
                },
            )
            .collect::<Vec<u64>>()
    };
    let a = run(7);
    assert_eq!(a, run(7), "same seed, same backoffs");
    assert_ne!(a, run(8));
    for (i, ms) in a.iter().enumerate() {
        let cap = (100u64 << i.min(20)).min(5_000);
        assert!(*ms <= cap, "attempt {}: {ms} > {cap}", i + 1);
    }
}

#[test]
fn decorrelated_jitter_stays_between_the_base_and_three_times_the_previous() {
    let p = Resilience::new(ResilienceConfig {
        base_backoff_ms: 100,
        max_backoff_ms: 10_000,
        jitter: Jitter::Decorrelated,
        max_attempts: 200,
        breaker_failures: 200,
        ..ResilienceConfig::default()
    })
    .unwrap()
    .with_seed(3);
    let mut previous = 100;
    for a in 1..150 {
        let Some(Recovery::Retry { backoff, .. }) =
            p.recover(&error(ErrorKind::Network, None, a, "m"))
        else {
            panic!("not a retry")
        };
        let ms = backoff.as_millis() as u64;
        assert!(
            (100..=(previous * 3).min(10_000)).contains(&ms),
            "{ms} after {previous}"
        );
        previous = ms;
    }
}

#[test]
fn model_errors_walk_the_chain_of_the_original_model_skipping_tried_ones() {
    let p = no_jitter(ResilienceConfig {
        fallback: vec!["general".into()],
        fallbacks: [(
            "opus".to_owned(),
            vec!["sonnet".into(), "opus".into(), "haiku".into()],
        )]
        .into(),
        max_attempts: 10,
        breaker_failures: 10,
        ..ResilienceConfig::default()
    });
    let fallback = |m: &str, ms| Some(Recovery::fallback(m, Duration::from_millis(ms)));
    assert_eq!(
        p.recover(&error(ErrorKind::Model, None, 1, "opus")),
        fallback("sonnet", 0)
    );
    // A retryable model error on the fallback: the next one, after the backoff.
    assert_eq!(
        p.recover(&error(ErrorKind::Model, Some(529), 2, "sonnet")),
        fallback("haiku", 1000),
        "opus was tried already"
    );
    // The chain is used up: a retryable error is retried, another gives up.
    assert_eq!(
        p.recover(&error(ErrorKind::Model, Some(503), 3, "haiku")),
        retry(2000)
    );
    let Some(Recovery::GiveUp { reason }) = p.recover(&error(ErrorKind::Model, None, 4, "haiku"))
    else {
        panic!("expected a give-up")
    };
    assert_eq!(
        reason,
        "resilience: no untried fallback model left (tried opus, sonnet, haiku)"
    );
    // A new operation (attempt 1) starts over, on the general chain for another model.
    assert_eq!(
        p.recover(&error(ErrorKind::Model, None, 1, "other")),
        fallback("general", 0)
    );
}

#[test]
fn model_errors_without_a_chain_are_left_to_other_hooks() {
    let p = no_jitter(ResilienceConfig::default());
    assert_eq!(p.recover(&error(ErrorKind::Model, Some(400), 1, "m")), None);
    assert_eq!(
        p.recover(&error(ErrorKind::Model, Some(500), 1, "m")),
        retry(500)
    );
}

#[test]
fn the_last_attempt_gives_up_with_the_error() {
    let p = no_jitter(ResilienceConfig {
        max_attempts: 3,
        ..ResilienceConfig::default()
    });
    assert!(matches!(
        p.recover(&error(ErrorKind::Network, None, 2, "m")),
        Some(Recovery::Retry { .. })
    ));
    assert_eq!(
        p.recover(&error(ErrorKind::Network, None, 3, "m")),
        Some(Recovery::GiveUp {
            reason: "resilience: gave up after 3 attempts (last: boom)".into()
        })
    );
    // Absurd attempt numbers do not overflow the backoff.
    let p = no_jitter(ResilienceConfig {
        max_attempts: u32::MAX,
        breaker_failures: u32::MAX,
        ..ResilienceConfig::default()
    });
    assert_eq!(
        p.recover(&error(ErrorKind::Network, None, u32::MAX - 1, "m")),
        retry(30_000)
    );
}

#[test]
fn the_breaker_opens_after_n_failures_denies_calls_and_lets_a_trial_through_after_the_cooldown() {
    let clock = ManualClock::new();
    let alerts = Arc::new(Mutex::new(Vec::new()));
    let sink = alerts.clone();
    let p = no_jitter(ResilienceConfig {
        breaker_failures: 3,
        breaker_cooldown_ms: 10_000,
        max_attempts: 100,
        ..ResilienceConfig::default()
    })
    .with_clock(Arc::new(clock.clone()))
    .on_alert(move |a| sink.lock().unwrap().push(a.clone()));
    for a in 1..3 {
        assert!(matches!(
            p.recover(&error(ErrorKind::Network, Some(502), a, "m")),
            Some(Recovery::Retry { .. })
        ));
    }
    assert_eq!(p.breaker("s1"), BreakerState::Closed { failures: 2 });
    let got = p.recover(&error(ErrorKind::Network, Some(502), 3, "m"));
    assert_eq!(
        got,
        Some(Recovery::GiveUp {
            reason:
                "resilience: circuit open for session s1 after 3 consecutive failures (last: boom)"
                    .into()
        })
    );
    assert_eq!(p.breaker("s1"), BreakerState::Open);
    let alerts_now = alerts.lock().unwrap().clone();
    assert_eq!(alerts_now.len(), 1);
    assert_eq!(alerts_now[0].kind, AlertKind::CircuitOpen);
    assert_eq!(
        (alerts_now[0].key.as_str(), alerts_now[0].failures),
        ("s1", 3)
    );
    assert_eq!(alerts_now[0].status_code, Some(502));

    let mut call = PreModelCall::new(Meta::new("s1"), "m", Vec::new());
    clock.advance(Duration::from_millis(2500));
    assert_eq!(
        p.pre_model_call(&mut call).unwrap().reason(),
        Some(
            "resilience: circuit open for session s1 after 3 consecutive failures; next trial in 7.5 s"
        )
    );
    // Other sessions are not affected.
    let mut other = PreModelCall::new(Meta::new("s2"), "m", Vec::new());
    assert_eq!(p.pre_model_call(&mut other).unwrap(), Verdict::Continue);
    // A tool success does not close an open circuit.
    let mut tool = PostToolUse::new(Meta::new("s1"), "Read", json!({}), json!("ok"), 1);
    p.post_tool_use(&mut tool).unwrap();
    assert_eq!(p.breaker("s1"), BreakerState::Open);

    clock.advance(Duration::from_millis(7500));
    assert_eq!(
        p.pre_model_call(&mut call).unwrap(),
        Verdict::Continue,
        "the trial"
    );
    assert_eq!(p.breaker("s1"), BreakerState::HalfOpen);
    assert!(
        p.pre_model_call(&mut call).unwrap().is_deny(),
        "one trial at a time"
    );
    // The trial fails: open again at once, without a second alert.
    assert!(matches!(
        p.recover(&error(ErrorKind::Network, Some(502), 1, "m")),
        Some(Recovery::GiveUp { ref reason }) if reason.contains("open again")
    ));
    assert_eq!(alerts.lock().unwrap().len(), 1);
    assert!(p.pre_model_call(&mut call).unwrap().is_deny());

    // Next trial succeeds: closed.
    clock.advance(Duration::from_secs(10));
    assert_eq!(p.pre_model_call(&mut call).unwrap(), Verdict::Continue);
    let mut ok = PostModelCall::new(Meta::new("s1"), "m", "hi", Default::default(), 1);
    p.post_model_call(&mut ok).unwrap();
    assert_eq!(p.breaker("s1"), BreakerState::Closed { failures: 0 });
    assert_eq!(p.pre_model_call(&mut call).unwrap(), Verdict::Continue);
}

#[test]
fn a_trial_that_never_reports_back_does_not_block_forever() {
    let clock = ManualClock::new();
    let p = no_jitter(ResilienceConfig {
        breaker_failures: 1,
        breaker_cooldown_ms: 1000,
        ..ResilienceConfig::default()
    })
    .with_clock(Arc::new(clock.clone()));
    p.recover(&error(ErrorKind::Network, None, 1, "m"));
    let mut call = PreModelCall::new(Meta::new("s1"), "m", Vec::new());
    clock.advance(Duration::from_secs(1));
    assert_eq!(p.pre_model_call(&mut call).unwrap(), Verdict::Continue);
    assert!(p.pre_model_call(&mut call).unwrap().is_deny());
    clock.advance(Duration::from_secs(1));
    assert_eq!(p.pre_model_call(&mut call).unwrap(), Verdict::Continue);
}

#[test]
fn without_a_cooldown_the_circuit_stays_open_until_reset() {
    let clock = ManualClock::new();
    let p = no_jitter(ResilienceConfig {
        breaker_failures: 1,
        breaker_cooldown_ms: 0,
        ..ResilienceConfig::default()
    })
    .with_clock(Arc::new(clock.clone()));
    p.recover(&error(ErrorKind::Network, None, 1, "m"));
    clock.advance(Duration::from_secs(365 * 24 * 3600));
    let mut call = PreModelCall::new(Meta::new("s1"), "m", Vec::new());
    assert_eq!(
        p.pre_model_call(&mut call).unwrap().reason(),
        Some(
            "resilience: circuit open for session s1 after 1 consecutive failure; it stays open until reset"
        )
    );
    assert!(p.reset("s1"));
    assert_eq!(p.pre_model_call(&mut call).unwrap(), Verdict::Continue);
}

#[test]
fn successes_reset_the_consecutive_count() {
    let p = no_jitter(ResilienceConfig {
        breaker_failures: 2,
        ..ResilienceConfig::default()
    });
    p.recover(&error(ErrorKind::Network, None, 1, "m"));
    let mut tool = PostToolUse::new(Meta::new("s1"), "Read", json!({}), json!("ok"), 1);
    p.post_tool_use(&mut tool).unwrap();
    assert_eq!(p.breaker("s1"), BreakerState::Closed { failures: 0 });
    p.recover(&error(ErrorKind::Network, None, 1, "m"));
    // A failed tool call is not a success.
    tool.error = Some("exit 1".into());
    p.post_tool_use(&mut tool).unwrap();
    assert_eq!(p.breaker("s1"), BreakerState::Closed { failures: 1 });
    let mut ok = PostModelCall::new(Meta::new("s1"), "m", "", Default::default(), 1);
    p.post_model_call(&mut ok).unwrap();
    assert_eq!(p.breaker("s1"), BreakerState::Closed { failures: 0 });
    // Errors this policy does not handle are not counted either.
    p.recover(&error(ErrorKind::Permission, None, 1, "m"));
    assert_eq!(p.breaker("s1"), BreakerState::Closed { failures: 0 });
}

#[test]
fn model_scope_shares_a_breaker_across_sessions_and_ignores_tool_errors() {
    let p = no_jitter(ResilienceConfig {
        breaker_failures: 2,
        breaker_scope: BreakerScope::Model,
        ..ResilienceConfig::default()
    });
    let mut e = error(ErrorKind::Network, None, 1, "big");
    p.recover(&e);
    e.meta = Meta::new("s2");
    let mut tool_err = error(ErrorKind::Tool, Some(503), 1, "big");
    tool_err.tool_name = Some("WebFetch".into());
    p.recover(&tool_err);
    assert_eq!(p.breaker("big"), BreakerState::Closed { failures: 1 });
    assert!(
        matches!(p.recover(&e), Some(Recovery::GiveUp { ref reason })
            if reason.starts_with("resilience: circuit open for model big after 2"))
    );
    let mut call = PreModelCall::new(Meta::new("s3"), "big", Vec::new());
    assert!(p.pre_model_call(&mut call).unwrap().is_deny());
    let mut call = PreModelCall::new(Meta::new("s3"), "small", Vec::new());
    assert_eq!(p.pre_model_call(&mut call).unwrap(), Verdict::Continue);
}

#[test]
fn state_is_bounded_and_dropped_at_session_end() {
    let p = no_jitter(ResilienceConfig {
        max_tracked: 8,
        breaker_failures: 100,
        ..ResilienceConfig::default()
    });
    for i in 0..100 {
        let mut e = error(ErrorKind::Network, None, 1, "m");
        e.meta = Meta::new(format!("s{i}"));
        p.recover(&e);
    }
    {
        let state = p.lock();
        assert!(state.breakers.len() <= 8 && state.ops.len() <= 8);
    }
    assert_eq!(p.breaker("s99"), BreakerState::Closed { failures: 1 });
    p.session_end(&SessionEnd::new(
        Meta::new("s99"),
        hookrail_core::context::SessionEndReason::Completed,
        true,
    ))
    .unwrap();
    assert_eq!(p.breaker("s99"), BreakerState::Closed { failures: 0 });
    assert!(!p.lock().ops.keys().any(|(s, _)| &**s == "s99"));
}

#[test]
fn a_panicking_alert_callback_does_not_break_the_policy() {
    let p = no_jitter(ResilienceConfig {
        breaker_failures: 1,
        ..ResilienceConfig::default()
    })
    .on_alert(|_| panic!("pager down"));
    let hooks = hookrail_core::runtime::Hooks::builder()
        .ignore_env()
        .provider(p.clone())
        .build()
        .unwrap();
    let mut e = error(ErrorKind::Network, None, 1, "m");
    let out = hooks.dispatch::<hookrail_core::points::error_occurred::Point>(&mut e);
    assert_eq!(out.failures.len(), 1, "the runtime caught the panic");
    assert_eq!(
        p.breaker("s1"),
        BreakerState::Open,
        "the state was updated first"
    );
    let mut call = PreModelCall::new(Meta::new("s1"), "m", Vec::new());
    assert!(p.pre_model_call(&mut call).unwrap().is_deny());
}
