use hookrail_core::context::PreToolUse;
use hookrail_core::{Verdict, hook};

#[hook(pre_tool_use, priority = 10)]
fn prioritized(_ctx: &mut PreToolUse) -> Verdict {
    Verdict::Continue
}

fn main() {}
