//! Every accepted hook form compiles and registers: each kind, sync and async, plain and
//! `Result` returns, every argument, lifetimes, and a custom point.

use hookrail_core::context::{ErrorOccurred, PostToolUse, PreToolUse, SessionEnd, SessionStart};
use hookrail_core::{HookPoint, Recovery, Verdict, hook};

#[hook(pre_tool_use)]
fn guard_sync(_ctx: &mut PreToolUse) -> Verdict {
    Verdict::Continue
}

#[hook(pre_tool_use, order = -3, name = "custom_name")]
async fn guard_async(_ctx: &mut PreToolUse) -> Result<Verdict, std::io::Error> {
    Ok(Verdict::Allow)
}

#[hook(pre_tool_use, timeout_ms = 250, on_error = "continue", name = "lenient")]
async fn guard_with_settings(_ctx: &mut PreToolUse) -> Verdict {
    Verdict::Continue
}

/// `"ignore"`, the config files' first word for `"continue"`, reads the same here.
#[hook(pre_tool_use, on_error = "ignore", name = "lenient_old_word")]
fn guard_with_old_word(_ctx: &mut PreToolUse) -> Verdict {
    Verdict::Continue
}

#[hook(session_start, order = 7)]
fn transform_sync<'a>(ctx: &'a mut SessionStart) {
    ctx.add_context("hello");
}

#[hook(post_tool_use)]
async fn transform_async(ctx: &mut PostToolUse) -> Result<(), String> {
    ctx.add_context("seen");
    Ok(())
}

#[hook(session_end)]
fn observe_sync(_ctx: &SessionEnd) {}

#[hook(session_end, crate = ::hookrail_core)]
async fn observe_async(_ctx: &SessionEnd) {}

#[hook(error_occurred)]
fn recover_sync(_ctx: &ErrorOccurred) -> Option<Recovery> {
    None
}

#[hook(error_occurred,)]
async fn recover_async(_ctx: &ErrorOccurred) -> Result<Option<Recovery>, Box<dyn std::error::Error + Send + Sync>> {
    Ok(None)
}

pub mod points {
    pub struct MemorySave {
        pub value: String,
    }
    hookrail_core::hook_points! {
        /// Before a memory is saved.
        pub guard memory_save_before: MemorySave;
    }
}

#[hook(crate::points::memory_save_before)]
fn custom(ctx: &mut points::MemorySave) -> Verdict {
    if ctx.value.is_empty() { Verdict::deny("empty") } else { Verdict::Continue }
}

fn main() {
    let names: Vec<String> = hookrail_core::registry::linked()
        .into_iter()
        .map(|h| h.name.to_string())
        .collect();
    assert_eq!(names.len(), 11, "{names:?}");
    if let Ok(expected) = std::env::var("HOOKS_EXPECT_BACKEND") {
        assert_eq!(hookrail_core::registry::BACKEND, expected);
    }
    assert!(names.contains(&"custom_name".to_string()));
    let lenient = hookrail_core::points::pre_tool_use::Point::registry()
        .hooks()
        .iter()
        .find(|e| e.name() == "lenient")
        .expect("the hook with settings is registered");
    assert_eq!(lenient.timeout(), Some(std::time::Duration::from_millis(250)));
    assert_eq!(lenient.on_error(), hookrail_core::OnError::Continue);
    let old_word = hookrail_core::points::pre_tool_use::Point::registry()
        .hooks()
        .iter()
        .find(|e| e.name() == "lenient_old_word")
        .expect("the hook with on_error = \"ignore\" is registered");
    assert_eq!(old_word.on_error(), hookrail_core::OnError::Continue);
}
