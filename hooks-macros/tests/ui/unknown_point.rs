use hookrail_core::context::PreToolUse;
use hookrail_core::{Verdict, hook};

#[hook(pre_tool_usee)]
fn typo(_ctx: &mut PreToolUse) -> Verdict {
    Verdict::Continue
}

fn main() {}
