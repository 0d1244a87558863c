use hookrail_core::context::PreToolUse;
use hookrail_core::{Verdict, hook};

#[hook(pre_tool_use, order = 1, order = 2)]
fn twice(_ctx: &mut PreToolUse) -> Verdict {
    Verdict::Continue
}

fn main() {}
