//! A tool call's id, end to end: from a model's `ToolCall` through `Session::tool_call`, and
//! from a Claude Code payload through `hooks claude`'s dispatch (`fire_in`), to the contexts
//! hooks see and the audit trail's records.

use std::path::Path;
use std::sync::{Arc, Mutex};

use hookrail_builtin::audit::{AuditReader, ToolStatus};
use hookrail_builtin::{BuiltinConfig, Builtins};
use hookrail_core::Verdict;
use hookrail_core::context::{Meta, PostToolUse, PreToolUse, ToolCall};
use hookrail_core::points::{post_tool_use, pre_tool_use};
use hookrail_core::runtime::{Hook, Hooks, Session, ToolRun};
use serde_json::{Value, json};

/// The ids the tool contexts had when a hook saw them.
type Seen = Arc<Mutex<Vec<(&'static str, Option<String>)>>>;

/// The command guard and the audit (JSONL at `path`), as `hooks claude` installs them, plus
/// hooks that note the ids they see.
fn pipeline(path: &Path, seen: &Seen) -> (Builtins, Hooks) {
    let config: BuiltinConfig = serde_json::from_value(json!({
        "command_guard": {},
        "audit": { "path": path, "format": "jsonl" },
    }))
    .unwrap();
    let builtins = Builtins::new(config).unwrap();
    let (pre, post) = (seen.clone(), seen.clone());
    let builder = Hooks::builder()
        .ignore_env()
        .hook(
            Hook::<pre_tool_use::Point>::new("note_pre", move |ctx: &mut PreToolUse| {
                pre.lock().unwrap().push(("pre", ctx.tool_use_id.clone()));
                Verdict::Continue
            })
            // Ahead of the guards, which stop the chain when they deny.
            .order(-1000),
        )
        .hook(Hook::<post_tool_use::Point>::new(
            "note_post",
            move |ctx: &mut PostToolUse| {
                post.lock().unwrap().push(("post", ctx.tool_use_id.clone()));
            },
        ));
    let hooks = builtins.install(builder).unwrap();
    (builtins, hooks)
}

fn recorded(builtins: &Builtins, path: &Path, session: &str) -> Vec<(ToolStatus, Option<String>)> {
    builtins.audit().expect("audit is on").close().unwrap();
    AuditReader::open(path)
        .unwrap()
        .tool_calls(session)
        .unwrap()
        .into_iter()
        .map(|r| (r.status, r.tool_use_id))
        .collect()
}

fn id(s: &str) -> Option<String> {
    Some(s.to_owned())
}

#[tokio::test]
async fn a_session_tool_call_id_reaches_the_contexts_and_the_audit() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    let seen = Seen::default();
    let (builtins, hooks) = pipeline(&path, &seen);
    let meta = Meta::new("s-session").with_cwd(dir.path());
    let mut session = Session::start(hooks, meta, "m").await.unwrap();

    let ran = session
        .tool_call(
            ToolCall::new("toolu_01Ran", "Bash", json!({"command": "echo hi"})),
            async |_| Ok(json!("hi")),
        )
        .await
        .unwrap();
    assert!(matches!(ran, ToolRun::Ran(_)));
    let denied = session
        .tool_call(
            ToolCall::new("toolu_02Denied", "Bash", json!({"command": "rm -rf /"})),
            async |_| panic!("the command guard denies this"),
        )
        .await
        .unwrap();
    assert!(matches!(denied, ToolRun::Denied { .. }), "{denied:?}");

    assert_eq!(
        *seen.lock().unwrap(),
        [
            ("pre", id("toolu_01Ran")),
            ("post", id("toolu_01Ran")),
            ("pre", id("toolu_02Denied")),
        ]
    );
    assert_eq!(
        recorded(&builtins, &path, "s-session"),
        [
            (ToolStatus::Ok, id("toolu_01Ran")),
            (ToolStatus::Denied, id("toolu_02Denied")),
        ]
    );
}

fn claude_payload(event: &str, fields: Value) -> Value {
    let mut payload = json!({
        "session_id": "s-claude",
        "transcript_path": "/home/user/.claude/projects/x/transcript.jsonl",
        "cwd": "/home/user/my-project",
        "permission_mode": "default",
        "hook_event_name": event,
    });
    payload
        .as_object_mut()
        .unwrap()
        .extend(fields.as_object().unwrap().clone());
    payload
}

#[tokio::test]
async fn a_claude_code_payloads_tool_use_id_reaches_the_contexts_and_the_audit() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    let seen = Seen::default();
    let (builtins, hooks) = pipeline(&path, &seen);
    let root = dir.path();

    // What `hooks claude` does with each payload it reads.
    let pre = claude_payload(
        "PreToolUse",
        json!({"tool_name": "Bash", "tool_input": {"command": "npm test"}, "tool_use_id": "toolu_01ABC"}),
    );
    let fired = hookrail_config::fire::fire_in(&hooks, "PreToolUse", pre, root)
        .await
        .unwrap();
    assert_eq!(fired.context["tool_use_id"], "toolu_01ABC");
    let post = claude_payload(
        "PostToolUse",
        json!({"tool_name": "Bash", "tool_input": {"command": "npm test"}, "tool_response": {"stdout": "ok"}, "tool_use_id": "toolu_01ABC", "duration_ms": 12}),
    );
    hookrail_config::fire::fire_in(&hooks, "PostToolUse", post, root)
        .await
        .unwrap();
    let failed = claude_payload(
        "PostToolUseFailure",
        json!({"tool_name": "Bash", "tool_input": {"command": "make"}, "tool_use_id": "toolu_02DEF", "error": "interrupted", "is_interrupt": true, "duration_ms": 40}),
    );
    let fired = hookrail_config::fire::fire_in(&hooks, "PostToolUseFailure", failed, root)
        .await
        .unwrap();
    assert_eq!(fired.context["is_interrupt"], true);
    let denied = claude_payload(
        "PreToolUse",
        json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}, "tool_use_id": "toolu_03GHI"}),
    );
    let fired = hookrail_config::fire::fire_in(&hooks, "PreToolUse", denied, root)
        .await
        .unwrap();
    assert!(fired.verdict.as_ref().is_some_and(Verdict::is_deny));

    assert_eq!(
        *seen.lock().unwrap(),
        [
            ("pre", id("toolu_01ABC")),
            ("post", id("toolu_01ABC")),
            ("post", id("toolu_02DEF")),
            ("pre", id("toolu_03GHI")),
        ]
    );
    assert_eq!(
        recorded(&builtins, &path, "s-claude"),
        [
            (ToolStatus::Ok, id("toolu_01ABC")),
            (ToolStatus::Error, id("toolu_02DEF")),
            (ToolStatus::Denied, id("toolu_03GHI")),
        ]
    );
}
