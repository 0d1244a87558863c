use hookrail_core::context::PreToolUse;
use hookrail_core::{Verdict, hook};

#[hook(pre_tool_use, on_error = "block")]
fn lenient(_ctx: &mut PreToolUse) -> Verdict {
    Verdict::Continue
}

fn main() {}
