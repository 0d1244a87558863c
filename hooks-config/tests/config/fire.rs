//! Firing points from Claude Code payloads, and Claude Code's answers.

use hookrail_config::fire::{claude_answer, fire};
use hookrail_core::points::{post_tool_use, pre_tool_use, session_start, stop, user_prompt_submit};
use hookrail_core::runtime::{Hook, Hooks};
use hookrail_core::{OnError, Verdict};
use serde_json::{Value, json};

fn common(event: &str) -> Value {
    json!({
        "session_id": "abc123",
        "transcript_path": "/home/user/.claude/projects/x/transcript.jsonl",
        "cwd": "/home/user/my-project",
        "permission_mode": "default",
        "hook_event_name": event,
    })
}

fn with(event: &str, fields: Value) -> Value {
    let mut v = common(event);
    v.as_object_mut()
        .unwrap()
        .extend(fields.as_object().unwrap().clone());
    v
}

/// The payloads of Claude Code's hooks reference (agent-hook-systems.md §1.3).
fn payloads() -> Vec<(&'static str, Value)> {
    vec![
        (
            "PreToolUse",
            with(
                "PreToolUse",
                json!({"tool_name": "Bash", "tool_input": {"command": "npm test", "description": "Run test suite", "timeout": 120000, "run_in_background": false}, "tool_use_id": "toolu_01ABC"}),
            ),
        ),
        (
            "PostToolUse",
            with(
                "PostToolUse",
                json!({"tool_name": "Write", "tool_input": {"file_path": "/p/f.txt", "content": "c"}, "tool_response": {"filePath": "/p/f.txt", "success": true}, "tool_use_id": "t", "duration_ms": 12}),
            ),
        ),
        (
            "PostToolUseFailure",
            with(
                "PostToolUseFailure",
                json!({"tool_name": "Bash", "tool_input": {"command": "x"}, "tool_use_id": "t", "error": "Exit code 1", "is_interrupt": false, "duration_ms": 4187}),
            ),
        ),
        (
            "UserPromptSubmit",
            with("UserPromptSubmit", json!({"prompt": "Write a function"})),
        ),
        (
            "Stop",
            with(
                "Stop",
                json!({"stop_hook_active": true, "last_assistant_message": "done", "background_tasks": [], "session_crons": []}),
            ),
        ),
        (
            "SubagentStop",
            with(
                "SubagentStop",
                json!({"stop_hook_active": false, "agent_id": "a1", "agent_type": "reviewer", "agent_transcript_path": "/t"}),
            ),
        ),
        (
            "SubagentStart",
            with(
                "SubagentStart",
                json!({"agent_id": "a1", "agent_type": "reviewer"}),
            ),
        ),
        (
            "SessionStart",
            with(
                "SessionStart",
                json!({"source": "startup", "model": "claude-sonnet-5"}),
            ),
        ),
        (
            "SessionStart",
            with("SessionStart", json!({"source": "resume"})),
        ),
        ("SessionEnd", with("SessionEnd", json!({"reason": "other"}))),
        (
            "PreCompact",
            with(
                "PreCompact",
                json!({"trigger": "manual", "custom_instructions": ""}),
            ),
        ),
        (
            "Notification",
            with(
                "Notification",
                json!({"message": "Claude needs your permission", "title": "Permission needed", "notification_type": "permission_prompt"}),
            ),
        ),
        (
            "StopFailure",
            with("StopFailure", json!({"error": "rate limited"})),
        ),
    ]
}

#[tokio::test]
async fn every_claude_code_payload_of_a_supported_event_fires_its_point() {
    let hooks = Hooks::builder().ignore_env().build().unwrap();
    for (event, payload) in payloads() {
        let point = hookrail_config::events::resolve_claude(event).unwrap();
        let fired = fire(&hooks, point, payload.clone())
            .await
            .unwrap_or_else(|e| panic!("{event}: {e}"));
        assert_eq!(fired.point, point);
        assert_eq!(fired.context["session_id"], "abc123", "{event}");
        assert!(fired.failures.is_empty());
    }
}

#[tokio::test]
async fn a_payload_missing_a_required_field_is_an_error_naming_it() {
    let hooks = Hooks::builder().ignore_env().build().unwrap();
    let err = fire(&hooks, "PreToolUse", common("PreToolUse"))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the input is not a valid `pre_tool_use` event: missing field `tool_name`"
    );
    let err = fire(&hooks, "NoSuchEvent", json!({})).await.unwrap_err();
    assert!(
        err.to_string().starts_with("unknown event `NoSuchEvent`"),
        "{err}"
    );
}

/// A field of the wrong type is named, with what was expected: the point's own fields and the
/// shared ones (`session_id`, `turn`, flattened into every context) alike.
#[tokio::test]
async fn a_payload_with_a_wrong_typed_field_is_an_error_naming_it() {
    let hooks = Hooks::builder().ignore_env().build().unwrap();
    for (field, value, expected) in [
        ("tool_name", json!(5), "a string"),
        ("tool_use_id", json!(5), "a string"),
        ("session_id", json!(42), "a string"),
        ("turn", json!("three"), "u32"),
    ] {
        let mut payload = with(
            "PreToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
        );
        payload[field] = value;
        let err = fire(&hooks, "PreToolUse", payload)
            .await
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with(&format!(
                "the input is not a valid `pre_tool_use` event: field `{field}`: invalid type"
            )) && err.contains(expected),
            "{field}: {err}"
        );
    }
    // Deeper down, the whole path.
    let payload = with(
        "PostToolUse",
        json!({"tool_name": "Bash", "tool_input": {}, "tool_response": "", "duration_ms": "slow"}),
    );
    let err = fire(&hooks, "PostToolUse", payload).await.unwrap_err();
    assert!(
        err.to_string()
            .contains("field `duration_ms`: invalid type: string \"slow\""),
        "{err}"
    );
}

/// A configured hook that decides is named by its id in `decided_by`, whether it answered or
/// failed closed, in parallel and in sequence; never by the entry they all run as (`config`).
#[cfg(unix)]
#[tokio::test]
async fn decided_by_names_the_configured_hook_not_the_config_entry() {
    use hookrail_config::file::{Format, parse_project};
    use hookrail_config::runner::ConfigHooks;

    let dir = tempfile::tempdir().unwrap();
    let script = |name: &str, body: &str| std::fs::write(dir.path().join(name), body).unwrap();
    script("quiet.sh", "cat > /dev/null\n");
    script(
        "no_rm.sh",
        "cat > /dev/null\necho '{\"hookSpecificOutput\":{\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"no rm\"}}'\n",
    );
    script("broken.sh", "cat > /dev/null\nexit 7\n");
    for sequential in [false, true] {
        let yaml = format!(
            "enabled: true\nsequential: {sequential}\nhooks:\n\
             \x20 - {{ id: a_quiet, event_type: PreToolUse, handler: {{ command: sh ./quiet.sh }} }}\n\
             \x20 - {{ id: no_rm, event_type: PreToolUse, handler: {{ command: sh ./no_rm.sh }} }}\n\
             \x20 - {{ id: z_quiet, event_type: PreToolUse, handler: {{ command: sh ./quiet.sh }} }}\n\
             \x20 - {{ id: broken, event_type: Stop, handler: {{ command: sh ./broken.sh }} }}\n"
        );
        let config = parse_project(&yaml, Format::Yaml, &dir.path().join("hooks.yaml")).unwrap();
        assert!(config.problems.is_empty(), "{:?}", config.problems);
        let configured = ConfigHooks::builder(dir.path())
            .allow("sh ./*")
            .build(config)
            .unwrap();
        let hooks = Hooks::builder().ignore_env().build().unwrap();
        configured.attach(&hooks).unwrap();

        let payload = with(
            "PreToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}}),
        );
        let fired = fire(&hooks, "PreToolUse", payload).await.unwrap();
        assert!(fired.verdict.as_ref().is_some_and(Verdict::is_deny));
        assert_eq!(
            fired.decided_by.as_deref(),
            Some("no_rm"),
            "sequential: {sequential}"
        );

        let fired = fire(
            &hooks,
            "Stop",
            with("Stop", json!({"stop_hook_active": false})),
        )
        .await
        .unwrap();
        assert_eq!(
            fired.decided_by.as_deref(),
            Some("broken"),
            "sequential: {sequential}"
        );
        assert_eq!(fired.failures[0].hook, "config");
    }
}

fn guard_hooks() -> Hooks {
    Hooks::builder()
        .ignore_env()
        .hook(Hook::<pre_tool_use::Point>::new("guard", |ctx| {
            match ctx.command() {
                Some(c) if c.contains("rm -rf /") => Verdict::deny("not the root"),
                Some(c) if c.contains("git push") => Verdict::ask("push?"),
                Some(c) if c.starts_with("ls") => {
                    ctx.tool_input.set(json!({"command": "ls -la"}));
                    ctx.add_context("listing with -la");
                    Verdict::Allow
                }
                _ => Verdict::Continue,
            }
        }))
        .hook(Hook::<user_prompt_submit::Point>::new("prompt", |ctx| {
            if ctx.prompt.get().contains("secret") {
                Verdict::deny("no secrets in prompts")
            } else {
                ctx.additional_context.push("be brief".into());
                Verdict::Continue
            }
        }))
        .hook(Hook::<stop::Point>::new("tests", |_| {
            Verdict::deny("run the tests first")
        }))
        .hook(Hook::<post_tool_use::Point>::new("scrub", |ctx| {
            ctx.tool_response = json!("[redacted]");
        }))
        .hook(
            Hook::<session_start::Point>::new("boom", |_| -> Result<(), std::io::Error> {
                Err(std::io::Error::other("disk full"))
            })
            .on_error(OnError::Continue),
        )
        .build()
        .unwrap()
}

async fn answer(hooks: &Hooks, payload: Value) -> Value {
    let event = payload["hook_event_name"].as_str().unwrap().to_owned();
    let fired = fire(hooks, &event, payload).await.unwrap();
    let (answer, code) = claude_answer(&fired);
    assert_eq!(code, 0);
    answer
}

#[tokio::test]
async fn claude_answers_carry_decisions_rewrites_and_context_in_claude_codes_fields() {
    let hooks = guard_hooks();
    let bash = |cmd: &str| {
        with(
            "PreToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": cmd}}),
        )
    };

    let deny = answer(&hooks, bash("rm -rf /")).await;
    assert_eq!(
        deny,
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "not the root"}})
    );

    let ask = answer(&hooks, bash("git push")).await;
    assert_eq!(ask["hookSpecificOutput"]["permissionDecision"], "ask");

    let rewrite = answer(&hooks, bash("ls")).await;
    assert_eq!(rewrite["hookSpecificOutput"]["permissionDecision"], "allow");
    assert_eq!(
        rewrite["hookSpecificOutput"]["updatedInput"],
        json!({"command": "ls -la"})
    );
    assert_eq!(
        rewrite["hookSpecificOutput"]["additionalContext"],
        "listing with -la"
    );

    assert_eq!(
        answer(&hooks, bash("cargo build")).await,
        json!({}),
        "no opinion: nothing to say"
    );

    let prompt = answer(
        &hooks,
        with("UserPromptSubmit", json!({"prompt": "my secret"})),
    )
    .await;
    assert_eq!(
        (prompt["decision"].as_str(), prompt["reason"].as_str()),
        (Some("block"), Some("no secrets in prompts"))
    );
    let prompt = answer(&hooks, with("UserPromptSubmit", json!({"prompt": "hi"}))).await;
    assert_eq!(
        prompt,
        json!({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "be brief"}})
    );

    let stop = answer(&hooks, with("Stop", json!({"stop_hook_active": false}))).await;
    assert_eq!(
        stop,
        json!({"decision": "block", "reason": "run the tests first"})
    );

    let post = answer(&hooks, with("PostToolUse", json!({"tool_name": "Bash", "tool_input": {}, "tool_response": "token=abc", "duration_ms": 3}))).await;
    assert_eq!(
        post["hookSpecificOutput"]["updatedToolOutput"],
        "[redacted]"
    );

    let failed = answer(
        &hooks,
        with(
            "PostToolUseFailure",
            json!({"tool_name": "Bash", "tool_input": {}, "error": "exit 1"}),
        ),
    )
    .await;
    assert_eq!(
        failed,
        json!({}),
        "no tool_response came in, so none is rewritten"
    );

    let start = answer(&hooks, with("SessionStart", json!({"source": "startup"}))).await;
    assert_eq!(
        start["systemMessage"],
        "hook failures: boom: returned an error: disk full"
    );
}

/// A configured hook of an event that came as Claude Code's payload gets that payload: the
/// fields we do not know kept, none of ours added, and an earlier hook's rewrite applied
/// (here a linked hook's `tool_input`). A context fired from our own JSON form still goes as
/// the context.
#[cfg(unix)]
#[tokio::test]
async fn configured_hooks_get_the_payload_as_sent_with_earlier_rewrites() {
    use hookrail_config::file::{Format, parse_project};
    use hookrail_config::runner::ConfigHooks;

    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("seen.sh"), "cat > seen.json\n").unwrap();
    let yaml = "enabled: true\nhooks:\n  - { id: seen, event_type: PreToolUse, handler: { command: sh ./seen.sh } }\n";
    let config = parse_project(yaml, Format::Yaml, &dir.path().join("hooks.yaml")).unwrap();
    let configured = ConfigHooks::builder(dir.path())
        .allow("sh ./seen.sh")
        .build(config)
        .unwrap();
    let rewrite = Hook::<pre_tool_use::Point>::new("relative", |ctx| {
        ctx.tool_input.set(json!({"command": "ls ./build"}));
        Verdict::Continue
    })
    .order(-10);
    let hooks = Hooks::builder().ignore_env().hook(rewrite).build().unwrap();
    configured.attach(&hooks).unwrap();
    let seen = || -> Value {
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("seen.json")).unwrap())
            .unwrap()
    };

    let sent = with(
        "PreToolUse",
        json!({"tool_name": "Bash", "tool_input": {"command": "ls build"}, "agent_id": "a-1",
            "agent_type": "Explore", "future": {"nested": [1, 2.5, "é"]}}),
    );
    fire(&hooks, "PreToolUse", sent.clone()).await.unwrap();
    let mut expected = sent;
    expected["tool_input"] = json!({"command": "ls ./build"});
    assert_eq!(seen(), expected);

    // Our own form (no `hook_event_name`): the context, as before.
    let ours = json!({"session_id": "s", "cwd": "/tmp", "tool_name": "Bash",
        "tool_input": {"command": "ls build"}, "agent_id": "a-1"});
    fire(&hooks, "pre_tool_use", ours).await.unwrap();
    let got = seen();
    assert_eq!(got["hook_event_name"], "PreToolUse");
    assert!(
        got.get("turn").is_some() && got.get("agent_id").is_none(),
        "{got}"
    );
}

/// `FireOptions::env`: the configured hooks of that event only inherit the variables given, in
/// parallel, in sequence and in the background; a hook's own `env` still wins.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn per_event_environment_reaches_that_event_s_hooks_only() {
    use hookrail_config::file::{Format, parse_project};
    use hookrail_config::fire::{FireOptions, fire_with};
    use hookrail_config::runner::ConfigHooks;

    for mode in ["", "sequential: true\n"] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("env.sh"),
            "cat > /dev/null\nprintf '%s|%s' \"${HOOKS_T_ONE-unset}\" \"${HOOKS_T_TWO-unset}\" > \"$1.txt\"\n",
        )
        .unwrap();
        let yaml = format!(
            "enabled: true\n{mode}allow: [\"sh ./env.sh *\", \"HOOKS_T_TWO=own sh ./env.sh b\"]\nhooks:\n  - {{ id: a, event_type: SessionStart, handler: {{ command: sh ./env.sh a }} }}\n  - {{ id: b, event_type: SessionStart, handler: {{ command: sh ./env.sh b, env: {{ HOOKS_T_TWO: own }} }} }}\n  - {{ id: c, event_type: SessionEnd, blocking: false, handler: {{ command: sh ./env.sh c }} }}\n"
        );
        let config = parse_project(&yaml, Format::Yaml, &dir.path().join("hooks.yaml")).unwrap();
        assert!(config.problems.is_empty(), "{:?}", config.problems);
        let configured = ConfigHooks::builder(dir.path()).build(config).unwrap();
        let hooks = Hooks::builder().ignore_env().build().unwrap();
        configured.attach(&hooks).unwrap();
        let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
        let options = || {
            FireOptions::new()
                .project_dir(dir.path())
                .env("HOOKS_T_ONE", "event")
                .env("HOOKS_T_TWO", "event")
        };

        let start = with("SessionStart", json!({"source": "startup"}));
        let fired = fire_with(&hooks, "SessionStart", start.clone(), options())
            .await
            .unwrap();
        assert!(fired.failures.is_empty(), "{mode}{:?}", fired.failures);
        assert!(fired.notices.is_empty(), "{mode}{:?}", fired.notices);
        assert_eq!(read("a.txt"), "event|event", "{mode}");
        assert_eq!(read("b.txt"), "event|own", "{mode}the hook's own env wins");

        let end = with("SessionEnd", json!({"reason": "other"}));
        fire_with(&hooks, "SessionEnd", end, options())
            .await
            .unwrap();
        assert_eq!(
            configured
                .wait_background(std::time::Duration::from_secs(10))
                .await,
            0
        );
        assert_eq!(read("c.txt"), "event|event", "{mode}in the background too");

        // Another event without them: nothing is left over from the last one.
        fire(&hooks, "SessionStart", start).await.unwrap();
        assert_eq!(read("a.txt"), "unset|unset", "{mode}");
        assert_eq!(read("b.txt"), "unset|own", "{mode}");
    }
}
