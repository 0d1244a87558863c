//! Unit tests of the policy.
use super::*;
use serde_json::json;
use std::time::Duration;

fn policy(config: RateLimitConfig) -> (RateLimit, ManualClock) {
    let clock = ManualClock::new();
    let p = RateLimit::new(config)
        .unwrap()
        .with_clock(Arc::new(clock.clone()));
    (p, clock)
}

fn tool(agent: &str, name: &str) -> PreToolUse {
    PreToolUse::new(Meta::new("s1").with_agent(agent), name, json!({}))
}

fn only_tools(limits: Vec<Limit>) -> RateLimitConfig {
    RateLimitConfig {
        tool_calls: limits,
        model_calls: Vec::new(),
        ..RateLimitConfig::default()
    }
}

#[test]
fn default_settings_are_valid_and_round_trip_through_json() {
    let config = RateLimitConfig::default();
    let json = serde_json::to_value(&config).unwrap();
    assert_eq!(json["tool_calls"][0]["calls"], 120);
    assert_eq!(json["tool_calls"][0]["key"], json!(["tenant", "agent"]));
    let back: RateLimitConfig = serde_json::from_value(json).unwrap();
    assert_eq!(back, config);
    let _ = RateLimit::default();
}

#[test]
fn unknown_fields_are_refused_when_deserializing() {
    let err = serde_json::from_value::<RateLimitConfig>(json!({"tool_call": []})).unwrap_err();
    assert!(err.to_string().contains("unknown field"), "{err}");
    let err = serde_json::from_value::<Limit>(json!({"calls": 1, "per": 3})).unwrap_err();
    assert!(err.to_string().contains("unknown field"), "{err}");
}

#[test]
fn zero_and_out_of_range_settings_are_refused_with_the_field() {
    let cases: Vec<(RateLimitConfig, &str)> = vec![
        (
            only_tools(vec![Limit::per_window(0, 1000)]),
            "tool_calls[0].calls",
        ),
        (
            only_tools(vec![Limit::per_window(1, 0)]),
            "tool_calls[0].window_ms",
        ),
        (
            only_tools(vec![Limit::per_window(1, MAX_WINDOW_MS + 1)]),
            "tool_calls[0].window_ms",
        ),
        (
            only_tools(vec![Limit {
                burst: Some(0),
                ..Limit::default()
            }]),
            "tool_calls[0].burst",
        ),
        (
            only_tools(vec![Limit {
                key: vec![KeyPart::Agent, KeyPart::Agent],
                ..Limit::default()
            }]),
            "tool_calls[0].key[1]",
        ),
        (
            only_tools(vec![Limit {
                key: vec![KeyPart::Model],
                ..Limit::default()
            }]),
            "tool_calls[0].key[0]",
        ),
        (
            only_tools(vec![Limit {
                tools: vec!["Bash".into(), " ".into()],
                ..Limit::default()
            }]),
            "tool_calls[0].tools[1]",
        ),
        (
            RateLimitConfig {
                model_calls: vec![
                    Limit::default(),
                    Limit {
                        tools: vec!["Bash".into()],
                        ..Limit::default()
                    },
                ],
                ..RateLimitConfig::default()
            },
            "model_calls[1].tools",
        ),
        (
            RateLimitConfig {
                model_calls: vec![Limit {
                    key: vec![KeyPart::Tool],
                    ..Limit::default()
                }],
                ..RateLimitConfig::default()
            },
            "model_calls[0].key[0]",
        ),
        (
            RateLimitConfig {
                max_buckets: 0,
                ..RateLimitConfig::default()
            },
            "max_buckets",
        ),
    ];
    for (config, field) in cases {
        let err = RateLimit::new(config).unwrap_err();
        assert_eq!(
            (err.policy, err.field.as_ref()),
            ("rate_limit", field),
            "{err}"
        );
    }
}

#[test]
fn a_bucket_admits_its_burst_then_refills_continuously() {
    let (p, clock) = policy(only_tools(vec![Limit {
        calls: 30,
        window_ms: 60_000,
        key: vec![KeyPart::Agent],
        ..Limit::default()
    }]));
    for i in 0..30 {
        assert_eq!(
            p.pre_tool_use(&mut tool("coder", "Read")).unwrap(),
            Verdict::Continue,
            "call {i}"
        );
    }
    let v = p.pre_tool_use(&mut tool("coder", "Read")).unwrap();
    assert_eq!(
        v.reason(),
        Some("rate-limit: 30 tool calls per 60 s for agent \"coder\"; next in 2.0 s")
    );
    clock.advance(Duration::from_millis(200));
    let v = p.pre_tool_use(&mut tool("coder", "Read")).unwrap();
    assert_eq!(
        v.reason(),
        Some("rate-limit: 30 tool calls per 60 s for agent \"coder\"; next in 1.8 s")
    );
    clock.advance(Duration::from_millis(1800));
    assert_eq!(
        p.pre_tool_use(&mut tool("coder", "Read")).unwrap(),
        Verdict::Continue
    );
    assert!(
        p.pre_tool_use(&mut tool("coder", "Read"))
            .unwrap()
            .is_deny()
    );
    // Another agent has its own bucket.
    assert_eq!(
        p.pre_tool_use(&mut tool("reviewer", "Read")).unwrap(),
        Verdict::Continue
    );
}

#[test]
fn a_long_idle_period_refills_only_up_to_the_burst() {
    let (p, clock) = policy(only_tools(vec![Limit {
        calls: 10,
        window_ms: 1000,
        burst: Some(3),
        key: vec![],
        ..Limit::default()
    }]));
    clock.advance(Duration::from_secs(3600));
    for _ in 0..3 {
        assert!(!p.pre_tool_use(&mut tool("a", "Read")).unwrap().is_deny());
    }
    let v = p.pre_tool_use(&mut tool("b", "Read")).unwrap();
    assert_eq!(
        v.reason(),
        Some("rate-limit: 10 tool calls per 1 s (bursts of 3) for everyone; next in 0.1 s")
    );
}

#[test]
fn a_refused_call_does_not_use_up_the_other_limits() {
    let (p, clock) = policy(only_tools(vec![
        Limit {
            calls: 3,
            key: vec![KeyPart::Agent],
            ..Limit::default()
        },
        Limit {
            calls: 1,
            key: vec![KeyPart::Agent],
            tools: vec!["Bash".into()],
            ..Limit::default()
        },
    ]));
    assert!(
        !p.pre_tool_use(&mut tool("coder", "Bash"))
            .unwrap()
            .is_deny()
    );
    for _ in 0..5 {
        let v = p.pre_tool_use(&mut tool("coder", "Bash")).unwrap();
        assert!(
            v.reason()
                .unwrap()
                .starts_with("rate-limit: 1 Bash calls per 60 s"),
            "{v}"
        );
    }
    // The general limit spent one token, on the admitted Bash call only.
    assert!(
        !p.pre_tool_use(&mut tool("coder", "Read"))
            .unwrap()
            .is_deny()
    );
    assert!(
        !p.pre_tool_use(&mut tool("coder", "Read"))
            .unwrap()
            .is_deny()
    );
    assert!(
        p.pre_tool_use(&mut tool("coder", "Read"))
            .unwrap()
            .is_deny()
    );
    let _ = clock;
}

#[test]
fn ask_action_asks_and_takes_no_token() {
    let (p, _) = policy(only_tools(vec![Limit {
        calls: 1,
        action: Some(Action::Ask),
        ..Limit::default()
    }]));
    assert_eq!(
        p.pre_tool_use(&mut tool("a", "Read")).unwrap(),
        Verdict::Continue
    );
    for _ in 0..3 {
        assert!(matches!(
            p.pre_tool_use(&mut tool("a", "Read")).unwrap(),
            Verdict::Ask(_)
        ));
    }
}

#[test]
fn deny_wins_over_ask_when_two_limits_refuse() {
    let (p, _) = policy(only_tools(vec![
        Limit {
            calls: 1,
            window_ms: 1000,
            action: Some(Action::Ask),
            ..Limit::default()
        },
        Limit {
            calls: 1,
            window_ms: 10,
            action: Some(Action::Deny),
            ..Limit::default()
        },
    ]));
    assert_eq!(
        p.pre_tool_use(&mut tool("a", "Read")).unwrap(),
        Verdict::Continue
    );
    assert!(p.pre_tool_use(&mut tool("a", "Read")).unwrap().is_deny());
}

#[test]
fn keys_separate_tenants_and_a_missing_tenant_is_its_own_key() {
    let (p, _) = policy(only_tools(vec![Limit {
        calls: 1,
        key: vec![KeyPart::Tenant],
        ..Limit::default()
    }]));
    let with = |tenant: Option<&str>| {
        let mut meta = Meta::new("s");
        if let Some(t) = tenant {
            meta = meta.with_tenant(t);
        }
        PreToolUse::new(meta, "Read", json!({}))
    };
    assert!(!p.pre_tool_use(&mut with(Some("acme"))).unwrap().is_deny());
    assert!(!p.pre_tool_use(&mut with(Some("globex"))).unwrap().is_deny());
    assert!(!p.pre_tool_use(&mut with(None)).unwrap().is_deny());
    let v = p.pre_tool_use(&mut with(None)).unwrap();
    assert!(v.reason().unwrap().contains("for tenant (none);"), "{v}");
    let v = p.pre_tool_use(&mut with(Some("acme"))).unwrap();
    assert!(v.reason().unwrap().contains("for tenant \"acme\";"), "{v}");
}

#[test]
fn key_values_cannot_collide_by_concatenation() {
    let (p, _) = policy(only_tools(vec![Limit {
        calls: 1,
        key: vec![KeyPart::Tenant, KeyPart::Agent],
        ..Limit::default()
    }]));
    let call = |tenant: &str, agent: &str| {
        PreToolUse::new(
            Meta::new("s").with_tenant(tenant).with_agent(agent),
            "Read",
            json!({}),
        )
    };
    assert!(!p.pre_tool_use(&mut call("a|1:b", "c")).unwrap().is_deny());
    assert!(!p.pre_tool_use(&mut call("a", "b|1:c")).unwrap().is_deny());
    assert!(!p.pre_tool_use(&mut call("a|", "c")).unwrap().is_deny());
}

#[test]
fn full_buckets_are_swept_and_the_cap_drops_the_least_recently_used() {
    let (p, clock) = policy(RateLimitConfig {
        tool_calls: vec![Limit {
            calls: 1,
            window_ms: 1000,
            key: vec![KeyPart::Session],
            ..Limit::default()
        }],
        model_calls: Vec::new(),
        max_buckets: 2000,
        ..RateLimitConfig::default()
    });
    let call = |s: usize| PreToolUse::new(Meta::new(format!("s{s}")), "Read", json!({}));
    for s in 0..1000 {
        p.pre_tool_use(&mut call(s)).unwrap();
    }
    assert_eq!(p.bucket_count(), 1000);
    clock.advance(Duration::from_secs(2));
    // All 1000 have refilled: the next sweep drops them.
    for s in 1000..1100 {
        p.pre_tool_use(&mut call(s)).unwrap();
    }
    assert!(p.bucket_count() <= 100, "{}", p.bucket_count());

    // Without time passing nothing refills, and the cap evicts the oldest.
    for s in 2000..5000 {
        p.pre_tool_use(&mut call(s)).unwrap();
        clock.advance(Duration::from_nanos(1));
    }
    assert!(p.bucket_count() <= 2000, "{}", p.bucket_count());
    // The most recent key is still limited.
    assert!(p.pre_tool_use(&mut call(4999)).unwrap().is_deny());
}

#[test]
fn huge_time_jumps_do_not_overflow() {
    let (p, clock) = policy(only_tools(vec![Limit {
        calls: u32::MAX,
        window_ms: MAX_WINDOW_MS,
        burst: Some(u32::MAX),
        ..Limit::default()
    }]));
    assert!(!p.pre_tool_use(&mut tool("a", "Read")).unwrap().is_deny());
    clock.advance(Duration::MAX);
    assert!(!p.pre_tool_use(&mut tool("a", "Read")).unwrap().is_deny());
}

#[test]
fn model_calls_are_limited_per_model_when_keyed_by_model() {
    let (p, _) = policy(RateLimitConfig {
        tool_calls: Vec::new(),
        model_calls: vec![Limit {
            calls: 1,
            key: vec![KeyPart::Model],
            ..Limit::default()
        }],
        ..RateLimitConfig::default()
    });
    let call = |m: &str| PreModelCall::new(Meta::new("s"), m, Vec::new());
    assert!(!p.pre_model_call(&mut call("big")).unwrap().is_deny());
    assert!(!p.pre_model_call(&mut call("small")).unwrap().is_deny());
    let v = p.pre_model_call(&mut call("big")).unwrap();
    assert!(
        v.reason()
            .unwrap()
            .starts_with("rate-limit: 1 model calls per 60 s for model \"big\";"),
        "{v}"
    );
}

#[test]
fn durations_are_written_without_noise() {
    assert_eq!(seconds(60_000_000_000), "60 s");
    assert_eq!(seconds(1_500_000_000), "1.5 s");
    assert_eq!(seconds(1_000_000), "0.001 s");
    assert_eq!(seconds_up(1), "0.1 s");
    assert_eq!(seconds_up(1_800_000_000), "1.8 s");
    assert_eq!(seconds_up(1_800_000_001), "1.9 s");
}
