//! Dispatching a tool call to the guards and reading their answer (secrets guard, write
//! guard).

use std::path::Path;

use hookrail_core::Verdict;
use hookrail_core::context::{Meta, PreToolUse};
use hookrail_core::points::pre_tool_use;
use hookrail_core::runtime::Hooks;
use serde_json::Value;

/// The verdict `hooks` give a `tool` call with `input`, made in `cwd`.
pub fn dispatch(hooks: &Hooks, cwd: &Path, tool: &str, input: Value) -> Verdict {
    let mut ctx = PreToolUse::new(Meta::new("s1").with_cwd(cwd), tool, input);
    hooks.dispatch::<pre_tool_use::Point>(&mut ctx).value
}

/// The reason of a deny; any other verdict fails the test.
pub fn denied(v: &Verdict) -> &str {
    match v {
        Verdict::Deny(r) => r,
        other => panic!("expected a deny, got {other:?}"),
    }
}
