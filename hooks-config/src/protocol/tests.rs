use super::*;
use serde_json::json;

fn ok(stdout: &str) -> Answer {
    read_command(0, stdout, "").unwrap()
}

#[test]
fn exit_0_with_empty_stdout_has_no_opinion() {
    assert_eq!(ok(""), Answer::default());
    assert_eq!(ok("  \n\t"), Answer::default());
}

#[test]
fn exit_0_plain_stdout_is_plain_text_not_a_decision() {
    let a = ok("Remember: tests live in tests/\n");
    assert_eq!(
        a.plain_text.as_deref(),
        Some("Remember: tests live in tests/")
    );
    assert_eq!(a.decision, Decision::None);
}

#[test]
fn json_with_a_byte_order_mark_or_leading_white_space_is_json() {
    let body = r#"{"decision": "block", "reason": "r"}"#;
    for text in [
        format!("\u{feff}{body}"),
        format!("\n  \t{body}\n"),
        format!("\u{feff}\n {body}"),
    ] {
        let a = ok(&text);
        assert_eq!(
            (a.decision, a.reason.as_deref()),
            (Decision::Deny, Some("r")),
            "{text:?}"
        );
    }
}

#[test]
fn permission_decisions_map_to_decisions() {
    for (value, expected) in [
        ("allow", Decision::Allow),
        ("deny", Decision::Deny),
        ("ask", Decision::Ask),
        ("defer", Decision::None),
    ] {
        let text = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": value,
                "permissionDecisionReason": "why"}}).to_string();
        let a = ok(&text);
        assert_eq!(a.decision, expected, "{value}");
        assert_eq!(a.reason.as_deref(), Some("why"));
    }
}

#[test]
fn permission_request_behaviors_are_decisions_with_their_message() {
    let a = ok(
        r#"{"hookSpecificOutput": {"hookEventName": "PermissionRequest",
            "decision": {"behavior": "deny", "message": "not here"}}}"#,
    );
    assert_eq!(
        (a.decision, a.reason.as_deref()),
        (Decision::Deny, Some("not here"))
    );
    let allow = ok(r#"{"hookSpecificOutput": {"decision": {"behavior": "allow"}}}"#);
    assert_eq!(allow.decision, Decision::Allow);
    let err = read_command(
        0,
        r#"{"hookSpecificOutput": {"decision": {"behavior": "maybe"}}}"#,
        "",
    )
    .unwrap_err();
    assert!(err.to_string().contains("unknown variant `maybe`"), "{err}");
}

#[test]
fn legacy_approve_and_block_are_allow_and_deny() {
    assert_eq!(ok(r#"{"decision": "approve"}"#).decision, Decision::Allow);
    let a = ok(r#"{"decision": "block", "reason": "not on main"}"#);
    assert_eq!(
        (a.decision, a.reason.as_deref()),
        (Decision::Deny, Some("not on main"))
    );
}

#[test]
fn the_more_restrictive_of_legacy_and_permission_decision_wins() {
    let a = ok(r#"{"decision": "block", "reason": "legacy",
            "hookSpecificOutput": {"permissionDecision": "allow", "permissionDecisionReason": "new"}}"#);
    assert_eq!(
        (a.decision, a.reason.as_deref()),
        (Decision::Deny, Some("legacy"))
    );
}

#[test]
fn updated_input_context_stop_and_system_message_are_read() {
    let a = ok(
        r#"{"continue": false, "stopReason": "done for today", "systemMessage": "heads up",
            "hookSpecificOutput": {"updatedInput": {"command": "ls"}, "additionalContext": "ctx",
            "updatedToolOutput": {"stdout": "[redacted]"}}}"#,
    );
    assert_eq!(a.stop.as_deref(), Some("done for today"));
    assert_eq!(a.system_message.as_deref(), Some("heads up"));
    assert_eq!(a.updated_input.unwrap()["command"], "ls");
    assert_eq!(a.updated_output.unwrap()["stdout"], "[redacted]");
    assert_eq!(a.additional_context, ["ctx"]);
    assert_eq!(
        ok(r#"{"continue": false}"#).stop.as_deref(),
        Some("a hook asked the agent to stop (continue: false)")
    );
    assert_eq!(ok(r#"{"continue": true}"#).stop, None);
}

#[test]
fn unknown_fields_are_ignored_and_forwarded_ones_kept_apart() {
    let a = ok(
        r#"{"suppressOutput": true, "terminalSequence": "\u0007", "futureField": [1],
            "hookSpecificOutput": {"hookEventName": "PreToolUse", "sessionTitle": "x"}}"#,
    );
    assert_eq!(a.forwarded.get(&["suppressOutput"]), Some(&json!(true)));
    assert_eq!(
        a.forwarded.get(&["hookSpecificOutput", "sessionTitle"]),
        Some(&json!("x"))
    );
    assert_eq!(
        Answer {
            forwarded: Forwarded::default(),
            ..a
        },
        Answer::default()
    );
}

#[test]
fn wrong_types_and_unknown_decisions_are_failures_naming_the_problem() {
    for (text, needle) in [
        (r#"{"decision": "maybe"}"#, "unknown variant `maybe`"),
        (r#"{"continue": "no"}"#, "invalid type"),
        (
            r#"{"hookSpecificOutput": {"permissionDecision": "yes"}}"#,
            "unknown variant `yes`",
        ),
        (
            r#"{"hookSpecificOutput": {"updatedInput": "rm -rf /"}}"#,
            "invalid type",
        ),
        (
            r#"{"hookSpecificOutput": {"additionalContext": 5}}"#,
            "invalid type",
        ),
    ] {
        let err = read_command(0, text, "").unwrap_err();
        assert!(
            matches!(err, ProtocolError::InvalidOutput { .. }),
            "{text}: {err:?}"
        );
        assert!(err.to_string().contains(needle), "{text}: {err}");
    }
}

#[test]
fn broken_json_is_a_failure_not_plain_text() {
    let err = read_command(0, r#"{"decision": "block""#, "").unwrap_err();
    assert!(matches!(err, ProtocolError::InvalidJson { .. }), "{err:?}");
    assert!(err.to_string().contains("line 1"), "{err}");
}

#[test]
fn exit_2_blocks_with_stderr_even_when_stdout_allows() {
    let a = read_command(
        2,
        r#"{"hookSpecificOutput": {"permissionDecision": "allow"}}"#,
        "no writes to prod\n",
    )
    .unwrap();
    assert_eq!(
        (a.decision, a.reason.as_deref()),
        (Decision::Deny, Some("no writes to prod"))
    );
}

#[test]
fn exit_2_prefers_the_json_reason_and_still_blocks_on_broken_json() {
    let a = read_command(
        2,
        r#"{"decision": "block", "reason": "json reason"}"#,
        "stderr",
    )
    .unwrap();
    assert_eq!(a.reason.as_deref(), Some("json reason"));
    let b = read_command(2, "{oops", "stderr reason").unwrap();
    assert_eq!(
        (b.decision, b.reason.as_deref()),
        (Decision::Deny, Some("stderr reason"))
    );
    let c = read_command(2, "", "").unwrap();
    assert_eq!(c.reason.as_deref(), Some("blocked by hook (exit code 2)"));
}

#[test]
fn other_exit_codes_are_failures_with_the_first_stderr_line() {
    let err = read_command(
        1,
        r#"{"decision": "approve"}"#,
        "\n  Traceback (most recent call last):\n  x\n",
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "exited with code 1: Traceback (most recent call last):"
    );
    let err = read_command(127, "", "").unwrap_err();
    assert_eq!(err.to_string(), "exited with code 127");
}

#[test]
fn http_2xx_bodies_read_like_stdout_and_other_statuses_fail() {
    assert_eq!(read_http(204, "").unwrap(), Answer::default());
    assert_eq!(
        read_http(200, r#"{"decision": "block", "reason": "r"}"#)
            .unwrap()
            .decision,
        Decision::Deny
    );
    let err = read_http(503, "upstream down\nmore").unwrap_err();
    assert_eq!(err.to_string(), "answered HTTP 503: upstream down");
}

#[test]
fn strings_are_capped_at_10_000_characters() {
    let long = "é".repeat(OUTPUT_CAP + 50);
    let a = ok(&long);
    let text = a.plain_text.unwrap();
    assert_eq!(text.chars().count(), OUTPUT_CAP);
    assert!(text.ends_with('…'));
    let reason = read_command(2, "", &long).unwrap().reason.unwrap();
    assert_eq!(reason.chars().count(), OUTPUT_CAP);
    let exact = "x".repeat(OUTPUT_CAP);
    assert_eq!(
        cap(&exact),
        exact,
        "a string of exactly the cap is kept whole"
    );
}

#[test]
fn merge_keeps_the_most_restrictive_decision_and_every_context() {
    let answers = [
        Answer {
            decision: Decision::Allow,
            reason: Some("fine".into()),
            additional_context: vec!["a".into()],
            ..Answer::default()
        },
        Answer {
            decision: Decision::Deny,
            reason: Some("first deny".into()),
            additional_context: vec!["b".into()],
            ..Answer::default()
        },
        Answer {
            decision: Decision::Ask,
            reason: Some("ask".into()),
            ..Answer::default()
        },
        Answer {
            decision: Decision::Deny,
            reason: Some("second deny".into()),
            ..Answer::default()
        },
    ];
    let m = merge(answers);
    assert_eq!(
        (m.answer.decision, m.answer.reason.as_deref()),
        (Decision::Deny, Some("first deny"))
    );
    assert_eq!(m.answer.additional_context, ["a", "b"]);
}

#[test]
fn merge_keeps_the_first_rewrite_and_counts_the_differing_ones() {
    let rewrite = |cmd: &str| Answer {
        updated_input: Some(json!({"command": cmd}).as_object().cloned().unwrap()),
        ..Answer::default()
    };
    let m = merge([
        rewrite("ls"),
        rewrite("ls"),
        rewrite("ls -la"),
        Answer::default(),
    ]);
    assert_eq!(m.answer.updated_input.unwrap()["command"], "ls");
    assert_eq!(m.dropped_rewrites, 1);
}

#[test]
fn input_names_the_event_as_claude_code_does() {
    use hookrail_core::context::{Meta, PostToolUse, PreModelCall};
    let mut post = PostToolUse::new(Meta::new("s"), "Bash", json!({}), json!({}), 3);
    assert_eq!(
        input("post_tool_use", &post).unwrap()["hook_event_name"],
        "PostToolUse"
    );
    post.error = Some("exit 1".into());
    assert_eq!(
        input("post_tool_use", &post).unwrap()["hook_event_name"],
        "PostToolUseFailure"
    );
    let pre = PreModelCall::new(Meta::new("s"), "m", Vec::new());
    assert_eq!(
        input("pre_model_call", &pre).unwrap()["hook_event_name"],
        "pre_model_call"
    );
}
