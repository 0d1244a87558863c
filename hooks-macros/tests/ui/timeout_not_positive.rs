use hookrail_core::context::PreToolUse;
use hookrail_core::{Verdict, hook};

#[hook(pre_tool_use, timeout_ms = 0)]
fn instant(_ctx: &mut PreToolUse) -> Verdict {
    Verdict::Continue
}

fn main() {}
