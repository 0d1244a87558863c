//! Seed 003 through the `hooks` binary: scripts answering with a `HookResult`, their signals
//! in the turn-ready control message, `ability_guard` signals deciding, signals at infra-only
//! points reported as a misconfiguration, and `hooks fire --source` for non-AI callers.

#![cfg(unix)]

use serde_json::{Value, json};

use crate::common;

use common::{Project, stderr};

/// A project whose hooks answer with seed 003 `HookResult`s.
fn project() -> Project {
    let p = Project::new();
    p.write(
        "hooks.yaml",
        r#"enabled: true
allow: ["./intent.sh", "./route.sh", "./prod_guard.sh", "./tracker.sh", "./broken.sh"]
hooks:
  - { id: skill_activation_prompt, event_type: PromptSubmit, order: 1, handler: { command: ./route.sh } }
  - { id: intent_normalizer, event_type: PromptSubmit, order: 2, handler: { command: ./intent.sh } }
  - { id: prod_config_guard, event_type: PreAbilityCall, match: { ability_scope: "Write" }, handler: { command: ./prod_guard.sh } }
  - { id: ability_usage_tracker, event_type: PostAbilityCall, handler: { command: ./tracker.sh } }
  - { id: broken_guard, event_type: PreAbilityCall, match: { ability_scope: "Deploy" }, handler: { command: ./broken.sh } }
"#,
    );
    // The printed hook_id is not trusted: the configured id replaces it.
    p.write(
        "route.sh",
        r#"#!/bin/sh
cat >/dev/null
echo '{"logs": ["routing"], "hook_signals": [{"hook_id": "someone_else", "kind": "routing_hint", "code": "ROUTE_SUGGESTION",
  "payload": {"suggested_abilities": [{"id": "refactor_code", "reason": "cleanup", "confidence": 0.92}]}}]}'
"#,
    );
    p.write(
        "intent.sh",
        r#"#!/bin/sh
cat >/dev/null
echo '{"hook_signals": [{"kind": "normalized_intent", "code": "INTENT_PARSED", "payload": {"scope": "dev_workflow"}}]}'
"#,
    );
    // Denies unless the caller is a person at the command line.
    p.write(
        "prod_guard.sh",
        r#"#!/bin/sh
input=$(cat)
case "$input" in
  *'"invocation_source":"manual_cli"'*) code=ABILITY_ALLOWED ;;
  *) code=ABILITY_DENIED ;;
esac
echo "{\"hook_signals\": [{\"kind\": \"ability_guard\", \"code\": \"$code\", \"severity\": \"error\",
  \"payload\": {\"ability_id\": \"Write\", \"reason\": \"prod config is read-only\", \"require_human\": false}}]}"
"#,
    );
    p.write(
        "tracker.sh",
        r#"#!/bin/sh
cat >/dev/null
echo '{"usage_recorded": true, "hook_signals": [{"kind": "routing_hint", "code": "LATE", "payload": {}}]}'
"#,
    );
    p.write(
        "broken.sh",
        r#"#!/bin/sh
cat >/dev/null
echo '{"error": {"code": "E_MAP", "message": "cannot read the deploy map"}}'
"#,
    );
    p
}

fn fire(p: &Project, args: &[&str], event: &Value) -> (Value, String) {
    let mut all = vec!["fire"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--input", "-"]);
    let out = p.hooks(&all, &[], event.to_string());
    assert!(out.status.success(), "{}", stderr(&out));
    (serde_json::from_slice(&out.stdout).unwrap(), stderr(&out))
}

#[test]
fn prompt_hooks_answering_with_hook_results_make_the_turn_ready_message() {
    let p = project();
    let (fired, _) = fire(
        &p,
        &["UserPromptSubmit"],
        &json!({"prompt": "clean up the parser"}),
    );
    let ready = &fired["turn_ready"];
    assert_eq!(ready["type"], "control", "{fired}");
    assert_eq!(ready["turn_ready"], true, "{fired}");
    assert_eq!(ready["source_event"], "PromptSubmit");
    let signals = ready["hook_signals"].as_array().unwrap();
    let ids: Vec<&str> = signals
        .iter()
        .map(|s| s["hook_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        ["skill_activation_prompt", "intent_normalizer"],
        "{fired}"
    );
    assert_eq!(
        signals[0]["payload"]["suggested_abilities"][0]["id"],
        "refactor_code"
    );
    assert_eq!(signals[1]["kind"], "normalized_intent");
    assert!(signals.iter().all(|s| s["source_event"] == "PromptSubmit"));
}

#[test]
fn an_ability_denied_signal_from_a_script_denies_the_call() {
    let p = project();
    let call = json!({"tool_name": "Write", "tool_input": {"file_path": "prod/config.yaml"}});
    let (fired, _) = fire(&p, &["PreToolUse"], &call);
    assert_eq!(fired["verdict"]["decision"], "deny", "{fired}");
    assert_eq!(
        fired["verdict"]["reason"],
        "ABILITY_DENIED by `prod_config_guard`: prod config is read-only"
    );
    assert_eq!(fired["decided_by"], "prod_config_guard");
    let ready = &fired["turn_ready"];
    assert_eq!(ready["turn_ready_for_ability"], false, "{fired}");
    assert_eq!(ready["ability_id"], "Write");
    assert_eq!(ready["hook_signals"][0]["code"], "ABILITY_DENIED");

    // Claude Code gets the same decision from `hooks claude`.
    let payload = json!({"session_id": "s", "cwd": p.path(), "hook_event_name": "PreToolUse",
        "tool_name": "Write", "tool_input": {"file_path": "prod/config.yaml"}});
    let out = p.hooks(&["claude"], &[], payload.to_string());
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "deny",
        "{answer}"
    );
}

#[test]
fn a_reported_error_is_a_failure_that_fails_a_guard_closed() {
    let p = project();
    let call = json!({"tool_name": "Deploy", "tool_input": {}});
    let (fired, _) = fire(&p, &["PreToolUse"], &call);
    assert_eq!(fired["verdict"]["decision"], "deny", "{fired}");
    let reason = fired["verdict"]["reason"].as_str().unwrap();
    assert!(
        reason.contains("reported error `E_MAP`: cannot read the deploy map"),
        "{reason}"
    );
    assert_eq!(fired["failures"][0]["failed_closed"], true, "{fired}");
}

#[test]
fn signals_at_an_infra_point_are_ignored_and_reported_as_a_misconfiguration() {
    let p = project();
    let event =
        json!({"tool_name": "Read", "tool_input": {}, "tool_response": "x", "duration_ms": 3});
    let (fired, err) = fire(&p, &["PostToolUse"], &event);
    assert!(fired.get("turn_ready").is_none(), "{fired}");
    assert!(!fired.to_string().contains("LATE"), "{fired}");
    assert_eq!(
        err.matches("misconfigured hook").count(),
        1,
        "one report naming the hook: {err}"
    );
    assert!(err.contains("ability_usage_tracker"), "{err}");
}

#[test]
fn fire_source_sets_the_invocation_source_the_guards_see() {
    let p = project();
    let call = json!({"tool_name": "Write", "tool_input": {"file_path": "prod/config.yaml"},
        "invocation_source": "manual_cli"});
    // The input's own claim is not what decides: `--source` is.
    for (source, decision) in [
        ("ci_pipeline", "deny"),
        ("background_job", "deny"),
        ("manual_cli", "continue"),
    ] {
        let (fired, _) = fire(&p, &["pre_tool_use", "--source", source], &call);
        assert_eq!(fired["verdict"]["decision"], decision, "{source}: {fired}");
        assert_eq!(fired["context"]["invocation_source"], source, "{fired}");
        let ready = fired["turn_ready"]["turn_ready_for_ability"].as_bool();
        assert_eq!(ready, Some(decision == "continue"), "{source}");
    }
    let out = p.hooks(
        &["fire", "pre_tool_use", "--source", "cron", "--input", "-"],
        &[],
        call.to_string(),
    );
    assert_eq!(out.status.code(), Some(2), "a usage error");
    assert!(
        stderr(&out)
            .contains("expected `ai_session`, `background_job`, `ci_pipeline` or `manual_cli`"),
        "{}",
        stderr(&out)
    );
}
