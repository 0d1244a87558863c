//! Unit tests of the policy.
use super::*;
use serde_json::json;
use std::collections::BTreeMap;

fn prices() -> BTreeMap<String, ModelPrice> {
    [
        ("big".to_owned(), ModelPrice::new(3.0, 15.0)),
        ("small".to_owned(), ModelPrice::new(0.25, 1.25)),
        ("claude-sonnet-4".to_owned(), ModelPrice::new(3.0, 15.0)),
        ("claude-sonnet-4-5".to_owned(), ModelPrice::new(6.0, 30.0)),
    ]
    .into()
}

fn post(session: &str, model: &str, input: u64, output: u64) -> PostModelCall {
    PostModelCall::new(
        Meta::new(session),
        model,
        "",
        TokenUsage::new(input, output),
        1,
    )
}

fn pre(session: &str, model: &str) -> PreModelCall {
    PreModelCall::new(Meta::new(session), model, Vec::new())
}

fn refused(config: BudgetConfig) -> ConfigError {
    Budget::new(config).unwrap_err()
}

#[test]
fn default_settings_are_valid_and_round_trip_through_json() {
    let config = BudgetConfig {
        prices: prices(),
        session: BudgetLimits {
            hard_usd: Some(5.0),
            ..BudgetLimits::default()
        },
        ..BudgetConfig::default()
    };
    let json = serde_json::to_value(&config).unwrap();
    assert_eq!(json["prices"]["big"]["input_usd_per_mtok"], 3.0);
    assert_eq!(json["session"], json!({"hard_usd": 5.0}));
    let back: BudgetConfig = serde_json::from_value(json).unwrap();
    assert_eq!(back, config);
    assert_eq!(
        serde_json::from_value::<BudgetConfig>(json!({})).unwrap(),
        BudgetConfig::default()
    );
    let _ = Budget::default();
}

#[test]
fn unknown_fields_are_refused_when_deserializing() {
    for bad in [
        json!({"session": {"hard": 5}}),
        json!({"prices": {"m": {"input": 1, "output": 2}}}),
        json!({"cheap_model": "x"}),
    ] {
        assert!(
            serde_json::from_value::<BudgetConfig>(bad.clone()).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn zero_negative_and_non_finite_settings_are_refused_with_the_field() {
    let limits = |l: BudgetLimits| BudgetConfig {
        session: l,
        ..BudgetConfig::default()
    };
    let cases = [
        (
            limits(BudgetLimits {
                hard_usd: Some(0.0),
                ..BudgetLimits::default()
            }),
            "session.hard_usd",
        ),
        (
            limits(BudgetLimits {
                soft_usd: Some(-1.0),
                ..BudgetLimits::default()
            }),
            "session.soft_usd",
        ),
        (
            limits(BudgetLimits {
                hard_usd: Some(f64::NAN),
                ..BudgetLimits::default()
            }),
            "session.hard_usd",
        ),
        (
            limits(BudgetLimits {
                hard_usd: Some(f64::INFINITY),
                ..BudgetLimits::default()
            }),
            "session.hard_usd",
        ),
        (
            limits(BudgetLimits {
                hard_tokens: Some(0),
                ..BudgetLimits::default()
            }),
            "session.hard_tokens",
        ),
        (
            limits(BudgetLimits {
                soft_usd: Some(6.0),
                hard_usd: Some(5.0),
                ..BudgetLimits::default()
            }),
            "session.soft_usd",
        ),
        (
            limits(BudgetLimits {
                soft_tokens: Some(10),
                hard_tokens: Some(9),
                ..BudgetLimits::default()
            }),
            "session.soft_tokens",
        ),
        (
            BudgetConfig {
                tenants: [(
                    "acme".to_owned(),
                    BudgetLimits {
                        soft_tokens: Some(0),
                        ..BudgetLimits::default()
                    },
                )]
                .into(),
                ..BudgetConfig::default()
            },
            "tenants.acme.soft_tokens",
        ),
        (
            BudgetConfig {
                tenants: [(" ".to_owned(), BudgetLimits::default())].into(),
                ..BudgetConfig::default()
            },
            "tenants",
        ),
        (
            BudgetConfig {
                prices: [("m".to_owned(), ModelPrice::new(-0.5, 1.0))].into(),
                ..BudgetConfig::default()
            },
            "prices.m.input_usd_per_mtok",
        ),
        (
            BudgetConfig {
                prices: [(String::new(), ModelPrice::new(1.0, 1.0))].into(),
                ..BudgetConfig::default()
            },
            "prices",
        ),
        (
            BudgetConfig {
                default_price: Some(ModelPrice::new(1.0, f64::NAN)),
                ..BudgetConfig::default()
            },
            "default_price.output_usd_per_mtok",
        ),
        (
            BudgetConfig {
                cheaper_model: Some("  ".into()),
                ..BudgetConfig::default()
            },
            "cheaper_model",
        ),
        (
            BudgetConfig {
                max_sessions: 0,
                ..BudgetConfig::default()
            },
            "max_sessions",
        ),
    ];
    for (config, field) in cases {
        let err = refused(config);
        assert_eq!((err.policy, err.field.as_ref()), ("budget", field), "{err}");
    }
}

#[test]
fn money_is_written_with_cents_and_no_noise() {
    assert_eq!(usd_text(5_020_000), "$5.02");
    assert_eq!(usd_text(5_000_000), "$5.00");
    assert_eq!(usd_text(5_004_000), "$5.004");
    assert_eq!(usd_text(1), "$0.000001");
    assert_eq!(usd_text(0), "$0.00");
    assert_eq!(usd_text(u64::MAX), "$18446744073709.551615");
}

#[test]
fn prices_match_exactly_then_by_longest_prefix_then_default() {
    let budget = Budget::new(BudgetConfig {
        prices: prices(),
        default_price: Some(ModelPrice::new(1.0, 1.0)),
        ..BudgetConfig::default()
    })
    .unwrap();
    let p = |m: &str| budget.price(m).unwrap();
    assert_eq!(p("claude-sonnet-4").input, 3_000_000);
    assert_eq!(p("claude-sonnet-4-5-20250929").input, 6_000_000);
    assert_eq!(p("claude-sonnet-4-20250514").input, 3_000_000);
    assert_eq!(p("mystery").input, 1_000_000);
}

#[test]
fn costs_are_exact_over_many_tiny_calls() {
    // 0.25 USD per million input tokens is a quarter of a micro-dollar per token: a float
    // or per-call rounding would drift; integer picodollars do not.
    let budget = Budget::new(BudgetConfig {
        prices: prices(),
        ..BudgetConfig::default()
    })
    .unwrap();
    for _ in 0..1000 {
        budget
            .post_model_call(&mut post("s1", "small", 1, 0))
            .unwrap();
    }
    // 1000 tokens × 0.25 µ$ = 250 µ$.
    assert_eq!(budget.report("s1").unwrap().cost_micros, 250);
}

#[test]
fn unknown_models_count_tokens_but_cost_nothing_and_token_limits_still_hold() {
    let budget = Budget::new(BudgetConfig {
        session: BudgetLimits {
            hard_tokens: Some(100),
            ..BudgetLimits::default()
        },
        ..BudgetConfig::default()
    })
    .unwrap();
    budget
        .post_model_call(&mut post("s1", "mystery", 60, 40))
        .unwrap();
    let report = budget.report("s1").unwrap();
    assert_eq!(report.cost_micros, 0);
    assert!(!report.models["mystery"].priced);
    let v = budget.pre_model_call(&mut pre("s1", "mystery")).unwrap();
    assert_eq!(
        v.reason(),
        Some("budget: session s1 used 100 tokens of its 100-token hard limit")
    );
}

#[test]
fn huge_token_counts_saturate_instead_of_overflowing() {
    let budget = Budget::new(BudgetConfig {
        prices: [("m".to_owned(), ModelPrice::new(MAX_PRICE, MAX_PRICE))].into(),
        session: BudgetLimits {
            hard_usd: Some(MAX_USD),
            ..BudgetLimits::default()
        },
        ..BudgetConfig::default()
    })
    .unwrap();
    let mut meta = Meta::new("s1").with_tenant("acme");
    meta.turn = u32::MAX;
    for _ in 0..3 {
        let mut ctx = PostModelCall::new(
            meta.clone(),
            "m",
            "",
            TokenUsage::new(u64::MAX, u64::MAX),
            0,
        );
        budget.post_model_call(&mut ctx).unwrap();
    }
    let report = budget.report("s1").unwrap();
    assert_eq!(report.tokens, TokenUsage::new(u64::MAX, u64::MAX));
    assert_eq!(report.cost_micros, u64::MAX);
    assert_eq!(budget.tenant_spend("acme").unwrap().cost_micros, u64::MAX);
    let mut call = PreModelCall::new(meta, "m", Vec::new());
    assert!(budget.pre_model_call(&mut call).unwrap().is_deny());
}

#[test]
fn soft_limit_switches_to_the_cheaper_model_but_never_to_a_dearer_one() {
    let budget = Budget::new(BudgetConfig {
        prices: prices(),
        session: BudgetLimits {
            soft_usd: Some(0.000001),
            ..BudgetLimits::default()
        },
        cheaper_model: Some("big".into()),
        ..BudgetConfig::default()
    })
    .unwrap();
    budget
        .post_model_call(&mut post("s1", "big", 1, 0))
        .unwrap();
    let mut call = pre("s1", "small");
    budget.pre_model_call(&mut call).unwrap();
    assert_eq!(
        call.model.get(),
        "small",
        "small is already cheaper than big"
    );
    let mut call = pre("s1", "claude-sonnet-4-5");
    budget.pre_model_call(&mut call).unwrap();
    assert_eq!(call.model.get(), "big");
    assert_eq!(call.model.original(), "claude-sonnet-4-5");
    let mut call = pre("s1", "unpriced");
    budget.pre_model_call(&mut call).unwrap();
    assert_eq!(
        call.model.get(),
        "big",
        "an unknown model may be dear: switch"
    );
    let report = budget.report("s1").unwrap();
    assert_eq!(report.downgraded_calls, 2);
    assert_eq!(
        report.limits_hit,
        [LimitHit {
            scope: LimitScope::Session,
            level: LimitLevel::Soft,
            unit: LimitUnit::Usd
        }]
    );
}

#[test]
fn a_missing_tenant_has_no_tenant_limit_and_no_tenant_account() {
    let budget = Budget::new(BudgetConfig {
        tenant: BudgetLimits {
            hard_tokens: Some(1),
            ..BudgetLimits::default()
        },
        ..BudgetConfig::default()
    })
    .unwrap();
    budget
        .post_model_call(&mut post("s1", "m", 10, 10))
        .unwrap();
    assert!(
        !budget
            .pre_model_call(&mut pre("s1", "m"))
            .unwrap()
            .is_deny()
    );
    assert_eq!(budget.tenant_spend(""), None);
}

#[test]
fn ended_reports_are_bounded_and_can_be_taken() {
    let budget = Budget::new(BudgetConfig {
        max_reports: 2,
        ..BudgetConfig::default()
    })
    .unwrap();
    for s in ["a", "b", "c"] {
        budget.post_model_call(&mut post(s, "m", 1, 1)).unwrap();
        budget
            .session_end(&SessionEnd::new(
                Meta::new(s),
                hookrail_core::context::SessionEndReason::Completed,
                true,
            ))
            .unwrap();
    }
    assert_eq!(budget.open_sessions(), 0);
    assert_eq!(budget.report("a"), None, "the oldest report was dropped");
    assert!(budget.report("b").unwrap().ended);
    assert!(budget.take_report("c").is_some());
    assert_eq!(budget.report("c"), None);
    assert_eq!(budget.take_report("c"), None);
}

#[test]
fn too_many_open_sessions_close_the_least_recently_active() {
    let budget = Budget::new(BudgetConfig {
        max_sessions: 2,
        ..BudgetConfig::default()
    })
    .unwrap();
    budget.post_model_call(&mut post("a", "m", 1, 0)).unwrap();
    budget.post_model_call(&mut post("b", "m", 1, 0)).unwrap();
    budget.post_model_call(&mut post("a", "m", 1, 0)).unwrap();
    budget.post_model_call(&mut post("c", "m", 1, 0)).unwrap();
    assert_eq!(budget.open_sessions(), 2);
    let b = budget.report("b").unwrap();
    assert!(!b.ended, "closed early, not ended");
    assert_eq!(b.tokens.input, 1);
    assert_eq!(budget.report("a").unwrap().tokens.input, 2);
}

#[test]
fn limits_with_nothing_to_enforce_them_are_refused_and_accounting_alone_is_not() {
    let limited = BudgetConfig {
        session: BudgetLimits {
            soft_tokens: Some(10),
            ..BudgetLimits::default()
        },
        enforce: BTreeSet::new(),
        ..BudgetConfig::default()
    };
    let err = refused(limited);
    assert_eq!(err.field, "enforce");
    assert!(err.message.contains("would never apply"), "{err}");
    let accounting = Budget::new(BudgetConfig {
        enforce: BTreeSet::new(),
        ..BudgetConfig::default()
    })
    .unwrap();
    assert_eq!(
        accounting.points(),
        PointSet::POST_MODEL_CALL | PointSet::SUBAGENT_STOP | PointSet::SESSION_END,
        "no guard point is entered"
    );
    let config: BudgetConfig = serde_json::from_value(json!({"enforce": ["subagents"]})).unwrap();
    assert_eq!(config.enforce, [Enforce::Subagents].into());
    assert!(serde_json::from_value::<BudgetConfig>(json!({"enforce": ["tools"]})).is_err());
}

#[test]
fn a_guard_point_left_out_of_enforce_is_neither_entered_nor_limited() {
    let budget = Budget::new(BudgetConfig {
        prices: prices(),
        session: BudgetLimits {
            hard_usd: Some(1.0),
            ..BudgetLimits::default()
        },
        enforce: [Enforce::Subagents].into(),
        ..BudgetConfig::default()
    })
    .unwrap();
    assert!(!budget.points().contains(PointSet::PRE_MODEL_CALL));
    assert!(budget.points().contains(PointSet::SUBAGENT_START));
    budget
        .post_model_call(&mut post("s1", "big", 1_000_000, 0))
        .unwrap();
    // Called directly anyway, it does not limit what it does not enforce.
    assert_eq!(
        budget.pre_model_call(&mut pre("s1", "big")).unwrap(),
        Verdict::Continue
    );
    let mut spawn = SubagentStart::new(Meta::new("s1"), "sub", "big", "task");
    assert!(budget.subagent_start(&mut spawn).unwrap().is_deny());
}
