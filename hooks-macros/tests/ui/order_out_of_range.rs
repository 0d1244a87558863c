use hookrail_core::context::PreToolUse;
use hookrail_core::{Verdict, hook};

#[hook(pre_tool_use, order = 3000000000)]
fn late(_ctx: &mut PreToolUse) -> Verdict {
    Verdict::Continue
}

fn main() {}
