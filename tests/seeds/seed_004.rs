//! Seed 004, infer's command-hook ticket: a fixed catalog of 10 hook points, command hooks
//! from `hooks.yaml` (feature-flagged, off by default), each command gated by the allow-list
//! (an off-list command is skipped and reported, never run), a JSON context on stdin
//! (hook point, turn, session id), a `hook_command` stream event per run (exit code, duration,
//! truncated output), `post_session` as "the agent finished generating", and fire-and-observe.

#![cfg(unix)]

use std::sync::{Arc, Mutex};

use hookrail_config::events;
use hookrail_config::file::Sources;
use hookrail_config::runner::{CommandEvent, ConfigHooks, RunStatus};
use hookrail_core::context::{Meta, SessionEnd, SessionEndReason};
use hookrail_core::points::session_end;
use hookrail_core::runtime::Hooks;
use serde_json::Value;

use crate::support::Project;

/// The catalog of infer's `domain.HookPoint`, every name accepted in a config file.
#[test]
fn the_ten_infer_points_are_accepted_by_name() {
    let expected = [
        ("pre", "user_prompt_submit"),
        ("post", "step_end"),
        ("pre_session", "session_start"),
        ("post_session", "session_end"),
        ("pre_stream", "pre_model_call"),
        ("post_stream", "post_model_call"),
        ("pre_tool", "pre_tool_use"),
        ("post_tool", "post_tool_use"),
        ("pre_queue_drain", "pre_queue_drain"),
        ("post_queue_drain", "post_queue_drain"),
    ];
    for (name, point) in expected {
        assert_eq!(events::resolve(name), Ok(point), "{name}");
    }
    assert!(
        events::resolve("post_sesion").is_err(),
        "a typo is an error"
    );
}

const HOOKS_YAML: &str = r#"hooks:
  - id: format
    event_type: post_session
    handler: { command: ./scripts/format.sh }
  - id: not_allow_listed
    event_type: post_session
    handler: { command: "./tools/notify.sh" }
"#;

fn project() -> Project {
    let project = Project::new();
    project.script(
        "scripts/format.sh",
        "#!/bin/sh\ncat > stdin.json\nhead -c 20000 /dev/zero | tr '\\0' x\nexit 3\n",
    );
    project.script("tools/notify.sh", "#!/bin/sh\ntouch notified\n");
    project
}

/// "Feature-flagged, off by default": without `enabled: true` nothing loads, and what was
/// left dormant is reported.
#[test]
fn command_hooks_are_off_by_default() {
    let project = project();
    project.file("hooks.yaml", HOOKS_YAML);
    let config = Sources::new().project(project.path()).load().unwrap();
    assert!(!config.enabled);
    assert!(config.hooks.is_empty());
    let dormant: Vec<&str> = config.dormant.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(dormant, ["format", "not_allow_listed"]);
}

/// The run at `post_session`: the allow-listed command gets the JSON context on stdin and is
/// reported as a `hook_command` event; the other is skipped with the hint that allows it and
/// never runs. Its failure (exit 3) is observed, and the session still ends.
#[tokio::test]
async fn post_session_runs_allow_listed_commands_and_reports_each_run() {
    let project = project();
    project.file(
        "hooks.yaml",
        &format!("enabled: true\nallow: [\"./scripts/*\"]\n{HOOKS_YAML}"),
    );
    let config = Sources::new().project(project.path()).load().unwrap();
    assert!(config.problems.is_empty(), "{:?}", config.problems);
    let configured = ConfigHooks::builder(project.path()).build(config).unwrap();
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    configured.subscribe(move |e| sink.lock().unwrap().push(e.clone()));
    let hooks = Hooks::builder().ignore_env().build().unwrap();
    configured.attach(&hooks).unwrap();

    let meta = Meta::new("session-7").with_cwd(project.path()).with_turn(4);
    let mut ctx = SessionEnd::new(meta, SessionEndReason::Completed, true);
    let outcome = hooks.dispatch_async::<session_end::Point>(&mut ctx).await;
    assert!(
        outcome.failed_closed().is_none(),
        "fire-and-observe: {:?}",
        outcome.failures
    );

    let stdin: Value = serde_json::from_str(&project.read("stdin.json")).unwrap();
    assert_eq!(stdin["session_id"], "session-7");
    assert_eq!(stdin["hook_event_name"], "SessionEnd");
    assert_eq!(stdin["turn"], 4);
    assert!(
        !project.path().join("notified").exists(),
        "an off-list command never runs"
    );

    let events = events.lock().unwrap().clone();
    let ran = events
        .iter()
        .find_map(|e| match e {
            CommandEvent::Ran(run) => Some(run.clone()),
            _ => None,
        })
        .expect("a hook_command event");
    assert_eq!((ran.hook_id.as_str(), ran.point), ("format", "session_end"));
    assert_eq!(ran.status, RunStatus::Exited(3));
    assert!(
        ran.truncated && ran.stdout.len() < 20_000,
        "output is capped"
    );
    let json = serde_json::to_value(CommandEvent::Ran(ran)).unwrap();
    assert_eq!(json["kind"], "hook_command");
    assert!(
        json["duration"].is_u64() || json["duration_ms"].is_u64(),
        "{json}"
    );

    let skipped = events
        .iter()
        .find_map(|e| match e {
            CommandEvent::Skipped(skip) => Some(skip.clone()),
            _ => None,
        })
        .expect("a hook_command_skipped event");
    assert_eq!(skipped.hook_id, "not_allow_listed");
    assert!(
        skipped.reason.contains("not on the allow-list"),
        "{}",
        skipped.reason
    );
    assert!(
        skipped.reason.contains("add an `allow:` entry"),
        "{}",
        skipped.reason
    );
}
