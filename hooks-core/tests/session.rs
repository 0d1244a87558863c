//! `Session`: every point fires from the agent loop with a filled context, counters reach
//! `session_end` and `subagent_stop`, denials stop work, and `error_occurred`'s recovery is
//! honoured.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hookrail_core::context::{
    CompactTrigger, ErrorKind, Message, Meta, PostToolUse, PreModelCall, PreToolUse, Role,
    SessionEnd, SessionEndReason, StepStatus, Stop, SubagentStatus, SubagentStop, TokenUsage,
    ToolCall,
};
use hookrail_core::points::{
    error_occurred, post_tool_use, pre_model_call, pre_tool_use, session_end, stop, subagent_stop,
};
use hookrail_core::runtime::{
    AgentError, Hook, Hooks, HooksBuilder, ModelReply, Session, SessionError, ToolError, ToolRun,
    TurnEnd,
};
use hookrail_core::{Recovery, Verdict};
use serde_json::json;

fn builder() -> HooksBuilder {
    Hooks::builder().ignore_env()
}

fn reply(text: &[&str], input: u64, output: u64) -> ModelReply {
    ModelReply::new(text.iter().copied())
        .with_usage(TokenUsage::new(input, output))
        .with_stop_reason("end_turn")
}

fn bash_call(command: &str) -> ToolCall {
    ToolCall::new("toolu_b", "Bash", json!({ "command": command }))
}

fn user(text: &str) -> Vec<Message> {
    vec![Message::new(Role::User, text)]
}

#[tokio::test]
async fn a_session_fires_every_standard_point_and_aggregates_its_counters() {
    let hooks = builder().build().unwrap();
    let fired: Arc<Mutex<BTreeMap<&'static str, u32>>> = Arc::default();
    let sink = fired.clone();
    // One counting hook per point: a dispatch runs it once, so it counts the point's firings.
    macro_rules! count {
        ($($p:ident),*) => {$(
            let counter = sink.clone();
            hooks
                .register(Hook::<hookrail_core::points::$p::Point>::new(
                    concat!("count_", stringify!($p)),
                    move |_| -> hookrail_core::runtime::Ret<hookrail_core::points::$p::Point> {
                        *counter.lock().unwrap().entry(stringify!($p)).or_default() += 1;
                        Default::default()
                    },
                ))
                .unwrap();
        )*};
    }
    count!(
        session_start,
        session_end,
        user_prompt_submit,
        pre_model_call,
        model_stream_chunk,
        post_model_call,
        pre_tool_use,
        post_tool_use,
        step_end,
        stop,
        pre_compact,
        subagent_start,
        subagent_stop,
        error_occurred,
        notification,
        pre_queue_drain,
        post_queue_drain
    );
    let ends: Arc<Mutex<Vec<SessionEnd>>> = Arc::default();
    let e = ends.clone();
    hooks
        .register(Hook::<session_end::Point>::new("keep_end", move |ctx| {
            e.lock().unwrap().push(ctx.clone());
        }))
        .unwrap();
    let stops: Arc<Mutex<Vec<SubagentStop>>> = Arc::default();
    let s = stops.clone();
    hooks
        .register(Hook::<subagent_stop::Point>::new("keep_stop", move |ctx| {
            s.lock().unwrap().push(ctx.clone());
        }))
        .unwrap();

    // Every run's context carries the session's shared fields (`meta_of` covers every point).
    let without_meta: Arc<Mutex<Vec<&'static str>>> = Arc::default();
    let w = without_meta.clone();
    hooks.subscribe(move |run| {
        if hookrail_core::context::meta_of(run.context).is_none() {
            w.lock().unwrap().push(run.point);
        }
    });
    // Every dispatch is published on the bus, in order.
    let mut events = hooks
        .bus()
        .subscribe_with_capacity(hookrail_core::bus::Filter::all(), 4096);

    let mut session = Session::start(hooks, Meta::new("s1").with_agent("lead"), "big-model")
        .await
        .unwrap();
    let prompt = session.submit_prompt("write notes.md").await.unwrap();
    assert_eq!(prompt.meta.turn, 1);
    let post = session
        .call_model(user("write notes.md"), |_| async {
            Ok(reply(&["I will ", "write it"], 100, 20))
        })
        .await
        .unwrap();
    assert_eq!(post.response, "I will write it");
    let run = session
        .tool_call(
            ToolCall::new(
                "toolu_w",
                "Write",
                json!({"file_path": "notes.md", "content": "x"}),
            ),
            async |_| Ok(json!({"ok": true})),
        )
        .await
        .unwrap();
    assert!(matches!(run, ToolRun::Ran(ref p) if p.tool_response == json!({"ok": true})));
    let step = session.step_end("step-1", StepStatus::Completed).await;
    assert_eq!((step.tool_calls, step.tokens.input), (1, 100));

    let mut sub = session
        .start_subagent("researcher", "find facts")
        .await
        .unwrap();
    sub.session
        .call_model(user("facts"), |_| async { Ok(reply(&["facts"], 10, 5)) })
        .await
        .unwrap();
    sub.session
        .tool_call(
            ToolCall::new("toolu_e", "Edit", json!({"file_path": "facts.md"})),
            async |_| Ok(json!("edited")),
        )
        .await
        .unwrap();
    let stop_ctx = session
        .finish_subagent(sub, SubagentStatus::Completed, Some("done".into()))
        .await;
    assert_eq!(stop_ctx.tokens, TokenUsage::new(10, 5));
    assert_eq!(stop_ctx.tool_calls, 1);
    assert_eq!(stop_ctx.files_modified, ["facts.md"]);

    session
        .compact(CompactTrigger::Auto, 9000, 10000)
        .await
        .unwrap();
    let drain = session.start_queue_drain("inbox", 2).await;
    let post_drain = session.finish_queue_drain(drain, 2).await;
    assert_eq!(
        (post_drain.queue.as_str(), post_drain.drained),
        ("inbox", 2)
    );
    session.notify("idle", "waiting for input").await;
    let recovery = session
        .error(&AgentError::new(ErrorKind::Network, "flaky"), 1)
        .await;
    assert_eq!(recovery, None);
    assert_eq!(
        session.request_stop(Some("all done".into())).await,
        TurnEnd::Stop
    );
    let end = session.end(SessionEndReason::Completed, true).await;

    let fired = fired.lock().unwrap();
    // Every standard point but the three whose moment is the agent's own (permission_request,
    // post_tool_batch, pre_model_switch: `Session` has no such moment).
    assert_eq!(fired.len(), 17, "every point a session fires: {fired:?}");
    assert_eq!(fired["model_stream_chunk"], 3, "two chunks, then one");
    assert_eq!(
        end.tokens,
        TokenUsage::new(110, 25),
        "subagent tokens included"
    );
    assert_eq!(end.tool_calls, 2);
    assert_eq!(end.files_modified, ["facts.md", "notes.md"]);
    assert_eq!(
        ends.lock().unwrap()[0].tool_calls,
        2,
        "hooks saw the aggregated counters"
    );
    assert_eq!(stops.lock().unwrap()[0].subagent_name, "researcher");

    let published: Vec<_> = std::iter::from_fn(|| events.try_recv()).collect();
    let mut by_point: BTreeMap<&'static str, u32> = BTreeMap::new();
    for e in &published {
        assert!(e.is_point());
        *by_point.entry(e.name()).or_default() += 1;
    }
    assert_eq!(by_point, *fired, "one event per dispatch of every point");
    assert!(
        published.windows(2).all(|w| w[0].seq() < w[1].seq()),
        "published in dispatch order"
    );
    assert_eq!(events.dropped(), 0);
    assert!(without_meta.lock().unwrap().is_empty(), "{without_meta:?}");
    let last = published.last().unwrap();
    let end_event = last.payload::<session_end::Point>().unwrap();
    assert_eq!(
        end_event.context.tool_calls, 2,
        "the context as the hooks left it"
    );
}

#[tokio::test]
async fn a_denied_tool_does_not_run_and_an_ask_needs_an_approver() {
    let hooks = builder()
        .hook(Hook::<pre_tool_use::Point>::new(
            "policy",
            |ctx: &mut PreToolUse| match ctx.command() {
                Some(c) if c.contains("rm -rf") => Verdict::deny("destructive"),
                Some(c) if c.starts_with("git push") => Verdict::ask("pushing"),
                _ => Verdict::Continue,
            },
        ))
        .build()
        .unwrap();
    let ran = Arc::new(AtomicU32::new(0));
    let bash = |ran: Arc<AtomicU32>| {
        move |_: &serde_json::Value| async move {
            ran.fetch_add(1, Ordering::SeqCst);
            Ok::<_, ToolError>(json!("ok"))
        }
    };

    let mut session = Session::start(hooks.clone(), Meta::new("s"), "m")
        .await
        .unwrap();
    let run = session
        .tool_call(bash_call("rm -rf /"), bash(ran.clone()))
        .await
        .unwrap();
    assert!(
        matches!(run, ToolRun::Denied { ref reason, failure: false, .. } if reason == "destructive")
    );
    let run = session
        .tool_call(bash_call("git push"), bash(ran.clone()))
        .await
        .unwrap();
    assert!(
        matches!(run, ToolRun::Denied { ref reason, .. } if reason == "needs approval: pushing")
    );
    assert_eq!(ran.load(Ordering::SeqCst), 0, "nothing ran");
    assert_eq!(session.stats().denied_tool_calls, 2);

    let mut approving = Session::start(hooks, Meta::new("s2"), "m")
        .await
        .unwrap()
        .with_approver(|point, reason| point == "pre_tool_use" && reason == "pushing");
    let run = approving
        .tool_call(bash_call("git push"), bash(ran.clone()))
        .await
        .unwrap();
    assert!(matches!(run, ToolRun::Ran(_)));
    assert_eq!(ran.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn guards_rewrite_the_tool_input_and_post_tool_use_sees_both() {
    let hooks = builder()
        .hook(Hook::<pre_tool_use::Point>::new(
            "force_dry_run",
            |ctx: &mut PreToolUse| {
                ctx.tool_input.set(json!({"command": "make -n"}));
                Verdict::Continue
            },
        ))
        .hook(Hook::<post_tool_use::Point>::new(
            "scrub",
            |ctx: &mut PostToolUse| {
                ctx.tool_response = json!("[scrubbed]");
            },
        ))
        .build()
        .unwrap();
    let mut session = Session::start(hooks, Meta::new("s"), "m").await.unwrap();
    let run = session
        .tool_call(
            ToolCall::new("toolu_m", "Bash", json!({"command": "make"})),
            async |input| Ok(json!({"ran": input})),
        )
        .await
        .unwrap();
    let ToolRun::Ran(post) = run else {
        panic!("ran")
    };
    assert_eq!(post.tool_input, json!({"command": "make -n"}));
    assert_eq!(post.original_tool_input, Some(json!({"command": "make"})));
    assert_eq!(post.tool_response, json!("[scrubbed]"));
}

fn failing_model(
    failures: u32,
    calls: Arc<Mutex<Vec<String>>>,
) -> impl FnMut(&PreModelCall) -> std::future::Ready<Result<ModelReply, AgentError>> {
    let mut left = failures;
    move |pre| {
        calls.lock().unwrap().push(pre.model.get().clone());
        std::future::ready(if left > 0 {
            left -= 1;
            Err(AgentError::new(ErrorKind::RateLimit, "429").with_status(429))
        } else {
            Ok(reply(&["ok"], 1, 1))
        })
    }
}

#[tokio::test(start_paused = true)]
async fn error_occurred_recovery_retries_after_its_backoff() {
    let hooks = builder()
        .hook(Hook::<error_occurred::Point>::new(
            "retry_rate_limits",
            |ctx| (ctx.status_code == Some(429)).then_some(Recovery::retry(Duration::from_secs(3))),
        ))
        .build()
        .unwrap();
    let calls = Arc::new(Mutex::new(Vec::new()));
    let mut session = Session::start(hooks, Meta::new("s"), "m").await.unwrap();
    let started = tokio::time::Instant::now();
    let post = session
        .call_model(user("hi"), failing_model(2, calls.clone()))
        .await
        .unwrap();
    assert_eq!(post.response, "ok");
    assert_eq!(calls.lock().unwrap().len(), 3);
    assert!(
        started.elapsed() >= Duration::from_secs(6),
        "two backoffs waited"
    );
    assert_eq!(session.stats().errors, 2);

    // Attempts are bounded: a model that always fails ends in an error.
    let err = session
        .call_model(user("hi"), failing_model(100, calls.clone()))
        .await
        .unwrap_err();
    assert!(
        matches!(err, SessionError::Model { attempts: 4, .. }),
        "{err}"
    );
}

#[tokio::test(start_paused = true)]
async fn error_occurred_fallback_switches_the_model_and_give_up_is_final() {
    let hooks = builder()
        .hook(Hook::<error_occurred::Point>::new("fallback", |ctx| {
            Some(if ctx.attempt == 1 {
                Recovery::fallback("small-model", Duration::ZERO)
            } else {
                Recovery::GiveUp {
                    reason: "still failing".into(),
                }
            })
        }))
        .build()
        .unwrap();
    let calls = Arc::new(Mutex::new(Vec::new()));
    let mut session = Session::start(hooks, Meta::new("s"), "big-model")
        .await
        .unwrap();
    session
        .call_model(user("hi"), failing_model(1, calls.clone()))
        .await
        .unwrap();
    assert_eq!(*calls.lock().unwrap(), ["big-model", "small-model"]);
    assert_eq!(session.model(), "small-model");

    let err = session
        .call_model(user("hi"), failing_model(2, calls.clone()))
        .await
        .unwrap_err();
    assert!(matches!(err, SessionError::GaveUp { ref reason, .. } if reason == "still failing"));
}

#[tokio::test]
async fn a_pre_model_call_guard_can_deny_and_a_stop_guard_can_keep_the_agent_working() {
    let hooks = builder()
        .hook(Hook::<pre_model_call::Point>::new(
            "budget",
            |ctx: &mut PreModelCall| {
                if ctx.model.get() == "expensive" {
                    Verdict::deny("over budget")
                } else {
                    Verdict::Continue
                }
            },
        ))
        .hook(Hook::<stop::Point>::new("tests_first", |ctx: &mut Stop| {
            if ctx.consecutive_blocks == 0 {
                Verdict::deny("run the tests first")
            } else {
                Verdict::Continue
            }
        }))
        .build()
        .unwrap();
    let mut session = Session::start(hooks, Meta::new("s"), "expensive")
        .await
        .unwrap();
    let err = session
        .call_model(user("hi"), |_| async { Ok(reply(&["never"], 1, 1)) })
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            SessionError::Denied {
                point: "pre_model_call",
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(
        session.request_stop(None).await,
        TurnEnd::KeepWorking {
            reason: "run the tests first".into()
        }
    );
    assert_eq!(session.request_stop(None).await, TurnEnd::Stop);
}

#[tokio::test]
async fn a_stop_guard_that_always_blocks_cannot_keep_the_agent_busy_forever() {
    let hooks = builder()
        .hook(Hook::<stop::Point>::new("never_done", |_: &mut Stop| {
            Verdict::deny("keep going")
        }))
        .build()
        .unwrap();
    let mut session = Session::start(hooks, Meta::new("s"), "m")
        .await
        .unwrap()
        .with_max_stop_blocks(3);
    for _ in 0..3 {
        let end = session.request_stop(None).await;
        assert!(matches!(end, TurnEnd::KeepWorking { .. }));
    }
    assert_eq!(session.request_stop(None).await, TurnEnd::Stop);
}
