//! Unit tests of the loaders: schema rules at exact positions.

use std::path::Path;

use super::*;
use crate::spec::{CommandLine, Handler, OnError, ToolMatcher};

fn yaml(text: &str) -> LoadedConfig {
    parse_project(text, Format::Yaml, Path::new("hooks.yaml")).unwrap()
}

fn messages(config: &LoadedConfig) -> Vec<String> {
    config.problems.iter().map(ToString::to_string).collect()
}

const GOOD: &str = "
  - id: good
    event_type: pre_tool_use
    handler: { command: ./ok.sh }
";

#[test]
fn an_entry_with_defaults_loads() {
    let config = yaml(&format!("enabled: true\nhooks:{GOOD}"));
    assert!(config.problems.is_empty(), "{:?}", messages(&config));
    let hook = &config.hooks[0];
    assert_eq!(hook.id, "good");
    assert!(hook.enabled && hook.blocking);
    assert_eq!(hook.timeout, None);
    assert_eq!(hook.on_error, None);
    assert_eq!(hook.order, 0);
    assert_eq!(hook.location.to_string(), "hooks.yaml:3:5");
}

#[test]
fn strict_booleans_reject_yes_for_the_switch_and_keep_the_feature_off() {
    let config = yaml(&format!("enabled: yes\nhooks:{GOOD}"));
    assert!(!config.enabled);
    assert!(config.hooks.is_empty());
    assert_eq!(config.dormant.len(), 1);
    assert_eq!(
        messages(&config),
        [
            "hooks.yaml:1:10: `enabled`: expected true or false, found the string \"yes\" (yes/no/on/off are not booleans here)"
        ]
    );
}

#[test]
fn a_misspelled_top_level_key_is_reported_with_a_suggestion() {
    let config = yaml("enable: true\n");
    assert_eq!(
        messages(&config),
        ["hooks.yaml:1:1: unknown field `enable` in the config; did you mean `enabled`?"]
    );
}

#[test]
fn timeouts_in_milliseconds_or_seconds_within_one_hour() {
    let entry = |t: &str| {
        yaml(&format!(
            "enabled: true\nhooks:\n  - id: t\n    event_type: stop\n    handler: {{ command: x }}\n    {t}\n"
        ))
    };
    assert_eq!(
        entry("timeout_ms: 1500").hooks[0].timeout,
        Some(std::time::Duration::from_millis(1500))
    );
    assert_eq!(
        entry("timeout: 2.5").hooks[0].timeout,
        Some(std::time::Duration::from_millis(2500))
    );
    for bad in [
        "timeout_ms: 0",
        "timeout_ms: -5",
        "timeout_ms: 3600001",
        "timeout: 0",
        "timeout: 7200",
        "timeout_ms: 1.5",
        "timeout: \"5\"",
        "timeout: .nan",
    ] {
        let config = entry(bad);
        assert!(config.hooks.is_empty(), "{bad}");
        assert_eq!(config.problems.len(), 1, "{bad}: {:?}", messages(&config));
        assert!(
            config.problems[0].to_string().starts_with("hooks.yaml:6:"),
            "{bad}"
        );
    }
    let both = entry("timeout_ms: 5\n    timeout: 5");
    assert!(messages(&both)[0].contains("not both"));
}

#[test]
fn handler_forms_and_their_mistakes() {
    let entry = |h: &str| {
        yaml(&format!(
            "enabled: true\nhooks:\n  - id: h\n    event_type: stop\n    handler: {h}\n"
        ))
    };
    let Handler::Command(c) = &entry("{ kind: script, command: ./a.sh }").hooks[0].handler else {
        panic!()
    };
    assert_eq!(c.line, CommandLine::Shell("./a.sh".into()));
    let Handler::Command(c) = &entry("{ args: [prog, '--x'], env: { N: 1 } }").hooks[0].handler
    else {
        panic!()
    };
    assert_eq!(c.line, CommandLine::Exec(vec!["prog".into(), "--x".into()]));
    assert_eq!(c.env["N"], "1");
    let Handler::Http(h) = &entry("{ url: 'https://x.test/h' }").hooks[0].handler else {
        panic!()
    };
    assert_eq!(h.url, "https://x.test/h");

    for (bad, expected) in [
        ("{ command: x, args: [x] }", "not both"),
        ("{ command: '  ' }", "`handler.command` is empty"),
        ("{ args: [] }", "`handler.args` is empty"),
        (
            "{ kind: shell, command: x }",
            "unknown handler kind \"shell\"",
        ),
        ("{ kind: http }", "missing `handler.url`"),
        (
            "{ kind: http, url: 'ftp://x' }",
            "must start with http:// or https://",
        ),
        (
            "{ url: 'https://x', command: x }",
            "`handler.command` does not apply",
        ),
        (
            "{ command: x, headers: { A: b } }",
            "`handler.headers` does not apply",
        ),
        ("{ env: { A: b } }", "missing `handler.command`"),
        (
            "{ command: x, env: { V: 1.10 } }",
            "write this number as a string",
        ),
        ("{ comand: x }", "did you mean `command`?"),
        ("{ type: command, command: x }", "did you mean `kind`?"),
    ] {
        let config = entry(bad);
        assert!(config.hooks.is_empty(), "{bad}");
        let all = messages(&config).join("\n");
        assert!(all.contains(expected), "{bad}: {all}");
        assert!(all.contains("hook `h` skipped: "), "{bad}: {all}");
    }
}

#[test]
fn match_fields_are_checked_against_the_point() {
    let entry = |event: &str, m: &str| {
        yaml(&format!(
            "enabled: true\nhooks:\n  - id: m\n    event_type: {event}\n    handler: {{ command: x }}\n    match: {m}\n"
        ))
    };
    let ok = entry(
        "PostToolUse",
        "{ matcher: 'Edit|Write', ability_scope: [a*], min_duration_ms: 5 }",
    );
    assert!(ok.problems.is_empty(), "{:?}", messages(&ok));
    let m = &ok.hooks[0].matcher;
    assert_eq!(
        m.tool,
        Some(ToolMatcher::Names(vec!["Edit".into(), "Write".into()]))
    );
    assert_eq!(m.ability_scope, ["a*"]);
    assert_eq!(m.min_duration_ms, Some(5));
    let paths = entry("session_end", "{ only_if_changed_paths: 'services/**' }");
    assert_eq!(
        paths.hooks[0].matcher.only_if_changed_paths,
        ["services/**"]
    );

    for (event, m, expected) in [
        (
            "stop",
            "{ matcher: Bash }",
            "`match.matcher` does not apply to stop",
        ),
        (
            "pre_tool_use",
            "{ min_duration_ms: 5 }",
            "`match.min_duration_ms` does not apply",
        ),
        (
            "pre_tool_use",
            "{ only_if_changed_paths: [x] }",
            "does not apply to pre_tool_use",
        ),
        (
            "pre_tool_use",
            "{ matcher: 'Bash(' }",
            "invalid regex in matcher `Bash(`",
        ),
        (
            "pre_tool_use",
            "{ ability_scope: ['a[', ok] }",
            "invalid glob `a[`",
        ),
        (
            "pre_tool_use",
            "{ mather: Bash }",
            "did you mean `matcher`?",
        ),
    ] {
        let config = entry(event, m);
        assert!(config.hooks.is_empty(), "{m}");
        let all = messages(&config).join("\n");
        assert!(all.contains(expected), "{m}: {all}");
    }
}

#[test]
fn on_error_order_effects_and_summary() {
    let config = yaml(
        "enabled: true\nhooks:\n  - id: e\n    event_type: stop\n    handler: { command: x }\n    on_error: deny\n    order: -3\n    summary: >\n      Two\n      lines.\n    effects:\n      - run_checks\n      - append_to: logs/x.log\n",
    );
    assert!(config.problems.is_empty(), "{:?}", messages(&config));
    let hook = &config.hooks[0];
    assert_eq!(hook.on_error, Some(OnError::Deny));
    assert_eq!(hook.order, -3);
    assert_eq!(hook.summary.as_deref(), Some("Two lines."));
    assert_eq!(hook.effects, ["run_checks", "append_to: logs/x.log"]);
    let bad = yaml(
        "hooks:\n  - id: e\n    event_type: stop\n    handler: { command: x }\n    on_error: block\n",
    );
    assert!(messages(&bad)[0].contains("`on_error` must be `continue` (fail open) or `deny`"));
}

/// The words of `#[hook(on_error = ...)]` (`continue`, `deny`) and the file format's old
/// `ignore` all read, in YAML and TOML alike.
#[test]
fn on_error_takes_the_attribute_words_and_the_old_one() {
    for (word, expected) in [
        ("continue", OnError::Continue),
        ("ignore", OnError::Continue),
        ("deny", OnError::Deny),
    ] {
        let config = yaml(&format!(
            "enabled: true\nhooks:\n  - {{ id: e, event_type: stop, handler: {{ command: x }}, on_error: {word} }}\n"
        ));
        assert!(
            config.problems.is_empty(),
            "{word}: {:?}",
            messages(&config)
        );
        assert_eq!(config.hooks[0].on_error, Some(expected), "{word}");
        let toml = format!(
            "enabled = true\n[[hooks]]\nid = \"e\"\nevent_type = \"stop\"\non_error = \"{word}\"\nhandler = {{ command = \"x\" }}\n"
        );
        let config = parse_project(&toml, Format::Toml, Path::new("hooks.toml")).unwrap();
        assert!(
            config.problems.is_empty(),
            "{word}: {:?}",
            messages(&config)
        );
        assert_eq!(config.hooks[0].on_error, Some(expected), "{word}");
    }
    let typo = yaml(
        "hooks:\n  - { id: e, event_type: stop, handler: { command: x }, on_error: contine }\n",
    );
    assert!(
        messages(&typo)[0].contains("did you mean `continue`"),
        "{:?}",
        messages(&typo)
    );
}

#[test]
fn duplicate_ids_and_keys_are_reported_and_the_first_kept() {
    let config = yaml(&format!("enabled: true\nhooks:{GOOD}{GOOD}"));
    assert_eq!(config.hooks.len(), 1);
    assert_eq!(
        messages(&config),
        ["hooks.yaml:7:5: duplicate hook id `good` (first declared at hooks.yaml:3:5); skipped"]
    );
    let keys =
        yaml("hooks:\n  - id: a\n    id: b\n    event_type: stop\n    handler: { command: x }\n");
    assert!(
        messages(&keys)[0]
            .starts_with("hooks.yaml:3:5: hook `a` skipped: duplicate key `id` (first at line 2)")
    );
}

#[test]
fn a_claude_shaped_hooks_map_in_our_file_gets_a_hint() {
    let config = yaml("hooks:\n  PreToolUse: []\n");
    assert!(messages(&config)[0].contains("Claude Code's settings.json shape"));
}

#[test]
fn a_top_level_that_is_not_a_map_is_a_file_problem() {
    let err = parse_project("- a\n", Format::Yaml, Path::new("hooks.yaml")).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("hooks.yaml:1:1: expected a map at the top level")
    );
    let empty = yaml("");
    assert!(!empty.enabled && empty.problems.is_empty());
}

#[test]
fn builtin_settings_and_allow_entries_are_carried_with_locations() {
    let config = yaml("allow:\n  - cargo fmt\n  - 3\nbuiltin:\n  secrets: { enabled: true }\n");
    assert_eq!(config.allow.len(), 1);
    assert_eq!(config.allow[0].location.to_string(), "hooks.yaml:2:5");
    assert_eq!(
        messages(&config),
        ["hooks.yaml:3:5: `allow`: expected a string, found an integer"]
    );
    let builtin = config.builtin.unwrap();
    assert_eq!(
        builtin.value,
        serde_json::json!({"secrets": {"enabled": true}})
    );
    assert_eq!(builtin.location.to_string(), "hooks.yaml:5:3");
}

#[test]
fn claude_handlers_map_to_specs() {
    let json = r#"{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "command": "./a.sh", "timeout": 30, "statusMessage": "checking"},
    {"type": "command", "command": "./b", "args": ["--x"], "async": true},
    {"type": "command", "command": "echo $X", "shell": "bash"},
    {"type": "http", "url": "https://h.test", "headers": {"A": "${TOKEN}"}, "allowedEnvVars": ["TOKEN"]}
  ]}],
  "Stop": [{"hooks": [{"type": "command", "command": "./s.sh"}]}]
}}"#;
    let config = parse_claude(json, Path::new("settings.json"), None).unwrap();
    assert!(config.problems.is_empty(), "{:?}", messages(&config));
    let ids: Vec<&str> = config.hooks.iter().map(|h| h.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "PreToolUse[0].hooks[0]",
            "PreToolUse[0].hooks[1]",
            "PreToolUse[0].hooks[2]",
            "PreToolUse[0].hooks[3]",
            "Stop[0].hooks[0]"
        ]
    );
    assert_eq!(config.hooks[0].summary.as_deref(), Some("checking"));
    assert_eq!(config.hooks[0].location.to_string(), "settings.json:3:5");
    let Handler::Command(b) = &config.hooks[1].handler else {
        panic!()
    };
    assert_eq!(b.line, CommandLine::Exec(vec!["./b".into(), "--x".into()]));
    assert!(!config.hooks[1].blocking);
    let Handler::Command(bash) = &config.hooks[2].handler else {
        panic!()
    };
    assert_eq!(
        bash.line,
        CommandLine::Exec(vec!["bash".into(), "-c".into(), "echo $X".into()])
    );
    assert!(matches!(config.hooks[3].handler, Handler::Http(_)));
    assert_eq!(config.hooks[4].point, "stop");
}

#[test]
fn a_handler_with_keys_we_do_not_know_loads_and_the_keys_are_noted_once() {
    let json = r#"{"hooks": {"Stop": [{"hooks": [
    {"type": "command", "command": "./gate.sh", "rewakeMessage": "keep going", "futureKey": 1}
  ]}]}}"#;
    let config = parse_claude(json, Path::new("s.json"), None).unwrap();
    assert!(config.problems.is_empty(), "{:?}", config.problems);
    assert_eq!(config.hooks.len(), 1, "the Stop gate is loaded");
    assert_eq!(config.hooks[0].point, "stop");
    let notes: Vec<String> = config.notes.iter().map(ToString::to_string).collect();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(
        notes[0].contains("unknown field `rewakeMessage`"),
        "{notes:?}"
    );
    assert!(
        notes[0].contains("the hook is loaded without it"),
        "{notes:?}"
    );
    assert!(notes[1].contains("unknown field `futureKey`"), "{notes:?}");
}

#[test]
fn every_claude_event_loads_with_its_matcher_and_shared_points_keep_their_event() {
    let events: serde_json::Map<String, serde_json::Value> = crate::claude_events::CLAUDE_EVENTS
        .iter()
        .map(|e| {
            let group = serde_json::json!([{"matcher": "x", "hooks": [{"type": "command", "command": "./h.sh"}]}]);
            (e.name.to_owned(), group)
        })
        .collect();
    let json = serde_json::json!({ "hooks": events }).to_string();
    let config = parse_claude(&json, Path::new("s.json"), None).unwrap();
    assert!(config.problems.is_empty(), "{:?}", config.problems);
    assert_eq!(config.hooks.len(), 33);
    for e in crate::claude_events::CLAUDE_EVENTS {
        let spec = config
            .hooks
            .iter()
            .find(|h| h.id.starts_with(&format!("{}[", e.name)))
            .unwrap();
        assert_eq!(spec.point, e.point, "{}", e.name);
        // The matcher is kept where the event has one, and noted as ignored where not.
        assert_eq!(
            spec.matcher.tool.is_some(),
            e.target.is_some(),
            "{}",
            e.name
        );
    }
    let failure = config
        .hooks
        .iter()
        .find(|h| h.id.starts_with("PostToolUseFailure["))
        .unwrap();
    assert_eq!(failure.matcher.event, Some("PostToolUseFailure"));
    let stop = config
        .hooks
        .iter()
        .find(|h| h.id.starts_with("Stop["))
        .unwrap();
    assert_eq!(stop.matcher.event, None, "Stop is its point's only event");
}

#[test]
fn claude_disable_all_hooks_makes_them_dormant() {
    let json = r#"{"disableAllHooks": true, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}"#;
    let config = parse_claude(json, Path::new("s.json"), None).unwrap();
    assert!(!config.enabled);
    assert!(config.hooks.is_empty());
    assert_eq!(config.dormant.len(), 1);
}

#[test]
fn claude_files_reject_our_event_names_with_the_claude_name() {
    let json = r#"{"hooks": {"pre_tool_use": [{"hooks": [{"type": "command", "command": "x"}]}]}}"#;
    let config = parse_claude(json, Path::new("s.json"), None).unwrap();
    assert_eq!(
        messages(&config),
        [
            "s.json:1:12: unknown event `pre_tool_use`; did you mean `PreToolUse`?; its 1 hook(s) skipped"
        ]
    );
}

#[test]
fn webhooks_load_with_seed_002_fields_and_our_names() {
    let config = yaml(
        "enabled: true
webhooks:
  - hook: PreToolUse
    url: https://siem.internal/api/events
    secret: ${WEBHOOK_SECRET}
    timeout_ms: 5000
  - id: everything
    hook: '*'
    url: http://127.0.0.1:9000/in
    unsigned: true
    retries: 5
    queue: 64
  - id: deploys
    hook: [stop, session_end]
    events: deployed
    url: https://ops.example.com/x
    secret: ${OPS_KEY}
    enabled: false
",
    );
    assert!(config.problems.is_empty(), "{:?}", messages(&config));
    let [siem, all, deploys] = config.webhooks.as_slice() else {
        panic!("three webhooks: {:?}", config.webhooks)
    };
    assert_eq!(siem.id, "webhooks[0]");
    assert_eq!(siem.points, ["pre_tool_use"], "Claude Code's name resolved");
    assert_eq!(siem.secret.as_deref(), Some("${WEBHOOK_SECRET}"));
    assert_eq!(siem.timeout, Some(std::time::Duration::from_millis(5000)));
    assert_eq!(siem.location.to_string(), "hooks.yaml:3:5");
    assert!(all.all && all.points.is_empty());
    assert_eq!((all.retries, all.queue), (Some(5), Some(64)));
    assert_eq!(all.event_names(), ["*"]);
    assert_eq!(deploys.event_names(), ["stop", "session_end", "deployed"]);
    assert!(!deploys.enabled);
    assert!(!format!("{siem:?}").contains("WEBHOOK_SECRET"));
}

#[test]
fn a_bad_webhook_is_skipped_with_its_position_and_the_others_load() {
    let config = yaml(
        "enabled: true
webhooks:
  - id: typo
    hook: pre_tool_usee
    url: https://a.example.com
    secret: k
  - id: seed_ms
    hook: stop
    url: https://b.example.com
    secret: k
    timeout: 5000
  - id: no_url
    hook: stop
    secret: k
  - id: ftp
    hook: stop
    url: ftp://c.example.com
    secret: k
    retries: 99
    colour: red
  - id: unsigned_by_default
    hook: stop
    url: https://f.example.com
  - id: ok
    hook: stop
    url: https://d.example.com
    secret: k
  - id: ok
    hook: stop
    url: https://e.example.com
    unsigned: true
",
    );
    assert_eq!(config.webhooks.len(), 1);
    assert_eq!(config.webhooks[0].url, "https://d.example.com");
    let m = messages(&config);
    let expect = [
        ("hooks.yaml:4:11: webhook `typo` skipped:", "pre_tool_use"),
        ("hooks.yaml:11:14: webhook `seed_ms` skipped:", "timeout_ms"),
        (
            "hooks.yaml:12:5: webhook `no_url` skipped: missing `url`",
            "",
        ),
        ("hooks.yaml:17:10: webhook `ftp` skipped:", "http"),
        ("hooks.yaml:19:14: webhook `ftp` skipped:", "out of range"),
        (
            "hooks.yaml:20:5: webhook `ftp` skipped: unknown field `colour`",
            "",
        ),
        (
            "hooks.yaml:21:5: webhook `unsigned_by_default` skipped: missing `secret`",
            "unsigned: true",
        ),
        ("hooks.yaml:28:5: duplicate webhook id `ok`; skipped", ""),
    ];
    assert_eq!(m.len(), expect.len(), "{m:#?}");
    for (got, (prefix, needle)) in m.iter().zip(expect) {
        assert!(got.starts_with(prefix) && got.contains(needle), "{got}");
    }
}

#[test]
fn webhooks_of_a_project_that_is_not_switched_on_are_dormant() {
    let config = yaml("webhooks:\n  - { hook: stop, url: https://a.example.com, secret: k }\n");
    assert!(config.webhooks.is_empty());
    assert_eq!(config.dormant_webhooks.len(), 1);
    let merged = LoadedConfig::merge([config]);
    assert!(merged.webhooks.is_empty());
    assert_eq!(merged.dormant_webhooks.len(), 1);
}
