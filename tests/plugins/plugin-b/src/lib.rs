//! Test fixture: registers hooks at a standard point and at plugin-a's custom points. The
//! integration tests link it only through `use plugin_b as _;`.

use std::sync::atomic::Ordering;

use hookrail_core::context::PreToolUse;
use hookrail_core::{Verdict, hook};
use plugin_a::points::{AuthFailure, MemorySave};

/// Runs before plugin-a's hook (order -5 < 10).
#[hook(pre_tool_use, order = -5)]
fn trail_b_first(ctx: &mut PreToolUse) -> Verdict {
    ctx.add_context("plugin_b::trail_b_first");
    Verdict::Continue
}

/// Runs after plugin-a's hook (order 20 > 10), and asks for confirmation of `git push`.
#[hook(pre_tool_use, order = 20)]
async fn trail_b_last(ctx: &mut PreToolUse) -> Verdict {
    ctx.add_context("plugin_b::trail_b_last");
    match ctx.command() {
        Some(cmd) if cmd.starts_with("git push") => Verdict::ask("pushing needs a human"),
        _ => Verdict::Continue,
    }
}

/// Runs before plugin-a's guard at plugin-a's own point.
#[hook(plugin_a::points::memory_save_before, order = -1)]
fn tag_memory(ctx: &mut MemorySave) -> Verdict {
    ctx.trail.push("plugin_b::tag_memory");
    Verdict::Continue
}

/// Counts failed logins (in plugin-a's counter: nothing may name this crate's items).
#[hook(plugin_a::points::auth_failure)]
fn count_auth_failures(_ctx: &AuthFailure) {
    plugin_a::AUTH_FAILURES_SEEN.fetch_add(1, Ordering::SeqCst);
}
