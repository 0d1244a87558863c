//! Seed 003, "Hooks for AI-Centric Development": four events (blocking `PromptSubmit` and
//! `PreAbilityCall`, infra-only `PostAbilityCall` and `SessionStop`), one YAML file per hook
//! with match rules, script handlers with JSON in and a `HookResult` out, the standard hook
//! signals (`routing_hint`, `normalized_intent`, `ability_guard`), the turn-ready control
//! message, and one ability runner for AI and non-AI callers alike.
//!
//! The seed's own examples are used verbatim where it gives them: its hook file, its signals'
//! JSON, its control messages.

#![cfg(unix)]

use hookrail_config::file::Sources;
use hookrail_config::runner::ConfigHooks;
use hookrail_core::context::{InvocationSource, Meta, ToolCall};
use hookrail_core::runtime::{Hooks, Session, ToolRun, execute_ability};
use hookrail_core::signal::{SignalEvent, TurnReady};
use serde_json::{Value, json};

use crate::support::{Project, Seen};

/// The seed's hook file (§2), under `.hooks/` (its `.system/hooks/`).
const ABILITY_USAGE_TRACKER: &str = r#"id: ability_usage_tracker
event_type: PostAbilityCall
enabled: true
blocking: false

summary: >
  Track each ability call and update ability_usage.json. For slow calls,
  append to slow_abilities.log.

match:
  ability_scope: "*"
  min_duration_ms: 0

handler:
  kind: script
  command: ./scripts/hooks/ability_usage_tracker.py

effects:
  - update_usage_cache: .system/cache/ability_usage.json
  - append_to: .system/logs/slow_abilities.log
"#;

/// The seed's `routing_hint` and `normalized_intent` examples (§3.3), as two scripts' results.
const ROUTING_HINT: &str = r#"{"hook_signals": [{
  "source_event": "PromptSubmit", "hook_id": "skill_activation_prompt",
  "kind": "routing_hint", "code": "ROUTE_SUGGESTION",
  "payload": {
    "suggested_abilities": [{"id": "refactor_code", "reason": "User asked to clean up TypeScript code.", "confidence": 0.92}],
    "suggested_documents": [{"path": ".system/docs/pre_commit.md", "reason": "User mentioned pre-commit checks."}]
  }}], "logs": ["hinted"]}"#;

const NORMALIZED_INTENT: &str = r#"{"hook_signals": [{
  "source_event": "PromptSubmit", "hook_id": "intent_normalizer",
  "kind": "normalized_intent", "code": "INTENT_PARSED",
  "payload": {"scope": "dev_workflow", "topic": "pre_commit_checks", "stage": "understand",
    "raw_input_snippet": "Before I commit, what checks should I run?"}}]}"#;

/// The seed's `prod_config_guard` (§3.3), with `require_human` as given.
fn prod_config_guard(require_human: bool) -> String {
    format!(
        r#"{{"hook_signals": [{{
  "source_event": "PreAbilityCall", "hook_id": "prod_config_guard",
  "kind": "ability_guard", "code": "ABILITY_DENIED", "severity": "error",
  "payload": {{"ability_id": "edit_file",
    "reason": "Editing prod config files is not allowed from ai_session.",
    "require_human": {require_human}}}}}]}}"#
    )
}

/// A project whose `.hooks/` holds `files`, every script under `scripts/` allow-listed.
fn attach(project: &Project, files: &[(&str, &str)]) -> (Hooks, ConfigHooks) {
    project.file(
        "hooks.yaml",
        "enabled: true\nallow: [\"./scripts/*\"]\nhooks: []\n",
    );
    for (name, text) in files {
        project.file(&format!(".hooks/{name}"), text);
    }
    let config = Sources::new().project(project.path()).load().unwrap();
    assert!(config.problems.is_empty(), "{:?}", config.problems);
    let configured = ConfigHooks::builder(project.path()).build(config).unwrap();
    let hooks = Hooks::builder().ignore_env().build().unwrap();
    configured.attach(&hooks).unwrap();
    (hooks, configured)
}

/// A script that records its stdin and prints `result`.
fn answering(project: &Project, name: &str, result: &str) {
    project.script(
        &format!("scripts/{name}.sh"),
        &format!("#!/bin/sh\ncat > {name}.stdin.json\ncat <<'EOF'\n{result}\nEOF\n"),
    );
}

/// §2: the hook file with all its fields (required fields, match rules, handler, the
/// descriptive summary and effects) loads as written.
#[test]
fn the_seeds_hook_file_loads_with_every_field() {
    let project = Project::new();
    project.script("scripts/hooks/ability_usage_tracker.py", "#!/bin/sh\n");
    project.file("hooks.yaml", "enabled: true\nhooks: []\n");
    project.file(".hooks/ability_usage_tracker.yaml", ABILITY_USAGE_TRACKER);
    let config = Sources::new().project(project.path()).load().unwrap();
    assert!(config.problems.is_empty(), "{:?}", config.problems);
    let hook = &config.hooks[0];
    assert_eq!(hook.id, "ability_usage_tracker");
    assert_eq!(hook.point, "post_tool_use");
    assert!(hook.enabled && !hook.blocking);
    assert!(
        hook.summary
            .as_deref()
            .unwrap_or_default()
            .starts_with("Track each ability call")
    );
    assert_eq!(hook.effects.len(), 2);
}

/// §4.1–4.2: the blocking `PromptSubmit` hooks answer with `HookResult`s; their signals are
/// merged in order, stamped with the configured hook ids, and handed to the agent loop as the
/// control message, the one start signal for planning.
#[tokio::test]
async fn prompt_submit_signals_make_the_turn_ready_message() {
    let project = Project::new();
    answering(&project, "skill_activation_prompt", ROUTING_HINT);
    answering(&project, "intent_normalizer", NORMALIZED_INTENT);
    // In the order they run (`order`, then id), whatever their ids.
    let entry = |id: &str, order: i32| {
        format!(
            "id: {id}\nevent_type: PromptSubmit\nblocking: true\norder: {order}\nhandler: {{ kind: script, command: ./scripts/{id}.sh }}\n"
        )
    };
    let (hooks, _configured) = attach(
        &project,
        &[
            ("_10_skills.yaml", &entry("skill_activation_prompt", 10)),
            ("_20_intent.yaml", &entry("intent_normalizer", 20)),
        ],
    );
    let meta = Meta::new("s1").with_cwd(project.path());
    let mut session = Session::start(hooks, meta, "model").await.unwrap();
    session
        .submit_prompt("Before I commit, what checks should I run?")
        .await
        .unwrap();
    // The script got the event context on stdin.
    let stdin: Value =
        serde_json::from_str(&project.read("skill_activation_prompt.stdin.json")).unwrap();
    assert_eq!(
        stdin["prompt"],
        "Before I commit, what checks should I run?"
    );

    let ready = session.turn_ready().expect("the control message");
    assert!(ready.ready);
    assert_eq!(ready.source_event, SignalEvent::PromptSubmit);
    let ids: Vec<&str> = ready
        .hook_signals
        .iter()
        .map(|s| s.hook_id.as_str())
        .collect();
    assert_eq!(ids, ["skill_activation_prompt", "intent_normalizer"]);
    let hint = ready.hook_signals[0]
        .routing_hint_payload()
        .unwrap()
        .unwrap();
    assert_eq!(hint.suggested_abilities[0].id, "refactor_code");
    let intent = ready.hook_signals[1]
        .normalized_intent_payload()
        .unwrap()
        .unwrap();
    assert_eq!(intent.topic.as_deref(), Some("pre_commit_checks"));
    // The seed's JSON shape of the message.
    let json = serde_json::to_value(ready).unwrap();
    assert_eq!(json["type"], "control");
    assert_eq!(json["turn_ready"], true);
    assert_eq!(json["source_event"], "PromptSubmit");
    assert_eq!(json["hook_signals"][0]["code"], "ROUTE_SUGGESTION");
}

/// §3.3: `ABILITY_DENIED` with `require_human` stops the auto-run and asks a person; without
/// it the ability is disabled for the session and the agent plans around it.
#[tokio::test]
async fn ability_denied_asks_a_human_or_disables_the_ability() {
    for require_human in [true, false] {
        let project = Project::new();
        answering(
            &project,
            "prod_config_guard",
            &prod_config_guard(require_human),
        );
        let (hooks, _configured) = attach(
            &project,
            &[(
                "prod_config_guard.yaml",
                "id: prod_config_guard\nevent_type: PreAbilityCall\nmatch: { ability_scope: edit_file }\nhandler: { kind: script, command: ./scripts/prod_config_guard.sh }\n",
            )],
        );
        let asked = Seen::default();
        let sink = asked.clone();
        let meta = Meta::new("s1").with_cwd(project.path());
        let mut session = Session::start(hooks, meta, "model")
            .await
            .unwrap()
            .with_approver(move |_, reason| {
                sink.push(reason);
                false
            });
        let call = || ToolCall::new("t1", "edit_file", json!({"path": "config/prod.yaml"}));
        let run = session
            .tool_call(call(), async |_| Ok(json!("edited")))
            .await
            .unwrap();
        assert!(matches!(run, ToolRun::Denied { .. }), "{run:?}");
        let ready = session.turn_ready().unwrap();
        assert_eq!(ready.ability_id.as_deref(), Some("edit_file"));
        assert!(!ready.ready);
        if require_human {
            assert_eq!(asked.all().len(), 1, "the person was asked");
            assert!(asked.all()[0].contains("prod config"), "{:?}", asked.all());
            assert_eq!(session.disabled_tools().count(), 0);
        } else {
            assert!(asked.all().is_empty(), "nobody is asked");
            let (tool, why) = session.disabled_tools().next().unwrap();
            assert_eq!(tool, "edit_file");
            assert!(
                why.contains("ABILITY_DENIED by `prod_config_guard`"),
                "{why}"
            );
        }
    }
}

/// §4.3: background jobs, CI and manual scripts run abilities through the same runner, with
/// their `invocation_source`; the same `PreAbilityCall` guard applies and sees who calls.
#[tokio::test]
async fn non_ai_callers_run_abilities_through_the_same_guards() {
    let project = Project::new();
    project.script(
        "scripts/migration_guard.sh",
        "#!/bin/sh\nsource=$(cat | sed -n 's/.*\"invocation_source\":\"\\([a-z_]*\\)\".*/\\1/p')\n\
         echo \"$source\" >> callers.log\n\
         if [ \"$source\" = background_job ]; then\n\
           echo '{\"hook_signals\": [{\"kind\": \"ability_guard\", \"code\": \"ABILITY_DENIED\", \"payload\": {\"ability_id\": \"apply_migration\", \"reason\": \"no migrations from cron\", \"require_human\": false}}]}'\n\
         else echo '{}'; fi\n",
    );
    let (hooks, _configured) = attach(
        &project,
        &[(
            "migration_guard.yaml",
            "id: migration_guard\nevent_type: PreAbilityCall\nmatch: { ability_scope: apply_migration }\nhandler: { command: ./scripts/migration_guard.sh }\n",
        )],
    );
    let mut results: Vec<(InvocationSource, bool, TurnReady)> = Vec::new();
    for source in [
        InvocationSource::CiPipeline,
        InvocationSource::BackgroundJob,
    ] {
        let call = ToolCall::new("m1", "apply_migration", json!({"name": "0042"}));
        let (run, ready) = execute_ability(&hooks, source, call, async |_| Ok(json!("applied")))
            .await
            .unwrap();
        results.push((source, matches!(run, ToolRun::Ran(_)), ready));
    }
    assert_eq!(project.read("callers.log"), "ci_pipeline\nbackground_job\n");
    assert!(results[0].1 && results[0].2.ready, "CI may migrate");
    assert!(!results[1].1 && !results[1].2.ready, "cron may not");
}
