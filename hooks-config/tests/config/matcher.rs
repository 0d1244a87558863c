//! Matchers as Claude Code and seed 003 write them, compiled and matched against events.

use std::path::Path;

use hookrail_config::file::{Format, parse_project};
use hookrail_config::matcher::{
    CompiledMatcher, EventFacts, MatcherError, compile_globs, compile_tool_matcher, matches,
};
use hookrail_config::spec::{Matcher, ToolMatcher};

fn tool(pattern: &str) -> Matcher {
    Matcher {
        tool: Some(compile_tool_matcher(pattern).unwrap()),
        ..Matcher::default()
    }
}

fn on(target: &str) -> EventFacts<'_> {
    EventFacts {
        target: Some(target),
        ..EventFacts::default()
    }
}

#[test]
fn claude_code_documented_matchers_behave_as_documented() {
    // (matcher, matching names, non-matching names), from Claude Code's hooks reference.
    let cases: &[(&str, &[&str], &[&str])] = &[
        ("Bash", &["Bash"], &["PowerShell", "bash", "BashOutput"]),
        (
            "Edit|Write",
            &["Edit", "Write"],
            &["MultiEdit", "NotebookEdit", "Read"],
        ),
        ("Edit, Write", &["Edit", "Write"], &["Read"]),
        ("Edit.*", &["Edit", "NotebookEdit", "EditX"], &["Write"]),
        (
            "mcp__memory__.*",
            &["mcp__memory__create_entities"],
            &["mcp__github__search"],
        ),
        (
            "mcp__.*__write.*",
            &["mcp__fs__write_file"],
            &["mcp__fs__read_file"],
        ),
        ("*", &["Bash", "anything"], &[]),
        ("", &["Bash"], &[]),
        (
            "startup|resume",
            &["startup", "resume"],
            &["clear", "compact"],
        ),
        ("manual", &["manual"], &["auto"]),
    ];
    for (pattern, yes, no) in cases {
        let m = tool(pattern);
        for name in *yes {
            assert!(matches(&m, &on(name)), "{pattern:?} should match {name}");
        }
        for name in *no {
            assert!(
                !matches(&m, &on(name)),
                "{pattern:?} should not match {name}"
            );
        }
    }
}

#[test]
fn classification_follows_the_character_set() {
    assert_eq!(compile_tool_matcher("*").unwrap(), ToolMatcher::All);
    assert_eq!(
        compile_tool_matcher("Notebook_Edit|my-tool").unwrap(),
        ToolMatcher::Names(vec!["Notebook_Edit".into(), "my-tool".into()])
    );
    for regex in ["Edit.*", "^Bash$", "mcp__[a-z]+", "Write?"] {
        assert!(
            matches!(compile_tool_matcher(regex), Ok(ToolMatcher::Regex(_))),
            "{regex}"
        );
    }
}

#[test]
fn invalid_matchers_are_errors_not_silent_no_ops() {
    for bad in ["Bash(", "[a-", "(?<=x)y", "a{99999999}"] {
        let err = compile_tool_matcher(bad).unwrap_err();
        assert!(matches!(err, MatcherError::Regex { .. }), "{bad}: {err:?}");
        assert!(err.to_string().contains(bad), "{err}");
    }
    assert!(matches!(
        compile_tool_matcher(",|,"),
        Err(MatcherError::NoNames { .. })
    ));
    assert!(matches!(
        compile_globs(&["{a,b".into()]),
        Err(MatcherError::Glob { .. })
    ));
}

#[test]
fn compiled_and_uncompiled_matching_agree() {
    let m = Matcher {
        tool: Some(compile_tool_matcher("Write|Edit").unwrap()),
        ability_scope: vec!["W*".into()],
        min_duration_ms: Some(50),
        only_if_changed_paths: Vec::new(),
        event: None,
        rule: None,
    };
    let compiled = CompiledMatcher::new(&m).unwrap();
    for (target, duration) in [("Write", 60), ("Write", 10), ("Edit", 60), ("Bash", 60)] {
        let facts = EventFacts {
            target: Some(target),
            duration_ms: Some(duration),
            ..EventFacts::default()
        };
        assert_eq!(
            compiled.matches(&facts),
            matches(&m, &facts),
            "{target} {duration}"
        );
    }
    let both = EventFacts {
        target: Some("Write"),
        duration_ms: Some(60),
        ..EventFacts::default()
    };
    assert!(compiled.matches(&both));
}

#[test]
fn a_matcher_loaded_from_a_file_matches_the_events_it_names() {
    let yaml = r#"
enabled: true
hooks:
  - id: slow_writes
    event_type: PostAbilityCall
    match:
      matcher: "Write|Edit"
      min_duration_ms: 100
    handler: { command: ./log.sh }
  - id: service_checks
    event_type: SessionStop
    match:
      only_if_changed_paths: ["services/**", "apps/*/src/**"]
    handler: { command: ./check.sh }
"#;
    let config = parse_project(yaml, Format::Yaml, Path::new("hooks.yaml")).unwrap();
    assert!(config.problems.is_empty(), "{:?}", config.problems);
    let slow = &config.hooks[0].matcher;
    let call = |tool, ms| EventFacts {
        target: Some(tool),
        duration_ms: Some(ms),
        ..EventFacts::default()
    };
    assert!(matches(slow, &call("Write", 150)));
    assert!(!matches(slow, &call("Write", 50)));
    assert!(!matches(slow, &call("Bash", 150)));

    let checks = &config.hooks[1].matcher;
    let changed = [
        "/repo/apps/web/src/main.ts".to_owned(),
        "README.md".to_owned(),
    ];
    let session = EventFacts {
        changed_paths: &changed,
        project_dir: Some(Path::new("/repo")),
        ..EventFacts::default()
    };
    assert!(matches(checks, &session));
    let docs_only = ["docs/guide.md".to_owned()];
    let session = EventFacts {
        changed_paths: &docs_only,
        ..EventFacts::default()
    };
    assert!(!matches(checks, &session));
}

#[test]
fn a_hand_made_matcher_with_a_broken_glob_matches_rather_than_silently_skipping() {
    let m = Matcher {
        ability_scope: vec!["a[".into()],
        ..Matcher::default()
    };
    assert!(CompiledMatcher::new(&m).is_err());
    assert!(matches(&m, &on("anything")));
}
