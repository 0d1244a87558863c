use hooks_core::context::PreToolUse;
use hooks_core::{Verdict, hook};

#[hook(pre_tool_use, priority = 10)]
fn prioritized(_ctx: &mut PreToolUse) -> Verdict {
    Verdict::Continue
}

fn main() {}
