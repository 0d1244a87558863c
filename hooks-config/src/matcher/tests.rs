use super::*;

fn facts(target: &str) -> EventFacts<'_> {
    EventFacts {
        target: Some(target),
        ..EventFacts::default()
    }
}

fn tool(pattern: &str) -> Matcher {
    Matcher {
        tool: Some(compile_tool_matcher(pattern).unwrap()),
        ..Matcher::default()
    }
}

#[test]
fn empty_and_star_match_everything() {
    assert_eq!(compile_tool_matcher("").unwrap(), ToolMatcher::All);
    assert_eq!(compile_tool_matcher("*").unwrap(), ToolMatcher::All);
    assert!(matches(&tool("*"), &facts("anything")));
    assert!(matches(&Matcher::default(), &EventFacts::default()));
}

#[test]
fn word_strings_are_exact_name_lists() {
    assert_eq!(
        compile_tool_matcher("Edit|Write").unwrap(),
        ToolMatcher::Names(vec!["Edit".into(), "Write".into()])
    );
    assert_eq!(
        compile_tool_matcher("Edit, Write").unwrap(),
        ToolMatcher::Names(vec!["Edit".into(), "Write".into()])
    );
    assert_eq!(
        compile_tool_matcher("my-tool").unwrap(),
        ToolMatcher::Names(vec!["my-tool".into()])
    );
    // Exact: a name list does not match substrings.
    assert!(!matches(&tool("Edit"), &facts("NotebookEdit")));
    assert!(matches(&tool("Edit|Write"), &facts("Write")));
}

#[test]
fn a_list_without_names_is_rejected() {
    assert!(matches!(
        compile_tool_matcher("|"),
        Err(MatcherError::NoNames { .. })
    ));
}

#[test]
fn other_strings_are_unanchored_regexes() {
    assert!(matches!(
        compile_tool_matcher("Edit.*").unwrap(),
        ToolMatcher::Regex(_)
    ));
    assert!(matches(&tool("Edit.*"), &facts("NotebookEdit")));
    assert!(matches(
        &tool("mcp__memory__.*"),
        &facts("mcp__memory__write")
    ));
    assert!(!matches(
        &tool("^mcp__memory__.*"),
        &facts("x_mcp__memory__write")
    ));
}

#[test]
fn invalid_regexes_are_rejected_with_a_one_line_reason() {
    let err = compile_tool_matcher("Bash(").unwrap_err();
    let MatcherError::Regex { pattern, reason } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(pattern, "Bash(");
    assert!(!reason.contains('\n'), "{reason}");
    assert!(reason.contains("unclosed group"), "{reason}");
    // JavaScript look-around is not supported by the regex engine: rejected, not ignored.
    assert!(compile_tool_matcher("(?!Bash).*").is_err());
}

#[test]
fn name_matcher_without_a_target_does_not_match() {
    assert!(!matches(&tool("Bash"), &EventFacts::default()));
}

#[test]
fn ability_scope_globs_match_the_target() {
    let m = Matcher {
        ability_scope: vec!["edit_*".into(), "Write".into()],
        ..Matcher::default()
    };
    assert!(matches(&m, &facts("edit_file")));
    assert!(matches(&m, &facts("Write")));
    assert!(!matches(&m, &facts("Bash")));
    assert!(!matches(&m, &EventFacts::default()));
    let all = Matcher {
        ability_scope: vec!["*".into()],
        ..Matcher::default()
    };
    assert!(matches(&all, &facts("anything")));
}

#[test]
fn invalid_globs_are_rejected() {
    let err = compile_globs(&["a[".into()]).unwrap_err();
    assert!(
        matches!(err, MatcherError::Glob { ref glob, .. } if glob == "a["),
        "{err:?}"
    );
}

#[test]
fn min_duration_needs_a_duration_at_least_that_long() {
    let m = Matcher {
        min_duration_ms: Some(100),
        ..Matcher::default()
    };
    let with = |d| EventFacts {
        duration_ms: d,
        ..EventFacts::default()
    };
    assert!(matches(&m, &with(Some(100))));
    assert!(!matches(&m, &with(Some(99))));
    assert!(!matches(&m, &with(None)));
}

#[test]
fn changed_paths_match_relative_or_under_the_project_dir() {
    let m = Matcher {
        only_if_changed_paths: vec!["services/**".into()],
        ..Matcher::default()
    };
    let rel = ["services/api/main.rs".to_owned()];
    let abs = ["/repo/services/a.rs".to_owned()];
    let other = ["docs/x.md".to_owned()];
    let changed = |paths, project_dir| EventFacts {
        changed_paths: paths,
        project_dir,
        ..EventFacts::default()
    };
    assert!(matches(&m, &changed(&rel, None)));
    assert!(matches(&m, &changed(&abs, Some(Path::new("/repo")))));
    assert!(!matches(&m, &changed(&abs, None)));
    assert!(!matches(&m, &changed(&other, None)));
    assert!(!matches(&m, &changed(&[], None)));
}

#[test]
fn single_star_stays_within_a_path_segment() {
    let set = compile_globs(&["services/*".into()]).unwrap();
    assert!(set.is_match("services/a.rs"));
    assert!(!set.is_match("services/api/a.rs"));
}

#[test]
fn every_part_must_hold() {
    let m = Matcher {
        tool: Some(compile_tool_matcher("Bash").unwrap()),
        min_duration_ms: Some(10),
        ..Matcher::default()
    };
    let f = |t, d| EventFacts {
        target: Some(t),
        duration_ms: Some(d),
        ..EventFacts::default()
    };
    assert!(matches(&m, &f("Bash", 10)));
    assert!(!matches(&m, &f("Bash", 5)));
    assert!(!matches(&m, &f("Edit", 10)));
}

#[test]
fn a_hook_declared_under_one_event_of_a_shared_point_runs_for_that_event_only() {
    let m = Matcher {
        event: Some("PostToolUseFailure"),
        ..Matcher::default()
    };
    let at = |event| EventFacts {
        event,
        ..EventFacts::default()
    };
    assert!(matches(&m, &at(Some("PostToolUseFailure"))));
    assert!(!matches(&m, &at(Some("PostToolUse"))));
    assert!(!matches(&m, &at(None)));
    assert!(matches(&Matcher::default(), &at(Some("PostToolUse"))));
}

#[test]
fn claude_payloads_are_matched_on_the_field_claude_code_matches() {
    use serde_json::json;
    let cases = [
        (
            "error_occurred",
            json!({"hook_event_name": "StopFailure", "error": "rate_limit"}),
            Some("rate_limit"),
        ),
        (
            "notification",
            json!({"hook_event_name": "Notification", "notification_type": "idle_prompt"}),
            Some("idle_prompt"),
        ),
        (
            "session_start",
            json!({"hook_event_name": "SessionStart", "source": "resume"}),
            Some("resume"),
        ),
        (
            "pre_compact",
            json!({"hook_event_name": "PreCompact", "trigger": "auto"}),
            Some("auto"),
        ),
        (
            "subagent_stop",
            json!({"hook_event_name": "SubagentStop", "agent_type": "Explore"}),
            Some("Explore"),
        ),
        (
            "instructions_loaded",
            json!({"hook_event_name": "InstructionsLoaded", "load_reason": "session_start"}),
            Some("session_start"),
        ),
        (
            "config_change",
            json!({"hook_event_name": "ConfigChange", "source": "user_settings"}),
            Some("user_settings"),
        ),
        (
            "file_changed",
            json!({"hook_event_name": "FileChanged", "file_path": "/r/.env"}),
            Some(".env"),
        ),
        (
            "permission_request",
            json!({"hook_event_name": "PermissionRequest", "tool_name": "Bash"}),
            Some("Bash"),
        ),
        (
            "directory_added",
            json!({"hook_event_name": "DirectoryAdded", "directory": "/o", "source": "slash_command"}),
            Some("slash_command"),
        ),
        (
            "user_prompt_expansion",
            json!({"hook_event_name": "UserPromptExpansion", "command_name": "deploy"}),
            Some("deploy"),
        ),
        (
            "elicitation_result",
            json!({"hook_event_name": "ElicitationResult", "mcp_server_name": "memory"}),
            Some("memory"),
        ),
        (
            "pre_model_switch",
            json!({"hook_event_name": "PreModelSwitch", "to_model": "claude-opus-5[1m]"}),
            Some("claude-opus-5"),
        ),
        (
            "post_model_switch",
            json!({"hook_event_name": "PostModelSwitch", "to_model": "claude-haiku-4-5-20251001"}),
            Some("claude-haiku-4-5"),
        ),
        ("stop", json!({"hook_event_name": "Stop"}), None),
        // Not a Claude Code payload (a Rust agent's context): the point's own field.
        ("error_occurred", json!({"kind": "model"}), Some("model")),
        (
            "pre_model_switch",
            json!({"to_model": "opus-x"}),
            Some("opus-x"),
        ),
    ];
    for (point, payload, expected) in cases {
        assert_eq!(target_value(point, &payload), expected, "{payload}");
    }
}

#[test]
fn a_model_switch_to_a_model_without_a_canonical_name_runs_every_hook() {
    let m = tool("claude-opus-5");
    let switch = |event, target| EventFacts {
        event,
        target,
        ..EventFacts::default()
    };
    assert!(matches(
        &m,
        &switch(Some("PreModelSwitch"), Some("claude-opus-5"))
    ));
    assert!(!matches(
        &m,
        &switch(Some("PreModelSwitch"), Some("claude-sonnet-5"))
    ));
    // `to_model` is a gateway's own id (or missing): Claude Code runs the hook anyway.
    assert!(matches(&m, &switch(Some("PreModelSwitch"), None)));
    assert!(matches(&m, &switch(Some("PostModelSwitch"), None)));
    // Elsewhere a name matcher without a value does not hold.
    assert!(!matches(&m, &switch(Some("SessionStart"), None)));
    assert!(!matches(&m, &switch(None, None)));
}

#[test]
fn stop_failure_and_file_changed_take_narrower_name_lists() {
    let compile = |event, pattern| {
        compile_claude_matcher(crate::claude_events::claude_event(event).unwrap(), pattern).unwrap()
    };
    assert_eq!(
        compile("StopFailure", "rate_limit|overloaded"),
        ToolMatcher::Names(vec!["rate_limit".into(), "overloaded".into()])
    );
    // A `-`, `,` or space makes a regex there, searched anywhere in the value.
    let regex = compile("FileChanged", "my-file");
    assert!(matches!(regex, ToolMatcher::Regex(_)));
    assert!(tool_matches(&regex, "my-file.bak"));
    let regex = compile("StopFailure", "rate_limit, unknown");
    assert!(!tool_matches(&regex, "rate_limit"));
    // Everywhere else they are name-list characters.
    assert_eq!(
        compile("ConfigChange", "user_settings, skills"),
        ToolMatcher::Names(vec!["user_settings".into(), "skills".into()])
    );
    assert_eq!(
        compile("SubagentStart", "code-reviewer"),
        ToolMatcher::Names(vec!["code-reviewer".into()])
    );
}

#[test]
fn model_switch_matchers_lose_their_context_window_suffix() {
    let compile = |pattern| {
        compile_claude_matcher(
            crate::claude_events::claude_event("PostModelSwitch").unwrap(),
            pattern,
        )
        .unwrap()
    };
    assert_eq!(
        compile("claude-opus-5[1m]|claude-sonnet-5[2m]"),
        ToolMatcher::Names(vec!["claude-opus-5".into(), "claude-sonnet-5".into()])
    );
    assert!(tool_matches(&compile(".*opus.*"), "claude-opus-5"));
    // A class that is not a context window stays: `[1-5]` is a regex.
    assert!(tool_matches(
        &compile("claude-opus-[1-5]$"),
        "claude-opus-5"
    ));
    // Nothing left but the suffix: the matcher as written.
    assert!(matches!(compile("[1m]"), ToolMatcher::Regex(_)));
    assert_eq!(strip_context_suffixes("a[12m]b[x]c[m]"), "ab[x]c[m]");
}

#[test]
fn targets_are_declared_for_points_with_a_matcher_value() {
    assert_eq!(target_of("post_tool_use"), Some("tool name"));
    assert!(target_of("session_start").is_some());
    assert!(target_of("pre_compact").is_some());
    assert!(target_of("notification").is_some());
    assert_eq!(target_of("user_prompt_submit"), None);
    assert_eq!(target_of("pre_model_switch"), Some("model switched to"));
    assert_eq!(target_of("post_model_switch"), Some("to_model"));
    assert!(has_duration("post_tool_use") && !has_duration("pre_tool_use"));
    assert!(has_changed_paths("session_end") && !has_changed_paths("pre_tool_use"));
}
