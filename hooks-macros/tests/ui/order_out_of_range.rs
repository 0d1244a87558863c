use hooks_core::context::PreToolUse;
use hooks_core::{Verdict, hook};

#[hook(pre_tool_use, order = 3000000000)]
fn late(_ctx: &mut PreToolUse) -> Verdict {
    Verdict::Continue
}

fn main() {}
