//! Unit tests of the handler settings of Claude Code files (`if`, `onFailure`, `async`,
//! `asyncRewake`, `once`, `shell`, `args`, `statusMessage`, the handler types not run here).

use std::path::Path;
use std::time::Duration;

use super::*;
use crate::spec::{CommandLine, Handler, OnError};

fn load(handlers: &str) -> LoadedConfig {
    let json =
        format!(r#"{{"hooks": {{"PreToolUse": [{{"matcher": "*", "hooks": [{handlers}]}}]}}}}"#);
    parse_claude(&json, Path::new("s.json"), None).unwrap()
}

fn texts(problems: &[Problem]) -> String {
    problems
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn handler_types_not_runnable_here_are_noted_not_problems() {
    let config = load(
        r#"{"type": "prompt", "prompt": "is this ok?"},
           {"type": "agent", "prompt": "verify"},
           {"type": "mcp_tool", "server": "s", "tool": "t"},
           {"type": "command", "command": "./ok.sh"}"#,
    );
    assert!(config.problems.is_empty(), "{}", texts(&config.problems));
    let notes = texts(&config.notes);
    for kind in ["prompt", "agent", "mcp_tool"] {
        assert!(
            notes.contains(&format!("type `{kind}` is not runnable here")),
            "{kind}: {notes}"
        );
    }
    assert!(notes.contains("asks Claude Code's model"), "{notes}");
    assert!(notes.contains("MCP server"), "{notes}");
    assert_eq!(config.hooks.len(), 1);
    assert_eq!(config.hooks[0].id, "PreToolUse[0].hooks[3]");
}

#[test]
fn on_failure_block_fails_closed_and_continue_fails_open() {
    let config = load(
        r#"{"type": "command", "command": "./a.sh", "onFailure": "block"},
           {"type": "http", "url": "https://h.test/x", "onFailure": "block"},
           {"type": "command", "command": "./b.sh", "onFailure": "continue"},
           {"type": "command", "command": "./c.sh"}"#,
    );
    assert!(config.problems.is_empty(), "{}", texts(&config.problems));
    let on_error: Vec<Option<OnError>> = config.hooks.iter().map(|h| h.on_error).collect();
    assert_eq!(
        on_error,
        [
            Some(OnError::Deny),
            Some(OnError::Deny),
            Some(OnError::Continue),
            None
        ]
    );
}

#[test]
fn an_unknown_on_failure_value_is_a_problem() {
    let config = load(r#"{"type": "command", "command": "./a.sh", "onFailure": "blok"}"#);
    let problems = texts(&config.problems);
    assert!(
        problems.contains(r#"`onFailure` must be "block" or "continue", found "blok""#),
        "{problems}"
    );
    assert!(config.hooks.is_empty());
}

#[test]
fn if_rules_are_loaded_on_tool_events() {
    let config = load(r#"{"type": "command", "command": "./g.sh", "if": "Bash(git *)"}"#);
    assert!(config.problems.is_empty(), "{}", texts(&config.problems));
    let rule = config.hooks[0].matcher.rule.as_ref().unwrap();
    assert_eq!(rule.as_str(), "Bash(git *)");
}

#[test]
fn an_if_rule_that_does_not_parse_is_a_problem() {
    // A problem blocks `hooks claude` at a point that can block: a guard whose filter cannot
    // be read never quietly stops running.
    let config = load(r#"{"type": "command", "command": "./g.sh", "if": "Bash(git *"}"#);
    let problems = texts(&config.problems);
    assert!(
        problems.contains(r#"`if` "Bash(git *": `(` must close with `)`"#),
        "{problems}"
    );
    assert!(config.hooks.is_empty());
}

#[test]
fn if_on_other_events_is_noted_and_the_hook_runs_on_every_event() {
    let json = r#"{"hooks": {"Stop": [{"hooks": [
        {"type": "command", "command": "./s.sh", "if": "Bash(git *)"}]}]}}"#;
    let config = parse_claude(json, Path::new("s.json"), None).unwrap();
    assert!(config.problems.is_empty(), "{}", texts(&config.problems));
    assert_eq!(config.hooks[0].matcher.rule, None);
    let notes = texts(&config.notes);
    assert!(notes.contains("is tested on tool events only"), "{notes}");
    assert!(notes.contains("runs on every Stop"), "{notes}");
}

#[test]
fn an_if_specifier_not_interpreted_here_is_noted() {
    let config = load(r#"{"type": "command", "command": "./g.sh", "if": "Skill(deploy)"}"#);
    assert!(config.problems.is_empty());
    assert!(config.hooks[0].matcher.rule.is_some());
    let notes = texts(&config.notes);
    assert!(
        notes.contains("the specifier `deploy` is not interpreted here"),
        "{notes}"
    );
}

#[test]
fn async_runs_in_the_background_and_async_rewake_is_noted() {
    let config = load(
        r#"{"type": "command", "command": "./a.sh", "async": true},
           {"type": "command", "command": "./r.sh", "asyncRewake": true},
           {"type": "command", "command": "./s.sh", "async": false}"#,
    );
    assert!(config.problems.is_empty(), "{}", texts(&config.problems));
    let blocking: Vec<bool> = config.hooks.iter().map(|h| h.blocking).collect();
    assert_eq!(blocking, [false, false, true]);
    let notes = texts(&config.notes);
    assert!(
        notes.contains("hook `PreToolUse[0].hooks[1]`: `asyncRewake` runs it in the background"),
        "{notes}"
    );
    assert!(notes.contains("cannot wake Claude Code later"), "{notes}");
}

#[test]
fn once_is_noted_as_honoured_only_in_skills() {
    let config = load(r#"{"type": "command", "command": "./a.sh", "once": true}"#);
    assert!(config.problems.is_empty());
    assert_eq!(config.hooks.len(), 1);
    assert!(
        texts(&config.notes).contains("only in a skill's frontmatter"),
        "{}",
        texts(&config.notes)
    );
}

#[test]
fn shell_args_timeout_and_status_message() {
    let config = load(
        r#"{"type": "command", "command": "./fmt", "args": ["--check", "a b"], "timeout": 1.5, "statusMessage": "formatting"},
           {"type": "command", "command": "echo $X", "shell": "bash"},
           {"type": "command", "command": "Write-Output hi", "shell": "powershell"},
           {"type": "command", "command": "x", "shell": "fish"}"#,
    );
    let hooks = &config.hooks;
    let line = |i: usize| match &hooks[i].handler {
        Handler::Command(c) => c.line.clone(),
        Handler::Http(_) => panic!("a command hook"),
    };
    assert_eq!(
        line(0),
        CommandLine::Exec(vec!["./fmt".into(), "--check".into(), "a b".into()])
    );
    assert_eq!(hooks[0].timeout, Some(Duration::from_millis(1500)));
    assert_eq!(hooks[0].summary.as_deref(), Some("formatting"));
    assert_eq!(
        line(1),
        CommandLine::Exec(vec!["bash".into(), "-c".into(), "echo $X".into()])
    );
    assert_eq!(
        line(2),
        CommandLine::Exec(vec![
            "pwsh".into(),
            "-NoProfile".into(),
            "-Command".into(),
            "Write-Output hi".into()
        ])
    );
    assert_eq!(hooks.len(), 3);
    assert!(
        texts(&config.problems).contains("`shell: fish` is not supported (sh, bash or powershell)"),
        "{}",
        texts(&config.problems)
    );
}

#[test]
fn disable_all_hooks_makes_every_hook_dormant() {
    let json = r#"{"disableAllHooks": true, "hooks": {"PreToolUse": [{"hooks": [
        {"type": "command", "command": "./a.sh"}]}]}}"#;
    let config = parse_claude(json, Path::new("s.json"), None).unwrap();
    assert!(config.hooks.is_empty());
    assert_eq!(config.dormant.len(), 1);
    assert!(!config.enabled);
}

#[test]
fn allow_managed_hooks_only_keeps_other_files_hooks_from_running() {
    let dir = tempfile::tempdir().unwrap();
    let managed = dir.path().join("managed-settings.json");
    let user = dir.path().join("settings.json");
    std::fs::write(
        &managed,
        r#"{"allowManagedHooksOnly": true, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./policy.sh"}]}]}}"#,
    )
    .unwrap();
    std::fs::write(
        &user,
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./mine.sh"}]}]}}"#,
    )
    .unwrap();
    let config = Sources::new()
        .managed_settings(&managed)
        .claude_settings(&user)
        .load()
        .unwrap();
    assert_eq!(config.hooks.len(), 1);
    assert!(
        config.hooks[0]
            .id
            .ends_with("managed-settings.json:Stop[0].hooks[0]")
    );
    assert_eq!(config.dormant.len(), 1);
    assert!(
        config.dormant[0]
            .id
            .ends_with("settings.json:Stop[0].hooks[0]")
    );
    let notes = texts(&config.notes);
    assert!(notes.contains("`allowManagedHooksOnly` in"), "{notes}");
    assert!(
        notes.contains("1 hook(s) of this file do not run"),
        "{notes}"
    );

    // Without the switch, both run.
    std::fs::write(
        &managed,
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./policy.sh"}]}]}}"#,
    )
    .unwrap();
    let config = Sources::new()
        .managed_settings(&managed)
        .claude_settings(&user)
        .load()
        .unwrap();
    assert_eq!(config.hooks.len(), 2);
}

#[test]
fn allow_managed_hooks_only_outside_managed_settings_is_noted() {
    let json = r#"{"allowManagedHooksOnly": true, "hooks": {}}"#;
    let config = parse_claude(json, Path::new("s.json"), None).unwrap();
    assert!(config.problems.is_empty());
    assert!(
        texts(&config.notes).contains("honoured only in managed settings"),
        "{}",
        texts(&config.notes)
    );
}
