//! `hooks-forward` in front of a real daemon: the same answers as `hooks claude`, from the
//! daemon when it serves the project, handed to `hooks claude` when it does not.
//!
//! `hooks-forward` is another package's executable, found beside `hooks` in the target
//! directory: `cargo test --workspace` builds both (alone, `cargo build -p hookrail-forward`
//! first).

use crate::common;

use std::path::PathBuf;

use common::daemon::{Daemon, bash, client_env, decided, state_home};
use common::{EXE, Project};
use serde_json::{Value, json};

fn forwarder() -> PathBuf {
    let path = std::path::Path::new(EXE).with_file_name("hooks-forward");
    assert!(
        path.exists(),
        "{} is not built: `cargo build -p hookrail-forward` (cargo test --workspace builds it)",
        path.display()
    );
    path
}

/// `hooks-forward ARGS` for `project`, finding the test's daemons.
fn forward(
    project: &Project,
    args: &[&str],
    env: &[(&str, &str)],
    payload: &[u8],
) -> std::process::Output {
    let state = state_home(project);
    let mut all = vec!["--project", project.path().to_str().unwrap()];
    all.extend(args);
    let vars = client_env(&state, env);
    common::run(project.command_of(forwarder(), &all, &vars), payload)
}

/// `hooks claude --no-daemon` for `project`: the answer to compare with.
fn in_process(project: &Project, payload: &[u8]) -> std::process::Output {
    let dir = project.path().to_str().unwrap();
    project.hooks(&["claude", "--no-daemon", "--project", dir], &[], payload)
}

/// What is different about a run: its name, its options, its environment.
type Case = (
    &'static str,
    &'static [&'static str],
    &'static [(&'static str, &'static str)],
);

fn requests(daemon: &Daemon) -> u64 {
    daemon.get("/health").1["requests"].as_u64().unwrap()
}

fn payloads(project: &Project) -> Vec<(&'static str, Value)> {
    let cwd = project.path().to_str().unwrap();
    let mut no_cwd = bash(project, "ls");
    no_cwd.as_object_mut().unwrap().remove("cwd");
    vec![
        ("allowed", bash(project, "ls")),
        ("denied", bash(project, "rm -rf /")),
        ("no cwd (filled in)", no_cwd),
        (
            "a generic event",
            json!({"hook_event_name": "InstructionsLoaded", "session_id": "s", "cwd": cwd,
                   "load_reason": "session_start", "file_path": "CLAUDE.md"}),
        ),
        (
            "an unknown event",
            json!({"hook_event_name": "NoSuchEvent", "session_id": "s", "cwd": cwd}),
        ),
        (
            "no tool name",
            json!({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": cwd}),
        ),
        (
            // Read in several pieces: one lost or cut would make it fail to parse.
            "a payload larger than one read",
            json!({"hook_event_name": "PostToolUse", "session_id": "s", "cwd": cwd,
                   "tool_name": "Bash", "tool_input": {"command": "ls"},
                   "tool_response": {"stdout": "x".repeat(100_000), "stderr": ""},
                   "tool_use_id": "t"}),
        ),
    ]
}

#[test]
fn the_forwarder_prints_what_hooks_claude_prints() {
    let project = Project::new();
    let daemon = Daemon::start(&project, &[]);
    for (n, (what, payload)) in payloads(&project).into_iter().enumerate() {
        let bytes = payload.to_string();
        let forwarded = forward(&project, &[], &[], bytes.as_bytes());
        let here = in_process(&project, bytes.as_bytes());
        assert_eq!(
            requests(&daemon),
            n as u64 + 1,
            "{what}: the daemon answered it ({})",
            common::stderr(&forwarded)
        );
        assert_eq!(forwarded.status.code(), here.status.code(), "{what}");
        assert_eq!(
            common::stdout(&forwarded),
            common::stdout(&here),
            "{what}: {}",
            common::stderr(&forwarded)
        );
        assert_eq!(common::stderr(&forwarded), common::stderr(&here), "{what}");
    }
    // `hooks claude` forwarding prints the same, from the same daemon.
    let bytes = bash(&project, "rm -rf /").to_string();
    let claude = common::daemon::claude(&project, &[], bytes.as_bytes());
    let forwarded = forward(&project, &[], &[], bytes.as_bytes());
    assert_eq!(common::stdout(&claude), common::stdout(&forwarded));
    assert_eq!(decided(&forwarded), "block");
}

#[test]
fn without_its_daemon_the_event_goes_to_hooks_claude() {
    let project = Project::new();
    let denied = bash(&project, "rm -rf /").to_string();
    // No daemon at all.
    let out = forward(&project, &[], &[], denied.as_bytes());
    assert_eq!(decided(&out), "block", "{}", common::stderr(&out));
    assert_eq!(
        common::stdout(&out),
        common::stdout(&in_process(&project, denied.as_bytes()))
    );
    let daemon = Daemon::start(&project, &[]);
    // --no-daemon, a nested run, other hooks: `hooks claude` decides in its own process,
    // and the daemon is not asked.
    let cases: [Case; 3] = [
        ("--no-daemon", &["--no-daemon"], &[]),
        ("a nested run", &[], &[("AGENT_HOOKS_CLAUDE_NESTED", "[]")]),
        (
            "other hooks",
            &["--settings", "/nonexistent/settings.json"],
            &[],
        ),
    ];
    for (what, args, env) in cases {
        let out = forward(&project, args, env, denied.as_bytes());
        assert_eq!(decided(&out), "block", "{what}: {}", common::stderr(&out));
        assert_eq!(requests(&daemon), 0, "{what}");
    }
    // An option it does not know, or a payload limit: `hooks claude` takes the event, and
    // forwards it to the same daemon itself.
    let cases: [Case; 2] = [
        ("an option it does not know", &["--max-payload", "1M"], &[]),
        ("a payload limit", &[], &[("HOOKS_MAX_PAYLOAD", "1M")]),
    ];
    for (n, (what, args, env)) in cases.into_iter().enumerate() {
        let out = forward(&project, args, env, denied.as_bytes());
        assert_eq!(decided(&out), "block", "{what}: {}", common::stderr(&out));
        assert_eq!(requests(&daemon), n as u64 + 1, "{what}");
    }
    let allowed = bash(&project, "ls").to_string();
    let out = forward(&project, &["--max-payload=1M"], &[], allowed.as_bytes());
    assert_eq!(decided(&out), "pass", "{}", common::stderr(&out));
    // A bad option is `hooks claude`'s to report.
    let out = forward(
        &project,
        &["--max-payload", "lots"],
        &[],
        allowed.as_bytes(),
    );
    assert_ne!(out.status.code(), Some(0));
    assert!(
        common::stderr(&out).contains("lots"),
        "{}",
        common::stderr(&out)
    );
}

#[test]
fn a_daemon_that_cannot_answer_hands_over_and_says_why() {
    let project = Project::new();
    let denied = bash(&project, "rm -rf /").to_string();
    let allowed = bash(&project, "ls").to_string();
    let daemon = Daemon::start(&project, &[]);
    // The wrong token: the daemon refuses, and `hooks claude --no-daemon` decides.
    let out = forward(
        &project,
        &[],
        &[("HOOKS_TOKEN", "another-token-0123456789abcdef")],
        allowed.as_bytes(),
    );
    assert_eq!(decided(&out), "pass", "{}", common::stderr(&out));
    let answer: Value = serde_json::from_str(common::stdout(&out).trim()).unwrap();
    let message = answer["systemMessage"].as_str().unwrap_or_default();
    assert!(
        message.contains("status 401") && message.contains("decided in this process"),
        "{answer}"
    );
    let out = forward(
        &project,
        &[],
        &[("HOOKS_TOKEN", "another-token-0123456789abcdef")],
        denied.as_bytes(),
    );
    assert_eq!(decided(&out), "block");
    // A record naming a live process that is not the daemon (this test): refused before
    // anything is sent.
    let record = std::fs::read_dir(state_home(&project).join("hookrail").join("daemons"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .unwrap();
    let mut found: Value = serde_json::from_slice(&std::fs::read(&record).unwrap()).unwrap();
    found["pid"] = json!(std::process::id());
    std::fs::write(&record, found.to_string()).unwrap();
    let before = requests(&daemon);
    let out = forward(&project, &[], &[], allowed.as_bytes());
    assert_eq!(decided(&out), "pass", "{}", common::stderr(&out));
    assert!(
        common::stdout(&out).contains("refused the peer"),
        "{}",
        common::stdout(&out)
    );
    assert_eq!(
        requests(&daemon),
        before,
        "nothing was sent to a peer it did not check"
    );
    let out = forward(&project, &[], &[], denied.as_bytes());
    assert_eq!(decided(&out), "block");
}

#[test]
fn a_payload_the_daemon_must_refuse_reaches_it_as_sent() {
    let project = Project::new();
    let daemon = Daemon::start(&project, &[]);
    // No `cwd`, and `hook_event_name` twice: filling the cwd in must not merge the keys (a
    // parser that keeps the first reads another event than one that keeps the last).
    let twice = br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"},"session_id":"s","hook_event_name":"Notification"}"#;
    let out = forward(&project, &[], &[], twice);
    assert_eq!(requests(&daemon), 1, "{}", common::stderr(&out));
    assert_eq!(out.status.code(), Some(2), "{}", common::stdout(&out));
    assert!(
        common::stderr(&out).contains("twice"),
        "{}",
        common::stderr(&out)
    );
}

#[test]
fn install_writes_the_forwarder_and_it_answers_as_written() {
    forwarder();
    let project = Project::new();
    let dir = project.path().to_str().unwrap();
    let out = project.hooks(
        &[
            "install",
            "claude",
            "--command",
            "--forwarder",
            "--dir",
            dir,
        ],
        &[],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    assert!(
        common::stdout(&out).contains("hooks-forward"),
        "{}",
        common::stdout(&out)
    );
    let settings: Value = serde_json::from_slice(
        &std::fs::read(project.path().join(".claude").join("settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        settings["hooks"]["PreToolUse"][0]["hooks"][0],
        json!({"type": "command", "command": "hooks-forward", "onFailure": "block"})
    );
    // `--forwarder` belongs to the command form.
    let out = project.hooks(&["install", "claude", "--forwarder", "--dir", dir], &[], "");
    assert_eq!(out.status.code(), Some(2), "{}", common::stderr(&out));
}

#[test]
fn the_claude_env_file_reaches_the_daemon_s_hooks_through_the_forwarder() {
    let project = Project::new();
    project.write(
        "env.sh",
        "#!/bin/sh\ncat > /dev/null\nif [ -n \"${CLAUDE_ENV_FILE+set}\" ]; then echo export FOO=bar >> \"$CLAUDE_ENV_FILE\"; fi\n",
    );
    let doc = json!({ "hooks": { "SessionStart": [
        { "hooks": [{ "type": "command", "command": "./env.sh" }] }] } });
    project.write("settings.json", &doc.to_string());
    project.approve("settings.json");
    let daemon = Daemon::start(&project, &["--settings", "settings.json"]);
    let payload =
        json!({ "hook_event_name": "SessionStart", "session_id": "s", "source": "startup" })
            .to_string();
    let env_file = project.path().join("claude env é.sh");
    let out = forward(
        &project,
        &["--settings", "settings.json"],
        &[("CLAUDE_ENV_FILE", env_file.to_str().unwrap())],
        payload.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    assert_eq!(requests(&daemon), 1, "forwarded to the daemon");
    assert_eq!(
        std::fs::read_to_string(&env_file).unwrap(),
        "export FOO=bar\n"
    );
}
