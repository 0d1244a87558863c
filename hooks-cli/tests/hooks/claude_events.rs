//! Every Claude Code event through the real binary: one fixture per event
//! (`tests/fixtures/claude/<Event>.json`: payload, the fixture hook's behaviour, the expected
//! answer), declared in one settings file with each event's matcher; `hooks claude` must give
//! the expected answer and `hooks serve` the same one. Then the matchers, the missing fields
//! and the unknown handler keys.

use crate::common;

use std::path::{Path, PathBuf};

use common::daemon::{Daemon, claude};
use common::{Project, stderr, stdout};
use serde_json::{Value, json};

/// One fixture file.
struct Fixture {
    event: String,
    payload: String,
    matcher: Option<String>,
    hook: Value,
    exit: i32,
    answer: Value,
}

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/claude")
}

fn fixtures(project: &Path) -> Vec<Fixture> {
    let mut all = Vec::new();
    for entry in std::fs::read_dir(fixtures_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let text = text.replace("$PROJECT", project.to_str().unwrap());
        let doc: Value = serde_json::from_str(&text).unwrap();
        let event = doc["payload"]["hook_event_name"]
            .as_str()
            .unwrap()
            .to_owned();
        assert_eq!(
            path.file_stem().unwrap().to_str().unwrap(),
            event,
            "{path:?} is named for its event"
        );
        all.push(Fixture {
            payload: doc["payload"].to_string(),
            matcher: doc["matcher"].as_str().map(str::to_owned),
            hook: doc["hook"].clone(),
            exit: doc["expect"]["exit"].as_i64().unwrap() as i32,
            answer: doc["expect"]["answer"].clone(),
            event,
        });
    }
    all.sort_by(|a, b| a.event.cmp(&b.event));
    all
}

/// The fixture hook: adds a line to `ran/<event>` (so a test sees that it ran, also where
/// its answer changes nothing) and answers as `answers/<event>/` says for the event.
const HOOK: &str = r#"#!/bin/sh
event=$(sed -n 's/.*"hook_event_name":"\([A-Za-z]*\)".*/\1/p')
mkdir -p ran && echo x >> "ran/$event"
dir="answers/$event"
[ -f "$dir/stdout" ] && cat "$dir/stdout"
[ -f "$dir/stderr" ] && cat "$dir/stderr" >&2
exit "$(cat "$dir/exit" 2>/dev/null || echo 0)"
"#;

/// A project with the fixture hook declared for every fixture's event; the settings' path.
fn project_with(fixtures: &[Fixture], project: &Project) -> String {
    let mut events = serde_json::Map::new();
    for f in fixtures {
        let mut group = json!({ "hooks": [{ "type": "command", "command": "./hook.sh" }] });
        if let Some(m) = &f.matcher {
            group["matcher"] = json!(m);
        }
        events.insert(f.event.clone(), json!([group]));
        let dir = format!("answers/{}", f.event);
        for part in ["stdout", "stderr"] {
            if let Some(text) = f.hook[part].as_str() {
                project.write(&format!("{dir}/{part}"), text);
            }
        }
        project.write(&format!("{dir}/exit"), &f.hook["exit"].to_string());
    }
    project.write("hook.sh", HOOK);
    project.write(
        ".claude/settings.json",
        &json!({ "hooks": events }).to_string(),
    );
    let settings = project.path().join(".claude/settings.json");
    let settings = settings.to_str().unwrap().to_owned();
    project.approve(&settings);
    settings
}

/// How often the fixture hook ran for `event`.
fn runs(project: &Project, event: &str) -> usize {
    std::fs::read_to_string(project.path().join("ran").join(event))
        .map_or(0, |text| text.lines().count())
}

fn answer_of(out: &std::process::Output) -> Value {
    let text = stdout(out);
    if text.trim().is_empty() {
        json!({})
    } else {
        serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text}"))
    }
}

#[test]
fn every_event_is_answered_by_hooks_claude_and_the_daemon_alike() {
    let project = Project::new();
    let all = fixtures(project.path());
    assert_eq!(all.len(), 33, "one fixture per Claude Code event");
    let settings = project_with(&all, &project);
    let daemon = Daemon::start(&project, &["--settings", &settings]);
    let mut wrong = Vec::new();
    for f in &all {
        let out = claude(
            &project,
            &["--no-daemon", "--settings", &settings],
            f.payload.as_bytes(),
        );
        let got = answer_of(&out);
        if runs(&project, &f.event) != 1 {
            wrong.push(format!(
                "{}: the hook did not run once for hooks claude ({})",
                f.event,
                stderr(&out)
            ));
        }
        if out.status.code() != Some(f.exit) || got != f.answer {
            wrong.push(format!(
                "{}: hooks claude exit {:?}, answer {got}, stderr {}; expected exit {}, answer {}",
                f.event,
                out.status.code(),
                stderr(&out),
                f.exit,
                f.answer
            ));
            continue;
        }
        let (status, body) = daemon.post("/claude", f.payload.as_bytes());
        assert_eq!(status, 200, "{}: {body}", f.event);
        if body != f.answer {
            wrong.push(format!(
                "{}: the daemon answered {body}, hooks claude {got}",
                f.event
            ));
        }
        if runs(&project, &f.event) != 2 {
            wrong.push(format!("{}: the hook did not run for the daemon", f.event));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A project whose settings declare `./hook.sh` (the fixture hook, answering `exit` for every
/// event) for `groups` (`event → [matcher group]`).
fn small_project(groups: Value, exit: i32) -> (Project, String) {
    let project = Project::new();
    project.write("hook.sh", HOOK);
    for event in groups.as_object().unwrap().keys() {
        project.write(&format!("answers/{event}/exit"), &exit.to_string());
        if exit == 2 {
            project.write(&format!("answers/{event}/stderr"), "blocked by the hook");
        }
    }
    project.write(
        ".claude/settings.json",
        &json!({ "hooks": groups }).to_string(),
    );
    let settings = project.path().join(".claude/settings.json");
    let settings = settings.to_str().unwrap().to_owned();
    project.approve(&settings);
    (project, settings)
}

fn group(matcher: Option<&str>, extra: Value) -> Value {
    let mut handler = json!({ "type": "command", "command": "./hook.sh" });
    handler
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    let mut group = json!({ "hooks": [handler] });
    if let Some(m) = matcher {
        group["matcher"] = json!(m);
    }
    json!([group])
}

fn payload(project: &Project, event: &str, extra: Value) -> Vec<u8> {
    let mut p = json!({ "session_id": "s", "cwd": project.path(), "hook_event_name": event });
    p.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    p.to_string().into_bytes()
}

#[test]
fn matchers_test_the_field_claude_code_matches_for_each_event() {
    let cases = [
        (
            "StopFailure",
            "rate_limit",
            json!({"error": "rate_limit", "error_details": "429"}),
            json!({"error": "billing_error", "error_details": "rate_limit"}),
        ),
        (
            "Notification",
            "idle_prompt",
            json!({"message": "m", "notification_type": "idle_prompt"}),
            json!({"message": "m", "notification_type": "permission_prompt"}),
        ),
        (
            "SessionStart",
            "startup",
            json!({"source": "startup"}),
            json!({"source": "resume"}),
        ),
        (
            "PreCompact",
            "auto",
            json!({"trigger": "auto"}),
            json!({"trigger": "manual"}),
        ),
        (
            "SubagentStop",
            "Explore",
            json!({"agent_type": "Explore"}),
            json!({"agent_type": "Plan"}),
        ),
        (
            "InstructionsLoaded",
            "compact",
            json!({"load_reason": "compact"}),
            json!({"load_reason": "session_start"}),
        ),
        (
            "ConfigChange",
            "user_settings",
            json!({"source": "user_settings"}),
            json!({"source": "project_settings"}),
        ),
        (
            "FileChanged",
            ".envrc",
            json!({"file_path": "/w/.envrc"}),
            json!({"file_path": "/w/.envrc/package.json"}),
        ),
        (
            "Elicitation",
            "memory",
            json!({"mcp_server_name": "memory"}),
            json!({"mcp_server_name": "github"}),
        ),
        (
            "PermissionRequest",
            "Bash",
            json!({"tool_name": "Bash", "tool_input": {}}),
            json!({"tool_name": "Read", "tool_input": {}}),
        ),
        (
            "DirectoryAdded",
            "register_repo_root",
            json!({"directory": "/w/other", "source": "register_repo_root"}),
            json!({"directory": "/w/register_repo_root", "source": "slash_command"}),
        ),
        (
            "UserPromptExpansion",
            "deploy",
            json!({"expansion_type": "slash_command", "command_name": "deploy",
                   "prompt": "/deploy"}),
            json!({"expansion_type": "slash_command", "command_name": "review",
                   "prompt": "/deploy"}),
        ),
        (
            "ElicitationResult",
            "memory",
            json!({"mcp_server_name": "memory", "action": "accept"}),
            json!({"mcp_server_name": "github", "action": "accept"}),
        ),
        (
            "PreModelSwitch",
            "claude-opus-5",
            json!({"from_model": "claude-sonnet-5", "to_model": "claude-opus-5[1m]",
                   "requested_model": "opus[1m]", "source": "command"}),
            json!({"from_model": "claude-opus-5", "to_model": "claude-sonnet-5",
                   "requested_model": null, "source": "picker"}),
        ),
        (
            "PostModelSwitch",
            "claude-haiku-4-5",
            json!({"from_model": "claude-opus-5", "to_model": "claude-haiku-4-5-20251001",
                   "requested_model": null, "source": "auto"}),
            json!({"from_model": "claude-haiku-4-5", "to_model": "claude-opus-5",
                   "requested_model": "opus", "source": "command"}),
        ),
    ];
    let mut groups = serde_json::Map::new();
    for (event, matcher, _, _) in &cases {
        groups.insert((*event).to_owned(), group(Some(matcher), json!({})));
    }
    let (project, settings) = small_project(Value::Object(groups), 0);
    for (event, _, hit, miss) in cases {
        let args = ["--no-daemon", "--settings", settings.as_str()];
        let out = claude(&project, &args, &payload(&project, event, miss.clone()));
        assert_eq!(out.status.code(), Some(0), "{event}: {}", stderr(&out));
        assert_eq!(runs(&project, event), 0, "{event}: {miss} must not match");
        let out = claude(&project, &args, &payload(&project, event, hit.clone()));
        assert_eq!(out.status.code(), Some(0), "{event}: {}", stderr(&out));
        assert_eq!(runs(&project, event), 1, "{event}: {hit} must match");
    }
}

#[test]
fn a_switch_to_a_model_without_a_canonical_name_runs_every_pre_model_switch_hook() {
    let (project, settings) = small_project(
        json!({ "PreModelSwitch": group(Some("claude-opus-4-6"), json!({})) }),
        2,
    );
    let args = ["--no-daemon", "--settings", settings.as_str()];
    let switch = |to: &str| {
        json!({"from_model": "claude-sonnet-5", "to_model": to,
               "requested_model": to, "source": "command"})
    };
    // A model with a canonical name the matcher does not name: the hook does not run.
    let out = claude(
        &project,
        &args,
        &payload(&project, "PreModelSwitch", switch("claude-opus-5")),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(runs(&project, "PreModelSwitch"), 0);
    assert_eq!(stdout(&out).trim(), "");
    // A gateway's own model id: Claude Code runs every hook, whatever its matcher; so do we,
    // and the hook's exit 2 refuses the switch.
    let out = claude(
        &project,
        &args,
        &payload(&project, "PreModelSwitch", switch("corp-gateway/large")),
    );
    assert_eq!(runs(&project, "PreModelSwitch"), 1, "{}", stderr(&out));
    let answer = answer_of(&out);
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "deny",
        "{answer}"
    );
}

#[test]
fn post_tool_use_failure_hooks_run_for_failures_only_and_nothing_is_said_on_other_events() {
    let (project, settings) = small_project(
        json!({ "PostToolUseFailure": group(Some("Bash"), json!({})) }),
        0,
    );
    let args = ["--no-daemon", "--settings", settings.as_str()];
    let call = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": {}});
    let ok = claude(
        &project,
        &args,
        &payload(&project, "PostToolUse", call.clone()),
    );
    assert_eq!(ok.status.code(), Some(0));
    assert_eq!(
        runs(&project, "PostToolUse"),
        0,
        "not after a successful call"
    );
    let mut failed = call;
    failed["error"] = json!("Exit code 1");
    let out = claude(
        &project,
        &args,
        &payload(&project, "PostToolUseFailure", failed),
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(runs(&project, "PostToolUseFailure"), 1);
    // No load-time note on every call (the PostToolUseFailure warning used to be on each).
    let other = claude(&project, &args, &payload(&project, "Stop", json!({})));
    assert_eq!(other.status.code(), Some(0));
    for out in [&ok, &out, &other] {
        assert_eq!(stderr(out), "", "nothing on stderr");
        assert_eq!(stdout(out).trim(), "", "an empty answer");
    }
}

#[test]
fn a_handler_with_an_unknown_key_still_runs_and_the_key_is_noted_by_validate_only() {
    let (project, settings) = small_project(
        json!({ "Stop": group(None, json!({"rewakeMessage": "keep going"})) }),
        2,
    );
    let args = ["--no-daemon", "--settings", settings.as_str()];
    let out = claude(
        &project,
        &args,
        &payload(&project, "Stop", json!({"stop_hook_active": false})),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let answer = answer_of(&out);
    assert_eq!(
        answer["decision"], "block",
        "the Stop gate still decides: {answer}"
    );
    assert_eq!(answer["reason"], "blocked by the hook");
    assert!(!stderr(&out).contains("rewakeMessage"), "{}", stderr(&out));
    assert!(!answer.to_string().contains("rewakeMessage"), "{answer}");
    let validate = project.hooks(&["validate", &settings], &[], "");
    let said = stdout(&validate);
    assert_eq!(validate.status.code(), Some(0), "{said}");
    assert!(
        said.contains("note: hook `Stop[0].hooks[0]`: unknown field `rewakeMessage`"),
        "{said}"
    );
}

#[test]
fn missing_fields_have_defaults_and_what_a_point_needs_fails_closed() {
    let (project, settings) =
        small_project(json!({ "PreToolUse": group(Some("Bash"), json!({})) }), 0);
    let args = ["--no-daemon", "--settings", settings.as_str()];
    // No transcript_path, permission_mode nor cwd: fires, with this process's directory as cwd.
    let bare = json!({"session_id": "s", "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": "ls"}})
    .to_string();
    let out = claude(&project, &args, bare.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(runs(&project, "PreToolUse"), 1);
    // Without tool_name, PreToolUse cannot decide: it blocks and names the field.
    let no_tool = payload(
        &project,
        "PreToolUse",
        json!({"tool_input": {"command": "ls"}}),
    );
    let out = claude(&project, &args, &no_tool);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("tool_name"), "{}", stderr(&out));

    let daemon = Daemon::start(&project, &["--settings", &settings]);
    let (_, body) = daemon.post("/claude", &no_tool);
    assert_eq!(
        body["hookSpecificOutput"]["permissionDecision"], "deny",
        "{body}"
    );
    assert!(body.to_string().contains("tool_name"), "{body}");
    // A daemon runs elsewhere: a payload without cwd is nobody's project to it, so it blocks.
    let (_, body) = daemon.post("/claude", bare.as_bytes());
    assert_eq!(
        body["hookSpecificOutput"]["permissionDecision"], "deny",
        "{body}"
    );
    assert!(body.to_string().contains("no `cwd`"), "{body}");
    // Through `hooks claude`, which fills in its own directory, the daemon decides it.
    let forwarded = claude(&project, &["--settings", &settings], bare.as_bytes());
    assert_eq!(forwarded.status.code(), Some(0), "{}", stderr(&forwarded));
    assert!(
        !stdout(&forwarded).contains("no `cwd`"),
        "{}",
        stdout(&forwarded)
    );
    assert_eq!(runs(&project, "PreToolUse"), 2, "the daemon ran the hook");
    // At a non-blocking event the daemon runs nothing for a payload without cwd either.
    let end =
        json!({"session_id": "s", "hook_event_name": "SessionEnd", "reason": "other"}).to_string();
    let (_, body) = daemon.post("/claude", end.as_bytes());
    assert!(
        body["systemMessage"]
            .as_str()
            .is_some_and(|m| m.contains("no `cwd`")),
        "{body}"
    );
}

#[test]
fn permission_request_blocks_by_json_only() {
    let (project, settings) =
        small_project(json!({ "PermissionRequest": group(None, json!({})) }), 2);
    let args = ["--no-daemon", "--settings", settings.as_str()];
    let request = payload(
        &project,
        "PermissionRequest",
        json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
    );
    // Exit 2 is not honoured at PermissionRequest (as in Claude Code): no decision.
    let out = claude(&project, &args, &request);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(answer_of(&out), json!({}));
    assert_eq!(runs(&project, "PermissionRequest"), 1);
    // A configuration problem blocks it as its JSON deny, on exit 0 (exit 2 would be ignored).
    project.write(
        ".claude/settings.json",
        &json!({ "hooks": { "PermissionRequest": group(Some("Bash("), json!({})) } }).to_string(),
    );
    let out = claude(&project, &args, &request);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let answer = answer_of(&out);
    assert_eq!(
        answer["hookSpecificOutput"]["decision"]["behavior"], "deny",
        "{answer}"
    );
    assert!(answer.to_string().contains("problem"), "{answer}");
}
