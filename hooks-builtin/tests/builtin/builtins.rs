//! `BuiltinConfig` and `Builtins`: every policy from one settings value, at its order.
#![cfg(feature = "full")]

use hookrail_builtin::{BuiltinConfig, Builtins, order};
use hookrail_core::runtime::Hooks;
use serde_json::json;

fn every_policy(dir: &std::path::Path) -> serde_json::Value {
    json!({
        "command_guard": { "ask": ["terraform destroy"] },
        "write_guard": { "allow": ["src/**"] },
        "secrets_guard": {},
        "reviewer_lockout": {},
        "budget": { "session": { "hard_usd": 2.0 } },
        "rate_limit": { "tool_calls": [{ "calls": 10, "window_ms": 1000 }] },
        "context_inject": {},
        "resilience": { "fallback": ["small-model"] },
        "pii_scrub": {},
        "task_tracker": { "program": "definitely-not-installed-tracker" },
        "audit": { "path": dir.join("audit.jsonl"), "format": "jsonl" },
    })
}

/// Each policy is an entry of the points it implements (the README's table) and of no other, so
/// subscribers and the audit trail see no idle runs of it.
#[test]
fn every_policy_is_entered_only_at_its_points() {
    let dir = tempfile::tempdir().unwrap();
    let config: BuiltinConfig = serde_json::from_value(every_policy(dir.path())).unwrap();
    let builtins = Builtins::new(config).unwrap();
    let hooks = builtins.install(Hooks::builder().ignore_env()).unwrap();
    let points_of = |name: &str| {
        let mut points: Vec<&str> = hooks
            .list()
            .iter()
            .filter(|h| h.name == name)
            .map(|h| h.point)
            .collect();
        points.sort_unstable();
        points
    };
    for (name, expected) in [
        ("builtin.command_guard", &["pre_tool_use"][..]),
        ("builtin.write_guard", &["pre_tool_use"]),
        ("builtin.secrets_guard", &["pre_tool_use"]),
        (
            "builtin.reviewer_lockout",
            &[
                "notification",
                "post_tool_use",
                "pre_tool_use",
                "subagent_stop",
            ],
        ),
        (
            "builtin.budget",
            &[
                "post_model_call",
                "pre_model_call",
                "session_end",
                "subagent_start",
                "subagent_stop",
            ],
        ),
        ("builtin.rate_limit", &["pre_model_call", "pre_tool_use"]),
        (
            "builtin.context_inject",
            &["session_start", "subagent_start", "user_prompt_submit"],
        ),
        (
            "builtin.resilience",
            &[
                "error_occurred",
                "post_model_call",
                "post_tool_use",
                "pre_model_call",
                "session_end",
            ],
        ),
        ("builtin.pii_scrub", &["post_model_call", "post_tool_use"]),
        (
            "builtin.task_tracker",
            &["session_end", "session_start", "step_end"],
        ),
        (
            "builtin.audit",
            &[
                "post_tool_use",
                "pre_tool_use",
                "session_end",
                "session_start",
            ],
        ),
    ] {
        assert_eq!(points_of(name), expected, "{name}");
    }
}

#[test]
fn every_policy_in_the_settings_is_installed_at_its_documented_order() {
    let dir = tempfile::tempdir().unwrap();
    let config: BuiltinConfig = serde_json::from_value(every_policy(dir.path())).unwrap();
    let builtins = Builtins::new(config).unwrap();
    let hooks = builtins.install(Hooks::builder().ignore_env()).unwrap();

    let order_of = |name: &str| {
        let orders: Vec<i32> = hooks
            .list()
            .iter()
            .filter(|h| h.name == name)
            .map(|h| h.order)
            .collect();
        assert!(!orders.is_empty(), "{name} is not installed");
        assert!(
            orders.windows(2).all(|w| w[0] == w[1]),
            "{name}: {orders:?}"
        );
        orders[0]
    };
    for (name, expected) in [
        ("builtin.command_guard", order::GUARD),
        ("builtin.write_guard", order::GUARD),
        ("builtin.secrets_guard", order::GUARD),
        ("builtin.reviewer_lockout", order::REVIEWER_LOCKOUT),
        ("builtin.budget", order::BUDGET),
        ("builtin.rate_limit", order::RATE_LIMIT),
        ("builtin.context_inject", order::CONTEXT),
        ("builtin.resilience", order::CONTEXT),
        ("builtin.pii_scrub", order::OUTPUT),
        ("builtin.task_tracker", order::OUTPUT),
        ("builtin.audit", order::AUDIT),
    ] {
        assert_eq!(order_of(name), expected, "{name}");
    }
    assert!(builtins.budget().is_some() && builtins.audit().is_some());
    assert_eq!(
        format!("{builtins:?}"),
        r#"["command_guard", "write_guard", "secrets_guard", "reviewer_lockout", "budget", "rate_limit", "context_inject", "resilience", "pii_scrub", "task_tracker", "audit"]"#
    );
}

#[test]
fn only_the_policies_present_in_the_settings_are_on() {
    let config: BuiltinConfig = serde_json::from_value(json!({ "secrets_guard": {} })).unwrap();
    let builtins = Builtins::new(config).unwrap();
    let providers = builtins.providers();
    assert_eq!(providers.len(), 1);
    assert_eq!(providers[0].1.name(), "builtin.secrets_guard");
    assert!(builtins.command_guard().is_none());

    let none = Builtins::new(BuiltinConfig::default()).unwrap();
    assert!(none.providers().is_empty());
}

#[test]
fn an_unknown_policy_or_field_is_refused_by_name() {
    let err = serde_json::from_value::<BuiltinConfig>(json!({ "comand_guard": {} }))
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown field `comand_guard`"), "{err}");

    let err = serde_json::from_value::<BuiltinConfig>(json!({ "write_guard": { "alow": [] } }))
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown field `alow`"), "{err}");
}

#[test]
fn a_refused_setting_names_the_policy_and_field() {
    let config: BuiltinConfig =
        serde_json::from_value(json!({ "write_guard": { "allow": ["src/**", "src/[a"] } }))
            .unwrap();
    let err = Builtins::new(config).unwrap_err();
    assert_eq!(err.policy, "write_guard");
    assert_eq!(err.field, "allow[1]");

    // The audit's own errors arrive as a ConfigError of the audit.
    let config: BuiltinConfig = serde_json::from_value(
        json!({ "audit": { "path": "/nonexistent-dir-for-hooks-test/audit.db" } }),
    )
    .unwrap();
    let err = Builtins::new(config).unwrap_err();
    assert_eq!(err.policy, "audit", "{err}");
}

#[test]
fn settings_round_trip_through_serde() {
    let dir = tempfile::tempdir().unwrap();
    let config: BuiltinConfig = serde_json::from_value(every_policy(dir.path())).unwrap();
    let again: BuiltinConfig =
        serde_json::from_value(serde_json::to_value(&config).unwrap()).unwrap();
    assert_eq!(config, again);
    // Policies that are off are left out, not written as `null`.
    let off = serde_json::to_value(BuiltinConfig::default()).unwrap();
    assert_eq!(off, json!({}));
}

#[test]
fn install_refuses_a_second_copy_of_a_builtin() {
    let config: BuiltinConfig = serde_json::from_value(json!({ "command_guard": {} })).unwrap();
    let builtins = Builtins::new(config).unwrap();
    let builder = builtins.add_to(Hooks::builder().ignore_env());
    assert!(builtins.install(builder).is_err());
}
