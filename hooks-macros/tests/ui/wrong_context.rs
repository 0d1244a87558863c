use hookrail_core::context::SessionStart;
use hookrail_core::{Verdict, hook};

// A `session_start` context at the `pre_tool_use` point.
#[hook(pre_tool_use)]
fn misplaced(_ctx: &mut SessionStart) -> Verdict {
    Verdict::Continue
}

fn main() {}
