//! Hooks defined in other crates: plugin-a (referenced by path) and plugin-b (linked only through
//! `use plugin_b as _;`) register at a standard point and at plugin-a's custom points; their
//! hooks interleave by `order`. plugin-unlinked is a dependency that nothing names, so its hook
//! is not linked, and the startup check says so.

use hookrail_core::context::{Meta, PreToolUse};
use hookrail_core::registry::{self, RegistryError};
use hookrail_core::{Verdict, points::pre_tool_use};
use plugin_a::points::{AuthFailure, MemorySave, auth_failure, memory_save_before};
use serde_json::json;

// Links plugin-b, whose hooks nothing else in this file refers to by name.
use plugin_b as _;

fn pre(command: &str) -> PreToolUse {
    PreToolUse::new(
        Meta::new("cross-crate"),
        "Bash",
        json!({ "command": command }),
    )
}

#[tokio::test]
async fn hooks_from_two_crates_run_in_order_at_a_standard_point() {
    let mut ctx = pre("ls");
    let out = pre_tool_use::dispatch_async(&mut ctx).await;
    assert_eq!(out.value, Verdict::Continue);
    assert_eq!(
        ctx.additional_context,
        [
            "plugin_b::trail_b_first",
            "plugin_a::trail_a",
            "plugin_b::trail_b_last"
        ],
        "order -5 (plugin-b), 10 (plugin-a), 20 (plugin-b)"
    );
}

#[tokio::test]
async fn a_verdict_from_a_crate_linked_only_by_use_as_underscore_takes_effect() {
    let mut ctx = pre("git push origin main");
    let out = pre_tool_use::dispatch_async(&mut ctx).await;
    assert_eq!(out.value, Verdict::ask("pushing needs a human"));
    assert_eq!(out.decided_by.as_deref(), Some("plugin_b::trail_b_last"));
}

#[test]
fn custom_guard_point_runs_hooks_from_the_declaring_and_another_crate() {
    let mut save = MemorySave {
        key: "creds".into(),
        value: "password=hunter2".into(),
        ..MemorySave::default()
    };
    let out = memory_save_before::dispatch(&mut save);
    assert!(out.is_denied());
    assert_eq!(
        save.trail,
        ["plugin_b::tag_memory", "plugin_a::no_passwords"]
    );
}

#[test]
fn custom_observe_point_reaches_an_observer_in_another_crate() {
    let before = plugin_a::AUTH_FAILURES_SEEN.load(std::sync::atomic::Ordering::SeqCst);
    let failure = AuthFailure {
        user: "mallory".into(),
    };
    let out = auth_failure::dispatch(&failure);
    assert!(out.failures.is_empty());
    assert_eq!(
        plugin_a::AUTH_FAILURES_SEEN.load(std::sync::atomic::Ordering::SeqCst),
        before + 1
    );
}

#[test]
fn startup_check_finds_linked_hooks_and_reports_the_unlinked_crate() {
    registry::require([
        "plugin_a::trail_a",
        "plugin_b::trail_b_last",
        "plugin_b::tag_memory",
    ])
    .expect("linked crates' hooks are registered");

    let err = registry::require(["plugin_a::trail_a", "plugin_unlinked::never_linked"])
        .expect_err("plugin-unlinked is a dependency, but nothing names it");
    match &err {
        RegistryError::Missing { missing } => {
            assert_eq!(missing, &["plugin_unlinked::never_linked"])
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(err.to_string().contains("use <crate> as _;"));

    let names: Vec<String> = registry::linked()
        .iter()
        .map(|h| h.name.to_string())
        .collect();
    assert!(
        !names.iter().any(|n| n.starts_with("plugin_unlinked")),
        "{names:?}"
    );
}

#[test]
fn linked_hooks_report_the_declaring_crates_custom_points() {
    let points: Vec<&str> = registry::points().iter().map(|p| p.name()).collect();
    assert!(points.contains(&"memory_save_before") && points.contains(&"auth_failure"));
    registry::check().expect("no duplicate hook names across the crates");
}

#[test]
fn the_backend_follows_the_workspace_feature() {
    let expected = if cfg!(feature = "inventory") {
        "inventory"
    } else {
        "linkme"
    };
    assert_eq!(registry::BACKEND, expected);
}
