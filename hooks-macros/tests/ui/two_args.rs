use hookrail_core::context::PreToolUse;
use hookrail_core::{Verdict, hook};

#[hook(pre_tool_use)]
fn extra(_ctx: &mut PreToolUse, _limit: u32) -> Verdict {
    Verdict::Continue
}

fn main() {}
