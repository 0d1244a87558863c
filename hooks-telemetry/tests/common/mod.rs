//! Hooks shared by the `otel` test binaries (`otel_memory`, `otel_otlp`): the same names,
//! orders and behaviour, so both check the same runs.

use hookrail_core::context::SessionStart;
use hookrail_core::points::{pre_tool_use, session_start};
use hookrail_core::runtime::Hook;
use hookrail_core::{HookError, HookResult, Verdict};

/// `pre_tool_use` guard `deny_rm`: denies a command that starts with `rm `.
pub fn deny_rm() -> Hook<pre_tool_use::Point> {
    Hook::<pre_tool_use::Point>::new("deny_rm", |ctx| {
        if ctx.command().is_some_and(|c| c.starts_with("rm ")) {
            Verdict::deny("no rm")
        } else {
            Verdict::Continue
        }
    })
}

/// `pre_tool_use` guard `broken` (order 5): errors on the `Write` tool, so it fails closed.
pub fn broken() -> Hook<pre_tool_use::Point> {
    Hook::<pre_tool_use::Point>::new("broken", |ctx| -> HookResult<Verdict> {
        if ctx.tool_name == "Write" {
            Err(HookError::new("policy store unreachable"))
        } else {
            Ok(Verdict::Continue)
        }
    })
    .order(5)
}

/// `session_start` transform `add_charter`: adds context.
pub fn add_charter() -> Hook<session_start::Point> {
    Hook::<session_start::Point>::new("add_charter", |ctx: &mut SessionStart| {
        ctx.add_context("be careful")
    })
}
