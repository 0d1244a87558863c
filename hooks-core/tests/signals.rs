//! Seed 003 hook signals through a `Session`: compiled `#[hook]`s and runtime hooks emit
//! them, the turn-ready control message carries them in order with each hook's id, and
//! `ABILITY_DENIED` either goes to the approver (`require_human`) or disables the tool for the
//! session.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use hookrail_core::context::{Meta, PreToolUse, ToolCall, UserPromptSubmit};
use hookrail_core::points::{pre_tool_use, user_prompt_submit};
use hookrail_core::runtime::{Hook, Hooks, Session, SessionError, ToolRun};
use hookrail_core::signal::{
    HookSignal, NormalizedIntent, RoutingHint, SignalEvent, SignalKind, SuggestedAbility,
};
use hookrail_core::{Verdict, hook};
use serde_json::json;

/// A compiled hook emits a routing hint, in the link-time order before the runtime hook.
#[hook(user_prompt_submit, order = -5, name = "skill_activation_prompt")]
fn skill_activation(ctx: &mut UserPromptSubmit) -> Verdict {
    if ctx.prompt.contains("clean up") {
        let hint = RoutingHint {
            suggested_abilities: vec![
                SuggestedAbility::new("refactor_code", "cleanup asked").confidence(0.9),
            ],
            ..RoutingHint::default()
        };
        ctx.add_signal(HookSignal::routing_hint("skill_activation_prompt", &hint));
    }
    Verdict::Continue
}

fn call(tool: &str) -> ToolCall {
    ToolCall::new("toolu_1", tool, json!({"file_path": "prod/config.yaml"}))
}

async fn run(session: &mut Session, tool: &str, ran: &Arc<AtomicU32>) -> ToolRun {
    let ran = ran.clone();
    session
        .tool_call(call(tool), async move |_| {
            ran.fetch_add(1, Ordering::SeqCst);
            Ok(json!("ok"))
        })
        .await
        .unwrap()
}

#[tokio::test]
async fn prompt_signals_of_every_hook_reach_the_turn_ready_message_in_order() {
    let hooks = Hooks::builder()
        .ignore_env()
        .hook(Hook::<user_prompt_submit::Point>::new(
            "intent_normalizer",
            |ctx: &mut UserPromptSubmit| {
                let intent = NormalizedIntent {
                    topic: Some("cleanup".into()),
                    ..NormalizedIntent::default()
                };
                ctx.add_signal(HookSignal::normalized_intent("intent_normalizer", &intent));
                Verdict::Continue
            },
        ))
        .build()
        .unwrap();
    let mut session = Session::start(hooks, Meta::new("s1"), "m").await.unwrap();
    let ctx = session
        .submit_prompt("please clean up the parser")
        .await
        .unwrap();
    let ready = session.turn_ready().expect("set by submit_prompt");
    assert!(ready.ready);
    assert_eq!(ready.source_event, SignalEvent::PromptSubmit);
    let emitted: Vec<(&str, SignalKind)> = ready
        .hook_signals
        .iter()
        .map(|s| (s.hook_id.as_str(), s.kind))
        .collect();
    assert_eq!(
        emitted,
        [
            ("skill_activation_prompt", SignalKind::RoutingHint),
            ("intent_normalizer", SignalKind::NormalizedIntent)
        ]
    );
    assert_eq!(
        ctx.hook_signals, ready.hook_signals,
        "the context carries them too"
    );
    let json = serde_json::to_value(ready).unwrap();
    assert_eq!(json["turn_ready"], true);
    assert_eq!(
        json["hook_signals"][0]["payload"]["suggested_abilities"][0]["id"],
        "refactor_code"
    );
}

#[tokio::test]
async fn a_denied_prompt_leaves_a_control_message_that_is_not_ready() {
    let hooks = Hooks::builder()
        .ignore_env()
        .hook(Hook::<user_prompt_submit::Point>::new(
            "no",
            |_: &mut UserPromptSubmit| Verdict::deny("not today"),
        ))
        .build()
        .unwrap();
    let mut session = Session::start(hooks, Meta::new("s1"), "m").await.unwrap();
    let err = session.submit_prompt("hello").await.unwrap_err();
    assert!(matches!(err, SessionError::Denied { .. }), "{err}");
    assert!(!session.turn_ready().unwrap().ready);
}

/// A guard hook that denies `Write` by signal, counting its runs.
fn guard(require_human: bool, runs: Arc<AtomicU32>) -> Hooks {
    Hooks::builder()
        .ignore_env()
        .hook(Hook::<pre_tool_use::Point>::new(
            "prod_config_guard",
            move |ctx: &mut PreToolUse| {
                runs.fetch_add(1, Ordering::SeqCst);
                let signal = if ctx.tool_name == "Write" {
                    HookSignal::ability_denied(
                        "prod_config_guard",
                        "Write",
                        "prod config is read-only",
                        require_human,
                    )
                } else {
                    HookSignal::ability_allowed("prod_config_guard", ctx.tool_name.clone())
                };
                ctx.add_signal(signal);
                Verdict::Continue
            },
        ))
        .build()
        .unwrap()
}

#[tokio::test]
async fn ability_denied_without_require_human_disables_the_tool_for_the_session() {
    let (runs, ran) = (Arc::new(AtomicU32::new(0)), Arc::new(AtomicU32::new(0)));
    let mut session = Session::start(guard(false, runs.clone()), Meta::new("s1"), "m")
        .await
        .unwrap()
        .with_approver(|_, _| panic!("no person is asked without require_human"));

    let first = run(&mut session, "Write", &ran).await;
    let ToolRun::Denied { by, reason, .. } = &first else {
        panic!("{first:?}")
    };
    assert_eq!(by.map(|b| b.as_str()), Some("prod_config_guard"));
    assert_eq!(
        reason,
        "ABILITY_DENIED by `prod_config_guard`: prod config is read-only"
    );
    let ready = session.turn_ready().unwrap();
    assert!(!ready.ready);
    assert_eq!(ready.ability_id.as_deref(), Some("Write"));
    assert_eq!(ready.hook_signals[0].code, "ABILITY_DENIED");

    let second = run(&mut session, "Write", &ran).await;
    let ToolRun::Denied { reason, .. } = &second else {
        panic!("{second:?}")
    };
    assert_eq!(
        reason,
        "`Write` is disabled for this session: ABILITY_DENIED by `prod_config_guard`: prod config is read-only"
    );
    assert_eq!(
        runs.load(Ordering::SeqCst),
        1,
        "a disabled tool is refused before any hook"
    );
    assert_eq!(
        session.disabled_tools().map(|(t, _)| t).collect::<Vec<_>>(),
        ["Write"]
    );

    assert!(matches!(
        run(&mut session, "Read", &ran).await,
        ToolRun::Ran(_)
    ));
    let ready = session.turn_ready().unwrap();
    assert!(ready.ready);
    assert_eq!(ready.hook_signals[0].code, "ABILITY_ALLOWED");
    assert_eq!(ran.load(Ordering::SeqCst), 1, "only Read ran");
    assert_eq!(session.stats().denied_tool_calls, 2);
}

#[tokio::test]
async fn ability_denied_with_require_human_goes_to_the_approver_and_disables_nothing() {
    let (runs, ran) = (Arc::new(AtomicU32::new(0)), Arc::new(AtomicU32::new(0)));
    let asked = Arc::new(AtomicU32::new(0));
    let counted = asked.clone();
    let mut approving = Session::start(guard(true, runs.clone()), Meta::new("s1"), "m")
        .await
        .unwrap()
        .with_approver(move |point, reason| {
            counted.fetch_add(1, Ordering::SeqCst);
            point == "pre_tool_use" && reason.contains("prod config is read-only")
        });
    assert!(matches!(
        run(&mut approving, "Write", &ran).await,
        ToolRun::Ran(_)
    ));
    assert_eq!(
        (asked.load(Ordering::SeqCst), ran.load(Ordering::SeqCst)),
        (1, 1)
    );

    // Nobody to ask: refused (fail closed), but not disabled: the next call asks again.
    let mut alone = Session::start(guard(true, runs.clone()), Meta::new("s2"), "m")
        .await
        .unwrap();
    let denied = run(&mut alone, "Write", &ran).await;
    let ToolRun::Denied { reason, .. } = &denied else {
        panic!("{denied:?}")
    };
    assert!(
        reason.starts_with("needs approval: ABILITY_DENIED by `prod_config_guard`"),
        "{reason}"
    );
    assert_eq!(alone.disabled_tools().count(), 0);
    let before = runs.load(Ordering::SeqCst);
    let _ = run(&mut alone, "Write", &ran).await;
    assert_eq!(
        runs.load(Ordering::SeqCst),
        before + 1,
        "the guard ran again"
    );
}

#[tokio::test]
async fn a_verdict_deny_still_wins_and_its_control_message_is_not_ready() {
    let hooks = Hooks::builder()
        .ignore_env()
        .hook(Hook::<pre_tool_use::Point>::new(
            "allow_sig_but_deny",
            |ctx: &mut PreToolUse| {
                ctx.add_signal(HookSignal::ability_allowed("allow_sig_but_deny", "Bash"));
                Verdict::deny("verdict says no")
            },
        ))
        .build()
        .unwrap();
    let mut session = Session::start(hooks, Meta::new("s1"), "m").await.unwrap();
    let ran = Arc::new(AtomicU32::new(0));
    let out = run(&mut session, "Bash", &ran).await;
    assert!(matches!(out, ToolRun::Denied { ref reason, .. } if reason == "verdict says no"));
    assert!(!session.turn_ready().unwrap().ready);
    assert_eq!(
        session.disabled_tools().count(),
        0,
        "a verdict deny disables nothing"
    );
}

/// Non-AI callers run abilities through the same path: the guard sees their source, its
/// signals decide the same way, and a disabled ability stays disabled for the runner.
#[tokio::test]
async fn ability_runners_apply_the_same_guards_with_their_invocation_source() {
    use hookrail_core::context::InvocationSource;
    use hookrail_core::runtime::{AbilityRunner, execute_ability};

    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = seen.clone();
    let hooks = Hooks::builder()
        .ignore_env()
        .hook(Hook::<pre_tool_use::Point>::new(
            "jobs_may_not_write",
            move |ctx: &mut PreToolUse| {
                record.lock().unwrap().push(ctx.meta.source);
                if ctx.meta.source != InvocationSource::AiSession && ctx.tool_name == "Write" {
                    ctx.add_signal(HookSignal::ability_denied(
                        "jobs_may_not_write",
                        "Write",
                        "jobs are read-only",
                        false,
                    ));
                }
                Verdict::Continue
            },
        ))
        .build()
        .unwrap();
    let ok = async |_: &serde_json::Value| Ok(json!("ok"));

    let mut runner = AbilityRunner::new(hooks.clone(), InvocationSource::BackgroundJob);
    assert_eq!(runner.source(), InvocationSource::BackgroundJob);
    assert!(matches!(
        runner.execute(call("Write"), ok).await.unwrap(),
        ToolRun::Denied { .. }
    ));
    let again = runner.execute(call("Write"), ok).await.unwrap();
    assert!(
        matches!(again, ToolRun::Denied { ref reason, .. } if reason.starts_with("`Write` is disabled"))
    );
    assert_eq!(runner.disabled().count(), 1);

    let (run, ready) = execute_ability(&hooks, InvocationSource::CiPipeline, call("Write"), ok)
        .await
        .unwrap();
    assert!(matches!(run, ToolRun::Denied { .. }));
    assert_eq!(ready.hook_signals[0].hook_id, "jobs_may_not_write");
    let (run, _) = execute_ability(&hooks, InvocationSource::ManualCli, call("Read"), ok)
        .await
        .unwrap();
    assert!(matches!(run, ToolRun::Ran(_)));

    let mut agent = Session::start(hooks, Meta::new("s1"), "m").await.unwrap();
    assert!(
        matches!(run_ok(&mut agent).await, ToolRun::Ran(_)),
        "the AI session may write"
    );
    assert_eq!(
        *seen.lock().unwrap(),
        [
            InvocationSource::BackgroundJob,
            InvocationSource::CiPipeline,
            InvocationSource::ManualCli,
            InvocationSource::AiSession
        ],
        "the guard saw each caller's source (the disabled call ran no hook)"
    );
}

async fn run_ok(session: &mut Session) -> ToolRun {
    session
        .tool_call(call("Write"), async |_| Ok(json!("ok")))
        .await
        .unwrap()
}
