//! The handler settings of a Claude Code settings file through the real `hooks claude`:
//! `if` rules, `onFailure`, `async`, the handler types not run here, deduplication across
//! files, `disableAllHooks`.

#![cfg(unix)]

use crate::common;

use common::daemon::{claude, decided};
use common::{Project, stderr, stdout};
use serde_json::json;

/// A guard that records each run in `ran` and blocks with exit 2.
const BLOCKER: &str =
    "#!/bin/sh\ncat > /dev/null\necho x >> ran\necho 'blocked by the script' >&2\nexit 2\n";

fn settings(project: &Project, name: &str, handlers: serde_json::Value) {
    let doc = json!({ "hooks": { "PreToolUse": [{ "matcher": "Bash", "hooks": handlers }] } });
    project.write(name, &doc.to_string());
}

fn bash_call(command: &str) -> Vec<u8> {
    json!({
        "hook_event_name": "PreToolUse",
        "session_id": "s",
        "tool_name": "Bash",
        "tool_input": { "command": command }
    })
    .to_string()
    .into_bytes()
}

fn runs(project: &Project) -> usize {
    std::fs::read_to_string(project.path().join("ran"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

#[test]
fn an_if_rule_runs_the_hook_only_for_calls_it_matches() {
    let project = Project::new();
    project.write("guard.sh", BLOCKER);
    settings(
        &project,
        "settings.json",
        json!([{ "type": "command", "command": "./guard.sh", "if": "Bash(git push *)" }]),
    );
    project.approve("settings.json");
    let args = ["--settings", "settings.json"];

    let out = claude(&project, &args, &bash_call("ls -la"));
    assert_eq!(decided(&out), "pass", "{}", stderr(&out));
    assert_eq!(runs(&project), 0, "the hook did not run for `ls`");

    for (command, total) in [
        ("git push origin main", 1),
        ("cd repo && git push origin feature", 2),
        // Cannot be judged (a substitution): the hook runs.
        ("echo $(git push)", 3),
    ] {
        let out = claude(&project, &args, &bash_call(command));
        assert_eq!(decided(&out), "block", "{command}: {}", stdout(&out));
        assert!(stdout(&out).contains("blocked by the script"), "{command}");
        assert_eq!(runs(&project), total, "{command}");
    }
}

#[test]
fn on_failure_chooses_whether_a_failing_hook_blocks() {
    let project = Project::new();
    project.write("broken.sh", "#!/bin/sh\ncat > /dev/null\nexit 1\n");
    for (name, on_failure) in [("block.json", "block"), ("continue.json", "continue")] {
        settings(
            &project,
            name,
            json!([{ "type": "command", "command": "./broken.sh", "onFailure": on_failure }]),
        );
        project.approve(name);
    }
    let block = claude(&project, &["--settings", "block.json"], &bash_call("ls"));
    assert_eq!(decided(&block), "block", "{}", stdout(&block));
    let go_on = claude(&project, &["--settings", "continue.json"], &bash_call("ls"));
    assert_eq!(decided(&go_on), "pass", "{}", stdout(&go_on));
}

#[test]
fn an_async_hook_runs_but_its_block_is_not_applied() {
    let project = Project::new();
    project.write("guard.sh", BLOCKER);
    settings(
        &project,
        "settings.json",
        json!([{ "type": "command", "command": "./guard.sh", "async": true }]),
    );
    project.approve("settings.json");
    let out = claude(&project, &["--settings", "settings.json"], &bash_call("ls"));
    assert_eq!(decided(&out), "pass", "{}", stdout(&out));
}

#[test]
fn prompt_agent_and_mcp_tool_hooks_do_not_block_and_validate_names_them() {
    let project = Project::new();
    project.write("guard.sh", BLOCKER);
    settings(
        &project,
        "settings.json",
        json!([
            { "type": "prompt", "prompt": "is this safe?" },
            { "type": "mcp_tool", "server": "s", "tool": "t" },
            { "type": "command", "command": "./guard.sh" }
        ]),
    );
    project.approve("settings.json");
    // Not a problem that blocks every call: the command hook beside them decides.
    let out = claude(&project, &["--settings", "settings.json"], &bash_call("ls"));
    assert_eq!(decided(&out), "block", "{}", stdout(&out));
    assert!(
        stdout(&out).contains("blocked by the script"),
        "{}",
        stdout(&out)
    );
    let validate = project.hooks(&["validate", "settings.json"], &[], "");
    assert_eq!(validate.status.code(), Some(0), "notes are not problems");
    let text = format!("{}{}", stdout(&validate), stderr(&validate));
    assert!(
        text.contains("type `prompt` is not runnable here"),
        "{text}"
    );
    assert!(
        text.contains("type `mcp_tool` is not runnable here"),
        "{text}"
    );
}

#[test]
fn the_same_command_in_two_settings_files_runs_once() {
    let project = Project::new();
    project.write(
        "log.sh",
        "#!/bin/sh\ncat > /dev/null\necho x >> ran\nexit 0\n",
    );
    let hook = json!([{ "type": "command", "command": "./log.sh" }]);
    settings(&project, "user.json", hook.clone());
    settings(&project, "project.json", hook);
    project.approve("user.json");
    project.approve("project.json");
    let out = claude(
        &project,
        &["--settings", "user.json", "--settings", "project.json"],
        &bash_call("ls"),
    );
    assert_eq!(decided(&out), "pass", "{}", stderr(&out));
    assert_eq!(runs(&project), 1);
}

#[test]
fn disable_all_hooks_keeps_the_file_s_hooks_from_running_and_says_so() {
    let project = Project::new();
    project.write("guard.sh", BLOCKER);
    let doc = json!({ "disableAllHooks": true, "hooks": { "PreToolUse": [
        { "matcher": "Bash", "hooks": [{ "type": "command", "command": "./guard.sh" }] }] } });
    project.write("settings.json", &doc.to_string());
    project.approve("settings.json");
    let out = claude(&project, &["--settings", "settings.json"], &bash_call("ls"));
    assert_eq!(decided(&out), "pass", "{}", stdout(&out));
    assert_eq!(runs(&project), 0);
    assert!(
        stdout(&out).contains("do not run"),
        "the answer names the hooks that do not run: {}",
        stdout(&out)
    );
}

#[test]
fn exec_form_args_run_without_a_shell_with_the_project_placeholder_expanded() {
    let project = Project::new();
    project.write(
        "echo-args.sh",
        "#!/bin/sh\ncat > /dev/null\nprintf '%s\\n' \"$@\" > ran-args\nexit 0\n",
    );
    settings(
        &project,
        "settings.json",
        json!([{ "type": "command", "command": "${CLAUDE_PROJECT_DIR}/echo-args.sh",
                 "args": ["a b", "$(whoami)", "${CLAUDE_PROJECT_DIR}"] }]),
    );
    project.approve("settings.json");
    let out = claude(&project, &["--settings", "settings.json"], &bash_call("ls"));
    assert_eq!(decided(&out), "pass", "{}", stdout(&out));
    let args = std::fs::read_to_string(project.path().join("ran-args")).unwrap();
    let root = project.path().canonicalize().unwrap();
    let lines: Vec<&str> = args.lines().collect();
    assert_eq!(lines[..2], ["a b", "$(whoami)"], "no shell: {args}");
    assert!(
        lines[2] == root.to_str().unwrap() || lines[2] == project.path().to_str().unwrap(),
        "{args}"
    );
}

#[test]
fn claude_env_file_reaches_a_session_start_hook() {
    let project = Project::new();
    project.write(
        "env.sh",
        "#!/bin/sh\ncat > /dev/null\necho 'export FROM_HOOK=1' >> \"$CLAUDE_ENV_FILE\"\n",
    );
    let doc = json!({ "hooks": { "SessionStart": [
        { "hooks": [{ "type": "command", "command": "./env.sh" }] }] } });
    project.write("settings.json", &doc.to_string());
    project.approve("settings.json");
    let env_file = project.path().join("claude-env");
    let payload =
        json!({ "hook_event_name": "SessionStart", "session_id": "s", "source": "startup" });
    let out = project.hooks(
        &["claude", "--settings", "settings.json"],
        &[("CLAUDE_ENV_FILE", env_file.to_str().unwrap())],
        payload.to_string(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&env_file).unwrap(),
        "export FROM_HOOK=1\n"
    );
}

#[test]
fn allow_managed_hooks_only_runs_the_managed_hooks_alone() {
    let project = Project::new();
    project.write("guard.sh", BLOCKER);
    project.write(
        "policy.sh",
        "#!/bin/sh\ncat > /dev/null\necho policy >> ran-policy\nexit 0\n",
    );
    let managed = json!({ "allowManagedHooksOnly": true, "hooks": { "PreToolUse": [
        { "matcher": "Bash", "hooks": [{ "type": "command", "command": "./policy.sh" }] }] } });
    project.write("managed.json", &managed.to_string());
    settings(
        &project,
        "settings.json",
        json!([{ "type": "command", "command": "./guard.sh" }]),
    );
    let args = [
        "--managed-settings",
        "managed.json",
        "--settings",
        "settings.json",
    ];
    let mut approve = vec!["trust", "--approve"];
    approve.extend(args);
    let approved = project.hooks(&approve, &[], "");
    assert_eq!(approved.status.code(), Some(0), "{}", stderr(&approved));
    let out = claude(&project, &args, &bash_call("ls"));
    assert_eq!(decided(&out), "pass", "{}", stdout(&out));
    assert_eq!(runs(&project), 0, "the user file's hook did not run");
    assert!(
        project.path().join("ran-policy").exists(),
        "the managed hook ran"
    );
    assert!(stdout(&out).contains("do not run"), "{}", stdout(&out));

    // A managed file named but missing blocks: it may be what holds the others back.
    let out = claude(
        &project,
        &[
            "--managed-settings",
            "gone.json",
            "--settings",
            "settings.json",
        ],
        &bash_call("ls"),
    );
    assert_eq!(decided(&out), "block", "{}", stdout(&out));
}
