//! The outputs of seed 000's hooks that a `Session` hands back or acts on: a recovery's
//! modified prompt, a suppressed tool output, a model chosen at `session_start`, and the
//! directives captured at `user_prompt_submit`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use hookrail_core::context::{
    ContentBlock, ErrorKind, ErrorOccurred, Message, Meta, PostToolUse, PreModelCall,
    SUPPRESSED_OUTPUT, SessionStart, TokenUsage, ToolCall, UserPromptSubmit,
};
use hookrail_core::points::{
    error_occurred, post_tool_use, pre_model_call, session_start, user_prompt_submit,
};
use hookrail_core::runtime::{
    AgentError, Hook, Hooks, HooksBuilder, ModelReply, Session, ToolError, ToolRun,
};
use hookrail_core::{Recovery, Verdict};
use serde_json::json;

fn builder() -> HooksBuilder {
    Hooks::builder().ignore_env()
}

/// A model that fails with `kind` until it has been called `failures` times, and records the
/// model and the last user text of every call.
fn flaky_model(
    failures: u32,
    kind: ErrorKind,
    seen: Arc<Mutex<Vec<(String, String)>>>,
) -> impl FnMut(&PreModelCall) -> std::future::Ready<Result<ModelReply, AgentError>> {
    let mut left = failures;
    move |pre| {
        let prompt = pre.messages.last().map(|m| m.text().into_owned());
        seen.lock()
            .unwrap()
            .push((pre.model.get().clone(), prompt.unwrap_or_default()));
        std::future::ready(if left > 0 {
            left -= 1;
            Err(AgentError::new(kind, "prompt is too long"))
        } else {
            Ok(ModelReply::new(["ok"]).with_usage(TokenUsage::new(1, 1)))
        })
    }
}

#[tokio::test(start_paused = true)]
async fn an_error_occurred_recovery_with_a_modified_prompt_is_what_the_retry_sends() {
    let reported: Arc<Mutex<Vec<Option<String>>>> = Arc::default();
    let r = reported.clone();
    let hooks = builder()
        .hook(Hook::<error_occurred::Point>::new(
            "shorten_on_overflow",
            move |ctx: &ErrorOccurred| {
                r.lock().unwrap().push(ctx.prompt.clone());
                match (ctx.kind, ctx.attempt) {
                    (ErrorKind::ContextOverflow, 1) => Some(
                        Recovery::retry(Duration::from_millis(50))
                            .with_prompt("the short question"),
                    ),
                    (ErrorKind::ContextOverflow, _) => Some(
                        Recovery::fallback("big-context-model", Duration::ZERO)
                            .with_prompt("the shortest"),
                    ),
                    _ => None,
                }
            },
        ))
        .build()
        .unwrap();
    let mut session = Session::start(hooks, Meta::new("s1"), "m").await.unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let conversation = vec![
        Message::user("an earlier question"),
        Message::assistant("an answer"),
        Message::user("a very long question"),
    ];
    let post = session
        .call_model(
            conversation,
            flaky_model(2, ErrorKind::ContextOverflow, seen.clone()),
        )
        .await
        .unwrap();
    assert_eq!(post.response, "ok");
    assert_eq!(
        *seen.lock().unwrap(),
        [
            ("m".to_owned(), "a very long question".to_owned()),
            ("m".to_owned(), "the short question".to_owned()),
            ("big-context-model".to_owned(), "the shortest".to_owned()),
        ],
        "each retry sent the prompt its recovery chose"
    );
    assert_eq!(
        *reported.lock().unwrap(),
        [
            Some("a very long question".to_owned()),
            Some("the short question".to_owned())
        ],
        "error_occurred saw the prompt of the call that failed"
    );
    assert_eq!(session.model(), "big-context-model");

    // A retry without a prompt sends the conversation unchanged.
    let hooks = builder()
        .hook(Hook::<error_occurred::Point>::new(
            "retry",
            |_: &ErrorOccurred| Some(Recovery::retry(Duration::ZERO)),
        ))
        .build()
        .unwrap();
    let mut session = Session::start(hooks, Meta::new("s2"), "m").await.unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    session
        .call_model(
            vec![Message::user("as is")],
            flaky_model(1, ErrorKind::Network, seen.clone()),
        )
        .await
        .unwrap();
    let prompts: Vec<String> = seen.lock().unwrap().iter().map(|s| s.1.clone()).collect();
    assert_eq!(prompts, ["as is", "as is"]);
}

#[tokio::test]
async fn a_post_tool_use_hook_can_keep_the_output_from_the_model_and_the_caller_still_gets_it() {
    let hooks = builder()
        .hook(Hook::<post_tool_use::Point>::new(
            "withhold_env_reads",
            |ctx: &mut PostToolUse| {
                if ctx.tool_input["file_path"] == ".env" {
                    ctx.suppress_output();
                    ctx.add_context("The file exists; its content is not shown.");
                }
            },
        ))
        .build()
        .unwrap();
    let mut session = Session::start(hooks, Meta::new("s1"), "m").await.unwrap();
    let read =
        |path: &str| ToolCall::new(format!("toolu_{path}"), "Read", json!({"file_path": path}));

    let run = session
        .tool_call(read(".env"), async |_| Ok(json!("API_KEY=abc123")))
        .await
        .unwrap();
    assert!(run.output_suppressed());
    let ToolRun::Ran(post) = &run else {
        panic!("not denied: {run:?}")
    };
    assert_eq!(
        post.tool_response,
        json!("API_KEY=abc123"),
        "kept for the caller"
    );
    let answer = serde_json::to_value(run.tool_result().unwrap()).unwrap();
    assert_eq!(answer["tool_use_id"], "toolu_.env");
    assert_eq!(answer["content"][0]["text"], SUPPRESSED_OUTPUT);
    assert_eq!(
        answer["content"][1]["text"],
        "The file exists; its content is not shown."
    );
    assert!(!answer.to_string().contains("abc123"), "{answer}");

    // A failure's message is withheld too, and the answer still says it failed.
    let failed = session
        .tool_call(read(".env"), async |_| {
            Err(ToolError::new("permission denied reading API_KEY=abc123"))
        })
        .await
        .unwrap();
    assert_eq!(
        failed.tool_result().unwrap(),
        ContentBlock::tool_error("toolu_.env", SUPPRESSED_OUTPUT)
    );

    // Other calls are answered with their output.
    let other = session
        .tool_call(read("README.md"), async |_| Ok(json!("# hello")))
        .await
        .unwrap();
    assert!(!other.output_suppressed());
    assert_eq!(
        other.tool_result().unwrap(),
        ContentBlock::tool_result("toolu_README.md", "# hello")
    );
}

#[tokio::test]
async fn a_session_start_hook_changes_the_model_of_later_calls_and_subagents() {
    let called: Arc<Mutex<Vec<String>>> = Arc::default();
    let c = called.clone();
    let hooks = builder()
        .hook(Hook::<session_start::Point>::new(
            "ci_runs_small",
            |ctx: &mut SessionStart| {
                if ctx.meta.session_id.starts_with("ci-") {
                    ctx.model = "claude-haiku-4.5".into();
                }
            },
        ))
        .hook(Hook::<pre_model_call::Point>::new(
            "record",
            move |ctx: &mut PreModelCall| {
                c.lock().unwrap().push(ctx.model.get().clone());
                Verdict::Continue
            },
        ))
        .build()
        .unwrap();
    let mut session = Session::start(hooks.clone(), Meta::new("ci-1"), "claude-sonnet-4")
        .await
        .unwrap();
    assert_eq!(session.model(), "claude-haiku-4.5");
    session
        .call_model(vec![Message::user("hi")], |_| async {
            Ok(ModelReply::new(["hello"]))
        })
        .await
        .unwrap();
    let mut sub = session.start_subagent("reviewer", "review").await.unwrap();
    assert_eq!(sub.start.model.get(), "claude-haiku-4.5");
    sub.session
        .call_model(vec![Message::user("review")], |_| async {
            Ok(ModelReply::new(["fine"]))
        })
        .await
        .unwrap();
    assert_eq!(*called.lock().unwrap(), ["claude-haiku-4.5"; 2]);

    let other = Session::start(hooks, Meta::new("dev-1"), "claude-sonnet-4")
        .await
        .unwrap();
    assert_eq!(other.model(), "claude-sonnet-4", "the hook left it alone");

    // A hook that empties the model does not leave the session without one.
    let blank = builder()
        .hook(Hook::<session_start::Point>::new(
            "blank",
            |ctx: &mut SessionStart| ctx.model.clear(),
        ))
        .build()
        .unwrap();
    let session = Session::start(blank, Meta::new("s"), "m1").await.unwrap();
    assert_eq!(session.model(), "m1");
}

#[tokio::test]
async fn submit_prompt_returns_the_captured_directives_with_the_rewritten_prompt_and_context() {
    let hooks = builder()
        .hook(Hook::<user_prompt_submit::Point>::new(
            "capture_directives",
            |ctx: &mut UserPromptSubmit| {
                let prompt = ctx.prompt.get().clone();
                for sentence in prompt.split(". ") {
                    if sentence.starts_with("Always ") || sentence.starts_with("Never ") {
                        ctx.add_directive(sentence.trim_end_matches('.'));
                    }
                }
                Verdict::Continue
            },
        ))
        .hook(Hook::<user_prompt_submit::Point>::new(
            "decisions",
            |ctx: &mut UserPromptSubmit| {
                let n = ctx.directives.len();
                ctx.add_context(format!("{n} standing directive(s) recorded."));
                ctx.prompt.set("Fix the flaky test.".into());
                Verdict::Continue
            },
        ))
        .build()
        .unwrap();
    let mut session = Session::start(hooks, Meta::new("s1"), "m").await.unwrap();
    let submitted = session
        .submit_prompt("Fix the flaky test. Never push to main. Always run clippy.")
        .await
        .unwrap();
    assert_eq!(
        submitted.directives,
        ["Never push to main", "Always run clippy"],
        "in hook order, for the caller to keep"
    );
    assert_eq!(submitted.prompt.get(), "Fix the flaky test.");
    assert_eq!(
        submitted.prompt.original(),
        "Fix the flaky test. Never push to main. Always run clippy."
    );
    assert_eq!(
        submitted.additional_context,
        ["2 standing directive(s) recorded."]
    );

    let plain = session.submit_prompt("thanks").await.unwrap();
    assert!(plain.directives.is_empty(), "directives are per prompt");
    assert_eq!(plain.meta.turn, 2);
}
