#![cfg(feature = "budget")]
//! `budget` through a real `Hooks` and `Session`: spend is counted once per model call
//! (subagents included, never twice), a soft limit moves model calls and spawns to the cheaper
//! model, a hard limit denies them with a reason that says who spent what, tenants add up
//! across sessions, and the report is there at session end.

use std::sync::{Arc, Mutex};

use hookrail_builtin::budget::{
    Budget, BudgetConfig, BudgetLimits, LimitHit, LimitLevel, LimitScope, LimitUnit, ModelPrice,
};
use hookrail_core::context::{
    Message, Meta, PostModelCall, PreModelCall, Role, SessionEndReason, SubagentStatus, TokenUsage,
};
use hookrail_core::points::{post_model_call, pre_model_call};
use hookrail_core::runtime::{Hooks, ModelReply, Session, SessionError};
use serde_json::json;

use super::capture::Capture;

fn hooks_with(budget: &Budget) -> Hooks {
    Hooks::builder()
        .ignore_env()
        .provider_at(-50, budget.clone())
        .build()
        .unwrap()
}

fn prices() -> BudgetConfig {
    serde_json::from_value(json!({
        "prices": {
            "big": {"input_usd_per_mtok": 3.0, "output_usd_per_mtok": 15.0},
            "cheap": {"input_usd_per_mtok": 0.25, "output_usd_per_mtok": 1.25}
        }
    }))
    .unwrap()
}

fn user() -> Vec<Message> {
    vec![Message::new(Role::User, "work")]
}

/// A model that answers with `usage` and records which model it was asked for.
fn model(
    usage: TokenUsage,
    asked: Arc<Mutex<Vec<String>>>,
) -> impl FnMut(
    &PreModelCall,
) -> std::future::Ready<Result<ModelReply, hookrail_core::runtime::AgentError>> {
    move |pre| {
        asked.lock().unwrap().push(pre.model.get().clone());
        std::future::ready(Ok(ModelReply::new(["ok"]).with_usage(usage)))
    }
}

#[tokio::test]
async fn soft_limit_switches_to_the_cheaper_model_and_hard_limit_denies_calls_and_spawns() {
    let budget = Budget::new(BudgetConfig {
        session: BudgetLimits {
            soft_usd: Some(1.0),
            hard_usd: Some(2.0),
            ..BudgetLimits::default()
        },
        cheaper_model: Some("cheap".into()),
        ..prices()
    })
    .unwrap();
    let hooks = hooks_with(&budget);
    let asked = Arc::new(Mutex::new(Vec::new()));
    let mut session = Session::start(hooks, Meta::new("s1"), "big").await.unwrap();

    // $0.60 + $0.45 = $1.05: over the soft limit.
    session
        .call_model(
            user(),
            model(TokenUsage::new(200_000, 30_000), asked.clone()),
        )
        .await
        .unwrap();
    // $0.25 + $0.25 on the cheap model: $1.55.
    let post = session
        .call_model(
            user(),
            model(TokenUsage::new(1_000_000, 200_000), asked.clone()),
        )
        .await
        .unwrap();
    assert_eq!(post.model, "cheap");
    // A spawn over the soft limit gets the cheap model too.
    let sub = session.start_subagent("helper", "summarize").await.unwrap();
    assert_eq!(sub.start.model.get(), "cheap");
    assert_eq!(sub.start.model.original(), "big");
    let mut sub = sub;
    // The subagent's own call ($0.50 on cheap) counts toward the parent session: $2.05.
    sub.session
        .call_model(user(), model(TokenUsage::new(2_000_000, 0), asked.clone()))
        .await
        .unwrap();
    let stop = session
        .finish_subagent(sub, SubagentStatus::Completed, None)
        .await;
    assert_eq!(stop.tokens, TokenUsage::new(2_000_000, 0));

    let err = session
        .call_model(user(), model(TokenUsage::new(1, 1), asked.clone()))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, SessionError::Denied { point: "pre_model_call", reason, by: Some(by), .. }
            if reason == "budget: session s1 spent $2.05 of its $2.00 hard limit"
                && *by == "builtin.budget"),
        "{err}"
    );
    let err = session.start_subagent("helper", "again").await.unwrap_err();
    assert!(
        matches!(&err, SessionError::Denied { point: "subagent_start", reason, .. }
            if reason == "budget: session s1 spent $2.05 of its $2.00 hard limit"),
        "{err}"
    );
    assert_eq!(*asked.lock().unwrap(), ["big", "cheap", "cheap"]);

    let open = budget.report("s1").unwrap();
    assert!(!open.ended);
    session.end(SessionEndReason::Completed, true).await;
    let report = budget.report("s1").unwrap();
    assert!(report.ended);
    assert_eq!(report.cost_micros, 2_050_000);
    assert_eq!(report.tokens, TokenUsage::new(3_200_000, 230_000));
    assert_eq!(report.models["big"].cost_micros, 1_050_000);
    assert_eq!(
        report.models["cheap"].tokens,
        TokenUsage::new(3_000_000, 200_000)
    );
    assert_eq!(report.models["cheap"].cost_micros, 1_000_000);
    assert_eq!(
        report.downgraded_calls, 2,
        "the second model call and the spawn; the subagent then runs on the cheap model"
    );
    assert_eq!(report.denied_calls, 2);
    let hit = |level| LimitHit {
        scope: LimitScope::Session,
        level,
        unit: LimitUnit::Usd,
    };
    assert_eq!(
        report.limits_hit,
        [hit(LimitLevel::Soft), hit(LimitLevel::Hard)]
    );
    assert!((report.cost_usd() - 2.05).abs() < 1e-9);
    assert_eq!(budget.open_sessions(), 0);
}

#[tokio::test]
async fn subagent_tokens_are_counted_once_unless_configured_for_runtimes_that_skip_the_hooks() {
    for (count_stop, expected) in [(false, 110), (true, 120)] {
        let budget = Budget::new(BudgetConfig {
            count_subagent_stop: count_stop,
            ..prices()
        })
        .unwrap();
        let asked = Arc::new(Mutex::new(Vec::new()));
        let mut session = Session::start(hooks_with(&budget), Meta::new("s1"), "big")
            .await
            .unwrap();
        session
            .call_model(user(), model(TokenUsage::new(100, 0), asked.clone()))
            .await
            .unwrap();
        let mut sub = session.start_subagent("helper", "x").await.unwrap();
        sub.session
            .call_model(user(), model(TokenUsage::new(10, 0), asked.clone()))
            .await
            .unwrap();
        session
            .finish_subagent(sub, SubagentStatus::Completed, None)
            .await;
        let end = session.end(SessionEndReason::Completed, true).await;
        assert_eq!(end.tokens.input, 110, "the session's own count");
        let report = budget.report("s1").unwrap();
        assert_eq!(
            report.tokens.input, expected,
            "count_subagent_stop = {count_stop}"
        );
    }
}

#[test]
fn tenant_limits_add_up_across_sessions_and_stop_only_that_tenant() {
    let budget = Budget::new(BudgetConfig {
        tenant: BudgetLimits {
            hard_tokens: Some(1000),
            ..BudgetLimits::default()
        },
        tenants: [(
            "globex".to_owned(),
            BudgetLimits {
                hard_tokens: Some(10_000),
                ..BudgetLimits::default()
            },
        )]
        .into(),
        ..prices()
    })
    .unwrap();
    let hooks = hooks_with(&budget);
    let meta = |s: &str, t: &str| Meta::new(s).with_tenant(t);
    for (session, tenant, tokens) in [
        ("s1", "acme", 600),
        ("s2", "acme", 500),
        ("s3", "globex", 1100),
    ] {
        let mut post = PostModelCall::new(
            meta(session, tenant),
            "big",
            "",
            TokenUsage::new(tokens, 0),
            1,
        );
        hooks.dispatch::<post_model_call::Point>(&mut post);
    }
    let mut call = PreModelCall::new(meta("s1", "acme"), "big", vec![]);
    let out = hooks.dispatch::<pre_model_call::Point>(&mut call);
    assert_eq!(
        out.verdict().reason(),
        Some("budget: tenant acme used 1100 tokens of its 1000-token hard limit")
    );
    // A new session of the same tenant is stopped too.
    let mut call = PreModelCall::new(meta("s9", "acme"), "big", vec![]);
    assert!(
        hooks
            .dispatch::<pre_model_call::Point>(&mut call)
            .is_denied()
    );
    // Another tenant with its own, larger limit is not.
    let mut call = PreModelCall::new(meta("s3", "globex"), "big", vec![]);
    assert!(
        !hooks
            .dispatch::<pre_model_call::Point>(&mut call)
            .is_denied()
    );

    let acme = budget.tenant_spend("acme").unwrap();
    assert_eq!(acme.tokens.input, 1100);
    assert_eq!(acme.cost_micros, 3300, "1100 tokens at $3 per million");
    assert_eq!(
        budget.report("s1").unwrap().limits_hit[0].scope,
        LimitScope::Tenant
    );

    // A new billing period.
    assert_eq!(budget.reset_tenant("acme").unwrap().tokens.input, 1100);
    let mut call = PreModelCall::new(meta("s1", "acme"), "big", vec![]);
    assert!(
        !hooks
            .dispatch::<pre_model_call::Point>(&mut call)
            .is_denied()
    );
    assert_eq!(budget.tenant_spend("acme"), None);
}

#[test]
fn concurrent_sessions_lose_no_spend() {
    let budget = Budget::new(prices()).unwrap();
    let hooks = hooks_with(&budget);
    std::thread::scope(|s| {
        for t in 0..8 {
            let hooks = hooks.clone();
            s.spawn(move || {
                for _ in 0..500 {
                    let mut post = PostModelCall::new(
                        Meta::new(format!("s{t}")).with_tenant("acme"),
                        "cheap",
                        "",
                        TokenUsage::new(4, 0),
                        1,
                    );
                    hooks.dispatch::<post_model_call::Point>(&mut post);
                }
            });
        }
    });
    let acme = budget.tenant_spend("acme").unwrap();
    assert_eq!(acme.tokens.input, 8 * 500 * 4);
    // 16 000 tokens at $0.25 per million = $0.004.
    assert_eq!(acme.cost_micros, 4000);
    for t in 0..8 {
        assert_eq!(budget.report(&format!("s{t}")).unwrap().tokens.input, 2000);
    }
}

#[test]
fn settings_from_a_config_file_are_checked_like_settings_in_code() {
    let config: BudgetConfig = serde_json::from_value(json!({
        "session": {"soft_usd": 10.0, "hard_usd": 5.0}
    }))
    .unwrap();
    assert_eq!(
        Budget::new(config).unwrap_err().to_string(),
        "budget: invalid `session.soft_usd`: the soft limit ($10.00) is above the hard limit ($5.00)"
    );
    let config: BudgetConfig =
        serde_json::from_value(json!({"tenant": {"hard_usd": -5.0}})).unwrap();
    assert!(Budget::new(config).is_err());
    assert!(
        serde_json::from_value::<BudgetConfig>(json!({"session": {"hard_tokens": -1}})).is_err(),
        "negative token counts do not even parse"
    );
}

#[test]
fn model_price_requires_both_prices() {
    let err = serde_json::from_value::<ModelPrice>(json!({"input_usd_per_mtok": 1.0})).unwrap_err();
    assert!(err.to_string().contains("output_usd_per_mtok"), "{err}");
}

#[tokio::test]
async fn the_spend_report_is_logged_at_session_end_and_unknown_models_are_warned_about_once() {
    let capture = Capture::default();
    let _guard = tracing::subscriber::set_default(capture.clone());
    let budget = Budget::new(prices()).unwrap();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let meta = Meta::new("logged-session").with_tenant("acme");
    let mut session = Session::start(hooks_with(&budget), meta, "mystery-model")
        .await
        .unwrap();
    for _ in 0..3 {
        session
            .call_model(user(), model(TokenUsage::new(7, 3), asked.clone()))
            .await
            .unwrap();
    }
    session.end(SessionEndReason::Completed, true).await;

    let events = capture.0.lock().unwrap().clone();
    let ours: Vec<_> = events
        .iter()
        .filter(|(_, target, _)| target == "hookrail_builtin::budget")
        .collect();
    let warnings: Vec<_> = ours
        .iter()
        .filter(|(level, _, f)| {
            *level == tracing::Level::WARN
                && f.get("model").map(String::as_str) == Some("mystery-model")
        })
        .collect();
    assert_eq!(warnings.len(), 1, "one warning per unknown model: {ours:?}");
    let report = ours
        .iter()
        .find(|(_, _, f)| f.get("message").map(String::as_str) == Some("session spend"))
        .expect("a spend report event");
    assert_eq!(report.0, tracing::Level::INFO);
    assert_eq!(report.2["session"], "logged-session");
    assert_eq!(report.2["tenant"], "acme");
    assert_eq!(report.2["input_tokens"], "21");
    let json: serde_json::Value = serde_json::from_str(&report.2["report"]).unwrap();
    assert_eq!(json["models"]["mystery-model"]["priced"], false);
    assert_eq!(json["ended"], true);
}

/// Seed 000's `BudgetHooksProvider` (need 2, "agents ran up a $200 bill overnight"), built from
/// the builtins' configuration alone: from 70 % of the budget spawns get the cheaper model,
/// from 90 % they are denied ("Budget 90% consumed. Pausing spawns."), the running agent's own
/// calls go on, and the spend report is there at session end (the seed's `writeBudgetReport`).
#[tokio::test]
async fn seed_000_budget_provider_from_the_builtins_config_alone() {
    let config: hookrail_builtin::BuiltinConfig = serde_json::from_value(json!({
        "budget": {
            "prices": {
                "claude-sonnet-4": {"input_usd_per_mtok": 3.0, "output_usd_per_mtok": 15.0},
                "claude-haiku-4.5": {"input_usd_per_mtok": 1.0, "output_usd_per_mtok": 5.0}
            },
            // A $10 budget: the seed's `budget * 0.7` and `budget * 0.9`.
            "session": {"soft_usd": 7.0, "hard_usd": 9.0},
            "cheaper_model": "claude-haiku-4.5",
            "enforce": ["subagents"]
        }
    }))
    .unwrap();
    let builtins = hookrail_builtin::Builtins::new(config).unwrap();
    let hooks = builtins.install(Hooks::builder().ignore_env()).unwrap();
    let budget = builtins.budget().expect("configured").clone();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let mut lead = Session::start(hooks, Meta::new("nightly"), "claude-sonnet-4")
        .await
        .unwrap();
    let spend = |input: u64| model(TokenUsage::new(input, 0), asked.clone());

    // $6.00, 60 %: a spawn keeps the model it asked for.
    lead.call_model(user(), spend(2_000_000)).await.unwrap();
    let sub = lead
        .start_subagent("tester", "run the tests")
        .await
        .unwrap();
    assert_eq!(sub.start.model.get(), "claude-sonnet-4");
    lead.finish_subagent(sub, SubagentStatus::Completed, None)
        .await;

    // $7.50, 75 %: the next spawn runs on the cheaper model; the lead's own calls do not.
    lead.call_model(user(), spend(500_000)).await.unwrap();
    let mut sub = lead
        .start_subagent("docs", "update the docs")
        .await
        .unwrap();
    assert_eq!(sub.start.model.get(), "claude-haiku-4.5");
    assert_eq!(sub.session.model(), "claude-haiku-4.5");
    sub.session
        .call_model(user(), spend(100_000)) // $0.10 on haiku, counted once
        .await
        .unwrap();
    lead.finish_subagent(sub, SubagentStatus::Completed, None)
        .await;

    // $9.10, 91 %: spawns are paused, with the reason; the lead can still finish its work.
    lead.call_model(user(), spend(500_000)).await.unwrap();
    let err = lead
        .start_subagent("refactor", "split the module")
        .await
        .unwrap_err();
    match err {
        SessionError::Denied { point, reason, .. } => {
            assert_eq!(point, "subagent_start");
            assert_eq!(
                reason,
                "budget: session nightly spent $9.10 of its $9.00 hard limit"
            );
        }
        other => panic!("not a deny: {other}"),
    }
    lead.call_model(user(), spend(1_000)).await.unwrap();
    assert_eq!(
        *asked.lock().unwrap(),
        [
            "claude-sonnet-4",
            "claude-sonnet-4",
            "claude-haiku-4.5",
            "claude-sonnet-4",
            "claude-sonnet-4"
        ]
    );

    lead.end(SessionEndReason::Completed, true).await;
    let report = budget.report("nightly").expect("kept at session end");
    assert!(report.ended);
    assert_eq!(report.cost_micros, 9_103_000);
    assert_eq!((report.downgraded_calls, report.denied_calls), (1, 1));
    assert!(report.limits_hit.contains(&LimitHit {
        scope: LimitScope::Session,
        level: LimitLevel::Hard,
        unit: LimitUnit::Usd,
    }));
}
