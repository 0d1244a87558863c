use hookrail_core::context::PreToolUse;
use hookrail_core::{Verdict, hook};

#[hook(pre_tool_use, name = my_hook)]
fn named(_ctx: &mut PreToolUse) -> Verdict {
    Verdict::Continue
}

fn main() {}
