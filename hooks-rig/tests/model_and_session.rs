//! A rig run's model calls through `pre_model_call` / `post_model_call`, and the run itself
//! through `session_start`, `user_prompt_submit` and `session_end`.

mod support;

use std::sync::{Arc, Mutex, PoisonError};

use hookrail_core::Verdict;
use hookrail_core::context::{
    PostModelCall, PreModelCall, Role, SessionEnd, SessionEndReason, SessionStart, UserPromptSubmit,
};
use hookrail_core::points::{
    post_model_call, pre_model_call, session_end, session_start, user_prompt_submit,
};
use hookrail_core::runtime::{Hook, Hooks, HooksBuilder};
use hookrail_rig::RigHooks;
use serde_json::json;
use support::{MockOpenAi, Reply, Shell};

type Seen<T> = Arc<Mutex<Vec<T>>>;

fn take<T: Clone>(seen: &Seen<T>) -> Vec<T> {
    seen.lock().unwrap_or_else(PoisonError::into_inner).clone()
}

fn push<T>(seen: &Seen<T>, value: T) {
    seen.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(value);
}

/// Run `prompt` with the shell tool, guarded by `builder`'s hooks; returns the server and
/// the run's answer (or its error's text).
async fn run(
    script: Vec<Reply>,
    builder: HooksBuilder,
    prompt: &str,
) -> (MockOpenAi, Result<String, String>) {
    let server = MockOpenAi::start(script)
        .await
        .expect("the mock server starts");
    let hooks = builder.build().expect("hooks build");
    let adapter = RigHooks::new(hooks, support::MODEL);
    let agent = server.agent(|b| {
        b.name("tester")
            .tool(Shell::default())
            .add_hook(adapter)
            .build()
    });
    let result = agent
        .prompt(prompt)
        .max_turns(4)
        .await
        .map(|r| r.output().to_owned())
        .map_err(|e| e.to_string());
    (server, result)
}

#[tokio::test]
async fn pre_model_call_sees_the_conversation_and_its_context_reaches_the_model() {
    let calls: Seen<PreModelCall> = Seen::default();
    let seen = calls.clone();
    let builder = Hooks::builder().hook(Hook::<pre_model_call::Point>::new("pre", move |ctx| {
        push(&seen, ctx.clone());
        ctx.add_context("house rule: answer in one line");
        Verdict::Continue
    }));
    let (server, result) = run(
        vec![
            Reply::tool("call_1", "bash", json!({"command": "ls"})),
            Reply::text("done"),
        ],
        builder,
        "list the files",
    )
    .await;
    assert_eq!(result.as_deref(), Ok("done"));
    let calls = take(&calls);
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].model.get(), support::MODEL);
    let first = &calls[0].messages;
    assert!(
        first
            .iter()
            .any(|m| m.role == Role::User && m.text() == "list the files"),
        "{first:?}"
    );
    // The second call carries the tool round trip: the model's call (a `tool_use` block with
    // rig's id) and its result (a `tool_result` block answering that id).
    let second = &calls[1].messages;
    let call = second
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .flat_map(|m| m.tool_calls())
        .find(|c| c.name == "bash")
        .unwrap_or_else(|| panic!("no bash call in {second:?}"));
    assert!(!call.id.is_empty());
    let answered = second.iter().filter(|m| m.role == Role::User).any(|m| {
        m.content.blocks().iter().any(|b| {
            let v = serde_json::to_value(b).unwrap();
            v["type"] == "tool_result"
                && v["tool_use_id"] == call.id.as_str()
                && v["content"]
                    .as_str()
                    .is_some_and(|t| t.contains("(recorded, not run) ls"))
        })
    });
    assert!(answered, "{second:?}");
    for request in server.requests() {
        assert!(
            request
                .to_string()
                .contains("house rule: answer in one line")
        );
    }
}

#[tokio::test]
async fn a_denied_model_call_stops_the_run_before_any_request() {
    let builder = Hooks::builder().hook(Hook::<pre_model_call::Point>::new("budget", |_ctx| {
        Verdict::deny("the session is over budget")
    }));
    let (server, result) = run(vec![Reply::text("never")], builder, "hi").await;
    let error = result.expect_err("the run stops");
    assert!(error.contains("the session is over budget"), "{error}");
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn a_model_switch_to_a_model_the_agent_lacks_fails_the_run_rather_than_call_the_old_one() {
    let builder = Hooks::builder().hook(Hook::<pre_model_call::Point>::new("cheaper", |ctx| {
        ctx.model.set("some-cheaper-model".into());
        Verdict::Continue
    }));
    let (server, result) = run(vec![Reply::text("never")], builder, "hi").await;
    let error = result.expect_err("the run fails");
    assert!(error.contains("some-cheaper-model"), "{error}");
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn a_model_chosen_at_session_start_is_selected_for_the_run() {
    let builder = Hooks::builder().hook(Hook::<session_start::Point>::new(
        "nightly_model",
        |ctx: &mut SessionStart| ctx.model = "nightly-model".into(),
    ));
    let (server, result) = run(vec![Reply::text("never")], builder, "hi").await;
    let error = result.expect_err("the agent has no such model, so the run fails");
    assert!(error.contains("nightly-model"), "{error}");
    assert!(server.requests().is_empty(), "the old model was not called");
}

#[tokio::test]
async fn post_model_call_sees_the_reply_and_its_rewrite_is_the_answer() {
    let replies: Seen<PostModelCall> = Seen::default();
    let seen = replies.clone();
    let builder = Hooks::builder().hook(Hook::<post_model_call::Point>::new(
        "redact",
        move |ctx: &mut PostModelCall| {
            push(&seen, ctx.clone());
            ctx.response = ctx.response.replace("hunter2", "[password]");
        },
    ));
    let (_, result) = run(
        vec![
            Reply::tool("call_1", "bash", json!({"command": "ls"})),
            Reply::text("the password is hunter2"),
        ],
        builder,
        "hi",
    )
    .await;
    assert_eq!(result.as_deref(), Ok("the password is [password]"));
    let replies = take(&replies);
    assert_eq!(replies.len(), 2);
    let names: Vec<&str> = replies[0]
        .tool_calls
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(names, ["bash"]);
    assert!(!replies[0].tool_calls[0].id.is_empty());
    assert_eq!(replies[0].tool_calls[0].input["command"], "ls");
    assert_eq!(replies[0].stop_reason.as_deref(), Some("tool_calls"));
    assert_eq!(replies[1].response, "the password is hunter2");
    assert_eq!(replies[1].stop_reason.as_deref(), Some("stop"));
    assert_eq!((replies[1].usage.input, replies[1].usage.output), (100, 20));
    assert_eq!(replies[1].model, support::MODEL);
}

#[tokio::test]
async fn session_start_and_end_frame_the_run() {
    let starts: Seen<SessionStart> = Seen::default();
    let ends: Seen<SessionEnd> = Seen::default();
    let (seen_start, seen_end) = (starts.clone(), ends.clone());
    let builder = Hooks::builder()
        .hook(Hook::<session_start::Point>::new(
            "decisions",
            move |ctx: &mut SessionStart| {
                push(&seen_start, ctx.clone());
                ctx.add_context("decision: tabs, not spaces");
            },
        ))
        .hook(Hook::<session_end::Point>::new("report", move |ctx| {
            push(&seen_end, ctx.clone());
        }));
    let (server, result) = run(
        vec![
            Reply::tool("call_1", "bash", json!({"command": "ls"})),
            Reply::text("done"),
        ],
        builder,
        "hi",
    )
    .await;
    assert_eq!(result.as_deref(), Ok("done"));
    let (starts, ends) = (take(&starts), take(&ends));
    assert_eq!((starts.len(), ends.len()), (1, 1));
    let (start, end) = (&starts[0], &ends[0]);
    assert!(!start.meta.session_id.is_empty());
    assert_eq!(start.meta.session_id, end.meta.session_id);
    assert_eq!(&*start.meta.agent_name, "tester");
    assert_eq!(start.model, support::MODEL);
    assert!(end.success);
    assert_eq!(end.reason, SessionEndReason::Completed);
    assert_eq!(end.tool_calls, 1);
    assert_eq!((end.tokens.input, end.tokens.output), (200, 40));
    // The session's context goes with every model call of the run.
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    for request in requests {
        assert!(request.to_string().contains("decision: tabs, not spaces"));
    }
}

#[tokio::test]
async fn a_failed_run_ends_its_session_unsuccessfully() {
    let ends: Seen<SessionEnd> = Seen::default();
    let seen = ends.clone();
    let builder = Hooks::builder().hook(Hook::<session_end::Point>::new("report", move |ctx| {
        push(&seen, ctx.clone());
    }));
    // An empty script: the server answers 500.
    let (_, result) = run(Vec::new(), builder, "hi").await;
    assert!(result.is_err());
    let ends = take(&ends);
    assert_eq!(ends.len(), 1);
    assert!(!ends[0].success);
    assert_eq!(ends[0].reason, SessionEndReason::Error);
}

#[tokio::test]
async fn user_prompt_submit_rewrites_or_refuses_the_prompt() {
    let builder = Hooks::builder().hook(Hook::<user_prompt_submit::Point>::new(
        "directive",
        |ctx: &mut UserPromptSubmit| {
            if ctx.prompt.get().contains("drop the database") {
                return Verdict::deny("not in this project");
            }
            let prompt = format!("{} (answer in French)", ctx.prompt.get());
            ctx.prompt.set(prompt);
            Verdict::Continue
        },
    ));
    let (server, result) = run(vec![Reply::text("oui")], builder, "say yes").await;
    assert_eq!(result.as_deref(), Ok("oui"));
    assert!(
        server.requests()[0]
            .to_string()
            .contains("say yes (answer in French)")
    );

    let builder = Hooks::builder().hook(Hook::<user_prompt_submit::Point>::new(
        "directive",
        |ctx: &mut UserPromptSubmit| {
            if ctx.prompt.get().contains("drop the database") {
                Verdict::deny("not in this project")
            } else {
                Verdict::Continue
            }
        },
    ));
    let (server, result) = run(vec![Reply::text("never")], builder, "drop the database").await;
    let error = result.expect_err("the run stops");
    assert!(error.contains("not in this project"), "{error}");
    assert!(server.requests().is_empty());
}
