use hookrail_core::context::PreToolUse;
use hookrail_core::{Verdict, hook};

#[hook(order = 1, pre_tool_use)]
fn backwards(_ctx: &mut PreToolUse) -> Verdict {
    Verdict::Continue
}

fn main() {}
