//! A command hook behind `hooks claude` or the daemon gets the payload Claude Code sent, as
//! JSON values: fields we do not know (`agent_id`, `agent_type`, anything newer) kept, none of
//! our own (`turn`, `timestamp_ms`, `invocation_source`) added, at typed and generic points.

use crate::common;

use std::path::Path;

use common::daemon::{Daemon, claude};
use common::{Project, stderr};
use serde_json::{Value, json};

/// Events and what their payloads carry beyond the common fields.
fn events() -> Vec<(&'static str, Value)> {
    vec![
        (
            "PreToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": "ls", "timeout": 1.5}, "tool_use_id": "t1"}),
        ),
        (
            "PostToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": {"stdout": "a\n"}, "tool_use_id": "t1"}),
        ),
        ("UserPromptSubmit", json!({"prompt": "héllo"})),
        ("Stop", json!({"stop_hook_active": false})),
        ("SessionEnd", json!({"reason": "other"})),
        (
            "ConfigChange",
            json!({"source": "user_settings", "file_path": "/x/settings.json"}),
        ),
    ]
}

fn payload(project: &Path, event: &str, fields: &Value) -> Value {
    let mut p = json!({
        "session_id": "s-1", "transcript_path": "/dev/null", "cwd": project,
        "permission_mode": "default", "hook_event_name": event,
        "agent_id": "agent-7", "agent_type": "Explore",
        "a_newer_field": {"nested": [1, 2.5, null, "é"], "flag": true},
    });
    p.as_object_mut()
        .unwrap()
        .extend(fields.as_object().unwrap().clone());
    p
}

fn seen(project: &Project, event: &str) -> Value {
    let path = project.path().join("seen").join(format!("{event}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    std::fs::remove_file(&path).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn the_script_sees_the_payload_claude_code_sent_through_the_binary_and_the_daemon() {
    let project = Project::new();
    // Keeps what it got on stdin, by the event it names.
    project.write(
        "seen.py",
        "import json, os, sys\nraw = sys.stdin.read()\nevent = json.loads(raw)['hook_event_name']\n\
         os.makedirs('seen', exist_ok=True)\nopen(os.path.join('seen', event + '.json'), 'w').write(raw)\n",
    );
    let mut hooks = serde_json::Map::new();
    for (event, _) in events() {
        hooks.insert(
            event.to_owned(),
            json!([{ "hooks": [{ "type": "command", "command": "python3 seen.py" }] }]),
        );
    }
    project.write(
        ".claude/settings.json",
        &json!({ "hooks": hooks }).to_string(),
    );
    let settings = project.path().join(".claude/settings.json");
    let settings = settings.to_str().unwrap().to_owned();
    project.approve(&settings);

    let daemon = Daemon::start(&project, &["--settings", &settings]);
    for (event, fields) in events() {
        let sent = payload(project.path(), event, &fields);
        let bytes = sent.to_string();
        let out = claude(
            &project,
            &["--no-daemon", "--settings", &settings],
            bytes.as_bytes(),
        );
        assert_eq!(out.status.code(), Some(0), "{event}: {}", stderr(&out));
        assert_eq!(seen(&project, event), sent, "{event}: hooks claude");

        let (status, body) = daemon.post("/claude", bytes.as_bytes());
        assert_eq!(status, 200, "{event}: {body}");
        assert_eq!(seen(&project, event), sent, "{event}: the daemon");

        let out = claude(&project, &["--settings", &settings], bytes.as_bytes());
        assert_eq!(out.status.code(), Some(0), "{event}: {}", stderr(&out));
        assert_eq!(
            seen(&project, event),
            sent,
            "{event}: hooks claude through the daemon"
        );
    }
}
