//! Configured hooks the gate refuses (issue 13): a guard that cannot run denies, naming the
//! hook and the command that approves it; `on_unapproved: skip` opts out, per entry or per
//! file; a skip that does not deny is a notice in the answer, never silent.

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use hookrail_config::file::{Format, LoadedConfig, parse_claude, parse_project};
use hookrail_config::fire::{claude_answer, fire};
use hookrail_config::runner::{CommandEvent, CommandSkipped, ConfigHooks, collect_notices};
use hookrail_config::spec::OnUnapproved;
use hookrail_config::trust::{TrustStore, fingerprint};
use hookrail_core::Verdict;
use hookrail_core::context::{Meta, PostToolUse, PreToolUse};
use hookrail_core::points::{post_tool_use, pre_tool_use};
use hookrail_core::runtime::Hooks;
use serde_json::{Value, json};

const APPROVE: &str = "hooks trust --settings .claude/hooks.scripts.json --approve";

struct Project {
    dir: tempfile::TempDir,
    store_dir: tempfile::TempDir,
}

impl Project {
    fn new() -> Self {
        let project = Project {
            dir: tempfile::tempdir().unwrap(),
            store_dir: tempfile::tempdir().unwrap(),
        };
        // Every hook here would leave this flag: none of them may run.
        project.script("mark.sh", "#!/bin/sh\ntouch ran.flag\nexit 2\n");
        project
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn script(&self, name: &str, body: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = self.path().join(name);
        std::fs::write(&path, body).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    fn ran(&self) -> bool {
        self.path().join("ran.flag").exists()
    }

    /// A project file of our schema: `top` is put before `hooks:`.
    fn config(&self, top: &str, hooks_yaml: &str) -> LoadedConfig {
        let yaml = format!("enabled: true\n{top}hooks:\n{hooks_yaml}");
        let config = parse_project(&yaml, Format::Yaml, &self.path().join("hooks.yaml")).unwrap();
        assert!(config.problems.is_empty(), "{:?}", config.problems);
        config
    }

    fn store(&self) -> TrustStore {
        TrustStore::load(&self.store_dir.path().join("trust.json")).unwrap()
    }

    fn meta(&self) -> Meta {
        Meta::new("session-1").with_cwd(self.path())
    }
}

/// `config` attached with the test's approve command and `store`; the events it emits.
fn attach(
    p: &Project,
    config: LoadedConfig,
    store: Option<TrustStore>,
) -> (Hooks, Arc<Mutex<Vec<CommandEvent>>>) {
    let mut builder = ConfigHooks::builder(p.path()).approve_command(APPROVE);
    if let Some(store) = store {
        builder = builder.trust_store(store);
    }
    let configured = builder.build(config).unwrap();
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    configured.subscribe(move |e| sink.lock().unwrap().push(e.clone()));
    let hooks = Hooks::builder().ignore_env().build().unwrap();
    configured.attach(&hooks).unwrap();
    (hooks, events)
}

fn skipped(events: &Mutex<Vec<CommandEvent>>) -> Vec<CommandSkipped> {
    events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            CommandEvent::Skipped(s) => Some(s.clone()),
            _ => None,
        })
        .collect()
}

async fn pre_tool(p: &Project, hooks: &Hooks) -> (hookrail_core::Outcome<Verdict>, Vec<String>) {
    let mut ctx = PreToolUse::new(p.meta(), "Bash", json!({"command": "rm -rf /"}));
    collect_notices(hooks.dispatch_async::<pre_tool_use::Point>(&mut ctx)).await
}

fn payload(event: &str, fields: Value) -> Value {
    let mut v = json!({"session_id": "s1", "cwd": "/tmp", "hook_event_name": event});
    v.as_object_mut()
        .unwrap()
        .extend(fields.as_object().unwrap().clone());
    v
}

fn guard(event: &str) -> String {
    format!("  - {{ id: guard, event_type: {event}, handler: {{ command: ./mark.sh }} }}\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unapproved_guard_denies_naming_the_hook_its_place_and_the_approve_command() {
    let p = Project::new();
    let (hooks, events) = attach(&p, p.config("", &guard("PreToolUse")), None);
    let (outcome, notices) = pre_tool(&p, &hooks).await;
    assert!(!p.ran(), "an unapproved command ran");
    assert!(outcome.is_denied(), "{:?}", outcome.verdict());
    let failure = outcome
        .decided_by_failure()
        .expect("a guard that could not run fails closed");
    let reason = outcome.verdict().reason().unwrap();
    let skip = &skipped(&events)[0];
    for part in [
        "`guard`",
        "hooks.yaml:3:5",
        skip.reason.as_str(),
        &format!("`{APPROVE}`"),
    ] {
        assert!(reason.contains(part), "`{part}` missing from: {reason}");
    }
    assert!(failure.cause.to_string().contains(APPROVE));
    assert!(skip.failed_closed, "the event says the skip denied");
    let json = serde_json::to_value(CommandEvent::Skipped(skip.clone())).unwrap();
    assert_eq!(
        (&json["kind"], &json["failed_closed"]),
        (&json!("hook_command_skipped"), &json!(true))
    );
    assert!(notices.is_empty(), "the deny says it; no notice besides");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_guard_point_denies_in_claude_codes_answer() {
    let cases = [
        (
            "PreToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}),
        ),
        ("UserPromptSubmit", json!({"prompt": "hi"})),
        ("Stop", json!({"stop_hook_active": false})),
        (
            "SubagentStart",
            json!({"agent_id": "a1", "agent_type": "reviewer"}),
        ),
        ("pre_model_call", json!({"model": "m"})),
    ];
    for (event, fields) in cases {
        let p = Project::new();
        let (hooks, _) = attach(&p, p.config("", &guard(event)), None);
        let fired = fire(&hooks, event, payload(event, fields)).await.unwrap();
        let (answer, code) = claude_answer(&fired);
        assert_eq!(code, 0);
        assert!(!p.ran(), "{event}: an unapproved command ran");
        let reason = if event == "PreToolUse" {
            assert_eq!(
                answer["hookSpecificOutput"]["permissionDecision"], "deny",
                "{answer}"
            );
            answer["hookSpecificOutput"]["permissionDecisionReason"].clone()
        } else {
            assert_eq!(answer["decision"], "block", "{event}: {answer}");
            answer["reason"].clone()
        };
        let reason = reason.as_str().unwrap();
        assert!(
            reason.contains("`guard`") && reason.contains(APPROVE),
            "{event}: {reason}"
        );
        // Said once in the failure list; the notices add nothing.
        assert!(fired.notices.is_empty(), "{:?}", fired.notices);
        let message = answer["systemMessage"].as_str().unwrap();
        assert_eq!(message.matches(APPROVE).count(), 1, "{message}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guard_script_edited_since_its_approval_denies() {
    let p = Project::new();
    p.script("check.sh", "#!/bin/sh\nexit 0\n");
    let config = p.config(
        "",
        "  - { id: check, event_type: PreToolUse, handler: { command: ./check.sh } }\n",
    );
    let mut store = p.store();
    store.approve(
        &fingerprint(&config.hooks[0].handler, p.path()).unwrap(),
        Some("reviewed".to_owned()),
    );
    let (hooks, events) = attach(&p, config, Some(store));
    let (outcome, _) = pre_tool(&p, &hooks).await;
    assert_eq!(outcome.verdict(), &Verdict::Continue, "approved: it runs");

    p.script("check.sh", "#!/bin/sh\ntouch ran.flag\nexit 0\n");
    let (outcome, _) = pre_tool(&p, &hooks).await;
    assert!(!p.ran(), "an edited script ran");
    assert!(outcome.is_denied(), "{:?}", outcome.verdict());
    let reason = outcome.verdict().reason().unwrap();
    let skip = &skipped(&events)[0];
    assert!(skip.failed_closed);
    assert!(
        reason.contains("`check`") && reason.contains(&skip.reason) && reason.contains(APPROVE),
        "{reason}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sequential_hooks_deny_for_a_refused_guard_too() {
    let p = Project::new();
    let (hooks, events) = attach(
        &p,
        p.config("sequential: true\n", &guard("PreToolUse")),
        None,
    );
    let (outcome, _) = pre_tool(&p, &hooks).await;
    assert!(outcome.is_denied() && outcome.decided_by_failure().is_some());
    assert!(skipped(&events)[0].failed_closed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_unapproved_skip_per_entry_skips_visibly_and_still_reports_the_event() {
    let p = Project::new();
    let config = p.config(
        "",
        "  - { id: guard, event_type: PreToolUse, on_unapproved: skip, handler: { command: ./mark.sh } }\n",
    );
    assert_eq!(config.hooks[0].on_unapproved, Some(OnUnapproved::Skip));
    let (hooks, events) = attach(&p, config, None);
    let (outcome, notices) = pre_tool(&p, &hooks).await;
    assert!(!p.ran());
    assert_eq!(outcome.verdict(), &Verdict::Continue);
    let skip = &skipped(&events)[0];
    assert!(!skip.failed_closed);
    assert_eq!(notices.len(), 1, "{notices:?}");
    for part in ["`guard`", "(on_unapproved: skip)", APPROVE, &skip.reason] {
        assert!(notices[0].contains(part), "`{part}`: {}", notices[0]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_unapproved_skip_per_file_covers_its_entries_and_an_entry_may_say_deny() {
    let p = Project::new();
    let config = p.config("on_unapproved: skip\n", &guard("PreToolUse"));
    assert_eq!(config.hooks[0].on_unapproved, Some(OnUnapproved::Skip));
    let (hooks, events) = attach(&p, config, None);
    let (outcome, notices) = pre_tool(&p, &hooks).await;
    assert_eq!(outcome.verdict(), &Verdict::Continue);
    assert!(!skipped(&events)[0].failed_closed);
    assert_eq!(notices.len(), 1, "{notices:?}");

    let config = p.config(
        "on_unapproved: skip\n",
        "  - { id: guard, event_type: PreToolUse, on_unapproved: deny, handler: { command: ./mark.sh } }\n",
    );
    let (hooks, _) = attach(&p, config, None);
    assert!(
        pre_tool(&p, &hooks).await.0.is_denied(),
        "the entry's own setting wins"
    );

    // The same in TOML and JSON.
    let toml = "enabled = true\non_unapproved = \"skip\"\n[[hooks]]\nid = \"g\"\nevent_type = \"PreToolUse\"\nhandler = { command = \"./mark.sh\" }\n";
    let json = r#"{"enabled": true, "on_unapproved": "skip", "hooks": [{"id": "g", "event_type": "PreToolUse", "handler": {"command": "./mark.sh"}}]}"#;
    for (text, format, name) in [
        (toml, Format::Toml, "hooks.toml"),
        (json, Format::Json, "hooks.json"),
    ] {
        let config = parse_project(text, format, Path::new(name)).unwrap();
        assert!(config.problems.is_empty(), "{:?}", config.problems);
        assert_eq!(
            config.hooks[0].on_unapproved,
            Some(OnUnapproved::Skip),
            "{name}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_non_blocking_unapproved_guard_does_not_deny() {
    let p = Project::new();
    let config = p.config(
        "",
        "  - { id: watcher, event_type: PreToolUse, blocking: false, handler: { command: ./mark.sh } }\n",
    );
    let (hooks, events) = attach(&p, config, None);
    let (outcome, notices) = pre_tool(&p, &hooks).await;
    assert!(!p.ran());
    assert_eq!(
        outcome.verdict(),
        &Verdict::Continue,
        "{:?}",
        outcome.failures
    );
    assert!(!skipped(&events)[0].failed_closed);
    assert!(
        notices[0].contains("`watcher`") && notices[0].contains("(blocking: false)"),
        "{notices:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_skip_at_a_point_that_cannot_block_is_a_notice_in_system_message_said_once() {
    let p = Project::new();
    let config = p.config(
        "",
        "  - { id: greet, event_type: SessionStart, handler: { command: ./mark.sh } }\n  - { id: greet_again, event_type: SessionStart, handler: { command: ./mark.sh }, timeout: 5 }\n",
    );
    let (hooks, events) = attach(&p, config, None);
    let fired = fire(
        &hooks,
        "SessionStart",
        payload("SessionStart", json!({"source": "startup"})),
    )
    .await
    .unwrap();
    assert!(!p.ran());
    let (answer, code) = claude_answer(&fired);
    assert_eq!(code, 0);
    assert!(answer.get("decision").is_none(), "{answer}");
    let message = answer["systemMessage"].as_str().unwrap();
    for id in ["`greet`", "`greet_again`"] {
        assert_eq!(message.matches(id).count(), 1, "{message}");
    }
    assert_eq!(message.matches(APPROVE).count(), 2, "{message}");
    assert_eq!(message.lines().count(), 2, "{message}");
    assert!(skipped(&events).iter().all(|s| !s.failed_closed));
    assert_eq!(fired.notices.len(), 2);
    let json = serde_json::to_value(&fired).unwrap();
    assert_eq!(json["notices"].as_array().unwrap().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notices_follow_failures_in_system_message() {
    let p = Project::new();
    p.script("crash.sh", "#!/bin/sh\nexit 3\n");
    let config = p.config(
        "allow: [./crash.sh]\n",
        "  - { id: crash, event_type: PostToolUse, on_error: deny, handler: { command: ./crash.sh } }\n  - { id: audit, event_type: PostToolUse, handler: { command: ./mark.sh } }\n",
    );
    let (hooks, _) = attach(&p, config, None);
    let input = payload(
        "PostToolUse",
        json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": {"ok": true}}),
    );
    let fired = fire(&hooks, "PostToolUse", input).await.unwrap();
    let (answer, _) = claude_answer(&fired);
    let message = answer["systemMessage"].as_str().unwrap();
    let lines: Vec<&str> = message.lines().collect();
    assert_eq!(lines.len(), 2, "{message}");
    assert!(lines[0].starts_with("hook failures: ") && lines[0].contains("`crash`"));
    assert!(lines[1].contains("`audit`") && lines[1].contains(APPROVE));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_unapproved_deny_at_a_point_that_cannot_block_fails_closed() {
    let p = Project::new();
    let config = p.config(
        "",
        "  - { id: audit, event_type: PostToolUse, on_unapproved: deny, handler: { command: ./mark.sh } }\n",
    );
    let (hooks, events) = attach(&p, config, None);
    let mut ctx = PostToolUse::new(p.meta(), "Bash", json!({"command": "ls"}), json!({}), 5);
    let (outcome, notices) =
        collect_notices(hooks.dispatch_async::<post_tool_use::Point>(&mut ctx)).await;
    let failure = outcome.failed_closed().expect("the chain stopped");
    assert!(failure.cause.to_string().contains("`audit`"));
    assert!(skipped(&events)[0].failed_closed);
    assert!(notices.is_empty());

    // Without it the skip is a notice only.
    let config = p.config(
        "",
        "  - { id: audit, event_type: PostToolUse, handler: { command: ./mark.sh } }\n",
    );
    let (hooks, _) = attach(&p, config, None);
    let (outcome, notices) =
        collect_notices(hooks.dispatch_async::<post_tool_use::Point>(&mut ctx)).await;
    assert!(outcome.failures.is_empty());
    assert_eq!(notices.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_claude_settings_guard_denies_and_its_file_has_no_opt_out() {
    let p = Project::new();
    let settings = r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./mark.sh"}]}]}}"#;
    let config = parse_claude(settings, Path::new(".claude/hooks.scripts.json"), None).unwrap();
    let (hooks, _) = attach(&p, config, None);
    let (outcome, _) = pre_tool(&p, &hooks).await;
    assert!(!p.ran());
    let reason = outcome.verdict().reason().unwrap();
    assert!(outcome.is_denied());
    assert!(
        reason.contains("`PreToolUse[0].hooks[0]` (.claude/hooks.scripts.json:1:57)")
            && reason.contains(APPROVE),
        "{reason}"
    );

    let with_field = r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "./mark.sh", "on_unapproved": "skip"}]}]}}"#;
    let config = parse_claude(with_field, Path::new("settings.json"), None).unwrap();
    // The key is not Claude Code's: it is noted and ignored, so the hook keeps the point's
    // default and still denies unapproved (the file gains no opt-out by writing it).
    assert!(config.problems.is_empty(), "{:?}", config.problems);
    assert_eq!(config.hooks.len(), 1);
    assert_eq!(config.hooks[0].on_unapproved, None);
    assert!(
        config.notes[0]
            .message
            .contains("unknown field `on_unapproved`"),
        "{:?}",
        config.notes
    );
    let (hooks, _) = attach(&p, config, None);
    let (outcome, _) = pre_tool(&p, &hooks).await;
    assert!(!p.ran());
    assert!(outcome.is_denied(), "{outcome:?}");
}

#[test]
fn a_bad_on_unapproved_value_is_a_problem_at_its_position() {
    let yaml = "enabled: true\non_unapproved: allow\nhooks:\n  - id: g\n    event_type: Stop\n    on_unapproved: skipp\n    handler: { command: ./g.sh }\n  - id: h\n    event_type: Stop\n    on_unapproved: true\n    handler: { command: ./h.sh }\n  - { id: ok, event_type: Stop, handler: { command: ./ok.sh } }\n";
    let config = parse_project(yaml, Format::Yaml, Path::new("hooks.yaml")).unwrap();
    let problems: Vec<String> = config.problems.iter().map(ToString::to_string).collect();
    assert_eq!(
        problems,
        [
            "hooks.yaml:2:16: `on_unapproved` must be `deny` or `skip`, found \"allow\"",
            "hooks.yaml:6:20: hook `g` skipped: `on_unapproved` must be `deny` or `skip`, found \"skipp\"; did you mean `skip`?",
            "hooks.yaml:10:20: hook `h` skipped: `on_unapproved`: expected a string, found a boolean",
        ]
    );
    // The file's bad setting chose nothing: its hooks keep the point's default (deny here).
    assert_eq!(config.hooks.len(), 1);
    assert_eq!(config.hooks[0].on_unapproved, None);

    let toml = "enabled = true\n[[hooks]]\nid = \"g\"\nevent_type = \"Stop\"\non_unapproved = \"Skip\"\nhandler = { command = \"./g.sh\" }\n";
    let config = parse_project(toml, Format::Toml, Path::new("hooks.toml")).unwrap();
    assert_eq!(
        config.problems[0].to_string(),
        "hooks.toml:5:17: hook `g` skipped: `on_unapproved` must be `deny` or `skip`, found \"Skip\"; did you mean `skip`?"
    );
    let json = r#"{"enabled": true, "on_unapproved": 1, "hooks": []}"#;
    let config = parse_project(json, Format::Json, Path::new("hooks.json")).unwrap();
    assert_eq!(
        config.problems[0].to_string(),
        "hooks.json:1:36: `on_unapproved`: expected a string, found an integer"
    );
}
