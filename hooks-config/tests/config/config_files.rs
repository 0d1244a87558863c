//! Config files of every format, written to temp dirs and loaded as a project would: good
//! entries load, bad ones are skipped with their exact position, and nothing is lost to one
//! mistake.

use std::fs;
use std::time::Duration;

use hookrail_config::file::{
    LoadedConfig, load_claude_plugin, load_claude_settings, load_hooks_dir, load_project,
    load_project_file,
};
use hookrail_config::spec::{CommandLine, Handler, OnError, ToolMatcher};

use super::handlers::write;

fn ids(hooks: &[hookrail_config::spec::HookSpec]) -> Vec<&str> {
    hooks.iter().map(|h| h.id.as_str()).collect()
}

/// Problems as `file-name:line:column: message`, independent of the temp dir.
fn problems(config: &LoadedConfig) -> Vec<String> {
    config
        .problems
        .iter()
        .map(|p| {
            let name = p.location.file.file_name().unwrap().to_string_lossy();
            format!(
                "{name}:{}:{}: {}",
                p.location.line, p.location.column, p.message
            )
        })
        .collect()
}

const PROJECT_YAML: &str = r#"# Project hooks
enabled: true
sequential: true
allow:
  - ./scripts/hooks/*
  - cargo fmt --check
builtin:
  secrets:
    enabled: true
    extra_patterns: ["ghp_[A-Za-z0-9]{36}"]
hooks:
  - id: prod_config_guard
    event_type: PreAbilityCall
    enabled: true
    blocking: true
    summary: >
      Prevent editing of production configuration files from AI sessions.
    match:
      ability_scope: [edit_file, "Write"]
      matcher: "Edit|Write|MultiEdit"
    handler:
      kind: script
      command: ./scripts/hooks/prod_config_guard.py
      env:
        GUARD_LEVEL: strict
    timeout_ms: 3000
    on_error: deny
    order: -100
    effects:
      - enforce_prod_safety

  - id: ability_usage_tracker
    event_type: PostAbilityCall
    blocking: false
    match:
      ability_scope: "*"
      min_duration_ms: 100
    handler:
      kind: command
      args: [python3, ./scripts/hooks/ability_usage_tracker.py, --json]
    timeout: 10
    on_error: ignore
    effects:
      - update_usage_cache: .system/cache/ability_usage.json
      - append_to: .system/logs/slow_abilities.log

  - id: session_stop_build_check
    event_type: SessionStop
    blocking: false
    match:
      only_if_changed_paths:
        - "services/**"
        - "apps/**"
    handler:
      command: ./scripts/hooks/session_stop_build_check.sh

  - id: audit
    event_type: notification
    enabled: false
    handler:
      kind: http
      url: https://audit.example.com/hooks
      headers:
        Authorization: "Bearer ${AUDIT_TOKEN}"
"#;

#[test]
fn a_realistic_yaml_project_file_loads_every_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "hooks.yaml", PROJECT_YAML);
    let config = load_project_file(&path).unwrap();
    assert!(config.problems.is_empty(), "{:#?}", problems(&config));
    assert!(config.enabled && config.sequential);
    let allow: Vec<&str> = config.allow.iter().map(|a| a.pattern.as_str()).collect();
    assert_eq!(allow, ["./scripts/hooks/*", "cargo fmt --check"]);
    assert_eq!(
        (
            config.allow[1].location.line,
            config.allow[1].location.column
        ),
        (6, 5)
    );
    let builtin = config.builtin.as_ref().unwrap();
    assert_eq!(
        builtin.value["secrets"]["extra_patterns"][0],
        "ghp_[A-Za-z0-9]{36}"
    );
    assert_eq!(
        ids(&config.hooks),
        [
            "prod_config_guard",
            "ability_usage_tracker",
            "session_stop_build_check",
            "audit"
        ]
    );

    let guard = &config.hooks[0];
    assert_eq!(guard.point, "pre_tool_use");
    assert_eq!(
        guard.summary.as_deref(),
        Some("Prevent editing of production configuration files from AI sessions.")
    );
    assert_eq!(guard.matcher.ability_scope, ["edit_file", "Write"]);
    assert_eq!(
        guard.matcher.tool,
        Some(ToolMatcher::Names(vec![
            "Edit".into(),
            "Write".into(),
            "MultiEdit".into()
        ]))
    );
    let Handler::Command(command) = &guard.handler else {
        panic!("{:?}", guard.handler)
    };
    assert_eq!(
        command.line,
        CommandLine::Shell("./scripts/hooks/prod_config_guard.py".into())
    );
    assert_eq!(command.env["GUARD_LEVEL"], "strict");
    assert_eq!(guard.timeout, Some(Duration::from_millis(3000)));
    assert_eq!(guard.on_error, Some(OnError::Deny));
    assert_eq!(guard.order, -100);
    assert_eq!((guard.location.line, guard.location.column), (12, 5));

    let tracker = &config.hooks[1];
    assert_eq!(tracker.point, "post_tool_use");
    assert!(!tracker.blocking);
    assert_eq!(tracker.timeout, Some(Duration::from_secs(10)));
    assert_eq!(tracker.matcher.min_duration_ms, Some(100));
    assert_eq!(
        tracker.effects,
        [
            "update_usage_cache: .system/cache/ability_usage.json",
            "append_to: .system/logs/slow_abilities.log"
        ]
    );

    let build = &config.hooks[2];
    assert_eq!(build.point, "session_end");
    assert_eq!(
        build.matcher.only_if_changed_paths,
        ["services/**", "apps/**"]
    );

    let audit = &config.hooks[3];
    assert!(!audit.enabled);
    let Handler::Http(http) = &audit.handler else {
        panic!()
    };
    assert_eq!(http.headers["Authorization"], "Bearer ${AUDIT_TOKEN}");
}

#[test]
fn a_toml_project_file_loads_with_positions() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "hooks.toml",
        r#"enabled = true
allow = ["./hooks/*"]

[builtin.budget]
max_tokens = 100000

[[hooks]]
id = "guard"
event_type = "PreToolUse"
timeout_ms = 2000
on_error = "deny"

[hooks.match]
matcher = "Bash"

[hooks.handler]
kind = "command"
args = ["./hooks/guard", "--strict"]

[[hooks]]
id = "notify"
event_type = "Stop"
handler = { kind = "http", url = "http://127.0.0.1:9999/stop" }
"#,
    );
    let config = load_project_file(&path).unwrap();
    assert!(config.problems.is_empty(), "{:#?}", problems(&config));
    assert!(config.enabled);
    assert_eq!(ids(&config.hooks), ["guard", "notify"]);
    let guard = &config.hooks[0];
    assert_eq!(guard.point, "pre_tool_use");
    assert_eq!((guard.location.line, guard.location.column), (7, 1));
    assert_eq!(
        guard.matcher.tool,
        Some(ToolMatcher::Names(vec!["Bash".into()]))
    );
    assert_eq!(config.hooks[1].point, "stop");
    assert_eq!(
        config.builtin.unwrap().value["budget"]["max_tokens"],
        100000
    );
}

#[test]
fn a_json_project_file_loads() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "hooks.json",
        r#"{
  "enabled": true,
  "hooks": [
    {
      "id": "fmt",
      "event_type": "post_tool_use",
      "match": { "matcher": "Edit|Write" },
      "handler": { "command": "cargo fmt" },
      "timeout": 30
    }
  ]
}"#,
    );
    let config = load_project_file(&path).unwrap();
    assert!(config.problems.is_empty(), "{:#?}", problems(&config));
    assert_eq!(ids(&config.hooks), ["fmt"]);
    assert_eq!(
        (
            config.hooks[0].location.line,
            config.hooks[0].location.column
        ),
        (4, 5)
    );
    assert_eq!(config.hooks[0].timeout, Some(Duration::from_secs(30)));
}

#[test]
fn bad_entries_in_yaml_are_skipped_at_their_position_and_the_good_ones_load() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "hooks.yaml",
        r#"enabled: true
hooks:
  - id: first_good
    event_type: pre_tool_use
    handler: { command: ./a.sh }
  - id: bad_regex
    event_type: PreToolUse
    match:
      matcher: "Bash("
    handler: { command: ./b.sh }
  - id: unknown_event
    event_type: PreToolUsed
    handler: { command: ./c.sh }
  - id: no_handler
    event_type: stop
  - id: last_good
    event_type: SessionStart
    match: { matcher: "startup|resume" }
    handler: { command: ./d.sh }
"#,
    );
    let config = load_project_file(&path).unwrap();
    assert_eq!(ids(&config.hooks), ["first_good", "last_good"]);
    assert_eq!(
        problems(&config),
        [
            "hooks.yaml:9:16: hook `bad_regex` skipped: invalid regex in matcher `Bash(`: unclosed group",
            "hooks.yaml:12:17: hook `unknown_event` skipped: unknown event `PreToolUsed`; did you mean `PreToolUse`?",
            "hooks.yaml:14:5: hook `no_handler` skipped: missing `handler` (a `command`, `args` or `url` to run)",
        ]
    );
    let hook_ids: Vec<Option<&str>> = config
        .problems
        .iter()
        .map(|p| p.hook_id.as_deref())
        .collect();
    assert_eq!(
        hook_ids,
        [Some("bad_regex"), Some("unknown_event"), Some("no_handler")]
    );
}

#[test]
fn bad_entries_in_toml_and_json_are_skipped_at_their_position() {
    let dir = tempfile::tempdir().unwrap();
    let toml = write(
        dir.path(),
        "hooks.toml",
        r#"enabled = true

[[hooks]]
id = "ok"
event_type = "stop"
handler = { command = "./ok.sh" }

[[hooks]]
id = "bad"
event_type = "pre_tool_use"
match = { matcher = "(unclosed" }
handler = { command = "./bad.sh" }
"#,
    );
    let config = load_project_file(&toml).unwrap();
    assert_eq!(ids(&config.hooks), ["ok"]);
    assert_eq!(
        problems(&config),
        [
            "hooks.toml:11:21: hook `bad` skipped: invalid regex in matcher `(unclosed`: unclosed group"
        ]
    );

    let json = write(
        dir.path(),
        "hooks.json",
        "{\"enabled\": true, \"hooks\": [\n  {\"id\": \"ok\", \"event_type\": \"stop\", \"handler\": {\"command\": \"x\"}},\n  {\"id\": \"typo\", \"event_type\": \"stop\", \"handler\": {\"command\": \"x\"}, \"timout\": 5}\n]}",
    );
    let config = load_project_file(&json).unwrap();
    assert_eq!(ids(&config.hooks), ["ok"]);
    assert_eq!(
        problems(&config),
        [
            "hooks.json:3:69: hook `typo` skipped: unknown field `timout` in a hook entry; did you mean `timeout`?"
        ]
    );
}

#[test]
fn without_enabled_true_no_hook_runs_and_that_is_visible_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let hooks = "hooks:\n  - id: a\n    event_type: stop\n    handler: { command: ./a.sh }\n";
    for (text, why) in [
        (hooks.to_owned(), "no switch"),
        (format!("enabled: false\n{hooks}"), "switched off"),
    ] {
        let path = write(dir.path(), "hooks.yaml", &text);
        let config = load_project_file(&path).unwrap();
        assert!(!config.enabled, "{why}");
        assert!(config.hooks.is_empty(), "{why}");
        assert_eq!(ids(&config.dormant), ["a"], "{why}");
        assert!(config.problems.is_empty(), "{why}: {:?}", problems(&config));
    }
}

#[test]
fn a_file_that_does_not_parse_is_one_problem_with_its_position() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text, at) in [
        (
            "hooks.yaml",
            "enabled: true\nhooks:\n  - id: a\n   bad: [\n",
            "hooks.yaml:4:",
        ),
        (
            "hooks.toml",
            "enabled = true\n[[hooks]\nid = 1\n",
            "hooks.toml:2:",
        ),
        (
            "hooks.json",
            "{\n  \"enabled\": true,\n  \"hooks\": [,]\n}",
            "hooks.json:3:",
        ),
    ] {
        let path = write(dir.path(), name, text);
        let problem = load_project_file(&path).unwrap_err();
        let shown = format!(
            "{}:{}:{}: {}",
            name, problem.location.line, problem.location.column, problem.message
        );
        assert!(shown.starts_with(at), "{shown}");
        assert!(problem.message.starts_with("invalid "), "{shown}");
        assert!(problem.location.column > 0, "{shown}");
    }
}

#[test]
fn a_file_that_is_not_utf8_is_a_problem_at_the_bad_byte() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hooks.yaml");
    fs::write(&path, b"enabled: true\nhooks: \xff\n").unwrap();
    let problem = load_project_file(&path).unwrap_err();
    assert_eq!((problem.location.line, problem.location.column), (2, 8));
    assert_eq!(problem.message, "not valid UTF-8");
}

#[test]
fn hooks_dir_loads_the_good_files_in_name_order_and_reports_the_broken_one() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "hooks.yml", "enabled: true\n");
    write(
        root,
        ".hooks/20-tracker.yaml",
        "id: ability_usage_tracker\nevent_type: PostAbilityCall\nblocking: false\nhandler:\n  command: ./track.py\n",
    );
    write(
        root,
        ".hooks/10-guard.yml",
        "event_type: PreAbilityCall\nhandler:\n  command: ./guard.py\n",
    );
    write(
        root,
        ".hooks/15-broken.yaml",
        "id: broken\nevent_type: [stop\n",
    );
    write(
        root,
        ".hooks/17-bad-event.yaml",
        "id: bad\nevent_type: SesionEnd\nhandler: { command: x }\n",
    );
    write(root, ".hooks/README.md", "not a hook");
    let config = load_project(root).unwrap();
    assert!(config.enabled);
    // The id of a file without one is its stem.
    assert_eq!(ids(&config.hooks), ["10-guard", "ability_usage_tracker"]);
    let shown = problems(&config);
    assert_eq!(shown.len(), 2, "{shown:#?}");
    assert_eq!(
        shown[0],
        "15-broken.yaml:2:13: invalid YAML: unclosed bracket '['"
    );
    assert_eq!(
        shown[1],
        "17-bad-event.yaml:2:13: hook `bad` skipped: unknown event `SesionEnd`; did you mean `SessionEnd`?"
    );
}

#[test]
fn hooks_dir_follows_the_project_switch() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        ".hooks/a.yaml",
        "event_type: stop\nhandler: { command: x }\n",
    );
    let config = load_project(root).unwrap();
    assert!(!config.enabled);
    assert!(config.hooks.is_empty());
    assert_eq!(ids(&config.dormant), ["a"]);

    let on = load_hooks_dir(&root.join(".hooks"), true).unwrap();
    assert_eq!(ids(&on.hooks), ["a"]);
    let missing = load_hooks_dir(&root.join("nowhere"), true).unwrap();
    assert!(missing.hooks.is_empty() && missing.problems.is_empty());
}

#[test]
fn two_project_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "hooks.yaml", "enabled: true\n");
    write(dir.path(), "hooks.toml", "enabled = false\n");
    let problem = load_project(dir.path()).unwrap_err();
    assert!(
        problem.message.contains("two project hook files"),
        "{problem}"
    );
}

#[test]
fn an_unsupported_file_type_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "hooks.ini", "enabled=true");
    assert!(
        load_project_file(&path)
            .unwrap_err()
            .message
            .contains("unsupported file type")
    );
}

const CLAUDE_SETTINGS: &str = r#"{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": { "allow": ["Bash(npm run lint)"], "deny": ["Read(./.env)"] },
  "env": { "FOO": "bar" },
  "model": "claude-sonnet-4-5",
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          { "type": "command", "command": "${CLAUDE_PROJECT_DIR}/.claude/hooks/block-rm.sh", "timeout": 30 }
        ]
      },
      {
        "matcher": "Edit|Write",
        "hooks": [
          { "type": "command", "command": "jq -r '.tool_input.file_path' | xargs prettier --check" },
          { "type": "http", "url": "http://localhost:8080/hooks/pre-tool-use", "headers": { "Authorization": "Bearer $MY_TOKEN" } }
        ]
      }
    ],
    "PostToolUseFailure": [
      { "matcher": "mcp__.*__write", "hooks": [ { "type": "command", "command": "./log-failure.sh" } ] }
    ],
    "SessionStart": [
      { "matcher": "startup", "hooks": [ { "type": "command", "command": "cat README.md" } ] }
    ],
    "Stop": [
      { "hooks": [ { "type": "command", "command": "npm test", "timeout": 120 } ] }
    ]
  }
}"#;

#[test]
fn claude_settings_json_is_read_as_is() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), ".claude/settings.json", CLAUDE_SETTINGS);
    let config = load_claude_settings(&path).unwrap();
    assert!(config.problems.is_empty(), "{:#?}", problems(&config));
    assert!(config.enabled, "a Claude file needs no switch");
    assert_eq!(
        ids(&config.hooks),
        [
            "PreToolUse[0].hooks[0]",
            "PreToolUse[1].hooks[0]",
            "PreToolUse[1].hooks[1]",
            "PostToolUseFailure[0].hooks[0]",
            "SessionStart[0].hooks[0]",
            "Stop[0].hooks[0]"
        ]
    );
    let first = &config.hooks[0];
    assert_eq!(first.point, "pre_tool_use");
    assert_eq!(first.timeout, Some(Duration::from_secs(30)));
    assert_eq!((first.location.line, first.location.column), (11, 11));
    let Handler::Command(command) = &first.handler else {
        panic!()
    };
    assert_eq!(
        command.line,
        CommandLine::Shell("${CLAUDE_PROJECT_DIR}/.claude/hooks/block-rm.sh".into())
    );
    assert_eq!(command.plugin_root, None);
    assert!(
        config
            .hooks
            .iter()
            .all(|h| h.enabled && h.on_error.is_none())
    );
    assert!(matches!(config.hooks[2].handler, Handler::Http(_)));
    assert_eq!(config.hooks[3].point, "post_tool_use");
    assert!(matches!(
        config.hooks[3].matcher.tool,
        Some(ToolMatcher::Regex(_))
    ));
    assert_eq!(config.hooks[4].point, "session_start");
    assert_eq!(config.hooks[5].timeout, Some(Duration::from_secs(120)));
    assert_eq!(config.hooks[5].matcher.tool, None);
}

#[test]
fn a_bad_claude_matcher_costs_only_its_group() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "settings.json",
        r#"{"hooks": {"PreToolUse": [
  {"matcher": "Bash(", "hooks": [{"type": "command", "command": "./a.sh"}]},
  {"matcher": {"tool": "Bash"}, "hooks": [{"type": "command", "command": "./b.sh"}]},
  {"matcher": "Edit", "hooks": [{"type": "command", "command": "./c.sh"}]}
]}}"#,
    );
    let config = load_claude_settings(&path).unwrap();
    assert_eq!(ids(&config.hooks), ["PreToolUse[2].hooks[0]"]);
    assert_eq!(
        problems(&config),
        [
            "settings.json:2:15: matcher group PreToolUse[0] skipped: invalid regex in matcher `Bash(`: unclosed group",
            "settings.json:3:15: matcher group PreToolUse[1] skipped: `matcher`: expected a string, found a map",
        ]
    );
}

#[test]
fn a_claude_plugin_gets_its_root_and_prefixed_ids() {
    let dir = tempfile::tempdir().unwrap();
    let plugin = dir.path().join("formatter");
    write(
        &plugin,
        "hooks/hooks.json",
        r#"{
  "description": "Automatic code formatting",
  "hooks": {
    "PostToolUse": [
      { "matcher": "Write|Edit",
        "hooks": [ { "type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/scripts/format.sh", "timeout": 30 } ] }
    ]
  }
}"#,
    );
    let config = load_claude_plugin(&plugin).unwrap();
    assert!(config.problems.is_empty(), "{:#?}", problems(&config));
    assert_eq!(ids(&config.hooks), ["formatter:PostToolUse[0].hooks[0]"]);
    let Handler::Command(command) = &config.hooks[0].handler else {
        panic!()
    };
    assert_eq!(command.plugin_root.as_deref(), Some(plugin.as_path()));
    assert!(config.files[0].ends_with("hooks/hooks.json"));
}

#[test]
fn merging_project_dir_and_claude_settings_reports_duplicate_ids() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "hooks.yaml",
        "enabled: true\nallow: [./a.sh]\nhooks:\n  - id: shared\n    event_type: stop\n    handler: { command: ./a.sh }\n",
    );
    write(
        root,
        ".hooks/shared.yaml",
        "event_type: stop\nhandler: { command: ./other.sh }\n",
    );
    let settings = write(root, ".claude/settings.json", CLAUDE_SETTINGS);
    let project = load_project(root).unwrap();
    let claude = load_claude_settings(&settings).unwrap();
    let merged = LoadedConfig::merge([project, claude.clone(), claude]);
    assert!(merged.enabled);
    assert_eq!(merged.allow.len(), 1);
    // The second copy of the same Claude file runs once; the clashing `shared` is reported.
    assert_eq!(merged.hooks.len(), 1 + 6);
    assert_eq!(
        problems(&merged),
        [format!(
            "shared.yaml:1:1: duplicate hook id `shared` (first declared at {}:4:5); skipped",
            root.join("hooks.yaml").display()
        )]
    );
    assert_eq!(merged.problems[0].hook_id.as_deref(), Some("shared"));
    assert_eq!(merged.files.len(), 4);
}

#[test]
fn a_refused_allow_entry_is_a_problem_with_its_position_and_the_rest_stay() {
    let config = hookrail_config::file::parse_project(
        "enabled: true\nallow:\n  - ./scripts/hooks/*\n  - \"*\"\n",
        hookrail_config::file::Format::Yaml,
        std::path::Path::new("hooks.yaml"),
    )
    .unwrap();
    assert_eq!(config.allow.len(), 1);
    assert_eq!(config.allow[0].pattern, "./scripts/hooks/*");
    assert_eq!(config.problems.len(), 1, "{:?}", config.problems);
    let problem = config.problems[0].to_string();
    assert!(problem.starts_with("hooks.yaml:4:"), "{problem}");
    assert!(problem.contains("allow entry `*` left out"), "{problem}");
}
