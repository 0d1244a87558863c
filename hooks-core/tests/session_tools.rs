//! `Session` in an LLM loop: the provider's tool-use id travels from the model's reply through
//! `pre_tool_use`, the tool, `post_tool_use`, every hook run and the result block sent back;
//! tools fail with a typed error; the model reply carries its tool calls and usage.

use std::sync::{Arc, Mutex};

use hookrail_core::Verdict;
use hookrail_core::context::{
    Content, ContentBlock, Message, Meta, PostModelCall, PostToolUse, PreToolUse, TokenUsage,
    ToolCall, meta_of,
};
use hookrail_core::points::{post_model_call, post_tool_use, pre_tool_use};
use hookrail_core::runtime::{
    Hook, Hooks, HooksBuilder, ModelReply, Session, ToolError, ToolErrorKind, ToolRun,
};
use serde_json::{Value, json};

fn builder() -> HooksBuilder {
    Hooks::builder().ignore_env()
}

/// The `tool_use_id` each tool context had when a hook saw it, by point.
type Seen = Arc<Mutex<Vec<(&'static str, Option<String>)>>>;

fn recording(seen: &Seen) -> HooksBuilder {
    let (pre, post) = (seen.clone(), seen.clone());
    builder()
        .hook(Hook::<pre_tool_use::Point>::new(
            "record_pre",
            move |ctx: &mut PreToolUse| {
                pre.lock()
                    .unwrap()
                    .push(("pre_tool_use", ctx.tool_use_id.clone()));
                if ctx.command() == Some("rm -rf /") {
                    Verdict::deny("destructive")
                } else {
                    Verdict::Continue
                }
            },
        ))
        .hook(Hook::<post_tool_use::Point>::new(
            "record_post",
            move |ctx: &mut PostToolUse| {
                post.lock()
                    .unwrap()
                    .push(("post_tool_use", ctx.tool_use_id.clone()));
                ctx.add_context("checked by record_post");
            },
        ))
}

#[tokio::test]
async fn the_tool_use_id_reaches_both_contexts_every_hook_run_and_the_result_block() {
    let seen = Seen::default();
    let hooks = recording(&seen).build().unwrap();
    // Subscribers (the audit among them) get each hook run with its context.
    let runs: Seen = Seen::default();
    let sink = runs.clone();
    hooks.subscribe(move |run| {
        let id = run
            .context
            .downcast_ref::<PreToolUse>()
            .map(|c| c.tool_use_id.clone())
            .or_else(|| {
                run.context
                    .downcast_ref::<PostToolUse>()
                    .map(|c| c.tool_use_id.clone())
            });
        if let Some(id) = id {
            assert!(meta_of(run.context).is_some());
            sink.lock().unwrap().push((run.point, id));
        }
    });
    let mut session = Session::start(hooks, Meta::new("s1"), "m").await.unwrap();

    let call = ToolCall::new("toolu_01A09q90", "Read", json!({"file_path": "a.rs"}));
    let run = session
        .tool_call(call, async |input| {
            // The closure borrows the input across an await: no clone needed.
            tokio::task::yield_now().await;
            Ok(json!(format!(
                "contents of {}",
                input["file_path"].as_str().unwrap()
            )))
        })
        .await
        .unwrap();
    assert_eq!(run.tool_use_id(), Some("toolu_01A09q90"));
    let ToolRun::Ran(post) = &run else {
        panic!("{run:?}")
    };
    assert_eq!(post.tool_response, json!("contents of a.rs"));
    assert_eq!(
        run.tool_result(),
        Some(ContentBlock::tool_result(
            "toolu_01A09q90",
            vec![
                ContentBlock::text("contents of a.rs"),
                ContentBlock::text("checked by record_post"),
            ]
        ))
    );

    let denied = session
        .tool_call(
            ToolCall::new("toolu_01B", "Bash", json!({"command": "rm -rf /"})),
            async |_| panic!("a denied tool does not run"),
        )
        .await
        .unwrap();
    assert!(
        matches!(&denied, ToolRun::Denied { tool_use_id: Some(id), reason, .. } if id == "toolu_01B" && reason == "destructive")
    );
    assert_eq!(
        denied.tool_result(),
        Some(ContentBlock::tool_error("toolu_01B", "destructive"))
    );

    let expected = vec![
        ("pre_tool_use", Some("toolu_01A09q90".to_owned())),
        ("post_tool_use", Some("toolu_01A09q90".to_owned())),
        ("pre_tool_use", Some("toolu_01B".to_owned())),
    ];
    assert_eq!(*seen.lock().unwrap(), expected);
    assert_eq!(*runs.lock().unwrap(), expected);
}

#[tokio::test]
async fn tool_errors_are_typed_reach_post_tool_use_and_answer_with_is_error() {
    let seen = Seen::default();
    let mut session = Session::start(recording(&seen).build().unwrap(), Meta::new("s1"), "m")
        .await
        .unwrap();
    let run = session
        .tool_call(
            ToolCall::new("call_1", "Read", json!({"file_path": "/nope"})),
            async |input| {
                let path = input["file_path"]
                    .as_str()
                    .ok_or(ToolError::invalid_input("no file_path"))?;
                // `?` turns the I/O error into a ToolError, keeping it as the source.
                Ok(json!(std::fs::read_to_string(path)?))
            },
        )
        .await
        .unwrap();
    let ToolRun::Ran(post) = &run else {
        panic!("{run:?}")
    };
    assert!(post.is_error() && !post.is_interrupt);
    assert!(
        post.error.as_deref().unwrap().contains("No such file"),
        "{:?}",
        post.error
    );
    assert!(
        matches!(run.tool_result(), Some(ContentBlock::ToolResult { is_error: true, ref tool_use_id, .. }) if tool_use_id == "call_1")
    );

    let run = session
        .tool_call(
            ToolCall::new("call_2", "Bash", json!({"command": "sleep 100"})),
            async |_| Err(ToolError::interrupted("stopped by the user")),
        )
        .await
        .unwrap();
    let ToolRun::Ran(post) = run else {
        panic!("ran")
    };
    assert!(post.is_interrupt);
    assert_eq!(post.error.as_deref(), Some("stopped by the user"));
    // Claude Code's field name, written only when true.
    assert_eq!(serde_json::to_value(&*post).unwrap()["is_interrupt"], true);
    assert_eq!(session.stats().tool_calls, 2);

    let e = ToolError::from_error(ToolErrorKind::TimedOut, std::io::Error::other("slow"));
    assert_eq!(
        (e.kind, e.to_string()),
        (ToolErrorKind::TimedOut, "slow".to_owned())
    );
    assert!(std::error::Error::source(&e).is_some());
}

#[tokio::test]
#[allow(deprecated)]
async fn the_deprecated_tool_without_an_id_still_runs_with_a_string_error() {
    let seen = Seen::default();
    let mut session = Session::start(recording(&seen).build().unwrap(), Meta::new("s1"), "m")
        .await
        .unwrap();
    let run = session
        .tool("Bash", json!({"command": "false"}), |_| async {
            Err::<Value, _>("exit code 1".to_owned())
        })
        .await
        .unwrap();
    let ToolRun::Ran(post) = &run else {
        panic!("{run:?}")
    };
    assert_eq!(post.error.as_deref(), Some("exit code 1"));
    assert_eq!(run.tool_use_id(), None);
    assert_eq!(run.tool_result(), None, "no id, nothing to answer");
    assert!(seen.lock().unwrap().iter().all(|(_, id)| id.is_none()));
}

#[tokio::test]
async fn an_empty_id_counts_as_none() {
    let seen = Seen::default();
    let mut session = Session::start(recording(&seen).build().unwrap(), Meta::new("s1"), "m")
        .await
        .unwrap();
    let run = session
        .tool_call(ToolCall::new("", "Read", json!({})), async |_| Ok(json!(1)))
        .await
        .unwrap();
    assert_eq!(run.tool_use_id(), None);
}

#[tokio::test]
async fn a_model_reply_carries_its_tool_calls_and_usage_to_post_model_call() {
    let seen: Arc<Mutex<Vec<ToolCall>>> = Arc::default();
    let sink = seen.clone();
    let hooks = builder()
        .hook(Hook::<post_model_call::Point>::new(
            "see_calls",
            move |ctx: &mut PostModelCall| {
                sink.lock().unwrap().extend(ctx.tool_calls.iter().cloned());
            },
        ))
        .build()
        .unwrap();
    let mut session = Session::start(hooks, Meta::new("s1"), "m").await.unwrap();
    let calls = vec![
        ToolCall::new("toolu_1", "Read", json!({"file_path": "a"})),
        ToolCall::new("toolu_2", "Bash", json!({"command": "ls"})),
    ];
    let reply = ModelReply::new(["Reading ", "both."])
        .with_usage(TokenUsage::new(120, 30))
        .with_stop_reason("tool_use")
        .with_tool_calls(calls.clone());
    let post = session
        .call_model(vec![Message::user("look at a")], |_| {
            std::future::ready(Ok(reply.clone()))
        })
        .await
        .unwrap();
    assert_eq!(post.tool_calls, calls);
    assert_eq!(post.usage, TokenUsage::new(120, 30));
    assert_eq!(post.stop_reason.as_deref(), Some("tool_use"));
    assert_eq!(*seen.lock().unwrap(), calls);
    assert_eq!(session.stats().tokens, TokenUsage::new(120, 30));

    // The assistant turn to append, and the tool results that answer it.
    let message = post.message();
    assert_eq!(message.tool_calls(), calls);
    assert_eq!(message.text(), "Reading both.");
    let mut results = Vec::new();
    for call in post.tool_calls.clone() {
        let run = session
            .tool_call(call, async |input| Ok(input.clone()))
            .await
            .unwrap();
        results.extend(run.tool_result());
    }
    let answer = Message::user(results);
    let Content::Blocks(blocks) = &answer.content else {
        panic!("blocks")
    };
    let ids: Vec<_> = blocks
        .iter()
        .map(|b| match b {
            ContentBlock::ToolResult { tool_use_id, .. } => tool_use_id.as_str(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(ids, ["toolu_1", "toolu_2"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_with_tool_calls_can_run_on_another_task() {
    let mut session = Session::start(builder().build().unwrap(), Meta::new("s1"), "m")
        .await
        .unwrap();
    let task = tokio::spawn(async move {
        let run = session
            .tool_call(ToolCall::new("t", "Read", json!({"n": 1})), async |input| {
                tokio::task::yield_now().await;
                Ok(input["n"].clone())
            })
            .await
            .unwrap();
        run.tool_use_id().map(str::to_owned)
    });
    assert_eq!(task.await.unwrap().as_deref(), Some("t"));
}
