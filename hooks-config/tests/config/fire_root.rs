//! `fire_in`: the project root comes from the caller, not from the payload's `cwd`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use hookrail_config::fire::{fire, fire_in};
use hookrail_core::context::meta_of;
use hookrail_core::runtime::{Hook, Hooks, Ret};
use serde_json::{Value, json};

/// A Claude Code payload of `event` whose `cwd` is `/usr`, with `fields`.
fn payload(event: &str, fields: Value) -> Value {
    let mut v = json!({
        "session_id": "abc123",
        "cwd": "/usr",
        "hook_event_name": event,
    });
    v.as_object_mut()
        .unwrap()
        .extend(fields.as_object().unwrap().clone());
    v
}

fn payloads() -> Vec<(&'static str, Value)> {
    vec![
        (
            "PreToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": "rm -rf lib"}}),
        ),
        (
            "PostToolUse",
            json!({"tool_name": "Write", "tool_input": {"file_path": "x"}, "tool_response": {}}),
        ),
        ("UserPromptSubmit", json!({"prompt": "hi"})),
        ("Stop", json!({"stop_hook_active": false})),
        (
            "SubagentStart",
            json!({"agent_id": "a1", "agent_type": "reviewer"}),
        ),
        (
            "SubagentStop",
            json!({"stop_hook_active": false, "agent_id": "a1", "agent_type": "reviewer"}),
        ),
        ("SessionStart", json!({"source": "startup"})),
        ("SessionEnd", json!({"reason": "other"})),
        ("PreCompact", json!({"trigger": "manual"})),
        (
            "Notification",
            json!({"message": "m", "notification_type": "idle_prompt"}),
        ),
    ]
    .into_iter()
    .map(|(event, fields)| (event, payload(event, fields)))
    .collect()
}

/// What each point's run saw: (project root, cwd).
type Seen = Arc<Mutex<BTreeMap<&'static str, (PathBuf, PathBuf)>>>;

/// Hooks at every point these payloads fire, and what each run saw.
fn recording() -> (Hooks, Seen) {
    let hooks = Hooks::builder().ignore_env().build().unwrap();
    macro_rules! noop {
        ($($p:ident),*) => {$(
            hooks
                .register(Hook::<hookrail_core::points::$p::Point>::new(
                    concat!("noop_", stringify!($p)),
                    |_| -> Ret<hookrail_core::points::$p::Point> { Default::default() },
                ))
                .unwrap();
        )*};
    }
    noop!(
        pre_tool_use,
        post_tool_use,
        user_prompt_submit,
        stop,
        subagent_start,
        subagent_stop,
        session_start,
        session_end,
        pre_compact,
        notification
    );
    let seen: Seen = Arc::default();
    let sink = seen.clone();
    hooks.subscribe(move |run| {
        let meta = meta_of(run.context).expect("a standard point's context");
        sink.lock().unwrap().insert(
            run.point,
            (meta.project_root().to_owned(), meta.cwd.to_path_buf()),
        );
    });
    (hooks, seen)
}

#[tokio::test]
async fn fire_in_sets_the_project_root_at_every_point_and_keeps_cwd() {
    let (hooks, seen) = recording();
    let root = Path::new("/work/project");
    for (event, payload) in payloads() {
        let fired = fire_in(&hooks, event, payload, root)
            .await
            .unwrap_or_else(|e| panic!("{event}: {e}"));
        // The root is the caller's, not part of what hooks are handed as JSON.
        assert!(fired.context.get("project_dir").is_none(), "{event}");
        assert_eq!(fired.context["cwd"], "/usr", "{event}");
    }
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 10, "{seen:?}");
    for (point, (root_seen, cwd)) in seen.iter() {
        assert_eq!(root_seen, root, "{point}");
        assert_eq!(cwd, Path::new("/usr"), "{point}");
    }
}

#[tokio::test]
async fn fire_without_a_root_leaves_cwd_as_the_root() {
    let (hooks, seen) = recording();
    let (event, payload) = payloads().remove(0);
    fire(&hooks, event, payload).await.unwrap();
    assert_eq!(
        seen.lock().unwrap()["pre_tool_use"],
        (PathBuf::from("/usr"), PathBuf::from("/usr"))
    );
}

#[tokio::test]
async fn a_project_dir_in_the_payload_is_ignored() {
    let (hooks, seen) = recording();
    let mut payload = payloads().remove(0).1;
    payload["project_dir"] = json!("/");
    fire_in(&hooks, "PreToolUse", payload, Path::new("/work/project"))
        .await
        .unwrap();
    assert_eq!(
        seen.lock().unwrap()["pre_tool_use"].0,
        PathBuf::from("/work/project")
    );
}
