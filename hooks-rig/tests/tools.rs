//! Tool calls of a real rig agent (against the local mock server) through `pre_tool_use` and
//! `post_tool_use`: deny, rewrite, ask with and without an approver, scrubbing, added context,
//! failing closed.

mod support;

use std::sync::{Arc, Mutex, PoisonError};

use hookrail_builtin::{BuiltinConfig, Builtins};
use hookrail_core::context::{PostToolUse, PreToolUse};
use hookrail_core::points::{post_tool_use, pre_tool_use};
use hookrail_core::runtime::{Hook, Hooks, HooksBuilder};
use hookrail_core::{HookError, OnError, Verdict};
use hookrail_rig::RigHooks;
use serde_json::{Value, json};
use support::{MockOpenAi, ReadFile, Reply, Shell, tool_result};

type Seen<T> = Arc<Mutex<Vec<T>>>;

fn take<T: Clone>(seen: &Seen<T>) -> Vec<T> {
    seen.lock().unwrap_or_else(PoisonError::into_inner).clone()
}

/// A script: one call of `name` with `args` (id `call_1`), then a final answer.
fn one_call(name: &str, args: Value) -> Vec<Reply> {
    vec![Reply::tool("call_1", name, args), Reply::text("done")]
}

/// Run `prompt` on an agent with the shell and file tools, guarded by `adapter`; returns
/// the server, the commands the shell tool got, and the run's result (the answer or the
/// error's text).
async fn run(
    script: Vec<Reply>,
    adapter: RigHooks,
) -> (MockOpenAi, Vec<String>, Result<String, String>) {
    let server = MockOpenAi::start(script)
        .await
        .expect("the mock server starts");
    let shell = Shell::default();
    let agent = server.agent(|b| {
        b.tool(shell.clone())
            .tool(ReadFile)
            .add_hook(adapter)
            .build()
    });
    let result = agent
        .prompt("go")
        .max_turns(4)
        .await
        .map(|r| r.output().to_owned())
        .map_err(|e| e.to_string());
    let ran = take(&shell.ran);
    (server, ran, result)
}

fn builtins(config: Value, builder: HooksBuilder) -> Hooks {
    let config: BuiltinConfig = serde_json::from_value(config).expect("builtin settings");
    Builtins::new(config)
        .expect("builtins build")
        .install(builder)
        .expect("hooks build")
}

fn guard(verdict: Verdict) -> Hooks {
    let hook = Hook::<pre_tool_use::Point>::new("test.guard", move |_ctx| verdict.clone());
    Hooks::builder().hook(hook).build().expect("hooks build")
}

#[tokio::test]
async fn a_denied_call_is_skipped_and_the_model_gets_the_reason() {
    let hooks = builtins(json!({"command_guard": {}}), Hooks::builder());
    let (server, ran, result) = run(
        one_call("bash", json!({"command": "rm -rf /"})),
        RigHooks::new(hooks, support::MODEL),
    )
    .await;
    assert_eq!(result.as_deref(), Ok("done"));
    assert!(ran.is_empty(), "the tool ran {ran:?}");
    let told = tool_result(&server.requests()[1], "call_1").expect("a result for call_1");
    assert!(
        told.contains("pre_tool_use denied by `builtin.command_guard`"),
        "{told}"
    );
}

#[tokio::test]
async fn the_tool_use_id_is_rigs_call_id_at_both_points() {
    let ids: Seen<(String, Option<String>)> = Seen::default();
    let (pre_ids, post_ids) = (ids.clone(), ids.clone());
    let hooks = Hooks::builder()
        .hook(Hook::<pre_tool_use::Point>::new("pre", move |ctx| {
            pre_ids
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(("pre".into(), ctx.tool_use_id.clone()));
            Verdict::Continue
        }))
        .hook(Hook::<post_tool_use::Point>::new("post", move |ctx| {
            post_ids
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(("post".into(), ctx.tool_use_id.clone()));
        }))
        .build()
        .expect("hooks build");
    let (_, ran, result) = run(
        vec![
            Reply::tool("call_77", "bash", json!({"command": "ls"})),
            Reply::text("done"),
        ],
        RigHooks::new(hooks, support::MODEL),
    )
    .await;
    assert_eq!(result.as_deref(), Ok("done"));
    assert_eq!(ran, ["ls"]);
    assert_eq!(
        take(&ids),
        [
            ("pre".to_owned(), Some("call_77".to_owned())),
            ("post".to_owned(), Some("call_77".to_owned()))
        ]
    );
}

#[tokio::test]
async fn a_rewritten_input_is_what_the_tool_runs_and_post_tool_use_keeps_the_original() {
    let posts: Seen<PostToolUse> = Seen::default();
    let seen = posts.clone();
    let hooks = Hooks::builder()
        .hook(Hook::<pre_tool_use::Point>::new(
            "rewrite",
            |ctx: &mut PreToolUse| {
                if ctx.command() == Some("rm -r build") {
                    ctx.tool_input.set(json!({"command": "rm -r ./build"}));
                }
                Verdict::Continue
            },
        ))
        .hook(Hook::<post_tool_use::Point>::new("post", move |ctx| {
            seen.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(ctx.clone());
        }))
        .build()
        .expect("hooks build");
    let (server, ran, result) = run(
        one_call("bash", json!({"command": "rm -r build"})),
        RigHooks::new(hooks, support::MODEL),
    )
    .await;
    assert_eq!(result.as_deref(), Ok("done"));
    assert_eq!(ran, ["rm -r ./build"]);
    let post = take(&posts).pop().expect("post_tool_use fired");
    assert_eq!(post.tool_input, json!({"command": "rm -r ./build"}));
    assert_eq!(
        post.original_tool_input,
        Some(json!({"command": "rm -r build"}))
    );
    assert_eq!(
        post.tool_response,
        json!("(recorded, not run) rm -r ./build")
    );
    let told = tool_result(&server.requests()[1], "call_1").expect("a result for call_1");
    assert!(told.contains("(recorded, not run) rm -r ./build"), "{told}");
}

#[tokio::test]
async fn an_ask_without_an_approver_is_refused() {
    let (server, ran, result) = run(
        one_call("bash", json!({"command": "deploy"})),
        RigHooks::new(guard(Verdict::ask("deploys need a person")), support::MODEL),
    )
    .await;
    assert_eq!(result.as_deref(), Ok("done"));
    assert!(ran.is_empty(), "the tool ran {ran:?}");
    let told = tool_result(&server.requests()[1], "call_1").expect("a result for call_1");
    assert!(
        told.contains("needs approval: deploys need a person"),
        "{told}"
    );
}

#[tokio::test]
async fn an_ask_goes_to_the_approver_which_decides() {
    for approve in [true, false] {
        let asked: Seen<(String, String)> = Seen::default();
        let record = asked.clone();
        let adapter = RigHooks::new(guard(Verdict::ask("deploys need a person")), support::MODEL)
            .with_approver(move |point, reason| {
                record
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push((point.to_owned(), reason.to_owned()));
                approve
            });
        let (server, ran, result) =
            run(one_call("bash", json!({"command": "deploy"})), adapter).await;
        assert_eq!(result.as_deref(), Ok("done"));
        assert_eq!(
            take(&asked),
            [(
                "pre_tool_use".to_owned(),
                "deploys need a person".to_owned()
            )]
        );
        let told = tool_result(&server.requests()[1], "call_1").expect("a result for call_1");
        if approve {
            assert_eq!(ran, ["deploy"]);
            assert!(told.contains("(recorded, not run) deploy"), "{told}");
        } else {
            assert!(ran.is_empty(), "the tool ran {ran:?}");
            assert!(told.contains("needs approval"), "{told}");
        }
    }
}

#[tokio::test]
async fn a_secret_in_tool_output_is_scrubbed_before_the_model_sees_it() {
    let secret = "AKIAIOSFODNN7EXAMPLE";
    let file = std::env::temp_dir().join(format!("hookrail-rig-tools-{}.log", std::process::id()));
    std::fs::write(&file, format!("key={secret}\n")).expect("write the file");
    let hooks = builtins(json!({"pii_scrub": {}}), Hooks::builder());
    let (server, _, result) = run(
        one_call("read_file", json!({"path": file.to_string_lossy()})),
        RigHooks::new(hooks, support::MODEL),
    )
    .await;
    std::fs::remove_file(&file).expect("remove the file");
    assert_eq!(result.as_deref(), Ok("done"));
    let told = tool_result(&server.requests()[1], "call_1").expect("a result for call_1");
    assert!(told.contains("[REDACTED:aws_access_key]"), "{told}");
    assert!(!server.requests()[1].to_string().contains(secret));
}

#[tokio::test]
async fn context_added_around_a_call_follows_its_result() {
    let hooks = Hooks::builder()
        .hook(Hook::<pre_tool_use::Point>::new(
            "pre",
            |ctx: &mut PreToolUse| {
                ctx.add_context("note from pre_tool_use");
                Verdict::Continue
            },
        ))
        .hook(Hook::<post_tool_use::Point>::new(
            "post",
            |ctx: &mut PostToolUse| {
                ctx.add_context("note from post_tool_use");
            },
        ))
        .build()
        .expect("hooks build");
    let (server, _, result) = run(
        one_call("bash", json!({"command": "ls"})),
        RigHooks::new(hooks, support::MODEL),
    )
    .await;
    assert_eq!(result.as_deref(), Ok("done"));
    let told = tool_result(&server.requests()[1], "call_1").expect("a result for call_1");
    let (output, pre, post) = (
        told.find("(recorded, not run) ls").expect("the output"),
        told.find("note from pre_tool_use").expect("the pre note"),
        told.find("note from post_tool_use").expect("the post note"),
    );
    assert!(output < pre && pre < post, "{told}");
}

#[tokio::test]
async fn a_post_tool_use_hook_failing_closed_stops_the_run_before_the_model_sees_the_output() {
    let hooks = Hooks::builder()
        .hook(
            Hook::<post_tool_use::Point>::new("scrubber", |_ctx: &mut PostToolUse| {
                Err::<(), _>(HookError::new("the pattern file is missing"))
            })
            .on_error(OnError::Deny),
        )
        .build()
        .expect("hooks build");
    let (server, ran, result) = run(
        one_call("bash", json!({"command": "cat notes"})),
        RigHooks::new(hooks, support::MODEL),
    )
    .await;
    assert_eq!(ran, ["cat notes"]);
    let error = result.expect_err("the run stops");
    assert!(error.contains("fail closed"), "{error}");
    assert_eq!(
        server.requests().len(),
        1,
        "the output went back to the model"
    );
}

#[tokio::test]
async fn a_failed_tool_reports_its_error_and_the_rewritten_error_is_what_the_model_sees() {
    let errors: Seen<Option<String>> = Seen::default();
    let seen = errors.clone();
    let hooks = Hooks::builder()
        .hook(Hook::<post_tool_use::Point>::new(
            "explain",
            move |ctx: &mut PostToolUse| {
                seen.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(ctx.error.clone());
                if ctx.is_error() {
                    ctx.error = Some("the file is not there; ask the user for its path".into());
                }
            },
        ))
        .build()
        .expect("hooks build");
    let (server, _, result) = run(
        one_call("read_file", json!({"path": "/no/such/dir/notes.txt"})),
        RigHooks::new(hooks, support::MODEL),
    )
    .await;
    assert_eq!(result.as_deref(), Ok("done"));
    let errors = take(&errors);
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0].is_some(),
        "post_tool_use saw no error: {errors:?}"
    );
    let told = tool_result(&server.requests()[1], "call_1").expect("a result for call_1");
    assert!(told.contains("ask the user for its path"), "{told}");
}

#[tokio::test]
async fn a_suppressed_output_is_withheld_from_the_model_and_the_call_still_answered() {
    let file =
        std::env::temp_dir().join(format!("hookrail-rig-suppress-{}.env", std::process::id()));
    std::fs::write(&file, "API_KEY=do-not-show\n").expect("write the file");
    let hooks = Hooks::builder()
        .hook(Hook::<post_tool_use::Point>::new(
            "withhold_env",
            |ctx: &mut PostToolUse| {
                if ctx.tool_input["path"]
                    .as_str()
                    .is_some_and(|p| p.ends_with(".env"))
                {
                    ctx.suppress_output();
                    ctx.add_context("the file exists; its content is withheld");
                }
            },
        ))
        .build()
        .expect("hooks build");
    let (server, _, result) = run(
        one_call("read_file", json!({"path": file.to_string_lossy()})),
        RigHooks::new(hooks, support::MODEL),
    )
    .await;
    std::fs::remove_file(&file).expect("remove the file");
    assert_eq!(result.as_deref(), Ok("done"));
    let told = tool_result(&server.requests()[1], "call_1").expect("a result for call_1");
    assert!(
        told.contains(hookrail_core::context::SUPPRESSED_OUTPUT),
        "{told}"
    );
    assert!(told.contains("its content is withheld"), "{told}");
    assert!(!server.requests()[1].to_string().contains("do-not-show"));
}
