//! Seed 000, Squad's PRD "HooksProvider Abstraction": one `HooksProvider` interface over the
//! lifecycle hooks (`onPreToolUse` … `onSubagentStop`), each with its input and output types, a
//! `DefaultHooksProvider` that keeps the existing policies, a `CompositeHooksProvider` (first
//! deny wins, void hooks fire every provider), and providers swapped by configuration.
//!
//! The seed's provider classes are translated to Rust below (`Governance`, `Telemetry`) and run
//! through the PRD's wiring plan with a `Session`: every output type of the seed is set by a
//! hook and checked where the seed says it lands.

use std::time::Duration;

use hookrail_builtin::{BuiltinConfig, Builtins};
use hookrail_core::context::{
    CompactTrigger, ErrorOccurred, Meta, PostToolUse, PreCompact, PreToolUse, SessionEnd,
    SessionEndReason, SessionStart, SubagentStart, SubagentStatus, SubagentStop, TokenUsage,
    ToolCall, UserPromptSubmit,
};
use hookrail_core::points::pre_tool_use;
use hookrail_core::runtime::{
    AgentError, CompositeHooksProvider, Hooks, HooksProvider, ModelReply, PointSet, Session,
    ToolRun,
};
use hookrail_core::{HookResult, Recovery, Verdict};
use serde_json::json;

use crate::support::Seen;

/// A `GovernanceHooksProvider`: decisions and rewrites, one per seed output type.
struct Governance;

impl HooksProvider for Governance {
    fn name(&self) -> &str {
        "governance"
    }

    fn points(&self) -> PointSet {
        PointSet::PRE_TOOL_USE
            | PointSet::POST_TOOL_USE
            | PointSet::SESSION_START
            | PointSet::USER_PROMPT_SUBMIT
            | PointSet::ERROR_OCCURRED
            | PointSet::PRE_COMPACT
            | PointSet::SUBAGENT_START
    }

    /// `PreToolUseOutput`: `deny` with a reason, `modify` with `modifiedArgs`,
    /// `additionalContext`.
    fn pre_tool_use(&self, ctx: &mut PreToolUse) -> HookResult<Verdict> {
        match ctx.tool_name.as_str() {
            "delete_repo" => Ok(Verdict::deny("repositories are never deleted")),
            "write_file" => {
                let path = ctx.tool_input.get()["path"].as_str().unwrap_or_default();
                let confined = format!("src/{}", path.trim_start_matches('/'));
                ctx.tool_input.set(json!({ "path": confined }));
                ctx.additional_context
                    .push("writes are confined to src/".into());
                Ok(Verdict::Continue)
            }
            _ => Ok(Verdict::Continue),
        }
    }

    /// `PostToolUseOutput`: `modifiedResult`, `additionalContext`, `suppressOutput`.
    fn post_tool_use(&self, ctx: &mut PostToolUse) -> HookResult<()> {
        if ctx.tool_name == "read_secrets_report" {
            ctx.suppress_output();
        } else if let Some(text) = ctx.tool_response.as_str() {
            ctx.tool_response = json!(text.replace("alice@example.com", "[REDACTED:email]"));
            ctx.additional_context
                .push("an e-mail address was redacted".into());
        }
        Ok(())
    }

    /// `SessionStartOutput`: `additionalContext` and `modifiedConfig.model`.
    fn session_start(&self, ctx: &mut SessionStart) -> HookResult<()> {
        ctx.additional_context.push("charter: be brief".into());
        ctx.model = "claude-haiku".into();
        Ok(())
    }

    /// `UserPromptOutput`: `modifiedPrompt`, `additionalContext`, `capturedDirectives`.
    fn user_prompt_submit(&self, ctx: &mut UserPromptSubmit) -> HookResult<Verdict> {
        let prompt = ctx.prompt.get().clone();
        if let Some(rule) = prompt.strip_prefix("always ") {
            ctx.directives.push(format!("always {rule}"));
        }
        ctx.prompt.set(format!("{prompt} (team conventions apply)"));
        ctx.additional_context.push("conventions: rustfmt".into());
        Ok(Verdict::Continue)
    }

    /// `ErrorRecoveryOutput`: `retry`, `fallbackModel`, `modifiedPrompt`, `backoffMs`.
    fn error_occurred(&self, ctx: &ErrorOccurred) -> HookResult<Option<Recovery>> {
        Ok((ctx.attempt == 1).then(|| {
            Recovery::fallback("claude-sonnet", Duration::from_millis(0)).with_prompt("shorter")
        }))
    }

    /// `PreCompactOutput`: `preserveContext`, `exportState`.
    fn pre_compact(&self, ctx: &mut PreCompact) -> HookResult<()> {
        ctx.preserve.push("the open task list".into());
        ctx.exported_state.insert("task".into(), json!("T-12"));
        Ok(())
    }

    /// `SubagentStartOutput`: `deny` with a reason, `modifiedModel`, `additionalContext`.
    fn subagent_start(&self, ctx: &mut SubagentStart) -> HookResult<Verdict> {
        if ctx.subagent_name == "intern" {
            return Ok(Verdict::deny("no interns on this repository"));
        }
        ctx.model.set("claude-haiku".into());
        ctx.additional_context.push("you are a reviewer".into());
        Ok(Verdict::Continue)
    }
}

/// A `TelemetryHooksProvider`: void hooks only, and an allow that must not hide a deny.
struct Telemetry(Seen);

impl HooksProvider for Telemetry {
    fn name(&self) -> &str {
        "telemetry"
    }

    fn points(&self) -> PointSet {
        PointSet::PRE_TOOL_USE | PointSet::SESSION_END | PointSet::SUBAGENT_STOP
    }

    fn pre_tool_use(&self, _: &mut PreToolUse) -> HookResult<Verdict> {
        Ok(Verdict::Allow)
    }

    /// `SessionEndInput`: tokens, tool calls, files modified, duration.
    fn session_end(&self, ctx: &SessionEnd) -> HookResult<()> {
        self.0.push(format!(
            "session_end tokens={} tool_calls={} files={:?}",
            ctx.tokens.total(),
            ctx.tool_calls,
            ctx.files_modified
        ));
        Ok(())
    }

    /// `SubagentStopInput`: the agent, its model, its status.
    fn subagent_stop(&self, ctx: &SubagentStop) -> HookResult<()> {
        self.0.push(format!(
            "subagent_stop {} {} {:?}",
            ctx.subagent_name, ctx.model, ctx.status
        ));
        Ok(())
    }
}

/// The PRD's configuration: `new CompositeHooksProvider([new DefaultHooksProvider(…), new
/// TelemetryHooksProvider(…)])`, with the default provider being the builtin policies.
fn squad_hooks(seen: &Seen) -> Hooks {
    let composite = CompositeHooksProvider::new("squad")
        .with(Telemetry(seen.clone()))
        .with(Governance);
    let builtins = Builtins::new(BuiltinConfig::default_guards()).unwrap();
    builtins
        .install(Hooks::builder().ignore_env().provider(composite))
        .unwrap()
}

/// The wiring plan, hook by hook, with every output of the seed landing where it says.
#[tokio::test]
async fn every_hook_fires_where_the_wiring_plan_says_and_every_output_lands() {
    let seen = Seen::default();
    let project = crate::support::Project::new();
    let meta = Meta::new("squad-1").with_cwd(project.path());
    // onSessionStart, after the session is created: context added, model changed.
    let mut session = Session::start(squad_hooks(&seen), meta, "claude-opus")
        .await
        .unwrap();
    assert_eq!(session.model(), "claude-haiku");
    assert_eq!(session.start_context(), ["charter: be brief"]);

    // onUserPromptSubmitted, before the message is sent.
    let prompt = session.submit_prompt("always run the tests").await.unwrap();
    assert_eq!(
        prompt.prompt.get(),
        "always run the tests (team conventions apply)"
    );
    assert_eq!(prompt.additional_context, ["conventions: rustfmt"]);
    assert_eq!(prompt.directives, ["always run the tests"]);

    // onErrorOccurred: a fallback model with a modified prompt; the retry uses both.
    let mut calls = Vec::new();
    session
        .call_model(
            vec![hookrail_core::context::Message::user("long prompt")],
            |pre| {
                calls.push((
                    pre.model.get().clone(),
                    pre.messages.last().map(|m| m.text().into_owned()),
                ));
                let first = calls.len() == 1;
                async move {
                    if first {
                        Err(AgentError::new(
                            hookrail_core::context::ErrorKind::Model,
                            "overloaded",
                        ))
                    } else {
                        Ok(ModelReply::new(["done"]).with_usage(TokenUsage::new(10, 5)))
                    }
                }
            },
        )
        .await
        .unwrap();
    assert_eq!(
        calls,
        [
            ("claude-haiku".to_owned(), Some("long prompt".to_owned())),
            ("claude-sonnet".to_owned(), Some("shorter".to_owned())),
        ]
    );

    // onPreToolUse: modify (the arguments the tool runs with) and deny; the composite's
    // telemetry member allows everything, which never hides the governance deny.
    let call = ToolCall::new("t1", "write_file", json!({"path": "main.rs"}));
    let run = session
        .tool_call(call, async |input| {
            Ok(json!(format!("wrote {}", input["path"])))
        })
        .await
        .unwrap();
    let ToolRun::Ran(post) = &run else {
        panic!("the write ran: {run:?}")
    };
    assert_eq!(post.tool_input, json!({"path": "src/main.rs"}));
    let call = ToolCall::new("t2", "delete_repo", json!({}));
    let run = session
        .tool_call(call, async |_| Ok(json!("deleted")))
        .await
        .unwrap();
    assert!(
        matches!(&run, ToolRun::Denied { reason, .. } if reason.contains("never deleted")),
        "{run:?}"
    );

    // onPostToolUse: a modified result with context; a suppressed output.
    let call = ToolCall::new("t3", "read_mail", json!({}));
    let run = session
        .tool_call(call, async |_| Ok(json!("from alice@example.com")))
        .await
        .unwrap();
    let ToolRun::Ran(post) = &run else {
        panic!("{run:?}")
    };
    assert_eq!(post.tool_response, json!("from [REDACTED:email]"));
    assert_eq!(post.additional_context, ["an e-mail address was redacted"]);
    let call = ToolCall::new("t4", "read_secrets_report", json!({}));
    let run = session
        .tool_call(call, async |_| Ok(json!("the report")))
        .await
        .unwrap();
    assert!(run.output_suppressed());
    let answer = serde_json::to_value(run.tool_result().unwrap()).unwrap();
    assert!(!answer.to_string().contains("the report"), "{answer}");

    // onPreCompact: context preserved and state exported.
    let compact = session
        .compact(CompactTrigger::Auto, 190_000, 200_000)
        .await
        .unwrap();
    assert_eq!(compact.preserve, ["the open task list"]);
    assert_eq!(compact.exported_state.get("task"), Some(&json!("T-12")));

    // onSubagentStart: deny with a reason; a modified model and context; onSubagentStop.
    assert!(session.start_subagent("intern", "fix typos").await.is_err());
    let reviewer = session
        .start_subagent("reviewer", "review the diff")
        .await
        .unwrap();
    assert_eq!(reviewer.start.model.get(), "claude-haiku");
    assert_eq!(reviewer.start.additional_context, ["you are a reviewer"]);
    session
        .finish_subagent(reviewer, SubagentStatus::Completed, None)
        .await;

    // onSessionEnd: every provider's void hook runs, with the session's totals.
    session.record_file_modified("src/main.rs");
    session.end(SessionEndReason::Completed, true).await;
    assert_eq!(
        seen.all(),
        [
            "subagent_stop reviewer claude-haiku Completed".to_owned(),
            "session_end tokens=15 tool_calls=3 files=[\"src/main.rs\"]".to_owned(),
        ]
    );
}

/// The `DefaultHooksProvider` keeps the existing policies (here the builtin guard set) in
/// front of the custom providers, and "swap via config" builds another set per tenant.
#[tokio::test]
async fn the_default_provider_keeps_the_policies_and_tenants_swap_providers() {
    let seen = Seen::default();
    let strict = squad_hooks(&seen);
    let lenient = Hooks::builder().ignore_env().build().unwrap();
    let project = crate::support::Project::new();
    for (hooks, denied) in [(&strict, true), (&lenient, false)] {
        let meta = Meta::new("t").with_cwd(project.path());
        let mut ctx = PreToolUse::new(meta, "Bash", json!({"command": "rm -rf /"}));
        let outcome = hooks.dispatch_async::<pre_tool_use::Point>(&mut ctx).await;
        assert_eq!(outcome.is_denied(), denied);
    }
    // The composite is one provider to the runtime, listed under its name.
    let names: Vec<String> = strict
        .list()
        .into_iter()
        .map(|h| h.name.to_string())
        .collect();
    assert!(names.iter().any(|n| n == "squad"), "{names:?}");
}
